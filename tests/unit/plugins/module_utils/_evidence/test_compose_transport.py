"""The transport source (_evidence/composition/transport.py): transport_info's reading, the canary's spec and PodResources' GPUs, composed
against the facts of the real 8x H100, 10 NIC host (its topo -m matrix), and the transport criterion's reasons."""

from pathlib import Path

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import compose as _compose
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import sources
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import transport
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import gpu_links
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import notes as _notes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.schema import SchemaError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import nvidia_smi
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import criteria
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

TOPO = Path(shared_paths.FIXTURES) / "nvidia-smi" / "h100-8gpu-10nic-topo-m.txt"
UID = "3f2a9c1e-6b7d-4e8f-9a0b-1c2d3e4f5a6b"


@pytest.fixture(scope="module")
def topology(tmp_path_factory):
    with open(str(TOPO), encoding="utf-8") as handle:
        topo = nvidia_smi.parse_topo_m(handle.read())
    nics = [{"name": "ibp%d" % n, "pci_address": None, "numa_node": 0 if n < 6 else 1, "rdma_devices": ["mlx5_%d" % n]} for n in range(10)]
    gpus = [{"index": row["index"], "uuid": "GPU-%d" % row["index"], "pci_address": None, "numa_node": int(row["numa_affinity"]),
             "topo_links": gpu_links.topo_row(topo, row["index"])} for row in topo["gpus"]]
    with sysfs.Root(str(tmp_path_factory.mktemp("empty"))) as root:
        gpu_links.attach(root, _notes.Notes(), gpus, nics)
    # The CPUs and NUMA nodes as the matrix gives them (CPU Affinity, NUMA Affinity: 0-63,128-191 on node 0, the rest on node 1).
    return {"schema_version": 1, "cpus": {"online": "0-255", "isolated": ""},
            "numa_nodes": [{"id": 0, "cpus": "0-63,128-191"}, {"id": 1, "cpus": "64-127,192-255"}], "gpus": gpus, "nics": nics}


def reads(topology, spec_env, values, gpu="GPU-4", required=False, environ_problem=None):
    env = [{"name": k, "value": v} for k, v in spec_env.items()] + [{"name": "DB_PASSWORD", "value": "pw"}]
    return {
        "transport_task": {"changed": False, "containers": [{
            "uid": UID, "container": "main", "container_id": "c1", "pid": 300, "problem": None,
            "environ": {"pid": 300, "read": environ_problem is None, "values": values, "problem": environ_problem, "bytes": 90}}]},
        "canary": {"pods": [{"uid": UID, "pod": "gpu/trainer-0"}],
                   "manifest": {"kind": "Pod", "spec": {"containers": [{"name": "main", "env": env}]}}},
        "pod_resources": {"changed": False, "pods": [{"namespace": "gpu", "name": "trainer-0", "containers": [
            {"name": "main", "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [gpu], "numa_nodes": [1]}]}]}]},
        "topology": topology,
        "transport_required": required,
    }


def test_ucx_on_the_gpus_nearest_port(topology):
    value = transport.compose(reads(topology, {"UCX_NET_DEVICES": "mlx5_7:1"}, {"UCX_NET_DEVICES": "mlx5_7:1"}))
    assert (value["status"], value["required"]) == ("pinned", False)
    (pod,) = value["pods"]
    assert (pod["pod"], pod["container"], pod["pid"], pod["gpus"]) == ("gpu/trainer-0", "main", 300, ["GPU-4"])
    assert [(f["check"], f["result"]) for f in value["findings"]] == [("transport_nearest_nic", "agree"), ("transport_numa", "agree")]
    assert transport.reasons(value) == [{"criterion": "transport", "effect": "info", "message":
                                         "transport: the main container's NIC selection is pinned, on each GPU's nearest NIC and NUMA node"}]
    assert "DB_PASSWORD" not in repr(value) and "'pw'" not in repr(value)


def test_nccl_exact_hca_on_the_other_socket_defers(topology):
    value = transport.compose(reads(topology, {"NCCL_IB_HCA": "=mlx5_2"}, {"NCCL_IB_HCA": "=mlx5_2"}))
    assert transport.reasons(value) == [
        {"criterion": "transport", "effect": "defer", "message": "transport: NCCL_IB_HCA selects mlx5_2 (SYS) for gpu GPU-4; its nearest is mlx5_7"},
        {"criterion": "transport", "effect": "defer", "message": "transport: NCCL_IB_HCA selects mlx5_2 on NUMA node(s) 0; gpu GPU-4 is on NUMA node 1"},
    ]


def test_nccl_exclusion_keeps_the_nearest(topology):
    value = transport.compose(reads(topology, {}, {"NCCL_IB_HCA": "^mlx5_1"}))
    assert [(f["check"], f["result"]) for f in value["findings"]] == [("transport_nearest_nic", "agree"), ("transport_numa", "agree")]


def test_not_pinned_is_information_unless_required(topology):
    value = transport.compose(reads(topology, {}, {}))
    assert (value["status"], value["findings"]) == ("not pinned", [])
    assert transport.reasons(value) == [{"criterion": "transport", "effect": "info", "message":
                                         "transport: the main container's NIC selection is not pinned"}]
    required = transport.compose(reads(topology, {}, {}, required=True))
    assert [r["effect"] for r in transport.reasons(required)] == ["defer"]


def test_a_binary_environ_defers_and_the_spec_is_used(topology):
    value = transport.compose(reads(topology, {"UCX_NET_DEVICES": "mlx5_7:1"}, {},
                                    environ_problem="/proc/300/environ is not an environment (entry 2 of 4 is not KEY=VALUE text: binary content)"))
    assert value["pods"][0]["variables"]["UCX_NET_DEVICES"]["value"] == "mlx5_7:1"
    assert transport.reasons(value)[0] == {"criterion": "transport", "effect": "defer", "message":
                                           "transport: /proc/300/environ is not an environment (entry 2 of 4 is not KEY=VALUE text: binary "
                                           "content); the container spec's values are used"}


def test_not_asked_and_failed(topology):
    assert transport.compose({"transport_task": {"skipped": True}}) is None
    assert transport.reasons(None) == []
    failed = transport.compose({"transport_task": {"failed": True, "msg": "no cgroup v1 cpuset or v2 mount under /"}})
    assert failed == {"status": "not read", "error": "no cgroup v1 cpuset or v2 mount under /", "findings": []}
    assert transport.reasons(failed) == [{"criterion": "transport", "effect": "defer", "message":
                                          "transport not read: no cgroup v1 cpuset or v2 mount under /"}]


def test_the_source_is_composed_and_its_criterion_asked(topology):
    source = sources.by_name("transport")
    assert (source.record, source.gate, source.criteria, source.title) == ("key", "canary", ("transport",), "Transport")
    every = dict((name, None) for name in sources.reads())
    every.update(reads(topology, {}, {"NCCL_IB_HCA": "=mlx5_7"}))
    assert _compose.compose(every)["transport"]["status"] == "pinned"
    assert "transport" in [row.name for row in criteria.rows()]


def test_facts_whose_links_break_the_schema_are_refused_naming_the_field(topology):
    broken = dict(topology, gpus=[dict(topology["gpus"][0], links={"gpus": {}, "nics": [{"name": "ibp0", "link": "NEAR", "source": "x"}]})])
    with pytest.raises(SchemaError) as raised:
        transport.compose(reads(broken, {}, {}, gpu="GPU-0"))
    assert str(raised.value) == ("topology gpus entry gpu 0: links.nics[0].link 'NEAR' is not one of X, PIX, PXB, PHB, NODE, SYS, SOC "
                                 "or null")
