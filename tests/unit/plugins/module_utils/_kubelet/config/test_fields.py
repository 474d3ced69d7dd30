"""Settings are KubeletConfiguration fields of the right Go type, named when not (issue 7, rule 7)."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import fields
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.validate import validate
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.kubelet_cases import CANARY, NODE

WHERE = "settings"


def texts(settings):
    return [str(problem) for problem in fields.check_fields(settings, WHERE)]


def test_the_field_list_is_the_v1beta1_struct():
    assert len(fields.FIELDS) == 126
    assert fields.FIELDS["maxPods"] == "int32"
    assert fields.FIELDS["clusterDNS"] == "[]string"
    assert fields.FIELDS["staticPodURLHeader"] == "map[string][]string"
    assert fields.FIELDS["resolvConf"] == "string"
    assert fields.FIELDS["reservedMemory"] == "[]v1beta1.MemoryReservation"
    assert "apiVersion" not in fields.FIELDS


def test_canary_settings_fit():
    assert fields.check_fields({k: v for k, v in CANARY.items() if k not in ("apiVersion", "kind")}, WHERE) == []


def test_unknown_field_is_refused_in_strict_decoding_words():
    assert texts({"evilKey": "x"}) == [
        'settings: evilKey: strict decoding error: unknown field "evilKey" (not a field of the v1beta1 KubeletConfiguration)']


def test_typo_names_the_near_miss():
    assert texts({"topologyManagerPolcy": "single-numa-node"}) == [
        'settings: topologyManagerPolcy: strict decoding error: unknown field "topologyManagerPolcy" (did you mean topologyManagerPolicy?)']


def test_wrong_case_is_unknown_too():
    assert texts({"MaxPods": 10}) == [
        'settings: MaxPods: strict decoding error: unknown field "MaxPods" (field names are case-sensitive: maxPods)']


@pytest.mark.parametrize("settings, text", [
    ({"maxPods": "lots"}, "settings: maxPods: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32"),
    ({"clusterDNS": "10.96.0.10"},
     "settings: clusterDNS: json: cannot unmarshal string into Go struct field KubeletConfiguration.clusterDNS of type []string"),
    ({"cgroupDriver": 5}, "settings: cgroupDriver: json: cannot unmarshal number into Go struct field KubeletConfiguration.cgroupDriver of type string"),
    ({"maxPods": 1.5}, "settings: maxPods: json: cannot unmarshal number 1.5 into Go struct field KubeletConfiguration.maxPods of type int32"),
    ({"maxPods": 1 << 40},
     "settings: maxPods: json: cannot unmarshal number 1099511627776 into Go struct field KubeletConfiguration.maxPods of type int32"),
    ({"failSwapOn": "false"}, "settings: failSwapOn: json: cannot unmarshal string into Go struct field KubeletConfiguration.failSwapOn of type bool"),
    ({"maxPods": True}, "settings: maxPods: json: cannot unmarshal bool into Go struct field KubeletConfiguration.maxPods of type int32"),
    ({"clusterDNS": ["10.96.0.10", 7]},
     "settings: clusterDNS[1]: json: cannot unmarshal number into Go struct field KubeletConfiguration.clusterDNS of type string"),
    ({"kubeReserved": {"cpu": 1}},
     "settings: kubeReserved.cpu: json: cannot unmarshal number into Go struct field KubeletConfiguration.kubeReserved of type string"),
    ({"staticPodURLHeader": {"Authorization": "Bearer x"}},
     "settings: staticPodURLHeader.Authorization: json: cannot unmarshal string into Go struct field "
     "KubeletConfiguration.staticPodURLHeader of type []string"),
    ({"authentication": "webhook"},
     "settings: authentication: json: cannot unmarshal string into Go struct field KubeletConfiguration.authentication of type "
     "v1beta1.KubeletAuthentication"),
    ({"syncFrequency": 10},
     "settings: syncFrequency: json: cannot unmarshal number into Go struct field KubeletConfiguration.syncFrequency of type v1.Duration"),
])
def test_wrong_types_are_refused_with_the_field_named(settings, text):
    assert texts(settings) == [text]


def test_right_types_pass():
    settings = {"maxPods": 110, "clusterDNS": ["10.96.0.10"], "cgroupDriver": "systemd", "memoryThrottlingFactor": 0.9,
                "staticPodURLHeader": {"Authorization": ["Bearer x"]}, "syncFrequency": "1m", "authentication": {"anonymous": {"enabled": False}},
                "tlsCurvePreferences": [23, 24], "podPidsLimit": -1, "registerWithTaints": [{"key": "a", "effect": "NoSchedule"}]}
    assert texts(settings) == []


def test_null_deletes_and_is_fine():
    assert texts({"maxPods": None, "kubeReserved": {"cpu": None}}) == []


@pytest.mark.parametrize("key", ["apiVersion", "kind"])
def test_api_version_and_kind_in_settings_are_refused(key):
    assert texts({key: "x"}) == [
        "settings: %s: %s is not a setting: settings are KubeletConfiguration fields; the file written gets apiVersion: "
        "kubelet.config.k8s.io/v1beta1 and kind: KubeletConfiguration itself (remove %s from settings)" % (key, key, key)]


def test_settings_not_a_mapping():
    assert texts(["maxPods"]) == [
        "settings: (settings): json: cannot unmarshal array into Go struct field KubeletConfiguration of type v1beta1.KubeletConfiguration"]


def test_require_fields_raises_one_error_naming_every_field():
    with pytest.raises(merge.KubeletConfigError) as err:
        fields.require_fields({"evilKey": 1, "maxPods": "lots"}, WHERE)
    assert str(err.value) == (
        'settings: evilKey: strict decoding error: unknown field "evilKey" (not a field of the v1beta1 KubeletConfiguration); '
        "maxPods: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32")
    assert fields.require_fields({"maxPods": 10}, WHERE) is None


def test_problems_carry_their_rule():
    unknown, wrong = fields.check_fields({"evilKey": 1, "maxPods": "lots"}, WHERE)
    assert unknown.rule == "k8s.io/kubelet/config/v1beta1/types.go (v0.37.0-beta.0)"
    assert wrong.rule == "k8s.io/apimachinery/pkg/runtime/serializer/json (strict decoding)"


def test_validate_reports_unknown_and_wrong_fields_in_the_merged_config_naming_the_file():
    main = dict(CANARY, evilKey="x")
    drop = {"apiVersion": merge.API_VERSION, "kind": merge.KIND, "topologyManagerPolcy": "none", "maxPods": "lots", "clusterDNS": "10.96.0.10"}
    eff = merge.effective_config(main, [("/d/90-site.conf", drop)], "/main.yaml")
    problems = [str(p) for p in validate(eff, NODE)]
    assert problems == [
        '/main.yaml: evilKey: strict decoding error: unknown field "evilKey" (not a field of the v1beta1 KubeletConfiguration)',
        '/d/90-site.conf: topologyManagerPolcy: strict decoding error: unknown field "topologyManagerPolcy" (did you mean topologyManagerPolicy?)',
        "/d/90-site.conf: maxPods: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32",
        "/d/90-site.conf: clusterDNS: json: cannot unmarshal string into Go struct field KubeletConfiguration.clusterDNS of type []string",
    ]


def test_validate_does_not_report_a_type_error_twice():
    config = dict(CANARY, kubeReserved={"memory": "1Gi", "cpu": 1})
    keys = [(p.key, p.message) for p in validate(config, NODE)]
    wrong = ("kubeReserved.cpu", "json: cannot unmarshal number into Go struct field KubeletConfiguration.kubeReserved of type string")
    assert keys.count(wrong) == 1
