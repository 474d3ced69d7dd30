# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/evidence.md's table of the evidence sources is the list itself (_evidence/sources.py): the same sources in the same order,
and for each the same criteria (the last column; a parenthesis there is a remark, not a criterion)."""

from __future__ import annotations

import os
import re

import yaml

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

DOC = os.path.join(ansible_run.REPO, "docs", "evidence.md")


def table():
    """[(source, (criteria...))] from the rows of the table under "## The evidence sources"."""
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    section = text[text.index("## The evidence sources"):]
    section = section[:section.index("\n## ", 1)]
    rows = []
    for line in section.splitlines():
        match = re.match(r"^\| `([a-z_]+)` \|", line)
        if match:
            last = re.sub(r"\([^)]*\)", "", line.rstrip().rstrip("|").rsplit("|", 1)[-1])
            rows.append((match.group(1), tuple(re.findall(r"`([a-z_]+)`", last))))
    return rows


def test_the_docs_table_lists_every_source_in_order_with_its_criteria():
    assert table() == [(source.name, source.criteria) for source in sources.SOURCES]


def test_the_canary_evidence_sources_are_read_by_the_evidence_criterion():
    """A source whose presence makes the record full decides whether there is canary evidence at all."""
    assert [source.name for source in sources.SOURCES if source.full] == ["allocations", "findings", "canary"]
    assert all("evidence" in source.criteria and "placement" in source.criteria for source in sources.SOURCES if source.full)


def test_the_role_hands_the_composition_every_read_a_source_takes():
    """A read the role does not pass is composed as not asked (null): a source added without its read in the role would be silence."""
    with open(os.path.join(ansible_run.REPO, "roles", "evidence", "tasks", "main.yml"), encoding="utf-8") as handle:
        tasks = yaml.safe_load(handle)
    composing = [task for task in tasks if "evidence_result" in (task.get("ansible.builtin.set_fact") or {})]
    assert len(composing) == 1
    assert sorted(composing[0]["vars"]["__evidence_reads"]) == sorted(sources.reads())
