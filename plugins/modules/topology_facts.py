#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: topology_facts
short_description: Read a node's CPU, NUMA, GPU and NIC topology (facts schema v1)
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Reads sysfs and procfs in one read-only pass and returns the node's topology as
    C(ansible_facts.numa_gate_topology) (facts schema version 1).
  - Online, offline, present, possible and isolated CPUs; packages and physical cores with their
    SMT siblings and NUMA node; every online NUMA node (including CPU-less and memory-less ones)
    with its CPUs, memory, huge pages and distances; the cgroup restriction of the reading process
    (C(allowed)); GPUs and NICs with their NUMA locality and where each value came from.
  - GPUs come from NVML, then C(nvidia-smi), else sysfs PCI display devices of a GPU vendor or 3D controllers,
    as O(gpu_source) says.
  - PCI devices bound to C(amdgpu) are GPUs whatever their PCI class (Instinct MI300 parts are class 0x1200), each with an
    C(amd) section from sysfs and the KFD topology (C(/sys/class/kfd/kfd/topology)) and a C(findings) list; with
    O(gpu_source=auto) C(amd-smi), else C(rocm-smi), is asked too and its values kept beside sysfs's, never over them.
    A PCI C(numa_node) of C(-1) means unknown, never node 0; it is reported as null with a warning.
  - Unknown values are null and every problem found is returned as a warning, never a guess.
  - Disallowed CPUs (outside the cgroup) stay in C(cpus.online), as the kubelet sees the whole host;
    C(allowed) says which ones this process may use.
options:
  root:
    description:
      - Directory under which C(sys/) and C(proc/) are read. V(/) on a node; a snapshot directory
        (for example one taken by C(hwloc-gather-topology)) for offline analysis.
      - With a root other than V(/), vendor GPU tools are not run (they would describe this machine,
        not the snapshot), so GPUs come from the snapshot's sysfs.
      - Reading never leaves O(root) - a symlink is resolved inside it, as in a chroot - and only regular
        files are read, with a size bound, so a FIFO or device where a sysfs file is expected is a warning, never a hang.
      - An empty value is refused, never taken as V(/).
    type: path
    default: /
  gpu_source:
    description:
      - Where GPU identities come from.
      - V(auto) tries NVML, then C(nvidia-smi), and falls back to sysfs when neither is available; for AMD GPUs it runs
        C(amd-smi static), C(amd-smi list) and C(amd-smi topology -t) (with C(--json), else without) and C(amd-smi version),
        or where C(amd-smi) is not installed C(rocm-smi --showhw), C(--showbus), C(--showtopo) and C(--showproduct).
        Every other choice runs no AMD tool.
      - V(nvml) and V(nvidia-smi) use only that tool, falling back to sysfs with a warning when it is missing.
      - V(sysfs) lists PCI display devices (class 0x03) from a GPU vendor (NVIDIA 0x10de, AMD 0x1002) and 3D controllers
        (class 0x0302) from any vendor, by address; other display devices, such as a BMC's VGA, are left out with a warning.
        Devices bound to C(amdgpu) are GPUs with every choice but V(none).
        V(none) reports no GPUs.
    type: str
    default: auto
    choices: [auto, nvml, nvidia-smi, sysfs, none]
  kubelet_layout:
    description:
      - Also read the node's kubelet configuration, in this same module run, as M(gpusmith.numa_gate.kubelet_config_info)
        reads it with these options (its O(gpusmith.numa_gate.kubelet_config_info#module:path),
        O(gpusmith.numa_gate.kubelet_config_info#module:config_dir), O(gpusmith.numa_gate.kubelet_config_info#module:dropin_name),
        O(gpusmith.numa_gate.kubelet_config_info#module:kubelet_root_dir) and O(gpusmith.numa_gate.kubelet_config_info#module:root));
        the reading is returned as RV(kubelet_config). Needs PyYAML on the node.
      - One node round trip instead of two where a play needs both (the P(gpusmith.numa_gate.topology#role) role's
        C(topology_kubelet_layout), used by C(playbooks/plan.yml)). Left out, the kubelet's files are not read.
    type: dict
    suboptions:
      path:
        description: The kubelet's main configuration file (C(--config)).
        type: str
        default: /var/lib/kubelet/config.yaml
      config_dir:
        description: The kubelet's drop-in directory (C(--config-dir)).
        type: str
        default: /etc/kubernetes/kubelet.conf.d
      dropin_name:
        description: File name of the drop-in this collection manages in O(kubelet_layout.config_dir).
        type: str
        default: 50-numa-gate.conf
      kubelet_root_dir:
        description: The kubelet's root directory, holding its checkpoints.
        type: str
        default: /var/lib/kubelet
      root:
        description: The folder the kubelet's paths are read in, as if it were C(/); paths never leave it.
        type: path
        default: /
notes:
  - The cgroup restriction is read for the module's own process, as hwloc does.
extends_documentation_fragment:
  - gpusmith.numa_gate.read_only
"""

EXAMPLES = r"""
- name: Read the node topology
  gpusmith.numa_gate.topology_facts:

- name: Show the NUMA nodes
  ansible.builtin.debug:
    var: ansible_facts.numa_gate_topology.numa_nodes

- name: Read a sysfs snapshot without any vendor tool
  gpusmith.numa_gate.topology_facts:
    root: /srv/snapshots/node17
    gpu_source: sysfs
"""

RETURN = r"""
ansible_facts:
  description: The topology facts.
  returned: success
  type: dict
  contains:
    numa_gate_topology:
      description:
        - Facts schema version 1 (described in the collection's C(docs/facts.md)), plus C(allowed) and C(warnings).
        - CPU sets are canonical Linux cpulists (V(0-3,8)); PCI addresses are C(dddd:bb:dd.f).
        - An AMD GPU (bound to C(amdgpu)) also has C(amd) (KFD node, C(unique_id), XGMI C(hive_id), C(compute_partition) and
          C(memory_partition) from sysfs, its C(partitions) (KFD nodes), C(links) to CPU nodes and GPUs from KFD C(io_links), the
          C(driver) (C(version) from C(/sys/module/amdgpu/version), else C(in_kernel) with version null), and C(tool), what C(amd-smi)
          or C(rocm-smi) said) and C(findings), each a disagreement between sources, also in C(warnings).
        - An NVIDIA GPU has C(mig_devices), its MIG devices from C(nvidia-smi -L) (C(uuid), C(profile), C(index), C(gpu_instance),
          C(compute_instance)), null when that list could not be read.
        - Each GPU has C(links) - C(gpus) (its row of C(nvidia-smi topo -m) toward the other GPUs, such as C(NV18)), C(nics) (per NIC
          C(name), C(rdma_device), C(pci_address), C(numa_node), C(link) in the matrix's words C(PIX), C(PXB), C(PHB), C(NODE), C(SYS),
          and C(source) - C(nvidia-smi topo -m), else C(sysfs pci tree) from the PCI tree's common bridges), C(nearest_nics), C(nearest_link).
        - C(sriov) lists each SR-IOV physical function (C(pf), C(driver), C(interfaces), C(numvfs), C(totalvfs)) with its C(vfs) from
          its C(virtfn) links (C(pci_address), C(driver) such as C(vfio-pci), C(interfaces), C(numa_node), C(local_cpus)).
      returned: success
      type: dict
      sample:
        schema_version: 1
        root: /
        kernel: 6.8.0-45-generic
        cpus: {online: "0-15", offline: "", isolated: "", present: "0-15", possible: "0-15",
               smt_active: false, threads_per_core: 1, logical: 16, cores: 16, packages: 1}
        allowed: {cpus: "0-15", mems: "0", source: "cgroup2:/sys/fs/cgroup/system.slice"}
        packages: [{id: 0, cpus: "0-15"}]
        cores: [{package: 0, core: 0, cpus: "0", numa_node: 0}]
        numa_nodes:
          - {id: 0, cpus: "0-15", memory_bytes: 135148564480,
             hugepages: {"2048kB": {total: 0, free: 0}}, distances: {"0": 10}}
        gpus:
          - {index: 0, uuid: GPU-f2c38e61-1c95-2e97-c47e-1090719df202, pci_address: "0000:00:06.0",
             name: NVIDIA H200, vendor: nvidia, source: nvidia-smi, numa_node: 0, numa_source: nvidia-smi,
             sysfs_numa_node: null, local_cpus: "0-15",
             vendor_affinity: {source: nvidia-smi, numa_node: 0, cpus: "0-15"}, mig_devices: [],
             links: {gpus: {}, nics: [{name: eth0, rdma_device: null, pci_address: "0000:00:03.0", numa_node: 0, link: PHB,
                                       source: sysfs pci tree}], nearest_nics: [eth0], nearest_link: PHB}}
          - {index: 1, uuid: 19ff740f-0000-1000-8001-ead3a2ecd4a6, pci_address: "0000:63:00.0", name: AMD Instinct MI210, vendor: amd,
             source: sysfs, numa_node: 0, numa_source: sysfs, sysfs_numa_node: 0, local_cpus: "0-63",
             vendor_affinity: {source: amd-smi, numa_node: 0, cpus: "0-63"},
             amd: {pci_class: "0x038000", driver: {name: amdgpu, version: 6.19.4, in_kernel: false, source: sys/module/amdgpu/version},
                   kfd_node: 2, unique_id: "1801979520617338022", hive_id: "12609507387757274807", device_id: "0x740f",
                   kfd_cpu_node: 0, compute_partition: null, memory_partition: null,
                   partitions: [{id: 0, kfd_node: 2, render_minor: 128, gpu_id: null}],
                   links: [{to: cpu, node: 0, type: pcie, weight: 20}, {to: gpu, pci_address: "0000:03:00.0", type: xgmi, weight: 15}],
                   tool: {source: amd-smi, gpus: [0], numa_node: 0, cpus: "0-63", uuid: null, name: AMD Instinct MI210,
                          compute_partition: null, memory_partition: null, driver_version: 6.19.4,
                          links: [{pci_address: "0000:03:00.0", type: xgmi}], versions: {rocm version: 6.4.1}}},
             findings: []}
        nics:
          - {name: eth0, pci_address: "0000:00:03.0", driver: virtio-pci, numa_node: 0,
             numa_source: single-node, sysfs_numa_node: null, local_cpus: "0-15",
             rdma_devices: [], virtual_function: false}
        sriov:
          - {pf: "0000:3b:00.0", driver: mlx5_core, interfaces: [ens1f0], numvfs: 1, totalvfs: 8,
             vfs: [{index: 0, pci_address: "0000:3b:00.2", driver: vfio-pci, interfaces: [], numa_node: 1, numa_source: sysfs,
                    sysfs_numa_node: 1, local_cpus: "8-15"}]}
        warnings: ["gpu 0000:00:06.0: sysfs numa_node is -1, which means unknown (not node 0): ..."]
kubelet_unit:
  description:
    - "With O(kubelet_layout) and O(root=/), how the kubelet is started (C(kubelet.service): the running process's command line,
      else the unit's C(ExecStart)) against that layout; C(read) says where the flags came from, or C(no kubelet unit found)."
    - "C(config) and C(config_dir) are its C(--config) and C(--config-dir); C(modes) says for C(dropin) and C(main) whether the
      kubelet would read what that mode writes (null when unknown); C(warnings) name each difference from the layout."
  returned: when O(kubelet_layout) is given
  type: dict
  sample: {read: ExecStart, config: /etc/kubernetes/kubelet-config.yaml, config_dir: null, active: active,
           modes: {dropin: false, main: false}, warnings: ["the kubelet runs with --config=/etc/kubernetes/kubelet-config.yaml ..."]}
kubelet_config:
  description:
    - With O(kubelet_layout), what M(gpusmith.numa_gate.kubelet_config_info) returns for those options (C(effective), C(base),
      C(files), C(sources), C(main_exists), C(checkpoints)), and C(layout), the options it was read with.
  returned: when O(kubelet_layout) is set
  type: dict
"""

import os

import sys

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import GPU_SOURCES, TopologyError, gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import ModuleRunner
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import info
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import documents
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import unit


def _body(module):
    root = module.params["root"]
    runner = ModuleRunner(module) if root and os.path.abspath(root) == os.sep else None
    try:
        facts = gather(root=root, gpu_source=module.params["gpu_source"], runner=runner)
    except _errors.NumaGateError:
        raise
    except OSError as exc:
        raise TopologyError("reading the topology under %s failed: %s (%s)" % (root, exc.strerror or exc, exc.filename or root)) from exc
    except Exception as exc:  # pylint: disable=broad-exception-caught
        # Last resort: a bug must still end in a message that names the root, not a module traceback.
        raise TopologyError("reading the topology under %s failed with an unexpected %s: %s" % (root, type(exc).__name__, exc)) from exc
    for warning in facts["warnings"]:
        module.warn(warning)
    result = {"changed": False, "ansible_facts": {"numa_gate_topology": facts}}
    layout = module.params["kubelet_layout"]
    if layout is not None:
        if not merge.HAS_YAML:
            module.fail_json(msg=documents.missing_yaml(sys.executable))
        result["kubelet_config"] = dict(info.read(layout, documents=True), layout={name: layout[name] for name in info.LAYOUT_OPTIONS})
        # How the kubelet is started (its --config, --config-dir), against the assumed layout: on this node only.
        found = unit.read_unit(runner, "kubelet.service", _read_text) if runner else {"argv": [], "source": "not read (root is not /)"}
        result["kubelet_unit"] = dict(unit.layout_fit(found, layout), active=found.get("active"))
    module.exit_json(**result)


def _read_text(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            gpu_source=dict(type="str", default="auto", choices=list(GPU_SOURCES)),
            kubelet_layout=dict(type="dict", options=layout.layout_argument_spec()),
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, _body, root=module.params["root"])


if __name__ == "__main__":
    main()
