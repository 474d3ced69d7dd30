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
  - In C(main) mode O(settings) is merged into the main file as a JSON merge patch. The file is
    re-rendered as YAML, so comments in it are lost; the original stays in O(backup_dir).
options:
  path:
    description:
      - The kubelet's main configuration file (C(--config)).
    type: str
    default: /var/lib/kubelet/config.yaml
  config_dir:
    description:
      - The kubelet's drop-in directory (C(--config-dir)). Every C(*.conf) file under it is merged, in
        lexical order, subdirectories included, as the kubelet does.
    type: str
    default: /etc/kubernetes/kubelet.conf.d
  dropin_name:
    description:
      - File name of the drop-in this collection manages in O(config_dir). Must end in C(.conf).
    type: str
    default: 50-numa-gate.conf
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
      - C(absent) removes the collection's drop-in (O(mode=dropin)) or restores the main file from the
        first backup this collection made of it (O(mode=main)); fails when there is no such backup.
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
  root:
    description:
      - Prefix for every path this module reads or writes (O(path), O(config_dir), O(backup_dir), sysfs and
        procfs); C(/) on a real node, a snapshot or image directory otherwise.
    type: path
    default: /
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

import glob
import os
import re

try:
    import yaml
    HAS_YAML = True
except ImportError:
    HAS_YAML = False

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible.module_utils.common.text.converters import to_bytes, to_text

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _atomic_file
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_validation

HEADER = ("# Managed by the gpusmith.numa_gate collection (kubelet_config module).\n"
          "# Changes here are overwritten; to roll back run kubelet_config with state: absent.\n")
MAIN_HEADER = ("# Settings merged by the gpusmith.numa_gate collection (kubelet_config, mode: main).\n"
               "# The original file is kept byte for byte in the collection's backup directory.\n")
_MEMTOTAL = re.compile(r"MemTotal:\s+(\d+)\s*kB")


def _under(root, path):
    if root in ("", "/"):
        return path
    return os.path.join(root, path.lstrip("/"))


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def _load(path):
    """(bytes, doc) of a kubelet config file; (None, None) when it does not exist."""
    if not os.path.lexists(path):
        return None, None
    try:
        data = _read(path)
    except OSError as exc:
        raise _kubelet_merge.KubeletConfigError("cannot read: %s" % (exc.strerror or exc), path)
    return data, _kubelet_merge.load_document(data, path)


def _dropin_paths(config_dir):
    """*.conf files under config_dir in filepath.WalkDir order (links to directories not followed)."""
    found = []
    for directory, dirnames, filenames in os.walk(config_dir):
        dirnames.sort()
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(directory, d))]:
            if _kubelet_merge.is_dropin_name(name):
                found.append(os.path.join(directory, name))
    return sorted(found, key=_kubelet_merge.dropin_sort_key)


def _render(doc, header):
    body = yaml.safe_dump(doc, default_flow_style=False, sort_keys=False, width=4096, allow_unicode=True)
    return to_bytes(header + body)


def _ordered(doc):
    """apiVersion and kind first, then the other keys sorted: stable output."""
    out = {"apiVersion": _kubelet_merge.API_VERSION, "kind": _kubelet_merge.KIND}
    for key in sorted(k for k in doc if k not in ("apiVersion", "kind")):
        out[key] = doc[key]
    return out


def _meminfo_bytes(path):
    try:
        match = _MEMTOTAL.search(to_text(_read(path)))
    except OSError:
        return None
    return int(match.group(1)) * 1024 if match else None


def _node_facts(module, root, required):
    """The node as validate() needs it; None when unreadable and not ``required``."""
    online = module.params["online_cpus"]
    if online is None:
        path = _under(root, "/sys/devices/system/cpu/online")
        try:
            online = to_text(_read(path)).strip()
        except OSError as exc:
            if not required:
                return None
            module.fail_json(msg="cannot read the online CPUs from %s: %s; pass online_cpus" % (path, exc.strerror or exc))
    try:
        _cpulist.parse(online)
    except _cpulist.CpuListError as exc:
        module.fail_json(msg="online_cpus: %s" % exc)
    numa = module.params["numa_nodes"]
    if numa is None:
        numa = {}
        pattern = _under(root, "/sys/devices/system/node/node*/meminfo")
        for meminfo in sorted(glob.glob(pattern)):
            node_id = re.search(r"node(\d+)/meminfo$", meminfo)
            size = _meminfo_bytes(meminfo)
            if node_id and size is not None:
                numa[int(node_id.group(1))] = size
        if not numa:
            size = _meminfo_bytes(_under(root, "/proc/meminfo"))
            if size is None:
                if not required:
                    return None
                module.fail_json(msg="cannot read NUMA memory from %s or %s; pass numa_nodes" % (pattern, _under(root, "/proc/meminfo")))
            numa = {0: size}
    try:
        numa = {int(k): int(v) for k, v in numa.items()}
    except (TypeError, ValueError):
        module.fail_json(msg="numa_nodes must map NUMA node ids to memory bytes, got %r" % (numa,))
    total = _meminfo_bytes(_under(root, "/proc/meminfo")) if module.params["numa_nodes"] is None else None
    return {"online_cpus": online, "numa_nodes": numa, "memory_bytes": total or sum(numa.values())}


def _diff(path, before, after):
    return {"before_header": path, "after_header": path,
            "before": to_text(before) if before is not None else "", "after": to_text(after) if after is not None else ""}


def run(module):
    params = module.params
    root = params["root"] or "/"
    main_path = _under(root, params["path"])
    config_dir = _under(root, params["config_dir"])
    backup_dir = _under(root, params["backup_dir"])
    name = params["dropin_name"]
    if "/" in name or not _kubelet_merge.is_dropin_name(name):
        module.fail_json(msg="dropin_name %r must be a file name ending in .conf (the kubelet reads only *.conf drop-ins)" % name)
    state, mode = params["state"], params["mode"]
    settings = params["settings"]
    if settings is not None and ("apiVersion" in settings or "kind" in settings):
        settings = {k: v for k, v in settings.items() if k not in ("apiVersion", "kind")}

    main_bytes, main_doc = _load(main_path)
    if main_doc is None and mode == "main":
        module.fail_json(msg="main kubelet config %s does not exist; mode=main needs it" % main_path)
    if main_doc is None:
        module.warn("main kubelet config %s does not exist; validating the drop-ins alone" % main_path)
    dropins = []
    dropin_bytes = {}
    if os.path.isdir(config_dir):
        for path in _dropin_paths(config_dir):
            data, doc = _load(path)
            dropins.append((path, doc))
            dropin_bytes[path] = data
    own_path = os.path.join(config_dir, name)

    if mode == "dropin":
        managed = own_path
        before = dropin_bytes.get(own_path)
        others = [(p, d) for p, d in dropins if p != own_path]
        if state == "present":
            doc = _ordered(settings)
            after = _render(doc, HEADER)
            target_dropins = others + [(own_path, doc)]
        else:
            after = None
            target_dropins = others
        target = _kubelet_merge.effective_config(main_doc, target_dropins, main_path)
    else:
        managed = main_path
        before = main_bytes
        if state == "present":
            new_doc = _kubelet_merge.merge_patch(main_doc, settings)
            after = before if new_doc == main_doc else _render(new_doc, MAIN_HEADER)
            target = _kubelet_merge.effective_config(new_doc, dropins, main_path)
        else:
            backups = _atomic_file.backups_of(main_path, backup_dir)
            if not backups:
                module.fail_json(msg="no backup of %s made by this collection in %s: nothing to restore" % (main_path, backup_dir))
            after = _read(backups[0])
            restored = _kubelet_merge.load_document(after, backups[0])
            target = _kubelet_merge.effective_config(restored, dropins, main_path)

    node = _node_facts(module, root, state == "present")
    problems = _kubelet_validation.validate(target, node)
    result = {
        "changed": False, "path": managed, "backup_file": None,
        "effective": dict(target), "files": list(target.files),
        "sources": {key: target.origin_of(key) for key in target},
        "problems": [p.as_dict() for p in problems],
    }
    if problems and state == "present":
        lines = "\n".join("- %s" % p for p in problems)
        module.fail_json(msg="the kubelet would refuse this configuration; nothing was written:\n%s" % lines, **result)
    if problems:
        module.warn("after %s the kubelet configuration still breaks %d rule(s): %s"
                    % (managed, len(problems), "; ".join(str(p) for p in problems)))

    if before == after:
        module.exit_json(**result)
    result["changed"] = True
    if module._diff:
        result["diff"] = _diff(managed, before, after)
    if module.check_mode:
        module.exit_json(**result)

    if after is None:
        result["backup_file"] = _atomic_file.remove(managed, backup_dir)
    elif mode == "main" and state == "absent":
        saved = _atomic_file.backup(managed, backup_dir) if before is not None else None
        _atomic_file.restore(backups[0], managed)
        result["backup_file"] = saved
    else:
        directory = os.path.dirname(managed)
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        result["backup_file"] = _atomic_file.write_atomic(managed, after, backup_dir=backup_dir)
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="str", default="/var/lib/kubelet/config.yaml"),
            config_dir=dict(type="str", default="/etc/kubernetes/kubelet.conf.d"),
            dropin_name=dict(type="str", default="50-numa-gate.conf"),
            mode=dict(type="str", choices=["dropin", "main"], default="dropin"),
            settings=dict(type="dict"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            backup_dir=dict(type="str", default="/var/lib/numa-gate/backups"),
            online_cpus=dict(type="str"),
            numa_nodes=dict(type="dict"),
            root=dict(type="path", default="/"),
        ),
        required_if=[("state", "present", ("settings",))],
        supports_check_mode=True,
    )
    if not HAS_YAML:
        module.fail_json(msg=missing_required_lib("PyYAML"))
    try:
        run(module)
    except (_kubelet_merge.KubeletConfigError, _kubelet_validation.KubeletValidationError, _atomic_file.AtomicFileError) as exc:
        module.fail_json(msg="%s; nothing was written" % exc if not isinstance(exc, _atomic_file.AtomicFileError) else str(exc))
    except OSError as exc:
        module.fail_json(msg="%s: %s" % (getattr(exc, "filename", None) or "kubelet_config", exc.strerror or exc))


if __name__ == "__main__":
    main()
