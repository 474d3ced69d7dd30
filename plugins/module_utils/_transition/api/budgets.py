# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which PodDisruptionBudgets cover a pod, and how to name one in a message.

Public: `selects`, `budgets_for`, `describe`, `short`, `allows`, `blocking`, `named_in`.

Selector matching follows k8s.io/apimachinery/pkg/apis/meta/v1 LabelSelectorAsSelector: every
``matchLabels`` pair and every ``matchExpressions`` term (In, NotIn, Exists, DoesNotExist) must hold;
a policy/v1 PDB with an empty selector selects no pod (pkg/apis/policy/v1 PodDisruptionBudgetSpec:
"An empty selector matches no pods"), as the eviction subresource reads it.

A budget is named as what blocks an eviction only when it does (`blocking`): the eviction
subresource (kubernetes pkg/registry/core/pod/storage/eviction.go ``checkAndDecrement``) answers 429
for a PDB that allows no disruption now (its cause: ``The disruption budget <name> needs <n> healthy
pods and has <m> currently``) or whose status the disruption controller has not observed yet
(``createTooManyRequestsError``: ``The disruption budget <name> is still being processed by the
server.``). A covering budget that allows a disruption and is not named in the 429's causes did not
refuse it: the 429 came from elsewhere (API priority and fairness, a webhook), and the API's own
message is what blocks.
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


def _causes_of(pdb, causes):
    """The messages of the 429's ``DisruptionBudget`` causes that name ``pdb``."""
    prefix = "The disruption budget %s " % pdb["metadata"]["name"]
    return [c.get("message") or "" for c in causes or [] if c.get("reason") == "DisruptionBudget" and (c.get("message") or "").startswith(prefix)]


def _processing(pdb, causes):
    """True when a 429 cause says ``pdb`` is still being processed (its status not yet observed)."""
    return any(m.endswith("is still being processed by the server.") for m in _causes_of(pdb, causes))


def named_in(pdbs, causes=()):
    """The budgets of ``pdbs`` a 429's causes name: those that refused the last try, whatever they allow now."""
    return [p for p in pdbs if _causes_of(p, causes)]


def short(pdb, causes=()):
    """``PDB db-pdb (allows 0 disruptions)``, or ``PDB db-pdb (still being processed by the server)``: the progress lines' form."""
    if _processing(pdb, causes):
        return "PDB %s (still being processed by the server)" % pdb["metadata"]["name"]
    return "PDB %s (%s)" % (pdb["metadata"]["name"], allows(pdb))


def allows(pdb):
    """``allows 1 disruption``: what the budget's status allows now."""
    allowed = (pdb.get("status") or {}).get("disruptionsAllowed", 0)
    return "allows %d disruption%s" % (allowed, "" if allowed == 1 else "s")


def blocking(pdbs, causes=()):
    """The budgets of ``pdbs`` that refuse an eviction now: those allowing no disruption, and those the 429's
    ``causes`` say are still being processed. A budget that allows a disruption blocks nothing."""
    return [p for p in pdbs if _processing(p, causes) or (p.get("status") or {}).get("disruptionsAllowed", 0) <= 0]
