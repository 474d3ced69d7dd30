"""The sysfs readers' directory fds and checks (issue 17): what is opened, what is not, and that every fd goes back.

Trees are copies of the real H200 snapshot (or small trees made here) with real symlinks, FIFOs and
device nodes put in; ``os.open`` is wrapped to record the paths handed to it.
"""

import os
import stat

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs_places
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import trees

H200 = shared_paths.H200_VM


def write(path, content):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), "w") as handle:
        handle.write(content)
    return str(path)


def open_fds():
    return sorted(int(name) for name in os.listdir("/proc/self/fd"))


def recording_open(monkeypatch):
    """Wrap os.open (as the readers call it) and return the list of paths it was given."""
    opened = []
    real_open = os.open

    def record(name, flags, *args, **kwargs):
        opened.append(trees.opened_as(name, kwargs.get("dir_fd")))
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(sysfs.os, "open", record)
    return opened


def test_a_directory_link_out_of_the_root_is_refused_as_before_also_through_a_listed_parent(tmp_path):
    """cpuN/topology as a link out of the root: read inside the root (missing there), never the outside file."""
    outside = tmp_path / "outside"
    write(outside / "core_id", "99\n")
    cpu = tmp_path / "root" / "sys" / "devices" / "system" / "cpu"
    write(cpu / "cpu0" / "topology" / "core_id", "0\n")
    os.makedirs(str(cpu / "cpu1"))
    os.symlink(str(outside), str(cpu / "cpu1" / "topology"))          # absolute, out of the root
    os.makedirs(str(cpu / "cpu2"))
    os.symlink("../../../../../../outside", str(cpu / "cpu2" / "topology"))  # climbs out with ..
    root = sysfs.Root(str(tmp_path / "root"))
    try:
        assert root.list_dir(str(cpu)) == (["cpu0", "cpu1", "cpu2"], None)   # cpuN now reached through cpu/'s fd
        assert root.read_int(str(cpu / "cpu0" / "topology" / "core_id")) == (0, None)
        for name in ("cpu1", "cpu2"):
            path = str(cpu / name / "topology" / "core_id")
            assert root.read_int(path) == (None, "%s: missing" % path)
            assert root.isdir(str(cpu / name / "topology")) is False
    finally:
        root.close()


def test_a_link_to_a_directory_inside_the_root_is_followed_there(tmp_path):
    cpu = tmp_path / "root" / "sys" / "devices" / "system" / "cpu"
    write(tmp_path / "root" / "elsewhere" / "core_id", "7\n")
    os.makedirs(str(cpu / "cpu0"))
    os.symlink("/elsewhere", str(cpu / "cpu0" / "topology"))          # absolute: read inside the root
    with sysfs.Root(str(tmp_path / "root")) as root:
        assert root.read_int(str(cpu / "cpu0" / "topology" / "core_id")) == (7, None)
        assert root.list_dir(str(cpu / "cpu0" / "topology")) == (["core_id"], None)


def test_a_fifo_or_a_device_is_looked_at_and_never_opened(tmp_path, monkeypatch):
    """The look before the open: a FIFO or a device node gets a warning naming it, and os.open never sees its path."""
    root = trees.copy_snapshot(tmp_path, H200)
    node = root / "sys/devices/system/node/node0"
    trees.remove(node / "meminfo")
    os.mkfifo(str(node / "meminfo"))
    core_id = root / "sys/devices/system/cpu/cpu3/topology/core_id"
    trees.remove(core_id)
    os.mknod(str(core_id), 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
    opened = recording_open(monkeypatch)
    facts = trees.within(20, gather, str(root), gpu_source="sysfs")
    assert str(node / "meminfo") not in opened
    assert str(core_id) not in opened
    assert "%s: unreadable (a FIFO, not a regular file; not opened); memory_bytes unknown" % (node / "meminfo") in facts["warnings"]
    assert "%s: unreadable (a character device, not a regular file; not opened)" % core_id in facts["warnings"]
    assert facts["numa_nodes"][0]["memory_bytes"] is None
    # the files next to them are read as usual
    assert str(node / "distance") in opened


def test_a_fifo_swapped_in_after_the_look_is_not_waited_on(tmp_path, monkeypatch):
    """If a file turns into a FIFO between the look and the open, the non-blocking open and read return at once."""
    root = trees.copy_snapshot(tmp_path, H200)
    meminfo = root / "sys/devices/system/node/node0/meminfo"
    regular = os.stat(str(meminfo))
    trees.remove(meminfo)
    os.mkfifo(str(meminfo))
    real_stat = os.stat

    def stale(name, *args, **kwargs):  # the look still sees the regular file that was there
        info = real_stat(name, *args, **kwargs)
        return regular if name.endswith("node0/meminfo") and stat.S_ISFIFO(info.st_mode) else info

    monkeypatch.setattr(sysfs.os, "stat", stale)
    facts = trees.within(20, gather, str(root), gpu_source="sysfs")
    assert facts["numa_nodes"][0]["memory_bytes"] is None
    assert "%s: no 'MemTotal: <n> kB' line; memory_bytes unknown" % meminfo in facts["warnings"]


def test_every_fd_goes_back_after_a_gather(tmp_path):
    before = open_fds()
    gather(H200, gpu_source="sysfs")
    gather(os.path.join(shared_paths.HWLOC, "256ia64-64n2s2c"), gpu_source="sysfs")
    assert open_fds() == before


def test_a_root_holds_directory_fds_and_batches_of_read_files_until_closed(tmp_path):
    before = open_fds()
    cpu = os.path.join(H200, "sys/devices/system/cpu")
    root = sysfs.Root(H200)
    names, _warning = root.list_dir(cpu)
    cpus = [name for name in names if name.startswith("cpu") and name[3:].isdigit()]
    for name in cpus:
        assert root.read_int("%s/%s/topology/core_id" % (cpu, name))[1] is None
    held = len(open_fds()) - len(before)
    assert 0 < held <= sysfs_places._CLOSE_BATCH + 8  # pylint: disable=protected-access
    root.close()
    assert open_fds() == before
    # still usable: places are found again
    assert root.read_int("%s/cpu0/topology/core_id" % cpu)[1] is None
    root.close()
    assert open_fds() == before


def test_the_same_facts_when_no_directory_fd_may_be_kept(monkeypatch):
    """Past the bound on kept directory fds, directories are checked with an lstat by path: same facts, same warnings."""
    snapshot = os.path.join(shared_paths.HWLOC, "40intel64-2g2n4c+pci")
    expected = gather(snapshot, gpu_source="sysfs")
    monkeypatch.setattr(sysfs_places, "_MAX_DIR_FDS", 0)
    assert gather(snapshot, gpu_source="sysfs") == expected


def test_an_open_refused_for_a_directory_fd_falls_back_to_paths(monkeypatch):
    """A directory fd that cannot be opened (fds exhausted, say) leaves the directory read by its path: same facts."""
    expected = gather(H200, gpu_source="sysfs")
    real_open = os.open

    def no_dir_fds(name, flags, *args, **kwargs):
        if flags & os.O_DIRECTORY:
            raise OSError(24, "Too many open files", name)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(sysfs.os, "open", no_dir_fds)
    assert gather(H200, gpu_source="sysfs") == expected


def test_every_fd_goes_back_when_a_gather_refuses_the_root(tmp_path):
    """A root without CPU topology raises TopologyError; the fds the gather opened on the way are closed all the same."""
    write(tmp_path / "root" / "sys" / "devices" / "system" / "node" / "online", "0\n")
    before = open_fds()
    try:
        gather(str(tmp_path / "root"), gpu_source="sysfs")
    except sysfs.TopologyError as exc:
        assert "no CPU topology under root" in str(exc)
    else:
        raise AssertionError("a root without sys/devices/system/cpu gave facts")
    assert open_fds() == before
