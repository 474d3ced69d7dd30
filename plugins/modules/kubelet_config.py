#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_config
short_description: Merge settings into the kubelet configuration, validated by the kubelet's rules
version_added: 0.1.0
author: GPU Smith (@gpusmith)
extends_documentation_fragment:
  - gpusmith.numa_gate.kubelet_layout
description:
  - Reads the kubelet's main configuration file and every drop-in of its C(--config-dir), computes the
    effective configuration the way the kubelet does (drop-ins in lexical order as JSON merge patches;
    lists such as C(reservedMemory) are replaced whole, C(null) deletes a key) and the target one.
  - Validates the target effective configuration by the kubelet's own rules (CPU, Memory and Topology
    Manager policies and options, feature gates, C(reservedSystemCPUs), C(reservedMemory) sums and NUMA
    nodes, reservations against the node) and fails, writing nothing, when any rule is broken.
  - Writes atomically, keeps the file's owner and mode (new files are 0600) and backs the old file up
    byte for byte first.
  - In C(dropin) mode the collection owns one drop-in file whose content is exactly O(settings).
    The kubelet only reads drop-ins when it runs with C(--config-dir=<config_dir>); this module does not
    change the kubelet's flags.
  - A change is refused while a checkpoint in O(kubelet_root_dir) names a different CPU or Memory Manager policy
    than the target configuration, because the kubelet would then refuse to start; drain the node, stop the kubelet
    and remove the checkpoint first.
  - In C(main) mode O(settings) is merged into the main file as a JSON merge patch. The file is
    re-rendered as YAML, so comments in it are lost; the original stays in O(backup_dir).
options:
  mode:
    description:
      - C(dropin) writes O(settings) as the collection's own drop-in; C(main) merges them into O(path).
    type: str
    choices: [dropin, main]
    default: dropin
  settings:
    description:
      - KubeletConfiguration fields to apply (a JSON merge patch; C(null) deletes a key).
      - Required when O(state=present).
    type: dict
  state:
    description:
      - C(present) applies O(settings).
      - C(absent) removes the collection's drop-in (O(mode=dropin)) or restores the main file from its baseline, the
        bytes it had before this collection first wrote it, checked against their sha256 (O(mode=main)); fails when there
        is no baseline. A removal is never blocked by other drop-ins that do not parse or by rules the remaining
        configuration breaks, which are reported as warnings.
    type: str
    choices: [present, absent]
    default: present
  backup_dir:
    description:
      - Where the byte-for-byte backups go (created 0700 when missing).
    type: str
    default: /var/lib/numa-gate/backups
  online_cpus:
    description:
      - The node's online CPUs as a cpulist. Read from C(<root>/sys/devices/system/cpu/online) when omitted.
    type: str
  numa_nodes:
    description:
      - NUMA node id to memory bytes. Read from C(<root>/sys/devices/system/node/node*/meminfo) when omitted.
    type: dict
  memory_bytes:
    description:
      - The node's memory capacity (C(MemTotal)), which the kubelet resolves percentage eviction thresholds against.
      - Read from C(<root>/proc/meminfo) when omitted; the sum of O(numa_nodes) when that cannot be read.
    type: int
attributes:
  check_mode:
    description: Computes and validates everything and reports what would change; writes nothing.
    support: full
  diff_mode:
    description: Returns the managed file's content before and after.
    support: full
notes:
  - Changing CPU or Memory Manager policies or reservations needs the node drained, the kubelet stopped and
    its C(cpu_manager_state) and C(memory_manager_state) removed before the kubelet starts again; this module
    only writes the configuration.
"""

EXAMPLES = r"""
- name: Pod-level resource managers on a canary GPU node (drop-in)
  gpusmith.numa_gate.kubelet_config:
    settings:
      featureGates:
        PodLevelResources: true
        PodLevelResourceManagers: true
      cpuManagerPolicy: static
      memoryManagerPolicy: Static
      topologyManagerPolicy: single-numa-node
      topologyManagerScope: pod
      reservedSystemCPUs: "0,64"
      kubeReserved: {memory: 1Gi}
      systemReserved: {memory: 1Gi}
      reservedMemory:
        - numaNode: 0
          limits: {memory: 2148Mi}

- name: Roll back (remove the collection's drop-in)
  gpusmith.numa_gate.kubelet_config:
    state: absent

- name: Restore the main file from its first backup
  gpusmith.numa_gate.kubelet_config:
    mode: main
    state: absent
"""

RETURN = r"""
path:
  description: The file this module manages (the drop-in, or the main file).
  returned: always
  type: str
  sample: /etc/kubernetes/kubelet.conf.d/50-numa-gate.conf
backup_file:
  description: The backup of the file made before it was replaced or removed; null when none was made.
  returned: always
  type: str
  sample: /var/lib/numa-gate/backups/etc__kubernetes__kubelet.conf.d__50-numa-gate.conf.20260101T000000.000000Z.bak
effective:
  description: The target effective kubelet configuration (main file plus drop-ins, merged).
  returned: always
  type: dict
sources:
  description: For each top-level key of RV(effective), the file that set it last.
  returned: always
  type: dict
files:
  description: The files merged, in the order the kubelet merges them.
  returned: always
  type: list
  elements: str
stale_checkpoints:
  description: Checkpoint files whose policy differs from the target configuration, in the kubelet's words (fatal).
  returned: always
  type: list
  elements: str
problems:
  description:
    - Kubelet rules the target configuration breaks, each with C(key), C(message) (the kubelet's wording),
      C(source) (the file), C(rule) (the upstream source file) and C(hint). Fatal for O(state=present).
  returned: always
  type: list
  elements: dict
diff:
  description: The managed file before and after.
  returned: when changed
  type: dict
"""

try:
    import yaml
    HAS_YAML = True
except ImportError:
    HAS_YAML = False

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible.module_utils.common.text.converters import to_text

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _atomic_file
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _checkpoint
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_files
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_validation
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _topology


def _dump(doc):
    return yaml.safe_dump(doc, default_flow_style=False, sort_keys=False, width=4096, allow_unicode=True)


def _node(module, root, required):
    """The machine the configuration is checked against: the arguments, else the node's own sysfs.

    None when it cannot be read and is not ``required`` (a removal is never blocked by it).
    """
    params = module.params
    online, numa = params["online_cpus"], params["numa_nodes"]
    node = {}
    if online is None or numa is None or params["memory_bytes"] is None:
        try:
            node = _kubelet_validation.node_from_topology(_topology.gather(root, gpu_source="none"))
        except _topology.TopologyError as exc:
            if online is None or numa is None:
                if not required:
                    module.warn("node facts unavailable (%s); checked the remaining configuration without them" % exc)
                    return None
                raise _topology.TopologyError("%s; pass online_cpus and numa_nodes" % exc)
    if online is not None:
        node["online_cpus"] = online
    if numa is not None:
        try:
            node["numa_nodes"] = {int(k): int(v) for k, v in numa.items()}
        except (TypeError, ValueError):
            module.fail_json(msg="numa_nodes must map NUMA node ids to memory bytes, got %r" % (numa,))
    if params["memory_bytes"] is not None:
        node["memory_bytes"] = params["memory_bytes"]
    elif numa is not None and "memory_bytes" not in node:
        node["memory_bytes"] = sum(node["numa_nodes"].values())
    try:
        _cpulist.parse(node["online_cpus"])
    except _cpulist.CpuListError as exc:
        module.fail_json(msg="online_cpus: %s" % exc)
    return node


def _change(module, layout):
    params = module.params
    if params["mode"] == "dropin":
        return layout.dropin_change(params["settings"] if params["state"] == "present" else None, _dump)
    if params["state"] == "present":
        return layout.main_change(params["settings"], _dump)
    return layout.main_restore(_kubelet_files.under(params["root"], params["backup_dir"]))


def run(module):
    params = module.params
    root = params["root"] or "/"
    present = params["state"] == "present"
    name = params["dropin_name"]
    if "/" in name or not _kubelet_merge.is_dropin_name(name):
        module.fail_json(msg="dropin_name %r must be a file name ending in .conf (the kubelet reads only *.conf drop-ins)" % name)
    layout = _kubelet_files.Layout(_kubelet_files.under(root, params["path"]), _kubelet_files.under(root, params["config_dir"]),
                                   own=name if params["mode"] == "dropin" else None, tolerant=not present)
    for skipped in layout.skipped:
        module.warn("skipped while removing: %s" % skipped)
    if layout.main_doc is None and params["mode"] == "dropin":
        module.warn("main kubelet config %s does not exist; validating the drop-ins alone" % layout.main_path)
    change = _change(module, layout)
    target = change.target
    problems = []
    if present or change.changed:
        problems = _kubelet_validation.validate(target, _node(module, root, present))
    stale = _checkpoint.stale(target, _kubelet_files.under(root, params["kubelet_root_dir"])) if present and change.changed else []
    result = {
        "changed": change.changed, "path": change.path, "backup_file": None,
        "effective": dict(target), "files": list(target.files),
        "sources": {key: target.origin_of(key) for key in target},
        "problems": [p.as_dict() for p in problems],
        "stale_checkpoints": stale,
    }
    if present and (problems or stale):
        lines = "\n".join(["- %s" % p for p in problems] + ["- %s" % m for m in stale])
        result["changed"] = False
        module.fail_json(msg="the kubelet would refuse this configuration; nothing was written:\n%s" % lines, **result)
    if problems:
        # A rollback must never be blocked by the rules: only warn about what is left.
        module.warn("after %s the kubelet configuration still breaks %d rule(s): %s"
                    % (change.path, len(problems), "; ".join(str(p) for p in problems)))
    if change.changed and module._diff:
        result["diff"] = {"before_header": change.path, "after_header": change.path,
                          "before": to_text(change.before or b""), "after": to_text(change.after or b"")}
    if change.changed and not module.check_mode:
        result["backup_file"] = _kubelet_files.apply(change, _kubelet_files.under(root, params["backup_dir"]))
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            _kubelet_files.layout_argument_spec(),
            mode=dict(type="str", choices=["dropin", "main"], default="dropin"),
            settings=dict(type="dict"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            backup_dir=dict(type="str", default="/var/lib/numa-gate/backups"),
            online_cpus=dict(type="str"),
            numa_nodes=dict(type="dict"),
            memory_bytes=dict(type="int"),
        ),
        required_if=[("state", "present", ("settings",))],
        supports_check_mode=True,
    )
    if not HAS_YAML:
        module.fail_json(msg=missing_required_lib("PyYAML"))
    try:
        run(module)
    except _atomic_file.AtomicFileError as exc:
        module.fail_json(msg=str(exc))
    except (_kubelet_merge.KubeletConfigError, _kubelet_validation.KubeletValidationError, _topology.TopologyError) as exc:
        module.fail_json(msg="%s; nothing was written" % exc)
    except OSError as exc:
        module.fail_json(msg="%s: %s" % (getattr(exc, "filename", None) or "kubelet_config", exc.strerror or exc))


if __name__ == "__main__":
    main()
