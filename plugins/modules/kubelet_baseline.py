#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: kubelet_baseline
short_description: Keep the node's original kubelet files once, byte for byte, before anything changes them
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - On first contact, copies the kubelet's main configuration, every drop-in of its C(--config-dir), the CPU and Memory
    Manager checkpoints, the kubelet version and the unit's flags (C(--config), C(--config-dir)) into
    C(<state_dir>/baseline/), with a sha256 manifest. Folders are 0700, files 0600.
  - The baseline is written once. A later run never overwrites it, even when the node's files have changed since; it
    reads it back and reports whether every copy still matches the manifest. A mismatch is reported, never repaired.
  - The flags come from the running kubelet process, else from the unit's C(ExecStart) with its environment expanded
    (a kubeadm node passes them through C($KUBELET_CONFIG_ARGS)); O(kubelet_flags) overrides them.
  - With O(state=restored) (a rollback, the kubelet stopped), every main file and drop-in that differs from the baseline
    gets its baseline bytes back (sha256 checked, the original mode and owner), a file the baseline did not have among
    O(remove) (the collection's own drop-in) is removed, and what is replaced or removed is backed up into O(backup_dir)
    first. Drop-ins someone else added since are left alone. Checkpoints are not restored; the kubelet writes them anew.
  - With O(state=restored) and O(journal), records the transition's C(config) step (a rollback's) in the same run, each
    event fsynced; C(started) before anything is replaced (every copy and file is checked then, before the first write), and C(finished) with
    C(changed.files), each file put back or removed and its backup.
  - Nothing is taken on trust from the kept baseline; a manifest entry of the wrong shape, or whose C(copy) is not
    C(files/<n>) inside the store (absolute, with C(..)), is refused by name; a restore checks every copy's sha256, every
    node file's kind, and that the store and O(backup_dir) are private state before it writes anything.
options:
  state:
    description:
      - V(present) keeps the baseline once and reports on it.
      - V(restored) puts the node's kubelet configuration back to it.
    type: str
    choices: [present, restored]
    default: present
  backup_dir:
    description: With O(state=restored), where the files replaced or removed are backed up (created 0700).
    type: path
  remove:
    description: With O(state=restored), node paths to remove unless the baseline has them (the collection's drop-in).
    type: list
    elements: path
    default: []
  state_dir:
    description: The collection's state folder on the node; the baseline is its C(baseline/) folder.
  kubelet_service:
    description: The systemd unit of the kubelet.
    type: str
    default: kubelet
  kubelet_flags:
    description:
      - The kubelet's C(config) and C(config_dir) flags, instead of reading them from systemd (always the case when
        O(root) is not V(/), since the live unit says nothing about a copied tree).
    type: dict
  kubelet_root_dir:
    description: The kubelet's C(--root-dir), where the checkpoint files are.
    type: path
    default: /var/lib/kubelet
  return_content:
    description: Return every kept file's bytes (base64) in RV(content), so the controller can keep a copy.
    type: bool
    default: true
extends_documentation_fragment:
  - gpusmith.numa_gate.node_state
  - gpusmith.numa_gate.transition_journal
attributes:
  check_mode:
    description: Reports whether a baseline would be written or what a restore would change; writes nothing.
    support: full
  diff_mode:
    description: With O(state=restored), the files that differ from the baseline and how.
    support: full
"""

EXAMPLES = r"""
- name: Keep the node's original kubelet files
  gpusmith.numa_gate.kubelet_baseline:
  register: baseline

- name: Stop when the kept baseline was tampered with
  ansible.builtin.assert:
    that: baseline.intact
    fail_msg: "{{ baseline.problems | join('; ') }}"
"""

RETURN = r"""
created:
  description: Whether this run wrote the baseline (false when one was already there).
  returned: always
  type: bool
intact:
  description: Whether every copy in the baseline matches its manifest.
  returned: always
  type: bool
problems:
  description: What does not match, one line each.
  returned: always
  type: list
  elements: str
manifest:
  description: The manifest (C(schema_version), C(facts) with the kubelet version and flags, C(files)).
  returned: always
  type: dict
unit:
  description: What was read about the kubelet unit now (C(argv), C(flags), C(source), C(active)).
  returned: always
  type: dict
content:
  description: Node path to base64 bytes of every kept file, when O(return_content).
  returned: when O(return_content) and a baseline exists
  type: dict
journal:
  description: With O(journal), the journal's C(path), the C(events) this run appended (none in check mode) and C(notes).
  returned: with O(journal) and O(state=restored)
  type: dict
drift:
  description: The node's main file and drop-ins that differ from the baseline, each with how.
  returned: when a baseline exists
  type: list
  elements: dict
open_transition:
  description:
    - The transition still open on this node (C(id) and C(target), from the journal's C(transitions/current)), or null.
    - A run killed half way leaves one; the transition role resumes it rather than deciding the node is at its target.
  returned: always
  type: dict
  sample: {"id": "20261201T120907Z", "target": "enable"}
restored:
  description: With O(state=restored), each file put back or removed (C(path), C(action), C(backup)).
  returned: with O(state=restored)
  type: list
  elements: dict
"""

import base64
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors, fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import ModuleRunner
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import inventory, unit
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files.baseline import store as baseline_store
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.node import kubelet_service as service_unit
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as _layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import confine

_DEFAULT_CONFIG = _layout.DEFAULT_PATH


def _read_live(path):
    try:
        return _fileio.read_regular(path, 1024 * 1024).decode("utf-8", errors="replace")
    except (OSError, _fileio.FileIOError):
        return None


def _unit(module):
    params = module.params
    if params["kubelet_flags"] is not None or params["root"] != "/":
        flags = dict(unit.flags_from_argv([]), **(params["kubelet_flags"] or {}))
        return {"service": params["kubelet_service"], "argv": [], "flags": flags, "source": "given", "active": None}, None
    service_unit.unit_name(params["kubelet_service"])  # one unit by systemd's rules, never a pattern or an option
    runner = ModuleRunner(module)
    found = unit.read_unit(runner, params["kubelet_service"], _read_live)
    return found, unit.kubelet_version(runner, unit.program(found["argv"]))


def _content(root, store, manifest):
    """Every kept copy's bytes; the manifest was checked on load, so a copy is only ever files/<n> inside the store."""
    return {entry["path"]: base64.b64encode(baseline_store.copy_bytes(root, store, entry)).decode()
            for entry in manifest["files"] if "copy" in entry}


def run(module):
    params = module.params
    root = params["root"]
    if params["journal"] is not None and params["state"] != "restored":
        raise _errors.NumaGateError("journal goes with state=restored (the rollback's config step), not state=%s; nothing was changed" % params["state"])
    store = os.path.join(params["state_dir"], "baseline")
    found, version = _unit(module)
    flags = found["flags"]
    # A kubelet started without --config reads no main file; given flags without one mean the usual path.
    config = flags.get("config") or (_DEFAULT_CONFIG if found["source"] == "given" else None)
    files = inventory.kubelet_files(root, config, flags.get("config_dir"), params["kubelet_root_dir"])
    facts = {"kubelet_version": version, "flags": {"config": config, "config_dir": flags.get("config_dir")},
             "flags_source": found["source"], "service": params["kubelet_service"]}
    manifest = baseline_store.load(root, store)
    created = False
    if manifest is None and not module.check_mode:
        manifest, created = baseline_store.record(root, store, files, facts)
    result = {"changed": created or (manifest is None), "created": created, "unit": found,
              "open_transition": transitions.current(root, params["state_dir"]),
              "manifest": manifest or {"schema_version": baseline_store.SCHEMA_VERSION, "facts": facts, "files": []}}
    if manifest is None:
        result.update(intact=True, problems=[])
    else:
        result.update(baseline_store.verify(root, store))
        result["drift"] = [{"path": path, "differs": why} for path, why in baseline_store.drift(root, store)]
        if params["return_content"]:
            result["content"] = _content(root, store, manifest)
    if params["state"] == "restored":
        _restore(module, result, store)
    module.exit_json(**result)


def _restore(module, result, store):
    params = module.params
    if result["created"] or not result["manifest"]["files"]:
        raise _errors.NumaGateError("there was no baseline at %s to restore from: nothing was restored" % store)
    if not params["backup_dir"]:
        raise _errors.NumaGateError("backup_dir is required with state=restored: a file is never replaced without a backup")
    pending = [entry["path"] for entry in result["drift"]]
    pending += [path for path in params["remove"] if os.path.lexists(_fileio.resolve_within(params["root"], path, follow_last=False))
                and path not in {entry["path"] for entry in result["manifest"]["files"] if not entry.get("absent")}]
    result["changed"] = bool(pending)
    if module._diff and pending:  # pylint: disable=protected-access
        result["diff"] = {"before": "".join("%s\n" % path for path in pending), "after": "",
                          "before_header": "differs from the baseline", "after_header": "restored"}
    if module.check_mode:
        result["restored"] = [{"path": path, "action": "would restore", "backup": None} for path in pending]
        return
    steps = step_journal.StepJournal(params["root"], params["journal"], module.check_mode)
    steps.started()
    done = baseline_store.restore(params["root"], store, params["backup_dir"], remove=params["remove"])
    result["restored"] = [{"path": path, "action": action, "backup": saved} for path, action, saved in done]
    steps.finished("changed" if result["restored"] else "ok", changed={"files": result["restored"]})
    result.update(steps.result())
    result["drift"] = [{"path": path, "differs": why} for path, why in baseline_store.drift(params["root"], store)]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            state_dir=dict(type="path", default=confine.DEFAULT_STATE_DIR),
            kubelet_service=dict(type="str", default="kubelet"),
            kubelet_flags=dict(type="dict"),
            kubelet_root_dir=dict(type="path", default="/var/lib/kubelet"),
            return_content=dict(type="bool", default=True),
            state=dict(type="str", choices=["present", "restored"], default="present"),
            backup_dir=dict(type="path"),
            remove=dict(type="list", elements="path", default=[]),
            **step_journal.ARGUMENT_SPEC
        ),
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
