#!/usr/bin/python
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: transition_restore
short_description: Put back the files a failed transition step replaced or removed
version_added: 0.1.0
author: GPU Smith (@gpusmith)
description:
  - Each O(files) entry names a node file and the byte-for-byte backup a step made of it before replacing or removing it
    (or null when the file did not exist before the step). The file gets the backup's bytes, mode and owner back (the
    backup's sha256 record is checked first), or is removed when it did not exist.
  - What is there now is backed up into O(backup_dir) before it is replaced or removed, so a restore loses nothing
    either.
  - A file that already holds its backup's bytes (or is already absent) is left alone.
  - Every backup is checked before the first file is replaced; it must lie in O(state_dir), be private state, a regular
    file with a backup record of the right shape, and match its recorded sha256; every node file must be absent, a
    regular file or a symlink. A refusal changes nothing, not even the backup folder O(backup_dir).
options:
  transition:
    description:
      - Put back the files that transition's C(state) and C(config) steps recorded in its journal (the first record of
        each path, which is what it held before the transition), and any backup in its C(backups/) folder whose step was killed
        before recording it (the oldest per path). Either this or O(files).
    type: str
  state_dir:
    description: The collection's state folder on the node, where O(transition)'s journal is and every backup must lie.
  files:
    description: The files to put back. Either this or O(transition).
    type: list
    elements: dict
    suboptions:
      path:
        description: The node path of the file.
        type: path
        required: true
      backup:
        description: The backup the step made (a node path), or null when the file did not exist before the step.
        type: path
  backup_dir:
    description: Where what is there now is backed up before it is replaced or removed.
    type: path
    required: true
extends_documentation_fragment:
  - gpusmith.numa_gate.node_state
attributes:
  check_mode:
    description: Reports what it would put back; changes nothing.
    support: full
  diff_mode:
    description: Lists the files that would change.
    support: full
"""

EXAMPLES = r"""
- name: Put back the configuration and the checkpoints a failed start left
  gpusmith.numa_gate.transition_restore:
    files:
      - path: /etc/kubernetes/kubelet.conf.d/50-numa-gate.conf
        backup: null
      - path: /var/lib/kubelet/cpu_manager_state
        backup: /var/lib/numa-gate/transitions/20261201T090000Z/backups/var__lib__kubelet__cpu_manager_state.20261201T090102.000000Z.bak
    backup_dir: /var/lib/numa-gate/transitions/20261201T090000Z/restore
"""

RETURN = r"""
restored:
  description: Each file put back (C(path), C(action) C(restored) or C(removed), C(saved) the backup of what was there).
  returned: always
  type: list
  elements: dict
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import errors as _errors, fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import restore_plan


def _keep(params):
    """The real backup folder, private state when it exists (checked before anything is written)."""
    keep = _fileio.resolve_within(params["root"], params["backup_dir"])
    state = confine.state_folder(params["root"], params["state_dir"])
    if confine.inside(keep, state):
        confine.require_private(params["root"], params["state_dir"], keep)
    elif os.path.lexists(keep):
        confine.require_private(params["root"], params["backup_dir"], keep)
    return keep


def run(module):
    params = module.params
    root, state_dir = params["root"], params["state_dir"]
    files = params["files"]
    if params["transition"]:
        folder = transitions.folder(root, state_dir, params["transition"])
        confine.require_private(root, state_dir, folder)
        entries, _notes = journal.read(os.path.join(folder, journal.JOURNAL))
        files = [{"path": item["path"], "backup": item["backup"]} for item in restore_plan.touched(root, state_dir, params["transition"], entries)]
    # Everything is read and checked before the first write: a refusal leaves every file as it was.
    steps = restore_plan.plan(root, state_dir, files)
    keep = _keep(params)
    result = {"changed": bool(steps), "restored": []}
    if module._diff and steps:  # pylint: disable=protected-access
        result["diff"] = {"before": "".join("%s\n" % path for path, _real, _kept in steps), "after": "",
                          "before_header": "files to put back", "after_header": "put back"}
    if module.check_mode:
        result["restored"] = [{"path": path, "action": "would restore" if kept else "would remove", "saved": None}
                              for path, _real, kept in steps]
        module.exit_json(**result)
    result["restored"] = restore_plan.apply(steps, keep)
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            transition=dict(type="str"),
            state_dir=dict(type="path", default=confine.DEFAULT_STATE_DIR),
            files=dict(type="list", elements="dict",
                       options=dict(path=dict(type="path", required=True), backup=dict(type="path"))),
            backup_dir=dict(type="path", required=True),
        ),
        required_one_of=[("transition", "files")],
        mutually_exclusive=[("transition", "files")],
        supports_check_mode=True,
    )
    _errors.run_module(module, run, root=module.params["root"])


if __name__ == "__main__":
    main()
