"""Checkpoints of the wrong shape are findings naming the file and the field, never an exception (issue 16, rule 7).

Each case first fails json.Unmarshal in the kubelet (pkg/kubelet/cm/{cpumanager,memorymanager}/state): the report says the
kubelet cannot load the file, and kubelet_checkpoint's refusal quotes it; before this, each reached the user as
"unexpected AttributeError/TypeError/ValueError".
"""

import json

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import checks as checkpoint_checks, files as checkpoint_files, read
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints.checksum import data_checksum

_UNLOADABLE = " (json.Unmarshal fails on it: the kubelet cannot load the file)"


def _v4(payload, **top):
    data = json.dumps(payload)
    return json.dumps(dict({"policyName": "static", "defaultCpuSet": "", "entries": {}, "checksum": 0, "data": data,
                            "dataChecksum": data_checksum(data)}, **top)).encode()


def _v3_memory(payload):
    data = json.dumps(payload)
    return json.dumps({"policyName": "Static", "machineState": {}, "entries": {}, "checksum": 0, "data": data,
                       "dataChecksum": data_checksum(data)}).encode()


@pytest.mark.parametrize("document, problem", [
    ({"policyName": "none", "defaultCpuSet": "0-7", "entries": [1, 2], "checksum": 0},
     "cpu_manager_state.entries is [1, 2], not a JSON object" + _UNLOADABLE),
    ({"policyName": 5, "defaultCpuSet": "0-7", "checksum": 0}, "cpu_manager_state.policyName is 5, not a string" + _UNLOADABLE),
    ({"policyName": "none", "defaultCpuSet": "0-7", "entries": {"pod": {"c": 7}}, "checksum": 0},
     "cpu_manager_state.entries[pod][c] is 7, not a string" + _UNLOADABLE),
    ({"policyName": "none", "defaultCpuSet": "0-7", "podEntries": {"pod": "0-1"}, "checksum": 0},
     "cpu_manager_state.podEntries[pod] is '0-1', not a JSON object" + _UNLOADABLE),
    ({"policyName": "none", "defaultCpuSet": "0-7", "checksum": "x" * 500},
     "cpu_manager_state.checksum is 'xxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxxxxxxx', not an integer of Go type checksum.Checksum"
     + _UNLOADABLE),
])
def test_cpu_fields_of_the_wrong_type(document, problem):
    report = read.read_cpu(json.dumps(document).encode())
    assert (report["present"], report["load"], report["problem"], report["policy"]) == (True, False, problem, None)


@pytest.mark.parametrize("payload, problem", [
    ({"policyName": "static", "defaultCPUSet": "0-7", "entries": "pod"},
     "could not load v4 checkpoint: failed to deserialize cpu manager checkpoint data: cpu_manager_state data.entries is 'pod', "
     "not a JSON object"),
    ({"policyName": ["static"], "defaultCPUSet": "0-7"},
     "could not load v4 checkpoint: failed to deserialize cpu manager checkpoint data: cpu_manager_state data.policyName is ['static'], "
     "not a string"),
    ({"policyName": "static", "defaultCPUSet": "0-7", "podEntries": {"pod": {"cpuSet": 3}}},
     "could not load v4 checkpoint: failed to deserialize cpu manager checkpoint data: cpu_manager_state data.podEntries[pod].cpuSet is 3, "
     "not a cpulist string"),
])
def test_cpu_v4_data_fields_of_the_wrong_type(payload, problem):
    report = read.read_cpu(_v4(payload))
    assert (report["format"], report["load"], report["problem"]) == ("V4", False, problem)
    assert report["checksums"]["dataChecksum"]["status"] == "valid"


def test_memory_v3_data_fields_of_the_wrong_type():
    report = read.read_memory(_v3_memory({"policyName": "Static", "machineState": {"0": {"memoryMap": {"memory": "2Gi"}}}}))
    assert (report["format"], report["load"]) == ("V3", False)
    assert report["problem"] == ("could not load v3 checkpoint: failed to deserialize memory manager checkpoint data: memory_manager_state "
                                 "data.machineState[0].memoryMap[memory] is '2Gi', not a JSON object")


def test_memory_v1_fields_of_the_wrong_type():
    report = read.read_memory(json.dumps({"policyName": "Static", "machineState": {"zero": {}}, "checksum": 0}).encode())
    assert report["problem"] == "memory_manager_state.machineState key 'zero' is not an integer" + _UNLOADABLE


def test_unparsable_cpusets_are_the_kubelets_restore_errors_after_its_policy_check():
    document = {"policyName": "static", "defaultCpuSet": "1.3", "entries": {}, "checksum": 0}
    report = read.read_cpu(json.dumps(document).encode())
    assert report["load"] is False
    assert report["problem"] == "could not parse default cpu set \"1.3\": cpulist '1.3': '1.3' is not a CPU id or a range 'a-b'"
    target = checkpoint_checks.target_from_config({"cpuManagerPolicy": "none"})
    # The kubelet compares the policy first (state_checkpoint.go restoreState), then parses.
    assert checkpoint_checks.cpu_refusal(report, target, "/c") == (
        'could not restore state from checkpoint: configured policy "none" differs from state checkpoint policy "static", please drain '
        'this node and delete the CPU manager checkpoint file "/c" before restarting Kubelet')
    target = checkpoint_checks.target_from_config({"cpuManagerPolicy": "static", "reservedSystemCPUs": "0"})
    assert checkpoint_checks.cpu_refusal(report, target, "/c") == (
        "could not restore state from checkpoint: could not parse default cpu set \"1.3\": cpulist '1.3': '1.3' is not a CPU id or a "
        "range 'a-b', please drain this node and delete the CPU manager checkpoint file \"/c\" before restarting Kubelet")
    entries = read.read_cpu(_v4({"policyName": "static", "defaultCPUSet": "1-3", "entries": {"pod": {"container2": "asd"}}}))
    assert entries["problem"] == ("could not parse cpuset \"asd\" for container \"container2\" in pod \"pod\": cpulist 'asd': 'asd' is not "
                                  "a CPU id or a range 'a-b'")


def test_deeply_nested_json():
    report = read.read_cpu(b"[" * 100000)
    assert report["problem"] == ("cpu_manager_state is not JSON: nested too deeply to parse (more levels of arrays and objects than the "
                                 "parser's recursion limit)")
    inner = read.read_cpu(_v4({"policyName": "static"}, data="[" * 100000, dataChecksum=data_checksum("[" * 100000)))
    assert inner["problem"] == ("could not load v4 checkpoint: failed to deserialize cpu manager checkpoint data: nested too deeply to "
                                "parse (more levels of arrays and objects than the parser's recursion limit)")


@pytest.mark.parametrize("config, message", [
    ({"reservedMemory": [{"limits": {"memory": "1Gi"}}]},
     "config reservedMemory[0].numaNode None is not a NUMA node id (a whole number of at least 0)"),
    ({"reservedMemory": [{"numaNode": 0, "limits": ["memory"]}]},
     "config reservedMemory[0].limits ['memory'] is not a mapping of resource to quantity"),
    ({"reservedMemory": {"numaNode": 0}}, "config reservedMemory is a dict, not a list of {numaNode, limits}"),
    ({"cpuManagerPolicyOptions": ["full-pcpus-only"]}, "config cpuManagerPolicyOptions ['full-pcpus-only'] is not a mapping of option to value"),
    ({"cpuManagerPolicy": 1}, "config cpuManagerPolicy 1 is not a string"),
    ({"reservedSystemCPUs": "0-x"}, "cpulist '0-x': '0-x' is not a CPU id or a range 'a-b'"),
])
def test_config_fields_of_the_wrong_type(config, message):
    with pytest.raises(NumaGateError) as raised:
        checkpoint_files.refusals({"cpu": read.absent("cpu"), "memory": read.absent("memory")}, config)
    assert str(raised.value) == message
