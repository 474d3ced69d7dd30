# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU identities and locality from NVML (nvidia-ml-py's pynvml), called as the bindings define.

Public: `gather_nvml`, `import_pynvml`, `words_to_ids`, `NvmlFailure`, `CPU_SET_WORDS`, `NODE_SET_WORDS`.

"GPU NUMA ID" (nvmlDeviceGetNumaNodeId) is the node that is the GPU's own memory on coherent
platforms (Grace Hopper), a different property from its affinity, reported as ``gpu_numa_id``.
"""

from __future__ import annotations

import ctypes

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.cpulist import format as format_cpus
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_affinity
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.nvidia_smi import NvidiaError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.pci import PciAddressError, normalize as normalize_pci

# nvmlDeviceGetCpuAffinity takes the set size in unsigned longs: 128 x 64 bits
# covers the kernel's largest NR_CPUS (8192); 16 x 64 bits covers MAX_NUMNODES (1024).
CPU_SET_WORDS = 128
NODE_SET_WORDS = 16
# pynvml constants, used when an injected module does not define them.
_NVML_ERROR_NOT_SUPPORTED = 3
_NVML_AFFINITY_SCOPE_NODE = 0


def import_pynvml():
    """The pynvml module (from nvidia-ml-py), or raise NvidiaError saying why not."""
    try:
        import pynvml
    except ImportError as err:
        raise NvidiaError("the Python module pynvml (package nvidia-ml-py) cannot be imported: %s" % err) from err
    return pynvml


def _text(value):
    """pynvml returns str (nvidia-ml-py >= 11.515) or bytes (older bindings)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value.replace("\x00", "").strip()


def words_to_ids(words):
    """Bit ids set in an NVML affinity array (unsigned longs, least significant word first)."""
    bits = 8 * ctypes.sizeof(words._type_) if hasattr(words, "_type_") else 64
    ids = []
    for position, word in enumerate(words):
        value = int(word)
        bit = 0
        while value:
            if value & 1:
                ids.append(position * bits + bit)
            value >>= 1
            bit += 1
    return ids


class NvmlFailure(Exception):
    """An NVML call failed in a way that makes the whole NVML answer unusable."""


def gather_nvml(nvml, warnings):
    nvml_error = getattr(nvml, "NVMLError", None)
    if nvml_error is None:
        raise NvmlFailure("the pynvml module %r has no NVMLError class, it is not nvidia-ml-py" % (getattr(nvml, "__name__", nvml),))
    errors = (nvml_error,)
    mismatch = getattr(nvml, "NVMLLibraryMismatchError", None)
    if isinstance(mismatch, type) and issubclass(mismatch, Exception):
        errors = errors + (mismatch,)
    not_supported = getattr(nvml, "NVML_ERROR_NOT_SUPPORTED", _NVML_ERROR_NOT_SUPPORTED)
    scope_node = getattr(nvml, "NVML_AFFINITY_SCOPE_NODE", _NVML_AFFINITY_SCOPE_NODE)

    def call(what, function, *args):
        try:
            return getattr(nvml, function)(*args)
        except errors as err:
            raise NvmlFailure("%s: %s failed: %s" % (what, function, err)) from err

    call("NVML", "nvmlInit")
    try:
        gpus = []
        count = call("NVML", "nvmlDeviceGetCount")
        for index in range(int(count)):
            what = "gpu %d" % index
            handle = call(what, "nvmlDeviceGetHandleByIndex", index)
            uuid = _text(call(what, "nvmlDeviceGetUUID", handle))
            pci = call(what, "nvmlDeviceGetPciInfo", handle)
            bus_id = _text(getattr(pci, "busId", b"") or getattr(pci, "busIdLegacy", b""))
            try:
                address = normalize_pci(bus_id)
            except PciAddressError as err:
                raise NvmlFailure("%s: nvmlDeviceGetPciInfo returned an unusable busId: %s" % (what, err)) from err
            gpu = {
                "index": index,
                "uuid": uuid,
                "pci_address": address,
                "name": _text(call(what, "nvmlDeviceGetName", handle)),
                "numa_node": None,
                "numa_affinity": None,
                "gpu_numa_id": None,
                "cpu_affinity": None,
                "source": "nvml",
            }
            label = nvidia_affinity.gpu_label(gpu)
            try:
                node = int(nvml.nvmlDeviceGetNumaNodeId(handle))
                gpu["gpu_numa_id"] = node if node >= 0 else None
            except errors as err:
                if getattr(err, "value", None) != not_supported:
                    warnings.append("%s: nvmlDeviceGetNumaNodeId failed, gpu_numa_id unknown: %s" % (label, err))
            except AttributeError:
                pass  # bindings older than the call
            try:
                cpus = format_cpus(words_to_ids(nvml.nvmlDeviceGetCpuAffinity(handle, CPU_SET_WORDS)))
                if cpus:
                    gpu["cpu_affinity"] = cpus
                else:
                    warnings.append("%s: nvmlDeviceGetCpuAffinity returned no CPUs, cpu_affinity unknown" % label)
            except errors as err:
                warnings.append("%s: nvmlDeviceGetCpuAffinity failed, cpu_affinity unknown: %s" % (label, err))
            memory_affinity = getattr(nvml, "nvmlDeviceGetMemoryAffinity", None)
            if memory_affinity is None:
                warnings.append("%s: these NVML bindings lack nvmlDeviceGetMemoryAffinity, numa_node unknown" % label)
            else:
                try:
                    gpu["numa_affinity"] = format_cpus(words_to_ids(memory_affinity(handle, NODE_SET_WORDS, scope_node)))
                    gpu["numa_node"] = nvidia_affinity.numa_node_of(gpu["numa_affinity"])
                    nvidia_affinity.locality_warning(gpu, "NVML memory", warnings)
                except errors as err:
                    warnings.append("%s: nvmlDeviceGetMemoryAffinity failed, numa_node unknown: %s" % (label, err))
            gpus.append(gpu)
        return gpus
    finally:
        try:
            nvml.nvmlShutdown()
        except errors as err:
            warnings.append("NVML: nvmlShutdown failed: %s" % err)
