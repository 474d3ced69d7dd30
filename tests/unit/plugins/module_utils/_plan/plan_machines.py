"""Small generated machines and kubelet configurations for the planner's tests (a helper, not a test module).

A machine has `nodes` NUMA nodes of `cores` cores each, numbered as Linux does: logical CPU = core + thread x cores.
"""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge as _kubelet_merge

GI = 1 << 30
MI = 1 << 20
MAIN = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"


def machine(nodes=2, cores=4, smt=2, packages=None, isolated="", memory=8 * GI, gpus=(), nics=(), hugepages=None):
    """Facts (schema v1) of a machine with `nodes` NUMA nodes of `cores` cores each.

    packages: number of packages, nodes split evenly over them (default: one per node).
    gpus / nics: (label, numa_node) pairs. memory: bytes per node, or a list per node.
    """
    packages = packages or nodes
    total = nodes * cores
    core_entries, node_entries = [], []
    for node in range(nodes):
        node_cpus = []
        for core in range(node * cores, (node + 1) * cores):
            cpus = [core + thread * total for thread in range(smt)]
            node_cpus += cpus
            core_entries.append({"package": node * packages // nodes, "core": core, "cpus": ",".join(str(c) for c in cpus), "numa_node": node})
        node_memory = memory[node] if isinstance(memory, list) else memory
        node_entries.append({"id": node, "cpus": ",".join(str(c) for c in sorted(node_cpus)), "memory_bytes": node_memory,
                             "hugepages": (hugepages or {}).get(node, {}), "distances": {}})
    return {
        "schema_version": 1,
        "cpus": {"online": "0-%d" % (total * smt - 1), "offline": "", "isolated": isolated, "smt_active": smt > 1, "threads_per_core": smt},
        "cores": core_entries,
        "numa_nodes": node_entries,
        "gpus": [{"pci_address": label, "numa_node": node} for label, node in gpus],
        "nics": [{"name": label, "numa_node": node} for label, node in nics],
        "warnings": [],
    }


def base(**keys):
    """The node's effective configuration from a main file with ``keys`` (kubelet defaults filled in)."""
    return _kubelet_merge.effective_config(dict(MAIN, **keys), [], main_path="/var/lib/kubelet/config.yaml")


def module_view(main_keys, plan):
    """What the kubelet_config module validates: the main file, then the plan as its drop-in."""
    return _kubelet_merge.effective_config(dict(MAIN, **main_keys), [(DROPIN, dict(MAIN, **plan["kubelet_settings"]))])
