# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Support as data: the shipped table, the operator's entries, and the support criterion's reasons (issue 32, "Must show")."""

from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import verdict
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack import support
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._stack.errors import StackError

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 5))
SOURCE = "https://docs.nvidia.com/networking/display/kubernetes2670/platform-support.html"


def shipped():
    with open(os.path.join(REPO, "roles", "acceptance_record", "vars", "main.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)["__acceptance_record_support_table"]


def stack(**more):
    return dict({"kubelet": "v1.37.1", "control_plane": "v1.37.1", "kernel": "6.8.0-45-generic", "driver": "580.82.07",
                 "node_image": "Ubuntu 24.04.1 LTS"}, **more)


def test_the_shipped_table_holds_the_reports_network_operator_entry():
    assert shipped() == [{"name": "nvidia-network-operator-26.7", "component": "network_operator", "versions": "26.7",
                          "kubernetes": "1.32 - 1.36", "source": SOURCE, "read": "2026-12-04"}]
    assert [entry["name"] for entry in support.check_table(shipped())] == ["nvidia-network-operator-26.7"]


def test_an_out_of_range_network_operator_defers_naming_the_entry_and_its_source():
    found = support.reasons(stack(network_operator="v26.7.0"), {"support_table": shipped()})
    assert found[0] == {"criterion": "support", "effect": "defer", "message": (
        "network_operator v26.7.0 is supported on Kubernetes 1.32 - 1.36 only (support table entry nvidia-network-operator-26.7, "
        "source %s, read 2026-12-04), and the control plane is v1.37.1 and the kubelet is v1.37.1: no support statement covers this "
        "stack" % SOURCE)}
    decided = verdict.decide({"versions": stack(network_operator="v26.7.0"), "has_gpus": False}, {"support_table": shipped()})
    assert decided["verdict"] == "defer"
    assert [r["message"] for r in decided["reasons"] if r["criterion"] == "support"][0] == found[0]["message"]


def test_inside_the_range_is_info_naming_the_entry():
    found = support.reasons(stack(network_operator="26.7.0", kubelet="v1.36.4", control_plane="v1.36.4"), {"support_table": shipped()})
    assert found[0] == {"criterion": "support", "effect": "info", "message": (
        "network_operator 26.7.0 is supported on Kubernetes 1.32 - 1.36 (support table entry nvidia-network-operator-26.7, source %s, "
        "read 2026-12-04)" % SOURCE)}


@pytest.mark.parametrize("have, said", [(None, "not read"), ("latest", "'latest'")])
def test_an_installed_component_with_an_unknown_version_defers(have, said):
    found = support.reasons(stack(network_operator=have), {"support_table": shipped()})
    assert found[0] == {"criterion": "support", "effect": "defer", "message": (
        "network_operator is installed but its version is unknown (%s): its support (support table entry nvidia-network-operator-26.7) "
        "cannot be checked; unknown is not agreement" % said)}


def test_a_rule_about_a_component_not_installed_is_info():
    found = support.reasons(stack(), {"support_table": shipped()})
    assert found[0] == {"criterion": "support", "effect": "info", "message": (
        "network_operator is not installed on this node (not found): support table entry nvidia-network-operator-26.7 does not apply")}


def test_no_table_entry_for_a_component_is_info_not_adopt_by_silence():
    found = support.reasons(stack(gpu_operator="v25.10.0"), {"support_table": shipped()})
    assert found[-1] == {"criterion": "support", "effect": "info", "message": (
        "no support table entry covers driver 580.82.07, gpu_operator v25.10.0, kernel 6.8.0-45-generic, node_image Ubuntu 24.04.1 LTS: "
        "their support is not stated (not adopted by silence: add an entry to acceptance_record_support)")}
    covered_elsewhere = support.reasons(stack(network_operator="25.4.0"), {"support_table": shipped()})
    assert covered_elsewhere[0]["message"].startswith("no support table entry covers driver 580.82.07, kernel 6.8.0-45-generic, "
                                                      "network_operator 25.4.0, node_image")


def test_the_operators_override_wins():
    mine = dict(shipped()[0], kubernetes="1.32 - 1.37", source="https://example.com/our-support-contract", read="2026-12-01")
    found = support.reasons(stack(network_operator="26.7.0"), {"support_table": shipped(), "support": [mine]})
    assert found[0] == {"criterion": "support", "effect": "info", "message": (
        "network_operator 26.7.0 is supported on Kubernetes 1.32 - 1.37 (support table entry nvidia-network-operator-26.7, source "
        "https://example.com/our-support-contract, read 2026-12-01)")}
    assert [entry["source"] for entry in support.merge(shipped(), [mine])] == ["https://example.com/our-support-contract"]


def test_the_operator_extends_the_table():
    mine = {"name": "our-gpu-operator", "component": "gpu_operator", "versions": ">= 25.10", "kubernetes": "<= 1.36",
            "source": "https://example.com/gpu", "read": "2026-11-30"}
    found = support.reasons(stack(gpu_operator="v25.10.1"), {"support_table": shipped(), "support": [mine]})
    assert [(r["effect"], r["message"][:60]) for r in found[:2]] == [
        ("info", "network_operator is not installed on this node (not found): "),
        ("defer", "gpu_operator v25.10.1 is supported on Kubernetes <= 1.36 onl")]


def test_no_kubernetes_version_read_defers():
    found = support.reasons({"network_operator": "26.7.0", "kubelet": None}, {"support_table": shipped()})
    assert found[0]["effect"] == "defer"
    assert found[0]["message"].endswith("but no Kubernetes version was read (control plane nor kubelet): unknown is not agreement")


def test_the_typed_globs_keep_working_through_the_same_path():
    policy = {"support_table": shipped(), "unsupported": [{"component": "driver", "version": "580.*", "reason": "known bug"}],
              "supported": {"kernel": ["6.1.*"]}}
    found = support.reasons(stack(), policy)
    assert [r["message"] for r in found[:2]] == [
        "driver 580.82.07 is marked unsupported by the operator (rule '580.*'): known bug",
        "kernel 6.8.0-45-generic is not among the operator's supported versions (6.1.*)"]
    assert found[2]["message"].startswith("network_operator is not installed")


@pytest.mark.parametrize("change, message", [
    ({"source": None}, "support table entry acceptance_record_support[0] (bad): source is missing or empty (None): every support statement "
                       "names the address it was read from"),
    ({"source": " "}, "support table entry acceptance_record_support[0] (bad): source is missing or empty (' '): every support statement "
                      "names the address it was read from"),
    ({"kubernetes": "1.32 -- 1.36"}, "support table entry acceptance_record_support[0] (bad): kubernetes must be a version range "
                                     "(LOW - HIGH, >= LOW, <= HIGH, V), got '1.32 -- 1.36'"),
    ({"versions": "26.x"}, "support table entry acceptance_record_support[0] (bad): versions: '26.x' is not a version (numbers separated "
                           "by dots, such as 1.36 or 26.7.0)"),
    ({"read": "last week"}, "support table entry acceptance_record_support[0] (bad): read must be the date the source was read "
                            "(YYYY-MM-DD), got 'last week'"),
    ({"url": "x"}, "support table entry acceptance_record_support[0] (bad) has unknown keys url (known: name, component, versions, "
                   "kubernetes, source, read)"),
])
def test_a_malformed_entry_is_refused_naming_it(change, message):
    entry = dict(shipped()[0], name="bad", **change)
    with pytest.raises(StackError) as caught:
        support.reasons(stack(), {"support_table": shipped(), "support": [entry]})
    assert str(caught.value) == message
    with pytest.raises(RecordError) as through:
        verdict.decide({"versions": stack()}, {"support_table": shipped(), "support": [entry]})
    assert str(through.value) == message


def test_a_name_used_twice_is_refused():
    with pytest.raises(StackError) as caught:
        support.check_table(shipped() + shipped(), "the shipped support table")
    assert str(caught.value) == ("support table entry the shipped support table[1] (nvidia-network-operator-26.7): the name is used twice "
                                 "in the shipped support table")


def test_without_a_table_only_the_typed_rules_speak():
    assert not support.reasons(stack(), {})
