"""Unit tests for the kubelet configuration loader and drop-in merge."""

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config.merge import KubeletConfigError

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
MAIN = "/var/lib/kubelet/config.yaml"
DIR = "/etc/kubernetes/kubelet.conf.d"


def doc(**fields):
    out = {"apiVersion": merge.API_VERSION, "kind": merge.KIND}
    out.update(fields)
    return out


# ---- load_document -------------------------------------------------------

def test_load_yaml():
    assert merge.load_document(HEAD + "cpuManagerPolicy: static\n", MAIN) == doc(cpuManagerPolicy="static")


def test_load_json():
    text = '{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "maxPods": 110}'
    assert merge.load_document(text, MAIN) == doc(maxPods=110)


def test_load_bytes():
    assert merge.load_document((HEAD + "maxPods: 10\n").encode(), MAIN) == doc(maxPods=10)


def test_parse_error_names_file_and_line():
    with pytest.raises(KubeletConfigError) as err:
        merge.load_document(HEAD + "kubeReserved:\n  memory: 1Gi\n cpu: [1\n", "/x/10-a.conf")
    assert err.value.path == "/x/10-a.conf"
    assert err.value.line == 5
    assert str(err.value).startswith("/x/10-a.conf:5: cannot parse as YAML or JSON")


def test_duplicate_key_is_refused_like_strict_decoding():
    with pytest.raises(KubeletConfigError) as err:
        merge.load_document(HEAD + "maxPods: 1\nmaxPods: 2\n", MAIN)
    assert "found duplicate key 'maxPods'" in str(err.value)
    assert err.value.line == 4


def test_empty_file_is_refused():
    with pytest.raises(KubeletConfigError) as err:
        merge.load_document("  \n", MAIN)
    assert str(err.value) == '/var/lib/kubelet/config.yaml: kubelet config file "/var/lib/kubelet/config.yaml" was empty'


def test_missing_kind_is_refused():
    with pytest.raises(KubeletConfigError) as err:
        merge.load_document("apiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 1\n", "/d/20-b.conf")
    assert "/d/20-b.conf: Object 'Kind' is missing" in str(err.value)


def test_missing_api_version_is_refused():
    with pytest.raises(KubeletConfigError) as err:
        merge.load_document("kind: KubeletConfiguration\nmaxPods: 1\n", "/d/20-b.conf")
    assert "Object 'Version' is missing" in str(err.value)


def test_wrong_kind_is_refused():
    with pytest.raises(KubeletConfigError) as err:
        merge.load_document("apiVersion: v1\nkind: ConfigMap\n", MAIN)
    assert "apiVersion 'v1', kind 'ConfigMap' is not a kubelet configuration" in str(err.value)


def test_not_a_mapping():
    with pytest.raises(KubeletConfigError) as err:
        merge.load_document("- a\n- b\n", MAIN)
    assert "expected a mapping (a KubeletConfiguration object), found list" in str(err.value)


def test_not_utf8():
    with pytest.raises(KubeletConfigError) as err:
        merge.load_document(b"\xff\xfe", MAIN)
    assert "not UTF-8 text" in str(err.value)


def test_error_is_a_value_error():
    assert issubclass(KubeletConfigError, ValueError)


# ---- merge_patch (RFC 7386, appendix A) ----------------------------------

@pytest.mark.parametrize("target, patch, result", [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
])
def test_merge_patch_rfc7386(target, patch, result):
    assert merge.merge_patch(target, patch) == result


def test_merge_patch_does_not_mutate():
    base = {"a": {"b": 1}, "l": [1]}
    patch = {"a": {"c": 2}, "l": [2]}
    out = merge.merge_patch(base, patch)
    out["a"]["b"] = 99
    assert base == {"a": {"b": 1}, "l": [1]}
    assert patch == {"a": {"c": 2}, "l": [2]}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)
OBJECTS = st.dictionaries(st.text(max_size=3), JSON, max_size=4)


@settings(max_examples=200, deadline=None)
@given(OBJECTS, OBJECTS)
def test_merge_patch_is_idempotent(target, patch):
    once = merge.merge_patch(target, patch)
    assert merge.merge_patch(once, patch) == once


@settings(max_examples=200, deadline=None)
@given(OBJECTS)
def test_empty_patch_changes_nothing_but_nulls_stay(target):
    assert merge.merge_patch(target, {}) == target


# ---- effective_config ----------------------------------------------------

def test_dropins_apply_in_lexical_order_not_list_order():
    dropins = [
        (DIR + "/20-b.conf", doc(maxPods=20)),
        (DIR + "/10-a.conf", doc(maxPods=10, cpuManagerPolicy="static")),
        (DIR + "/9-c.conf", doc(maxPods=9)),
    ]
    eff = merge.effective_config(doc(maxPods=110), dropins, MAIN)
    # "9-c.conf" sorts after "20-b.conf": byte order, as filepath.WalkDir reads names.
    assert eff["maxPods"] == 9
    assert eff.files == [MAIN, DIR + "/10-a.conf", DIR + "/20-b.conf", DIR + "/9-c.conf"]
    assert eff.origin_of("maxPods") == DIR + "/9-c.conf"
    assert eff.origin_of("cpuManagerPolicy") == DIR + "/10-a.conf"


def test_lists_are_replaced_whole():
    main = doc(reservedMemory=[{"numaNode": 0, "limits": {"memory": "1Gi"}}, {"numaNode": 1, "limits": {"memory": "1Gi"}}])
    drop = doc(reservedMemory=[{"numaNode": 1, "limits": {"memory": "2Gi"}}])
    eff = merge.effective_config(main, [(DIR + "/50-x.conf", drop)], MAIN)
    assert eff["reservedMemory"] == [{"numaNode": 1, "limits": {"memory": "2Gi"}}]
    assert eff.origin_of(("reservedMemory",)) == DIR + "/50-x.conf"


def test_null_deletes_a_key():
    main = doc(reservedSystemCPUs="0-1", kubeReserved={"cpu": "1", "memory": "1Gi"})
    drop = doc(reservedSystemCPUs=None, kubeReserved={"cpu": None})
    eff = merge.effective_config(main, [(DIR + "/50-x.conf", drop)], MAIN)
    assert "reservedSystemCPUs" not in eff
    assert eff["kubeReserved"] == {"memory": "1Gi"}
    assert eff.origin_of("reservedSystemCPUs") is None
    assert eff.origin_of(("kubeReserved", "memory")) == MAIN


def test_maps_merge_key_by_key():
    main = doc(featureGates={"A": True, "B": False})
    drop = doc(featureGates={"B": True, "C": True})
    eff = merge.effective_config(main, [(DIR + "/50-x.conf", drop)], MAIN)
    assert eff["featureGates"] == {"A": True, "B": True, "C": True}
    assert eff.origin_of(("featureGates", "A")) == MAIN
    assert eff.origin_of(("featureGates", "B")) == DIR + "/50-x.conf"
    assert eff.origin_of(("featureGates", "C")) == DIR + "/50-x.conf"


def test_only_conf_files_are_merged():
    dropins = [
        (DIR + "/50-x.conf.bak", doc(maxPods=1)),
        (DIR + "/50-x.conf~", doc(maxPods=2)),
        (DIR + "/50-x.yaml", doc(maxPods=3)),
        (DIR + "/.conf", doc(maxPods=4)),
    ]
    eff = merge.effective_config(doc(maxPods=110), dropins, MAIN)
    # filepath.Ext(".conf") is ".conf": the kubelet reads that one too.
    assert eff["maxPods"] == 4
    assert eff.files == [MAIN, DIR + "/.conf"]


def test_subdirectories_sort_where_their_name_sorts():
    dropins = [
        (DIR + "/b.conf", doc(maxPods=2)),
        (DIR + "/a/z.conf", doc(maxPods=1)),
        (DIR + "/a.conf", doc(maxPods=3)),
    ]
    eff = merge.effective_config(doc(), dropins, MAIN)
    assert eff.files == [MAIN, DIR + "/a/z.conf", DIR + "/a.conf", DIR + "/b.conf"]
    assert eff["maxPods"] == 2


def test_unset_eviction_hard_gets_the_defaults_before_dropins_merge():
    eff = merge.effective_config(doc(), [(DIR + "/50-x.conf", doc(evictionHard={"memory.available": "500Mi"}))], MAIN)
    assert eff["evictionHard"] == {
        "memory.available": "500Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%",
        "imagefs.available": "15%", "imagefs.inodesFree": "5%",
    }
    assert eff.origin_of(("evictionHard", "memory.available")) == DIR + "/50-x.conf"
    assert eff.origin_of(("evictionHard", "nodefs.available")) == merge.DEFAULT_ORIGIN


def test_eviction_hard_set_in_main_is_kept_as_is():
    eff = merge.effective_config(doc(evictionHard={"memory.available": "1Gi"}), [], MAIN)
    assert eff["evictionHard"] == {"memory.available": "1Gi"}
    assert eff.origin_of(("evictionHard", "memory.available")) == MAIN


def test_no_main_document():
    eff = merge.effective_config(None, [(DIR + "/50-x.conf", doc(maxPods=5))], MAIN)
    assert eff["maxPods"] == 5
    assert eff["apiVersion"] == merge.API_VERSION


def test_inputs_are_not_mutated():
    main = doc(kubeReserved={"memory": "1Gi"})
    drop = doc(kubeReserved={"cpu": "1"})
    merge.effective_config(main, [(DIR + "/50-x.conf", drop)], MAIN)
    assert main == doc(kubeReserved={"memory": "1Gi"})
    assert "evictionHard" not in main


def test_scalar_replaced_by_map_records_leaf_origins():
    eff = merge.effective_config(doc(kubeReserved="junk"), [(DIR + "/50-x.conf", doc(kubeReserved={"memory": "1Gi"}))], MAIN)
    assert eff["kubeReserved"] == {"memory": "1Gi"}
    assert eff.origin_of(("kubeReserved", "memory")) == DIR + "/50-x.conf"


def test_dropin_that_is_not_a_mapping():
    with pytest.raises(KubeletConfigError) as err:
        merge.effective_config(doc(), [(DIR + "/50-x.conf", ["x"])], MAIN)
    assert str(err.value) == DIR + "/50-x.conf: expected a mapping, found list"


def test_effective_config_is_a_plain_dict_for_json():
    import json
    eff = merge.effective_config(doc(maxPods=1), [], MAIN)
    assert json.loads(json.dumps(eff))["maxPods"] == 1


def test_dates_stay_text():
    assert merge.load_document(HEAD + "note: 2026-01-01\n", MAIN)["note"] == "2026-01-01"
    assert merge.load_document(HEAD + "maxPods: 10\n", MAIN)["maxPods"] == 10
