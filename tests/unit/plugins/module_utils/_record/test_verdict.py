"""The verdict (_record/verdict.py): the report's criteria, exact reasons, from the real evidence pipeline."""

import copy

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.reconcile import findings as reconcile
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import verdict
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import reboot
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal import rehearsal_cases
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal import test_reboot as reboot_cases
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import runs_cases as service_runs
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.evidence_trees import node_tree

UID = "3f2a9c1e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"
MAIN = "a" * 64
SIDE = "b" * 64
GPU_UUID = "GPU-0b8f3d2e-1111-2222-3333-444455556666"
IDS = {"main": "containerd://" + MAIN, "metrics": "containerd://" + SIDE}
VERSIONS = {"kubelet": "v1.37.1", "kernel": "6.8.0-49-generic", "driver": "580.82.07", "node_image": "ubuntu-24.04-gpu-20261001"}
METRICS = [{"name": "resource_manager_allocations_total", "labels": {"source": "pod"}, "type": "counter", "increase": 1.0},
           {"name": "resource_manager_allocation_errors_total", "labels": {"source": "pod"}, "type": "counter", "increase": 0.0}]


def facts():
    """Two NUMA nodes, the GPU on node 1 (sysfs says so)."""
    return {"schema_version": 1, "cpus": {"online": "0-15", "isolated": ""},
            "numa_nodes": [{"id": 0, "cpus": "0-7"}, {"id": 1, "cpus": "8-15"}],
            "gpus": [{"index": 0, "uuid": GPU_UUID, "pci_address": "0000:9a:00.0", "name": "NVIDIA H200", "sysfs_numa_node": 1,
                      "numa_node": 1, "numa_source": "sysfs", "local_cpus": "8-15", "vendor_affinity": None}],
            "nics": []}


def canary(cpus, main):
    """The report's canary as PodResources reports it: pod set, the main container's exclusive slice, the GPU kept."""
    return [{"name": "pod-numa-allocation-canary", "namespace": "canary", "cpu_ids": cpus, "memory": [],
             "containers": [{"name": "main", "cpu_ids": main, "memory": [], "dynamic_resources": [],
                             "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [GPU_UUID], "numa_nodes": [1]}]},
                            {"name": "metrics", "cpu_ids": "", "memory": [], "devices": [], "dynamic_resources": []}]}]


def findings_for(root, pod_cpus, main_cpus, side_cpus, mems, maps):
    oracle = locality.build(facts())
    allocation = allocations.reconcile_allocations(canary(pod_cpus, main_cpus), "pod", "0-15", None, oracle)["pods"][0]
    node_tree(root, 2, "systemd", "guaranteed", UID, [
        {"id": MAIN, "prefix": "cri-containerd-", "cpus": main_cpus, "mems": mems, "usage_ns": 10,
         "pids": {100: {"threads": {100: main_cpus}, "numa_maps": maps}}},
        {"id": SIDE, "prefix": "cri-containerd-", "cpus": side_cpus, "mems": mems, "usage_ns": 10,
         "pids": {200: {"threads": {200: side_cpus}, "numa_maps": ""}}}])
    placed = placement.read_pods(root, [UID])[1][0]
    return oracle, reconcile.reconcile_pod(allocation, placed, IDS, oracle)


def service(at_most, **canary):
    """The service_comparison result of three interleaved repetitions per side (tests/.../_evidence/service_runs.py) for p95 TTFT <= at_most."""
    return service_compare.compare(service_runs.interleaved(canary=canary), [{"metric": "ttft", "quantile": 0.95, "at_most": at_most}])


def evidence(tmp_path, **changes):
    oracle, findings = findings_for(str(tmp_path), "8-11", "8-9", "10-11", "1", "7f00 default anon=100 N1=100 kernelpagesize_kB=4\n")
    value = {"versions": dict(VERSIONS), "devices": ["gpu %s 0000:9a:00.0" % GPU_UUID], "has_gpus": True, "oracle": oracle,
             "placement": {"findings": findings}, "admission": {"admitted": True, "failures": []},
             "configuration": {"verified": True, "message": "configz matches"}, "metrics": copy.deepcopy(METRICS),
             "effect": [{"pod": None, "check": "control_plane", "result": "agree", "message": "PodLevelResources 1"}],
             "service_objectives": service(0.5),
             "rollback": rehearsal_cases.rehearsed()}
    value.update(changes)
    return value


def test_adopt_when_every_criterion_holds(tmp_path):
    result = verdict.decide(evidence(tmp_path))
    assert result == {
        "verdict": "adopt",
        "reasons": [{"criterion": "service", "effect": "adopt",
                     "message": "service objectives held (3 baseline and 3 canary repetitions): "
                                "p95 ttft <= 0.5 s: canary held: worst repetition 0.496032 (median 0.477273)"},
                    {"criterion": "rollback", "effect": "info", "message": rehearsal_cases.REHEARSED_MESSAGE}],
        "accepted": {"verdict": "adopt", "versions": {"kubelet": "v1.37.1", "kernel": "6.8.0-49-generic", "driver": "580.82.07",
                                                      "node_image": "ubuntu-24.04-gpu-20261001", "device_plugin": None, "workload": None},
                     "devices": ["gpu %s 0000:9a:00.0" % GPU_UUID]}}


def test_planted_mismatch_gpu_on_node_1_cpus_on_node_0_defers_with_that_reason(tmp_path):
    oracle, findings = findings_for(str(tmp_path), "2-5", "2-3", "4-5", "0", "7f00 default anon=512 N0=512 kernelpagesize_kB=4\n")
    result = verdict.decide(evidence(tmp_path, oracle=oracle, placement={"findings": findings}))
    assert result["verdict"] == "defer"
    defers = [r["message"] for r in result["reasons"] if r["effect"] == "defer"]
    assert defers == [
        "placement device_locality disagrees: pod canary/pod-numa-allocation-canary container main: GPU %s (0000:9a:00.0) is local to "
        "NUMA node 1 (oracle, sysfs); the pod's CPUs 2-5 are on NUMA node(s) 0" % GPU_UUID,
        "placement memory_nodes disagrees: pod canary/pod-numa-allocation-canary: containers may allocate on NUMA node(s) 0; "
        "expected 1 from the pod's devices (locality oracle)",
        "placement resident_memory disagrees: pod canary/pod-numa-allocation-canary: 0 of 2097152 resident bytes (0.000000) on "
        "NUMA node(s) 1, at least 0.95 wanted"]
    assert result["accepted"] is None


def test_a_version_the_operator_marks_unsupported_defers(tmp_path):
    policy = {"unsupported": [{"component": "network_operator", "version": "v26.7.*",
                               "reason": "its platform page lists Kubernetes 1.32 through 1.36"},
                              {"component": "kubelet", "version": "v1.36.*"}]}
    versions = dict(VERSIONS, network_operator="v26.7.0")
    result = verdict.decide(evidence(tmp_path, versions=versions), policy)
    assert result["verdict"] == "defer"
    assert result["reasons"][0] == {
        "criterion": "support", "effect": "defer",
        "message": "network_operator v26.7.0 is marked unsupported by the operator (rule 'v26.7.*'): its platform page lists Kubernetes 1.32 through 1.36"}
    assert [r["criterion"] for r in result["reasons"] if r["effect"] == "defer"] == ["support"]


def test_a_version_outside_the_supported_list_defers(tmp_path):
    result = verdict.decide(evidence(tmp_path), {"supported": {"kubelet": ["v1.37.2", "v1.38.*"]}})
    assert result["verdict"] == "defer"
    assert result["reasons"][0]["message"] == "kubelet v1.37.1 is not among the operator's supported versions (v1.37.2, v1.38.*)"


@pytest.mark.parametrize("key, new, message", [
    ("driver", "590.10.01", "driver changed from 580.82.07 to 590.10.01"),
    ("kubelet", "v1.37.2", "kubelet changed from v1.37.1 to v1.37.2"),
])
def test_a_later_driver_or_kubelet_change_turns_an_adopt_into_revalidate(tmp_path, key, new, message):
    first = verdict.decide(evidence(tmp_path))
    assert first["verdict"] == "adopt"
    later = verdict.decide(evidence(tmp_path, versions=dict(VERSIONS, **{key: new})), accepted=first["accepted"])
    assert later["verdict"] == "revalidate"
    assert later["reasons"][-1] == {
        "criterion": "change", "effect": "revalidate",
        "message": "%s since the record that accepted this node (adopt): repeat the acceptance procedure (canary, workload, rollback) on this node" % message}
    assert later["accepted"] == first["accepted"]
    # Running again with the same inputs keeps the verdict and the accepted record (a fixed point).
    assert verdict.decide(evidence(tmp_path, versions=dict(VERSIONS, **{key: new})), accepted=later["accepted"]) == later
    repeated = verdict.decide(evidence(tmp_path, versions=dict(VERSIONS, **{key: new})), {"revalidated": True}, accepted=first["accepted"])
    assert repeated["verdict"] == "adopt"
    assert repeated["reasons"][-1]["effect"] == "info"
    assert repeated["accepted"]["versions"][key] == new


def test_unchanged_versions_keep_the_adopt(tmp_path):
    first = verdict.decide(evidence(tmp_path))
    assert verdict.decide(evidence(tmp_path), accepted=first["accepted"]) == first


def test_a_replaced_gpu_is_a_change(tmp_path):
    first = verdict.decide(evidence(tmp_path))
    later = verdict.decide(evidence(tmp_path, devices=["gpu GPU-new 0000:9a:00.0"]), accepted=first["accepted"])
    assert later["verdict"] == "revalidate"
    assert later["reasons"][-1]["message"].startswith(
        "devices changed (gone: gpu %s 0000:9a:00.0; new: gpu GPU-new 0000:9a:00.0) since the record that accepted this node (adopt)" % GPU_UUID)


def test_defer_is_stronger_than_revalidate(tmp_path):
    first = verdict.decide(evidence(tmp_path))
    later = verdict.decide(evidence(tmp_path, versions=dict(VERSIONS, driver="590.10.01"), rollback=None), accepted=first["accepted"])
    assert later["verdict"] == "defer"
    assert [r["effect"] for r in later["reasons"]] == ["adopt", "defer", "revalidate"]


def test_an_incomparable_service_comparison_defers_with_its_reason(tmp_path):
    other = {"server": "docker.io/vllm/vllm-openai@sha256:" + "b" * 64}
    result = verdict.decide(evidence(tmp_path, service_objectives=service(0.5, images=other)))
    assert result["verdict"] == "defer"
    assert [r["message"] for r in result["reasons"] if r["criterion"] == "service"] == [
        "baseline and canary are incomparable, so the service objectives are unresolved: image digests differ for container server: "
        "baseline repetition 1 runs sha256:%s, canary repetition 1 runs sha256:%s; " % ("a" * 64, "b" * 64)
        + "; ".join("image digests differ for container server: baseline repetition 1 runs sha256:%s, canary repetition %d runs sha256:%s"
                    % ("a" * 64, number, "b" * 64) for number in (2, 3))]


@pytest.mark.parametrize("typed, shape", [({"held": True, "detail": "p99 TTFT 180 ms"}, "a mapping with keys detail, held"),
                                          (True, "a bool")])
def test_a_typed_in_service_objective_is_refused(tmp_path, typed, shape):
    with pytest.raises(RecordError) as caught:
        verdict.decide(evidence(tmp_path, service_objectives=typed))
    assert str(caught.value) == ("service_objectives must be the service_comparison filter's result (state: held, not held, incomparable), "
                                 "got %s: service objectives are measured, not stated (a typed-in {held: ...} is not evidence)" % shape)


def test_a_held_comparison_adopts_only_when_its_own_windows_give_it(tmp_path):
    held = service(0.5)
    assert held["observations"]["objectives"] == [{"metric": "ttft", "quantile": 0.95, "at_most": 0.5}]
    stated = {key: held[key] for key in ("state", "reasons", "repetitions")}
    with pytest.raises(RecordError) as caught:
        verdict.decide(evidence(tmp_path, service_objectives=stated))
    assert str(caught.value) == ("service_objectives states held, but carries no runs or objectives (observations.runs, observations.objectives): "
                                 "a comparison's state is recomputed from its windows and objectives, never taken as stated")
    flipped = dict(service(0.01), state="held")
    with pytest.raises(RecordError) as caught:
        verdict.decide(evidence(tmp_path, service_objectives=flipped))
    assert str(caught.value) == (
        "service_objectives states held (p95 ttft <= 0.01 s: canary did not hold: worst repetition 0.496032 (median 0.477273)), but its "
        "windows and objectives give not held (p95 ttft <= 0.01 s: canary did not hold: worst repetition 0.496032 (median 0.477273)): a "
        "comparison's state is recomputed from its observations")
    broken = dict(held, observations=dict(held["observations"], runs=[{"side": "baseline"}]))
    with pytest.raises(RecordError) as caught:
        verdict.decide(evidence(tmp_path, service_objectives=broken))
    assert str(caught.value) == ("service_objectives states held, but its observations are no comparison: runs[0] must be a mapping with side "
                                 "(baseline or canary) and window, got {'side': 'baseline'}")


def test_no_service_objectives_measured_restricts(tmp_path):
    result = verdict.decide(evidence(tmp_path, service_objectives=None))
    assert result["verdict"] == "restrict"
    assert result["reasons"][0] == {
        "criterion": "service", "effect": "restrict",
        "message": "no service objectives were measured for the workload: "
                   "placement is evidence of an allocation, not a benchmark"}
    assert result["accepted"]["verdict"] == "restrict"


def test_operator_pool_restriction(tmp_path):
    result = verdict.decide(evidence(tmp_path), {"restrict_to": "gpu-canary"})
    assert result["verdict"] == "restrict"
    assert result["reasons"][-1]["message"] == "the operator restricts the feature to the pool gpu-canary"


def test_topology_only_defers_and_names_unknown_versions():
    oracle = locality.build(facts())
    result = verdict.decide({"versions": {"kernel": "6.8.0"}, "has_gpus": True, "oracle": oracle, "placement": None})
    assert result == {"verdict": "defer", "accepted": None, "reasons": [
        {"criterion": "versions", "effect": "defer", "message": "the kubelet version is unknown: the tested stack cannot be named"},
        {"criterion": "versions", "effect": "defer", "message": "the GPU driver version is unknown: the GPU path cannot be named"},
        {"criterion": "evidence", "effect": "defer",
         "message": "no canary evidence on this node: the record holds its topology only (run playbooks/verify.yml)"}]}


def test_unknown_locality_and_disagreeing_sources_defer(tmp_path):
    topology = facts()
    topology["gpus"][0].update(sysfs_numa_node=None, numa_node=None, numa_source=None)
    topology["gpus"].append({"index": 1, "uuid": "GPU-2", "pci_address": "0000:9b:00.0", "name": "NVIDIA H200", "sysfs_numa_node": 1,
                             "numa_node": 1, "numa_source": "sysfs", "local_cpus": "8-15",
                             "vendor_affinity": {"source": "nvml", "numa_node": 0, "cpus": "0-7", "gpu_numa_id": None}})
    result = verdict.decide(evidence(tmp_path, oracle=locality.build(topology)))
    assert [r["message"] for r in result["reasons"] if r["criterion"] == "locality"] == [
        "locality metadata unresolved: gpu 0000:9a:00.0 has no known NUMA node (sysfs says unknown); unknown is not agreement",
        "locality sources disagree for gpu 0000:9b:00.0: numa_node: sysfs says 1, nvml says 0",
        "locality sources disagree for gpu 0000:9b:00.0: cpus: sysfs says 8-15, nvml says 0-7"]
    assert result["verdict"] == "defer"


def test_admission_configuration_monitoring_and_rollback_failures(tmp_path):
    bad = evidence(tmp_path, admission={"admitted": False, "failures": [
        {"layer": "kubelet", "reason": "TopologyAffinityError", "message": "Resources cannot be allocated with Topology locality"}]},
        configuration={"verified": False, "message": "/configz topologyManagerScope is container, want pod"},
        metrics=[dict(METRICS[1], increase=2.0)], service_objectives=service(0.49),
        rollback=rehearsal_cases.cache_missing())
    assert [(r["criterion"], r["message"]) for r in verdict.decide(bad)["reasons"]] == [
        ("admission", "admission failed at the kubelet layer (TopologyAffinityError): Resources cannot be allocated with Topology locality"),
        ("configuration", "the kubelet's running configuration does not match the plan: /configz topologyManagerScope is container, want pod"),
        ("monitoring", "the kubelet's metrics have no resource_manager_allocations_total series: allocations cannot be monitored"),
        ("monitoring", 'resource_manager_allocation_errors_total{source="pod"} rose by 2 between the scrapes'),
        ("service", "service objectives did not hold (3 baseline and 3 canary repetitions): p95 ttft <= 0.49 s: canary did not hold: "
                    "worst repetition 0.496032 (median 0.477273)"),
        ("rollback", "the rollback rehearsal's workloads did not come back: rollback 20261201T091000Z (converged, 21.6 s) after enable "
                     "20261201T090000Z (converged, 22.5 s): ReplicaSet/default/cache-5b8d4c: missing, 0 of 1 pods Ready on the node "
                     "(before: cache-5b8d4c-w7rtl)")]


def test_unverified_configuration_missing_metrics_and_no_rehearsal(tmp_path):
    result = verdict.decide(evidence(tmp_path, configuration=None, metrics=None, rollback=None, admission=None))
    assert [r["message"] for r in result["reasons"] if r["effect"] == "defer"] == [
        "the kubelet's running configuration (/configz) was not verified against the plan",
        "no kubelet metrics were collected: allocations cannot be monitored",
        "rollback has not been rehearsed on this node: recovery is unresolved"]


def test_parsed_samples_are_accepted_as_metrics(tmp_path):
    samples = {"samples": [{"name": "resource_manager_allocations_total", "labels": {}, "value": 3.0, "type": "counter"},
                           {"name": "resource_manager_allocation_errors_total", "labels": {}, "value": 1.0, "type": "counter"}]}
    result = verdict.decide(evidence(tmp_path, metrics=samples))
    assert [r["message"] for r in result["reasons"] if r["criterion"] == "monitoring"] == ["resource_manager_allocation_errors_total is 1"]


def test_bad_inputs_are_named():
    with pytest.raises(RecordError, match=r"^evidence has unknown keys verdict \(known: versions, "):
        verdict.decide({"verdict": "adopt"})
    with pytest.raises(RecordError, match=r"^policy has unknown keys allow_all \(known: unsupported, supported, restrict_to, revalidated, "
                                          r"support_table, support\)$"):
        verdict.decide({}, {"allow_all": True})
    with pytest.raises(RecordError, match=r"^policy unsupported\[0\] must be a mapping with component and version \(a glob\), got 'kubelet'$"):
        verdict.decide({}, {"unsupported": ["kubelet"]})
    with pytest.raises(ValueError, match="^evidence must be a mapping, got list$"):
        verdict.decide([])


@pytest.mark.parametrize("placement", [{"findings": []}, {}])
def test_an_admitted_canary_without_any_placement_check_defers(tmp_path, placement):
    result = verdict.decide(evidence(tmp_path, placement=placement))
    assert result["verdict"] == "defer"
    assert [(r["criterion"], r["effect"], r["message"]) for r in result["reasons"] if r["effect"] == "defer"] == [
        ("placement", "defer", "no placement evidence: no check compared the canary's CPUs, memory or devices with the kubelet's assignment")]


def test_every_rollback_state_says_what_the_node_recorded(tmp_path):
    found = rehearsal_cases.rehearsed()
    unchecked = dict(found, state="unchecked", rehearsed=False, check=None)
    restored = dict(found, state="not converged", rehearsed=False, rollback=dict(found["rollback"], outcome="restored", failed_steps=["start"]),
                    problems=["rollback 20261201T091000Z ended restored (failed: start)"], re_enable=None)
    none = dict(found, state="not rehearsed", rehearsed=False, enable=None, rollback=None, re_enable=None, check=None)
    unread = {"state": "not read", "rehearsed": False, "error": "/var/lib/numa-gate/transitions is a symlink; not read"}
    said = {name: verdict.decide(evidence(tmp_path, rollback=value))["reasons"][-1] for name, value in (
        ("unchecked", unchecked), ("restored", restored), ("none", none), ("unread", unread))}
    assert said == {
        "unchecked": {"criterion": "rollback", "effect": "defer", "message": (
            "rollback 20261201T091000Z (converged, 21.6 s) after enable 20261201T090000Z (converged, 22.5 s), but nothing checked its workloads "
            "afterwards (no rehearsal check kept on the node; run rehearse.yml): recovery is unresolved")},
        "restored": {"criterion": "rollback", "effect": "defer", "message": (
            "the rollback rehearsal did not converge: rollback 20261201T091000Z (restored, 21.6 s) after enable 20261201T090000Z (converged, 22.5 s): "
            "rollback 20261201T091000Z ended restored (failed: start)")},
        "none": {"criterion": "rollback", "effect": "defer", "message": "rollback has not been rehearsed on this node: recovery is unresolved"},
        "unread": {"criterion": "rollback", "effect": "defer", "message": (
            "the rollback rehearsal could not be read from the node's transition records: /var/lib/numa-gate/transitions is a symlink; not read: "
            "recovery is unresolved")}}
    assert verdict.decide(evidence(tmp_path, rollback=unchecked))["verdict"] == "defer"


@pytest.mark.parametrize("typed, shown", [
    ({"rehearsed": True, "detail": "rollback.yml restored the baseline"}, "a mapping with keys detail, rehearsed"),
    (True, "a bool"),
])
def test_a_typed_in_rollback_is_refused(tmp_path, typed, shown):
    with pytest.raises(RecordError) as raised:
        verdict.decide(evidence(tmp_path, rollback=typed))
    assert str(raised.value) == (
        "rollback must be the rehearsal_info module's result (state: rehearsed, not reconciled, refused, unchecked, not converged, not rehearsed, not read), "
        "got %s: "
        "a rollback rehearsal is read from the node's transition records, not stated (a typed-in {rehearsed: true} is not evidence)" % shown)


def test_a_stated_rehearsal_whose_check_its_observations_do_not_give_is_refused(tmp_path):
    found = rehearsal_cases.rehearsed()
    two_keys = dict(found, check={"reconciled": True})
    with pytest.raises(RecordError) as raised:
        verdict.decide(evidence(tmp_path, rollback=two_keys))
    assert str(raised.value) == (
        "rollback states rehearsed, but its check is not believed: its observations are missing: observed_at, workloads, pod_resources, came_back, missing "
        "(a check's states are recomputed from what it observed, never taken as stated): a rehearsal's state is recomputed from its "
        "observations, not stated")
    gone = dict(found["check"]["workloads"][0], ready=0, now=[])
    with pytest.raises(RecordError) as raised:
        verdict.decide(evidence(tmp_path, rollback=dict(found, check=dict(found["check"], workloads=[gone]))))
    assert str(raised.value) == (
        "rollback states rehearsed, but its check is not believed: workloads[0] ('ReplicaSet/default/cache-5b8d4c') states 'back', but its "
        "observations (0 of 1 pods Ready, 0 on the node) give missing: a rehearsal's state is recomputed from its observations, not stated")


def test_a_refused_check_defers_naming_why(tmp_path):
    found = dict(rehearsal_cases.rehearsed(), state="refused", rehearsed=False, check=None, problems=[
        "the check kept after rollback 20261201T091000Z is refused: state file /var/lib/numa-gate/transitions/20261201T091000Z/"
        "rehearsal.json is owned by uid 1001, not by uid 0 that runs this module"])
    assert verdict.decide(evidence(tmp_path, rollback=found))["reasons"][-1] == {"criterion": "rollback", "effect": "defer", "message": (
        "the rollback rehearsal's check is not believed: rollback 20261201T091000Z (converged, 21.6 s) after enable 20261201T090000Z "
        "(converged, 22.5 s): the check kept after rollback 20261201T091000Z is refused: state file /var/lib/numa-gate/transitions/"
        "20261201T091000Z/rehearsal.json is owned by uid 1001, not by uid 0 that runs this module: recovery is unresolved")}


def test_a_rollback_evidence_of_the_wrong_shape_is_named(tmp_path):
    with pytest.raises(RecordError) as raised:
        verdict.decide(evidence(tmp_path, rollback=dict(rehearsal_cases.rehearsed(), rehearsed="yes")))
    assert str(raised.value) == "evidence.rollback.rehearsed must be true or false, got the string 'yes'"


def test_a_failed_scrape_defers_naming_it(tmp_path):
    failed = {"samples": [], "error": "the scrape before the canary failed: cannot reach the API server https://127.0.0.1:6443: connection refused"}
    result = verdict.decide(evidence(tmp_path, metrics=failed))
    assert [r["message"] for r in result["reasons"] if r["criterion"] == "monitoring"] == [
        "the kubelet's metrics could not be read (the scrape before the canary failed: cannot reach the API server https://127.0.0.1:6443: "
        "connection refused): allocations cannot be monitored"]
    assert result["verdict"] == "defer"


def test_canary_evidence_without_an_effect_observation_defers(tmp_path):
    result = verdict.decide(evidence(tmp_path, effect=None))
    assert result["verdict"] == "defer"
    assert [(r["criterion"], r["effect"], r["message"]) for r in result["reasons"] if r["effect"] == "defer"] == [
        ("effect", "defer", "whether the pod-level resource managers took effect was not observed: the record has no reading of the canary's "
                            "pods (.spec.resources read back, the control plane's gate, PodResources, cgroups, metrics); unknown is not agreement")]


def test_a_rehearsed_reboot_is_named_in_the_rollback_criterion(tmp_path):
    """rehearse.yml with numa_gate_rehearse_reboot: the reboot kept after the enable, folded in by rehearsal_info, read by the verdict."""
    def folded(**observed):
        return reboot.fold(rehearsal_cases.rehearsed(), reboot.check(rehearsal_cases.ENABLE_ID, "gpu-node-1", reboot_cases.observed(**observed),
                                                                     reboot_cases.AT))
    memory = {"cpu": None, "memory": reboot_cases.MEMORY}
    said = {name: verdict.decide(evidence(tmp_path, rollback=value))["reasons"][-1] for name, value in (
        ("came back", folded()), ("recovered", folded(refusals=memory, recovery={"removed": ["/var/lib/kubelet/memory_manager_state"]})),
        ("not back", folded(refusals=memory)))}
    assert said == {
        "came back": {"criterion": "rollback", "effect": "info", "message": rehearsal_cases.REHEARSED_MESSAGE + (
            "; rebooted after the enable, it came back Ready with its policies and its workloads in 41s")},
        "recovered": {"criterion": "rollback", "effect": "info", "message": rehearsal_cases.REHEARSED_MESSAGE + (
            "; rebooted after the enable, the kubelet refused its checkpoints (memory: %s), and the documented recovery (stop, remove "
            "/var/lib/kubelet/memory_manager_state, start) brought it back Ready with its policies and its workloads" % reboot_cases.MEMORY)},
        "not back": {"criterion": "rollback", "effect": "defer", "message": (
            "the node rebooted after the enable did not come back whole (not back): rollback 20261201T091000Z (converged, 21.6 s) after enable "
            "20261201T090000Z (converged, 22.5 s): after the boot the kubelet refused memory: %s, and no recovery ran" % reboot_cases.MEMORY)}}
    stated = dict(folded(), reboot=dict(folded()["reboot"], state="recovered"))
    with pytest.raises(RecordError) as raised:
        verdict.decide(evidence(tmp_path, rollback=stated))
    assert str(raised.value) == (
        "rollback states rehearsed, but the reboot after its enable is not believed: it states 'recovered' (no problem), but its observations "
        "give came back (no problem): a reboot's state is recomputed from its observations, not stated")
