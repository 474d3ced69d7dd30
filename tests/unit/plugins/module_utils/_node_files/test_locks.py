"""The state lock is taken within a bounded time or refused by name; it is released when its holder dies."""

import os
import signal
import subprocess
import sys
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, locks

HOLDER = r"""
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def test_a_held_lock_is_waited_for_within_the_bound_then_refused(tmp_path):
    path = str(tmp_path / ".lock")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, path], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"held\n"
        started = time.monotonic()
        with pytest.raises(atomic.NodeStateError) as raised:
            with locks.lock_file(path, "/s/transitions/.lock", seconds=0.5):
                pass
        waited = time.monotonic() - started
        assert str(raised.value) == "another run has held the lock /s/transitions/.lock for more than 0.5 s; nothing was changed"
        assert 0.5 <= waited < 1.5
        # A killed holder (SIGKILL) releases it: the next run goes on at once.
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
        started = time.monotonic()
        with locks.lock_file(path, "/s/transitions/.lock", seconds=5):
            assert time.monotonic() - started < 1
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=10)


def test_a_lock_that_is_a_fifo_is_not_used_and_does_not_block(tmp_path):
    path = str(tmp_path / ".lock")
    os.mkfifo(path)
    with pytest.raises(atomic.NodeStateError) as raised:
        with locks.lock_file(path, "/s/.lock"):
            pass
    assert str(raised.value) == "the lock /s/.lock is not a regular file; not used, nothing was changed"


def test_a_refused_block_removes_the_lock_file_it_created_and_keeps_one_that_was_there(tmp_path):
    path = str(tmp_path / ".lock")
    with pytest.raises(atomic.NodeStateError):
        with locks.lock_file(path, "/s/transitions/.lock"):
            assert os.path.exists(path)
            raise atomic.NodeStateError("refused")
    assert not os.path.lexists(path)
    with locks.lock_file(path, "/s/transitions/.lock"):
        pass
    with pytest.raises(atomic.NodeStateError):
        with locks.lock_file(path, "/s/transitions/.lock"):
            raise atomic.NodeStateError("refused")
    assert os.path.isfile(path)
