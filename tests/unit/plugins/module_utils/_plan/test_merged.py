"""The plan merged over the node's kubelet configuration (_plan/merged.py), through _kubelet.config.merge, with each key's origin."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import merged
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.policy import PlanError
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan.plan_machines import base


def test_over_base_merges_as_a_drop_in_and_keeps_each_origin():
    node = base(systemReserved={"memory": "1Gi", "cpu": "1"}, evictionHard={"memory.available": "300Mi"})
    result = merged.over_base(node, {"systemReserved": {"memory": "2Gi"}, "reservedSystemCPUs": "0,8"})
    assert isinstance(result, merge.EffectiveConfig)
    assert result["systemReserved"] == {"memory": "2Gi", "cpu": "1"}
    assert result["evictionHard"] == {"memory.available": "300Mi"}
    assert merged.origin(result, ("systemReserved", "memory")) == "policy"
    assert merged.origin(result, ("systemReserved", "cpu")) == "node config /var/lib/kubelet/config.yaml"
    assert merged.origin(result, ("reservedSystemCPUs",)) == "policy"
    assert merged.origin(result, ("kubeReserved", "memory")) is None
    assert node["systemReserved"] == {"memory": "1Gi", "cpu": "1"}  # the base is untouched


def test_origins_of_a_bare_base_and_of_a_plain_dict():
    assert merged.origin(merged.over_base(merged.base_config(None), {}), ("evictionHard", "memory.available")) == "kubelet default"
    plain = merged.over_base({"apiVersion": merge.API_VERSION, "kind": merge.KIND, "evictionHard": {"memory.available": "1Gi"}}, {})
    assert merged.origin(plain, ("evictionHard", "memory.available")) == "node config"


def test_base_config_must_be_a_dict():
    with pytest.raises(PlanError) as err:
        merged.base_config(["x"])
    assert str(err.value) == ("base_config ['x'] is a list, expected the node's effective kubelet configuration (a dict, as "
                              "_kubelet.config.merge.effective_config returns it)")
