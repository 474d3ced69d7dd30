# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller side of a node's transition: cordon, drain and verify through the Kubernetes API.

The API client itself is the leaf package ``_kube_api``, shared with ``_evidence``.

- ``cordon``: `set_unschedulable`, `is_unschedulable`, `read_node`.
- ``filters``: `classify`, `Selection`, `pod_name` (kubectl's drain pod filters).
- ``budgets``: `selects`, `budgets_for`, `describe`, `short` (PodDisruptionBudgets of a pod).
- ``drain``: `drain`, `DrainOptions`, `DEFAULT_OPTIONS`, `DrainError`.
- ``ready``: `verify`, `observe`, `ready_condition`, `VerifyError`.
- ``configz``: `parse`, `compare`, `describe`, `ConfigzError`.
- ``progress``: `say`, `seconds`, `names`, `drain_line`, `verify_line`.
- ``node``: `apply`, `options_from`, `STATES` (one node cordoned, drained or uncordoned).
- ``record``: `build`, `event_time`, `journal_target`, `ends` (a node's transition record from its journal and backups, pure).
- ``resume``: `plan` (what a resumed transition skips, and whose cordon it is, from its journal; pure).
"""
