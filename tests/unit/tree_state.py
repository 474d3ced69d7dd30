"""Not a test: what a folder tree holds, to prove a refusal changed nothing; and a call that may not hang.

`snapshot(path)` maps every entry under ``path`` (never following a symlink) to what it is: a file's
sha256 and mode, a symlink's target text, a FIFO, a folder and its mode. Equal snapshots before and
after mean no file was written, created, removed or re-moded, not even an empty backup folder.
`bounded(fn, seconds)` runs ``fn`` in a daemon thread and fails the test if it has not returned in
time (a blocking FIFO open cannot be interrupted by a signal in a thread, so the thread is left
behind and the test fails instead of the suite hanging).
"""

import hashlib
import os
import stat
import threading


def snapshot(path):
    """{relative path: description} of everything under ``path``, links not followed."""
    found = {}
    for folder, dirs, files in os.walk(str(path), followlinks=False):
        for name in sorted(dirs + files):
            full = os.path.join(folder, name)
            info = os.lstat(full)
            mode = "%04o" % stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                what = ("symlink", os.readlink(full))
            elif stat.S_ISDIR(info.st_mode):
                what = ("folder", mode, info.st_uid)
            elif stat.S_ISREG(info.st_mode):
                with open(full, "rb") as handle:
                    what = ("file", hashlib.sha256(handle.read()).hexdigest(), mode, info.st_uid)
            else:
                what = ("special", stat.S_IFMT(info.st_mode), mode)
            found[os.path.relpath(full, str(path))] = what
    return found


def bounded(fn, seconds=10):
    """``fn()``'s result, or its exception re-raised; AssertionError when it does not return within ``seconds``."""
    outcome = {}

    def call():
        try:
            outcome["value"] = fn()
        except BaseException as exc:  # pylint: disable=broad-exception-caught
            outcome["error"] = exc

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(timeout=seconds)
    assert not worker.is_alive(), "blocked for more than %s s" % seconds
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
