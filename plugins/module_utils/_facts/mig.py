# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""MIG devices of each NVIDIA GPU, from ``nvidia-smi -L`` run once through the injected runner.

Public: `attach_mig_devices`.

Each GPU an NVIDIA reader (NVML, nvidia-smi) reported gets ``mig_devices``: the MIG devices ``nvidia-smi -L`` lists
under it ([] when none, so not in MIG mode or no instance made), matched by GPU UUID; None, with a warning naming why,
when the list could not be read. A pod's ``MIG-...`` device ID is mapped to its parent GPU through them.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.nvidia_smi_list import LIST_ARGV, ListParseError, parse_list

_COMMAND = " ".join(LIST_ARGV)


def _listed(notes, runner):
    """The GPUs ``nvidia-smi -L`` lists, or None (with a warning)."""
    if runner.find(LIST_ARGV[0]) is None:
        notes.add("MIG devices unknown: %s is not installed (not found on PATH)" % LIST_ARGV[0])
        return None
    rc, out, err = runner.run(list(LIST_ARGV))
    if rc != 0:
        reason = ((err or "").strip() or (out or "").strip() or "no output").splitlines()[0][:300]
        notes.add("MIG devices unknown: %s failed with rc %s: %s" % (_COMMAND, rc, reason))
        return None
    try:
        return parse_list(out or "")
    except ListParseError as exc:
        notes.add("MIG devices unknown: %s" % exc)
        return None


def attach_mig_devices(notes, gpus, runner):
    """Set ``mig_devices`` on every GPU an NVIDIA reader reported (see the module docstring); others are left as they are."""
    nvidia = [gpu for gpu in gpus if gpu.get("vendor") == "nvidia" and gpu.get("source") in ("nvml", "nvidia-smi")]
    if not nvidia:
        return
    for gpu in nvidia:
        gpu["mig_devices"] = None
    listed = _listed(notes, runner)
    if listed is None:
        return
    by_uuid = {entry["uuid"].lower(): entry for entry in listed}
    for gpu in nvidia:
        entry = by_uuid.get((gpu.get("uuid") or "").lower())
        if entry is None:
            notes.add("gpu %s: %s does not list %s; its MIG devices are unknown" % (gpu.get("pci_address") or gpu.get("index"), _COMMAND, gpu.get("uuid")))
            continue
        gpu["mig_devices"] = [{key: device[key] for key in ("uuid", "profile", "index", "gpu_instance", "compute_instance")}
                              for device in entry["mig_devices"]]
