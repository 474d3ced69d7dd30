"""The topology gather (_facts/gather.py) on the real H200 host, on small built trees, on broken input and on this machine."""

import json
import os
import shutil

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gpus as _gpus
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia as _nvidia
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gather as _gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import RecordedRunner
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import trees
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import TopologyError, gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths


H200 = shared_paths.H200_VM
HWLOC = shared_paths.HWLOC
H200_UUID = "GPU-f2c38e61-1c95-2e97-c47e-1090719df202"
# topo -m has no NIC column on the VM; the PCI tree puts the virtio eth0 (0000:00:03.0) on the GPU's root, no common bridge.
H200_LINKS = {"gpus": {}, "nics": [{"name": "eth0", "rdma_device": None, "pci_address": "0000:00:03.0", "numa_node": 0, "link": "PHB",
                                    "source": "sysfs pci tree"}], "nearest_nics": ["eth0"], "nearest_link": "PHB"}
MINUS_ONE = "sysfs numa_node is -1, which means unknown (not node 0): the kernel has no NUMA locality for this device"


def recorded_h200_runner():
    """nvidia-smi as it answered on the H200 host: argv from capture.json, stdout from cmd/."""
    with open(os.path.join(H200, "capture.json")) as handle:
        capture = json.load(handle)
    outputs = {}
    for name, command in capture["commands"].items():
        with open(os.path.join(H200, "cmd", name + ".txt")) as handle:
            outputs[tuple(command["argv"])] = (command["rc"], handle.read(), "")
    return RecordedRunner(outputs)


# -- the real H200 host ------------------------------------------------------


def test_h200_nvidia_smi_recorded():
    """The real _nvidia (the default reader) reads the recorded nvidia-smi outputs; sysfs says -1, nvidia-smi says node 0."""
    assert _gpus.default_nvidia() is _nvidia.gather_nvidia  # pylint: disable=protected-access
    runner = recorded_h200_runner()
    facts = gather(H200, gpu_source="nvidia-smi", runner=runner)
    assert facts["gpus"] == [{
        "index": 0,
        "uuid": H200_UUID,
        "pci_address": "0000:00:06.0",
        "name": "NVIDIA H200",
        "vendor": "nvidia",
        "source": "nvidia-smi",
        "numa_node": 0,
        "numa_source": "nvidia-smi",
        "sysfs_numa_node": None,
        "local_cpus": "0-15",
        "vendor_affinity": {"source": "nvidia-smi", "numa_node": 0, "cpus": "0-15", "gpu_numa_id": None},
        "links": H200_LINKS,
        "mig_devices": [],  # nvidia-smi -L lists no MIG device under it
    }]
    assert "gpu 0000:00:06.0: " + MINUS_ONE in facts["warnings"]
    assert runner.calls == [
        ("nvidia-smi", "--query-gpu=index,uuid,pci.bus_id,name,memory.total,driver_version", "--format=csv"),
        ("nvidia-smi", "topo", "-m"),
        ("nvidia-smi", "-L"),
    ]


def test_h200_sysfs_only():
    facts = gather(H200, gpu_source="sysfs")
    assert facts["gpus"] == [{
        "index": 0,
        "uuid": None,
        "pci_address": "0000:00:06.0",
        "name": None,
        "vendor": "nvidia",
        "source": "sysfs",
        # sysfs does not know (-1); the VM has one NUMA node with CPUs, so that is where the GPU is
        "numa_node": 0,
        "numa_source": "single-node",
        "sysfs_numa_node": None,
        "local_cpus": "0-15",
        "vendor_affinity": None,
        "links": H200_LINKS,
    }]
    assert "gpu 0000:00:06.0: " + MINUS_ONE in facts["warnings"]


def test_h200_host_facts():
    facts = gather(H200, gpu_source="none")
    assert facts["kernel"] == "6.18.44-vm"
    assert facts["cpus"] == {"online": "0-15", "offline": "", "isolated": "", "present": "0-15", "possible": "0-15",
                             "smt_active": False, "threads_per_core": 1, "logical": 16, "cores": 16, "packages": 1}
    assert facts["packages"] == [{"id": 0, "cpus": "0-15"}]
    assert facts["numa_nodes"] == [{
        "id": 0, "cpus": "0-15", "memory_bytes": 4550128 * 1024,
        "hugepages": {"2048kB": {"total": 0, "free": 0}, "1048576kB": {"total": 0, "free": 0}},
        "distances": {"0": 10},
    }]
    assert facts["gpus"] == []
    # The snapshot stores its links as files holding the target; eth0 is virtio on PCI 0000:00:03.0.
    # driver is the PCI function's (0000:00:03.0/driver -> .../drivers/virtio-pci), not virtio2's virtio_net.
    assert facts["nics"] == [{
        "name": "eth0", "pci_address": "0000:00:03.0", "driver": "virtio-pci", "numa_node": 0, "numa_source": "single-node",
        "sysfs_numa_node": None, "local_cpus": "0-15", "rdma_devices": [], "virtual_function": False,
    }]
    # proc/self/cgroup was not captured: no restriction can be read, as hwloc would find none
    assert facts["allowed"] == {"cpus": "0-15", "mems": "0", "source": None}


def fake_nvidia(gpus, warnings=()):
    calls = []

    def gather_nvidia(source, runner):
        calls.append(source)
        return gpus, list(warnings)

    gather_nvidia.calls = calls
    return gather_nvidia


def vendor_gpu(**overrides):
    gpu = {"index": 0, "uuid": H200_UUID, "pci_address": "00000000:00:06.0", "name": "NVIDIA H200",
           "numa_node": 0, "cpu_affinity": "0-15", "source": "nvml"}
    gpu.update(overrides)
    return gpu


def test_vendor_value_used_when_sysfs_is_unknown():
    nvidia = fake_nvidia([vendor_gpu()], ["NVML note"])
    facts = gather(H200, gpu_source="auto", runner=RecordedRunner({}), nvidia=nvidia)
    assert nvidia.calls == ["auto"]
    (gpu,) = facts["gpus"]
    assert (gpu["numa_node"], gpu["numa_source"], gpu["sysfs_numa_node"]) == (0, "nvml", None)
    assert gpu["pci_address"] == "0000:00:06.0"
    assert "NVML note" in facts["warnings"]


def test_auto_falls_back_to_sysfs_when_no_vendor_tool():
    facts = gather(H200, gpu_source="auto", runner=RecordedRunner({}), nvidia=fake_nvidia(None))
    assert [(g["source"], g["pci_address"], g["numa_source"]) for g in facts["gpus"]] == [("sysfs", "0000:00:06.0", "single-node")]


def test_explicit_vendor_source_that_fails_is_a_warning_then_sysfs():
    def failing(source, runner):
        raise ValueError("GPU source 'nvml': the Python module pynvml cannot be imported")

    facts = gather(H200, gpu_source="nvml", runner=RecordedRunner({}), nvidia=failing)
    assert facts["gpus"][0]["source"] == "sysfs"
    assert ("gpu_source nvml: reading NVIDIA GPUs failed (GPU source 'nvml': the Python module pynvml cannot be imported); used sysfs"
            in facts["warnings"])


def test_unexpected_vendor_reader_error_is_a_warning_then_sysfs():
    """An old pynvml binding lacking a function raises AttributeError; the facts still come, from sysfs."""
    def old_bindings(source, runner):
        raise AttributeError("module 'pynvml' has no attribute 'nvmlDeviceGetNumaNodeId'")

    facts = gather(H200, gpu_source="auto", runner=RecordedRunner({}), nvidia=old_bindings)
    assert [(g["source"], g["pci_address"], g["numa_source"]) for g in facts["gpus"]] == [("sysfs", "0000:00:06.0", "single-node")]
    assert ("gpu_source auto: reading NVIDIA GPUs failed with an unexpected AttributeError "
            "(module 'pynvml' has no attribute 'nvmlDeviceGetNumaNodeId'); used sysfs" in facts["warnings"])


def test_snapshot_without_runner_does_not_ask_vendor_tools():
    nvidia = fake_nvidia([vendor_gpu()])
    facts = gather(H200, gpu_source="auto", nvidia=nvidia)
    assert nvidia.calls == []
    assert facts["gpus"][0]["source"] == "sysfs"
    assert any(w.startswith("gpu_source auto: vendor tools not consulted for root %s" % H200) for w in facts["warnings"])


def test_gpu_source_none_and_bad_source():
    assert gather(H200, gpu_source="none")["gpus"] == []
    with pytest.raises(TopologyError, match="gpu_source 'cuda' is not one of auto, nvml, nvidia-smi, sysfs, none"):
        gather(H200, gpu_source="cuda")


def copy_snapshot(tmp_path, source, name="root"):
    root = tmp_path / name
    shutil.copytree(source, str(root), symlinks=True)
    for directory, _dirs, _files in os.walk(str(root)):
        os.chmod(directory, 0o755)  # the fixtures are read-only; the copy is ours to corrupt
    return root


def replace(path, content):
    path = str(path)
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.chmod(path, 0o644)
        os.remove(path)
    with open(path, "w") as handle:
        handle.write(content)


def test_sysfs_and_vendor_disagree_keeps_sysfs_and_says_both(tmp_path):
    root = copy_snapshot(tmp_path, H200)
    replace(root / "sys/devices/pci0000:00/0000:00:06.0/numa_node", "1\n")
    nvidia = fake_nvidia([vendor_gpu(cpu_affinity="0-7")])
    facts = gather(str(root), gpu_source="auto", runner=RecordedRunner({}), nvidia=nvidia)
    (gpu,) = facts["gpus"]
    assert (gpu["numa_node"], gpu["numa_source"], gpu["sysfs_numa_node"]) == (1, "sysfs", 1)
    assert gpu["vendor_affinity"] == {"source": "nvml", "numa_node": 0, "cpus": "0-7", "gpu_numa_id": None}
    assert "gpu 0000:00:06.0: sysfs says NUMA node 1, nvml says 0; kept sysfs" in facts["warnings"]
    assert "gpu 0000:00:06.0: sysfs numa_node 1 is not an online NUMA node" in facts["warnings"]
    assert ("gpu 0000:00:06.0: sysfs local_cpulist is 0-15, nvml CPU affinity is 0-7; kept both (local_cpus is sysfs)"
            in facts["warnings"])


def test_vendor_gpu_missing_from_sysfs(tmp_path):
    nvidia = fake_nvidia([vendor_gpu(pci_address="0000:81:00.0", numa_node=None, cpu_affinity=None)])
    facts = gather(H200, gpu_source="auto", runner=RecordedRunner({}), nvidia=nvidia)
    (gpu,) = facts["gpus"]
    assert (gpu["numa_node"], gpu["numa_source"], gpu["sysfs_numa_node"], gpu["local_cpus"]) == (0, "single-node", None, None)
    assert ("gpu 0000:81:00.0: reported by nvml but not found under %s/sys/bus/pci/devices; sysfs locality unknown" % H200
            in facts["warnings"])


# -- NICs and GPUs on the hwloc snapshots -------------------------------------


def test_nics_with_rdma_on_40intel64():
    facts = gather(os.path.join(HWLOC, "40intel64-2g2n4c+pci"), gpu_source="sysfs")
    by_name = {nic["name"]: nic for nic in facts["nics"]}
    assert sorted(by_name) == ["eth0", "eth1", "eth2", "eth3", "ib0"]  # lo is virtual
    assert by_name["ib0"] == {
        "name": "ib0", "pci_address": "0000:43:00.0", "driver": "ib_qib", "numa_node": 2, "numa_source": "sysfs",
        "sysfs_numa_node": 2, "local_cpus": "0-39", "rdma_devices": ["qib0"], "virtual_function": False,
    }
    assert [by_name[name]["driver"] for name in ("eth0", "eth1", "eth2", "eth3")] == ["bnx2"] * 4
    assert not [w for w in facts["warnings"] if "driver" in w]
    # four NUMA nodes with cpus, so no single-node fallback: -1 stays unknown
    assert (by_name["eth0"]["numa_node"], by_name["eth0"]["numa_source"]) == (None, None)
    assert "nic eth0 0000:02:00.0: " + MINUS_ONE in facts["warnings"]


def test_bmc_vga_on_40intel64_is_not_a_gpu():
    # The only display device is the BMC's Matrox G200eW VGA (vendor 0x102b, device 0x0532): no GPU.
    facts = gather(os.path.join(HWLOC, "40intel64-2g2n4c+pci"), gpu_source="sysfs")
    assert facts["gpus"] == []
    assert [w for w in facts["warnings"] if "display devices" in w] == [
        "sysfs GPUs: left out display devices that are neither from a GPU vendor (0x1002 amd, 0x10de nvidia) nor 3D controllers "
        "(class 0x0302), such as a BMC's VGA: 0000:09:03.0 (vendor 0x102b, class 0x030000)"]
    assert not [w for w in facts["warnings"] if "09:03.0" in w and "display devices" not in w]


def test_sysfs_gpus_without_vendor_or_numa_files():
    facts = gather(os.path.join(HWLOC, "nvidiagpunumanodes"), gpu_source="sysfs")
    assert [(g["index"], g["pci_address"], g["vendor"], g["local_cpus"]) for g in facts["gpus"]] == [
        (0, "0004:05:00.0", None, "0-15"), (1, "0004:06:00.0", None, "0-15"), (2, "0006:00:00.0", None, "0-15"),
        (3, "0007:00:00.0", None, "88-103"), (4, "0035:04:00.0", None, "88-103"), (5, "0035:05:00.0", None, "88-103"),
    ]
    assert all(g["numa_node"] is None and g["numa_source"] is None for g in facts["gpus"])
    path = os.path.join(HWLOC, "nvidiagpunumanodes/sys/bus/pci/devices/0004:05:00.0/numa_node")
    assert "gpu 0004:05:00.0: %s: missing; sysfs numa_node unknown" % path in facts["warnings"]
    # No vendor file in this snapshot: the VGA-class devices are kept (they cannot be told from a BMC's), each with a warning.
    vendor = os.path.join(HWLOC, "nvidiagpunumanodes/sys/bus/pci/devices/0035:05:00.0/vendor")
    assert ("gpu 0035:05:00.0: %s: missing; vendor unknown, kept as a GPU (without its vendor it cannot be told apart from a BMC display)"
            % vendor in facts["warnings"])
    assert len([w for w in facts["warnings"] if "vendor unknown" in w]) == 6
    assert not [w for w in facts["warnings"] if "display devices" in w]


def build_pci_device(root, address, pci_class, vendor, numa_node=0, local_cpulist="0-1"):
    device = root / "sys/devices/pci0000:00" / address
    device.mkdir(parents=True)
    (device / "class").write_text(pci_class + "\n")
    if vendor is not None:
        (device / "vendor").write_text(vendor + "\n")
    (device / "numa_node").write_text("%d\n" % numa_node)
    (device / "local_cpulist").write_text(local_cpulist + "\n")
    links = root / "sys/bus/pci/devices"
    links.mkdir(parents=True, exist_ok=True)
    os.symlink("../../../devices/pci0000:00/" + address, str(links / address))


def test_sysfs_gpus_keep_gpu_vendors_and_3d_controllers(tmp_path):
    root = build_machine(tmp_path, {0: (0, 0, "0"), 1: (0, 1, "1")})
    build_pci_device(tmp_path, "0000:02:00.0", "0x030000", "0x1a03")  # ASPEED BMC VGA
    build_pci_device(tmp_path, "0000:03:00.0", "0x030200", "0x10de")  # NVIDIA H100 (3D controller)
    build_pci_device(tmp_path, "0000:04:00.0", "0x038000", "0x1002")  # AMD Instinct (display controller)
    build_pci_device(tmp_path, "0000:05:00.0", "0x030200", "0x8086")  # Intel data-center GPU
    build_pci_device(tmp_path, "0000:06:00.0", "0x030000", "0x8086")  # Intel integrated VGA
    build_pci_device(tmp_path, "0000:07:00.0", "0x020000", "0x15b3")  # a NIC, not a display device
    build_pci_device(tmp_path, "0000:08:00.0", "0x030000", None)      # vendor unreadable: kept
    facts = gather(root, gpu_source="sysfs")
    assert [(g["index"], g["pci_address"], g["vendor"], g["numa_node"], g["numa_source"]) for g in facts["gpus"]] == [
        (0, "0000:03:00.0", "nvidia", 0, "sysfs"), (1, "0000:04:00.0", "amd", 0, "sysfs"), (2, "0000:05:00.0", "0x8086", 0, "sysfs"),
        (3, "0000:08:00.0", None, 0, "sysfs"),
    ]
    assert [w for w in facts["warnings"] if "display devices" in w] == [
        "sysfs GPUs: left out display devices that are neither from a GPU vendor (0x1002 amd, 0x10de nvidia) nor 3D controllers "
        "(class 0x0302), such as a BMC's VGA: 0000:02:00.0 (vendor 0x1a03, class 0x030000); 0000:06:00.0 (vendor 0x8086, class 0x030000)"]


def test_two_nics_on_32intel64():
    facts = gather(os.path.join(HWLOC, "32intel64-2p8co2t+8ve"), gpu_source="none")
    assert [(n["name"], n["pci_address"], n["driver"], n["numa_node"], n["numa_source"], n["local_cpus"]) for n in facts["nics"]] == [
        ("enp96s0f0", "0000:60:00.0", "i40e", 0, "sysfs", "0-7,16-23"),
        ("enp96s0f1", "0000:60:00.1", "i40e", 0, "sysfs", "0-7,16-23"),
    ]


def test_nic_without_a_driver_link(h200_copy):
    link = h200_copy / "sys/devices/pci0000:00/0000:00:03.0/driver"
    os.remove(str(link))
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["nics"][0]["driver"] is None
    assert "nic eth0: %s: missing; driver unknown" % link in facts["warnings"]


# -- cores, packages, NUMA details ---------------------------------------------


def test_core_id_repeating_across_dies_is_split_by_thread_siblings():
    facts = gather(os.path.join(HWLOC, "48amd64-4d2n6c-sparse"), gpu_source="none")
    assert len(facts["cores"]) == 48
    assert facts["cores"][:2] == [{"package": 0, "core": 0, "cpus": "0", "numa_node": 0},
                                  {"package": 0, "core": 1, "cpus": "1", "numa_node": 0}]
    assert facts["cores"][6] == {"package": 0, "core": 0, "cpus": "6", "numa_node": 1}
    assert any(w.startswith("core_id repeats within a package for cpus that are not thread siblings (core_id 0: cpus 0 | 6;")
               for w in facts["warnings"])


def test_smt_siblings_and_offline_cpus():
    facts = gather(os.path.join(HWLOC, "16em64t-4s2c2t-offlines"), gpu_source="none")
    assert facts["cpus"]["online"] == "0-1,3-4,6-12,15"
    assert facts["cpus"]["offline"] == "2,5,13-14"
    assert facts["cores"] == [
        {"package": 0, "core": 0, "cpus": "0,8", "numa_node": 0},
        {"package": 1, "core": 0, "cpus": "1,9", "numa_node": 0},
        {"package": 3, "core": 0, "cpus": "3,11", "numa_node": 0},
        {"package": 0, "core": 1, "cpus": "4,12", "numa_node": 0},
        {"package": 2, "core": 1, "cpus": "6", "numa_node": 0},
        {"package": 3, "core": 1, "cpus": "7,15", "numa_node": 0},
        {"package": 2, "core": 0, "cpus": "10", "numa_node": 0},
    ]
    assert facts["cpus"]["threads_per_core"] == 2 and facts["cpus"]["smt_active"] is True


def test_offline_node_cpus_have_no_node_and_distances_use_possible_nodes():
    root = os.path.join(HWLOC, "offline-cpu0-node0")
    facts = gather(root, gpu_source="none")
    assert [n["id"] for n in facts["numa_nodes"]] == [1]
    assert facts["numa_nodes"][0]["cpus"] == "5,7,9,11,13,15,17,19"
    assert facts["numa_nodes"][0]["distances"] == {"0": 21, "1": 10}
    assert "%s/sys/devices/system/node/node1/distance: 2 values for 1 online NUMA nodes; matched to the possible nodes 0-1 instead" % root \
        in facts["warnings"]
    assert "online cpus 4,6,8,10,12,14,16,18,20 are in no online NUMA node's cpulist; their cores have numa_node null" in facts["warnings"]
    assert [c["numa_node"] for c in facts["cores"][:2]] == [None, 1]


def test_no_node_directory_builds_node_0_from_proc():
    root = os.path.join(HWLOC, "2i386-2t-hugepagesizecount")
    facts = gather(root, gpu_source="none")
    assert facts["numa_nodes"] == [{
        "id": 0, "cpus": "0-1", "memory_bytes": 400016779264 * 1024,
        "hugepages": {"2048kB": {"total": 1, "free": 0}, "16777216kB": {"total": 1, "free": 0}},
        "distances": None,
    }]
    assert facts["cores"] == [{"package": 0, "core": 0, "cpus": "0-1", "numa_node": 0}]
    assert "%s/sys/devices/system/node: missing; one NUMA node 0 built from /proc/meminfo with all online cpus" % root in facts["warnings"]
    assert ("/proc/meminfo says 2048kB huge pages total 0 free 0, sys/kernel/mm/hugepages says total 1 free 0; kept sysfs"
            in facts["warnings"])


def build_cpu(root, cpu, package, core, siblings, die=None, package_cpus=None):
    topology = root / "sys/devices/system/cpu" / ("cpu%d" % cpu) / "topology"
    topology.mkdir(parents=True)
    (topology / "physical_package_id").write_text("%d\n" % package)
    (topology / "core_id").write_text("%d\n" % core)
    (topology / "thread_siblings_list").write_text(siblings + "\n")
    if die is not None:
        (topology / "die_id").write_text("%d\n" % die)
    if package_cpus is not None:
        (topology / "core_siblings_list").write_text(package_cpus + "\n")


def build_machine(root, cpus, nodes=None):
    """A minimal sysfs: cpus is {cpu: (package, core_id, siblings[, package_cpus])}, nodes {id: cpulist}."""
    for cpu, spec in cpus.items():
        build_cpu(root, cpu, spec[0], spec[1], spec[2], package_cpus=spec[3] if len(spec) > 3 else None)
    (root / "sys/devices/system/cpu/online").write_text(_cpulist.format(cpus) + "\n")
    for node, cpulist in (nodes or {0: _cpulist.format(cpus)}).items():
        directory = root / "sys/devices/system/node" / ("node%d" % node)
        directory.mkdir(parents=True)
        (directory / "cpulist").write_text(cpulist + "\n")
        (directory / "meminfo").write_text("Node %d MemTotal:       1024 kB\n" % node)
        (directory / "distance").write_text(" ".join("10" if n == node else "20" for n in sorted(nodes or {0: 0})) + "\n")
    (root / "proc").mkdir(exist_ok=True)
    (root / "proc/meminfo").write_text("MemTotal:       %d kB\n" % (1024 * len(nodes or {0: 0})))
    return str(root)


def test_thread_siblings_with_different_core_ids_are_separate_cores(tmp_path):
    # AMD compute units: the two cores of a unit list each other as thread siblings.
    root = build_machine(tmp_path, {0: (0, 0, "0-1"), 1: (0, 1, "0-1"), 2: (0, 2, "2"), 3: (0, 3, "3")})
    facts = gather(root, gpu_source="none")
    assert [c["cpus"] for c in facts["cores"]] == ["0", "1", "2", "3"]
    assert facts["cpus"]["smt_active"] is False
    assert ("thread siblings with different core_ids (cpus 0-1 have core_ids 0, 1); counted as separate cores, "
            "as hwloc does for AMD compute units") in facts["warnings"]


def test_core_ids_repeat_across_packages(tmp_path):
    root = build_machine(tmp_path, {0: (0, 0, "0,2"), 1: (1, 0, "1,3"), 2: (0, 0, "0,2"), 3: (1, 0, "1,3")})
    facts = gather(root, gpu_source="none")
    assert facts["cores"] == [{"package": 0, "core": 0, "cpus": "0,2", "numa_node": 0},
                              {"package": 1, "core": 0, "cpus": "1,3", "numa_node": 0}]
    assert facts["packages"] == [{"id": 0, "cpus": "0,2"}, {"id": 1, "cpus": "1,3"}]
    assert not [w for w in facts["warnings"] if "core_id" in w]


def test_unknown_package_id_groups_by_package_mask(tmp_path):
    # physical_package_id -1: as hwloc, one package per distinct core_siblings mask, id null (never a guessed 0).
    root = build_machine(tmp_path, {0: (-1, 0, "0", "0-1"), 1: (-1, 1, "1", "0-1"), 2: (-1, 0, "2", "2-3"), 3: (-1, 1, "3", "2-3")})
    facts = gather(root, gpu_source="none")
    assert facts["packages"] == [{"id": None, "cpus": "0-1"}, {"id": None, "cpus": "2-3"}]
    assert [(c["package"], c["core"], c["cpus"]) for c in facts["cores"]] == [(None, 0, "0"), (None, 1, "1"), (None, 0, "2"), (None, 1, "3")]
    assert ("physical_package_id is -1 (unknown); package grouped by its package_cpus/core_siblings mask, id null for cpus 0-3"
            in facts["warnings"])


def test_core_spanning_two_nodes_has_no_node(tmp_path):
    root = build_machine(tmp_path, {0: (0, 0, "0-1"), 1: (0, 0, "0-1")}, nodes={0: "0", 1: "1"})
    facts = gather(root, gpu_source="none")
    assert facts["cores"] == [{"package": 0, "core": 0, "cpus": "0-1", "numa_node": None}]
    assert "cores whose threads are in different NUMA nodes (numa_node left null): 0-1" in facts["warnings"]


def test_asymmetric_thread_siblings_are_reported(tmp_path):
    root = build_machine(tmp_path, {0: (0, 0, "0-1"), 1: (0, 0, "1")})
    facts = gather(root, gpu_source="none")
    assert [c["cpus"] for c in facts["cores"]] == ["0", "1"]
    assert "thread siblings disagree: cpus 0 list 0-1 as their siblings, but cpus 1 do not list them back" in facts["warnings"]


# -- bad input ---------------------------------------------------------------------


def test_missing_root(tmp_path):
    missing = str(tmp_path / "nowhere")
    with pytest.raises(TopologyError) as err:
        gather(missing)
    assert str(err.value) == "root %s does not exist or is not a directory" % missing


def test_root_without_cpu_topology(tmp_path):
    (tmp_path / "proc").mkdir()
    cpu_dir = str(tmp_path / "sys/devices/system/cpu")
    with pytest.raises(TopologyError) as err:
        gather(str(tmp_path))
    assert str(err.value) == "%s: no CPU topology under root %s (%s: missing)" % (cpu_dir, tmp_path, cpu_dir)
    os.makedirs(cpu_dir)
    (tmp_path / "sys/devices/system/cpu/online").write_text("0-3\n")
    with pytest.raises(TopologyError) as err:
        gather(str(tmp_path))
    assert str(err.value) == "%s: no CPU topology under root %s (no cpuN directories)" % (cpu_dir, tmp_path)


def test_root_that_is_a_file(tmp_path):
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(TopologyError, match="is not a directory"):
        gather(str(path))


@pytest.fixture(name="h200_copy")
def fixture_h200_copy(tmp_path):
    return copy_snapshot(tmp_path, H200)


def test_garbage_gpu_numa_node(h200_copy):
    path = h200_copy / "sys/devices/pci0000:00/0000:00:06.0/numa_node"
    replace(path, "zero\n")
    facts = gather(str(h200_copy), gpu_source="sysfs")
    assert (facts["gpus"][0]["sysfs_numa_node"], facts["gpus"][0]["numa_source"]) == (None, "single-node")
    assert "gpu 0000:00:06.0: %s: 'zero' is not an integer; sysfs numa_node unknown" % path in facts["warnings"]


def test_negative_gpu_numa_node_below_minus_one(h200_copy):
    replace(h200_copy / "sys/devices/pci0000:00/0000:00:06.0/numa_node", "-7\n")
    facts = gather(str(h200_copy), gpu_source="sysfs")
    assert facts["gpus"][0]["sysfs_numa_node"] is None
    assert "gpu 0000:00:06.0: sysfs numa_node -7 is not a NUMA node id or -1; treated as unknown" in facts["warnings"]


def test_truncated_cpu_online_falls_back_to_per_cpu_files(h200_copy):
    path = h200_copy / "sys/devices/system/cpu/online"
    replace(path, "0-")
    replace(h200_copy / "sys/devices/system/cpu/cpu3/online", "0\n")
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["cpus"]["online"] == "0-2,4-15"
    assert facts["cpus"]["offline"] == "3"
    assert "%s: cpulist '0-': '0-' is not a CPU id or a range 'a-b'; used the cpuN/online files instead" % path in facts["warnings"]


def test_empty_cpu_online_falls_back(h200_copy):
    path = h200_copy / "sys/devices/system/cpu/online"
    replace(path, "")
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["cpus"]["online"] == "0-15"
    assert "%s: empty; used the cpuN/online files instead" % path in facts["warnings"]


def test_garbage_node_cpulist_falls_back_to_cpumap(h200_copy):
    path = h200_copy / "sys/devices/system/node/node0/cpulist"
    replace(path, "0-15,zz\n")
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["numa_nodes"][0]["cpus"] == "0-15"
    mask = h200_copy / "sys/devices/system/node/node0/cpumap"
    assert "%s: cpulist '0-15,zz': 'zz' is not a CPU id or a range 'a-b'; used %s instead" % (path, mask) in facts["warnings"]


def test_garbage_node_cpulist_and_cpumap(h200_copy):
    replace(h200_copy / "sys/devices/system/node/node0/cpulist", "x\n")
    replace(h200_copy / "sys/devices/system/node/node0/cpumap", "y,z\n")
    facts = gather(str(h200_copy), gpu_source="sysfs")
    node = facts["numa_nodes"][0]
    assert node["cpus"] is None and node["memory_bytes"] == 4550128 * 1024
    assert [c["numa_node"] for c in facts["cores"]] == [None] * 16
    # no node is known to have cpus, so the GPU's unknown sysfs node stays unknown
    assert (facts["gpus"][0]["numa_node"], facts["gpus"][0]["numa_source"]) == (None, None)


def test_empty_and_truncated_meminfo(h200_copy):
    path = h200_copy / "sys/devices/system/node/node0/meminfo"
    replace(path, "Node 0 MemTot")
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["numa_nodes"][0]["memory_bytes"] is None
    assert "%s: no 'MemTotal: <n> kB' line; memory_bytes unknown" % path in facts["warnings"]


def test_directory_where_a_file_is_expected(h200_copy):
    path = h200_copy / "sys/devices/system/node/node0/distance"
    os.remove(str(path))
    path.mkdir()
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["numa_nodes"][0]["distances"] is None
    assert "%s: unreadable (a directory where a file is expected); distances unknown" % path in facts["warnings"]


def test_unreadable_file(h200_copy, monkeypatch):
    """Tests run as root, so chmod 000 would not stop them: the denial is simulated at os.open."""
    path = str(h200_copy / "sys/devices/system/cpu/cpu5/topology/core_id")
    real_open = sysfs.os.open

    def guarded(name, flags, *args, **kwargs):
        if trees.opened_as(name, kwargs.get("dir_fd")) == path:
            raise PermissionError(13, "Permission denied", name)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(sysfs.os, "open", guarded)
    facts = gather(str(h200_copy), gpu_source="none")
    assert "%s: unreadable (Permission denied)" % path in facts["warnings"]
    # thread siblings still place cpu5 in its own core
    assert {"package": 0, "core": None, "cpus": "5", "numa_node": 0} in facts["cores"]
    assert facts["cpus"]["cores"] == 16


def test_garbage_core_id_and_missing_thread_siblings(h200_copy):
    topology = h200_copy / "sys/devices/system/cpu/cpu2/topology"
    replace(topology / "core_id", "two\n")
    for name in ("thread_siblings_list", "thread_siblings", "core_cpus_list", "core_cpus"):
        os.remove(str(topology / name))
    facts = gather(str(h200_copy), gpu_source="none")
    assert {"package": 0, "core": None, "cpus": "2", "numa_node": 0} in facts["cores"]
    assert "%s: 'two' is not an integer" % (topology / "core_id") in facts["warnings"]
    assert "no readable thread siblings (core_cpus, thread_siblings) for cpus 2" in facts["warnings"]


def test_missing_topology_directory(h200_copy):
    shutil.rmtree(str(h200_copy / "sys/devices/system/cpu/cpu7/topology"))
    facts = gather(str(h200_copy), gpu_source="none")
    assert {"package": None, "core": None, "cpus": "7", "numa_node": 0} in facts["cores"]
    assert "no topology directory (each counted as its own core, package unknown) for cpus 7" in facts["warnings"]


def test_dangling_nic_device_link(h200_copy):
    shutil.rmtree(str(h200_copy / "sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0"))
    os.makedirs(str(h200_copy / "sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0"))
    replace(h200_copy / "sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/device", "../../../virtio9")
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["nics"] == []
    link = h200_copy / "sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/device"
    assert "eth0: %s: missing (dangling link); left out" % link in facts["warnings"]


def test_garbage_isolated_and_distance(h200_copy):
    replace(h200_copy / "sys/devices/system/cpu/isolated", "1-x\n")
    replace(h200_copy / "sys/devices/system/node/node0/distance", "10 ten\n")
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["cpus"]["isolated"] is None
    assert facts["numa_nodes"][0]["distances"] is None
    path = h200_copy / "sys/devices/system/node/node0/distance"
    assert "%s: '10 ten' is not a list of integers; distances unknown" % path in facts["warnings"]


def test_no_kernel_release(h200_copy):
    os.remove(str(h200_copy / "proc/version"))
    facts = gather(str(h200_copy), gpu_source="none")
    assert facts["kernel"] is None
    assert "kernel release unknown: neither /proc/sys/kernel/osrelease nor /proc/version is readable" in facts["warnings"]


def cgroup2_machine(tmp_path, own_cgroup, effective):
    """A cgroup v2 host: proc/self/cgroup names own_cgroup; effective is {cgroup dir: (cpus, mems)} with cpuset files."""
    root = build_machine(tmp_path, {0: (0, 0, "0"), 1: (0, 1, "1"), 2: (0, 2, "2"), 3: (0, 3, "3")})
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text("0::%s\n" % own_cgroup)
    (tmp_path / "proc/mounts").write_text("cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n")
    (tmp_path / "sys/fs/cgroup").mkdir(parents=True)
    (tmp_path / "sys/fs/cgroup/cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (tmp_path / ("sys/fs/cgroup" + own_cgroup)).mkdir(parents=True, exist_ok=True)
    for directory, (cpus, mems) in effective.items():
        path = tmp_path / ("sys/fs/cgroup" + directory)
        path.mkdir(parents=True, exist_ok=True)
        (path / "cpuset.cpus.effective").write_text(cpus + "\n")
        (path / "cpuset.mems.effective").write_text(mems + "\n")
    return root


def test_cgroup2_leaf_without_cpuset_files_uses_the_nearest_ancestor(tmp_path):
    # systemd: the service's own cgroup has no cpuset files; the effective set is its parent's (inherited).
    root = cgroup2_machine(tmp_path, "/system.slice/kubelet.service", {"/": ("0-3", "0"), "/system.slice": ("1-2,7", "0")})
    facts = gather(root, gpu_source="none")
    # intersected with the online cpus 0-3, as hwloc does
    assert facts["allowed"] == {"cpus": "1-2", "mems": "0", "source": "cgroup2:/sys/fs/cgroup/system.slice"}
    assert not [w for w in facts["warnings"] if "cgroup" in w]


def test_cgroup2_leaf_with_cpuset_files_is_read_directly(tmp_path):
    cgroups = {"/": ("0-3", "0"), "/kubepods.slice": ("1-3", "0"), "/kubepods.slice/pod1": ("3", "0")}
    root = cgroup2_machine(tmp_path, "/kubepods.slice/pod1", cgroups)
    facts = gather(root, gpu_source="none")
    assert facts["allowed"] == {"cpus": "3", "mems": "0", "source": "cgroup2:/sys/fs/cgroup/kubepods.slice/pod1"}


def test_cgroup2_without_any_cpuset_file_warns_once(tmp_path):
    root = cgroup2_machine(tmp_path, "/system.slice/kubelet.service", {})
    facts = gather(root, gpu_source="none")
    assert facts["allowed"] == {"cpus": "0-3", "mems": "0", "source": None}
    leaf = tmp_path / "sys/fs/cgroup/system.slice/kubelet.service"
    assert [w for w in facts["warnings"] if "cgroup" in w] == [
        "%s: no cgroup from /sys/fs/cgroup/system.slice/kubelet.service up to /sys/fs/cgroup has cpuset.cpus.effective; "
        "the cgroup restriction is unknown, all online cpus and nodes reported as allowed" % leaf]


def test_nul_padded_files(tmp_path):
    root = build_machine(tmp_path, {0: (0, 0, "0-1"), 1: (0, 0, "0-1")})
    (tmp_path / "sys/devices/system/cpu/online").write_text("0-1\n\x00\x00\x00\x00")
    (tmp_path / "sys/devices/system/node/node0/cpulist").write_text("0-1\x00\x00")
    facts = gather(root, gpu_source="none")
    assert facts["cpus"]["online"] == "0-1"
    assert facts["cores"] == [{"package": 0, "core": 0, "cpus": "0-1", "numa_node": 0}]


# -- this machine ------------------------------------------------------------------


def test_this_machine():
    facts = gather("/", gpu_source="none")
    with open("/sys/devices/system/cpu/online") as handle:
        online = _cpulist.canonical(handle.read())
    assert facts["cpus"]["online"] == online
    assert facts["cpus"]["logical"] == os.cpu_count()
    assert _cpulist.union(*(c["cpus"] for c in facts["cores"])) == online
    assert _cpulist.union(*(p["cpus"] for p in facts["packages"])) == online
    assert facts["root"] == "/"


def test_warnings_are_strings_and_facts_are_json():
    facts = gather(os.path.join(HWLOC, "fakememinitiators-1np2c+1npp+gi"), gpu_source="sysfs")
    assert json.loads(json.dumps(facts)) == facts
    assert all(isinstance(w, str) for w in facts["warnings"])
    assert _gather.SCHEMA_VERSION == facts["schema_version"] == 1


def test_no_node_directory_uses_meminfo_hugepages_when_sysfs_lists_none(tmp_path):
    build_cpu(tmp_path, 0, 0, 0, "0")
    (tmp_path / "proc").mkdir()
    meminfo = "MemTotal:        2048 kB\nHugePages_Total:       4\nHugePages_Free:        3\nHugepagesize:       2048 kB\n"
    (tmp_path / "proc/meminfo").write_text(meminfo)
    facts = gather(str(tmp_path), gpu_source="none")
    expected = {"id": 0, "cpus": "0", "memory_bytes": 2048 * 1024, "hugepages": {"2048kB": {"total": 4, "free": 3}}, "distances": None}
    assert facts["numa_nodes"] == [expected]
    # no cpu/online file and no cpu0/online file: cpu0 counts as online, as the kernel does
    assert facts["cpus"]["online"] == "0"


def test_no_node_directory_and_no_meminfo(tmp_path):
    build_cpu(tmp_path, 0, 0, 0, "0")
    facts = gather(str(tmp_path), gpu_source="none")
    assert facts["numa_nodes"] == [{"id": 0, "cpus": "0", "memory_bytes": None, "hugepages": {}, "distances": None}]
    assert "%s: missing; memory_bytes unknown" % (tmp_path / "proc/meminfo") in facts["warnings"]


def test_machine_memory_is_proc_meminfo_memtotal():
    # The real H200 VM: /proc/meminfo says 131981020 kB while its one NUMA node's meminfo says far less;
    # the kubelet's capacity (for percentage eviction thresholds) is MemTotal, so both are kept as read.
    facts = gather(H200, gpu_source="sysfs")
    assert facts["memory_bytes"] == 131981020 * 1024
    assert facts["numa_nodes"][0]["memory_bytes"] != facts["memory_bytes"]


def test_machine_memory_unknown_without_proc_meminfo():
    facts = gather(os.path.join(shared_paths.HWLOC, "16em64t-4s2c2t"), gpu_source="none")
    assert facts["memory_bytes"] is None
    assert any(w.endswith("16em64t-4s2c2t/proc/meminfo: missing; memory_bytes unknown") for w in facts["warnings"])


class _Module:
    """What ModuleRunner uses of an AnsibleModule (get_bin_path, run_command), recording each call."""

    def __init__(self, found):
        self.found, self.calls = found, []

    def get_bin_path(self, name, required=False, **kwargs):
        self.calls.append(("get_bin_path", name, required, kwargs))
        return self.found.get(name)

    def run_command(self, argv, use_unsafe_shell=False):
        self.calls.append(("run_command", argv, use_unsafe_shell))
        return 0, "out", ""


def test_module_runner_finds_rocm_tools_under_opt_rocm_and_runs_them_from_there():
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import ModuleRunner  # pylint: disable=import-outside-toplevel
    module = _Module({"amd-smi": "/opt/rocm/bin/amd-smi", "nvidia-smi": "/usr/bin/nvidia-smi"})
    runner = ModuleRunner(module)
    assert runner.find("amd-smi") == "/opt/rocm/bin/amd-smi"
    assert runner.find("nvidia-smi") == "/usr/bin/nvidia-smi"
    assert runner.run(("amd-smi", "static", "--json")) == (0, "out", "")
    assert runner.run(("nvidia-smi", "-L")) == (0, "out", "")
    assert module.calls == [
        ("get_bin_path", "amd-smi", False, {"opt_dirs": ["/opt/rocm/bin"]}),
        ("get_bin_path", "nvidia-smi", False, {}),
        ("run_command", ["/opt/rocm/bin/amd-smi", "static", "--json"], False),
        ("run_command", ["nvidia-smi", "-L"], False),
    ]
