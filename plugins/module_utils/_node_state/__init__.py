# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The files this collection writes on a node, and the private state it keeps there.

- ``atomic``: `write_atomic` (replace a regular file atomically, never through a symlink, file and
  folder fsynced), `make_private_dir`, `fsync_dir`, `private_owner`, `NodeStateError`.
- ``backups``: `backup`, `backups_of`, `restore`, `remove`, `replace`, `keep_copy`, `backup_prefix`
  (byte-for-byte copies, 0600 in 0700 folders, with a record of the original's mode, owner and
  sha256; names never exceed NAME_MAX).
- ``baseline``: `keep_baseline`, `baseline_of`, `baseline_bytes` (the write-once, sha256-checked
  copy of one file as it was before this collection first changed it).
- ``baseline_store``: `record`, `load`, `verify`, `original_bytes` (the node's kubelet files kept
  once, with a sha256 manifest).
- ``baseline_manifest``: `check`, `copy_path` (the shape of every manifest entry; copies only inside the store).
- ``confine``: the one set of checks before state is read or written (no symlinked transitions or transition
  folder, backups inside the state folder, state private to the module's user).
- ``journal``: `append`, `read`, `summary` (a transition's steps, fsynced per event, checked whole before an append).
- ``journal_lines``: what one journal line is (`parse`, `time_problem`).
- ``locks``: `hold`, `lock_file` (bounded ``flock``).
- ``rehearsals``: `read`, `write` (the check kept after a rehearsed rollback, ``transitions/<id>/rehearsal.json``).
- ``restore_plan``: `touched`, `plan`, `apply` (every backup checked before the first file is put back).
- ``transitions``: `open_transition` (under a lock), `close`, `folder`, `journal_path`, `current`.
"""
