# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The record's reservation slack, from the workload's CPU use measured in the service windows (pure).

Public: `window_use`, `windows_slack`, `from_windows`, `check`, `SOURCE`.

The service comparison reads the workload's pods with placement_info at the start and at the end of
every measured window (`window_use` keeps, per pod, each container cgroup's two usage samples and
CPU set). The pod's own counter is never used: it already holds its containers' time, so adding it
would count the same time twice; container cgroups only. `windows_slack` computes, per side and
window, `slack.reservation_slack` of the containers' CPUs (whole physical cores per the facts' SMT
layout) from those samples, and per side the median use over its windows. Nothing here takes a
typed number: a sample is a counter read from a cgroup file (its ``source``), or it is refused. Each window keeps
its measured ``use`` (the `window_use`), so `check` gives the record the slack its own samples give, or refuses it.
"""

from __future__ import annotations

import json
import statistics

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import slack

SOURCE = ("measured: each container cgroup's CPU usage counter (cpu.stat usage_usec, cpuacct.usage on cgroup v1) at the start and the end "
          "of every measured service window; the pod cgroup's counter is not added (it holds its containers')")
_CGROUP_FILES = ("/cpu.stat:usage_usec", "/cpuacct.usage")


def _pods(reading, where):
    if not isinstance(reading, dict) or not isinstance(reading.get("pods"), list):
        raise nodefs.EvidenceError("%s is not a placement_info result (a mapping with pods): the CPU use was not read" % where, field=where)
    return {pod.get("uid"): pod for pod in reading["pods"] if isinstance(pod, dict)}


def _sample(sample, where):
    inputs.check_sample(sample, where)
    if not isinstance(sample.get("source"), str) or not sample["source"].endswith(_CGROUP_FILES):
        raise nodefs.EvidenceError("%s: source %r is not a cgroup's CPU usage file (cpu.stat usage_usec or cpuacct.usage): a usage sample is "
                                   "read from the node, never typed in" % (where, sample.get("source")), field=where)
    return sample


def window_use(first, second, pods):
    """{"cpus", "cgroups": [{"pod", "uid", "container", "cgroup", "cpus", "first", "second"}]} of one window.

    ``first``, ``second``: placement_info results at the window's start and end; ``pods``: the side's pods
    ({"pod": "<ns>/<name>", "uid"}). Each pod must have its cgroup at both ends with the same containers, each
    container its usage counter and the same CPU set at both ends: else there is no measured use, and it is refused.
    """
    at_start, at_end = _pods(first, "the reading at the window's start"), _pods(second, "the reading at the window's end")
    found, cpus = [], set()
    for subject in pods:
        name, uid = subject.get("pod"), subject.get("uid")
        start, end = at_start.get(uid) or {}, at_end.get(uid) or {}
        for pod, when in ((start, "start"), (end, "end")):
            if not pod.get("found"):
                raise nodefs.EvidenceError("pod %s (uid %s) has no cgroup on the node at the window's %s (placement_info found none): its CPU "
                                           "use is not measured" % (name, uid, when), uid=uid)
        before = {c["id"]: c for c in start.get("containers") or []}
        after = {c["id"]: c for c in end.get("containers") or []}
        if sorted(before) != sorted(after):
            raise nodefs.EvidenceError("pod %s: its container cgroups differ between the window's start (%s) and end (%s): a container "
                                       "restarted, its counter started again"
                                       % (name, ", ".join(sorted(before)) or "none", ", ".join(sorted(after)) or "none"), uid=uid)
        if not before:
            raise nodefs.EvidenceError("pod %s has no container cgroup: the pod's own counter is not used, so nothing measures its use" % name,
                                       uid=uid)
        for container_id in sorted(before):
            one, two = before[container_id], after[container_id]
            where = "pod %s container %s" % (name, container_id[:12])
            if one.get("cpus") != two.get("cpus"):
                raise nodefs.EvidenceError("%s: its CPUs changed inside the window (%s, then %s): one reservation per window"
                                           % (where, one.get("cpus"), two.get("cpus")), uid=uid)
            if not isinstance(one.get("cpus"), str):
                raise nodefs.EvidenceError("%s: its CPU set was not read (cpuset): the reservation is unknown" % where, uid=uid)
            found.append({"pod": name, "uid": uid, "container": container_id, "cgroup": one.get("cgroup"), "cpus": one["cpus"],
                          "first": _sample(one.get("usage"), where + " at the start"), "second": _sample(two.get("usage"), where + " at the end")})
            cpus.update(_cpulist.parse(one["cpus"]))
    if not found:
        raise nodefs.EvidenceError("no pod to measure: the side names no pods")
    return {"cpus": _cpulist.format(cpus), "cgroups": found}


def windows_slack(windows, topology):
    """{"source", "unit", "baseline", "canary", "comparison"} from [{"side", "repetition", "window", "cpu": `window_use`}].

    Per side: each window's slack (`slack.reservation_slack` of the containers' CPUs), then the side's reservation (the same in
    every window, else refused), its use min / median / max and its slack at the median use. ``comparison`` (`slack.compare`)
    when both sides were measured; a side not measured is null.
    """
    cores = slack.topology_cores(topology)
    sides = {}
    for item in windows:
        cpu = item["cpu"]
        one = slack.reservation_slack(cpu["cpus"], [(entry["first"], entry["second"]) for entry in cpu["cgroups"]], cores)
        walls = [slack.average_use(entry["first"], entry["second"])["wall_seconds"] for entry in cpu["cgroups"]]
        sides.setdefault(item["side"], []).append(dict(one, window=item["window"], repetition=item["repetition"],
                                                       cgroups=[entry["cgroup"] for entry in cpu["cgroups"]], wall_seconds=max(walls),
                                                       use=cpu))
    summary = {"source": SOURCE, "unit": slack.UNIT, "baseline": None, "canary": None, "comparison": None}
    for side, found in sides.items():
        reserved = sorted({entry["reserved_cpus"] for entry in found})
        if len(reserved) != 1:
            raise nodefs.EvidenceError("the %s's CPUs differ between its windows (%s): no one reservation to state a slack of"
                                       % (side, "; ".join(reserved)))
        used = [entry["used_cpu_equivalents"] for entry in found]
        median = statistics.median(used)
        first = found[0]
        summary[side] = {"reserved_cpus": first["reserved_cpus"], "reserved_physical_cores": first["reserved_physical_cores"],
                         "partial_cores": first["partial_cores"], "reserved_cpu_equivalents": first["reserved_cpu_equivalents"],
                         "used_cpu_equivalents": {"min": min(used), "median": median, "max": max(used)},
                         "slack_cpu_equivalents": round(first["reserved_cpu_equivalents"] - median, 6), "windows": found}
    if summary["baseline"] and summary["canary"]:
        summary["comparison"] = slack.compare(summary["baseline"], summary["canary"])
    return summary


def from_windows(done, topology):
    """`windows_slack` of the service comparison's windows run (each ``plan`` and ``cpu``, a `window_use`); null when none was measured."""
    if not isinstance(done, list):
        raise nodefs.EvidenceError("the windows run must be a list, got %s" % type(done).__name__)
    measured = [{"side": item["plan"]["side"], "repetition": item["plan"]["repetition"], "window": item["plan"]["window"], "cpu": item["cpu"]}
                for item in done if isinstance(item, dict) and isinstance(item.get("plan"), dict) and item.get("cpu")]
    return windows_slack(measured, topology) if measured else None


def _measured(value):
    """The windows run back from a slack ``value``: [{"side", "repetition", "window", "cpu": its ``use``}], each sample checked."""
    windows = []
    for side in ("baseline", "canary"):
        entry = value.get(side)
        if entry is None:
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("windows"), list) or not entry["windows"]:
            raise nodefs.EvidenceError("slack: the %s has no measured windows: a reservation slack is computed from the CPU use measured in "
                                       "the service windows, never typed in" % side, field="slack")
        for index, window in enumerate(entry["windows"]):
            use = window.get("use") if isinstance(window, dict) else None
            where = "slack: the %s's window %d" % (side, index)
            if not isinstance(use, dict) or not isinstance(use.get("cpus"), str) or not isinstance(use.get("cgroups"), list) or not use["cgroups"]:
                raise nodefs.EvidenceError("%s carries no measured use (the cgroups' usage samples at its start and end)" % where, field="slack")
            for cgroup in use["cgroups"]:
                if not isinstance(cgroup, dict):
                    raise nodefs.EvidenceError("%s: cgroup entry %r is not a mapping" % (where, cgroup), field="slack")
                _sample(cgroup.get("first"), "%s cgroup %s at the start" % (where, cgroup.get("cgroup")))
                _sample(cgroup.get("second"), "%s cgroup %s at the end" % (where, cgroup.get("cgroup")))
            windows.append({"side": side, "repetition": window.get("repetition"), "window": window.get("window"), "cpu": use})
    return windows


def check(value, topology):
    """The record's ``slack`` input as `windows_slack` gives it from its own windows' samples; None stays None.

    A slack with another ``source``, without measured windows, or whose numbers differ from what its samples give is refused
    (EvidenceError naming why): the record's slack is never a typed number.
    """
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("source") != SOURCE:
        raise nodefs.EvidenceError("slack %s is not the service comparison's measured slack (its source is %r): the record's reservation "
                                   "slack is computed from the CPU use measured in the service windows (service_comparison_slack), never "
                                   "typed in" % (json.dumps(value, sort_keys=True, default=str)[:200],
                                                 value.get("source") if isinstance(value, dict) else None), field="slack")
    windows = _measured(value)
    if not windows:
        raise nodefs.EvidenceError("slack names neither a measured baseline nor a measured canary", field="slack")
    # Both as JSON gives them (tuples as lists), so only the numbers and names are compared.
    again, given = json.loads(json.dumps(windows_slack(windows, topology))), json.loads(json.dumps(value))
    if again != given:
        differ = sorted(key for key in set(again) | set(given) if again.get(key) != given.get(key))
        raise nodefs.EvidenceError("slack: %s differ from what its own samples give: the record's reservation slack is computed from the "
                                   "measured CPU use, never typed in" % ", ".join(differ), field="slack")
    return again
