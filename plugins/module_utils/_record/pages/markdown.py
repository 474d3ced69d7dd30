# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""acceptance.md: the record as Markdown tables, every value escaped (`escape.md_text`) (pure).

Public: `render`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import sections as _sections
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import inputs as shapes

NO_EVIDENCE = "no evidence in this record (topology only)"


def _table(headers, rows):
    out = ["| %s |" % " | ".join(escape.md_text(h) for h in headers), "|" + "---|" * len(headers)]
    out += ["| %s |" % " | ".join(escape.md_text(cell) for cell in row) for row in rows]
    return out


def render(record):
    """The Markdown text of one acceptance record (its shape checked first: `shapes.check_record`)."""
    record = shapes.check_record(record)
    verdict = record["verdict"]
    lines = ["# Acceptance record: %s" % escape.md_text(record["host"]), "",
             "**Verdict: %s** (schema_version %d, mode %s, generated %s)" % (
                 escape.md_text(verdict["verdict"]), record["schema_version"], escape.md_text(record["mode"]), escape.md_text(record["generated_at"])), ""]
    for title, headers, rows in _sections.sections(record):
        lines += ["## %s" % escape.md_text(title), ""]
        if headers is None:
            lines += [NO_EVIDENCE if record["mode"] == "topology" else "not collected", ""]
        elif not rows:
            lines += ["none", ""]
        else:
            lines += _table(headers, rows) + [""]
    return "\n".join(lines)
