# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's resource-manager metrics: parsed with prometheus-client's text parser, rates between two scrapes.

Public: `FAMILIES`, `parse`, `rates`, `check_scrape`, `HAS_PROMETHEUS`.

`parse(text)` keeps the families the evidence needs (``resource_manager_*`` without a prefix, and
the older ``kubelet_cpu_manager_*``, ``kubelet_memory_manager_*``, ``kubelet_topology_manager_*``),
each sample with its labels. `rates(first, second)` turns every cumulative sample (counters, and
histogram/summary ``_count``, ``_sum``, ``_bucket``) into a per-second rate, per series, before any
aggregation; a sample that went down is a counter reset (the kubelet restarted) and its increase
is the new value, as Prometheus' rate() does. Gauges (``resource_manager_container_assignments``)
are reported as they are in the second scrape.

A measurement is plausible or refused: a counter (or a histogram's ``_count`` / ``_bucket``) below
zero is not a count, and the scrape is refused naming the sample. An earlier scrape handed back
(``previous``) is checked field by field (`check_scrape`) before any rate is computed.
"""

from __future__ import annotations

import math

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

try:
    from prometheus_client.parser import text_string_to_metric_families
    HAS_PROMETHEUS = True
    PROMETHEUS_IMPORT_ERROR = None
except ImportError as _exc:  # pragma: no cover - the controller requirement is missing
    HAS_PROMETHEUS = False
    PROMETHEUS_IMPORT_ERROR = str(_exc)

FAMILIES = ("resource_manager_", "kubelet_cpu_manager_", "kubelet_memory_manager_", "kubelet_topology_manager_")
_CUMULATIVE = ("counter", "histogram", "summary", "gaugehistogram")


def parse(text, families=FAMILIES):
    """{"samples": [{"name", "labels", "value", "type"}]} of the wanted families, in the text's order."""
    if not HAS_PROMETHEUS:
        raise nodefs.EvidenceError("parsing kubelet metrics needs the Python library prometheus-client (pip install prometheus-client): %s"
                                   % PROMETHEUS_IMPORT_ERROR)
    samples = []
    try:
        for family in text_string_to_metric_families(text):
            if not family.name.startswith(tuple(families)):
                continue
            for sample in family.samples:
                if sample.name.endswith("_created"):  # a start timestamp an exporter may add (the text parser types it gauge), not a count
                    continue
                samples.append({"name": sample.name, "labels": dict(sorted(sample.labels.items())), "value": sample.value, "type": family.type})
    # The parser raises ValueError for text it cannot read; the others are its own slips on odd text, refused the same way.
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        raise nodefs.EvidenceError("kubelet metrics are not in the Prometheus text format: %s" % " ".join(str(exc).split())[:300]) from exc
    for sample in samples:
        if _counts(sample) and sample["value"] < 0:
            raise nodefs.EvidenceError("kubelet metrics: %s is %s, and a count cannot be negative; the scrape is refused"
                                       % (_series(sample), sample["value"]))
    return {"samples": samples}


def _counts(sample):
    """True for a sample that counts (a counter, or a histogram's or summary's _count / _bucket), which is never negative."""
    if sample["type"] == "counter":
        return True
    return sample["type"] in ("histogram", "summary", "gaugehistogram") and sample["name"].endswith(("_count", "_bucket"))


def _series(sample):
    labels = ",".join('%s="%s"' % (k, v) for k, v in sorted(sample["labels"].items()))
    return "%s{%s}" % (sample["name"], labels) if labels else sample["name"]


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_scrape(scrape, what="previous"):
    """``scrape`` ({"node", "timestamp", "samples"}, as `fetch_metrics` returns it) checked field by field; EvidenceError names the field."""
    if not isinstance(scrape, dict):
        raise nodefs.EvidenceError("%s must be a scrape (a dict with timestamp and samples), not a %s" % (what, type(scrape).__name__))
    stamp = scrape.get("timestamp")
    if not _number(stamp) or not math.isfinite(stamp):
        raise nodefs.EvidenceError("%s.timestamp is %r, expected a number of seconds (the controller's clock at the scrape)" % (what, stamp))
    samples = scrape.get("samples")
    if not isinstance(samples, list):
        raise nodefs.EvidenceError("%s.samples is a %s, expected a list of samples" % (what, type(samples).__name__))
    for index, sample in enumerate(samples):
        where = "%s.samples[%d]" % (what, index)
        if not isinstance(sample, dict):
            raise nodefs.EvidenceError("%s is a %s, expected a dict with name, labels, value and type" % (where, type(sample).__name__))
        for key, test, expected in (("name", lambda v: isinstance(v, str) and v, "a metric name"),
                                    ("labels", lambda v: isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str) for k, x in v.items()),
                                     "a dict of label names to strings"),
                                    ("value", _number, "a number"), ("type", lambda v: isinstance(v, str), "a metric type")):
            if not test(sample.get(key)):
                raise nodefs.EvidenceError("%s.%s is %r, expected %s" % (where, key, sample.get(key), expected))
    return scrape


def _key(sample):
    return (sample["name"], tuple(sorted(sample["labels"].items())))


def rates(first, second):
    """[{"name", "labels", "type", "first", "second", "increase", "rate_per_second", "reset"} | gauge values] between scrapes.

    ``first`` and ``second``: {"samples" (from `parse`), "timestamp" (seconds)}.
    """
    check_scrape(first, "previous")
    check_scrape(second, "scrape")
    if first.get("node") is not None and second.get("node") is not None and first["node"] != second["node"]:
        raise nodefs.EvidenceError("previous is a scrape of node %r, not of %r: rates are between two scrapes of one kubelet"
                                   % (first["node"], second["node"]))
    elapsed = second["timestamp"] - first["timestamp"]
    if elapsed <= 0:
        raise nodefs.EvidenceError("the second scrape (%s) is not later than the first (%s)" % (second["timestamp"], first["timestamp"]))
    before = {_key(s): s for s in first["samples"]}
    out = []
    for sample in second["samples"]:
        entry = {"name": sample["name"], "labels": sample["labels"], "type": sample["type"], "second": sample["value"]}
        if sample["type"] not in _CUMULATIVE:
            out.append(entry)
            continue
        old = before.get(_key(sample))
        start = old["value"] if old is not None else 0.0
        reset = old is not None and sample["value"] < start
        increase = sample["value"] if reset or old is None else sample["value"] - start
        entry.update(first=old["value"] if old is not None else None, increase=increase, reset=reset,
                     rate_per_second=round(increase / elapsed, 9), new_series=old is None)
        out.append(entry)
    return out
