# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A workload sent through its controller as the canary (issue 26): the canary source keeps its pods (their controller, node, uid, GPU
requests) and the reviewed manifest diff; the record holds them and its Canary section names them, one row each."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import canary as composition
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import sections
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

POD = "default/gpu-serve-5d8f7c9b4-x7k2p"
DIFF = ["spec.template.spec.nodeSelector: (none) -> {\"kubernetes.io/hostname\":\"gpu-7\"}",
        "spec.template.spec.resources: (none) -> {\"limits\":{\"cpu\":\"2\",\"memory\":\"2Gi\"},\"requests\":{\"cpu\":\"2\",\"memory\":\"2Gi\"}}"]
RESULT = {"pod": POD, "kind": "Deployment", "workload": "Deployment/gpu-serve", "diff": DIFF,
          "admission": {"admitted": True, "phase": "Running", "node": "gpu-7", "failures": []},
          "pods": [{"pod": POD, "uid": ri.UID, "node": "gpu-7", "controller": "ReplicaSet/gpu-serve-5d8f7c9b4", "container_ids": {"main": "x"},
                    "stored_read": True, "stored_resources": None, "gpu_requests": {"nvidia.com/gpu": "1"}}]}
SUBJECTS = [{"pod": POD, "uid": ri.UID, "node": "gpu-7", "controller": "ReplicaSet/gpu-serve-5d8f7c9b4", "gpu_requests": {"nvidia.com/gpu": "1"}}]


def test_a_workloads_pods_controller_and_diff_are_composed_and_a_bare_pod_keeps_its_two_keys():
    assert composition.compose({"canary": RESULT}) == {"pod": POD, "admission": RESULT["admission"], "workload": "Deployment/gpu-serve",
                                                       "diff": DIFF, "pods": SUBJECTS}
    bare = dict(RESULT, kind="Pod", workload="Pod/pod-numa-allocation-canary")
    assert composition.compose({"canary": bare}) == {"pod": POD, "admission": RESULT["admission"]}


def test_the_record_names_the_workloads_pods_their_controller_the_gpu_and_the_diff():
    built = record.build(ri.h200_facts(), "h200-vm", {"canary": composition.compose({"canary": RESULT}), "node_name": "gpu-7",
                                                      "generated_at": "2026-12-05T12:01:00Z"})
    assert (built["canary"]["workload"], built["canary"]["pods"], built["canary"]["diff"]) == ("Deployment/gpu-serve", SUBJECTS, DIFF)
    [canary] = [s for s in sections.sections(built) if s[0] == "Canary"]
    assert canary[2][-4:] == [
        ["workload", "Deployment/gpu-serve"],
        ["pod " + POD, "controller ReplicaSet/gpu-serve-5d8f7c9b4, node gpu-7, uid %s, GPU requested nvidia.com/gpu: 1" % ri.UID],
        ["manifest diff", DIFF[0]], ["manifest diff", DIFF[1]]]
