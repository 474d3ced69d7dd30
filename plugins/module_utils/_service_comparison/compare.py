# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Baseline against canary under the same load: comparability first, then the table and the objectives (pure).

Public: `compare`, `recompute`, `client_summary`, `metric_outcome`, `STATES`, `METRIC_STATES`.

``runs``: every window in the order it ran, each ``{"side": baseline | canary, "window"
(`service_window.scrape_window` or `service_query.query_window`), "identity" ({"images": {container:
image@digest}, "model", "runtime", ...}), "load" (the load generator's settings: request_rate,
max_concurrency, burstiness, dataset, ...), "warmup" (bool: excluded), "command" (recorded as given),
"client" (the load generator's own result, e.g. ``vllm bench serve --save-result`` JSON)}``.

The result (``state``: held, not held, incomparable) carries the refusals and warnings of
`service_checks`, then per latency metric and quantile each side's min / median / max over its
repetitions and what the difference may claim (`service_stats`), counts, bucket bounds and
durations, completed throughput, error ratio and request rate per side, the objectives checked
(`service_objectives`), and the client-side numbers kept apart (never mixed with the histograms).
Each latency metric of the table also carries its ``outcome`` (`metric_outcome`), what the record
shows beside its numbers: held, not held or incomparable by the objectives written for it, else no
measurable difference or "no objective" (a difference beyond the spread that no objective judges).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import checks
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import inputs as service_inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import objectives as objectives_
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import stats

STATES = ("held", "not held", "incomparable")
METRIC_STATES = ("held", "not held", "incomparable", stats.NO_DIFFERENCE, "no objective")
SIDES = ("baseline", "canary")
_CLIENT_PREFIXES = ("mean_", "median_", "std_", "p")
_CLIENT_KEYS = ("duration", "completed", "failed", "num_prompts", "request_rate", "burstiness", "max_concurrency", "request_throughput",
                "output_throughput", "total_token_throughput", "total_input_tokens", "total_output_tokens")


def client_summary(result):
    """The load generator's exact client-side numbers (``vllm bench serve --save-result``): counts, throughput, *_ms percentiles."""
    if not result:
        return None
    if not isinstance(result, dict):
        raise ServiceComparisonError("the load generator's result must be a mapping (vllm bench serve --save-result JSON), got %s" % type(result).__name__)
    kept = {key: result[key] for key in _CLIENT_KEYS if key in result}
    kept.update({key: value for key, value in result.items()
                 if key.endswith("_ms") and key.startswith(_CLIENT_PREFIXES) and isinstance(value, (int, float))})
    return dict(sorted(kept.items()))


def _settings(settings):
    settings = service_inputs.check_settings(settings)
    merged = dict(checks.DEFAULT_SETTINGS)
    unknown = sorted(set(settings or {}) - set(merged))
    if unknown:
        raise ServiceComparisonError("comparison settings have unknown keys %s (known: %s)" % (", ".join(unknown), ", ".join(sorted(merged))))
    merged.update(settings or {})
    return merged


def _number_runs(runs):
    numbered, counts, warmups = [], {side: 0 for side in SIDES}, 0
    for run in runs:
        if run.get("warmup"):
            warmups += 1
            continue
        counts[run["side"]] += 1
        numbered.append(dict(run, number=counts[run["side"]]))
    numbered.sort(key=lambda run: (SIDES.index(run["side"]), run["number"]))
    return numbered, warmups


def _side_values(runs, side, value):
    return stats.spread([value(run) for run in runs if run["side"] == side])


def _row(runs, value, unit=""):
    row = {side: _side_values(runs, side, value) for side in SIDES}
    row.update(stats.difference(row["baseline"], row["canary"], unit))
    return row


def _errors(run, reasons):
    requests = run["window"]["metrics"].get("requests") or {}
    if requests.get("type") != "counter":
        return None, None
    errors = sum(entry["increase"] for entry in requests["by"] if entry["labels"].get("finished_reason") in reasons)
    return errors, requests["total"]


def _latency(runs, settings):
    table = {}
    for key in checks.LATENCY_KEYS:
        entries = [run["window"]["metrics"].get(key) or {} for run in runs]
        if not entries or any(entry.get("type") != "histogram" for entry in entries):
            continue
        per_run = {id(run): stats.window_quantiles(run["window"]["metrics"][key], settings["quantiles"]) for run in runs}
        table[key] = {
            "name": entries[0].get("name") or key, "buckets": [bucket[0] for bucket in entries[0]["buckets"]],
            "observations": {side: [run["window"]["metrics"][key]["count"] for run in runs if run["side"] == side] for side in SIDES},
            "quantiles": {label: _row(runs, lambda run, label=label, per_run=per_run: per_run[id(run)][label], " s")
                          for label in (stats.quantile_label(q) for q in settings["quantiles"])},
            "cumulative": {side: [run["window"]["metrics"][key]["buckets"] for run in runs if run["side"] == side] for side in SIDES},
        }
    return table


def _table(runs, settings):
    reasons = settings["error_reasons"]

    def throughput(run):
        errors, total = _errors(run, reasons)
        return None if total is None else (total - errors) / run["window"]["duration"]

    def error_ratio(run):
        errors, total = _errors(run, reasons)
        return None if not total else errors / total

    return {"latency": _latency(runs, settings), "throughput": _row(runs, throughput, " req/s"), "error_ratio": _row(runs, error_ratio),
            "request_rate": _row(runs, checks.request_rate, " req/s"),
            "duration": {side: [run["window"]["duration"] for run in runs if run["side"] == side] for side in SIDES},
            "prefix_cache_hit_ratio": {side: checks.hit_ratio(runs, side) for side in SIDES}}


def _difference(quantiles):
    """One line on what the quantiles' differences may claim (`service_stats.difference` per quantile, said once)."""
    unknown = ["%s: %s" % (label, row["finding"]) for label, row in quantiles.items() if row["beyond_spread"] is None]
    if unknown:
        return None, unknown
    beyond = ["%s: %s" % (label, row["finding"]) for label, row in quantiles.items() if row["beyond_spread"] != 0]
    if beyond:
        return False, beyond
    return True, ["%s at %s: every quantile's ranges overlap" % (stats.NO_DIFFERENCE, ", ".join(quantiles) or "no quantile")]


def metric_outcome(key, entry, objectives, checked):
    """{"state" (one of `METRIC_STATES`), "reasons"} of one latency metric of the table.

    By the objectives on ``key`` (``objectives`` and their ``checked`` results, in the same order):
    incomparable when one was not measured, not held when one failed, else held; without an
    objective on it, no measurable difference when every quantile's ranges overlap, "no objective"
    when some do not (the difference is shown, never judged), incomparable when a repetition has
    no value. The reasons end with what the differences may claim.
    """
    mine = [result for objective, result in zip(objectives, checked) if objective["metric"] == key]
    none_differ, said = _difference(entry["quantiles"])
    lines = ["%s: %s" % (result["objective"], result["detail"]) for result in mine]
    if any(result["held"] is None for result in mine):
        state = "incomparable"
        lines = [result["detail"] for result in mine if result["held"] is None]
    elif any(result["held"] is False for result in mine):
        state = "not held"
        lines = ["%s: %s" % (result["objective"], result["detail"]) for result in mine if result["held"] is False]
    elif mine:
        state = "held"
    elif none_differ is None:
        state = "incomparable"
    else:
        state = stats.NO_DIFFERENCE if none_differ else "no objective"
        lines = ["no objective was written for %s" % (entry.get("name") or key)]
    return {"state": state, "reasons": lines + said}


def compare(runs, objectives, settings=None):
    """{"state", "reasons", "refusals", "warnings", "repetitions", "warmups_excluded", "table", "objectives", "runs", "observations"}.

    ``observations``: the windows, objectives and settings as given, so whoever reads the result (the record's verdict)
    computes its state again rather than taking it as stated.
    """
    observations = {"runs": runs, "objectives": objectives, "settings": settings}
    settings = _settings(settings)
    objectives = [objectives_.validate(objective, index) for index, objective in enumerate(service_inputs.check_objectives(objectives))]
    measured, warmups = _number_runs(service_inputs.check_runs(runs))
    found = checks.comparability(measured, settings)
    result = {"refusals": found["refusals"], "warnings": found["warnings"], "warmups_excluded": warmups, "observations": observations,
              "repetitions": {side: sum(1 for run in measured if run["side"] == side) for side in SIDES},
              "runs": [{"side": run["side"], "number": run["number"], "start": run["window"]["start"], "end": run["window"]["end"],
                        "source": run["window"].get("source"), "load": run.get("load"), "identity": run.get("identity"),
                        "command": run.get("command"), "client": client_summary(run.get("client"))} for run in measured]}
    if found["refusals"]:
        return dict(result, state="incomparable", reasons=list(found["refusals"]), table=None, objectives=[])
    table = _table(measured, settings)
    checked = [objectives_.check_objective(objective, table) for objective in objectives]
    for key, entry in table["latency"].items():
        entry["outcome"] = metric_outcome(key, entry, objectives, checked)
    if not checked:
        return dict(result, state="incomparable", table=table, objectives=[],
                    reasons=["no service objectives were written: a comparison without objectives holds nothing"])
    unmeasured = [entry["detail"] for entry in checked if entry["held"] is None]
    failed = ["%s: %s" % (entry["objective"], entry["detail"]) for entry in checked if entry["held"] is False]
    if unmeasured:
        state, reasons = "incomparable", unmeasured
    elif failed:
        state, reasons = "not held", failed
    else:
        state, reasons = "held", ["%s: %s" % (entry["objective"], entry["detail"]) for entry in checked]
    return dict(result, state=state, reasons=reasons, table=table, objectives=checked)


def recompute(result):
    """``result`` (a comparison stated held) when its own ``observations`` give it again; else ServiceComparisonError naming why.

    A comparison handed over as a value (``{state: held}``) adopts nothing by itself: its windows and objectives are compared
    again and the state and reasons must be the ones it states.
    """
    observations = result.get("observations")
    absent = [key for key in ("runs", "objectives") if not isinstance(observations, dict) or not observations.get(key)]
    if absent:
        raise ServiceComparisonError("states held, but carries no %s (observations.%s): a comparison's state is recomputed from its "
                                     "windows and objectives, never taken as stated" % (" or ".join(absent), ", observations.".join(absent)))
    try:
        again = compare(observations["runs"], observations["objectives"], observations.get("settings"))
    except ServiceComparisonError as exc:
        raise ServiceComparisonError("states held, but its observations are no comparison: %s" % exc)
    if (again["state"], again["reasons"]) != (result.get("state"), result.get("reasons")):
        raise ServiceComparisonError("states %s (%s), but its windows and objectives give %s (%s): a comparison's state is recomputed "
                                     "from its observations" % (result.get("state"), "; ".join(result.get("reasons") or []) or "no reasons",
                                                                again["state"], "; ".join(again["reasons"])))
    return result
