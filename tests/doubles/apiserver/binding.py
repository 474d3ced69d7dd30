# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``pods/binding``: how a scheduler (here the kubelet stand-in's binder) assigns a pod to a node.

As pkg/registry/core/pod/storage/storage.go ``BindingREST.Create`` does it: the Binding's
``metadata.name`` must be the pod's; ``target.kind``, when given, must be ``Node`` and
``target.name`` must be set (validation ValidatePodBinding); ``assignPod`` refuses a pod that is
already assigned with 409 Conflict ``pod <name> is already assigned to node "<node>"``, or that is
being deleted; otherwise it sets ``spec.nodeName`` and the ``PodScheduled`` condition True and
answers 201 with a Success Status.
"""

from apiserver import status as api_status
from apiserver import store as api_store

SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def bind(store, namespace, name, binding):
    """Assign pod ``namespace/name`` to ``binding["target"]["name"]``; returns (code, body)."""
    target = binding.get("target") or {}
    if (binding.get("metadata") or {}).get("name", name) != name:
        raise api_status.bad_request("the name of the object (%s) does not match the name on the URL (%s)" % (binding["metadata"]["name"], name))
    if target.get("kind", "Node") != "Node" or not target.get("name"):
        raise api_status.bad_request('Binding "%s" is invalid: target: must name a Node' % name)
    with store.cond:
        pod = store.get("pods", namespace, name)
        if pod["metadata"].get("deletionTimestamp"):
            raise api_status.conflict("pods/binding", name, "pod %s is being deleted, cannot be assigned to a host" % name)
        if pod["spec"].get("nodeName"):
            raise api_status.conflict("pods/binding", name, 'pod %s is already assigned to node "%s"' % (name, pod["spec"]["nodeName"]))
        pod["spec"]["nodeName"] = target["name"]
        conditions = [c for c in pod.get("status", {}).get("conditions") or [] if c.get("type") != "PodScheduled"]
        pod.setdefault("status", {})["conditions"] = conditions + [
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": api_store.timestamp()}]
        store.update("pods", pod, check_version=False)
    return 201, dict(SUCCESS)
