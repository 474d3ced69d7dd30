"""The memory source (_evidence/composition/memory.py): two placement readings of the canary, read with the real reader from the
recorded tree of record_inputs, composed into the record; "migration incomplete" reaches the findings and defers placement."""

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import compose
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import memory
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import read as placement
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence import test_compose as C
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

MIB = 1024 * 1024


def _stat_file(root, tree, cgroup):
    mount = tree["cpuset"] if tree["version"] == 2 else "sys/fs/cgroup/memory"
    return os.path.join(root, mount, cgroup.lstrip("/"), "memory.numa_stat")


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _record(facts, found, inputs):
    own = {key: inputs[key] for key in ("plan", "slack", "generated_at")}
    return record.build(facts, "h200-vm", dict(found, versions=dict(found["versions"], driver=ri.VERSIONS["driver"]), **own))


def _two_readings(root, first_text, second_text):
    """The main container's memory.numa_stat as given at each reading; the sidecars' a page on node 0 at both."""
    tree, (pod,) = placement.read_pods(root, [ri.UID])
    main = next(view for view in pod["containers"] if view["id"] == ri.MAIN)
    for view in pod["containers"]:
        _write(_stat_file(root, tree, view["cgroup"]), "anon N0=4096\n")
    _write(_stat_file(root, tree, main["cgroup"]), first_text)
    first = C.registered(cgroup=tree, pods=placement.read_pods(root, [ri.UID])[1], processes=[])
    _write(_stat_file(root, tree, main["cgroup"]), second_text)
    second = C.registered(cgroup=tree, pods=placement.read_pods(root, [ri.UID])[1], processes=[])
    return main["mems"], first, second


def test_pages_left_outside_the_permitted_nodes_at_the_second_reading_are_migration_incomplete(tmp_path):
    facts = ri.h200_facts()
    reads, inputs = C.full_reads(str(tmp_path), facts)
    mems, first, second = _two_readings(str(tmp_path), "anon N0=%d N1=%d\nfile N0=0 N1=0\n" % (32 * MIB, 96 * MIB),
                                        "anon N0=%d N1=%d\nfile N0=0 N1=0\n" % (120 * MIB, 8 * MIB))
    assert mems == "0"
    reads.update(placement=first, placement_after=second)
    found = compose.compose(reads)
    readings = found["memory"]["readings"]
    assert [reading["at"] for reading in readings] == ["after admission", "after the warm-up or the load"]
    assert found["memory"]["main_container"] == ri.MAIN
    assert [reading["main"]["fraction"] for reading in readings] == [0.25, 0.9375]
    assert [reading["main"]["source"] for reading in readings] == ["memory.numa_stat", "memory.numa_stat"]
    main_second = next(entry for entry in readings[1]["containers"] if entry["id"] == ri.MAIN)
    assert main_second["numa_stat"]["bytes"] == {"anon": {"0": 120 * MIB, "1": 8 * MIB}, "file": {"0": 0, "1": 0}}
    migration = [finding for finding in found["findings"] if finding["check"] == "memory_migration" and finding["result"] == "disagree"]
    assert [finding["message"] for finding in migration] == [
        "migration incomplete: container %s still holds 8388608 bytes (memory.numa_stat) and 0 bytes (numa_maps) on NUMA node 1 at the "
        "second reading, outside its permitted nodes 0 (first reading: 100663296 and 0)" % ri.MAIN[:12]]
    assert migration[0]["pod"] == ri.CANARY
    built = _record(facts, found, inputs)
    assert built["memory"] == found["memory"]
    assert built["verdict"]["verdict"] == "defer"
    assert "placement memory_migration disagrees: " + migration[0]["message"] in [reason["message"] for reason in built["verdict"]["reasons"]]


def test_both_readings_on_the_permitted_nodes_agree_and_the_record_keeps_both(tmp_path):
    facts = ri.h200_facts()
    reads, inputs = C.full_reads(str(tmp_path), facts)
    text = "anon N0=%d\nfile N0=%d\nhugetlb N0=%d\n" % (64 * MIB, MIB, 2 * MIB)
    mems, first, second = _two_readings(str(tmp_path), text, text)
    reads.update(placement=first, placement_after=second)
    found = compose.compose(reads)
    assert [reading["main"] for reading in found["memory"]["readings"]] == [
        {"nodes": mems, "local_bytes": 67 * MIB, "total_bytes": 67 * MIB, "fraction": 1.0, "source": "memory.numa_stat"}] * 2
    mine = [(finding["container"], finding["result"]) for finding in found["findings"] if finding["check"] == "memory_migration"]
    assert sorted(mine) == [(ri.MAIN, "agree"), (ri.METRICS_ID, "agree"), (ri.LOGGING_ID, "agree")]
    built = _record(facts, found, inputs)
    assert [reason for reason in built["verdict"]["reasons"] if reason["criterion"] == "placement"] == []
    assert len(built["memory"]["readings"]) == 2


def test_a_second_reading_that_failed_is_a_finding_and_none_is_not_asked():
    first = C.registered(pods=[])
    failed = C.registered(msg="cgroup root /sys/fs/cgroup is not readable: Permission denied")
    value = memory.compose({"placement": first, "placement_after": failed, "canary": C.canary_result()})
    assert [finding["message"] for finding in value["findings"]] == [
        "memory over time not judged: the reading after the warm-up or the load failed: cgroup root /sys/fs/cgroup is not readable: "
        "Permission denied"]
    assert memory.compose({"placement": first, "placement_after": C.SKIPPED}) is None
    assert memory.compose({"placement": first}) is None
