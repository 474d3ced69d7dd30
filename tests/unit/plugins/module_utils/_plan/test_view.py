"""What the planner derives from the facts (_plan/view.py): CPU nodes, reservable cores, devices per node."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import view
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan.plan_machines import machine


def test_cpu_nodes_and_usable_cores():
    facts = machine(isolated="4,12")
    facts["numa_nodes"].append({"id": 2, "cpus": "", "memory_bytes": 1 << 30})
    topology = schema.read(facts)
    assert view.cpu_nodes(topology) == [0, 1]
    assert [core.id for core in view.usable_cores(topology, 1)] == [5, 6, 7]
    assert view.usable_cores(topology, 2) == []


def test_devices_by_node_and_unplaced():
    topology = schema.read(machine(gpus=[("0000:9a:00.0", 1), ("0000:18:00.0", 1), ("0000:30:00.0", None), ("0000:40:00.0", 7)],
                                   nics=[("ib0", 0)]))
    placed = view.devices(topology)
    assert placed.gpus == {0: [], 1: ["0000:18:00.0", "0000:9a:00.0"]}
    assert placed.nics == {0: ["ib0"], 1: []}
    assert placed.unplaced == ["gpu 0000:30:00.0", "gpu 0000:40:00.0"]
    assert view.ids([]) == "none" and view.ids([0, 2]) == "0, 2"
