# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A task's registered result as the compositions read it (pure).

Public: `result`, `value`.

A task that did not run (absent, null, or ``skipped``: a ``when`` that was false, a block not
entered, check mode) gave no result: None. Anything else must be a mapping, or the composition
refuses it by name. A task registered with ``failed_when: false`` reads ``failed: false`` even when
its module failed, so a failed read is told by what is missing from it (each composition says what).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.nodefs import EvidenceError


def result(reads, key):
    """The registered result ``reads[key]``, or None when that task did not run."""
    found = reads.get(key)
    if found is None:
        return None
    if not isinstance(found, dict):
        raise EvidenceError("placement evidence: %s must be a task result (a mapping), got %s" % (key, type(found).__name__), field=key)
    if found.get("skipped"):
        return None
    return found


def value(reads, key, kind=dict):
    """A value the role passes as is (the canary's result, the topology facts, an operator's statement): None, or a ``kind``."""
    found = reads.get(key)
    if found is not None and not isinstance(found, kind):
        wanted = "mapping" if kind is dict else kind.__name__
        raise EvidenceError("placement evidence: %s must be a %s, got %s" % (key, wanted, type(found).__name__), field=key)
    return found
