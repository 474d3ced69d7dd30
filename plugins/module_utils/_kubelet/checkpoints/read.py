# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a ``cpu_manager_state`` or ``memory_manager_state`` file the way the 1.37 kubelet does.

Public: `read_cpu(blob)`, `read_memory(blob)`, `absent(kind)`, `CORRUPT`.

Each returns a report (a dict, JSON-ready): the ``format`` (CPU ``V1``..``V4``, memory
``V1``..``V3``), whether 1.37 would ``load`` it and if not the ``problem`` in the kubelet's words,
the ``policy`` (from ``data`` where present, as 1.37 reads it), the CPU ``default_cpu_set``,
container ``entries`` and pod-level ``pod_entries``, the memory ``machine_state``, every
checksum with its ``status`` (``valid``, ``invalid`` or ``absent``), and ``downgrade``: what a 1.36 kubelet
would keep of the file and what it would lose.

Sources: pkg/kubelet/cm/cpumanager/state/{checkpoint.go,state_checkpoint.go},
pkg/kubelet/cm/memorymanager/state/{checkpoint.go,state_checkpoint.go},
pkg/kubelet/checkpointmanager/errors ("checkpoint is corrupted"). A checksum of 0 in a V1/V2
file is "absent": the kubelet accepts it ("accept empty checksum for compatibility").
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import fields as checkpoint_shape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import go_types as types
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints.checksum import data_checksum, legacy_checksum

CORRUPT = "checkpoint is corrupted"
_FILES = {"cpu": "cpu_manager_state", "memory": "memory_manager_state"}


def absent(kind):
    """The report for a checkpoint file that does not exist (the kubelet writes a fresh one)."""
    return {"file": _FILES[kind], "present": False, "format": None, "load": True, "problem": None,
            "policy": None, "checksums": {}, "downgrade": None}


def _surrogate(value, where):
    """``(where, text, offset)`` of the first string (key or value) with a lone UTF-16 surrogate, or None."""
    pending = [(value, where)]
    while pending:
        value, where = pending.pop()
        if isinstance(value, dict):
            pending.extend((item, "%s.%s" % (where, key if len(key) <= 40 else key[:40] + "...")) for key, item in value.items())
            pending.extend((key, "a key of %s" % where) for key in value)  # popped first: a path never holds one
        elif isinstance(value, list):
            pending.extend((item, "%s[%d]" % (where, index)) for index, item in enumerate(value))
        elif isinstance(value, str):
            for offset, char in enumerate(value):
                if "\ud800" <= char <= "\udfff":
                    return where, char, offset
    return None


def _decode(blob, kind):
    try:
        document = _fileio.parse_json(blob)
    except ValueError as exc:
        return None, "%s is not JSON: %s" % (_FILES[kind], exc)
    if not isinstance(document, dict):
        return None, "%s is a JSON %s, not an object" % (_FILES[kind], type(document).__name__)
    found = _surrogate(document, _FILES[kind])
    if found:
        return None, ("%s has a lone UTF-16 surrogate \\u%04x at offset %d (a JSON escape without its pair: Go's encoding/json "
                      "reads it as U+FFFD and the kubelet never writes one); not read as a checkpoint" % (found[0], ord(found[1]), found[2]))
    return document, None


def _unreadable(kind, problem):
    report = absent(kind)
    report.update(present=True, load=False, problem=problem)
    return report


def _legacy(document, struct, names, zero_is_absent=True):
    """The legacy checksum's status; ``names`` are the type names the kubelet accepts a hash under."""
    stored = document.get("checksum")
    if "checksum" not in document:
        return {"status": "absent", "stored": None, "computed": None}
    try:
        computed = [legacy_checksum(document, struct, name) for name in names]
    except NumaGateError as exc:
        return {"status": "invalid", "stored": stored, "computed": None, "reason": str(exc)}
    if stored == 0 and zero_is_absent:
        return {"status": "absent", "stored": 0, "computed": computed[0]}
    matched = stored in computed
    return {"status": "valid" if matched else "invalid", "stored": stored, "computed": stored if matched else computed[0]}


def _data(document, kind, version):
    """(payload, checksum report, problem) of the authoritative ``data`` / ``dataChecksum``."""
    data = document.get("data")
    stored = document.get("dataChecksum")
    prefix = "could not load %s checkpoint: " % version
    if not isinstance(data, str):
        return None, {"status": "absent" if stored is None else "invalid", "stored": stored, "computed": None}, \
            prefix + "failed to deserialize %s manager checkpoint data: data is %s" % (
                "cpu" if kind == "cpu" else "memory", "missing" if data is None else "not a string")
    computed = data_checksum(data)
    report = {"status": "valid" if stored == computed else ("absent" if stored is None else "invalid"),
              "stored": stored, "computed": computed}
    try:
        payload = _fileio.parse_json(data)
    except ValueError as exc:
        return None, report, prefix + "failed to deserialize %s manager checkpoint data: %s" % (
            "cpu" if kind == "cpu" else "memory", exc)
    if not isinstance(payload, dict):
        return None, report, prefix + "failed to deserialize data: a JSON %s, not an object" % type(payload).__name__
    shape = checkpoint_shape.data_problem(kind, payload)
    if shape:
        return None, report, prefix + "failed to deserialize %s manager checkpoint data: %s" % ("cpu" if kind == "cpu" else "memory", shape)
    if report["status"] != "valid":
        return payload, report, prefix + CORRUPT
    return payload, report, None


def _cpu_version(document):
    if "data" in document or "dataChecksum" in document:
        return "V4"
    if "podEntries" in document:
        return "V3"
    entries = document.get("entries")
    if isinstance(entries, dict) and any(isinstance(value, str) for value in entries.values()):
        return "V1"
    return "V2"


# A field as encoding/json finds it (exact key, else one equal ignoring case), as the shape checks read it.
_get = checkpoint_shape.field


def _cpu_state(source):
    pods = _get(source, "podEntries") or {}
    return {"policy": _get(source, "policyName"), "default_cpu_set": _get(source, "defaultCpuSet"),
            "entries": _get(source, "entries") or {},
            "pod_entries": {pod: (_get(entry, "cpuSet") or "") if isinstance(entry, dict) else entry
                            for pod, entry in pods.items()}}


def _cpu_legacy_for(document, version):
    if version == "V1":
        return _legacy(document, types.CPU_V1, [types.CPU_LEGACY_NAME])
    # V2 and V3 VerifyChecksum try the hash under the struct's own name, then under the legacy one.
    if version == "V3":
        return _legacy(document, types.CPU_V3, types.CPU_V3_NAMES, zero_is_absent=False)
    return _legacy(document, types.CPU_V2, types.CPU_V2_NAMES)


def _wrong_types(report, problem):
    """The report of a file whose own fields fail json.Unmarshal: nothing read out of it."""
    report.update(load=False, problem=problem, policy=None, downgrade=None)
    return report


def read_cpu(blob):
    """Report on the bytes of a ``cpu_manager_state`` file."""
    document, problem = _decode(blob, "cpu")
    if problem:
        return _unreadable("cpu", problem)
    version = _cpu_version(document)
    report = {"file": _FILES["cpu"], "present": True, "format": version, "checksums": {}}
    shape = checkpoint_shape.top_problem("cpu", document, version)
    if version == "V4":
        payload, report["checksums"]["dataChecksum"], problem = _data(document, "cpu", "v4")
        report["checksums"]["checksum"] = _legacy(document, types.CPU_V2, types.CPU_V2_NAMES)
        if shape:
            return _wrong_types(report, shape)
        report.update(_cpu_state(payload or {}))
        top = _cpu_state(document)
        report["legacy_copy_matches_data"] = payload is not None and all(
            top[key] == report[key] for key in ("policy", "default_cpu_set", "entries"))
        source = payload
    else:
        report["checksums"]["checksum"] = _cpu_legacy_for(document, version)
        if shape:
            return _wrong_types(report, shape)
        report.update(_cpu_state(document))
        status = report["checksums"]["checksum"]["status"]
        problem = None
        if version == "V1":
            problem = "V1 checkpoint (entries keyed by container ID): the 1.37 kubelet no longer migrates it"
        elif status == "invalid":
            problem = CORRUPT
        source = document
    if problem is None and version != "V1" and source is not None:
        # Checked by the kubelet after the policy: a policy that differs is refused first (checkpoint_checks).
        problem = checkpoint_shape.cpuset_problem(source)
        report["problem_after_policy"] = problem is not None
    report.update(load=problem is None, problem=problem, downgrade=_cpu_downgrade(document, version, report))
    return report


def _cpu_downgrade(document, version, report):
    """What a 1.36 kubelet keeps: it tries V3, then V1, then V2 (state_checkpoint.go, 1.36)."""
    if version in ("V1", "V2"):
        keeps = "everything" if report["checksums"]["checksum"]["status"] != "invalid" else "nothing (corrupt)"
        return {"kubelet": "1.36", "reads_as": version, "keeps": keeps, "loses": []}
    legacy = _legacy(document, types.CPU_V2, types.CPU_V2_NAMES)
    if legacy["status"] == "invalid":
        return {"kubelet": "1.36", "reads_as": None, "keeps": "nothing", "loses": ["the whole file: " + CORRUPT]}
    pods = sorted(report.get("pod_entries") or {}) if version == "V4" else sorted(document.get("podEntries") or {})
    return {"kubelet": "1.36", "reads_as": "V2 (the top-level copy)",
            "keeps": "policyName, defaultCpuSet and container entries of the top-level copy",
            "loses": ["pod-level assignments of pod %s" % pod for pod in pods]}


def _memory_version(document):
    if "data" in document or "dataChecksum" in document:
        return "V3"
    return "V2" if "podEntries" in document else "V1"


def _memory_state(source):
    return {"policy": _get(source, "policyName"), "machine_state": _get(source, "machineState") or {},
            "entries": _get(source, "entries") or {}, "pod_entries": _get(source, "podEntries") or {}}


def read_memory(blob):
    """Report on the bytes of a ``memory_manager_state`` file."""
    document, problem = _decode(blob, "memory")
    if problem:
        return _unreadable("memory", problem)
    version = _memory_version(document)
    report = {"file": _FILES["memory"], "present": True, "format": version, "checksums": {}}
    shape = checkpoint_shape.top_problem("memory", document, version)
    if version == "V3":
        payload, report["checksums"]["dataChecksum"], problem = _data(document, "memory", "v3")
        report["checksums"]["checksum"] = _legacy(document, types.MEMORY_V1, [types.MEMORY_LEGACY_NAME])
        if shape:
            return _wrong_types(report, shape)
        report.update(_memory_state(payload or {}))
    else:
        if version == "V2":
            report["checksums"]["checksum"] = _legacy(document, types.MEMORY_V2, [types.MEMORY_LEGACY_NAME], zero_is_absent=False)
        else:
            report["checksums"]["checksum"] = _legacy(document, types.MEMORY_V1, [types.MEMORY_LEGACY_NAME])
        if shape:
            return _wrong_types(report, shape)
        report.update(_memory_state(document))
        problem = CORRUPT if report["checksums"]["checksum"]["status"] == "invalid" else None
    legacy = report["checksums"]["checksum"]
    if version == "V1":
        downgrade = {"kubelet": "1.36", "reads_as": "V1", "keeps": "everything", "loses": []}
    elif legacy["status"] == "invalid":
        downgrade = {"kubelet": "1.36", "reads_as": None, "keeps": "nothing", "loses": ["the whole file: " + CORRUPT]}
    else:
        downgrade = {"kubelet": "1.36", "reads_as": "V1 (the top-level copy)" if version == "V3" else version,
                     "keeps": "policyName, machineState and container entries",
                     "loses": ["pod-level assignments of pod %s" % pod for pod in sorted(report["pod_entries"])]
                     if version == "V3" else []}
    report.update(load=problem is None, problem=problem, downgrade=downgrade)
    return report
