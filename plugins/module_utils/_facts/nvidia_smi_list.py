# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The GPUs and MIG devices ``nvidia-smi -L`` lists, each MIG device under its parent GPU (pure).

Public: `parse_list`, `mig_parent`, `ListParseError`, `LIST_ARGV`.

``nvidia-smi -L`` prints one line per GPU, ``GPU <index>: <name> (UUID: GPU-<uuid>)``, and under a GPU in MIG mode
one indented line per MIG device, ``MIG <profile> Device <n>: (UUID: MIG-<uuid>)`` (profile such as ``1g.10gb`` or
``1c.3g.20gb``). Drivers before R470 print legacy MIG UUIDs, ``MIG-GPU-<parent uuid>/<GPU instance>/<compute
instance>``, which name their parent; current ones print opaque ``MIG-<uuid>`` that carry no placement
("Modern drivers assign opaque MIG UUIDs", NVIDIA k8s-device-plugin internal/rm/health.go), so the parent is the GPU
line the MIG line sits under. A line of any other form is refused, naming it: a guessed parent would map a pod's
device to the wrong NUMA node.
"""

from __future__ import annotations

import re

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.nvidia_smi import NvidiaError

LIST_ARGV = ("nvidia-smi", "-L")
MAX_LINES = 4096
_GPU = re.compile(r"^GPU (\d+): (.*?) \(UUID: (GPU-[0-9A-Fa-f-]+)\)$")
_MIG = re.compile(r"^MIG (\S+)\s+Device\s+(\d+): \(UUID: (MIG-[0-9A-Za-z/-]+)\)$")
_LEGACY = re.compile(r"^MIG-(GPU-[0-9A-Fa-f-]+)/(\d+)/(\d+)$")


class ListParseError(NvidiaError):
    """Text that is not ``nvidia-smi -L`` output."""


def mig_parent(mig_uuid):
    """(parent GPU UUID, GPU instance, compute instance) of a legacy ``MIG-GPU-<uuid>/<gi>/<ci>`` UUID, else None."""
    match = _LEGACY.match(mig_uuid or "")
    if match is None:
        return None
    return match.group(1), int(match.group(2)), int(match.group(3))


def parse_list(text):
    """[{"index", "name", "uuid", "mig_devices": [{"index", "profile", "uuid", "gpu_instance", "compute_instance"}]}], in order.

    ``gpu_instance`` and ``compute_instance`` are known only from a legacy UUID (None otherwise).
    """
    if not isinstance(text, str):
        raise ListParseError("nvidia-smi -L: output must be text, got %s" % type(text).__name__)
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise ListParseError("nvidia-smi -L: %d lines, more than the %d read; not read" % (len(lines), MAX_LINES))
    gpus, seen = [], set()
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        gpu, mig = _GPU.match(line), _MIG.match(line)
        if gpu is not None:
            gpus.append({"index": int(gpu.group(1)), "name": gpu.group(2), "uuid": gpu.group(3), "mig_devices": []})
            uuid = gpu.group(3)
        elif mig is not None:
            uuid = mig.group(3)
            if not gpus:
                raise ListParseError("nvidia-smi -L line %d: MIG device %s is listed before any GPU line" % (number, uuid))
            legacy = mig_parent(uuid)
            if legacy is not None and legacy[0].lower() != gpus[-1]["uuid"].lower():
                raise ListParseError("nvidia-smi -L line %d: MIG device %s names parent %s but is listed under %s"
                                     % (number, uuid, legacy[0], gpus[-1]["uuid"]))
            gpus[-1]["mig_devices"].append({"index": int(mig.group(2)), "profile": mig.group(1), "uuid": uuid,
                                            "gpu_instance": legacy[1] if legacy else None, "compute_instance": legacy[2] if legacy else None})
        else:
            raise ListParseError("nvidia-smi -L line %d is neither a GPU nor a MIG device line: %r" % (number, raw[:200]))
        if uuid.lower() in seen:
            raise ListParseError("nvidia-smi -L line %d: UUID %s is listed twice" % (number, uuid))
        seen.add(uuid.lower())
    return gpus
