# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's resource-manager metrics: parsed with prometheus-client's text parser, rates between two scrapes.

Public: `FAMILIES`, `parse`, `rates`, `HAS_PROMETHEUS`.

`parse(text)` keeps the families the evidence needs (``resource_manager_*`` without a prefix, and
the older ``kubelet_cpu_manager_*``, ``kubelet_memory_manager_*``, ``kubelet_topology_manager_*``),
each sample with its labels. `rates(first, second)` turns every cumulative sample (counters, and
histogram/summary ``_count``, ``_sum``, ``_bucket``) into a per-second rate, per series, before any
aggregation; a sample that went down is a counter reset (the kubelet restarted) and its increase
is the new value, as Prometheus' rate() does. Gauges (``resource_manager_container_assignments``)
are reported as they are in the second scrape.
"""

from __future__ import annotations

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
    except ValueError as exc:
        raise nodefs.EvidenceError("kubelet metrics are not in the Prometheus text format: %s" % exc) from exc
    return {"samples": samples}


def _key(sample):
    return (sample["name"], tuple(sorted(sample["labels"].items())))


def rates(first, second):
    """[{"name", "labels", "type", "first", "second", "increase", "rate_per_second", "reset"} | gauge values] between scrapes.

    ``first`` and ``second``: {"samples" (from `parse`), "timestamp" (seconds)}.
    """
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
