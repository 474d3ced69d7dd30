# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The artifacts action: write a host's files into one controller folder, in-process.

The writing (names, the host folder, atomic replacement, change detection) is in
module_utils/_base/artifacts.py; this adapts it to a task: arguments, check and diff mode, and a clean failure.
"""

from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import artifacts as _artifacts
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import failure_message

ARGUMENT_SPEC = _artifacts.ARGUMENT_SPEC  # declared once: the module file documents the same dict


class ActionModule(ActionBase):
    """Write every file of ``files`` into ``dest`` on the controller (see the module's docs)."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # unused: nothing goes to the node
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        try:
            folder, changed, entries = _artifacts.write(args["dest"], args["files"], check_mode=bool(self._task.check_mode),
                                                        host=args["host"], subdir=args["subdir"])
        except (_artifacts.ArtifactsError, OSError) as exc:
            result.update(failed=True, msg=failure_message(exc), changed=False)
            return result
        result.update(
            changed=bool(changed),
            dest=folder,
            files=[name for name, _before, _after in entries],
            changed_files=changed,
        )
        if self._task.diff and changed:
            result["diff"] = _artifacts.diffs(folder, entries)
        return result
