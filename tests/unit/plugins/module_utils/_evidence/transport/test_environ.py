"""The named keys of /proc/<pid>/environ (_evidence/transport/environ.py): a real process, and huge, binary, FIFO and missing files."""

import os
import subprocess
import sys
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import environ

KEYS = ("UCX_NET_DEVICES", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME")


@pytest.fixture
def child():
    """A real process with the transport variables and a secret beside them."""
    env = {"UCX_NET_DEVICES": "mlx5_0:1", "NCCL_IB_HCA": "=mlx5_2", "SECRET_TOKEN": "do-not-print-me", "PATH": os.environ.get("PATH", "")}
    # the child says when it runs: before its exec, /proc/<pid>/environ would still be this process's
    proc = subprocess.Popen([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(30)"], env=env, stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"up\n"
    yield proc
    proc.kill()
    proc.wait()


def _environ_file(tmp_path, pid, content):
    where = tmp_path / "proc" / str(pid)
    where.mkdir(parents=True)
    (where / "environ").write_bytes(content)
    return str(where / "environ")


def test_real_process_only_the_named_keys(child):
    found = environ.read_keys("/", child.pid, KEYS)
    assert found["values"] == {"UCX_NET_DEVICES": "mlx5_0:1", "NCCL_IB_HCA": "=mlx5_2"}
    assert (found["read"], found["problem"], found["pid"]) == (True, None, child.pid)
    assert found["bytes"] > 0
    assert "do-not-print-me" not in repr(found) and "SECRET_TOKEN" not in repr(found)


def test_huge_environ_is_a_named_problem(tmp_path):
    path = _environ_file(tmp_path, 41, b"A=" + b"x" * environ.LIMIT_BYTES + b"\0")
    found = environ.read_keys(str(tmp_path), 41, KEYS)
    assert found == {"pid": 41, "read": False, "values": {}, "bytes": 0,
                     "problem": "%s is larger than 2097152 bytes (the bound for a process environment); not read" % path}


def test_binary_environ_is_a_named_problem(tmp_path):
    path = _environ_file(tmp_path, 42, b"NCCL_IB_HCA=mlx5_0\0\x7fELF\x02\x01\x01\x00\x00\x00\x03\x00>\x00")
    found = environ.read_keys(str(tmp_path), 42, KEYS)
    assert found == {"pid": 42, "read": False, "values": {}, "bytes": 33,
                     "problem": "%s is not an environment (entry 2 of 4 is not KEY=VALUE text: binary content); not used" % path}


def test_a_named_value_that_is_not_utf8_is_a_named_problem(tmp_path):
    path = _environ_file(tmp_path, 43, b"HOME=/root\0NCCL_SOCKET_IFNAME=\xff\xfe\0")
    found = environ.read_keys(str(tmp_path), 43, KEYS)
    assert (found["read"], found["values"]) == (False, {})
    assert found["problem"] == "%s: the value of NCCL_SOCKET_IFNAME is not UTF-8 text (binary); not used" % path


def test_fifo_is_refused_without_blocking(tmp_path):
    where = tmp_path / "proc" / "44"
    where.mkdir(parents=True)
    os.mkfifo(str(where / "environ"))  # no writer: a blocking open or read would hang here
    started = time.monotonic()
    found = environ.read_keys(str(tmp_path), 44, KEYS)
    assert time.monotonic() - started < 1.0
    assert found == {"pid": 44, "read": False, "values": {}, "bytes": 0,
                     "problem": "%s is a FIFO, not the kernel's environ file; not read" % (where / "environ")}


def test_ended_process_is_not_read_and_no_problem(tmp_path):
    assert environ.read_keys(str(tmp_path), 45, KEYS) == {"pid": 45, "read": False, "values": {}, "problem": None, "bytes": 0}


def test_keys_not_set_are_absent(tmp_path):
    _environ_file(tmp_path, 46, b"HOME=/root\0NCCL_DEBUG=INFO\0")
    assert environ.read_keys(str(tmp_path), 46, KEYS) == {"pid": 46, "read": True, "values": {}, "problem": None, "bytes": 27}


@pytest.mark.parametrize("pid", [0, -1, True, "12", 4194305])
def test_not_a_pid(pid):
    found = environ.read_keys("/", pid, KEYS)
    assert found["problem"] == "pid %r is not a process id (an integer from 1 to 4194304); environ not read" % (pid,)
    assert found["read"] is False
