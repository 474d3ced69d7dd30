# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One validation pass: the configuration, the machine, and the problems found so far.

Public: `Problem` (one broken rule), `KubeletValidationError` (an input the rules cannot read),
`Checker` (the value every rule receives: reads typed fields and records problems, naming the
file that set each key from the merge's origins), `Machine` (the ``node`` argument read once).
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording


class KubeletValidationError(NumaGateError, ValueError):
    """A value the validation helpers cannot interpret."""


class Problem:
    """One rule the configuration breaks.

    ``key``: the config key (dotted, e.g. ``reservedMemory[1].limits.memory``);
    ``message``: the kubelet's wording; ``source``: the file that set the key;
    ``rule``: the upstream source file of the rule; ``hint``: what to change.
    """

    def __init__(self, key, message, source=None, rule=None, hint=None):
        self.key = key
        self.message = message
        self.source = source
        self.rule = rule
        self.hint = hint

    def __str__(self):
        text = "%s: %s: %s" % (self.source or "<config>", self.key, self.message)
        if self.hint:
            text += " (%s)" % self.hint
        return text

    __repr__ = __str__

    def as_dict(self):
        """The problem as module result data."""
        return {"key": self.key, "message": self.message, "source": self.source, "rule": self.rule,
                "hint": self.hint, "text": str(self)}


class Machine:
    """The ``node`` argument of validate(), parsed once: online CPUs, NUMA memory, total memory.

    Each is None when not given, and the rules that need it are skipped.
    """

    def __init__(self, node):
        node = node or {}
        self.online = None
        if node.get("online_cpus") is not None:
            try:
                self.online = _cpulist.parse(node["online_cpus"])
            except _cpulist.CpuListError as exc:
                raise KubeletValidationError("node online_cpus: %s" % exc) from exc
        self.numa_nodes = _numa_nodes(node.get("numa_nodes"))
        if node.get("memory_bytes") is not None:
            self.memory = int(node["memory_bytes"])
        else:
            self.memory = sum(self.numa_nodes.values()) if self.numa_nodes else None


def _numa_nodes(nodes):
    if nodes is None:
        return None
    try:
        return {int(k): int(v) for k, v in nodes.items()}
    except (TypeError, ValueError, AttributeError) as exc:
        raise KubeletValidationError("node numa_nodes %r is not a mapping of NUMA id to memory bytes" % (nodes,)) from exc


class Checker:
    """The configuration under check, the machine, and the problems found so far."""

    def __init__(self, config, machine=None):
        self.config = config
        self.machine = machine or Machine(None)
        self.problems = []
        origin_of = getattr(config, "origin_of", None)
        self._origin_of = origin_of if callable(origin_of) else (lambda key: None)

    def source(self, *path):
        """The file that set the key at ``path`` (None for a plain dict)."""
        return self._origin_of(tuple(path))

    def add(self, key, message, path=None, rule=None, hint=None):
        """Record a problem for ``key``; ``path`` (default ``(key,)``) finds its file."""
        source = self.source(*(path or (key,)))
        self.problems.append(Problem(key, message, source, rule, hint))

    def mapping(self, key, value_type="string"):
        """A map field; reports values of the wrong JSON type, returns the usable part."""
        value = self.config.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.add(key, wording.unmarshal(value, "KubeletConfiguration." + key, "map[string]%s" % value_type),
                     rule=wording.STRICT_DECODING)
            return {}
        usable = {}
        for name, item in value.items():
            ok = isinstance(item, bool) if value_type == "bool" else isinstance(item, str)
            if not ok:
                self.add("%s.%s" % (key, name), wording.unmarshal(item, "KubeletConfiguration." + key, value_type), path=(key, name),
                         rule=wording.STRICT_DECODING,
                         hint="quote the value: %s: \"%s\"" % (name, str(item).lower() if isinstance(item, bool) else item)
                         if value_type == "string" else None)
                continue
            usable[str(name)] = item
        return usable

    def string(self, key, default):
        """A string field, ``default`` when unset, None (reported) when not a string."""
        value = self.config.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.add(key, wording.unmarshal(value, "KubeletConfiguration." + key, "string"), rule=wording.STRICT_DECODING)
            return None
        return value
