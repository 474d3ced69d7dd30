# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``metrics`` source: the kubelet's resource manager series, as rates between the scrapes around the canary (pure).

Public: `compose`, `SHAPE`.

From ``metrics_after`` (kubelet_metrics_info with ``previous``: the scrape before the canary): its
``rates``. A scrape that failed (registered under ``failed_when: false``, so told by its ``msg`` and
no scrape) is kept as ``{"samples": [], "error": "<which scrape>: <its message>"}``, and the
monitoring criterion defers naming it; the first scrape failing means the second never ran. Neither
scrape run (no canary, check mode): None, and the criterion defers ("no kubelet metrics were collected").
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result


class _Metrics(object):
    """Kubelet metrics as the record takes them: a list of rates (metrics_rates) or {"samples": [...]} (kubelet_metrics_info)."""

    what = "a list of rates or a mapping with samples"
    _ENTRY = S.Fields("a metric sample or rate", {}, {"name": S.Nullable(S.STR), "labels": S.Nullable(S.MapOf(S.SCALAR)),
                                                      "type": S.Nullable(S.STR), "value": S.Nullable(S.NUMBER), "second": S.Nullable(S.NUMBER),
                                                      "first": S.Nullable(S.NUMBER), "increase": S.Nullable(S.NUMBER),
                                                      "rate_per_second": S.Nullable(S.NUMBER)})

    def check(self, value, where, error):
        if isinstance(value, dict):
            if "samples" not in value:
                raise error("%s has no samples: kubelet metrics are a list of rates (metrics_rates) or {\"samples\": [...]} "
                            "(kubelet_metrics_info)" % where, field=where)
            return dict(value, samples=S.ListOf(self._ENTRY).check(value["samples"], where + ".samples", error))
        return S.ListOf(self._ENTRY).check(value, where, error)


# What the record and the verdict take for it (`Source.shape`).
SHAPE = _Metrics()


def _failure(found):
    """The message of a scrape that failed, or None."""
    if found and found.get("msg") and found.get("scrape") is None:
        return str(found["msg"])
    return None


def compose(reads):
    before, after = task_result.result(reads, "metrics_before"), task_result.result(reads, "metrics_after")
    if after and after.get("rates") is not None:
        return after["rates"]
    for label, found in (("the scrape after the canary", after), ("the scrape before the canary", before)):
        message = _failure(found)
        if message:
            return {"samples": [], "error": "%s failed: %s" % (label, message)}
    return None
