"""Helpers (not tests) for the facts tests: copies of shared snapshots to corrupt, hashes, a timeout.

The shared fixtures are read-only and never edited: a test that needs a broken tree copies one
into its tmp_path first.
"""

import hashlib
import os
import shutil
import threading


def copy_snapshot(tmp_path, source, name="root"):
    """A writable copy of the snapshot ``source`` (links copied as links) under tmp_path/name."""
    root = tmp_path / name
    shutil.copytree(str(source), str(root), symlinks=True)
    for directory, _dirs, _files in os.walk(str(root)):
        os.chmod(directory, 0o755)  # the fixtures are read-only; the copy is ours to corrupt
    return root


def replace(path, content):
    """Put ``content`` (text) where ``path`` is, whatever it was (file, link or directory)."""
    path = str(path)
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        if not os.path.islink(path):
            os.chmod(path, 0o644)
        os.remove(path)
    with open(path, "w") as handle:
        handle.write(content)


def remove(path):
    path = str(path)
    os.chmod(path, 0o644)
    os.remove(path)


def opened_as(name, dir_fd=None):
    """The path ``os.open(name, flags, dir_fd=dir_fd)`` opens (the readers open relative to directory fds), for wrappers of os.open."""
    if dir_fd is None or os.path.isabs(name):
        return name
    return os.path.join(os.readlink("/proc/self/fd/%d" % dir_fd), name)


def sha256_of(paths):
    """{path: sha256 of its bytes} for files outside the tree a test reads."""
    hashes = {}
    for path in paths:
        with open(str(path), "rb") as handle:
            hashes[str(path)] = hashlib.sha256(handle.read()).hexdigest()
    return hashes


def within(seconds, function, *args, **kwargs):
    """``function(*args, **kwargs)`` run in a thread; AssertionError if it has not returned after ``seconds``."""
    outcome = {}

    def call():
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as exc:  # pylint: disable=broad-exception-caught
            outcome["error"] = exc

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise AssertionError("%s did not return within %s seconds (blocked?)" % (getattr(function, "__name__", function), seconds))
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
