# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An exclusive lock on a file of the collection's state, held for a bounded time.

Public: `hold(fd, shown, seconds)`, `lock_file(path, shown, seconds)`, `WAIT_SECONDS`.

``flock`` (advisory, released when the process dies, so a killed run never leaves it held) is
asked for without blocking and retried until a deadline: a run that holds it for longer is
reported, never waited for without end.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic

WAIT_SECONDS = 30.0
_POLL = 0.02


def hold(fd, shown, seconds=WAIT_SECONDS, deadline=None):
    """Take ``flock(LOCK_EX)`` on ``fd`` within ``seconds`` (or by ``deadline``, a monotonic time), else raise naming ``shown``."""
    deadline = time.monotonic() + seconds if deadline is None else deadline
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise atomic.NodeStateError("cannot lock %s: %s; nothing was changed" % (shown, exc.strerror or exc))
        if time.monotonic() >= deadline:
            raise atomic.NodeStateError("another run has held the lock %s for more than %g s; nothing was changed" % (shown, seconds))
        time.sleep(_POLL)


def _open_lock(path, shown):
    """``(fd, made)`` of the lock file, created 0600 when missing; never through a symlink."""
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        try:
            return os.open(path, flags | os.O_CREAT | os.O_EXCL, atomic.NEW_FILE_MODE), True
        except FileExistsError:
            return os.open(path, flags), False
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise atomic.NodeStateError("the lock %s is a symlink; not used, nothing was changed" % shown)
        raise atomic.NodeStateError("cannot open the lock %s: %s; nothing was changed" % (shown, exc.strerror or exc))


def _same(path, fd):
    try:
        now, held = os.lstat(path), os.fstat(fd)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


@contextlib.contextmanager
def lock_file(path, shown, seconds=WAIT_SECONDS):
    """Hold an exclusive lock on the lock file ``path`` (created 0600, never through a symlink) for the block.

    A lock file this run created is removed again when the block raises (a refused run leaves none behind); a run
    that was waiting on a file removed so takes the lock again on the file now at ``path``.
    """
    deadline = time.monotonic() + seconds
    while True:
        fd, made = _open_lock(path, shown)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise atomic.NodeStateError("the lock %s is not a regular file; not used, nothing was changed" % shown)
            hold(fd, shown, seconds, deadline)
        except BaseException:
            os.close(fd)
            raise
        if _same(path, fd):
            break
        os.close(fd)
    try:
        yield fd
    except BaseException:
        if made:  # still held, so no other run has it; one waiting on it takes the new file
            _unlink_if_same(path, fd)
        raise
    finally:
        os.close(fd)


def _unlink_if_same(path, fd):
    try:
        if os.lstat(path).st_ino == os.fstat(fd).st_ino:
            os.unlink(path)
    except OSError:
        pass
