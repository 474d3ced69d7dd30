# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA GPU identities and locality: NVML, else nvidia-smi, through an injectable runner.

Public: `gather_nvidia`, `SOURCES`. Its errors are `nvidia_smi.NvidiaError`.

`gather_nvidia` asks NVML (`nvml`), else runs ``nvidia-smi --query-gpu`` and ``nvidia-smi topo -m``
once each (`nvidia_smi` parses them), and returns one dict per GPU plus warnings.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gpu_links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_affinity
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvml as nvml_reader
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.nvidia_smi import (
    NvidiaError, QueryParseError, QUERY_ARGV, TOPO_ARGV, parse_query_gpu_csv, parse_topo_m,
)

SOURCES = ("auto", "nvml", "nvidia-smi")


def _run(runner, argv):
    rc, out, err = runner.run(list(argv))
    if rc != 0:
        reason = (err or "").strip() or (out or "").strip() or "no output"
        raise NvidiaError("%s failed with rc %s: %s" % (" ".join(argv), rc, reason.splitlines()[0][:300]))
    return out or ""


def _gather_smi(runner, warnings):
    if runner.find("nvidia-smi") is None:
        raise NvidiaError("nvidia-smi is not installed (not found on PATH)")
    try:
        rows = parse_query_gpu_csv(_run(runner, QUERY_ARGV), header=True)
    except QueryParseError as err:
        raise NvidiaError("%s printed output that could not be read: %s" % (" ".join(QUERY_ARGV), err)) from err
    gpus = []
    for row in rows:
        missing = [f for f in ("index", "uuid", "pci.bus_id") if row.get(f) is None]
        if missing:
            raise NvidiaError("%s: a GPU line lacks %s: %r" % (" ".join(QUERY_ARGV), ", ".join(missing), row))
        gpus.append(
            {
                "index": row["index"],
                "uuid": row["uuid"],
                "pci_address": row["pci.bus_id"],
                "name": row.get("name"),
                "numa_node": None,
                "numa_affinity": None,
                "gpu_numa_id": None,
                "cpu_affinity": None,
                "source": "nvidia-smi",
            }
        )
    gpus.sort(key=lambda g: g["index"])
    if not gpus:
        return gpus
    try:
        topo = parse_topo_m(_run(runner, TOPO_ARGV))
    except NvidiaError as err:
        warnings.append("nvidia-smi topo -m gave no locality, numa_node and cpu_affinity of every GPU are unknown: %s" % err)
        return gpus
    by_index = dict((row["index"], row) for row in topo["gpus"])
    for gpu in gpus:
        row = by_index.pop(gpu["index"], None)
        if row is None:
            warnings.append("%s: nvidia-smi topo -m has no GPU%d row, numa_node and cpu_affinity unknown" % (nvidia_affinity.gpu_label(gpu), gpu["index"]))
            continue
        gpu["cpu_affinity"] = row["cpu_affinity"]
        gpu["numa_affinity"] = row["numa_affinity"]
        gpu["gpu_numa_id"] = row["gpu_numa_id"]
        gpu["numa_node"] = nvidia_affinity.numa_node_of(row["numa_affinity"])
        # The GPU's row of the link matrix, kept for the facts' links (gpu_links.attach).
        gpu["topo_links"] = gpu_links.topo_row(topo, gpu["index"])
        nvidia_affinity.locality_warning(gpu, "nvidia-smi topo -m", warnings)
    for index in sorted(by_index):
        warnings.append("nvidia-smi topo -m lists GPU%d, which --query-gpu did not report" % index)
    return gpus


def gather_nvidia(source, runner, nvml=None):
    """GPU identities and locality from NVML or nvidia-smi.

    ``source`` is "auto" (NVML when pynvml imports and nvmlInit works, else
    nvidia-smi when ``runner.find`` finds it, else nothing), "nvml" or
    "nvidia-smi" (that tool only; missing or failing raises NvidiaError).
    ``nvml`` replaces the pynvml module (tests pass a fake). Returns
    ``(gpus, warnings)``: gpus is None when no source was usable (auto only),
    else a list sorted by index of ``{index, uuid, pci_address, name,
    numa_node, numa_affinity, gpu_numa_id, cpu_affinity, source}``, and from
    nvidia-smi ``topo_links`` (`gpu_links.topo_row`) where topo -m has the GPU's row.
    """
    if source not in SOURCES:
        raise NvidiaError("GPU source %r is not one of %s" % (source, ", ".join(SOURCES)))
    warnings = []
    if source in ("auto", "nvml"):
        module = nvml
        if module is None:
            try:
                module = nvml_reader.import_pynvml()
            except NvidiaError as err:
                if source == "nvml":
                    raise NvidiaError("GPU source 'nvml': %s" % err) from err
        if module is not None:
            try:
                return nvml_reader.gather_nvml(module, warnings), warnings
            except nvml_reader.NvmlFailure as err:
                if source == "nvml":
                    raise NvidiaError("GPU source 'nvml': %s" % err) from err
                warnings.append("%s; falling back to nvidia-smi" % err)
    if source == "auto" and runner.find("nvidia-smi") is None:
        return None, warnings
    try:
        return _gather_smi(runner, warnings), warnings
    except NvidiaError as err:
        if source == "nvidia-smi":
            raise NvidiaError("GPU source 'nvidia-smi': %s" % err) from err
        warnings.append("nvidia-smi gave no GPUs: %s" % err)
        return None, warnings
