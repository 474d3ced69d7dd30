# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service comparison in the record: a summary, a table per latency metric, the runs, as plain rows (pure).

Public: `service`, `sections`, `metric_title`, `number`, `SUMMARY_TITLE`, `RUNS_TITLE`.

Everything shown is read from the ``service_comparison`` filter's result as the record holds it
(``attestations.service_objectives``); nothing is recomputed, so the page cannot disagree with the
comparison. Numbers are printed with ``%.6g``, the format of the comparison's own findings, so a
range in a finding ("the ranges 0.75-0.85 ...") is the min and max shown beside it. A result the
verdict accepted but that lacks the table (trimmed to state, reasons and repetitions) shows its
summary only; a table of the wrong shape is an ``error`` naming the path (`ServiceComparisonError`
unless the caller names its own: the record's pages pass their `RecordError`).
"""

from __future__ import annotations

import math

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.quantile import parse_le
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError

SIDES = ("baseline", "canary")
SUMMARY_TITLE = "Service comparison"
RUNS_TITLE = "Service runs"
_N = S.Nullable(S.NUMBER)
LE = S.Leaf("a bucket upper bound (a number as a string, or \"+Inf\")",
            lambda v: isinstance(v, str) and parse_le(v) is not None and not math.isnan(parse_le(v)))


class _Bucket(object):
    """One cumulative bucket of a window: [upper bound (a string, "+Inf" too), count]."""

    what = "a bucket [le, count]"

    def check(self, value, where, error):
        if not isinstance(value, (list, tuple)) or len(value) != 2 or not LE.test(value[0]) or not S.NUMBER.test(value[1]):
            raise error("%s must be a bucket [le (a string such as \"0.5\" or \"+Inf\"), count (a number)], got %r" % (where, value), field=where)
        return list(value)


def _per_side(spec, what):
    return S.Fields(what, {side: spec for side in SIDES})


SPREAD = S.Fields("one side's spread (min, median, max)", {"min": _N, "median": _N, "max": _N}, {"values": S.ListOf(_N)})
ROW = S.Fields("a row of the comparison (both sides' spreads and the finding)", {"baseline": SPREAD, "canary": SPREAD, "finding": S.STR},
               {"median_difference": _N, "beyond_spread": _N})
OUTCOME = S.Fields("a metric's outcome", {"state": S.STR, "reasons": S.ListOf(S.STR)})
METRIC = S.Fields("a latency metric of the comparison's table", {
    "buckets": S.ListOf(LE), "quantiles": S.MapOf(ROW), "observations": _per_side(S.ListOf(S.NUMBER), "observations per side"),
    "cumulative": _per_side(S.ListOf(S.ListOf(_Bucket())), "cumulative buckets per side and repetition")},
    {"name": S.Nullable(S.STR), "outcome": S.Nullable(OUTCOME)})
TABLE = S.Fields("the comparison's table", {"latency": S.MapOf(METRIC)}, {
    "throughput": S.Nullable(ROW), "error_ratio": S.Nullable(ROW), "request_rate": S.Nullable(ROW),
    "duration": S.Nullable(_per_side(S.ListOf(S.NUMBER), "window durations per side")),
    "prefix_cache_hit_ratio": S.Nullable(_per_side(_N, "prefix cache hit ratios per side"))})
_OBJECTIVE = S.Fields("a checked objective", {"objective": S.STR, "held": S.Nullable(S.BOOL)}, {"detail": S.Nullable(S.STR)})
_RUN = S.Fields("a measured run", {"side": S.STR, "number": S.INT},
                {"start": _N, "end": _N, "source": S.Nullable(S.STR), "load": S.ANY, "identity": S.ANY, "command": S.ANY})
SERVICE = S.Fields("the service_comparison filter's result", {"state": S.STR}, {
    "reasons": S.Nullable(S.ListOf(S.STR)), "refusals": S.Nullable(S.ListOf(S.STR)), "warnings": S.Nullable(S.ListOf(S.STR)),
    "repetitions": S.Nullable(S.MapOf(S.Nullable(S.COUNT))), "warmups_excluded": S.Nullable(S.COUNT), "table": S.Nullable(TABLE),
    "objectives": S.Nullable(S.ListOf(_OBJECTIVE)), "runs": S.Nullable(S.ListOf(_RUN))})


def service(record, error=ServiceComparisonError):
    """The record's service comparison, its shape checked (None when the service was not measured); ``error`` when it is wrong."""
    found = (record.get("attestations") or {}).get("service_objectives")
    if found is None:
        return None
    return S.check(found, SERVICE, "record.attestations.service_objectives", error)


def number(value):
    """A number as the comparison's findings print it (``%.6g``); None is "unknown"."""
    return escape.UNKNOWN if value is None else "%.6g" % value


def _spread(spread):
    return " / ".join(number(spread[key]) for key in ("min", "median", "max"))


def _numbers(values):
    return ", ".join(number(value) for value in values) or "none"


def metric_title(key, entry):
    """The section title of one latency metric: ``Service metric ttft: vllm:time_to_first_token_seconds``."""
    return "Service metric %s: %s" % (key, entry.get("name") or key)


def _metric_rows(entry, duration):
    rows = [["%s (s): min / median / max" % label, _spread(row["baseline"]), _spread(row["canary"]), row["finding"]]
            for label, row in entry["quantiles"].items()]
    rows.append(["observations per repetition", _numbers(entry["observations"]["baseline"]), _numbers(entry["observations"]["canary"]), ""])
    if duration:
        rows.append(["window duration per repetition (s)", _numbers(duration["baseline"]), _numbers(duration["canary"]), ""])
    bounds = "%s (%d buckets)" % (", ".join(entry["buckets"]), len(entry["buckets"]))
    rows.append(["bucket upper bounds (s)", bounds, "the same", "the same in every window (the comparison refuses different buckets)"])
    outcome = entry.get("outcome")
    if outcome:
        rows.append(["outcome", "", "", outcome["state"]])
        rows += [["why", "", "", reason] for reason in outcome["reasons"]]
    return rows


def _row(title, row):
    return [title, _spread(row["baseline"]), _spread(row["canary"]), row["finding"]]


def _summary(found):
    objectives = found.get("objectives") or []
    said = set("%s: %s" % (o["objective"], escape.text(o.get("detail"))) for o in objectives) | set(escape.text(o.get("detail")) for o in objectives)
    reasons = found.get("reasons") or []
    rows = [["state", "", "", found["state"]]]
    rows += [["reason", "", "", reason] for reason in reasons if reason not in said]
    rows += [["refusal", "", "", refusal] for refusal in found.get("refusals") or [] if refusal not in reasons]
    rows += [["warning", "", "", warning] for warning in found.get("warnings") or []]
    repetitions = found.get("repetitions") or {}
    excluded = found.get("warmups_excluded")
    rows.append(["repetitions", escape.text(repetitions.get("baseline")), escape.text(repetitions.get("canary")),
                 "" if excluded is None else "warmups excluded: %d" % excluded])
    for objective in objectives:
        held = {True: "held", False: "not held", None: "not measured"}[objective["held"]]
        rows.append(["objective: %s" % held, "", "", "%s: %s" % (objective["objective"], escape.text(objective.get("detail")))])
    table = found.get("table") or {}
    for key, title in (("throughput", "completed throughput (req/s): min / median / max"), ("error_ratio", "error ratio: min / median / max"),
                       ("request_rate", "measured request rate (req/s): min / median / max")):
        if table.get(key):
            rows.append(_row(title, table[key]))
    ratios = table.get("prefix_cache_hit_ratio")
    if ratios:
        rows.append(["prefix cache hit ratio", number(ratios["baseline"]), number(ratios["canary"]), ""])
    if found.get("table") is None and "table" in found:
        rows.append(["table", "", "", "none: the comparison was refused, so no quantile is compared"])
    return ["item", "baseline", "canary", "finding"], rows


def _runs(found):
    return ["side", "repetition", "start", "end", "source", "offered load", "identity", "command"], [
        [run["side"], str(run["number"]), escape.text(run.get("start")), escape.text(run.get("end")), escape.text(run.get("source")),
         escape.text(run.get("load")), escape.text(run.get("identity")), escape.text(run.get("command"))] for run in found["runs"]]


def sections(record, error=ServiceComparisonError):
    """[(title, headers, rows)]: the summary (headers None when not measured), a section per latency metric, the runs."""
    found = service(record, error)
    if found is None:
        return [(SUMMARY_TITLE, None, None)]
    headers, rows = _summary(found)
    out = [(SUMMARY_TITLE, headers, rows)]
    table = found.get("table") or {}
    for key, entry in table.get("latency", {}).items():
        out.append((metric_title(key, entry), ["row", "baseline", "canary", "finding"], _metric_rows(entry, table.get("duration"))))
    if found.get("runs") is not None:
        out.append((RUNS_TITLE,) + tuple(_runs(found)))
    return out
