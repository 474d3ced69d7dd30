# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The load runs of a service comparison: the interleaved plan, the commands it renders, and the run record (pure).

Public: `plan`, `render`, `job_manifest`, `comparison_runs`, `record`, `compare`, `SIDES`, `PHASES`, `PLACEHOLDERS`.

The plan is one entry per window, sides interleaved (baseline 1, canary 1, baseline 2, ...), so drift
between runs cancels. Each window has an optional warmup (its requests land before the measured part's
first scrape, so they are never in the window) and the measured run; each run's argv (or Job manifest)
is the operator's template with its placeholders filled in: ``{target_url}``, ``{side}``,
``{repetition}``, ``{window}``, ``{phase}`` (warmup or measure), ``{result_file}``, and every key of the
offered-load settings (``{request_rate}``, ...), so the command that ran shows the settings recorded.
A placeholder that is none of these is refused (a typo would otherwise run a different load).

The record joins each window's runs (the action ``service_load``) and reads (``service_window``) into
the comparison's runs (`service_compare.compare`) and the record of what ran: per window the exact
argv or manifest, the start and end of the measured part, the load generator's own start and end,
the offered-load settings and the exit status, the warmup's the same way.
"""

from __future__ import annotations

import copy
import math
import numbers
import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import urls

SIDES = ("baseline", "canary")
PHASES = ("warmup", "measure")
PLACEHOLDERS = ("target_url", "side", "repetition", "window", "phase", "result_file")
MIN_REPETITIONS = 3
MAX_REPETITIONS = 1000  # 2000 windows: each a load run of its own, hours apiece; a plan past it is a typo, not a comparison
JOB_LABEL = "numa-gate/"
_TOKEN = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LOAD_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_E = ServiceComparisonError


def _number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isnan(value) and not math.isinf(value)


def _argv(value, name):
    if value in (None, []):
        return None
    if not isinstance(value, list) or not all(isinstance(arg, str) for arg in value):
        raise _E("%s must be a list of strings (an argv, run without a shell), got %r" % (name, value))
    return value


def _side(settings, side):
    given = settings.get(side)
    where = "service_comparison_%s" % side
    if not isinstance(given, dict):
        raise _E("%s must be a mapping (target_url, metrics_url, metrics_port with pods or prometheus_url, identity), got %r" % (where, given))
    if not isinstance(given.get("target_url"), str) or not given["target_url"]:
        raise _E("%s.target_url must be the URL the load generator drives (a string), got %r" % (where, given.get("target_url")))
    # The pods' metrics port (metrics_port with pods) reads the workload's own pods through the API's pod proxy.
    reads = [key for key in ("metrics_url", "prometheus_url", "metrics_port") if given.get(key)]
    if len(reads) != 1:
        raise _E("%s needs exactly one of metrics_url (two scrapes of the service), metrics_port (with pods: two reads of the workload's "
                 "pods through the API's pod proxy) and prometheus_url (a query), got %s" % (where, ", ".join(sorted(reads)) or "neither"))
    if given.get("metrics_port") and not given.get("pods"):
        raise _E("%s.metrics_port needs pods (the workload's pods, {pod: <namespace>/<name>, uid}): the pod proxy reads pods, not a URL"
                 % where)
    if given.get("prometheus_url") and given.get("pods"):
        given = dict(given, match=_pod_match(given, where))
    return given


def _pod_match(given, where):
    """The side's ``match`` with its pods' labels (``pod_labels``: label names for the namespace and the pod, by default the
    Prometheus Operator's ``namespace`` and ``pod`` target labels): Prometheus is queried for those pods' series only, one pod by
    equality, several by a list (any of them)."""
    pods = given["pods"]
    if not isinstance(pods, list) or not pods or not all(isinstance(p, dict) and isinstance(p.get("pod"), str) and p["pod"].count("/") == 1
                                                         for p in pods):
        raise _E("%s: prometheus_url with pods reads the pods ({pod: <namespace>/<name>, uid} each) by their labels, got %r" % (where, pods))
    labels = given.get("pod_labels") or {}
    if not isinstance(labels, dict) or not set(labels) <= {"namespace", "pod"} or not all(isinstance(v, str) and v for v in labels.values()):
        raise _E("%s.pod_labels must map namespace and/or pod to label names, got %r" % (where, labels))
    names = dict({"namespace": "namespace", "pod": "pod"}, **labels)
    namespaces = sorted(set(p["pod"].split("/")[0] for p in pods))
    pod_names = sorted(set(p["pod"].split("/")[1] for p in pods))
    match = dict(given.get("match") or {})
    for key, values in ((names["namespace"], namespaces), (names["pod"], pod_names)):
        value = values[0] if len(values) == 1 else values
        if key in match and match[key] != value and str(match[key]) != value:
            raise _E("%s.match %s=%r is not the pods' %r: the query would read other pods' series" % (where, key, match[key], value))
        match[key] = value
    return match


def _check(settings):
    if not isinstance(settings, dict):
        raise _E("the load settings must be a mapping, got %s" % type(settings).__name__)
    repetitions = settings.get("repetitions")
    if not isinstance(repetitions, int) or isinstance(repetitions, bool) or repetitions < MIN_REPETITIONS:
        raise _E("service_comparison_repetitions must be a whole number of at least %d (repetitions per side, interleaved A B A B), got %r"
                 % (MIN_REPETITIONS, repetitions))
    if repetitions > MAX_REPETITIONS:
        raise _E("service_comparison_repetitions %d is above the limit of %d (each repetition is two load runs, one per side); not planned"
                 % (repetitions, MAX_REPETITIONS))
    command = _argv(settings.get("command"), "service_comparison_command")
    job = settings.get("job") or None
    if bool(command) == bool(job):
        raise _E("give exactly one load generator: service_comparison_command (an argv run on the controller) or service_comparison_job "
                 "(a Job manifest created through the API), got %s" % ("both" if command else "neither"))
    if job is not None and not isinstance(job, dict):
        raise _E("service_comparison_job must be a Job manifest (a mapping), got %s" % type(job).__name__)
    warmup_command = _argv(settings.get("warmup_command"), "service_comparison_warmup_command")
    warmup_job = settings.get("warmup_job") or None
    if (warmup_command and job) or (warmup_job and command):
        raise _E("the warmup runs the same kind of load generator as the measured part: service_comparison_warmup_command goes with "
                 "service_comparison_command, service_comparison_warmup_job with service_comparison_job")
    seconds = settings.get("warmup_seconds") or 0
    if not _number(seconds) or seconds < 0:
        raise _E("service_comparison_warmup_seconds must be a finite number of 0 or more, got %r" % (seconds,))
    load = settings.get("load") or {}
    if not isinstance(load, dict):
        raise _E("service_comparison_load must be a mapping of the offered-load settings, got %s" % type(load).__name__)
    for key in load:
        if not isinstance(key, str) or not _LOAD_KEY.match(key) or key in PLACEHOLDERS:
            raise _E("service_comparison_load key %r cannot be a placeholder: keys are names of letters, digits and '_', none of %s"
                     % (key, ", ".join(PLACEHOLDERS)))
    if not isinstance(settings.get("result_dir"), str) or not settings["result_dir"]:
        raise _E("the result folder must be a path, got %r" % (settings.get("result_dir"),))
    return {"repetitions": repetitions, "command": command, "job": job, "warmup_command": warmup_command, "warmup_job": warmup_job,
            "warmup_seconds": float(seconds), "load": load, "result_dir": settings["result_dir"].rstrip("/") or "/",
            "sides": {side: _side(settings, side) for side in SIDES}}


def _value(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 2 ** 53 else repr(value)
    return str(value)


def render(text, values, where):
    """``text`` with each ``{name}`` replaced by ``values[name]``; a name that is no placeholder refused with ``where``."""
    def replace(match):
        name = match.group(1)
        if name not in values:
            raise _E("%s names {%s}, which is no placeholder (known: %s)" % (where, name, ", ".join("{%s}" % key for key in values)))
        return _value(values[name])
    return _TOKEN.sub(replace, text)


def _render_tree(value, values, where):
    if isinstance(value, str):
        return render(value, values, where)
    if isinstance(value, list):
        return [_render_tree(item, values, "%s[%d]" % (where, index)) for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: _render_tree(item, values, "%s.%s" % (where, key)) for key, item in value.items()}
    return value


def job_manifest(template, values, where):
    """The Job to create for one run: ``template`` rendered, named ``<name>-<side>-<repetition>[-warmup]``, labelled with the run."""
    if template.get("apiVersion") != "batch/v1" or template.get("kind") != "Job":
        raise _E("%s must be a batch/v1 Job, got apiVersion %r kind %r" % (where, template.get("apiVersion"), template.get("kind")))
    manifest = _render_tree(copy.deepcopy(template), values, where)
    metadata = manifest.setdefault("metadata", {})
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str) or not metadata["name"]:
        raise _E("%s.metadata.name must be the Job's name (each run's Job is named after it), got %r"
                 % (where, metadata.get("name") if isinstance(metadata, dict) else metadata))
    suffix = "-%s-%s%s" % (values["side"], values["repetition"], "-warmup" if values["phase"] == "warmup" else "")
    name = metadata["name"] + suffix
    if len(name) > 63 or not _DNS_LABEL.match(name):
        raise _E("%s.metadata.name %r gives the Job name %r: a Job's name must be a DNS label (lower case letters, digits and '-', "
                 "at most 63 characters)" % (where, metadata["name"], name))
    metadata["name"] = name
    metadata.setdefault("namespace", "default")
    labels = metadata.setdefault("labels", {})
    if not isinstance(labels, dict):
        raise _E("%s.metadata.labels must be a mapping, got %r" % (where, labels))
    labels.update({JOB_LABEL + "side": values["side"], JOB_LABEL + "repetition": str(values["repetition"]), JOB_LABEL + "phase": values["phase"]})
    return manifest


def _run(checked, entry, phase, values):
    command = checked["warmup_command"] or checked["command"] if phase == "warmup" else checked["command"]
    job = checked["warmup_job"] or checked["job"] if phase == "warmup" else checked["job"]
    result_file = "%s/%02d-%s-%d-%s.json" % (checked["result_dir"], entry["window"], entry["side"], entry["repetition"], phase)
    values = dict(values, phase=phase, result_file=result_file)
    name = "service_comparison_%s%s" % ("warmup_" if phase == "warmup" and (checked["warmup_command"] or checked["warmup_job"]) else "",
                                        "command" if command else "job")
    run = {"phase": phase, "result_file": values["result_file"],
           "stop_after": checked["warmup_seconds"] if phase == "warmup" and checked["warmup_seconds"] else None}
    if command:
        run["argv"] = [render(arg, values, "%s[%d]" % (name, index)) for index, arg in enumerate(command)]
    else:
        run["job"] = job_manifest(job, values, name)
    return run


def plan(settings):
    """One entry per window in the order they run: {window, side, repetition, target_url, read, identity, load, warmup, measure}.

    ``settings``: {repetitions, command | job, warmup_command | warmup_job, warmup_seconds, load, result_dir, baseline, canary}
    (each side {target_url, metrics_url | prometheus_url, match, identity}). ``warmup`` is None without a warmup.
    """
    checked = _check(settings)
    warm = bool(checked["warmup_command"] or checked["warmup_job"] or checked["warmup_seconds"])
    entries = []
    for index in range(checked["repetitions"] * len(SIDES)):
        side = SIDES[index % len(SIDES)]
        given = checked["sides"][side]
        entry = {"window": index + 1, "side": side, "repetition": index // len(SIDES) + 1, "target_url": urls.mask_url(given["target_url"]),
                 "read": {key: given[key] for key in ("metrics_url", "prometheus_url", "match") if given.get(key)},
                 "identity": given.get("identity"), "load": checked["load"]}
        if entry["read"].get("metrics_url"):
            entry["read"]["metrics_url"] = urls.mask_url(entry["read"]["metrics_url"])
        if entry["read"].get("prometheus_url"):
            entry["read"]["prometheus_url"] = urls.mask_url(entry["read"]["prometheus_url"])
        values = dict(checked["load"], target_url=given["target_url"], side=side, repetition=entry["repetition"], window=entry["window"])
        entry["warmup"] = _run(checked, entry, "warmup", values) if warm else None
        entry["measure"] = _run(checked, entry, "measure", values)
        entries.append(entry)
    return entries


def _masked(run):
    """What ran, for the record: the argv (or the Job manifest) with any URL's userinfo masked."""
    if "argv" in run:
        return {"argv": [urls.mask_url(arg) for arg in run["argv"]]}
    return {"manifest": _mask_tree(run["job"])}


def _mask_tree(value):
    if isinstance(value, str):
        return urls.mask_url(value)
    if isinstance(value, list):
        return [_mask_tree(item) for item in value]
    if isinstance(value, dict):
        return {key: _mask_tree(item) for key, item in value.items()}
    return value


def _done(done):
    if not isinstance(done, list):
        raise _E("the windows run must be a list, got %s" % type(done).__name__)
    for index, item in enumerate(done):
        if not isinstance(item, dict) or not isinstance(item.get("plan"), dict) or not isinstance(item.get("load"), dict) \
                or not isinstance(item.get("window"), dict):
            raise _E("windows[%d] must be a mapping with plan, load (service_load's result) and window (service_window's), got %s"
                     % (index, sorted(item) if isinstance(item, dict) else type(item).__name__))
        if bool(item["plan"].get("warmup")) and not isinstance(item.get("warmup_window"), dict):
            raise _E("windows[%d] planned a warmup but has no warmup_window (service_window's window of the warmup)" % index)
    return done


def comparison_runs(done):
    """The runs `service_compare.compare` reads, in the order they ran: each window's warmup (``warmup: true``), then its measured run."""
    runs = []
    for item in _done(done):
        entry = item["plan"]
        common = {"side": entry["side"], "identity": entry.get("identity"), "load": entry.get("load")}
        if entry.get("warmup"):
            runs.append(dict(common, warmup=True, window=item["warmup_window"], command=_what(entry["warmup"])))
        runs.append(dict(common, warmup=False, window=item["window"], command=_what(entry["measure"]), client=item["load"].get("client")))
    return runs


def _what(run):
    masked = _masked(run)
    return masked.get("argv", masked.get("manifest"))


def _ran(run, load, window):
    ran = dict(_masked(run))
    ran.update({"load_start": load.get("start"), "load_end": load.get("end"), "exit_status": load.get("exit_status"),
                "outcome": load.get("outcome"), "stopped": bool(load.get("stopped")), "result_file": load.get("result_file")})
    if window is not None:
        ran.update(start=window.get("start"), end=window.get("end"))
    return ran


def record(done, comparison):
    """``comparison`` (`service_compare.compare`'s result) with ``runs``: per window in the order it ran, what ran and when.

    Each: window, side, repetition, number, target_url, argv or manifest, start and end (the measured part: the window's first and
    last read), load_start, load_end, exit_status, outcome, stopped, result_file, load, source, identity, client (the load
    generator's result, kept apart), pods (the workload's pods read through the pod proxy, or None), cpu (each container cgroup's
    usage samples at the window's start and end, or None), warmup (the same for the warmup, or None).
    """
    measured = {(run["side"], run["number"]): run for run in comparison.get("runs") or []}
    counts, runs = {side: 0 for side in SIDES}, []
    for item in _done(done):
        entry = item["plan"]
        counts[entry["side"]] += 1
        kept = measured.get((entry["side"], counts[entry["side"]]), {})
        run = {"window": entry["window"], "side": entry["side"], "repetition": entry["repetition"], "number": counts[entry["side"]],
               "target_url": entry.get("target_url"), "load": entry.get("load"), "identity": entry.get("identity"),
               "source": item["window"].get("source"), "client": kept.get("client"), "pods": item["window"].get("pods"), "cpu": item.get("cpu")}
        run.update(_ran(entry["measure"], item["load"], item["window"]))
        run["warmup"] = _ran(entry["warmup"], item.get("warmup_load") or {}, item.get("warmup_window")) if entry.get("warmup") else None
        runs.append(run)
    return dict(comparison, runs=runs)


def compare(done, objectives, settings=None):
    """The windows run, compared (`service_compare.compare` over `comparison_runs`), with the `record` of what ran as ``runs``."""
    return record(done, service_compare.compare(comparison_runs(done), objectives, settings))
