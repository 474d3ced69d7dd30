"""_kubelet/render.dropin on the controller gives what the kubelet_config module gives in check and diff mode."""

import json
import os

import pytest

from ansible.module_utils import _internal as ansible_internal
from ansible.module_utils.common import warnings as ansible_warnings
from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import policy_change as checkpoint
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as kubelet_layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import files
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import info
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import preview as render
from ansible_collections.gpusmith.numa_gate.plugins.modules import kubelet_config

GI = 1 << 30
NODE = {"online_cpus": "0-15", "numa_nodes": {"0": 32 * GI, "1": 32 * GI}, "memory_bytes": 64 * GI}
MAIN_TEXT = ("# kubeadm wrote this\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n"
             "systemReserved:\n  memory: 1Gi\n")
SETTINGS = {"featureGates": {"PodLevelResources": True, "PodLevelResourceManagers": True}, "cpuManagerPolicy": "static",
            "reservedSystemCPUs": "0,8", "memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node",
            "topologyManagerScope": "pod", "kubeReserved": {"memory": "1Gi"},
            "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1124Mi"}}, {"numaNode": 1, "limits": {"memory": "1124Mi"}}]}
TOKEN = "Bearer s3cr3t-t0ken-0123456789"
DROPINS = "etc/kubernetes/kubelet.conf.d"
PATH_INFO = ("uid", "gid", "owner", "group", "mode", "size", "state", "secontext")


def _doc(**fields):
    return "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + "".join(
        "%s: %s\n" % (key, json.dumps(value)) for key, value in fields.items())


def _write(root, path, text):
    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
    with open(os.path.join(root, path), "w", encoding="utf-8") as handle:
        handle.write(text)


SCENARIOS = {
    "no drop-in yet": {},
    "ours already the same": {"ours": "same"},
    "ours different": {DROPINS + "/50-numa-gate.conf": _doc(cpuManagerPolicy="none")},
    "a later drop-in overrides ours": {DROPINS + "/90-site.conf": _doc(topologyManagerScope="container", maxPods=200)},
    "a secret in another drop-in": {
        DROPINS + "/10-site.conf": _doc(staticPodURL="https://u:pw1234@h/x?sig=abcdef12", staticPodURLHeader={"Authorization": [TOKEN]})},
    "no main file": {"main": None},
    "a stale CPU checkpoint": {
        "var/lib/kubelet/cpu_manager_state": json.dumps({"policyName": "none", "defaultCpuSet": "0-15", "checksum": 1})},
    "an unreadable checkpoint": {"var/lib/kubelet/memory_manager_state": "{broken"},
    "a rule broken": {"settings": dict(SETTINGS, reservedSystemCPUs="")},
    "an unknown field": {"settings": dict(SETTINGS, cpuManagerPolicyy="static")},
}


@pytest.fixture(autouse=True)
def _module_side(monkeypatch):
    """Each in-process module run as on a target (as tests/unit/plugins/modules/conftest.py does): its warnings in
    its result (importing controller code elsewhere flips ``is_controller``), none left from other tests."""
    monkeypatch.setattr(ansible_internal, "is_controller", False)
    ansible_warnings._global_warnings.clear()  # pylint: disable=protected-access
    yield
    ansible_warnings._global_warnings.clear()  # pylint: disable=protected-access


def _layout(root):
    params = {name: spec["default"] for name, spec in kubelet_layout.layout_argument_spec().items()}
    return dict(params, root=str(root))


def _module(capsys, root, settings):
    args = dict(_layout(root), settings=settings, node=NODE, mode="dropin", backup_dir="/var/lib/numa-gate/backups",
                _ansible_check_mode=True, _ansible_diff=True)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            kubelet_config.main()
    result = json.loads(capsys.readouterr().out)
    result.pop("invocation", None)
    # AnsibleModule.exit_json adds these file attributes for an existing ``path``; the controller render has no stat.
    for key in PATH_INFO:
        result.pop(key, None)
    warnings = [w if isinstance(w, str) else w.get("event", w).get("msg") for w in result.pop("warnings", [])]
    return result, warnings


def _controller(root, settings):
    layout = _layout(root)
    reading = dict(info.read(layout, documents=True), layout=layout)
    assert render.matches(reading, layout)
    try:
        result, warnings = render.dropin(json.loads(json.dumps(reading)), settings, NODE)
    except render.RenderError as exc:
        return dict(exc.details, failed=True, msg=str(exc)), list(exc.warnings)
    return result, warnings


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_controller_render_is_the_module_in_check_mode(capsys, tmp_path, name):
    scenario = dict(SCENARIOS[name])
    settings = scenario.pop("settings", SETTINGS)
    main = scenario.pop("main", MAIN_TEXT)
    if main is not None:
        _write(tmp_path, "var/lib/kubelet/config.yaml", main)
    os.makedirs(os.path.join(tmp_path, DROPINS), exist_ok=True)
    if scenario.pop("ours", None) == "same":
        _write(tmp_path, DROPINS + "/50-numa-gate.conf", files.render(settings, files.DROPIN_HEADER, render.dump).decode())
    for path, text in scenario.items():
        _write(tmp_path, path, text)
    expected, expected_warnings = _module(capsys, tmp_path, settings)
    got, warnings = _controller(tmp_path, settings)
    expected.pop("exception", None)
    assert got == expected
    assert warnings == expected_warnings
    assert "s3cr3t" not in json.dumps(got) and "pw1234" not in json.dumps(got)


def test_stale_messages_are_checkpoint_stale(tmp_path):
    (tmp_path / "cpu_manager_state").write_text(json.dumps({"policyName": "none", "defaultCpuSet": "0-3", "checksum": 1}))
    (tmp_path / "memory_manager_state").write_text("{broken")
    config = {"cpuManagerPolicy": "static"}
    reads = {}
    for name, _key, _default, _manager in checkpoint.CHECKPOINTS:
        policy, problem = checkpoint.policy_of(str(tmp_path / name))
        reads[name] = {"path": str(tmp_path / name), "policy": policy, "problem": problem}
    assert render.stale_messages(config, reads) == checkpoint.stale(config, str(tmp_path))
    assert len(render.stale_messages(config, reads)) == 2


def test_a_symlinked_dropin_is_refused_as_the_module_refuses_it(capsys, tmp_path):
    _write(tmp_path, "var/lib/kubelet/config.yaml", MAIN_TEXT)
    _write(tmp_path, "elsewhere.conf", _doc(maxPods=10))
    os.makedirs(os.path.join(tmp_path, DROPINS))
    os.symlink("/elsewhere.conf", os.path.join(tmp_path, DROPINS, "50-numa-gate.conf"))
    expected, _warnings = _module(capsys, tmp_path, SETTINGS)
    got, _warnings = _controller(tmp_path, SETTINGS)
    assert got["failed"] is True and got["msg"] == expected["msg"]
    assert "is a symlink (to /elsewhere.conf) that this collection did not create" in got["msg"]


def test_a_reading_refuses_our_dropin_when_it_does_not_parse(tmp_path):
    # As kubelet_config_info always has: the plan is never made over a drop-in that cannot be read.
    _write(tmp_path, "var/lib/kubelet/config.yaml", MAIN_TEXT)
    _write(tmp_path, DROPINS + "/50-numa-gate.conf", "a: [\n")
    with pytest.raises(merge.KubeletConfigError, match=r"50-numa-gate.conf:2: cannot parse as YAML or JSON"):
        info.read(_layout(tmp_path), documents=True)


def test_matches_needs_the_same_layout_and_the_documents(tmp_path):
    _write(tmp_path, "var/lib/kubelet/config.yaml", MAIN_TEXT)
    layout = _layout(tmp_path)
    reading = dict(info.read(layout, documents=True), layout=layout)
    assert render.matches(reading, layout)
    assert not render.matches(reading, dict(layout, dropin_name="60-other.conf"))
    assert not render.matches(dict(info.read(layout), layout=layout), layout)
    assert not render.matches(None, layout)
