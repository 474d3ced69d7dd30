# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The named keys of a process's ``/proc/<pid>/environ``, read bounded in bytes and time; nothing else kept.

Public: `read_keys`, `LIMIT_BYTES`, `LIMIT_SECONDS`.

`read_keys(root, pid, keys)` returns ``{"pid", "read", "values", "problem", "bytes"}``: ``values`` holds
only the asked keys found (the other variables are never returned, printed or kept), ``problem`` is
None or a sentence naming the file and the rule it broke: a FIFO, device or directory (fstat'd after an
O_NONBLOCK open, never read), more than `LIMIT_BYTES`, a read past `LIMIT_SECONDS`, or content that is
not NUL-separated ``KEY=VALUE`` text (binary). A problem is a finding for the caller, never an
exception; a process that has ended is ``read: False`` with no problem.
"""

from __future__ import annotations

import errno
import os
import stat
import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio

# ARG_MAX with the default 8 MiB stack limit is 2 MiB for arguments and environment together.
LIMIT_BYTES = 2 * 1024 * 1024
LIMIT_SECONDS = 2.0
_PID_MAX = 4194304


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _result(pid, values=None, problem=None, size=0, read=True):
    return {"pid": pid, "read": read, "values": values or {}, "problem": problem, "bytes": size}


def _read_bounded(path, limit, seconds):
    """(bytes, problem): the file's bytes, or None and why not."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ESRCH):
            raise FileNotFoundError(path) from exc
        if exc.errno == errno.ELOOP:
            return None, "%s is a symlink; not read" % path
        return None, "%s could not be opened (%s); not read" % (path, exc.strerror or exc)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "%s is %s, not the kernel's environ file; not read" % (path, _kind(info.st_mode))
        chunks, size = [], 0
        deadline = time.monotonic() + seconds
        while size <= limit:
            if time.monotonic() > deadline:
                return None, "%s took longer than %.1f s to read; not read" % (path, seconds)
            try:
                chunk = os.read(fd, min(65536, limit + 1 - size))
            except BlockingIOError:
                time.sleep(0.01)
                continue
            except OSError as exc:
                if exc.errno == errno.ESRCH:
                    raise FileNotFoundError(path) from exc
                return None, "%s could not be read (%s)" % (path, exc.strerror or exc)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            return None, "%s is larger than %d bytes (the bound for a process environment); not read" % (path, limit)
        return b"".join(chunks), None
    finally:
        os.close(fd)


def read_keys(root, pid, keys, limit=LIMIT_BYTES, seconds=LIMIT_SECONDS):
    """Only ``keys`` of /proc/<pid>/environ under ``root`` (see the module docstring)."""
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= _PID_MAX:
        return _result(pid, problem="pid %r is not a process id (an integer from 1 to %d); environ not read" % (pid, _PID_MAX), read=False)
    wanted = set(keys)
    try:
        path = _fileio.resolve_within(root, "proc/%d/environ" % pid, follow_last=False)
        data, problem = _read_bounded(path, limit, seconds)
    except FileNotFoundError:
        return _result(pid, read=False)
    except _fileio.FileIOError as err:
        return _result(pid, problem=str(err), read=False)
    if problem:
        return _result(pid, problem=problem, read=False)
    values = {}
    entries = [entry for entry in data.split(b"\0") if entry]
    for number, entry in enumerate(entries):
        name, sep, value = entry.partition(b"=")
        # A real environment is KEY=VALUE entries; control bytes in a name, or no '=', mean this is not one.
        if not sep or not name or any(byte < 0x20 or byte == 0x7f for byte in name):
            return _result(pid, problem="%s is not an environment (entry %d of %d is not KEY=VALUE text: binary content); not used"
                           % (path, number + 1, len(entries)), size=len(data), read=False)
        try:
            key = name.decode("ascii")
        except UnicodeDecodeError:
            continue  # a name no asked key can equal
        if key in wanted:
            try:
                values[key] = value.decode("utf-8")
            except UnicodeDecodeError:
                return _result(pid, problem="%s: the value of %s is not UTF-8 text (binary); not used" % (path, key), size=len(data), read=False)
    return _result(pid, values=values, size=len(data))
