# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write an inventory of N snapshot nodes for playbooks/plan.yml, and their kubelet layouts.

Every host runs over the local connection. Its topology comes from one of the real sysfs
snapshots under <shared>/fixtures (hwloc/* and real/h200-vm, taken in turn), and its kubelet
configuration from a kubeadm-style main file in a temporary layout under the work folder, so
kubelet_config_info and kubelet_config read and (in check mode) render temp files, never the
machine's own. Artifacts go to <work>/artifacts.

Usage: .venv/bin/python scripts/fleet_inventory.py --nodes 40 --work /tmp/fleet [--output FILE]
Prints the inventory path; run plan.yml with `-i` on it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("NUMA_GATE_SHARED") or os.path.join(os.path.dirname(REPO), "shared")

MAIN_CONFIG = """\
# kubeadm wrote this
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
clusterDNS:
  - 10.96.0.10
clusterDomain: cluster.local
systemReserved:
  memory: 256Mi
"""

# A machine must keep a whole core allocatable on each NUMA node after reserving one: the
# 2-thread, 1-core 2i386 snapshot cannot, and the planner rightly refuses it.
MIN_CPUS = 4
# The kubelet_plan role's default settings, for hosts that need one more option.
SETTINGS = {
    "featureGates": {"PodLevelResources": True, "PodLevelResourceManagers": True},
    "cpuManagerPolicy": "static",
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "topologyManagerScope": "pod",
}


def node_python():
    """The Python a node would run modules with: the system's own when it has PyYAML, else this one."""
    system = "/usr/bin/python3"
    if os.path.exists(system) and os.access(system, os.X_OK):
        probe = subprocess.run([system, "-c", "import yaml"], capture_output=True, check=False)
        if probe.returncode == 0:
            return system
    return sys.executable


def snapshots(shared=SHARED):
    """The snapshot folders, sorted: every hwloc/* machine big enough to plan, then real/h200-vm."""
    hwloc = os.path.join(shared, "fixtures", "hwloc")
    found = sorted(
        os.path.join(hwloc, name) for name in os.listdir(hwloc)
        if cpu_count(os.path.join(hwloc, name)) >= MIN_CPUS
    )
    return found + [os.path.join(shared, "fixtures", "real", "h200-vm")]


def cpu_count(root):
    """The cpuN folders a snapshot has (0 when it has no CPU tree)."""
    folder = os.path.join(root, "sys", "devices", "system", "cpu")
    try:
        return sum(1 for name in os.listdir(folder) if name.startswith("cpu") and name[3:].isdigit())
    except OSError:
        return 0


def numa_node_count(root):
    """NUMA nodes the snapshot's kernel lists (no node folder means one node)."""
    folder = os.path.join(root, "sys", "devices", "system", "node")
    try:
        return max(1, sum(1 for name in os.listdir(folder) if name.startswith("node") and name[4:].isdigit()))
    except OSError:
        return 1


def host_vars(root, layout, artifacts, python):
    """Variables for one snapshot node whose kubelet files live under ``layout``."""
    nodes = numa_node_count(root)
    found = {
        "ansible_connection": "local",
        "ansible_python_interpreter": python,
        "numa_gate_artifacts_dir": artifacts,
        "topology_root": root,
        "topology_gpu_source": "sysfs",
        # The shared layout setting (roles/numa_gate): the plan and the render read the same files.
        "numa_gate_kubelet_layout": {"path": os.path.join(layout, "var/lib/kubelet/config.yaml"),
                                     "config_dir": os.path.join(layout, "etc/kubernetes/kubelet.conf.d"),
                                     "dropin_name": "50-numa-gate.conf",
                                     "kubelet_root_dir": os.path.join(layout, "var/lib/kubelet"), "mode": "dropin"},
        "kubelet_plan_reserved_cpus": 1,
        "kubelet_plan_kube_reserved": {"memory": "128Mi"},
        "kubelet_render_backup_dir": os.path.join(layout, "var/lib/numa-gate/backups"),
    }
    if nodes > 8:
        # The Topology Manager refuses more than 8 NUMA nodes unless told the bound.
        found["kubelet_plan_settings"] = dict(
            SETTINGS, topologyManagerPolicyOptions={"max-allowable-numa-nodes": str(nodes)})
    return found


def make_layout(layout):
    """A kubeadm-style main file and an empty drop-in folder under ``layout``."""
    os.makedirs(os.path.join(layout, "var/lib/kubelet"), exist_ok=True)
    os.makedirs(os.path.join(layout, "etc/kubernetes/kubelet.conf.d"), exist_ok=True)
    with open(os.path.join(layout, "var/lib/kubelet/config.yaml"), "w", encoding="utf-8") as handle:
        handle.write(MAIN_CONFIG)


def inventory(count, work, python, shared=SHARED):
    """The inventory (a dict) for ``count`` hosts, creating their layouts under ``work``."""
    roots = snapshots(shared)
    hosts = {}
    for index in range(count):
        name = "node-%03d" % (index + 1)
        layout = os.path.join(work, "nodes", name)
        make_layout(layout)
        hosts[name] = host_vars(roots[index % len(roots)], layout, os.path.join(work, "artifacts"), python)
    return {"all": {"hosts": hosts}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=40)
    parser.add_argument("--work", required=True, help="folder for the layouts, artifacts and inventory")
    parser.add_argument("--output", help="inventory file (default <work>/inventory.json)")
    parser.add_argument("--python", help="the nodes' Python (default: /usr/bin/python3 when it has PyYAML, as on a node; else this one)")
    args = parser.parse_args(argv)
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    output = args.output or os.path.join(work, "inventory.json")
    # JSON is YAML: Ansible's yaml inventory plugin reads it, and it needs no PyYAML here.
    with open(output, "w", encoding="utf-8") as handle:
        json.dump(inventory(args.nodes, work, args.python or node_python()), handle, indent=2, sort_keys=True)
        handle.write("\n")
    print(output)


if __name__ == "__main__":
    main()
