# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Field and label selectors of list and watch requests (a test double's subset of the real ones).

Label selectors follow k8s.io/apimachinery/pkg/labels/selector.go: ``k=v``, ``k==v``, ``k!=v``,
``k in (a,b)``, ``k notin (a,b)``, ``k``, ``!k``, joined by commas. Field selectors follow
k8s.io/apimachinery/pkg/fields/selector.go (``=``, ``==``, ``!=``); the fields each resource
supports are those its registry declares (pods: pkg/registry/core/pod/strategy.go PodToSelectableFields;
nodes: pkg/registry/core/node/strategy.go NodeToSelectableFields; ResourceSlices:
pkg/registry/resource/resourceslice/strategy.go, ``spec.nodeName`` and ``spec.driver``, which the
resource.k8s.io/v1 ResourceSliceSpec documents as field-selectable); any other field is refused
with the API's wording ``field label not supported: <field>`` as a 400.
Events: the labels pkg/apis/core/v1/conversion.go ``AddFieldLabelConversionsForEvent`` accepts, each
read as pkg/registry/core/event/strategy.go ``EventToSelectableFields`` reads it (``source`` is
``source.component``, ``reportingComponent`` is ``reportingComponent``, an absent field is ``""``).
"""

import re

from apiserver import status as api_status

# The selectable fields per resource, read from each object.
_FIELDS = {
    "events": {
        "metadata.name": lambda o: o["metadata"]["name"],
        "metadata.namespace": lambda o: o["metadata"].get("namespace", ""),
        "involvedObject.kind": lambda o: (o.get("involvedObject") or {}).get("kind", ""),
        "involvedObject.namespace": lambda o: (o.get("involvedObject") or {}).get("namespace", ""),
        "involvedObject.name": lambda o: (o.get("involvedObject") or {}).get("name", ""),
        "involvedObject.uid": lambda o: (o.get("involvedObject") or {}).get("uid", ""),
        "involvedObject.apiVersion": lambda o: (o.get("involvedObject") or {}).get("apiVersion", ""),
        "involvedObject.resourceVersion": lambda o: (o.get("involvedObject") or {}).get("resourceVersion", ""),
        "involvedObject.fieldPath": lambda o: (o.get("involvedObject") or {}).get("fieldPath", ""),
        "reason": lambda o: o.get("reason", ""),
        "reportingComponent": lambda o: o.get("reportingComponent", ""),
        "source": lambda o: (o.get("source") or {}).get("component", ""),
        "type": lambda o: o.get("type", ""),
    },
    "pods": {
        "metadata.name": lambda o: o["metadata"]["name"],
        "metadata.namespace": lambda o: o["metadata"].get("namespace", ""),
        "spec.nodeName": lambda o: o.get("spec", {}).get("nodeName", ""),
        "spec.restartPolicy": lambda o: o.get("spec", {}).get("restartPolicy", ""),
        "spec.schedulerName": lambda o: o.get("spec", {}).get("schedulerName", ""),
        "spec.serviceAccountName": lambda o: o.get("spec", {}).get("serviceAccountName", ""),
        "spec.hostNetwork": lambda o: "true" if o.get("spec", {}).get("hostNetwork") else "false",
        "status.phase": lambda o: o.get("status", {}).get("phase", ""),
        "status.podIP": lambda o: o.get("status", {}).get("podIP", ""),
        "status.nominatedNodeName": lambda o: o.get("status", {}).get("nominatedNodeName", ""),
    },
    "nodes": {
        "metadata.name": lambda o: o["metadata"]["name"],
        "spec.unschedulable": lambda o: "true" if o.get("spec", {}).get("unschedulable") else "false",
    },
    "resourceslices": {
        "metadata.name": lambda o: o["metadata"]["name"],
        "spec.nodeName": lambda o: o.get("spec", {}).get("nodeName") or "",
        "spec.driver": lambda o: o.get("spec", {}).get("driver", ""),
    },
}
_DEFAULT_FIELDS = {
    "metadata.name": lambda o: o["metadata"]["name"],
    "metadata.namespace": lambda o: o["metadata"].get("namespace", ""),
}


def _split_terms(text):
    """Split on commas that are not inside parentheses."""
    terms, depth, current = [], 0, ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            terms.append(current)
            current = ""
        else:
            current += char
    terms.append(current)
    return [term.strip() for term in terms if term.strip()]


def field_matcher(resource, text):
    """A predicate for the field selector ``text`` on ``resource``; raises ApiError (400) on an unknown field."""
    fields = _FIELDS.get(resource, _DEFAULT_FIELDS)
    tests = []
    for term in _split_terms(text or ""):
        match = re.match(r"^([^!=]+)(==|!=|=)(.*)$", term)
        if not match:
            raise api_status.bad_request("invalid selector: '%s'; can't understand '%s'" % (text, term))
        name, operator, value = match.group(1).strip(), match.group(2), match.group(3).strip()
        if name not in fields:
            raise api_status.bad_request("field label not supported: %s" % name)
        tests.append((fields[name], operator == "!=", value))
    return lambda obj: all((read(obj) == value) != negate for read, negate, value in tests)


def _label_test(term):
    match = re.match(r"^([A-Za-z0-9./_-]+)\s+(in|notin)\s+\((.*)\)$", term)
    if match:
        key, operator, values = match.group(1), match.group(2), {v.strip() for v in match.group(3).split(",")}
        if operator == "in":
            return lambda labels: labels.get(key) in values
        return lambda labels: labels.get(key) not in values
    match = re.match(r"^([A-Za-z0-9./_-]+)\s*(==|!=|=)\s*([A-Za-z0-9._-]*)$", term)
    if match:
        key, operator, value = match.groups()
        if operator == "!=":
            return lambda labels: labels.get(key) != value
        return lambda labels: labels.get(key) == value
    if re.match(r"^![A-Za-z0-9./_-]+$", term):
        return lambda labels: term[1:] not in labels
    if re.match(r"^[A-Za-z0-9./_-]+$", term):
        return lambda labels: term in labels
    raise api_status.bad_request("unable to parse requirement: %s" % term)


def label_matcher(text):
    """A predicate on an object's labels for the label selector ``text`` (empty: everything)."""
    tests = [_label_test(term) for term in _split_terms(text or "")]
    return lambda labels: all(test(labels or {}) for test in tests)


def match_labels(selector, labels):
    """A LabelSelector object (``matchLabels`` and ``matchExpressions``) against labels.

    As metav1.LabelSelectorAsSelector: an empty or missing selector is empty; the caller (the
    eviction subresource) treats an empty selector as matching nothing.
    """
    labels = labels or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


def selector_is_empty(selector):
    """True when a LabelSelector selects nothing in particular (nil, or no labels and no expressions)."""
    return not selector or (not selector.get("matchLabels") and not selector.get("matchExpressions"))
