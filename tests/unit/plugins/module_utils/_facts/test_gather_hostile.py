"""The gather on hostile snapshot trees (issue 7, facts side): links out of the root, FIFOs, quotes of file content.

Every tree is a copy of the real H200 snapshot with real symlinks and FIFOs put in; the files
outside the tree are hashed before and after.
"""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import trees

H200 = shared_paths.H200_VM
SECRET = "TOPSECRET-" + "s" * 200


def outside_files(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "online").write_text("0-3\n" + SECRET + "\n")
    (outside / "meminfo").write_text("Node 0 MemTotal: 999 kB\n" + SECRET + "\n")
    (outside / "garbage").write_text(SECRET * 20)
    return outside


def test_links_out_of_the_root_are_read_inside_it(tmp_path):
    """Rule 2: absolute and '..' links are resolved as in a chroot; nothing outside is read or quoted."""
    outside = outside_files(tmp_path)
    before = trees.sha256_of(sorted(outside.iterdir()))
    root = trees.copy_snapshot(tmp_path, H200)
    cpu = root / "sys/devices/system/cpu"
    node = root / "sys/devices/system/node/node0"
    trees.remove(cpu / "online")
    os.symlink(str(outside / "online"), str(cpu / "online"))                        # absolute, out of the root
    # the same absolute path inside the root holds what a chroot would read
    inside = root / str(outside / "online").lstrip("/")
    inside.parent.mkdir(parents=True)
    inside.write_text("0-7\n")
    trees.remove(node / "meminfo")
    os.symlink("../" * 12 + str(outside / "meminfo").lstrip("/"), str(node / "meminfo"))  # climbs out with ..
    trees.remove(node / "distance")
    os.symlink(str(outside / "garbage"), str(node / "distance"))                     # absolute, nothing inside
    facts = gather(str(root), gpu_source="sysfs")
    assert facts["cpus"]["online"] == "0-7"
    assert facts["cpus"]["offline"] == "8-15"
    assert facts["numa_nodes"][0]["cpus"] == "0-7"
    assert facts["numa_nodes"][0]["memory_bytes"] is None
    assert facts["numa_nodes"][0]["distances"] is None
    assert "%s: missing; memory_bytes unknown" % (node / "meminfo") in facts["warnings"]
    assert "%s: missing; distances unknown" % (node / "distance") in facts["warnings"]
    assert not [w for w in facts["warnings"] if "TOPSECRET" in w]
    assert trees.sha256_of(sorted(outside.iterdir())) == before


def test_link_stub_out_of_the_root_stays_inside(tmp_path):
    """Snapshot link stubs (files holding a target) are followed inside the root only."""
    outside = outside_files(tmp_path)
    device = outside / "0000:00:06.0"
    device.mkdir()
    (device / "class").write_text("0x030200\n")
    (device / "vendor").write_text("0x10de\n")
    before = trees.sha256_of([device / "class", device / "vendor"])
    root = trees.copy_snapshot(tmp_path, H200)
    stub = root / "sys/bus/pci/devices/0000:00:06.0"
    trees.replace(stub, str(device))
    facts = gather(str(root), gpu_source="sysfs")
    assert facts["gpus"] == []
    assert "%s: missing (dangling link); PCI device skipped" % stub in facts["warnings"]
    assert trees.sha256_of([device / "class", device / "vendor"]) == before


def test_long_garbage_is_quoted_as_an_excerpt(tmp_path):
    """Rule 2: a warning quotes at most a short excerpt of a file's content."""
    root = trees.copy_snapshot(tmp_path, H200)
    node = root / "sys/devices/system/node/node0"
    trees.replace(node / "cpulist", SECRET * 20)
    trees.replace(node / "cpumap", SECRET * 20)
    trees.replace(root / "sys/devices/pci0000:00/0000:00:06.0/numa_node", SECRET)
    facts = gather(str(root), gpu_source="sysfs")
    assert facts["numa_nodes"][0]["cpus"] is None
    shown = repr(SECRET[:40] + "...")
    assert ("%s: not a cpu set (4200 characters starting %s); %s: not a cpu set (4200 characters starting %s)"
            % (node / "cpulist", shown, node / "cpumap", shown)) in facts["warnings"]
    assert ("gpu 0000:00:06.0: %s: %s is not an integer; sysfs numa_node unknown"
            % (root / "sys/devices/pci0000:00/0000:00:06.0/numa_node", shown)) in facts["warnings"]
    assert max(len(w) for w in facts["warnings"]) < 600


def test_fifos_and_devices_never_block(tmp_path):
    """Rule 3: a FIFO or a device where a sysfs file is expected is a warning naming the path; the gather returns."""
    root = trees.copy_snapshot(tmp_path, H200)
    node = root / "sys/devices/system/node/node0"
    trees.remove(node / "meminfo")
    os.mkfifo(str(node / "meminfo"))
    pci_class = root / "sys/devices/pci0000:00/0000:00:06.0/class"
    trees.remove(pci_class)
    os.symlink("/dev/zero", str(pci_class))  # read inside the root: there is no dev/zero there
    os.makedirs(str(root / "dev"))
    os.mknod(str(root / "dev/zero"), 0o600 | 0o020000, os.makedev(1, 5))
    facts = trees.within(20, gather, str(root), gpu_source="sysfs")
    assert facts["numa_nodes"][0]["memory_bytes"] is None
    assert "%s: unreadable (a FIFO, not a regular file; not opened); memory_bytes unknown" % (node / "meminfo") in facts["warnings"]
    assert ("pci 0000:00:06.0: %s: unreadable (a character device, not a regular file; not opened); PCI class unknown, so not counted as a GPU"
            % pci_class) in facts["warnings"]
    assert facts["gpus"] == []
