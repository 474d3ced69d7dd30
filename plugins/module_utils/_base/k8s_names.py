# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubernetes object names, checked by the API server's own rules before one goes into a URL or a request.

Public: `KubeNameError`, `node_name`, `pod_name`, `namespace`, `pod_refs`, `SUBDOMAIN_MAX`, `LABEL_MAX`.

The rules and their wording are k8s.io/apimachinery pkg/util/validation (``IsDNS1123Subdomain``,
``IsDNS1123Label``, ``RegexError``, ``MaxLenError``): a node name (``ValidateNodeName``) and a pod
name (``ValidatePodName``) are DNS-1123 subdomains, at most 253 characters; a namespace
(``ValidateNamespaceName``) is a DNS-1123 label, at most 63. A name that breaks them would not be
an object the API server could hold, and as a path segment it can collapse (``..`` turns
``/api/v1/nodes/..`` into ``/api/v1/``), so it is refused before anything is sent.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

SUBDOMAIN_MAX = 253
LABEL_MAX = 63
_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_LABEL = re.compile("^" + _LABEL_FMT + "$")
_SUBDOMAIN = re.compile("^" + _SUBDOMAIN_FMT + "$")
_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with "
              "an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '%s')" % _LABEL_FMT)
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and "
                  "end with an alphanumeric character (e.g. 'example.com', regex used for validation is '%s')" % _SUBDOMAIN_FMT)
_SHOWN = 80
SENT = "nothing was sent"


class KubeNameError(NumaGateError):
    """A name that is not a valid Kubernetes name of its kind."""


def _shown(value):
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "... (%d characters)" % len(value)


def _problems(value, pattern, message, limit):
    problems = []
    if len(value) > limit:
        problems.append("must be no more than %d characters" % limit)
    if not pattern.match(value):
        problems.append(message)
    return problems


def _check(value, what, rule, pattern, message, limit, after):  # pylint: disable=too-many-arguments
    if not isinstance(value, str):
        kind = type(value).__name__
        raise KubeNameError("%s %s is %s %s, not a name: %s" % (what, _shown(value), "an" if kind[0] in "aeiou" else "a", kind, rule), name=None)
    if not value:
        raise KubeNameError("%s must not be empty: %s" % (what, rule), name=value)
    problems = _problems(value, pattern, message, limit)
    if problems:
        raise KubeNameError("%s %s is not valid: %s (%s); %s" % (what, _shown(value), "; ".join(problems), rule, after), name=value)
    return value


def node_name(value, what="node name", after=SENT):
    """``value`` when it is a valid node name (a DNS-1123 subdomain), else `KubeNameError` naming it and the rule."""
    return _check(value, what, "a Kubernetes node name is a DNS-1123 subdomain, as the API server's ValidateNodeName checks",
                  _SUBDOMAIN, _SUBDOMAIN_MSG, SUBDOMAIN_MAX, after)


def pod_name(value, what="pod name", after=SENT):
    """``value`` when it is a valid pod name (a DNS-1123 subdomain)."""
    return _check(value, what, "a pod name is a DNS-1123 subdomain, as the API server's ValidatePodName checks",
                  _SUBDOMAIN, _SUBDOMAIN_MSG, SUBDOMAIN_MAX, after)


def namespace(value, what="namespace", after=SENT):
    """``value`` when it is a valid namespace name (a DNS-1123 label)."""
    return _check(value, what, "a namespace is a DNS-1123 label, as the API server's ValidateNamespaceName checks",
                  _LABEL, _LABEL_MSG, LABEL_MAX, after)


def pod_refs(pods, option="pods"):
    """``pods`` (a list of ``{"name", "namespace"}``) checked: each entry a dict with a valid name and namespace, nothing else.

    Returns a new list of ``{"name", "namespace"}``; refuses naming the option, the entry's index and the field.
    """
    if not isinstance(pods, list):
        raise KubeNameError("%s must be a list of {name, namespace}, not a %s" % (option, type(pods).__name__))
    checked = []
    for index, entry in enumerate(pods):
        where = "%s[%d]" % (option, index)
        if not isinstance(entry, dict):
            raise KubeNameError("%s must be a dict with name and namespace, not a %s (%s)" % (where, type(entry).__name__, _shown(entry)))
        unknown = sorted(str(key) for key in entry if key not in ("name", "namespace"))
        if unknown:
            raise KubeNameError("%s has unknown keys %s: an entry has only name and namespace" % (where, ", ".join(unknown)))
        for key in ("name", "namespace"):
            if key not in entry:
                raise KubeNameError("%s has no %s: each pod is given by its name and namespace" % (where, key))
        checked.append({"name": pod_name(entry["name"], "%s.name" % where), "namespace": namespace(entry["namespace"], "%s.namespace" % where)})
    return checked
