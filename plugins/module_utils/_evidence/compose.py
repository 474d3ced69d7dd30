# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The placement_evidence fact: every source's evidence for one node, composed from the role's task results (pure).

Public: `compose`.

``compose(reads)``: ``reads`` maps the names the sources read (`sources.reads()`: registered task
results, the canary's result, the topology facts, the operator's statements) to their values; a name
no source reads is refused (a typo would otherwise be silence). The result maps each source's name
(`sources.SOURCES`, in order) to its value, None where it was not read: the record's inputs as the
acceptance_record role takes them (``acceptance_record_evidence``).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources as _sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError


def compose(reads, sources=None):
    """{source name: evidence} for one node (see the module docstring); ``sources`` defaults to `sources.SOURCES`."""
    sources = _sources.SOURCES if sources is None else sources
    if not isinstance(reads, dict):
        names = ", ".join(_sources.reads(sources))
        raise EvidenceError("placement evidence: reads must be a mapping of %s, got %s" % (names, type(reads).__name__))
    known = _sources.reads(sources)
    unknown = sorted(str(key) for key in set(reads) - set(known))
    if unknown:
        raise EvidenceError("placement evidence: no source reads %s (known: %s)" % (", ".join(unknown), ", ".join(known)), keys=unknown)
    return {source.name: source.compose(reads) for source in sources}
