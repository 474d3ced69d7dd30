"""How the kubelet is started: flags from its process or its unit, the kubeadm way."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.runner import RecordedRunner
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import unit

# kubeadm's drop-in, /usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf (as packaged for 1.3x).
KUBEADM_ENV = "Environment=KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf " \
              "--kubeconfig=/etc/kubernetes/kubelet.conf"
EXEC_START = ("{ path=/usr/bin/kubelet ; argv[]=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS "
              "$KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }")


def test_flags_both_spellings():
    assert unit.flags_from_argv(["/usr/bin/kubelet", "--config=/var/lib/kubelet/config.yaml", "--config-dir", "/etc/kubernetes/kubelet.conf.d",
                                 "--v=2"]) == {
        "config": "/var/lib/kubelet/config.yaml", "config_dir": "/etc/kubernetes/kubelet.conf.d", "root_dir": None, "kubeconfig": None}


def test_expand_splits_bare_variables_and_keeps_braced_ones_whole():
    env = {"A": "--x=1 --y=2", "B": "b c"}
    assert unit.expand(["kubelet", "$A", "--z=${B}", "$MISSING"], env) == ["kubelet", "--x=1", "--y=2", "--z=b c"]


def test_environment_file():
    text = "# managed\nKUBELET_KUBEADM_ARGS=\"--container-runtime-endpoint=unix:///run/containerd/containerd.sock\"\n\nX='1'\n"
    assert unit.parse_environment_file(text) == {
        "KUBELET_KUBEADM_ARGS": "--container-runtime-endpoint=unix:///run/containerd/containerd.sock", "X": "1"}


def _show(prop):
    return ("/usr/bin/systemctl", "show", "--property", prop, "--value", "--", "kubelet")


def test_a_stopped_kubeadm_unit_is_read_from_exec_start():
    runner = RecordedRunner({
        _show("ActiveState"): (0, "inactive\n", ""),
        _show("MainPID"): (0, "0\n", ""),
        _show("EnvironmentFiles"): (0, "/var/lib/kubelet/kubeadm-flags.env (ignore_errors=yes)\n", ""),
        _show("Environment"): (0, "KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml\n", ""),
        _show("ExecStart"): (0, EXEC_START + "\n", ""),
    }, installed={"systemctl", "/usr/bin/systemctl"})
    files = {"/var/lib/kubelet/kubeadm-flags.env": 'KUBELET_KUBEADM_ARGS="--config-dir=/etc/kubernetes/kubelet.conf.d"\n'}
    found = unit.read_unit(runner, "kubelet", files.get)
    assert found["source"] == "ExecStart" and found["active"] == "inactive"
    assert found["argv"] == ["/usr/bin/kubelet", "--config=/var/lib/kubelet/config.yaml", "--config-dir=/etc/kubernetes/kubelet.conf.d"]
    assert found["flags"]["config_dir"] == "/etc/kubernetes/kubelet.conf.d"


def test_a_running_kubelet_is_read_from_its_process():
    runner = RecordedRunner({_show("ActiveState"): (0, "active\n", ""), _show("MainPID"): (0, "4242\n", "")},
                            installed={"systemctl", "/usr/bin/systemctl"})
    files = {"/proc/4242/cmdline": "/usr/bin/kubelet\0--config\0/etc/kubelet.yaml\0"}
    found = unit.read_unit(runner, "kubelet", files.get)
    assert found["source"] == "/proc/4242/cmdline" and found["flags"]["config"] == "/etc/kubelet.yaml"
    assert found["flags"]["config_dir"] is None


def test_version():
    runner = RecordedRunner({("/usr/bin/kubelet", "--version"): (0, "Kubernetes v1.37.0\n", "")})
    assert unit.kubelet_version(runner, "/usr/bin/kubelet") == "v1.37.0"
    assert unit.kubelet_version(RecordedRunner({("/x", "--version"): (127, "", "not found")}), "/x") is None


def test_version_of_a_kubelet_run_by_an_interpreter():
    argv = ["/usr/bin/python3", "/usr/local/bin/kubelet_standin.py", "--config=/c"]
    assert unit.program(argv) == ["/usr/bin/python3", "/usr/local/bin/kubelet_standin.py"]
    assert unit.program(["/usr/bin/kubelet", "--config=/c"]) == ["/usr/bin/kubelet"]
    runner = RecordedRunner({("/usr/bin/python3", "/usr/local/bin/kubelet_standin.py", "--version"): (0, "Kubernetes v1.37.0\n", "")})
    assert unit.kubelet_version(runner, unit.program(argv)) == "v1.37.0"
    assert unit.kubelet_version(RecordedRunner({("/usr/bin/python3", "--version"): (0, "Python 3.11.2\n", "")}), "/usr/bin/python3") is None
