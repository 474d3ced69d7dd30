# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How each evidence source's task result becomes the value the record holds: one file per source (pure).

Import the submodules explicitly; this file holds only this map. Each module has ``compose(reads)``
(``reads``: the placement_evidence role's task results and values by name, see `_evidence.sources`);
``kubelet_files`` has two, ``baseline`` and ``target``, one per source of the one task it reads.

- ``task_result``: `result` (a registered result, None when the task did not run), `READ_KEYS`.
- ``versions``: the Node object's nodeInfo.  ``kubelet_files``: `baseline`, `target` (kubelet_config_info).
- ``allocations``: pod_resources_info's reconciled allocations.  ``findings``: the canary's placement findings.
- ``canary``: the canary and its admission.  ``configuration``: kubelet_verify's result.
- ``metrics``: the rates between the two scrapes.  ``service_objectives``: the service comparison.
- ``rollback``: rehearsal_info's rollback evidence (never an operator's).  ``device_path``: device_path_info, a failed read kept as one.
"""
