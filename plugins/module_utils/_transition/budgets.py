# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which PodDisruptionBudgets cover a pod, and how to name one in a message.

Public: `selects`, `budgets_for`, `describe`, `short`.

Selector matching follows k8s.io/apimachinery/pkg/apis/meta/v1 LabelSelectorAsSelector: every
``matchLabels`` pair and every ``matchExpressions`` term (In, NotIn, Exists, DoesNotExist) must hold;
a policy/v1 PDB with an empty selector selects no pod (pkg/apis/policy/v1 PodDisruptionBudgetSpec:
"An empty selector matches no pods"), as the eviction subresource reads it.
"""

from __future__ import annotations


def selects(selector, labels):
    """True when the LabelSelector ``selector`` (a dict) selects a pod with ``labels``; empty selects none."""
    selector = selector or {}
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not match_labels and not expressions:
        return False
    labels = labels or {}
    if any(labels.get(key) != value for key, value in match_labels.items()):
        return False
    for term in expressions:
        key, operator, values = term.get("key"), term.get("operator"), term.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def budgets_for(pod, pdbs):
    """The PDBs of ``pdbs`` (same namespace) that select ``pod``, by name."""
    meta = pod.get("metadata") or {}
    chosen = [b for b in pdbs if (b.get("metadata") or {}).get("namespace") == meta.get("namespace")
              and selects((b.get("spec") or {}).get("selector"), meta.get("labels"))]
    return sorted(chosen, key=lambda b: b["metadata"]["name"])


def _limit(spec):
    if "minAvailable" in spec:
        return "minAvailable %s" % spec["minAvailable"]
    if "maxUnavailable" in spec:
        return "maxUnavailable %s" % spec["maxUnavailable"]
    return "no limit"


def describe(pdb):
    """``PodDisruptionBudget db-pdb (minAvailable 2, 0 disruptions allowed, 2 of 2 healthy pods)``."""
    spec, status = pdb.get("spec") or {}, pdb.get("status") or {}
    allowed = status.get("disruptionsAllowed", 0)
    return "PodDisruptionBudget %s (%s, %d disruption%s allowed, %d healthy of %d desired)" % (
        pdb["metadata"]["name"], _limit(spec), allowed, "" if allowed == 1 else "s",
        status.get("currentHealthy", 0), status.get("desiredHealthy", 0))


def short(pdb):
    """``PDB db-pdb (allows 0 disruptions)``: the progress lines' form."""
    allowed = (pdb.get("status") or {}).get("disruptionsAllowed", 0)
    return "PDB %s (allows %d disruption%s)" % (pdb["metadata"]["name"], allowed, "" if allowed == 1 else "s")
