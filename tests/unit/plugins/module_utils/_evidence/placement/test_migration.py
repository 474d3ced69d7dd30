"""placement.migration: two placement readings of the same container, node by node (memory over time)."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import migration
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import numa_stat

UID = "11111111-2222-3333-4444-555555555555"
MAIN = "a" * 64
MIB = 1024 * 1024


def _view(mems, stat_text, normal, huge=None):
    stat = numa_stat.parse(stat_text, "/sys/fs/cgroup/kubepods/pod%s/%s/memory.numa_stat" % (UID, MAIN)) if stat_text else None
    if stat is not None:
        stat["resident_bytes"] = numa_stat.resident_bytes(stat)
    view = {"id": MAIN, "mems": mems, "numa_stat": stat, "memory": {"normal_bytes": normal, "huge_bytes": huge or {}, "mappings": 3}}
    view["permitted"] = migration.permitted_fraction(view)
    return view


def _reading(*views):
    return {"pods": [{"uid": UID, "found": True, "containers": list(views)}]}


def test_a_node_outside_the_permitted_set_that_still_holds_pages_is_migration_incomplete():
    # first reading: the mask moved to node 1, most pages still on node 0; second: some left behind on node 0
    first = _view("1", "anon N0=%d N1=%d\nfile N0=0 N1=0\n" % (96 * MIB, 32 * MIB), {"0": 96 * MIB, "1": 32 * MIB})
    second = _view("1", "anon N0=%d N1=%d\nfile N0=0 N1=0\n" % (8 * MIB, 120 * MIB), {"0": 4 * MIB, "1": 120 * MIB},
                   {"2048kB": {"0": 4 * MIB}})
    assert first["permitted"] == {"nodes": "1", "local_bytes": 32 * MIB, "total_bytes": 128 * MIB, "source": "memory.numa_stat",
                                  "fraction": 0.25}
    assert second["permitted"]["fraction"] == 0.9375
    (finding,) = migration.compare(_reading(first), _reading(second))
    assert finding["message"] == (
        "migration incomplete: container aaaaaaaaaaaa still holds 8388608 bytes (memory.numa_stat) and 8388608 bytes (numa_maps) on NUMA "
        "node 0 at the second reading, outside its permitted nodes 1 (first reading: 100663296 and 100663296)")
    assert (finding["check"], finding["result"], finding["pod"], finding["container"]) == ("memory_migration", "disagree", UID, MAIN)
    assert finding["observed"] == {"node": 0, "bytes": {"numa_stat": 8 * MIB, "numa_maps": 8 * MIB},
                                   "first_reading": {"numa_stat": 96 * MIB, "numa_maps": 96 * MIB}}


def test_every_byte_on_the_permitted_nodes_at_the_second_reading_agrees():
    first = _view("0", "anon N0=%d N1=%d\n" % (MIB, MIB), {"0": MIB, "1": MIB})
    second = _view("0", "anon N0=%d N1=0\n" % (2 * MIB), {"0": 2 * MIB, "1": 0})
    (finding,) = migration.compare(_reading(first), _reading(second))
    assert (finding["result"], finding["message"]) == (
        "agree", "container aaaaaaaaaaaa: every resident byte is on its permitted nodes 0 at the second reading")


def test_a_container_gone_by_the_second_reading_or_without_a_mask_is_unknown():
    first = _view("0", "anon N0=4096\n", {"0": 4096})
    (gone,) = migration.compare(_reading(first), {"pods": [{"uid": UID, "found": False}]})
    assert (gone["result"], gone["message"]) == (
        "unknown", "container aaaaaaaaaaaa of pod %s was not found at the second reading: its memory over time is unknown" % UID)
    (masked,) = migration.compare(_reading(first), _reading(_view(None, "anon N0=4096\n", {"0": 4096})))
    assert (masked["result"], masked["message"]) == (
        "unknown", "container aaaaaaaaaaaa: its permitted memory nodes (cpuset mems) were not read at the second reading, so a migration "
        "cannot be judged")
    (empty,) = migration.compare(_reading(first), _reading(_view("0", None, {})))
    assert (empty["result"], empty["message"]) == (
        "unknown", "container aaaaaaaaaaaa: nothing resident was read at the second reading (no memory.numa_stat, no numa_maps pages)")


def test_the_fraction_falls_back_to_numa_maps_and_counts_huge_pages_by_their_size():
    view = _view("0", None, {"0": 4096, "1": 4096}, {"1048576kB": {"0": 1024 * MIB}})
    assert view["permitted"] == {"nodes": "0", "local_bytes": 4096 + 1024 * MIB, "total_bytes": 8192 + 1024 * MIB, "source": "numa_maps",
                                 "fraction": round((4096 + 1024 * MIB) / (8192 + 1024 * MIB), 6)}
