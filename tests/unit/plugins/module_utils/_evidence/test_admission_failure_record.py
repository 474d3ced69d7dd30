# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The admission_failure source (_evidence/composition/admission_failure.py): canary_result.admission_failure composed flat, held by the
record under its key and shown as its own section "Admission failure: the owning controller's answer"; not asked, the section is empty."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import admission_failure
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import admission_failure as composition
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import sections
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

TITLE = "Admission failure: the owning controller's answer"
WORDS = "Pod Scope pod with pod-level resources failed admission under pod-scope topology manager"


def pod(name, created, phase, reason=None):
    status = {"phase": phase}
    if reason:
        status.update(reason=reason, message="Pod was rejected: " + WORDS)
    return {"metadata": {"name": name, "namespace": "default", "creationTimestamp": created}, "spec": {"nodeName": "gpu-7"}, "status": status}


OBSERVED = admission_failure.observed(
    [pod("probe-h-bbbbb", "2026-12-05T12:00:00Z", "Failed", "TopologyAffinityError"), pod("probe-h-ccccc", "2026-12-05T12:00:01Z", "Pending")],
    [{"involvedObject": {"name": "probe-h-bbbbb"}, "type": "Warning", "reason": "TopologyAffinityError", "message": WORDS}], 20, 20.0, [])
COMPOSED = {"row": "TopologyAffinityError at the kubelet; the controller created 2 pods in 20 s, 1 failed, 1 replacements; nothing left after clean-up",
            "rejection": "TopologyAffinityError: Pod was rejected: " + WORDS, "created": 2, "failed": 1, "replacements": 1, "window_s": 20,
            "events": ["Warning TopologyAffinityError x1: " + WORDS],
            "pods": ["default/probe-h-bbbbb on gpu-7: Failed (TopologyAffinityError)", "default/probe-h-ccccc on gpu-7: Pending"], "left": []}


def test_the_canarys_admission_failure_is_composed_flat_and_not_asked_is_none():
    assert composition.compose({"canary": {"pod": "default/x", "admission_failure": OBSERVED}}) == COMPOSED
    assert composition.compose({"canary": {"pod": "default/x", "admission_failure": None}}) is None
    assert composition.compose({}) is None


def test_the_record_holds_it_and_shows_its_own_section():
    at = "2026-12-05T12:01:00Z"
    built = record.build(ri.h200_facts(), "h200-vm", {"admission_failure": COMPOSED, "generated_at": at, "node_name": "gpu-7"})
    assert built["admission_failure"] == COMPOSED
    [section] = [s for s in sections.sections(built) if s[0] == TITLE]
    assert section[1] == ["item", "value"]
    assert section[2][0] == ["created", "2"]
    assert [row[0] for row in section[2]] == ["created", "events", "failed", "left", "pods", "rejection", "replacements", "row", "window_s"]
    assert section[2][7] == ["row", COMPOSED["row"]]
    empty = record.build(ri.h200_facts(), "h200-vm", {"generated_at": at, "node_name": "gpu-7"})
    assert [s for s in sections.sections(empty) if s[0] == TITLE] == [(TITLE, None, None)]
