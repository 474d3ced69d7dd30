# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cordon and uncordon a node: ``spec.unschedulable``, patched only when it differs.

Public: `set_unschedulable`, `is_unschedulable`, `read_node`.

As k8s.io/kubectl pkg/drain/cordon.go: ``UpdateIfRequired`` (no request when the node already has
the wanted value: kubectl prints "already cordoned") and ``PatchOrReplace`` (a strategic merge
patch of ``spec.unschedulable``; ``false`` is the field's absence, Go's omitempty).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import api as kube_api


def is_unschedulable(node):
    """The node's ``spec.unschedulable`` as a bool."""
    return bool((node.get("spec") or {}).get("unschedulable"))


def read_node(api, name):
    """The Node, or a NumaGateError naming it when the API has none."""
    try:
        return api.get_node(name)
    except kube_api.KubeApiError as exc:
        if exc.code == 404:
            raise NumaGateError("node %s is not registered in the cluster (%s)" % (name, api.host), node=name) from exc
        raise


def set_unschedulable(api, name, unschedulable, check_mode=False):
    """Make ``spec.unschedulable`` equal ``unschedulable``; returns ``(changed, was_unschedulable)``.

    In check mode nothing is sent; ``changed`` says whether it would change.
    """
    was = is_unschedulable(read_node(api, name))
    if was == bool(unschedulable):
        return False, was
    if not check_mode:
        api.set_unschedulable(name, unschedulable)
    return True, was
