# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet configuration against the baseline, key by key (pure).

Public: `diff`.

Mappings are compared key by key, down to their leaves; lists are compared whole, as the kubelet's
drop-in merge replaces them whole (``reservedMemory``, ``allowedUnsafeSysctls``). Credential-carrying
fields are masked (`_kubelet.config.secrets.mask`) before anything is compared or kept.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import secrets
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError


def _walk(prefix, before, after, out):
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            path = "%s.%s" % (prefix, key) if prefix else str(key)
            if key not in after:
                out.append({"key": path, "change": "removed", "before": before[key], "after": None})
            elif key not in before:
                out.append({"key": path, "change": "added", "before": None, "after": after[key]})
            else:
                _walk(path, before[key], after[key], out)
    elif before != after:
        out.append({"key": prefix, "change": "changed", "before": before, "after": after})


def diff(baseline, target):
    """[{"key" (dotted path), "change" (added | removed | changed), "before", "after"}] from ``baseline`` to ``target``, by key."""
    for what, value in (("baseline", baseline), ("target", target)):
        if not isinstance(value, dict):
            raise RecordError("config diff: the %s configuration must be a mapping, got %s" % (what, type(value).__name__))
    out = []
    _walk("", secrets.mask(baseline), secrets.mask(target), out)
    return out
