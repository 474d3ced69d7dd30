# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Kubernetes API client every controller-side step uses: a leaf, imported by ``_transition`` and ``_evidence``, importing neither.

- ``connection_spec``: kubernetes.core's connection options (no imports; the module files take it).
- ``connection``: `from_task`, `configuration`, `Settings`: those options and their ``K8S_AUTH_*`` variables, checked.
- ``kubeconfig``: `load`, `load_configuration`: the client's own loader, with files and exec plugins bounded.
- ``transport``: `bound`, `exchange`: one HTTP exchange bounded in bytes and ended by one deadline.
- ``urls``: `mask_url`, `mask_text`: no credential of a URL in a message.
- ``shapes``: what an API answer must look like before anything reads it.
- ``api``: `connect`, `Api` (get/patch node, pods on a node, eviction, pod get/delete, DaemonSets,
  PodDisruptionBudgets, node proxy GET, ...), `KubeApiError`.
- ``outcome``: `outcome` (an error as a failed task result, in one place, for every action plugin).
"""
