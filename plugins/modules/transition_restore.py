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
options:
  transition:
    description:
      - Put back the files that transition's C(state) and C(config) steps recorded in its journal (the first record of
        each path, which is what it held before the transition), and any backup in its C(backups/) folder whose step was killed
        before recording it (the oldest per path). Either this or O(files).
    type: str
  state_dir:
    description: The collection's state folder on the node, where O(transition)'s journal is.
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

import hashlib
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _errors, _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_state import backups, journal, transitions

_LIMIT = 16 * 1024 * 1024


def _sha(path):
    try:
        return hashlib.sha256(_fileio.read_regular(path, _LIMIT)).hexdigest()
    except (OSError, _fileio.FileIOError):
        return None


def _pending(root, files):
    pending = []
    for entry in files:
        real = _fileio.resolve_within(root, entry["path"], follow_last=False)
        if entry.get("backup"):
            copy = _fileio.resolve_within(root, entry["backup"], follow_last=False)
            record = backups.read_record(copy) or {}
            if not os.path.lexists(real) or _sha(real) != (record.get("sha256") or _sha(copy)):
                pending.append((entry["path"], real, copy))
        elif os.path.lexists(real):
            pending.append((entry["path"], real, None))
    return pending


def _kept_but_not_recorded(params, recorded):
    """Backups in the transition's folder whose step was killed before it recorded them: the oldest per path."""
    folder = os.path.join(transitions.folder(params["root"], params["state_dir"], params["transition"]), "backups")
    real_root = os.path.realpath(params["root"])
    found = {}
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not name.endswith(backups.BACKUP_SUFFIX):
            continue
        record = backups.read_record(os.path.join(folder, name)) or {}
        original = record.get("path")
        if not isinstance(original, str):
            continue
        node_path = "/" + os.path.relpath(original, real_root) if real_root != "/" else original
        if node_path not in recorded and node_path not in found:
            found[node_path] = {"path": node_path, "backup": os.path.join(folder, name)[len(real_root):] if real_root != "/" else
                                os.path.join(folder, name)}
    return list(found.values())


def run(module):
    params = module.params
    files = params["files"]
    if params["transition"]:
        entries, _notes = journal.read(transitions.journal_path(params["root"], params["state_dir"], params["transition"]))
        files = journal.recorded_files(entries)
        files += _kept_but_not_recorded(params, {entry["path"] for entry in files})
    pending = _pending(params["root"], files)
    result = {"changed": bool(pending), "restored": []}
    if module._diff and pending:  # pylint: disable=protected-access
        result["diff"] = {"before": "".join("%s\n" % path for path, _real, _copy in pending), "after": "",
                          "before_header": "files to put back", "after_header": "put back"}
    if module.check_mode:
        result["restored"] = [{"path": path, "action": "would restore" if copy else "would remove", "saved": None}
                              for path, _real, copy in pending]
        module.exit_json(**result)
    keep = _fileio.resolve_within(params["root"], params["backup_dir"])
    for path, real, copy in pending:
        saved = backups.backup(real, keep) if os.path.lexists(real) else None
        if copy is None:
            backups.remove(real)
            result["restored"].append({"path": path, "action": "removed", "saved": saved})
        else:
            backups.restore(copy, real)
            result["restored"].append({"path": path, "action": "restored", "saved": saved})
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            root=dict(type="path", default="/"),
            transition=dict(type="str"),
            state_dir=dict(type="path", default="/var/lib/numa-gate"),
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
