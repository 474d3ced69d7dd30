"""Unit tests for gather_nvidia (_facts/nvidia.py): nvidia-smi recorded on the h200 host, and NVML.

The nvidia-smi outputs are real (../shared/fixtures, read in place). NVML is a
test double: `FakePynvml` mimics nvidia-ml-py 13.x (pynvml.py) call for call:
the same function names and arguments, NVMLError subclasses chosen by error
code with the same messages, ctypes c_ulonglong arrays of the requested size
from the affinity calls, and str (current bindings) or bytes (bindings before
11.515) from the string calls. Its data is the NVML capture recorded on the
h200 host (fixtures/real/h200-vm/capture.json, key "nvml").
"""

import ctypes
import json
import sys
import types
from pathlib import Path

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia as nv
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_smi as smi
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvml
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import NoCommandsRunner, RecordedRunner
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

FIXTURES = Path(shared_paths.FIXTURES)
SMI = FIXTURES / "nvidia-smi"
H200 = FIXTURES / "real" / "h200-vm"
H200_UUID = "GPU-f2c38e61-1c95-2e97-c47e-1090719df202"


def read(path):
    with open(str(path), encoding="utf-8") as handle:
        return handle.read()


@pytest.fixture(scope="module")
def h200_capture():
    return json.loads(read(H200 / "capture.json"))


def h200_runner(override=None):
    """Replays the outputs recorded on the h200 host; ``override`` maps argv to (rc, out, err)."""
    outputs = {
        smi.QUERY_ARGV: (0, read(H200 / "cmd" / "nvidia-smi-query-gpu.txt"), ""),
        smi.TOPO_ARGV: (0, read(H200 / "cmd" / "nvidia-smi-topo-m.txt"), ""),
    }
    outputs.update(override or {})
    return RecordedRunner(outputs)


# ---------------------------------------------------------------------------
# gather_nvidia through nvidia-smi (recorded on the h200 host)

H200_SMI_GPU = {
    "index": 0,
    "uuid": H200_UUID,
    "pci_address": "0000:00:06.0",
    "name": "NVIDIA H200",
    "numa_node": 0,
    "numa_affinity": "0",
    "gpu_numa_id": None,
    "cpu_affinity": "0-15",
    "source": "nvidia-smi",
}
# As topo -m read it: the GPU's row has no other GPU and no NIC column on this VM.
H200_SMI_TOPO = dict(H200_SMI_GPU, topo_links={"gpus": {}, "nics": []})


def test_argvs_are_the_recorded_ones(h200_capture):
    commands = h200_capture["commands"]
    assert list(smi.QUERY_ARGV) == commands["nvidia-smi-query-gpu"]["argv"]
    assert list(smi.TOPO_ARGV) == commands["nvidia-smi-topo-m"]["argv"]


@pytest.mark.parametrize("source", ["nvidia-smi", "auto"])
def test_gather_h200_nvidia_smi(source, monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # "auto" must not find a real pynvml
    runner = h200_runner()
    gpus, warnings = nv.gather_nvidia(source, runner)
    assert gpus == [H200_SMI_TOPO]
    assert warnings == []
    assert runner.calls == [smi.QUERY_ARGV, smi.TOPO_ARGV]


def test_gather_h100_topo_correlates_by_index():
    query = "index, uuid, pci.bus_id, name, memory.total [MiB], driver_version\n" + "".join(
        "%d, GPU-%d, 00000000:%02X:00.0, NVIDIA H100 80GB HBM3, 81559 MiB, 570.86.15\n" % (i, i, 0x18 + i) for i in (7, 0, 4)
    )
    runner = RecordedRunner({smi.QUERY_ARGV: (0, query, ""), smi.TOPO_ARGV: (0, read(SMI / "h100-8gpu-10nic-topo-m.txt"), "")})
    gpus, warnings = nv.gather_nvidia("nvidia-smi", runner)
    assert [(g["index"], g["pci_address"], g["numa_node"], g["cpu_affinity"]) for g in gpus] == [
        (0, "0000:18:00.0", 0, "0-63,128-191"),
        (4, "0000:1c:00.0", 1, "64-127,192-255"),
        (7, "0000:1f:00.0", 1, "64-127,192-255"),
    ]
    assert warnings == ["nvidia-smi topo -m lists GPU%d, which --query-gpu did not report" % i for i in (1, 2, 3, 5, 6)]


def test_gather_numa_range_is_a_warning_not_a_guess():
    query = (
        "index, uuid, pci.bus_id, name, memory.total [MiB], driver_version\n"
        "0, GPU-0, 00000000:41:00.0, NVIDIA A100, 40960 MiB, 535.1\n"
        "1, GPU-1, 00000000:42:00.0, NVIDIA A100, 40960 MiB, 535.1\n"
    )
    topo = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\t0-63\t0-1\n"
    runner = RecordedRunner({smi.QUERY_ARGV: (0, query, ""), smi.TOPO_ARGV: (0, topo + "GPU1\tSYS\t X \tN/A\tN/A\n", "")})
    gpus, warnings = nv.gather_nvidia("nvidia-smi", runner)
    assert [(g["numa_node"], g["numa_affinity"], g["cpu_affinity"]) for g in gpus] == [(None, "0-1", "0-63"), (None, None, None)]
    assert warnings == ["gpu 0 (0000:41:00.0): nvidia-smi topo -m NUMA affinity is '0-1' (more than one node), so numa_node is left unknown"]


def test_gather_topo_failure_keeps_identities_with_a_warning():
    runner = h200_runner({smi.TOPO_ARGV: (3, "", "topo: not supported in this configuration\n")})
    gpus, warnings = nv.gather_nvidia("nvidia-smi", runner)
    assert gpus == [dict(H200_SMI_GPU, numa_node=None, numa_affinity=None, cpu_affinity=None)]
    assert warnings == [
        "nvidia-smi topo -m gave no locality, numa_node and cpu_affinity of every GPU are unknown:"
        " nvidia-smi topo -m failed with rc 3: topo: not supported in this configuration"
    ]


def test_gather_topo_garbage_is_a_warning():
    runner = h200_runner({smi.TOPO_ARGV: (0, "garbage\n", "")})
    gpus, warnings = nv.gather_nvidia("nvidia-smi", runner)
    assert gpus[0]["cpu_affinity"] is None
    assert len(warnings) == 1
    assert "nvidia-smi topo -m output 'garbage' has no matrix header" in warnings[0]


def test_gather_no_gpus_does_not_run_topo():
    runner = RecordedRunner({smi.QUERY_ARGV: (0, "index, uuid, pci.bus_id, name, memory.total [MiB], driver_version\n", "")})
    assert nv.gather_nvidia("nvidia-smi", runner) == ([], [])
    assert runner.calls == [smi.QUERY_ARGV]


def test_gather_explicit_nvidia_smi_missing():
    with pytest.raises(smi.NvidiaError) as err:
        nv.gather_nvidia("nvidia-smi", NoCommandsRunner())
    assert str(err.value) == "GPU source 'nvidia-smi': nvidia-smi is not installed (not found on PATH)"


def test_gather_explicit_nvidia_smi_rc():
    driver_down = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n"
    )
    runner = RecordedRunner({smi.QUERY_ARGV: (9, driver_down, "")})
    with pytest.raises(smi.NvidiaError) as err:
        nv.gather_nvidia("nvidia-smi", runner)
    assert str(err.value) == (
        "GPU source 'nvidia-smi': nvidia-smi --query-gpu=index,uuid,pci.bus_id,name,memory.total,driver_version --format=csv"
        " failed with rc 9: " + driver_down.strip()
    )


def test_gather_explicit_nvidia_smi_garbage():
    runner = RecordedRunner({smi.QUERY_ARGV: (0, "this is not csv output\n", "")})
    with pytest.raises(smi.NvidiaError) as err:
        nv.gather_nvidia("nvidia-smi", runner)
    assert "printed output that could not be read: nvidia-smi --query-gpu header 'this is not csv output'" in str(err.value)


def test_gather_auto_nvidia_smi_failure_is_a_warning(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    runner = RecordedRunner({smi.QUERY_ARGV: (6, "No devices were found\n", "")})
    assert nv.gather_nvidia("auto", runner) == (
        None,
        ["nvidia-smi gave no GPUs: nvidia-smi --query-gpu=index,uuid,pci.bus_id,name,memory.total,driver_version --format=csv"
         " failed with rc 6: No devices were found"],
    )


def test_gather_auto_nothing_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    runner = NoCommandsRunner()
    assert nv.gather_nvidia("auto", runner) == (None, [])


def test_gather_rejects_unknown_source():
    with pytest.raises(smi.NvidiaError, match="GPU source 'sysfs' is not one of auto, nvml, nvidia-smi"):
        nv.gather_nvidia("sysfs", NoCommandsRunner())


# ---------------------------------------------------------------------------
# NVML through a faithful fake of nvidia-ml-py

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_GPU_IS_LOST = 15
_ERROR_STRINGS = {
    NVML_ERROR_UNINITIALIZED: "Uninitialized",
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_GPU_IS_LOST: "GPU is lost",
}


class NVMLError(Exception):
    """Like pynvml.NVMLError: NVMLError(code) builds the subclass for that code."""

    _valClassMapping = {}

    def __new__(cls, value):
        target = NVMLError._valClassMapping.get(value, cls) if cls is NVMLError else cls
        obj = Exception.__new__(target)
        obj.value = value
        return obj

    def __str__(self):
        return _ERROR_STRINGS.get(self.value, "NVML Error with code %d" % self.value)


def _error_class(name, code):
    """One NVMLError_* subclass, as pynvml._extractNVMLErrorsAsClasses makes them."""

    def new(typ, *_args):
        return NVMLError.__new__(typ, code)

    return type(name, (NVMLError,), {"__new__": new})


for _code, _name in [
    (NVML_ERROR_UNINITIALIZED, "NVMLError_Uninitialized"),
    (NVML_ERROR_NOT_SUPPORTED, "NVMLError_NotSupported"),
    (NVML_ERROR_DRIVER_NOT_LOADED, "NVMLError_DriverNotLoaded"),
    (NVML_ERROR_LIBRARY_NOT_FOUND, "NVMLError_LibraryNotFound"),
    (NVML_ERROR_GPU_IS_LOST, "NVMLError_GpuIsLost"),
]:
    NVMLError._valClassMapping[_code] = _error_class(_name, _code)


class FakePynvml(types.ModuleType):
    """pynvml's API over recorded per-GPU data; ``fail`` maps a function name to an NVML error code."""

    NVMLError = NVMLError
    NVML_ERROR_NOT_SUPPORTED = NVML_ERROR_NOT_SUPPORTED
    NVML_AFFINITY_SCOPE_NODE = 0
    NVML_AFFINITY_SCOPE_SOCKET = 1

    def __init__(self, gpus, as_bytes=False, fail=None):
        super().__init__("pynvml")
        self.gpus = gpus
        self.as_bytes = as_bytes
        self.fail = dict(fail or {})
        self.refcount = 0
        self.calls = []

    def _enter(self, name, *args):
        self.calls.append((name,) + args)
        if name in self.fail:
            raise NVMLError(self.fail[name])
        if name != "nvmlInit" and self.refcount == 0:
            raise NVMLError(NVML_ERROR_UNINITIALIZED)

    def _str(self, text):
        return text.encode() if self.as_bytes else text

    def _gpu(self, handle):
        if handle not in self.gpus:
            raise AssertionError("unknown handle %r" % (handle,))
        return self.gpus[handle]

    def nvmlInit(self):
        self._enter("nvmlInit")
        self.refcount += 1

    def nvmlShutdown(self):
        self._enter("nvmlShutdown")
        self.refcount -= 1

    def nvmlDeviceGetCount(self):
        self._enter("nvmlDeviceGetCount")
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index):
        self._enter("nvmlDeviceGetHandleByIndex", index)
        return "handle-%d" % index

    def nvmlDeviceGetUUID(self, handle):
        self._enter("nvmlDeviceGetUUID", handle)
        return self._str(self._gpu(handle)["uuid"])

    def nvmlDeviceGetName(self, handle):
        self._enter("nvmlDeviceGetName", handle)
        return self._str(self._gpu(handle)["name"])

    def nvmlDeviceGetPciInfo(self, handle):
        self._enter("nvmlDeviceGetPciInfo", handle)
        bus_id = self._gpu(handle)["pci_bus_id"]
        return types.SimpleNamespace(busId=self._str(bus_id), busIdLegacy=self._str(bus_id[4:]))

    def nvmlDeviceGetNumaNodeId(self, handle):
        self._enter("nvmlDeviceGetNumaNodeId", handle)
        value = self._gpu(handle)["numa_node_id"]
        if isinstance(value, str):  # the capture records "error: Not Supported"
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
        return value

    @staticmethod
    def _words(words, size):
        array = (ctypes.c_ulonglong * size)()
        for position, word in enumerate(words[:size]):
            array[position] = word
        return array

    def nvmlDeviceGetCpuAffinity(self, handle, cpuSetSize):
        self._enter("nvmlDeviceGetCpuAffinity", handle, cpuSetSize)
        return self._words(self._gpu(handle)["cpu_affinity_words"], cpuSetSize)

    def nvmlDeviceGetMemoryAffinity(self, handle, nodeSetSize, scope):
        self._enter("nvmlDeviceGetMemoryAffinity", handle, nodeSetSize, scope)
        assert scope == self.NVML_AFFINITY_SCOPE_NODE
        return self._words(self._gpu(handle)["memory_affinity_words"], nodeSetSize)


def fake_from_capture(capture, **kwargs):
    gpus = dict(("handle-%d" % g["index"], g) for g in capture["nvml"]["gpus"])
    return FakePynvml(gpus, **kwargs)


H200_NVML_GPU = dict(H200_SMI_GPU, source="nvml")


@pytest.mark.parametrize("as_bytes", [False, True])
@pytest.mark.parametrize("source", ["nvml", "auto"])
def test_gather_nvml_h200_capture(h200_capture, source, as_bytes):
    fake = fake_from_capture(h200_capture, as_bytes=as_bytes)
    runner = h200_runner()
    gpus, warnings = nv.gather_nvidia(source, runner, nvml=fake)
    assert gpus == [H200_NVML_GPU]
    assert warnings == []
    assert runner.calls == []
    assert fake.refcount == 0
    assert fake.calls[-1] == ("nvmlShutdown",)
    assert ("nvmlDeviceGetCpuAffinity", "handle-0", nvml.CPU_SET_WORDS) in fake.calls
    assert ("nvmlDeviceGetMemoryAffinity", "handle-0", nvml.NODE_SET_WORDS, 0) in fake.calls


def _two_socket_gpus():
    full = (1 << 64) - 1
    return {
        # GPU on node 1 of a 2x96-thread box: CPUs 48-95 and 144-191, GPU memory node 2 (coherent).
        "handle-0": {"uuid": "GPU-a", "name": "NVIDIA GH200", "pci_bus_id": "00000009:01:00.0", "numa_node_id": 2,
                     "cpu_affinity_words": [full ^ ((1 << 48) - 1), full >> 32, (full >> 16) << 16], "memory_affinity_words": [2]},
        # Affinity spanning both nodes: numa_node unknown, with a warning.
        "handle-1": {"uuid": "GPU-b", "name": "NVIDIA A100", "pci_bus_id": "00000000:C1:00.0", "numa_node_id": -1,
                     "cpu_affinity_words": [full, full, full], "memory_affinity_words": [3]},
    }


def test_gather_nvml_multi_word_affinity_and_gpu_numa_id():
    fake = FakePynvml(_two_socket_gpus())
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert gpus == [
        {"index": 0, "uuid": "GPU-a", "pci_address": "0009:01:00.0", "name": "NVIDIA GH200", "numa_node": 1, "numa_affinity": "1",
         "gpu_numa_id": 2, "cpu_affinity": "48-95,144-191", "source": "nvml"},
        {"index": 1, "uuid": "GPU-b", "pci_address": "0000:c1:00.0", "name": "NVIDIA A100", "numa_node": None, "numa_affinity": "0-1",
         "gpu_numa_id": None, "cpu_affinity": "0-191", "source": "nvml"},
    ]
    assert warnings == ["gpu 1 (0000:c1:00.0): NVML memory NUMA affinity is '0-1' (more than one node), so numa_node is left unknown"]


def test_gather_nvml_optional_calls_fail_per_device(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlDeviceGetCpuAffinity": NVML_ERROR_GPU_IS_LOST, "nvmlDeviceGetMemoryAffinity": NVML_ERROR_NOT_SUPPORTED})
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert gpus == [dict(H200_NVML_GPU, numa_node=None, numa_affinity=None, cpu_affinity=None)]
    assert warnings == [
        "gpu 0 (0000:00:06.0): nvmlDeviceGetCpuAffinity failed, cpu_affinity unknown: GPU is lost",
        "gpu 0 (0000:00:06.0): nvmlDeviceGetMemoryAffinity failed, numa_node unknown: Not Supported",
    ]


def test_gather_nvml_numa_node_id_other_error_is_a_warning(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlDeviceGetNumaNodeId": NVML_ERROR_GPU_IS_LOST})
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert gpus == [H200_NVML_GPU]
    assert warnings == ["gpu 0 (0000:00:06.0): nvmlDeviceGetNumaNodeId failed, gpu_numa_id unknown: GPU is lost"]


def test_gather_nvml_empty_cpu_affinity_is_unknown(h200_capture):
    capture = json.loads(json.dumps(h200_capture))
    capture["nvml"]["gpus"][0]["cpu_affinity_words"] = [0] * 64
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake_from_capture(capture))
    assert gpus[0]["cpu_affinity"] is None
    assert warnings == ["gpu 0 (0000:00:06.0): nvmlDeviceGetCpuAffinity returned no CPUs, cpu_affinity unknown"]


def test_gather_nvml_old_bindings_without_memory_affinity(h200_capture):
    """Bindings older than nvmlDeviceGetMemoryAffinity (the attribute is missing)."""

    class OldBindings(FakePynvml):
        def __getattribute__(self, name):
            if name == "nvmlDeviceGetMemoryAffinity":
                raise AttributeError(name)
            return super().__getattribute__(name)

    old = OldBindings(fake_from_capture(h200_capture).gpus)
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=old)
    assert gpus == [dict(H200_NVML_GPU, numa_node=None, numa_affinity=None)]
    assert warnings == ["gpu 0 (0000:00:06.0): these NVML bindings lack nvmlDeviceGetMemoryAffinity, numa_node unknown"]


def test_gather_nvml_explicit_init_failure(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlInit": NVML_ERROR_DRIVER_NOT_LOADED})
    with pytest.raises(smi.NvidiaError) as err:
        nv.gather_nvidia("nvml", h200_runner(), nvml=fake)
    assert str(err.value) == "GPU source 'nvml': NVML: nvmlInit failed: Driver Not Loaded"
    assert ("nvmlShutdown",) not in fake.calls


def test_gather_auto_nvml_init_failure_falls_back_to_nvidia_smi(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlInit": NVML_ERROR_LIBRARY_NOT_FOUND})
    runner = h200_runner()
    gpus, warnings = nv.gather_nvidia("auto", runner, nvml=fake)
    assert gpus == [H200_SMI_TOPO]
    assert warnings == ["NVML: nvmlInit failed: NVML Shared Library Not Found; falling back to nvidia-smi"]


def test_gather_auto_nvml_device_failure_falls_back_and_shuts_down(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlDeviceGetUUID": NVML_ERROR_GPU_IS_LOST})
    gpus, warnings = nv.gather_nvidia("auto", h200_runner(), nvml=fake)
    assert gpus == [H200_SMI_TOPO]
    assert warnings == ["gpu 0: nvmlDeviceGetUUID failed: GPU is lost; falling back to nvidia-smi"]
    assert fake.refcount == 0
    assert fake.calls[-1] == ("nvmlShutdown",)


def test_gather_nvml_explicit_device_failure_shuts_down(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlDeviceGetCount": NVML_ERROR_UNINITIALIZED})
    with pytest.raises(smi.NvidiaError, match="^GPU source 'nvml': NVML: nvmlDeviceGetCount failed: Uninitialized$"):
        nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert fake.refcount == 0


def test_gather_nvml_shutdown_failure_is_a_warning(h200_capture):
    fake = fake_from_capture(h200_capture, fail={"nvmlShutdown": NVML_ERROR_UNINITIALIZED})
    gpus, warnings = nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake)
    assert gpus == [H200_NVML_GPU]
    assert warnings == ["NVML: nvmlShutdown failed: Uninitialized"]


def test_gather_nvml_bad_bus_id(h200_capture):
    capture = json.loads(json.dumps(h200_capture))
    capture["nvml"]["gpus"][0]["pci_bus_id"] = "garbage!"
    with pytest.raises(smi.NvidiaError) as err:
        nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake_from_capture(capture))
    assert str(err.value) == (
        "GPU source 'nvml': gpu 0: nvmlDeviceGetPciInfo returned an unusable busId:"
        " PCI address 'garbage!' is not of the form [domain:]bus:device.function"
    )


def test_gather_nvml_zero_gpus():
    fake = FakePynvml({})
    assert nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=fake) == ([], [])
    assert fake.calls == [("nvmlInit",), ("nvmlDeviceGetCount",), ("nvmlShutdown",)]


def test_gather_nvml_module_not_pynvml():
    with pytest.raises(smi.NvidiaError, match="has no NVMLError class, it is not nvidia-ml-py"):
        nv.gather_nvidia("nvml", NoCommandsRunner(), nvml=types.ModuleType("pynvml"))


def test_gather_explicit_nvml_not_importable(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    with pytest.raises(smi.NvidiaError) as err:
        nv.gather_nvidia("nvml", h200_runner())
    assert str(err.value).startswith("GPU source 'nvml': the Python module pynvml (package nvidia-ml-py) cannot be imported: ")


def test_gather_auto_imports_pynvml_when_not_injected(monkeypatch, h200_capture):
    fake = fake_from_capture(h200_capture)
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    runner = h200_runner()
    assert nv.gather_nvidia("auto", runner) == ([H200_NVML_GPU], [])
    assert runner.calls == []
