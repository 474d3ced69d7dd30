"""Helpers (not tests) for the AMD facts tests: the shared AMD captures read in place, KFD dumps rebuilt as sysfs trees.

Every capture in shared/fixtures/amd opens with a '#' header and a '# ---- verbatim ... ----' line; only what
follows it is the capture. A KFD dump is a series of '==> <path> <==' blocks, each one sysfs file verbatim.
"""

import os
import re

from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

AMD = os.path.join(shared_paths.FIXTURES, "amd")
KFD = "sys/class/kfd/kfd/topology"
_PROMPT = re.compile(r"^~?\$ (.*)$")


def verbatim(name):
    """What follows a capture's '# ---- verbatim' line (the first one), read in place."""
    with open(os.path.join(AMD, name), encoding="utf-8") as handle:
        text = handle.read()
    marker = text.index("# ---- verbatim")
    return text[text.index("\n", marker) + 1:]


def outputs(name):
    """[(command line, output)] of a capture: the text after each '$ <command>' prompt line up to the next one."""
    found = []
    for line in verbatim(name).splitlines(True):
        prompt = _PROMPT.match(line.rstrip("\n"))
        if prompt:
            found.append([prompt.group(1), ""])
        elif found:
            found[-1][1] += line
    return [tuple(item) for item in found]


def kfd_files(name):
    """{path under the topology folder: file content} of a KFD dump."""
    blocks = re.split(r"^==> (.*) <==\n", verbatim(name), flags=re.M)
    return dict((blocks[i], blocks[i + 1]) for i in range(1, len(blocks), 2))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def build_numa(root, nodes):
    """CPUs and NUMA nodes: ``nodes`` is {node id: [cpu ids]}; one core per CPU, one package per node."""
    cpus = sorted(cpu for node_cpus in nodes.values() for cpu in node_cpus)
    for node, node_cpus in nodes.items():
        for cpu in node_cpus:
            topology = os.path.join(root, "sys/devices/system/cpu/cpu%d/topology" % cpu)
            write(os.path.join(topology, "physical_package_id"), "%d\n" % node)
            write(os.path.join(topology, "core_id"), "%d\n" % cpu)
            write(os.path.join(topology, "thread_siblings_list"), "%d\n" % cpu)
        directory = os.path.join(root, "sys/devices/system/node/node%d" % node)
        write(os.path.join(directory, "cpulist"), cpulist(node_cpus) + "\n")
        write(os.path.join(directory, "meminfo"), "Node %d MemTotal:       1048576 kB\n" % node)
        write(os.path.join(directory, "distance"), " ".join("10" if n == node else "32" for n in sorted(nodes)) + "\n")
    write(os.path.join(root, "sys/devices/system/cpu/online"), cpulist(cpus) + "\n")
    write(os.path.join(root, "proc/sys/kernel/osrelease"), "6.8.0-test\n")
    write(os.path.join(root, "proc/meminfo"), "MemTotal:       %d kB\n" % (1048576 * len(nodes)))


def cpulist(cpus):
    return ",".join(str(cpu) for cpu in sorted(cpus))


def build_pci(root, address, pci_class, driver, numa_node, local_cpulist, vendor="0x1002", extra=None):
    """A PCI device under sys/devices/pci<domain>:00, linked from sys/bus/pci/devices, bound to ``driver`` (None: unbound)."""
    parent = "pci%s:00" % address[:4]
    device = os.path.join(root, "sys/devices", parent, address)
    write(os.path.join(device, "class"), pci_class + "\n")
    write(os.path.join(device, "vendor"), vendor + "\n")
    write(os.path.join(device, "numa_node"), "%d\n" % numa_node)
    write(os.path.join(device, "local_cpulist"), local_cpulist + "\n")
    for name, text in (extra or {}).items():
        write(os.path.join(device, name), text)
    if driver is not None:
        os.symlink("../../../bus/pci/drivers/" + driver, os.path.join(device, "driver"))
    links = os.path.join(root, "sys/bus/pci/devices")
    os.makedirs(links, exist_ok=True)
    os.symlink("../../../devices/%s/%s" % (parent, address), os.path.join(links, address))


def build_kfd(root, name, skip=()):
    """The KFD dump ``name`` written verbatim under sys/class/kfd/kfd/topology (less the paths in ``skip``)."""
    for path, text in kfd_files(name).items():
        if path not in skip:
            write(os.path.join(root, KFD, path), text)


def build_host(tmp_path, kfd_name, gpus, nodes, pci_class, extra=None, amdgpu_version=None):
    """A node: NUMA ``nodes``, the PCI GPUs ``gpus`` ({address: NUMA node}) bound to amdgpu, the KFD dump ``kfd_name``."""
    root = str(tmp_path / "root")
    build_numa(root, nodes)
    for address, node in gpus.items():
        build_pci(root, address, pci_class, "amdgpu", node, cpulist(nodes[node]), extra=extra)
    if kfd_name is not None:
        build_kfd(root, kfd_name)
    if amdgpu_version is not None:
        write(os.path.join(root, "sys/module/amdgpu/version"), amdgpu_version + "\n")
    os.makedirs(os.path.join(root, "sys/module/amdgpu"), exist_ok=True)
    return root
