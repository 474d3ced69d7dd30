#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_checkpoint
short_description: Decide whether the kubelet's checkpoints would stop it starting, and remove them safely
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Reads C(cpu_manager_state) and C(memory_manager_state) as the 1.37 kubelet does (see
    M(gpusmith.numa_gate.kubelet_checkpoint_info)) and decides, with the kubelet's start checks and wording, whether
    the kubelet would refuse to start over them under the target configuration O(config), for a policy that differs,
    reserved CPUs missing from the default CPU set, online CPUs that changed, a Memory Manager machine state that no
    longer matches C(reservedMemory), a checksum that does not verify, a file that does not parse.
  - With O(state=absent), removes the files that would be refused (or every one, O(remove=all)) after a byte-for-byte
    backup into O(backup_dir), so the kubelet writes fresh ones when it starts. A checkpoint is never edited in place.
  - Refuses to remove anything while the kubelet service is active.
  - With O(journal), records the transition's step in the same run (the C(state) step with O(state=absent); C(started)
    before anything is removed, C(finished) with C(changed.files), each removed path and its backup; the C(verify) step
    with O(fail_on_refusal); its C(finished)), each event fsynced.
  - Every file is read and checked before any is removed; a file that is a FIFO, a device or a folder (it cannot be
    backed up byte for byte), one that changed since it was read, or a backup folder that is not private state (owned by
    another user, or writable by group or others) refuses the removal of both, with nothing removed.
  - A checkpoint whose fields have the wrong JSON types (inside C(data) too) is reported as one the kubelet cannot load,
    naming the file and the field; a config whose fields have the wrong types is refused by name.
options:
  root:
    description: Where the node's file system is; V(/) on a node, a copy of it in tests. Paths never leave it.
    type: path
    default: /
  kubelet_root_dir:
    description: The kubelet's C(--root-dir), where the checkpoint files are.
    type: path
    default: /var/lib/kubelet
  config:
    description: The target effective kubelet configuration (what the kubelet will start with).
    type: dict
    required: true
  node:
    description:
      - The machine, the C(numa_gate_topology) facts or their summary C({online_cpus, numa_nodes, memory_bytes}), for
        the online-CPU and per-NUMA memory checks. Without it those checks are skipped.
    type: dict
  state:
    description:
      - V(present) decides and reports only.
      - V(absent) also removes the files the kubelet would refuse (or all, see O(remove)), after backing them up.
    type: str
    choices: [present, absent]
    default: present
  remove:
    description: With O(state=absent), V(refused) removes only the files the kubelet would refuse; V(all) removes both.
    type: str
    choices: [refused, all]
    default: refused
  backup_dir:
    description: The folder the removed files are backed up into (created 0700); required with O(state=absent).
    type: path
  kubelet_service:
    description: The systemd unit of the kubelet, checked to be stopped before any file is removed.
    type: str
    default: kubelet
  fail_on_refusal:
    description:
      - With O(state=present), fail when the kubelet would refuse a checkpoint under O(config), naming each refusal in the
        kubelet's words (after a start; the kubelet wrote checkpoints it would not start over again).
    type: bool
    default: false
  kubelet_stopped:
    description:
      - In check mode only, the caller says the kubelet would be stopped by then (its stop step did not run because it
        was in check mode too), so the service check is skipped. Outside check mode the service is always checked.
    type: bool
    default: false
extends_documentation_fragment:
  - gpusmith.numa_gate.transition_journal
attributes:
  check_mode:
    description: Reports what it would remove and removes nothing.
    support: full
  diff_mode:
    description: Shows the files before and after (name and sha256).
    support: full
"""

EXAMPLES = r"""
- name: Would the kubelet start over its checkpoints under the target configuration?
  gpusmith.numa_gate.kubelet_checkpoint:
    config: "{{ target_config }}"
    node: "{{ ansible_facts.numa_gate_topology }}"
  register: verdict

- name: With the kubelet stopped, back up and remove what it would refuse
  gpusmith.numa_gate.kubelet_checkpoint:
    config: "{{ target_config }}"
    node: "{{ ansible_facts.numa_gate_topology }}"
    state: absent
    backup_dir: /var/lib/numa-gate/transitions/20261201T0900Z/backups
"""

RETURN = r"""
checkpoints:
  description: The report on each file (see M(gpusmith.numa_gate.kubelet_checkpoint_info)), as found before any removal.
  returned: always
  type: dict
refusals:
  description: For C(cpu) and C(memory), the kubelet's refusal under O(config), or null when it would start.
  returned: always
  type: dict
would_refuse:
  description: Whether the kubelet would refuse to start over the files as they were.
  returned: always
  type: bool
removed:
  description: The node paths removed (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
backups:
  description: For each removed path, its byte-for-byte backup.
  returned: always
  type: dict
journal:
  description: With O(journal), the journal's C(path), the C(events) this run appended (none in check mode) and C(notes).
  returned: with O(journal)
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import ModuleRunner
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import files as checkpoint_files
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.node import checkpoint_removal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal


def _diff(reports, kinds):
    before = "".join("%s %s\n" % (reports[kind]["path"], reports[kind]["sha256"] or "(not a regular file)")
                     for kind in ("cpu", "memory") if reports[kind]["present"])
    after = "".join("%s %s\n" % (reports[kind]["path"], reports[kind]["sha256"] or "(not a regular file)")
                    for kind in ("cpu", "memory") if reports[kind]["present"] and kind not in kinds)
    return {"before": before, "after": after, "before_header": "checkpoints", "after_header": "checkpoints"}


def run(module):
    params = module.params
    if params["state"] == "absent" and not params["backup_dir"]:
        raise _errors.NumaGateError("backup_dir is required with state=absent: a checkpoint is never removed without a backup")
    node = schema.kubelet_node(params["node"]) if params["node"] is not None else None
    reports = checkpoint_files.read_all(params["root"], params["kubelet_root_dir"])
    refusals = checkpoint_files.refusals(reports, params["config"], node)
    kinds = checkpoint_removal.to_remove(reports, refusals, params["remove"]) if params["state"] == "absent" else []
    result = {"changed": bool(kinds), "checkpoints": reports, "refusals": refusals,
              "would_refuse": any(refusals.values()), "removed": [reports[kind]["path"] for kind in kinds], "backups": {}}
    if params["fail_on_refusal"] and params["state"] == "present" and result["would_refuse"]:
        raise _errors.NumaGateError("the kubelet would refuse its checkpoints under the target configuration: %s"
                                    % "; ".join("%s: %s" % (kind, refusals[kind]) for kind in sorted(refusals) if refusals[kind]), **result)
    steps = step_journal.StepJournal(params["root"], params["journal"], module.check_mode)
    steps.started()
    if kinds:
        if module._diff:  # pylint: disable=protected-access
            result["diff"] = _diff(reports, kinds)
        # Every file to remove and the backup folder are checked before the service and before the first removal.
        checkpoint_removal.check_removable(params["root"], reports, kinds, params["backup_dir"])
        skip_service_check = module.check_mode and params["kubelet_stopped"]
        if not skip_service_check and checkpoint_removal.kubelet_active(ModuleRunner(module), params["kubelet_service"]):
            raise checkpoint_removal.KubeletRunning(
                "the %s service is active: stop it before removing %s (the kubelet would rewrite them); nothing was removed"
                % (params["kubelet_service"], ", ".join(result["removed"])))
        if not module.check_mode:
            done = checkpoint_removal.remove(params["root"], reports, kinds, params["backup_dir"])
            result["backups"] = dict(done)
    files = [{"path": path, "backup": backup} for path, backup in result["backups"].items()]
    steps.finished("changed" if result["changed"] else "ok", changed={"files": files} if params["state"] == "absent" else None)
    result.update(steps.result())
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            kubelet_root_dir=dict(type="path", default="/var/lib/kubelet"),
            config=dict(type="dict", required=True),
            node=dict(type="dict"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            remove=dict(type="str", choices=["refused", "all"], default="refused"),
            backup_dir=dict(type="path"),
            kubelet_service=dict(type="str", default="kubelet"),
            kubelet_stopped=dict(type="bool", default=False),
            fail_on_refusal=dict(type="bool", default=False),
            **step_journal.ARGUMENT_SPEC
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
