"""Reservation slack from the CPU use measured in the service windows (_record/service_slack.py): per window from the container
cgroups' samples (never the pod's counter), per side the median, SMT cores counted whole, and each refusal with its exact message.

The readings have placement_info's shape (tests/roles/test_service_comparison_pods.py reads real cgroups on this machine)."""

import copy

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import service_slack
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import slack

SECOND = 10 ** 9
UID = "0f0e0d0c-0b0a-4908-8706-050403020100"
POD = {"pod": "serving/canary-0", "uid": UID}
MAIN, SIDECAR = "a" * 64, "b" * 64
SMT = {"cores": [{"cpus": "%d,%d" % (core, core + 4)} for core in range(4)]}


def _container(container_id, cpus, usage_s, at_s):
    cgroup = "/kubepods/pod%s/%s" % (UID, container_id)
    return {"id": container_id, "runtime": None, "cgroup": cgroup, "cpus": cpus,
            "usage": {"usage_ns": int(usage_s * SECOND), "source": "/sys/fs/cgroup/cpuacct%s/cpuacct.usage" % cgroup,
                      "monotonic_ns": int(at_s * SECOND), "wall_time": 1000.0 + at_s}}


def reading(at_s, main_s, sidecar_s, pod_s=999.0):
    """A placement_info result at ``at_s``: the pod (its own counter ``pod_s``, never used) with a main container on CPUs 1,5 (one core)
    and a sidecar on CPU 2 (half a core)."""
    return {"cgroup": {"version": 1}, "processes": [],
            "pods": [{"uid": UID, "found": True, "cgroup": "/kubepods/pod%s" % UID, "cpus": "1-2,5",
                      "usage": {"usage_ns": int(pod_s * SECOND), "source": "/sys/fs/cgroup/cpuacct/kubepods/pod%s/cpuacct.usage" % UID,
                                "monotonic_ns": int(at_s * SECOND), "wall_time": 0.0},
                      "containers": [_container(MAIN, "1,5", main_s, at_s), _container(SIDECAR, "2", sidecar_s, at_s)]}]}


def test_one_window_counts_the_containers_never_the_pod():
    use = service_slack.window_use(reading(100, 10, 1), reading(160, 40, 7, pod_s=5000.0), [POD])
    assert use["cpus"] == "1-2,5"
    assert [(entry["container"], entry["cpus"], entry["first"]["usage_ns"], entry["second"]["usage_ns"]) for entry in use["cgroups"]] == [
        (MAIN, "1,5", 10 * SECOND, 40 * SECOND), (SIDECAR, "2", 1 * SECOND, 7 * SECOND)]
    assert [entry["cgroup"] for entry in use["cgroups"]] == ["/kubepods/pod%s/%s" % (UID, MAIN), "/kubepods/pod%s/%s" % (UID, SIDECAR)]


def test_slack_per_side_from_three_windows_smt_cores_whole():
    windows = []
    # canary use per window: (30 + 6) / 60 = 0.6, (60 + 0) / 60 = 1.0, (12 + 12) / 60 = 0.4
    for number, (main, side) in enumerate(((30, 6), (60, 0), (12, 12)), start=1):
        windows.append({"side": "canary", "repetition": number, "window": 2 * number,
                        "cpu": service_slack.window_use(reading(100, 10, 1), reading(160, 10 + main, 1 + side), [POD])})
    found = service_slack.windows_slack(windows, SMT)
    canary = found["canary"]
    # CPUs 1,5 and 2 touch cores 1 (1,5) and 2 (2,6): 2 physical cores, 4 CPU-equivalents, core 2,6 partly reserved.
    assert (canary["reserved_cpus"], canary["reserved_physical_cores"], canary["partial_cores"], canary["reserved_cpu_equivalents"]) == (
        "1-2,5", 2, ["2,6"], 4)
    assert canary["used_cpu_equivalents"] == {"min": 0.4, "median": 0.6, "max": 1.0}
    assert canary["slack_cpu_equivalents"] == 3.4
    assert [(w["window"], w["used_cpu_equivalents"], w["slack_cpu_equivalents"], w["wall_seconds"]) for w in canary["windows"]] == [
        (2, 0.6, 3.4, 60.0), (4, 1.0, 3.0, 60.0), (6, 0.4, 3.6, 60.0)]
    assert (found["baseline"], found["comparison"], found["unit"], found["source"]) == (None, None, slack.UNIT, service_slack.SOURCE)


def test_both_sides_are_compared():
    one = service_slack.window_use(reading(100, 10, 1), reading(160, 40, 7), [POD])
    found = service_slack.windows_slack([{"side": "baseline", "repetition": 1, "window": 1, "cpu": one},
                                         {"side": "canary", "repetition": 1, "window": 2, "cpu": one}], SMT)
    assert found["comparison"] == {"baseline_slack": 3.4, "candidate_slack": 3.4, "reduction_physical_cores": 0,
                                   "reduction_cpu_equivalents": 0, "unit": slack.UNIT}


def test_from_windows_takes_the_measured_windows_and_is_null_without():
    one = service_slack.window_use(reading(100, 10, 1), reading(160, 40, 7), [POD])
    done = [{"plan": {"side": "canary", "repetition": 1, "window": 2}, "cpu": one},
            {"plan": {"side": "baseline", "repetition": 1, "window": 1}, "cpu": None}]
    assert service_slack.from_windows(done, SMT)["canary"]["used_cpu_equivalents"] == {"min": 0.6, "median": 0.6, "max": 0.6}
    assert service_slack.from_windows([dict(done[1])], SMT) is None


def _changed(change):
    end = reading(160, 40, 7)
    change(end)
    return end


@pytest.mark.parametrize("end, message", [
    (_changed(lambda r: r["pods"][0].update(found=False)),
     "pod serving/canary-0 (uid %s) has no cgroup on the node at the window's end (placement_info found none): its CPU use is not measured" % UID),
    (_changed(lambda r: r["pods"][0]["containers"].pop()),
     "pod serving/canary-0: its container cgroups differ between the window's start (%s, %s) and end (%s): a container restarted, its counter "
     "started again" % (MAIN, SIDECAR, MAIN)),
    (_changed(lambda r: r["pods"][0]["containers"][0].update(cpus="1")),
     "pod serving/canary-0 container aaaaaaaaaaaa: its CPUs changed inside the window (1,5, then 1): one reservation per window"),
    (_changed(lambda r: r["pods"][0]["containers"][1].update(usage=None)),
     "pod serving/canary-0 container bbbbbbbbbbbb at the end is null: the cgroup's usage counter was not read (placement_info usage), so there "
     "is no sample"),
    (_changed(lambda r: r["pods"][0]["containers"][0]["usage"].update(source="typed")),
     "pod serving/canary-0 container aaaaaaaaaaaa at the end: source 'typed' is not a cgroup's CPU usage file (cpu.stat usage_usec or "
     "cpuacct.usage): a usage sample is read from the node, never typed in"),
    ({"used": 0.4}, "the reading at the window's end is not a placement_info result (a mapping with pods): the CPU use was not read"),
])
def test_what_is_not_a_measured_window_is_refused(end, message):
    with pytest.raises(nodefs.EvidenceError) as caught:
        service_slack.window_use(reading(100, 10, 1), end, [POD])
    assert str(caught.value) == message


def test_a_counter_that_went_down_and_a_reservation_that_moved_are_refused():
    down = service_slack.window_use(reading(100, 10, 1), reading(160, 5, 7), [POD])
    with pytest.raises(nodefs.EvidenceError, match="CPU usage counter went down from 10000000000 to 5000000000 ns"):
        service_slack.windows_slack([{"side": "canary", "repetition": 1, "window": 2, "cpu": down}], SMT)
    one = service_slack.window_use(reading(100, 10, 1), reading(160, 40, 7), [POD])
    moved = copy.deepcopy(one)
    moved["cpus"] = "1,5"
    moved["cgroups"] = moved["cgroups"][:1]
    with pytest.raises(nodefs.EvidenceError) as caught:
        service_slack.windows_slack([{"side": "canary", "repetition": 1, "window": 2, "cpu": one},
                                     {"side": "canary", "repetition": 2, "window": 4, "cpu": moved}], SMT)
    assert str(caught.value) == "the canary's CPUs differ between its windows (1,5; 1-2,5): no one reservation to state a slack of"


def measured():
    use = service_slack.window_use(reading(100, 10, 1), reading(160, 40, 7), [POD])
    return service_slack.windows_slack([{"side": side, "repetition": 0, "window": 0, "cpu": copy.deepcopy(use)} for side in ("baseline", "canary")],
                                       SMT)


def test_the_record_takes_a_measured_slack_as_its_samples_give_it():
    value = measured()
    assert service_slack.check(copy.deepcopy(value), SMT) == value
    assert service_slack.check(None, SMT) is None


@pytest.mark.parametrize("typed, message", [
    ({"baseline_slack": 1.6, "candidate_slack": 0.6, "reduction_physical_cores": 1},
     'slack {"baseline_slack": 1.6, "candidate_slack": 0.6, "reduction_physical_cores": 1} is not the service comparison\'s measured slack '
     "(its source is None): the record's reservation slack is computed from the CPU use measured in the service windows "
     "(service_comparison_slack), never typed in"),
    ("1.6", "slack \"1.6\" is not the service comparison's measured slack (its source is None): the record's reservation slack is computed "
            "from the CPU use measured in the service windows (service_comparison_slack), never typed in"),
])
def test_a_typed_slack_is_refused(typed, message):
    with pytest.raises(nodefs.EvidenceError) as raised:
        service_slack.check(typed, SMT)
    assert str(raised.value) == message


def test_a_slack_whose_numbers_differ_from_its_samples_is_refused():
    value = measured()
    value["canary"]["slack_cpu_equivalents"] = 3.9
    with pytest.raises(nodefs.EvidenceError) as raised:
        service_slack.check(value, SMT)
    assert str(raised.value) == ("slack: canary differ from what its own samples give: the record's reservation slack is computed from "
                                 "the measured CPU use, never typed in")


def test_a_window_without_its_samples_or_with_a_typed_sample_is_refused():
    value = measured()
    del value["baseline"]["windows"][0]["use"]
    with pytest.raises(nodefs.EvidenceError) as raised:
        service_slack.check(value, SMT)
    assert str(raised.value) == "slack: the baseline's window 0 carries no measured use (the cgroups' usage samples at its start and end)"
    value = measured()
    value["canary"]["windows"][0]["use"]["cgroups"][0]["first"]["source"] = "typed"
    with pytest.raises(nodefs.EvidenceError) as raised:
        service_slack.check(value, SMT)
    assert str(raised.value).startswith("slack: the canary's window 0 cgroup /kubepods/pod%s/%s at the start: source 'typed' is not a "
                                        "cgroup's CPU usage file" % (UID, MAIN))
