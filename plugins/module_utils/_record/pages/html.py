# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""acceptance.html (one node): one self-contained page (pure); index.html, the fleet, is `pages.fleet`'s.

Public: `page`, `CSP`.

No script, no external stylesheet, font, image or link target outside the artifacts folder; a
Content-Security-Policy of ``default-src 'none'`` says so to the browser too, so even a value
that slipped through could load nothing. Every value is escaped (`escape.html_text`). Each latency
metric of the service comparison has its drawing (`service_svg`) right after its table.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import sections as _sections
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison.pages import svg as service_svg
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import inputs as shapes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import svg
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import verdict as _verdict
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
# The four verdicts in four colours: adopt green, restrict blue, defer amber ("not yet", not a failure's red), revalidate purple;
# the grid's states in the same colours, "not asked" grey.
_STYLE = ("body{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}"
          "th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top;font-size:13px}th{background:#eee}"
          ".verdict{display:inline-block;padding:.3em .8em;border-radius:4px;font-weight:bold;color:#fff}"
          ".verdict-adopt{background:#2e7d32}.verdict-restrict{background:#1565c0}.verdict-defer{background:#ffb300;color:#222}"
          ".verdict-revalidate{background:#6a1b9a}.effect-defer td:nth-child(2){color:#8a5a00;font-weight:bold}"
          ".state{font-weight:bold;white-space:nowrap}.state-held .state{background:#c8e6c9}.state-restricted .state{background:#bbdefb}"
          ".state-deferred .state{background:#ffe082}.state-revalidate .state{background:#e1bee7}.state-not-asked .state{background:#eee;color:#555}"
          "section{overflow-x:auto}.drawing{border:1px solid #ddd;padding:4px;max-width:100%;box-sizing:border-box}")


def _head(title):
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta http-equiv="Content-Security-Policy" content="%s"><meta name="viewport" content="width=device-width">'
            '<title>%s</title><style>%s</style></head><body>' % (escape.html_attr(CSP), escape.html_text(title), _STYLE))


def _table(title, headers, rows, name):
    out = ['<section data-section="%s"><h2>%s</h2>' % (escape.html_attr(name), escape.html_text(title))]
    if headers is None:
        out.append("<p>not in this record</p></section>")
        return "".join(out)
    if not rows:
        out.append("<p>none</p></section>")
        return "".join(out)
    out.append("<table><thead><tr>%s</tr></thead><tbody>" % "".join("<th>%s</th>" % escape.html_text(h) for h in headers))
    for row in rows:
        css = ' class="effect-%s"' % escape.html_attr(row[1]) if name == "verdict-reasons" else ""
        cells = ["<td>%s</td>" % escape.html_text(cell) for cell in row]
        if name == "acceptance-grid":
            css = ' class="state-%s" data-kind="criterion" data-criterion="%s" data-state="%s"' % (
                _slug(row[1]), escape.html_attr(row[0]), escape.html_attr(row[1]))
            cells[1] = '<td class="state">%s</td>' % escape.html_text(row[1])
        out.append("<tr%s>%s</tr>" % (css, "".join(cells)))
    out.append("</tbody></table></section>")
    return "".join(out)


def _slug(title):
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def page(record):
    """acceptance.html of one record: the verdict, the acceptance grid and the reasons, the node drawing, then every section (its shape checked first)."""
    record = shapes.check_record(record)
    verdict = record["verdict"]["verdict"]
    if verdict not in _verdict.VERDICTS:
        verdict = "defer"
    out = [_head("Acceptance record: %s" % escape.text(record["host"])),
           "<h1>Acceptance record: %s</h1>" % escape.html_text(record["host"]),
           '<p><span class="verdict verdict-%s" data-verdict="%s">%s</span> schema_version %d, mode %s, generated %s</p>' % (
               verdict, verdict, verdict, record["schema_version"], escape.html_text(record["mode"]), escape.html_text(record["generated_at"]))]
    parts = _sections.sections(record)
    for (title, headers, rows), name in zip(parts[:2], ("acceptance-grid", "verdict-reasons")):
        out.append(_table(title, headers, rows, name))
    out.append('<section data-section="drawing"><h2>The node</h2><div class="drawing">%s</div></section>' % svg.drawing(record))
    drawings = dict(service_svg.drawings(record, RecordError))
    for title, headers, rows in parts[2:]:
        out.append(_table(title, headers, rows, _slug(title)))
        if title in drawings:
            out.append('<section data-section="service-drawing"><h3>%s: cumulative distributions</h3><div class="drawing">%s</div></section>' % (
                escape.html_text(title), drawings[title]))
    out.append("</body></html>\n")
    return "".join(out)
