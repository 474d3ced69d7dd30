# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service drawings (SVG, self-contained): per latency metric, each repetition's cumulative distribution, baseline and canary (pure).

Public: `drawing`, `drawings`, `points`, `scale`, `LOG_SPAN`.

Drawn from the comparison's own window buckets (``table.latency[metric].cumulative``: per side and
repetition, the cumulative count at each upper bound, the deltas of the window), nothing recomputed:

- x is the bucket upper bound. The axis is logarithmic when every finite bound is above 0 and the
  largest is at least `LOG_SPAN` (100) times the smallest, as with exponential buckets (vLLM's span
  0.001 s to 2560 s), linear otherwise. Flat ends are trimmed: the axis starts at the last bound
  where every line is still 0 and ends at the first bound where every line has all its observations;
  when some observations lie above the largest finite bound, a last ``+Inf`` slot shows them.
- y is the cumulative fraction: the count at the bound over the ``+Inf`` bucket's count (the total
  Prometheus' histogram_quantile divides by). Points are joined by straight lines, the points between
  which histogram_quantile interpolates.
- One ``polyline`` per repetition and side: ``data-kind="service-line"``, ``data-side``,
  ``data-repetition``, class ``side-baseline`` (solid) or ``side-canary`` (dashed), a ``<title>``
  with its observations and quantiles; a legend (``data-kind="service-legend"``); the drawing's own
  ``<title>`` and ``<desc>`` named by ``aria-labelledby``. Every value is escaped; no script, no link.
"""

from __future__ import annotations

import math

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.quantile import parse_le
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.errors import ServiceComparisonError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.pages import table as service_table

LOG_SPAN = 100.0
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM, INF_SLOT, LABEL_GAP = 620, 300, 56, 24, 40, 46, 36, 34
STYLE = ("svg.numa-gate-service{font-family:sans-serif;font-size:11px}.plot-area{fill:#fff;stroke:#999}"
         ".grid{stroke:#ddd}.guide{stroke:#bbb;stroke-dasharray:2 3}.service-line{fill:none;stroke-width:1.5}"
         ".side-baseline{stroke:#1f77b4}.side-canary{stroke:#d62728;stroke-dasharray:6 3}")


def scale(bounds):
    """"log" or "linear" for the finite upper bounds (strings) of a histogram."""
    finite = [parse_le(le) for le in bounds if not math.isinf(parse_le(le))]
    if finite and min(finite) > 0 and max(finite) >= LOG_SPAN * min(finite):
        return "log"
    return "linear"


def _fractions(buckets):
    """[(bound, fraction)] of one window's cumulative buckets, finite bounds only; [] without a +Inf count above 0."""
    total = next((count for le, count in buckets if math.isinf(parse_le(le)) and parse_le(le) > 0), None)
    if not total:
        return []
    return [(parse_le(le), count / total) for le, count in buckets if not math.isinf(parse_le(le))]


def _leading(flags):
    """The index of the last True of the leading run of Trues (0 when the first is False)."""
    index = 0
    while index + 1 < len(flags) and flags[index + 1] and flags[index]:
        index += 1
    return index


def points(entry):
    """{"scale", "bounds" (the finite bounds shown), "inf" (whether the +Inf slot is drawn), "lines": [(side, number, [fraction])]}."""
    lines = [(side, index + 1, dict(_fractions(buckets))) for side in service_table.SIDES for index, buckets in enumerate(entry["cumulative"][side])]
    bounds = sorted(set(bound for unused_side, unused_number, by in lines for bound in by))
    drawn = [by for unused_side, unused_number, by in lines if by]
    low = _leading([all(by.get(bound, 0.0) <= 0 for by in drawn) for bound in bounds])
    full = [index for index, bound in enumerate(bounds) if all(by.get(bound, 0.0) >= 1 for by in drawn)]
    high = full[0] if full else len(bounds) - 1
    if high <= low:
        low, high = max(0, high - 1), min(len(bounds) - 1, low + 1)
    shown = bounds[low:high + 1]
    return {"scale": scale(entry["buckets"] + ["%r" % bound for bound in bounds]), "bounds": shown, "inf": bool(drawn) and not full,
            "lines": [(side, number, [by.get(bound, 0.0) for bound in shown] if by else []) for side, number, by in lines]}


def _x_of(geometry):
    bounds, left = geometry["bounds"], LEFT
    right = WIDTH - RIGHT - (INF_SLOT if geometry["inf"] else 0)
    if len(bounds) < 2:
        return lambda bound: (left + right) / 2.0
    if geometry["scale"] == "log":
        low, high = math.log10(bounds[0]), math.log10(bounds[-1])
        return lambda bound: left + (right - left) * (math.log10(bound) - low) / (high - low)
    low, high = bounds[0], bounds[-1]
    return lambda bound: left + (right - left) * (bound - low) / (high - low)


def _y(fraction):
    return TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - fraction)


def _axes(geometry, x_of, quantiles):
    bottom = HEIGHT - BOTTOM
    out = ['<g class="service-axes" data-kind="service-axes" data-scale="%s">' % geometry["scale"],
           '<rect class="plot-area" x="%d" y="%d" width="%d" height="%d"/>' % (LEFT, TOP, WIDTH - LEFT - RIGHT, bottom - TOP)]
    for fraction in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append('<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/><text x="%d" y="%.1f" text-anchor="end">%s</text>' % (
            LEFT, _y(fraction), WIDTH - RIGHT, _y(fraction), LEFT - 4, _y(fraction) + 4, "%g" % fraction))
    for label, q in quantiles:
        out.append('<line class="guide" x1="%d" y1="%.1f" x2="%d" y2="%.1f"><title>%s</title></line>' % (
            LEFT, _y(q), WIDTH - RIGHT, _y(q), escape.html_text("%s: cumulative fraction %g" % (label, q))))
    last = None
    for bound in geometry["bounds"]:
        x = x_of(bound)
        out.append('<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>' % (x, TOP, x, bottom))
        if last is None or x - last >= LABEL_GAP:
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x, bottom + 14, escape.html_text("%g" % bound)))
            last = x
    if geometry["inf"]:
        out.append('<text x="%d" y="%d" text-anchor="middle">+Inf</text>' % (WIDTH - RIGHT - INF_SLOT / 2, bottom + 14))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (
        (LEFT + WIDTH - RIGHT) // 2, HEIGHT - 8, "bucket upper bound (s), %s scale" % geometry["scale"]))
    out.append('<text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">cumulative fraction</text>' % (
        (TOP + bottom) // 2, (TOP + bottom) // 2))
    out.append("</g>")
    return out


def _line_title(entry, side, number, key):
    index = number - 1
    quantiles = ", ".join("%s %s s" % (label, service_table.number(row[side]["values"][index] if index < len(row[side].get("values") or []) else None))
                          for label, row in entry["quantiles"].items())
    counts = entry["observations"][side]
    count = counts[index] if index < len(counts) else None
    return "%s %s repetition %d: %s observations%s" % (key, side, number, service_table.number(count), "; " + quantiles if quantiles else "")


def _line(entry, key, side, number, fractions, geometry, x_of):
    coords = ["%.1f,%.1f" % (x_of(bound), _y(fraction)) for bound, fraction in zip(geometry["bounds"], fractions)]
    if fractions and geometry["inf"]:
        coords.append("%.1f,%.1f" % (WIDTH - RIGHT - INF_SLOT / 2, _y(1.0)))
    return ('<polyline class="service-line side-%s" data-kind="service-line" data-metric="%s" data-side="%s" data-repetition="%d" '
            'points="%s"><title>%s</title></polyline>') % (
        side, escape.html_attr(key), side, number, " ".join(coords), escape.html_text(_line_title(entry, side, number, key)))


def _legend(entry):
    out = ['<g class="service-legend" data-kind="service-legend">']
    x = LEFT
    for side in service_table.SIDES:
        count = len(entry["cumulative"][side])
        text = "%s (%d repetition%s)" % (side, count, "" if count == 1 else "s")
        out.append('<line class="service-line side-%s" x1="%d" y1="22" x2="%d" y2="22"/><text x="%d" y="26">%s</text>' % (
            side, x, x + 28, x + 34, escape.html_text(text)))
        x += 34 + 7 * len(text) + 24
    out.append("</g>")
    return out


def drawing(key, entry, ident):
    """The SVG of one latency metric (``entry``: the comparison's table.latency[key]); ``ident`` makes its ids unique on the page."""
    geometry = points(entry)
    x_of = _x_of(geometry)
    name = entry.get("name") or key
    outcome = (entry.get("outcome") or {}).get("state")
    counts = {side: len(entry["cumulative"][side]) for side in service_table.SIDES}
    title = "Cumulative distributions of %s (%s), baseline and canary" % (name, key)
    desc = ("One line per repetition: %d baseline (solid), %d canary (dashed); x the bucket upper bound in seconds, %s scale; y the cumulative "
            "fraction of the window's observations%s." % (counts["baseline"], counts["canary"], geometry["scale"],
                                                          "; outcome: %s" % outcome if outcome else ""))
    quantiles = [(label, float(label[1:]) / 100) for label in entry["quantiles"] if label[1:].replace(".", "", 1).isdigit()]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="numa-gate-service" data-kind="service-drawing" data-metric="%s" data-scale="%s" '
           'width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-title %s-desc">' % (
               escape.html_attr(key), geometry["scale"], WIDTH, HEIGHT, WIDTH, HEIGHT, ident, ident),
           '<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>' % (ident, escape.html_text(title), ident, escape.html_text(desc)),
           "<style>%s</style>" % STYLE]
    out += _legend(entry)
    out += _axes(geometry, x_of, quantiles)
    for side, number, fractions in geometry["lines"]:
        out.append(_line(entry, key, side, number, fractions, geometry, x_of))
    out.append("</svg>")
    return "".join(out)


def drawings(record, error=ServiceComparisonError):
    """[(section title, svg)] of the record's service comparison, one per latency metric of its table (none without a table)."""
    found = service_table.service(record, error)
    table = (found or {}).get("table") or {}
    return [(service_table.metric_title(key, entry), drawing(key, entry, "service-drawing-%d" % index))
            for index, (key, entry) in enumerate(table.get("latency", {}).items())]
