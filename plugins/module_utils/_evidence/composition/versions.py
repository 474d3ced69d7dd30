# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``versions`` source: what the Node object's ``status.nodeInfo`` says the node runs (pure).

Public: `compose`, `SHAPE`.

From ``node_object`` (kubernetes.core.k8s_info, kind Node): ``kubelet`` (kubeletVersion),
``node_image`` (osImage), ``container_runtime`` (containerRuntimeVersion); a field the API does not
give is left out (the record then says unknown, or takes the operator's). A failed or empty read is
``{}``: the versions criterion then names what is unknown.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

# What the record and the verdict take for it (`Source.shape`): each component's version, a scalar or null.
SHAPE = S.MapOf(S.Nullable(S.SCALAR))

FIELDS = (("kubelet", "kubeletVersion"), ("node_image", "osImage"), ("container_runtime", "containerRuntimeVersion"))


def compose(reads):
    found = task_result.result(reads, "node_object") or {}
    resources = found.get("resources") or []
    node = resources[0] if resources and isinstance(resources[0], dict) else {}
    info = (node.get("status") or {}).get("nodeInfo") or {}
    return {key: info[field] for key, field in FIELDS if info.get(field) is not None}
