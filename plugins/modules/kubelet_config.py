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
  - gpusmith.numa_gate.transition_journal
description:
  - Reads the kubelet's main configuration file and every drop-in of its C(--config-dir), computes the
    effective configuration the way the kubelet does (drop-ins in lexical order as JSON merge patches;
    lists such as C(reservedMemory) are replaced whole, C(null) deletes a key) and the target one.
  - Validates the target effective configuration by the kubelet's own rules (CPU, Memory and Topology
    Manager policies and options, feature gates, C(reservedSystemCPUs), C(reservedMemory) sums and NUMA
    nodes, reservations against the node) and fails, writing nothing, when any rule is broken.
  - Writes atomically, keeps the file's owner and mode (new files are 0600) and backs the old file up
    byte for byte first. Everything is read, computed and validated before the first byte is written, so any refusal
    leaves the node as it was.
  - Every path is resolved inside O(root); C(..) never climbs above it and a symlink's absolute target is read inside
    it. Files are read only when they are regular files (a FIFO or device is refused by name, never opened for a
    blocking read), and a symlink is never written through.
  - In C(dropin) mode the collection owns one drop-in file whose content is exactly O(settings).
    The kubelet only reads drop-ins when it runs with C(--config-dir=<config_dir>); this module does not
    change the kubelet's flags.
  - With O(journal), records the transition's C(config) step in the same run, each event fsynced; C(started), once
    everything is checked and before the first byte is written (with C(changed.files), the file it is about to create,
    C(backup) null, so that a restore removes it again), and C(finished) with the file written and its backup.
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
      - Every top-level key must be a v1beta1 KubeletConfiguration field of the right type; C(apiVersion) and C(kind)
        are the collection's to write.
      - Required when O(state=present).
      - Not C(no_log), so that the diff and the effective configuration stay readable. Fields that carry credentials
        (such as C(staticPodURLHeader)) are masked as C(********) in every result, diff, message and warning instead;
        the file on the node holds them as given.
    type: dict
  node:
    description:
      - The machine the configuration is checked against, as one value. Either the facts of
        M(gpusmith.numa_gate.topology_facts) (C(ansible_facts.numa_gate_topology), schema version 1), or a summary
        with the keys C(online_cpus) (a cpulist such as C(0-63)), C(numa_nodes) (NUMA node id to memory bytes) and
        C(memory_bytes) (C(MemTotal) in bytes).
      - C(memory_bytes) is the capacity the kubelet resolves percentage eviction thresholds against; the sum of the
        NUMA nodes' memory when the summary leaves it out.
      - Required when O(state=present). With O(state=absent) and no O(node), the rules that need the machine (reserved
        CPUs, NUMA nodes, capacity) are not checked; the rest still are, as warnings.
      - The module never reads the node's sysfs or procfs itself.
    type: dict
  state:
    description:
      - C(present) applies O(settings).
      - C(absent) removes the collection's drop-in (O(mode=dropin)) or restores the main file from its baseline, the
        bytes it had before this collection first wrote it, checked against their sha256 (O(mode=main)); fails when there
        is no baseline. A removal is never blocked by other drop-ins that do not parse or by rules the remaining
        configuration breaks, which are reported as warnings.
      - A drop-in at O(dropin_name) that is a symlink was not made by this collection (it writes only regular files), so
        O(state=present) refuses to replace it; O(state=absent) removes the link only, never the file it points to,
        keeps the link itself in O(backup_dir), and says so in a warning.
    type: str
    choices: [present, absent]
    default: present
  stale_checkpoints:
    description:
      - What to do when a CPU or Memory Manager checkpoint names another policy than the target configuration (the
        kubelet would refuse to start over it).
      - V(fail) refuses to write (the default), because a restart or reboot would leave the kubelet down.
      - V(report) only lists them in RV(stale_checkpoints), for a caller that drains the node, stops the kubelet and
        removes them (M(gpusmith.numa_gate.kubelet_checkpoint)) before it starts the kubelet again, as the
        C(kubelet_transition) role does.
    type: str
    choices: [fail, report]
    default: fail
  backup_dir:
    description:
      - Where the byte-for-byte backups and the main file's baseline go, inside O(root).
      - Created 0700 (root's when run as root) with any missing parent; each backup is 0600 with a record of the
        original's mode, owner and sha256 beside it.
    type: str
    default: /var/lib/numa-gate/backups
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
    node: "{{ ansible_facts.numa_gate_topology }}"
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

- name: Check against a machine given as a summary, in check mode with a diff
  gpusmith.numa_gate.kubelet_config:
    node:
      online_cpus: "0-15"
      numa_nodes: {0: 34359738368, 1: 34359738368}
      memory_bytes: 68719476736
    settings:
      cpuManagerPolicy: static
      reservedSystemCPUs: "0,8"
  check_mode: true
  diff: true

- name: Roll back (remove the collection's drop-in)
  gpusmith.numa_gate.kubelet_config:
    state: absent
    node: "{{ ansible_facts.numa_gate_topology }}"

- name: Restore the main file from its baseline
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
  description:
    - The target effective kubelet configuration (main file plus drop-ins, merged).
    - Fields that carry credentials are shown as C(********).
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
content:
  description:
    - The managed file's text after this run, byte for byte what is written on the node (in check mode, what would be);
      null when the file is removed. Credential-carrying values are shown as C(********).
    - The kubelet_render role writes it as the C(kubelet-config.yaml) artifact.
  returned: always
  type: str
diff:
  description: The managed file before and after (credential-carrying values shown as C(********)).
  returned: when changed and in diff mode
  type: dict
journal:
  description: With O(journal), the journal's C(path), the C(events) this run appended (none in check mode) and C(notes).
  returned: with O(journal)
  type: dict
"""

import os

try:
    import yaml
    HAS_YAML = True
except ImportError:
    HAS_YAML = False

import sys

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import policy_change as checkpoint
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import fields
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as _layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import files, specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import documents
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import secrets
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal

PATH_OPTIONS = ("path", "config_dir", "kubelet_root_dir", "backup_dir")


def _dump(doc):
    return yaml.safe_dump(doc, default_flow_style=False, sort_keys=False, width=4096, allow_unicode=True)


class _Masker:
    """Masks every credential-carrying value of the configurations involved, in values and in text."""

    def __init__(self, *configs):
        self.configs = list(configs)

    def text(self, text):
        for config in self.configs:
            if config:
                text = secrets.mask_text(text, config)
        return text

    def warn(self, module, text):
        module.warn(self.text(text))


def _change(params, layout, backup_dir):
    if params["mode"] == "dropin":
        return layout.dropin_change(params["settings"] if params["state"] == "present" else None, _dump)
    if params["state"] == "present":
        return layout.main_change(params["settings"], _dump)
    return layout.main_restore(backup_dir)


def _own_doc(layout):
    """Our drop-in's current document, for masking only; None when there is none or it does not parse."""
    if layout.own_bytes is None:
        return None
    try:
        return merge.load_document(layout.own_bytes, layout.own)
    except _errors.NumaGateError:
        return None


def _prepare(module, masker):
    """Read, compute and validate; writes nothing.

    Returns (change, paths, problems, stale, unparsed): ``unparsed`` when our drop-in's current bytes do not parse.
    """
    params = module.params
    present = params["state"] == "present"
    root, paths = _layout.locate(params, PATH_OPTIONS)
    if params["mode"] == "dropin":
        _layout.check_dropin_name(params["dropin_name"])
    node = schema.kubelet_node(params["node"]) if params["node"] is not None else None
    layout = files.Layout(root, params["path"], params["config_dir"],
                          own=params["dropin_name"] if params["mode"] == "dropin" else None, tolerant=not present)
    own_doc = _own_doc(layout)
    masker.configs.extend([layout.main_doc, own_doc] + [doc for _path, doc in layout.dropins])
    for skipped in layout.skipped:
        masker.warn(module, "skipped while removing: %s" % skipped)
    if layout.main_doc is None and params["mode"] == "dropin":
        masker.warn(module, "main kubelet config %s does not exist; validating the drop-ins alone" % layout.main_path)
    problems = fields.check_fields(params["settings"], "settings") if present else []
    change = _change(params, layout, paths["backup_dir"])
    masker.configs.append(change.target)
    if change.link is not None and not present:
        masker.warn(module, "%s is a symlink (to %s) that this collection did not create: removed the link only, its target is "
                    "left as it is" % (change.path, change.link))
    if present or change.changed:
        seen = {(p.key, p.message) for p in problems}
        problems += [p for p in validate.validate(change.target, node) if (p.key, p.message) not in seen]
    stale = checkpoint.stale(change.target, paths["kubelet_root_dir"]) if present and change.changed else []
    return change, paths, problems, stale, own_doc is None and layout.own_bytes is not None


def invocation(params):
    """The module arguments as a result shows them: settings masked (Ansible would echo them whole)."""
    return {"module_args": dict(params, settings=secrets.mask(params["settings"]))}


def _result(module, change, problems, stale, masker):
    target = change.target
    return {
        "changed": change.changed, "path": change.path, "backup_file": None,
        "effective": secrets.mask(dict(target)), "files": list(target.files),
        "sources": {key: target.origin_of(key) for key in target},
        "problems": [{key: masker.text(value) if isinstance(value, str) else value for key, value in p.as_dict().items()}
                     for p in problems],
        "stale_checkpoints": stale,
        "content": None if change.after is None else masker.text(to_text(change.after)),
        "invocation": invocation(module.params),
    }


def _diff(change, masker, unparsed):
    before = "" if change.before is None else to_text(change.before)
    if change.link is not None:
        before = "(symlink to %s)\n" % change.link
    elif unparsed:
        # Credentials in a file that does not parse cannot be found to be masked: show its size only.
        before = "(%d bytes that do not parse as a kubelet configuration; not shown)\n" % len(change.before)
    return {"before_header": change.path, "after_header": change.path,
            "before": masker.text(before), "after": masker.text(to_text(change.after or b""))}


def run(module):
    params = module.params
    present = params["state"] == "present"
    masker = _Masker(params["settings"])
    try:
        change, paths, problems, stale, unparsed = _prepare(module, masker)
    except _errors.NumaGateError as exc:
        raise _errors.NumaGateError(masker.text("%s; nothing was written" % exc), **exc.details)
    result = _result(module, change, problems, stale, masker)
    if present and (problems or (stale and params["stale_checkpoints"] == "fail")):
        refused = stale if params["stale_checkpoints"] == "fail" else []
        lines = "\n".join(["- %s" % p for p in problems] + ["- %s" % m for m in refused])
        result["changed"] = False
        raise _errors.NumaGateError(masker.text("the kubelet would refuse this configuration; nothing was written:\n%s" % lines), **result)
    if problems:
        # A rollback must never be blocked by the rules: only warn about what is left.
        masker.warn(module, "after %s the kubelet configuration still breaks %d rule(s): %s"
                    % (change.path, len(problems), "; ".join(str(p) for p in problems)))
    if change.changed and module._diff:
        result["diff"] = _diff(change, masker, unparsed)
    steps = step_journal.StepJournal(params["root"], params["journal"], module.check_mode)
    # The journal names node paths (the file as the node sees it, whatever root is).
    node_path = "/" + os.path.relpath(change.path, os.path.realpath(params["root"]))
    # A file that is not there yet is removed again by a restore: recorded before it is created.
    steps.started(changed={"files": [{"path": node_path, "backup": None}] if change.changed and change.before is None and present else []})
    if change.changed and not module.check_mode:
        result["backup_file"] = files.apply(change, paths["backup_dir"])
    steps.finished("changed" if change.changed else "ok",
                   changed={"files": [{"path": node_path, "backup": result["backup_file"]}] if change.changed else []})
    result.update(steps.result())
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        # kubelet_render's options too (module_utils/_render/specs.py), and the journal's.
        argument_spec=dict(specs.KUBELET_CONFIG, **step_journal.ARGUMENT_SPEC),
        supports_check_mode=True,
        **specs.KUBELET_CONFIG_RULES
    )
    if not HAS_YAML:
        module.fail_json(msg=documents.missing_yaml(sys.executable))
    _errors.run_module(module, run, invocation=invocation(module.params))


if __name__ == "__main__":
    main()
