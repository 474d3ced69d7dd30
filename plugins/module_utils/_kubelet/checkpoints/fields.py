# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Field types and CPU sets of a checkpoint, checked before anything reads a value out of it.

Public: `top_problem(kind, document, version)`, `data_problem(kind, payload)`, `cpuset_problem(source)`, `field(source, key)`.

The kubelet decodes a checkpoint with ``json.Unmarshal`` into its Go structs
(``checkpoint_types``): a field of the wrong JSON type (``entries`` a list, ``policyName`` a number,
a memory table a string), inside a 1.37 file's ``data`` too, fails that decode and the kubelet
cannot load the file. Each function returns that failure named by file and field (or None), so a
report says which field is wrong instead of the collection failing on it. `cpuset_problem` is the
kubelet's next check (pkg/kubelet/cm/cpumanager/state/state_checkpoint.go restoreState, after the
policy): ``could not parse default cpu set %q: %v`` and ``could not parse cpuset %q for container
%q in pod %q: %v``.
"""

from __future__ import annotations

import json

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import go_types as types

_FILES = {"cpu": "cpu_manager_state", "memory": "memory_manager_state"}
_TOP = {
    ("cpu", "V1"): types.CPU_V1, ("cpu", "V2"): types.CPU_V2, ("cpu", "V3"): types.CPU_V3,
    # A V4 file embeds the V2 fields: json.Unmarshal of the whole file checks their types too.
    ("cpu", "V4"): types.CPU_V2,
    ("memory", "V1"): types.MEMORY_V1, ("memory", "V2"): types.MEMORY_V2, ("memory", "V3"): types.MEMORY_V1,
}
_DATA = {"cpu": types.CPU_V4_DATA, "memory": types.MEMORY_V3_DATA}
_UNLOADABLE = " (json.Unmarshal fails on it: the kubelet cannot load the file)"


def _decode(struct, value, where):
    try:
        struct.decode(value, where)
    except NumaGateError as exc:
        return str(exc)
    return None


def top_problem(kind, document, version):
    """The decode failure of the file's own fields (named ``<file>.<field>``), or None."""
    problem = _decode(_TOP[(kind, version)], document, _FILES[kind])
    return problem + _UNLOADABLE if problem else None


def data_problem(kind, payload):
    """The decode failure of the fields inside ``data`` (named ``<file> data.<field>``), or None."""
    return _decode(_DATA[kind], payload, "%s data" % _FILES[kind])


def field(source, key):
    """``source[key]`` as encoding/json finds it: the exact key, else one equal ignoring case; None when absent."""
    if key in source:
        return source[key]
    for name, value in source.items():
        if name.lower() == key.lower():
            return value
    return None


def _parse_problem(text):
    try:
        _cpulist.parse(text or "")
    except ValueError as exc:
        return str(exc)
    return None


def cpuset_problem(source):
    """The kubelet's cpuset parse failure for ``defaultCpuSet`` and the container entries of ``source`` (types checked), or None."""
    default = field(source, "defaultCpuSet") or ""
    problem = _parse_problem(default)
    if problem:
        return "could not parse default cpu set %s: %s" % (json.dumps(default), problem)
    for pod, containers in sorted((field(source, "entries") or {}).items()):
        for container, cpus in sorted((containers or {}).items()):
            problem = _parse_problem(cpus)
            if problem:
                return "could not parse cpuset %s for container %s in pod %s: %s" % (json.dumps(cpus), json.dumps(container), json.dumps(pod), problem)
    return None
