# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an API answer must look like before the transition reads it: JSON, not too deep, each field read of its type.

Public: `ShapeError`, `decode`, `too_deep`, `node`, `pod`, `pod_list`, `pdb_list`, `workload_list`, `MAX_DEPTH`.

Only the fields the steps read are checked (a Node's ``spec.unschedulable``, conditions, labels, nodeInfo
and quantities; a pod's name, namespace, uid, owner references, annotations, labels, node, volumes,
containers, phase, conditions and container statuses; a budget's selector, limits and status counts; a
Deployment's or DaemonSet's containers), each against the type the API's OpenAPI schema gives it, so a
server (or a proxy in front of one) that answers something else is refused with the URL and the
field's path named, never with an error of the code that would have read it. Names that go back into
URLs (pod names, namespaces) are checked by the API server's rules (`_k8s_names`).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.fileio import parse_json

MAX_DEPTH = 100
_NOT_USED = "the answer is not used"
_TYPES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer"}


class ShapeError(NumaGateError):
    """An API answer that is not of the shape its kind has."""


def _what(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return _TYPES.get(type(value), "a " + type(value).__name__)


def too_deep(value, limit=MAX_DEPTH):
    """True when ``value`` nests lists and objects more than ``limit`` levels (checked without recursion)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def decode(data, where, limit=MAX_DEPTH):
    """The JSON object of ``data`` (bytes) answered at ``where`` (``GET <url>``); a `ShapeError` naming why it is not one."""
    try:
        value = parse_json(data)
    except ValueError as exc:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
        raise ShapeError("%s: the answer is not JSON (%s): %r" % (where, " ".join(str(exc).split())[:120], text[:200])) from exc
    if too_deep(value, limit):
        raise ShapeError("%s: the answer nests lists and objects more than %d levels deep; not read" % (where, limit))
    if not isinstance(value, dict):
        raise ShapeError("%s: the answer is %s, not a JSON object" % (where, _what(value)))
    return value


def _field(obj, path, kinds, where, required=False):
    """``obj[path...]`` checked: one of ``kinds`` (types), or absent/null unless ``required``; `ShapeError` names the field."""
    value = obj
    for index, key in enumerate(path):
        if isinstance(key, int):
            value = value[key]  # a list item: `_each` checked the list
            continue
        if not isinstance(value, dict) or value.get(key) is None:
            if required:
                raise ShapeError("%s: the answer has no %s" % (where, _path(path[:index + 1])))
            return None
        value = value[key]
    if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
        raise ShapeError("%s: %s is %s, expected %s" % (where, _named(path), _what(value),
                                                        " or ".join(_TYPES.get(k, k.__name__) for k in kinds)))
    return value


def _path(path):
    text = ""
    for part in path:
        text += "[%d]" % part if isinstance(part, int) else ("." if text else "") + part
    return text


def _named(path):
    return "the answer's %s" % _path(path) if path else "the answer"


def _each(obj, path, where, check):
    items = _field(obj, path, (list,), where) or []
    for index in range(len(items)):
        check(obj, list(path) + [index], where)
    return items


def node(answer, where):
    """A Node answer checked: metadata.name, spec.unschedulable, status.conditions (type, status and the texts)."""
    _field(answer, ["metadata"], (dict,), where, required=True)
    _field(answer, ["metadata", "name"], (str,), where, required=True)
    _field(answer, ["spec"], (dict,), where)
    _field(answer, ["spec", "unschedulable"], (bool,), where)
    _field(answer, ["status"], (dict,), where)

    def condition(obj, path, where):
        _field(obj, path, (dict,), where, required=True)
        for key in ("type", "status", "reason", "message", "lastTransitionTime"):
            _field(obj, path + [key], (str,), where)

    _each(answer, ["status", "conditions"], where, condition)
    _strings(answer, ["metadata", "labels"], where)
    _field(answer, ["status", "nodeInfo"], (dict,), where)
    for key in ("kubeletVersion", "containerRuntimeVersion", "kernelVersion", "osImage"):
        _field(answer, ["status", "nodeInfo", key], (str,), where)
    for key in ("allocatable", "capacity"):
        _strings(answer, ["status", key], where)
    return answer


def _strings(obj, path, where):
    """An object of strings (labels, annotations, a Node's allocatable quantities), each value checked."""
    found = _field(obj, path, (dict,), where) or {}
    for key in found:
        _field(obj, path + [key], (str,), where, required=True)
    return found


def _condition(obj, path, where):
    _field(obj, path, (dict,), where, required=True)
    for key in ("type", "status"):
        _field(obj, path + [key], (str,), where, required=True)
    for key in ("reason", "message"):
        _field(obj, path + [key], (str,), where)


def _container_status(obj, path, where):
    _field(obj, path, (dict,), where, required=True)
    _field(obj, path + ["name"], (str,), where)
    _field(obj, path + ["ready"], (bool,), where)
    _field(obj, path + ["restartCount"], (int,), where)
    _field(obj, path + ["state"], (dict,), where)


def _pod_at(obj, path, where):
    _field(obj, path, (dict,), where, required=True)
    meta = path + ["metadata"]
    _field(obj, meta, (dict,), where, required=True)
    name = _field(obj, meta + ["name"], (str,), where, required=True)
    namespace = _field(obj, meta + ["namespace"], (str,), where, required=True)
    _k8s_names.pod_name(name, "%s: %s" % (where, _named(meta + ["name"])), after=_NOT_USED)
    _k8s_names.namespace(namespace, "%s: %s" % (where, _named(meta + ["namespace"])), after=_NOT_USED)
    for key in ("uid", "deletionTimestamp"):
        _field(obj, meta + [key], (str,), where)
    for key in ("annotations", "labels"):
        _field(obj, meta + [key], (dict,), where)

    def owner(obj, path, where):
        _field(obj, path, (dict,), where, required=True)
        for key in ("kind", "apiVersion", "name", "uid"):
            _field(obj, path + [key], (str,), where)
        _field(obj, path + ["controller"], (bool,), where)

    _each(obj, meta + ["ownerReferences"], where, owner)
    _field(obj, path + ["spec"], (dict,), where)
    _field(obj, path + ["spec", "nodeName"], (str,), where)
    _each(obj, path + ["spec", "volumes"], where, lambda o, p, w: _field(o, p, (dict,), w, required=True))
    _each(obj, path + ["spec", "containers"], where, lambda o, p, w: _field(o, p, (dict,), w, required=True))
    _field(obj, path + ["status"], (dict,), where)
    _field(obj, path + ["status", "phase"], (str,), where)
    _each(obj, path + ["status", "conditions"], where, _condition)
    for key in ("containerStatuses", "initContainerStatuses"):
        _each(obj, path + ["status", key], where, _container_status)


def pod(answer, where):
    """A Pod answer checked (see `pod_list` for the fields)."""
    _pod_at(answer, [], where)
    return answer


def pod_list(answer, where):
    """A PodList answer's ``items``, each pod checked: name (subdomain), namespace (label), uid, owners, annotations, volumes, phase,
    conditions and container statuses. ``items`` is always there in a list the API server gives (``[]`` when empty)."""
    _field(answer, ["items"], (list,), where, required=True)
    return _each(answer, ["items"], where, _pod_at)


def _workload_at(obj, path, where):
    _field(obj, path, (dict,), where, required=True)
    _field(obj, path + ["metadata"], (dict,), where, required=True)
    for key in ("name", "namespace"):
        _field(obj, path + ["metadata", key], (str,), where)
    _strings(obj, path + ["metadata", "labels"], where)
    template = path + ["spec", "template", "spec"]
    for index in range(2, len(template) + 1):
        _field(obj, template[:index], (dict,), where)

    def container(obj, path, where):
        _field(obj, path, (dict,), where, required=True)
        for key in ("name", "image"):
            _field(obj, path + [key], (str,), where)

    for key in ("containers", "initContainers"):
        _each(obj, template + [key], where, container)


def workload_list(answer, where):
    """A DeploymentList's or DaemonSetList's ``items``, each checked: metadata (name, namespace, labels), the pod template's containers."""
    _field(answer, ["items"], (list,), where, required=True)
    return _each(answer, ["items"], where, _workload_at)


def _pdb_at(obj, path, where):
    _field(obj, path, (dict,), where, required=True)
    _field(obj, path + ["metadata"], (dict,), where, required=True)
    _field(obj, path + ["metadata", "name"], (str,), where, required=True)
    _field(obj, path + ["metadata", "namespace"], (str,), where)
    _field(obj, path + ["spec"], (dict,), where)
    for key in ("minAvailable", "maxUnavailable"):
        _field(obj, path + ["spec", key], (int, str), where)
    selector = path + ["spec", "selector"]
    _field(obj, selector, (dict,), where)
    labels = _field(obj, selector + ["matchLabels"], (dict,), where) or {}
    for key in labels:
        _field(obj, selector + ["matchLabels", key], (str,), where, required=True)

    def expression(obj, path, where):
        _field(obj, path, (dict,), where, required=True)
        _field(obj, path + ["key"], (str,), where, required=True)
        _field(obj, path + ["operator"], (str,), where, required=True)
        _each(obj, path + ["values"], where, lambda o, p, w: _field(o, p, (str,), w, required=True))

    _each(obj, selector + ["matchExpressions"], where, expression)
    _field(obj, path + ["status"], (dict,), where)
    for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        _field(obj, path + ["status", key], (int,), where)


def pdb_list(answer, where):
    """A PodDisruptionBudgetList answer's ``items``, each checked (name, selector terms, limits, status counts)."""
    _field(answer, ["items"], (list,), where)
    return _each(answer, ["items"], where, _pdb_at)
