"""The facts schema's GPU links and NIC RDMA devices (_facts/schema_links.py through schema.read): the links gpu_links attaches from the
real 8x H100, 10 NIC host's ``nvidia-smi topo -m`` read back as Link tuples, facts without links read as unknown, and every wrong
shape refused naming the field and the value."""

from pathlib import Path

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gpu_links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import notes as _notes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_smi
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.schema_links import Link
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

TOPO = Path(shared_paths.FIXTURES) / "nvidia-smi" / "h100-8gpu-10nic-topo-m.txt"


def facts(gpus, nics):
    return {"schema_version": 1, "cpus": {"online": "0-255", "isolated": ""},
            "numa_nodes": [{"id": 0, "cpus": "0-63,128-191"}, {"id": 1, "cpus": "64-127,192-255"}], "gpus": gpus, "nics": nics}


@pytest.fixture(name="h100", scope="module")
def fixture_h100(tmp_path_factory):
    topo = nvidia_smi.parse_topo_m(TOPO.read_text(encoding="utf-8"))
    nics = [{"name": "ibp%d" % n, "pci_address": None, "numa_node": 0 if n < 6 else 1, "rdma_devices": ["mlx5_%d" % n]} for n in range(10)]
    gpus = [{"index": row["index"], "uuid": "GPU-%d" % row["index"], "pci_address": None, "numa_node": int(row["numa_affinity"]),
             "topo_links": gpu_links.topo_row(topo, row["index"])} for row in topo["gpus"]]
    with sysfs.Root(str(tmp_path_factory.mktemp("empty"))) as root:
        gpu_links.attach(root, _notes.Notes(), gpus, nics)
    return facts(gpus, nics)


def test_the_real_matrix_reads_back_as_links(h100):
    topology = schema.read(h100)
    gpu0, gpu4 = topology.gpus[0], topology.gpus[4]
    assert [(link.rdma_device, link.link) for link in gpu0.links] == [
        ("mlx5_0", "NODE"), ("mlx5_1", "NODE"), ("mlx5_2", "NODE"), ("mlx5_3", "PIX"), ("mlx5_4", "NODE"), ("mlx5_5", "NODE"),
        ("mlx5_6", "SYS"), ("mlx5_7", "SYS"), ("mlx5_8", "SYS"), ("mlx5_9", "SYS")]
    assert gpu4.links[7] == Link(name="ibp7", rdma_device="mlx5_7", pci_address=None, numa_node=1, link="PIX", source="nvidia-smi topo -m")
    assert [nic.rdma_devices for nic in topology.nics[:2]] == [("mlx5_0",), ("mlx5_1",)]


def test_facts_without_links_read_as_none_known():
    topology = schema.read(facts([{"index": 0, "uuid": "GPU-0", "pci_address": None, "numa_node": 0}], [{"name": "eth0", "numa_node": 0}]))
    assert (topology.gpus[0].links, topology.nics[0].rdma_devices) == ((), ())


GPU = {"index": 0, "uuid": "GPU-0", "pci_address": "0000:18:00.0", "numa_node": 0}
NIC = {"name": "ibp0", "rdma_device": "mlx5_0", "pci_address": None, "numa_node": 0, "link": "PIX", "source": "nvidia-smi topo -m"}
WHERE = "topology gpus entry gpu 0000:18:00.0: links"


@pytest.mark.parametrize("links, message", [
    (["PIX"], "%s ['PIX'] is a list, expected a mapping with gpus and nics" % WHERE),
    ({"gpus": {"GPU1": "NEAR"}, "nics": []}, "%s.gpus {'GPU1': 'NEAR'} is not a mapping of GPU labels to nvidia-smi topo -m words "
                                             "(X, PIX, PXB, PHB, NODE, SYS, SOC, NV<n>)" % WHERE),
    ({"nics": {"ibp0": "PIX"}}, "%s.nics {'ibp0': 'PIX'} is a dict, expected a list" % WHERE),
    ({"nics": ["ibp0"]}, "%s.nics[0] 'ibp0' is not a mapping" % WHERE),
    ({"nics": [dict(NIC, link="NV18")]}, "%s.nics[0].link 'NV18' is not one of X, PIX, PXB, PHB, NODE, SYS, SOC or null" % WHERE),
    ({"nics": [dict(NIC, numa_node=-1)]}, "%s.nics[0].numa_node -1 is not a NUMA node id (an integer from 0) or null" % WHERE),
    ({"nics": [dict(NIC, numa_node=True)]}, "%s.nics[0].numa_node True is not a NUMA node id (an integer from 0) or null" % WHERE),
    ({"nics": [dict(NIC, name=3)]}, "%s.nics[0].name 3 is not a string or null" % WHERE),
    ({"nics": [dict(NIC, source=None)]}, "%s.nics[0].source None is not a string (the source that measured the link)" % WHERE),
    ({"nics": [dict(NIC, name=None, rdma_device=None)]}, "%s.nics[0] names neither an interface nor an RDMA device" % WHERE),
])
def test_links_of_the_wrong_shape_are_refused_naming_them(links, message):
    with pytest.raises(schema.SchemaError) as raised:
        schema.read(facts([dict(GPU, links=links)], []))
    assert str(raised.value) == message


def test_a_link_nobody_measured_is_kept_as_unknown():
    (gpu,) = schema.read(facts([dict(GPU, links={"gpus": {"GPU1": "NV12"}, "nics": [dict(NIC, link=None, source="sysfs pci tree")]})], [])).gpus
    assert gpu.links == (Link(name="ibp0", rdma_device="mlx5_0", pci_address=None, numa_node=0, link=None, source="sysfs pci tree"),)


@pytest.mark.parametrize("value", ["mlx5_0", [""], [1]])
def test_rdma_devices_of_the_wrong_shape_are_refused(value):
    with pytest.raises(schema.SchemaError) as raised:
        schema.read(facts([], [{"name": "ibp0", "numa_node": 0, "rdma_devices": value}]))
    assert str(raised.value) == "topology nics entry nic ibp0: rdma_devices %r is not a list of device names" % (value,)
