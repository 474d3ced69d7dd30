# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which of Prometheus' rules a server of a given version computes by (pure): each read from Prometheus' source at its tags.

Public: `CHANGES`, `CHECKED`, `parse_version`, `rules_for`.

The query path (`service_query.query_window`) asks the server's ``/api/v1/status/buildinfo`` and takes these rules from its
version; the quantile (`quantile.bucket_quantile` ``legacy``) and the sum of series (`window.go_sum` ``kahan``) follow them.
Each change, the last tag without it and the first with it, where it is in the source and the change's pull request:

- ``quantile``: histogram_quantile's repair of non-monotonic buckets. ``running-max`` (2.42.0-2.48.x, promql/quantile.go
  ``ensureMonotonic``: a decrease is raised to the highest count so far, a NaN count kept) then ``small-deltas`` (2.49.0 on,
  ``ensureMonotonicAndIgnoreSmallDeltas``: differences below 1e-12 relative set to the previous count first; #13153);
- ``sum``: the ``sum`` aggregation of floats. ``plain`` (a running sum, to 2.53.x) then ``kahan`` (Kahan-Neumaier,
  ``kahanSumInc`` in promql/engine.go, 2.54.0 on; #14074, #14362);
- ``range``: the samples a range ``[w]`` at ``t`` holds. ``closed`` (``[t - w, t]``, to 2.55.x; ``matrixIterSlice`` keeps
  ``T >= mint``) then ``left-open`` (``(t - w, t]``, 3.0.0 on, ``T > mint``; #13904): a window of one scrape interval holds one
  sample and rate() answers nothing, and a window that starts on a scrape extrapolates;
- ``le``: a scraped ``le`` label. ``as-written`` (to 2.55.x) then ``normalized`` (3.0.0 on: model/textparse
  ``normalizeFloatsInLabelValues`` rewrites a value ParseFloat reads in the OpenMetrics form, ``1e-1`` is ``0.1``; #15164):
  two spellings of one bound in one scrape are one series there, and the scrape keeps one of the two samples;
- ``extrapolation``: rate()'s extrapolation to the range's start. ``zero-clamp-first`` (to 2.50.x) then ``cap-first`` (2.51.0
  on, promql/functions.go ``extrapolatedRate``; #13725). No claim depends on it: windows on scrapes do not extrapolate on 2.x.

`CHECKED` is the span of versions whose source was read (2.42.0 to 3.14.0, default feature flags: not
``use-start-timestamps`` nor ``promql-extended-range-selectors``). A version outside it, or none (Thanos, Mimir, a proxy),
gives ``checked: False``; an unknown version also gives None for every rule, and the caller keeps its defaults.
"""

from __future__ import annotations

import re

CHANGES = (
    ("quantile", (2, 49, 0), "running-max", "small-deltas"),
    ("sum", (2, 54, 0), "plain", "kahan"),
    ("range", (3, 0, 0), "closed", "left-open"),
    ("le", (3, 0, 0), "as-written", "normalized"),
    ("extrapolation", (2, 51, 0), "zero-clamp-first", "cap-first"),
)
CHECKED = ((2, 42, 0), (3, 14, 0))
_VERSION = re.compile(r"v?(\d{1,4})\.(\d{1,4})\.(\d{1,4})(?![\d.])")


def parse_version(text):
    """(major, minor, patch) of a version text such as ``2.42.0+ds`` or ``v3.0.1``; None when it has none."""
    if not isinstance(text, str):
        return None
    found = _VERSION.match(text.strip())
    return tuple(int(part) for part in found.groups()) if found else None


def rules_for(version):
    """{"version", "major" ("2.x", "3.x", "unknown"), "checked", and one value per rule of `CHANGES`} for a server's version."""
    parsed = parse_version(version)
    out = {"version": version if isinstance(version, str) else None, "checked": False,
           "major": "unknown" if parsed is None else "%d.x" % parsed[0] if parsed[0] in (2, 3) else "unknown"}
    for rule, first, before, since in CHANGES:
        out[rule] = None if parsed is None or out["major"] == "unknown" else since if parsed >= first else before
    if parsed is not None and out["major"] != "unknown":
        out["checked"] = CHECKED[0] <= parsed and parsed[:2] <= CHECKED[1][:2]
    return out
