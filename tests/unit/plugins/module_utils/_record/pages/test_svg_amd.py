"""AMD GPUs in the record and on its pages: the 8x MI300X CPX host (facts through the real facts code, `amd_machines`).

Each GPU is drawn inside its NUMA node's box with its vendor, and each of its partitions inside the GPU's box (geometry
from the SVG's own attributes; tests/browser/test_amd_pages_browser.py measures the rendered page). The device table
names each GPU's identities: PCI address, UUID, KFD node and unique_id, partition mode and partitions.
"""

from xml.etree import ElementTree

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import plan
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import sections
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import svg
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan import amd_machines

SVG = "{http://www.w3.org/2000/svg}"
HIVE = "15188982192727901047"


def _built(tmp_path):
    facts = amd_machines.mi300x_cpx_facts(tmp_path)
    return record.build(facts, "mi300x-cpx", {"plan": plan.reservation_plan(facts, {"reserved_cpus": 4})})


def _box(group):
    rect = group.find(SVG + "rect")
    x, y = float(rect.get("x")), float(rect.get("y"))
    return (x, y, x + float(rect.get("width")), y + float(rect.get("height")))


def _inside(inner, outer):
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def test_record_gpus_carry_vendor_identities_and_partitions(tmp_path):
    gpus = _built(tmp_path)["devices"]["gpus"]
    assert gpus[0] == {
        "index": 0, "vendor": "amd", "uuid": "e3ff74a1-0000-1000-80aa-140f9a5f9e31", "pci_address": "0000:05:00.0", "name": None,
        "numa_node": 0, "numa_source": "sysfs", "sysfs_numa_node": 0, "local_cpus": "0-15",
        "identities": {"kfd_node": 2, "unique_id": "16404946649897475633", "device_id": "0x74a1", "hive_id": HIVE},
        "partition_mode": {"compute": "CPX", "memory": None},
        "partitions": [{"id": part, "kfd_node": 2 + part, "render_minor": 128 + part} for part in range(8)]}
    assert [(g["pci_address"], g["numa_node"], g["identities"]["kfd_node"], len(g["partitions"])) for g in gpus] == [
        ("0000:05:00.0", 0, 2, 8), ("0000:27:00.0", 0, 10, 8), ("0000:47:00.0", 0, 18, 8), ("0000:65:00.0", 0, 26, 8),
        ("0000:85:00.0", 1, 34, 8), ("0000:a7:00.0", 1, 42, 8), ("0000:c7:00.0", 1, 50, 8), ("0000:e5:00.0", 1, 58, 7)]


def test_each_gpu_inside_its_node_and_each_partition_inside_its_gpu(tmp_path):
    root = ElementTree.fromstring(svg.drawing(_built(tmp_path)))
    groups = list(root.iter(SVG + "g"))
    nodes = dict((g.get("data-numa-node"), _box(g)) for g in groups if g.get("data-kind") == "numa-node")
    gpus = [g for g in groups if g.get("data-kind") == "gpu"]
    assert [(g.get("data-pci"), g.get("data-numa-node"), g.get("data-vendor")) for g in gpus] == [
        ("0000:05:00.0", "0", "amd"), ("0000:27:00.0", "0", "amd"), ("0000:47:00.0", "0", "amd"), ("0000:65:00.0", "0", "amd"),
        ("0000:85:00.0", "1", "amd"), ("0000:a7:00.0", "1", "amd"), ("0000:c7:00.0", "1", "amd"), ("0000:e5:00.0", "1", "amd")]
    found = {}
    for gpu in gpus:
        assert _inside(_box(gpu), nodes[gpu.get("data-numa-node")])
        parts = [g for g in gpu.iter(SVG + "g") if g.get("data-kind") == "gpu-partition"]
        assert all(part.get("data-gpu-pci") == gpu.get("data-pci") and _inside(_box(part), _box(gpu)) for part in parts)
        found[gpu.get("data-pci")] = [(part.get("data-partition"), part.get("data-kfd-node")) for part in parts]
    assert sum(len(parts) for parts in found.values()) == 63
    assert found["0000:05:00.0"] == [(str(part), str(2 + part)) for part in range(8)]
    assert found["0000:e5:00.0"] == [(str(part), str(58 + part)) for part in range(7)]
    # Partitions of one GPU do not overlap: one row of 8 squares, 2 px apart.
    first = [_box(g) for g in gpus[0].iter(SVG + "g") if g.get("data-kind") == "gpu-partition"]
    assert [box[0] for box in first] == [box[0] for box in sorted(first)] and all(a[2] < b[0] for a, b in zip(first, first[1:]))
    title = gpus[0].find(SVG + "title").text
    assert title == ("GPU unknown 0000:05:00.0 NUMA node 0 (sysfs); amd KFD node 2, KFD unique_id 16404946649897475633, device 0x74a1, "
                     "XGMI hive %s; partition mode compute CPX, memory unknown; 8 partitions" % HIVE)
    mode = [t.text for t in gpus[0].iter(SVG + "text")][2]
    assert mode == "CPX: 8 partitions"


def test_device_table_names_the_identities(tmp_path):
    found = dict((title, (headers, rows)) for title, headers, rows in sections.sections(_built(tmp_path)))
    headers, rows = found["Device identities"]
    assert headers == ["kind", "vendor", "index / name", "UUID / driver", "PCI address", "name / RDMA", "NUMA node", "source", "local CPUs",
                       "identities, partitions"]
    assert rows[0] == ["GPU", "amd", "0", "e3ff74a1-0000-1000-80aa-140f9a5f9e31", "0000:05:00.0", "unknown", "0", "sysfs", "0-15",
                       "KFD node 2; KFD unique_id 16404946649897475633; device 0x74a1; XGMI hive %s; partition mode compute CPX, "
                       "memory unknown; 8 partitions (KFD nodes 2, 3, 4, 5, 6, 7, 8, 9)" % HIVE]
    assert rows[7][-1].endswith("7 partitions (KFD nodes 58, 59, 60, 61, 62, 63, 64)")
