"""Unit tests for the ``nvidia-smi -L`` parser (_facts/nvidia_smi_list.py) on recorded outputs.

The H200 host's output is read in place (../shared/fixtures/real/h200-vm/cmd/nvidia-smi-L.txt). The MIG outputs are
published captures, kept as printed:
- MODERN: 2x A100-SXM4-80GB, two 1g.10gb MIG devices each, a current driver's opaque MIG UUIDs (a cloud provider's
  GPU MIG how-to, "nvidia-smi -L" result, in a public documentation repository);
- LEGACY: 1x A100-SXM4-40GB, seven 1g.5gb MIG devices, the R450 driver's MIG-GPU-<uuid>/<gi>/<ci> UUIDs (NVIDIA
  GPU Operator documentation, "GPU Operator with MIG", nvidia-smi -L in the driver container).
"""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_smi_list as smi_list
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

MODERN = """GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40)
  MIG 1g.10gb     Device  0: (UUID: MIG-a686709d-6dc2-542a-8851-0d2508448c10)
  MIG 1g.10gb     Device  1: (UUID: MIG-53864714-0a66-5df2-9007-9268e30d9a72)
GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-c92e2d5d-4a69-f1cd-4df0-305f8606705a)
  MIG 1g.10gb     Device  0: (UUID: MIG-d5a46a2e-1d77-575d-99e3-1f96c8555a2e)
  MIG 1g.10gb     Device  1: (UUID: MIG-b8479d6e-d08f-5a92-9a24-0946db72b2a0)
"""
LEGACY_PARENT = "GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f"
LEGACY = "GPU 0: A100-SXM4-40GB (UUID: %s)\n" % LEGACY_PARENT + "".join(
    "  MIG 1g.5gb Device %d: (UUID: MIG-%s/%d/0)\n" % (n, LEGACY_PARENT, gi) for n, gi in enumerate((7, 8, 9, 11, 12, 13, 14)))


def mig(uuid, index, profile, gi=None, ci=None):
    return {"index": index, "profile": profile, "uuid": uuid, "gpu_instance": gi, "compute_instance": ci}


def test_h200_host_no_mig():
    with open(os.path.join(shared_paths.H200_VM, "cmd", "nvidia-smi-L.txt"), encoding="utf-8") as handle:
        text = handle.read()
    assert smi_list.parse_list(text) == [{"index": 0, "name": "NVIDIA H200", "uuid": "GPU-f2c38e61-1c95-2e97-c47e-1090719df202",
                                          "mig_devices": []}]


def test_modern_mig_devices_under_their_parent():
    assert smi_list.parse_list(MODERN) == [
        {"index": 0, "name": "NVIDIA A100-SXM4-80GB", "uuid": "GPU-9c73eb7b-8d6d-6c0e-dc13-97873e2ede40",
         "mig_devices": [mig("MIG-a686709d-6dc2-542a-8851-0d2508448c10", 0, "1g.10gb"), mig("MIG-53864714-0a66-5df2-9007-9268e30d9a72", 1, "1g.10gb")]},
        {"index": 1, "name": "NVIDIA A100-SXM4-80GB", "uuid": "GPU-c92e2d5d-4a69-f1cd-4df0-305f8606705a",
         "mig_devices": [mig("MIG-d5a46a2e-1d77-575d-99e3-1f96c8555a2e", 0, "1g.10gb"), mig("MIG-b8479d6e-d08f-5a92-9a24-0946db72b2a0", 1, "1g.10gb")]}]


def test_legacy_mig_uuids_name_gpu_and_compute_instances():
    listed = smi_list.parse_list(LEGACY)
    assert [(d["index"], d["gpu_instance"], d["compute_instance"]) for d in listed[0]["mig_devices"]] == [
        (0, 7, 0), (1, 8, 0), (2, 9, 0), (3, 11, 0), (4, 12, 0), (5, 13, 0), (6, 14, 0)]
    assert listed[0]["mig_devices"][3] == mig("MIG-%s/11/0" % LEGACY_PARENT, 3, "1g.5gb", 11, 0)
    assert smi_list.mig_parent("MIG-%s/11/0" % LEGACY_PARENT) == (LEGACY_PARENT, 11, 0)
    assert smi_list.mig_parent("MIG-a686709d-6dc2-542a-8851-0d2508448c10") is None


@pytest.mark.parametrize("text, message", [
    ("  MIG 1g.10gb     Device  0: (UUID: MIG-a686709d-6dc2-542a-8851-0d2508448c10)\n",
     "nvidia-smi -L line 1: MIG device MIG-a686709d-6dc2-542a-8851-0d2508448c10 is listed before any GPU line"),
    ("GPU 0: X (UUID: GPU-aa)\nNo devices were found\n", "nvidia-smi -L line 2 is neither a GPU nor a MIG device line: 'No devices were found'"),
    ("GPU 0: X (UUID: GPU-aa)\nGPU 1: X (UUID: GPU-AA)\n", "nvidia-smi -L line 2: UUID GPU-AA is listed twice"),
    ("GPU 0: X (UUID: GPU-aa)\n  MIG 1g.5gb Device 0: (UUID: MIG-GPU-bb/1/0)\n",
     "nvidia-smi -L line 2: MIG device MIG-GPU-bb/1/0 names parent GPU-bb but is listed under GPU-aa"),
    (b"GPU 0", "nvidia-smi -L: output must be text, got bytes"),
    ("\n" * 4097, "nvidia-smi -L: 4097 lines, more than the 4096 read; not read"),
])
def test_refused_output_names_the_line(text, message):
    with pytest.raises(smi_list.ListParseError) as err:
        smi_list.parse_list(text)
    assert str(err.value) == message
