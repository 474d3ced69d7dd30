"""amd-smi and rocm-smi against sysfs (_facts/amd_tools.py through gather), with the captures of shared/fixtures/amd replayed.

The sysfs trees are the 4x MI300A host the captures come from (amd-smi static, lspci): one APU per PCI domain at
000n:01:00.0 (class 0x1200, amdgpu), its USB controller at 0000:01:00.1 (xhci_hcd), NUMA node n per APU.
"""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import RecordedRunner
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import locality
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import amd_trees

STATIC_MI300A = "amd-smi_static_4x-mi300a-4numa-inkernel-6.9rc5_amdsmi-cli-readme.txt"
STATIC_CPULISTS = "amd-smi_default+static-numa-cpulists_4x-mi300a_amdsmi-27.0-rocm7.14-docs.txt"
SHOWBUS_BUGGY = "rocm-smi_showbus_mi300a-BUGGY-partition-in-function_rocm-smi-lib-6.1.0-changelog.txt"
SHOWTOPO_BUGGY = "rocm-smi_showtopo_mi300a-tpx-BUGGY-numa-node-vs-affinity_rocm-smi-lib-6.1.0-changelog.txt"
SHOWHW = "rocm-smi_showhw_mi300a-4apu-tpx_rocm-smi-lib-6.1.1-changelog.txt"
MI210 = "kfd-topology_8x-mi210-2xgmi-hives-2numa_k8s-device-plugin-testdata.txt"
BUG = "(rocm-smi before 6.1.1 printed the partition number in the PCI function digit)"
IN_KERNEL = ("amd-smi prints driver version '6.9.0-rc5+'; without sys/module/amdgpu/version the driver is the in-kernel amdgpu, "
             "version unknown (what the tool prints is the kernel's)")


def mi300a(tmp_path, numa=(0, 1, 2, 3), mode="SPX"):
    root = str(tmp_path / "root")
    amd_trees.build_numa(root, dict((n, [2 * n, 2 * n + 1]) for n in range(4)))
    for n in range(4):
        amd_trees.build_pci(root, "000%d:01:00.0" % n, "0x120000", "amdgpu", numa[n], "%d-%d" % (2 * n, 2 * n + 1),
                            extra={"current_compute_partition": mode + "\n", "current_memory_partition": "NPS1\n"})
    amd_trees.build_pci(root, "0000:01:00.1", "0x0c0330", "xhci_hcd", 0, "0-1")
    return root


def _output(name, command):
    return dict(amd_trees.outputs(name))[command]


def _static_runner(name=STATIC_MI300A):
    return RecordedRunner({("amd-smi", "static"): (0, _output(name, "amd-smi static"), "")})


def test_amd_smi_text_static_on_4x_mi300a_in_kernel(tmp_path):
    runner = _static_runner()
    facts = gather(mi300a(tmp_path), runner=runner)
    assert runner.calls == [("amd-smi", "static", "--json"), ("amd-smi", "static"), ("amd-smi", "list", "--json"), ("amd-smi", "list"),
                            ("amd-smi", "topology", "-t", "--json"), ("amd-smi", "topology", "-t"), ("amd-smi", "version")]
    assert [(g["pci_address"], g["name"], g["numa_node"], g["numa_source"], g["vendor_affinity"], g["findings"]) for g in facts["gpus"]] == [
        ("000%d:01:00.0" % n, "MI300A", n, "sysfs", {"source": "amd-smi", "numa_node": n, "cpus": None, "gpu_numa_id": None}, [])
        for n in range(4)]
    assert facts["gpus"][2]["amd"]["tool"] == {
        "source": "amd-smi", "gpus": [2], "numa_node": 2, "cpus": None, "uuid": None, "name": "MI300A",
        "compute_partition": "SPX", "memory_partition": "NPS1", "driver_version": "6.9.0-rc5+", "links": [], "versions": None}
    # The driver stays in-kernel, version unknown: the kernel release amd-smi prints is never taken as the driver's version.
    assert facts["gpus"][0]["amd"]["driver"]["version"] is None and facts["gpus"][0]["amd"]["driver"]["in_kernel"] is True
    assert facts["warnings"] == [
        "amd-smi list --json failed with rc 2: no recorded output for amd-smi list --json; amd-smi list failed with rc 2: "
        "no recorded output for amd-smi list; its values are not used, AMD GPU facts from sysfs without it",
        "amd-smi topology -t --json failed with rc 2: no recorded output for amd-smi topology -t --json; amd-smi topology -t failed "
        "with rc 2: no recorded output for amd-smi topology -t; its values are not used, AMD GPU facts from sysfs without it",
        "amd-smi version failed with rc 2: no recorded output for amd-smi version; its values are not used, AMD GPU facts from sysfs without it",
        IN_KERNEL,
    ]


def test_amd_smi_against_sysfs_disagreement_is_in_the_oracle(tmp_path):
    # sysfs says node 0 for the fourth APU (a firmware table gone wrong), amd-smi says 3; the first APU's sysfs says -1.
    facts = gather(mi300a(tmp_path, numa=(-1, 1, 2, 0)), runner=_static_runner())
    assert [(g["numa_node"], g["numa_source"], g["sysfs_numa_node"]) for g in facts["gpus"]] == [
        (0, "amd-smi", None), (1, "sysfs", 1), (2, "sysfs", 2), (0, "sysfs", 0)]
    assert "gpu 0003:01:00.0: sysfs says NUMA node 0, amd-smi says 3; kept sysfs" in facts["warnings"]
    oracle = locality.build(facts)
    assert oracle["disagreements"] == ["0003:01:00.0"]
    fourth = [device for device in oracle["devices"] if device["pci_address"] == "0003:01:00.0"][0]
    assert fourth["observations"] == [{"source": "sysfs", "numa_node": 0, "cpus": "6-7"}, {"source": "amd-smi", "numa_node": 3, "cpus": None}]
    assert fourth["disagreements"] == ["numa_node: sysfs says 0, amd-smi says 3"]


def test_amd_smi_cpu_list_against_local_cpulist(tmp_path):
    # The newer static: CPU_AFFINITY words 0-23,96-119 for GPU 0; sysfs local_cpulist says 0-1 on this tree.
    facts = gather(mi300a(tmp_path), runner=_static_runner(STATIC_CPULISTS))
    gpu = facts["gpus"][0]
    assert gpu["vendor_affinity"] == {"source": "amd-smi", "numa_node": 0, "cpus": "0-23,96-119", "gpu_numa_id": None}
    assert gpu["findings"] == ["sysfs local_cpulist is 0-1, amd-smi CPU affinity is 0-23,96-119; kept sysfs"]
    assert [g["vendor_affinity"] for g in facts["gpus"][1:]] == [None, None, None]  # the excerpt stops after GPU 0
    assert "amd-smi prints driver version '6.19.4'" in facts["warnings"][-1]


def test_rocm_smi_showbus_bug_caught(tmp_path):
    spx = amd_trees.outputs(SHOWBUS_BUGGY)[0][1]
    runner = RecordedRunner({("rocm-smi", "--showbus"): (0, spx, "")})
    facts = gather(mi300a(tmp_path), runner=runner)
    first = facts["gpus"][0]
    assert first["findings"] == [
        "rocm-smi GPU[1] is printed at PCI 0000:01:00.1, a PCI device bound to xhci_hcd in sysfs, not a GPU bound to amdgpu; "
        "its values are not used " + BUG,
        "rocm-smi GPU[2] is printed at PCI 0000:01:00.2, no PCI device in sysfs, not a GPU bound to amdgpu; its values are not used " + BUG,
        "rocm-smi GPU[3] is printed at PCI 0000:01:00.3, no PCI device in sysfs, not a GPU bound to amdgpu; its values are not used " + BUG,
    ]
    assert [g["numa_node"] for g in facts["gpus"]] == [0, 1, 2, 3]  # sysfs, untouched
    assert [g["amd"]["tool"] and g["amd"]["tool"]["gpus"] for g in facts["gpus"]] == [[0], None, None, None]
    oracle = locality.build(facts)
    assert [w for w in oracle["warnings"] if "GPU[1]" in w] == ["gpu 0000:01:00.0: " + first["findings"][0]]


def test_rocm_smi_showbus_bug_non_spx(tmp_path):
    non_spx = amd_trees.outputs(SHOWBUS_BUGGY)[1][1]
    facts = gather(mi300a(tmp_path), runner=RecordedRunner({("rocm-smi", "--showbus"): (0, non_spx, "")}))
    assert [(g["pci_address"], g["amd"]["tool"]["gpus"]) for g in facts["gpus"]] == [
        ("0000:01:00.0", [0]), ("0001:01:00.0", [21]), ("0002:01:00.0", [22]), ("0003:01:00.0", [23])]
    assert len(facts["gpus"][0]["findings"]) == 20
    assert facts["gpus"][0]["findings"][4] == ("rocm-smi GPU[5] is printed at PCI 0000:01:00.2, no PCI device in sysfs, "
                                               "not a GPU bound to amdgpu; its values are not used " + BUG)


def test_rocm_smi_showtopo_numa_node_vs_affinity_caught(tmp_path):
    topo = amd_trees.verbatim(SHOWTOPO_BUGGY).split("\n", 1)[1]  # the first line is the changelog's prose
    runner = RecordedRunner({("rocm-smi", "--showtopo"): (0, topo, ""), ("rocm-smi", "--showhw"): (0, _output(SHOWHW, "rocm-smi --showhw"), "")})
    facts = gather(mi300a(tmp_path, mode="TPX"), runner=runner)
    assert runner.calls == [("rocm-smi", "--showhw"), ("rocm-smi", "--showbus"), ("rocm-smi", "--showtopo"), ("rocm-smi", "--showproduct")]
    assert [(g["amd"]["tool"]["gpus"], g["vendor_affinity"]["numa_node"], g["numa_node"], g["numa_source"]) for g in facts["gpus"]] == [
        ([0, 1, 2], None, 0, "sysfs"), ([3, 4, 5], None, 1, "sysfs"), ([6, 7, 8], None, 2, "sysfs"), ([9, 10, 11], None, 3, "sysfs")]
    assert facts["gpus"][1]["findings"] == [
        "rocm-smi GPU[3] prints NUMA node 0 and NUMA affinity 2, which disagree (sysfs numa_node: 1)",
        "rocm-smi GPU[4] prints NUMA node 0 and NUMA affinity 3, which disagree (sysfs numa_node: 1)",
        "rocm-smi prints NUMA nodes 0, 2, 3 for GPU[3], GPU[4], GPU[5]; its NUMA node is taken as unknown (sysfs numa_node: 1)",
    ]
    assert facts["gpus"][3]["findings"] == [
        "rocm-smi prints NUMA nodes 1, 2, 3 for GPU[9], GPU[10], GPU[11]; its NUMA node is taken as unknown (sysfs numa_node: 3)"]
    assert facts["warnings"][0] == ("rocm-smi --showbus failed with rc 2: no recorded output for rocm-smi --showbus; "
                                    "its values are not used, AMD GPU facts from sysfs without it")
    # 2 + 3 + 4 + 1 findings, each in the oracle naming its GPU.
    assert locality.build(facts)["warnings"] == ["gpu %s: %s" % (g["pci_address"], finding) for g in facts["gpus"] for finding in g["findings"]]
    assert [len(g["findings"]) for g in facts["gpus"]] == [2, 3, 4, 1]


def test_tool_output_in_an_unknown_format_is_named_and_facts_come_from_sysfs(tmp_path):
    version = _output("amd-smi_version_amdsmi-6.1.0-changelog.txt", "amd-smi version")
    default_view = _output(STATIC_CPULISTS, "amd-smi")
    runner = RecordedRunner({("amd-smi", "static", "--json"): (0, version, ""), ("amd-smi", "static"): (0, default_view, ""),
                             ("amd-smi", "list", "--json"): (0, '{"gpu_data": "none"}', ""), ("amd-smi", "list"): (0, "", "")})
    facts = gather(mi300a(tmp_path), runner=runner)
    assert facts["warnings"] == [
        "amd-smi static --json printed output in an unknown format (no JSON and no 'GPU: <n>' block); amd-smi static printed output "
        "in an unknown format (no JSON and no 'GPU: <n>' block); its values are not used, AMD GPU facts from sysfs without it",
        "amd-smi list --json printed output in an unknown format (JSON is neither a list of GPU objects nor {\"gpu_data\": [...]}); "
        "amd-smi list printed output in an unknown format (no output); its values are not used, AMD GPU facts from sysfs without it",
        "amd-smi topology -t --json failed with rc 2: no recorded output for amd-smi topology -t --json; amd-smi topology -t failed "
        "with rc 2: no recorded output for amd-smi topology -t; its values are not used, AMD GPU facts from sysfs without it",
        "amd-smi version failed with rc 2: no recorded output for amd-smi version; its values are not used, AMD GPU facts from sysfs without it",
    ]
    assert [(g["numa_node"], g["numa_source"], g["vendor_affinity"], g["amd"]["tool"]) for g in facts["gpus"]] == [
        (n, "sysfs", None, None) for n in range(4)]


def test_amd_smi_json_without_an_address_is_not_guessed(tmp_path):
    """MI210's static --json has no bus.bdf: with nothing to join on, its values are not used even on a one-GPU node."""
    root = str(tmp_path / "root")
    amd_trees.build_numa(root, {0: [0, 1], 1: [2, 3]})
    amd_trees.build_pci(root, "0000:63:00.0", "0x038000", "amdgpu", 1, "2-3")
    static = amd_trees.verbatim("amd-smi_static-json_mi210-inkernel-6.14_device-metrics-exporter-test.txt")
    facts = gather(root, runner=RecordedRunner({("amd-smi", "static", "--json"): (0, static, ""), ("amd-smi", "list", "--json"): (1, "", "")}))
    assert facts["gpus"][0]["vendor_affinity"] is None
    assert "amd-smi GPU[0]: printed with no PCI address and no KFD node; its values are not used" in facts["warnings"]


def test_join_by_kfd_node_wins_over_the_printed_address(tmp_path):
    """A constructed amd-smi list --json (the 6.3 fields of the list capture) on the real MI210 KFD tree: KFD node 3 is 0000:43:00.0."""
    gpus = dict([("0000:%s:00.0" % bus, 0) for bus in ("63", "43", "03", "26")] + [("0000:%s:00.0" % bus, 1) for bus in ("e3", "c3", "83", "a3")])
    root = amd_trees.build_host(tmp_path, MI210, gpus, {0: [0, 1], 1: [2, 3]}, "0x038000")
    listing = ('[{"gpu": 0, "bdf": "0000:63:00.0", "uuid": "N/A", "kfd_id": 1, "node_id": 2, "partition_id": 0},'
               ' {"gpu": 1, "bdf": "0000:01:00.0", "uuid": "N/A", "kfd_id": 2, "node_id": 3, "partition_id": 0}]')
    runner = RecordedRunner({("amd-smi", "static", "--json"): (0, "[]", ""), ("amd-smi", "list", "--json"): (0, listing, "")})
    facts = gather(root, runner=runner)
    by_address = dict((g["pci_address"], g) for g in facts["gpus"])
    assert by_address["0000:63:00.0"]["amd"]["tool"]["gpus"] == [0]
    assert by_address["0000:43:00.0"]["amd"]["tool"]["gpus"] == [1]
    assert by_address["0000:43:00.0"]["findings"] == ["amd-smi GPU[1] (KFD node 3) is at PCI 0000:43:00.0, which amd-smi prints as 0000:01:00.0"]


def test_no_tools_for_a_snapshot_without_a_runner_and_with_gpu_source_sysfs(tmp_path):
    root = mi300a(tmp_path)
    assert all(g["amd"]["tool"] is None for g in gather(root)["gpus"])
    runner = _static_runner()
    assert all(g["amd"]["tool"] is None for g in gather(root, gpu_source="sysfs", runner=runner)["gpus"])
    assert runner.calls == []
    assert os.path.isdir(os.path.join(root, "sys/bus/pci/devices/0000:01:00.1"))


TOPOLOGY = "amd-smi_topology_8x-mi300x_amdsmi-6.1.0-changelog.txt"
TRANSFERBENCH = "transferbench_8x-mi300x_bdf-closest-numa_rocm-smi-lib-6.1.0-changelog.txt"


def _transferbench_numa():
    """{PCI address: closest NUMA node} from the TransferBench table of the same 8x MI300X host."""
    numa = {}
    for line in amd_trees.verbatim(TRANSFERBENCH).splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) > 11 and cells[0].startswith("GPU"):
            numa[cells[9]] = int(cells[11])
    return numa


def test_amd_smi_topology_on_8x_mi300x(tmp_path):
    """amd-smi topology (text) on the 8x MI300X host, NUMA from its TransferBench table; the list answer is the ID | BDF
    enumeration that host's amd-smi topology -h prints, written as amd-smi list --json writes it."""
    numa = _transferbench_numa()
    assert numa == {"0000:0c:00.0": 0, "0000:22:00.0": 0, "0000:38:00.0": 0, "0000:5c:00.0": 0,
                    "0000:9f:00.0": 1, "0000:af:00.0": 1, "0000:bf:00.0": 1, "0000:df:00.0": 1}
    root = str(tmp_path / "root")
    amd_trees.build_numa(root, {0: [0, 1], 1: [2, 3]})
    for address, node in numa.items():
        amd_trees.build_pci(root, address, "0x120000", "amdgpu", node, "0-1" if node == 0 else "2-3")
    listing = "\n".join('{"gpu": %d, "bdf": "%s"}' % (n, address) for n, address in enumerate(sorted(numa)))
    runner = RecordedRunner({
        ("amd-smi", "static", "--json"): (0, "[]", ""),
        ("amd-smi", "list", "--json"): (0, "[" + listing.replace("\n", ", ") + "]", ""),
        ("amd-smi", "topology", "-t"): (0, _output(TOPOLOGY, "amd-smi topology"), ""),
        ("amd-smi", "version"): (0, _output("amd-smi_version_amdsmi-6.1.0-changelog.txt", "amd-smi version"), ""),
    })
    facts = gather(root, runner=runner)
    first = facts["gpus"][0]
    assert first["amd"]["tool"]["links"] == [{"pci_address": address, "type": "xgmi"} for address in sorted(numa)[1:]]
    assert first["amd"]["tool"]["versions"] == {"amdsmi tool": "23.4.2+505b858", "amdsmi library version": "24.2.0.0", "rocm version": "6.1.0"}
    assert [g["findings"] for g in facts["gpus"]] == [[]] * 8  # no KFD tree here: nothing to disagree with
    # topology -t --json had no recorded answer, the text form did: one that answers is enough, so no warning.
    assert facts["warnings"] == []


def test_amd_smi_link_type_against_kfd_is_a_finding(tmp_path):
    """A constructed amd-smi topology -t --json (the 6.1.1 JSON's shape) saying PCIE inside the MI210 XGMI hive KFD shows."""
    gpus = dict([("0000:%s:00.0" % bus, 0) for bus in ("63", "43", "03", "26")] + [("0000:%s:00.0" % bus, 1) for bus in ("e3", "c3", "83", "a3")])
    root = amd_trees.build_host(tmp_path, MI210, gpus, {0: [0, 1], 1: [2, 3]}, "0x038000")
    topology = ('[{"gpu": 0, "bdf": "0000:63:00.0", "links": [{"gpu": 1, "bdf": "0000:43:00.0", "link_status": "ENABLED", "link_type": "PCIE"},'
                ' {"gpu": 2, "bdf": "0000:e3:00.0", "link_status": "ENABLED", "link_type": "PCIE"}]}]')
    runner = RecordedRunner({
        ("amd-smi", "static", "--json"): (0, "[]", ""),
        ("amd-smi", "list", "--json"): (0, '[{"gpu": 0, "bdf": "0000:63:00.0"}]', ""),
        ("amd-smi", "topology", "-t", "--json"): (0, topology, ""),
        ("amd-smi", "version"): (0, "AMDSMI Tool: 1 | amdgpu version: 6.10.5", ""),
    })
    facts = gather(root, runner=runner)
    gpu = [g for g in facts["gpus"] if g["pci_address"] == "0000:63:00.0"][0]
    assert gpu["amd"]["tool"]["links"] == [{"pci_address": "0000:43:00.0", "type": "pcie"}, {"pci_address": "0000:e3:00.0", "type": "pcie"}]
    # 0000:e3:00.0 is in the other hive: KFD has no GPU link to it, so nothing to disagree with.
    assert gpu["findings"] == ["KFD links it to 0000:43:00.0 over xgmi, amd-smi prints pcie; kept KFD's"]
    assert facts["warnings"][-1] == ("amd-smi prints driver version '6.10.5'; without sys/module/amdgpu/version the driver is the in-kernel "
                                     "amdgpu, version unknown (what the tool prints is the kernel's)")
