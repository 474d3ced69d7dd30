"""Checkpoint checksums against the kubelet's own test vectors (KUBELET-FACTS.md, upstream tests)."""

import json

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import go_types as types
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import checksum

# pkg/kubelet/cm/cpumanager/state tests: the dataChecksum of two data strings.
DATA_VECTORS = [
    ('{"policyName":"none","defaultCPUSet":"4-6"}', 657950972),
    ('{"policyName":"static","defaultCPUSet":"7-9","entries":{"pod":{"container1":"4-6","container2":"1-3"}}}', 1420829534),
]

CPU_V2 = {"policyName": "static", "defaultCpuSet": "0,2-12,14-23",
          "entries": {"235148fe-393f-47a8-a17d-bd55bc1a836b": {"cgroup1-0": "1,13"}}, "checksum": 1552716370}

# pkg/kubelet/cm/memorymanager/state/state_checkpoint_test.go, "Restore valid checkpoint".
MEMORY_V1 = json.loads('{"policyName":"static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":'
                       '{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}},'
                       '"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}},'
                       '"checksum": 4215593881}')


def test_fnv1a_32_known_values():
    assert checksum.fnv1a_32(b"") == 0x811C9DC5
    assert checksum.fnv1a_32("a") == 0xE40C292C


@pytest.mark.parametrize("data, expected", DATA_VECTORS)
def test_data_checksum_vectors(data, expected):
    assert checksum.data_checksum(data) == expected


def test_cpu_v2_legacy_vector():
    assert checksum.legacy_checksum(CPU_V2, types.CPU_V2, types.CPU_LEGACY_NAME) == 1552716370


def test_memory_v1_legacy_vector():
    assert checksum.legacy_checksum(MEMORY_V1, types.MEMORY_V1, types.MEMORY_LEGACY_NAME) == 4215593881


def test_json_key_order_and_spacing_do_not_matter():
    shuffled = json.loads(json.dumps(dict(reversed(list(CPU_V2.items()))), indent=4))
    assert checksum.legacy_checksum(shuffled, types.CPU_V2, types.CPU_LEGACY_NAME) == 1552716370


def test_one_changed_value_changes_the_hash():
    changed = dict(CPU_V2, defaultCpuSet="0,2-12,14-22")
    assert checksum.legacy_checksum(changed, types.CPU_V2, types.CPU_LEGACY_NAME) != 1552716370


def test_null_map_and_empty_map_hash_differently():
    empty = dict(CPU_V2, entries={})
    null = dict(CPU_V2, entries=None)
    assert checksum.legacy_checksum(empty, types.CPU_V2, types.CPU_LEGACY_NAME) != \
        checksum.legacy_checksum(null, types.CPU_V2, types.CPU_LEGACY_NAME)


def test_spew_text_of_a_v2_struct():
    decoded = types.CPU_V2.decode(CPU_V2, "checkpoint")
    decoded["Checksum"] = 0
    assert types.CPU_V2.dump(decoded) == (
        "{PolicyName:(string)static DefaultCPUSet:(string)0,2-12,14-23 Entries:(map[string]map[string]string)"
        "map[235148fe-393f-47a8-a17d-bd55bc1a836b:map[cgroup1-0:1,13]] Checksum:(checksum.Checksum)0}")


def test_wrong_type_names_the_field():
    with pytest.raises(NumaGateError, match=r"^checkpoint\.defaultCpuSet is 5, not a string$"):
        checksum.legacy_checksum(dict(CPU_V2, defaultCpuSet=5), types.CPU_V2, types.CPU_LEGACY_NAME)
