"""The kubelet_config_info module, in-process, against a tmp_path root."""

import hashlib
import json
import os

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.tests.unit.no_hang import no_hang
from ansible_collections.gpusmith.numa_gate.plugins.modules import kubelet_config_info

MAIN = (
    "apiVersion: kubelet.config.k8s.io/v1beta1\n"
    "kind: KubeletConfiguration\n"
    "systemReserved:\n  memory: 512Mi\n"
)
OTHER = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 200\n"
OURS = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nkubeReserved:\n  memory: 1Gi\n"


def run(capsys, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            kubelet_config_info.main()
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def root(tmp_path):
    (tmp_path / "var/lib/kubelet").mkdir(parents=True)
    (tmp_path / "var/lib/kubelet/config.yaml").write_text(MAIN)
    dropins = tmp_path / "etc/kubernetes/kubelet.conf.d"
    dropins.mkdir(parents=True)
    (dropins / "10-site.conf").write_text(OTHER)
    (dropins / "50-numa-gate.conf").write_text(OURS)
    return tmp_path


def test_base_leaves_out_our_dropin_and_effective_has_it(capsys, root):
    result = run(capsys, root=str(root))
    assert result["changed"] is False
    assert result["main_exists"] is True
    assert result["base"]["maxPods"] == 200
    assert result["base"]["systemReserved"] == {"memory": "512Mi"}
    assert "cpuManagerPolicy" not in result["base"] and "kubeReserved" not in result["base"]
    assert result["effective"]["cpuManagerPolicy"] == "static"
    assert result["effective"]["kubeReserved"] == {"memory": "1Gi"}
    # The kubelet's default hard eviction is filled in when the main file sets none.
    assert result["base"]["evictionHard"]["memory.available"] == "100Mi"
    assert result["files"] == [str(root / "var/lib/kubelet/config.yaml"), str(root / "etc/kubernetes/kubelet.conf.d/10-site.conf"),
                               str(root / "etc/kubernetes/kubelet.conf.d/50-numa-gate.conf")]
    assert result["checkpoints"] == {"cpu_manager_state": None, "memory_manager_state": None, "problems": []}


def test_checkpoint_policies_are_reported(capsys, root):
    (root / "var/lib/kubelet/cpu_manager_state").write_text(json.dumps({"policyName": "none", "defaultCpuSet": "", "checksum": 1}))
    (root / "var/lib/kubelet/memory_manager_state").write_text("{broken")
    result = run(capsys, root=str(root))
    assert result["checkpoints"]["cpu_manager_state"] == "none"
    assert result["checkpoints"]["memory_manager_state"] is None
    assert result["checkpoints"]["problems"][0].startswith(str(root / "var/lib/kubelet/memory_manager_state") + ": cannot be read")


def test_a_config_that_does_not_parse_fails_naming_the_file(capsys, root):
    (root / "etc/kubernetes/kubelet.conf.d/10-site.conf").write_text("maxPods: [\n")
    result = run(capsys, root=str(root))
    assert result["failed"] is True
    assert result["msg"].startswith(str(root / "etc/kubernetes/kubelet.conf.d/10-site.conf"))


def test_missing_main_file_is_reported(capsys, root):
    (root / "var/lib/kubelet/config.yaml").unlink()
    result = run(capsys, root=str(root))
    assert result["main_exists"] is False
    assert result["base"]["maxPods"] == 200


# ---- hostile input (issue 7) ----------------------------------------------------------


@pytest.mark.parametrize("option", ["root", "path", "config_dir", "kubelet_root_dir", "dropin_name"])
def test_an_empty_path_is_refused(capsys, root, option):
    # Rule 8: root "" silently read the live node's files.
    args = {"root": str(root), option: ""}
    result = run(capsys, **args)
    assert result["failed"] is True
    if option == "root":
        assert result["msg"] == 'root must not be empty (an empty value is not a default): give "/" for the node itself, or a folder'
    elif option == "dropin_name":
        assert result["msg"] == "dropin_name '' must be a file name ending in .conf (the kubelet reads only *.conf drop-ins)"
    else:
        assert result["msg"] == "%s must not be empty (an empty value is not a default): give a path, or leave the option out" % option


def test_a_fifo_dropin_never_blocks(capsys, root):
    # Rule 3.
    os.mkfifo(root / "etc/kubernetes/kubelet.conf.d/20-fifo.conf")
    with no_hang():
        result = run(capsys, root=str(root))
    assert result["failed"] is True
    assert result["msg"] == "%s is a FIFO, not a regular file; not read" % (root / "etc/kubernetes/kubelet.conf.d/20-fifo.conf")


def test_a_link_out_of_root_is_read_inside_root(capsys, root, tmp_path_factory):
    # Rules 1 and 2: an absolute link is read as if root were "/", never followed out of it.
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "config.yaml").write_text(OTHER.replace("200", "999"))
    before = hashlib.sha256((elsewhere / "config.yaml").read_bytes()).hexdigest()
    (root / "var/lib/kubelet/config.yaml").unlink()
    (root / "var/lib/kubelet/config.yaml").symlink_to(elsewhere / "config.yaml")
    result = run(capsys, root=str(root))
    assert result["main_exists"] is False
    assert result["effective"]["maxPods"] == 200
    assert hashlib.sha256((elsewhere / "config.yaml").read_bytes()).hexdigest() == before


def test_credentials_are_masked(capsys, root):
    # Rule 5.
    (root / "etc/kubernetes/kubelet.conf.d/10-site.conf").write_text(
        OTHER + "staticPodURL: https://user:pa55word@static.example/pods?sig=abcdef123456\n"
        "staticPodURLHeader:\n  Authorization: [\"Bearer s3cr3t-t0ken-0123456789\"]\n")
    result = run(capsys, root=str(root))
    assert result["effective"]["staticPodURLHeader"] == {"Authorization": ["********"]}
    assert result["base"]["staticPodURLHeader"] == {"Authorization": ["********"]}
    text = json.dumps(result)
    assert "s3cr3t" not in text and "pa55word" not in text and "abcdef123456" not in text
