"""Reading node files: inside the root, regular files only, bounded, never blocking."""

import hashlib
import os
import threading

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "passwd").write_text("inside\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside secret\n")
    return root, outside


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_absolute_link_is_read_inside_the_root(tree):
    root, outside = tree
    os.symlink("/etc/passwd", root / "abs")
    assert _fileio.resolve_within(str(root), "/abs") == str(root / "etc" / "passwd")
    assert _fileio.read_under(str(root), "abs") == b"inside\n"


def test_dotdot_never_climbs_above_the_root(tree):
    root, outside = tree
    os.symlink("../../../../outside.txt", root / "rel")
    before = _sha(outside)
    assert _fileio.resolve_within(str(root), "rel") == str(root / "outside.txt")
    assert _fileio.resolve_within(str(root), "/../../etc/passwd") == str(root / "etc" / "passwd")
    with pytest.raises(FileNotFoundError):
        _fileio.read_under(str(root), "rel")
    assert _sha(outside) == before


def test_missing_components_are_kept_and_last_link_can_be_kept(tree):
    root, _outside = tree
    os.symlink("/etc/passwd", root / "etc" / "link")
    assert _fileio.resolve_within(str(root), "/new/dir/file.conf") == str(root / "new" / "dir" / "file.conf")
    assert _fileio.resolve_within(str(root), "/etc/link", follow_last=False) == str(root / "etc" / "link")


def test_symlink_loop_is_refused_with_the_path(tree):
    root, _outside = tree
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    with pytest.raises(_fileio.FileIOError, match=r"/a: too many levels of symbolic links resolving a under "):
        _fileio.resolve_within(str(root), "a")


@pytest.mark.parametrize("root, path", [("", "/etc"), ("/", ""), (None, "/etc")])
def test_empty_paths_are_refused(root, path):
    with pytest.raises(_fileio.FileIOError, match="must be a non-empty path"):
        _fileio.resolve_within(root, path)


def test_fifo_is_refused_without_blocking(tree):
    root, _outside = tree
    fifo = root / "cpu_online"
    os.mkfifo(fifo)
    outcome = []

    def read():
        try:
            _fileio.read_regular(str(fifo))
        except _fileio.FileIOError as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert outcome == ["%s is a FIFO, not a regular file; not read" % fifo]


def test_device_directory_and_symlink_are_refused(tree):
    root, _outside = tree
    os.symlink("/etc/passwd", root / "link")
    for path, kind in (("/dev/null", "a character device"), (str(root / "etc"), "a directory"),
                       (str(root / "link"), "a symlink")):
        with pytest.raises(_fileio.FileIOError) as raised:
            _fileio.read_regular(path)
        assert str(raised.value) == "%s is %s, not a regular file; not read" % (path, kind)


def test_size_bound(tree):
    root, _outside = tree
    big = root / "big"
    big.write_bytes(b"x" * 101)
    assert _fileio.read_regular(str(big), limit=101) == b"x" * 101
    with pytest.raises(_fileio.FileIOError, match=r"big is larger than 100 bytes; not read$"):
        _fileio.read_regular(str(big), limit=100)


def test_missing_file_is_file_not_found(tree):
    root, _outside = tree
    with pytest.raises(FileNotFoundError):
        _fileio.read_regular(str(root / "absent"))
