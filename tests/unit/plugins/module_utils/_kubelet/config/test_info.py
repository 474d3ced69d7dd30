"""_kubelet/info.read: the kubelet_config_info reading, shared with topology_facts' kubelet_layout."""

import json

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import info
from ansible_collections.gpusmith.numa_gate.plugins.modules import kubelet_config_info
from ansible_collections.gpusmith.numa_gate.plugins.modules import topology_facts
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths

MAIN = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsystemReserved:\n  memory: 512Mi\n"
OTHER = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 200\n"
         "staticPodURLHeader:\n  Authorization: [Bearer s3cr3t-t0ken-value]\n")
OURS = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"


@pytest.fixture
def root(tmp_path):
    (tmp_path / "var/lib/kubelet").mkdir(parents=True)
    (tmp_path / "var/lib/kubelet/config.yaml").write_text(MAIN)
    (tmp_path / "var/lib/kubelet/cpu_manager_state").write_text(json.dumps({"policyName": "none", "defaultCpuSet": "", "checksum": 1}))
    dropins = tmp_path / "etc/kubernetes/kubelet.conf.d"
    dropins.mkdir(parents=True)
    (dropins / "10-site.conf").write_text(OTHER)
    (dropins / "50-numa-gate.conf").write_text(OURS)
    return tmp_path


def _layout(root):
    params = {name: spec["default"] for name, spec in layout.layout_argument_spec().items()}
    params["root"] = str(root)
    return params


def _run(main, args, capsys):
    with patch_module_args(args):
        with pytest.raises(SystemExit) as exit_info:
            main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def test_read_returns_what_kubelet_config_info_returns(capsys, root):
    reading = info.read(_layout(root))
    code, result = _run(kubelet_config_info.main, {"root": str(root)}, capsys)
    assert code == 0
    assert sorted(reading) == ["base", "checkpoints", "effective", "files", "main_exists", "sources"]
    for key, value in reading.items():
        assert result[key] == value, key
    assert reading["base"]["maxPods"] == 200 and "cpuManagerPolicy" not in reading["base"]
    assert reading["effective"]["cpuManagerPolicy"] == "static"
    assert reading["base"]["staticPodURLHeader"] == {"Authorization": ["********"]}
    assert reading["checkpoints"] == {"cpu_manager_state": "none", "memory_manager_state": None, "problems": []}
    assert reading["sources"]["maxPods"] == str(root / "etc/kubernetes/kubelet.conf.d/10-site.conf")


def test_read_refuses_a_dropin_name_the_kubelet_would_not_read(root):
    with pytest.raises(layout.FilesError, match=r"dropin_name '50-numa-gate.yaml' must be a file name ending in .conf"):
        info.read(dict(_layout(root), dropin_name="50-numa-gate.yaml"))


def test_topology_facts_returns_the_same_reading_in_one_run(capsys, root):
    layout = _layout(root)
    code, result = _run(topology_facts.main, {"root": shared_paths.H200_VM, "gpu_source": "sysfs", "kubelet_layout": {"root": str(root)}}, capsys)
    assert code == 0
    assert result["ansible_facts"]["numa_gate_topology"]["cpus"]["online"] == "0-15"
    assert result["kubelet_config"] == dict(info.read(layout, documents=True), layout=layout)
    assert "s3cr3t" not in json.dumps(result)


def test_topology_facts_reads_no_kubelet_files_unless_asked(capsys):
    code, result = _run(topology_facts.main, {"root": shared_paths.H200_VM, "gpu_source": "sysfs"}, capsys)
    assert code == 0
    assert "kubelet_config" not in result


def test_topology_facts_fails_naming_a_bad_kubelet_layout(capsys, root):
    (root / "etc/kubernetes/kubelet.conf.d/20-broken.conf").write_text("a: [\n")
    code, result = _run(topology_facts.main, {"root": shared_paths.H200_VM, "gpu_source": "sysfs", "kubelet_layout": {"root": str(root)}}, capsys)
    assert code == 1
    assert result["failed"] is True
    assert str(root / "etc/kubernetes/kubelet.conf.d/20-broken.conf") in result["msg"]
