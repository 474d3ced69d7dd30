"""The planner's policy (_plan/policy.py): defaults and every refusal, with the exact message."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.plan import reservation_plan
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.policy import DEFAULT_KUBELET_SETTINGS, PlanError, in_user_terms, normalize_policy
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan.plan_machines import machine


def test_hugepages_cannot_be_reserved():
    # cmd/kubelet/app/server.go parseResourceList refuses them, so reservedMemory never lists hugepages
    with pytest.raises(PlanError) as err:
        reservation_plan(machine(), {"kube_reserved": {"hugepages-2Mi": "4Mi"}})
    assert str(err.value) == ("policy kube_reserved: cannot reserve 'hugepages-2Mi' resource; the kubelet accepts only cpu, memory, "
                              "ephemeral-storage, pid")


@pytest.mark.parametrize("policy, message", [
    ("x", "policy 'x' is a str, expected a dict"),
    ({"reserved": 2}, "policy keys reserved are unknown; known keys: reserved_cpus, reserved_cpu_list, strategy, kube_reserved, "
                      "system_reserved, eviction_hard, kubelet_settings, reserved_memory_default"),
    ({"reserved_memory_default": "gke"}, "policy reserved_memory_default 'gke' is not one of tiered, none"),
    ({"strategy": "Compact"}, "policy strategy 'Compact' is not one of spread, compact, device-aware"),
    ({"reserved_cpus": 0}, "policy reserved_cpus is 0; the static CPU Manager needs a non-zero CPU reservation"),
    ({"reserved_cpus": True}, "policy reserved_cpus True is a boolean, expected a whole number of logical CPUs"),
    ({"reserved_cpus": -2}, "policy reserved_cpus -2 is negative"),
    ({"reserved_cpus": "two"}, "policy reserved_cpus 'two' is not a whole number of logical CPUs"),
    ({"reserved_cpus": {"a": 2}}, "policy reserved_cpus key 'a' is not a NUMA node id"),
    ({"reserved_cpus": {"0": 0}}, "policy reserved_cpus {'0': 0} reserves no CPU; the static CPU Manager needs a non-zero CPU reservation"),
    ({"reserved_cpus": 2, "reserved_cpu_list": "0,8"}, "policy sets both reserved_cpus (2) and reserved_cpu_list ('0,8'); give one of them"),
    ({"reserved_cpu_list": "0-"}, "policy reserved_cpu_list: cpulist '0-': '0-' is not a CPU id or a range 'a-b'"),
    ({"reserved_cpu_list": ""}, "policy reserved_cpu_list '' is empty; the static CPU Manager needs a non-zero CPU reservation"),
    ({"system_reserved": {"memory": "1GB"}}, "policy system_reserved[memory]: quantity '1GB' does not match the Kubernetes quantity format "
                                             "'<number><suffix>' (suffixes Ki Mi Gi Ti Pi Ei, m k M G T P E, or eN)"),
    ({"system_reserved": ["memory"]}, "policy system_reserved ['memory'] is a list, expected a dict such as {'memory': '1Gi'}"),
    ({"eviction_hard": {"memory.available": None}}, "policy eviction_hard[memory.available] None is not a quantity or a percentage"),
    ({"kubelet_settings": {"reservedSystemCPUs": "0"}}, "policy kubelet_settings sets reservedSystemCPUs, which the planner computes; set it "
                                                        "through the policy key reserved_cpus or reserved_cpu_list"),
    ({"kubelet_settings": {"featureGates": {"X": "yes"}}}, "policy kubelet_settings featureGates X = 'yes' is not true or false"),
])
def test_policy_errors(policy, message):
    with pytest.raises(PlanError) as err:
        normalize_policy(policy)
    assert str(err.value) == message


def test_defaults():
    assert normalize_policy(None) == normalize_policy({}) == {
        "reserved_cpus": 2, "reserved_cpu_list": None, "strategy": "device-aware", "kube_reserved": {}, "system_reserved": {},
        "eviction_hard": None, "kubelet_settings": DEFAULT_KUBELET_SETTINGS, "reserved_memory_default": "tiered"}
    assert normalize_policy({"reserved_cpu_list": "8,0", "system_reserved": {"memory": "1024Mi"}})["reserved_cpu_list"] == "0,8"
    assert normalize_policy({"system_reserved": {"memory": "1024Mi"}})["system_reserved"] == {"memory": "1Gi"}


def test_plan_error_is_a_numa_gate_error_and_a_value_error():
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
    assert issubclass(PlanError, NumaGateError) and issubclass(PlanError, ValueError)


def test_quantity_above_the_bound_is_refused():
    # Issue 7 rule 9: quantities have an upper bound.
    with pytest.raises(PlanError) as err:
        normalize_policy({"system_reserved": {"memory": "8Ei"}})
    assert str(err.value) == ("policy system_reserved[memory]: quantity '8Ei' is above the limit of 9223372036854775807 bytes "
                              "(2**63-1: the kubelet holds quantities in an int64)")


def test_in_user_terms_names_the_variable_for_each_key_and_nothing_else():
    names = {"reserved_cpus": "kubelet_plan_reserved_cpus", "strategy": "kubelet_plan_strategy", "kubelet_settings": "kubelet_plan_settings"}
    assert in_user_terms("policy reserved_cpus names NUMA node 3 twice", names) == "kubelet_plan_reserved_cpus names NUMA node 3 twice"
    assert in_user_terms("reserved_cpus[0] 'x' is not a whole number", names) == "kubelet_plan_reserved_cpus[0] 'x' is not a whole number"
    assert in_user_terms("policy strategy 'x' is not one of spread", names) == "kubelet_plan_strategy 'x' is not one of spread"
    # Never inside a longer name, and keys the caller does not name stay.
    assert in_user_terms("kubelet_plan_reserved_cpus 2; policy eviction_hard x", names) == "kubelet_plan_reserved_cpus 2; policy eviction_hard x"
    assert in_user_terms("policy reserved_cpus 2", None) == "policy reserved_cpus 2"
