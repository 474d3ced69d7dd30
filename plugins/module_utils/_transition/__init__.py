# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition step: a node moved to a target configuration and back (decision, journal, API, node, restore).

Import the submodules explicitly; this file holds only this map.

- ``api/``: The transition's API side (controller): the maintenance lock, the drain's dry run, cordon, drain, budgets, readiness and /configz.
- ``journal/``: The transition's journal on the node: which transition is open, its steps' events, fsynced.
- ``node/``: The transition's node side: the kubelet's systemd service, checkpoint removal, the runtime's versions.
- ``decision``: Whether a node is already at its transition's target, why not, and whether this run may go on: one function.
- ``record``: A node's transition record: its steps with their times, and each file it touched, before and after.
- ``record_read``: A node's transition record read from its journal and backups, on the node (read-only).
- ``restore_plan``: Putting back what a transition replaced or removed: find every file, check every backup, then write.
- ``resume``: What a resumed transition still has to do, and whose cordon it is: read from its journal.
- ``steps``: The transition's step table: one row per step (side, who journals it, when a resumed run skips it, whether it ends the transition).
"""
