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


# kubespray's unit and environment file as its templates render them (kubernetes-sigs/kubespray,
# roles/kubernetes/node/templates/kubelet.service.j2 and kubelet.env.v1beta1.j2): KUBELET_ARGS spans several lines, each
# ending in a backslash, and names --config=/etc/kubernetes/kubelet-config.yaml; no --config-dir.
KUBESPRAY_EXEC_START = ("{ path=/usr/local/bin/kubelet ; argv[]=/usr/local/bin/kubelet $KUBE_LOGTOSTDERR $KUBE_LOG_LEVEL "
                        "$KUBELET_API_SERVER $KUBELET_ADDRESS $KUBELET_PORT $KUBELET_HOSTNAME $KUBELET_ARGS $DOCKER_SOCKET "
                        "$KUBELET_NETWORK_PLUGIN $KUBELET_VOLUME_PLUGIN $KUBELET_CLOUDPROVIDER ; ignore_errors=no ; start_time=[n/a] ; "
                        "stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }")
KUBESPRAY_ENV = ('KUBE_LOGTOSTDERR="--logtostderr=true"\nKUBE_LOG_LEVEL="--v=2"\nKUBELET_ADDRESS="--node-ip=10.0.0.7"\n\n'
                 'KUBELET_ARGS="--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \\\n'
                 '--config=/etc/kubernetes/kubelet-config.yaml \\\n--kubeconfig=/etc/kubernetes/kubelet.conf \\\n'
                 '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock \\\n'
                 '--runtime-cgroups=/system.slice/containerd.service \\\n --node-labels=  "\n'
                 'KUBELET_CLOUDPROVIDER=""\n\nPATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin\n')
DEFAULT_LAYOUT = {"path": "/var/lib/kubelet/config.yaml", "config_dir": "/etc/kubernetes/kubelet.conf.d"}


def _stopped(exec_start, env_files, environment="\n"):
    return RecordedRunner({
        _show("ActiveState"): (0, "inactive\n", ""),
        _show("MainPID"): (0, "0\n", ""),
        _show("EnvironmentFiles"): (0, env_files, ""),
        _show("Environment"): (0, environment, ""),
        _show("ExecStart"): (0, exec_start, ""),
    }, installed={"systemctl", "/usr/bin/systemctl"})


def test_an_environment_file_line_ending_in_a_backslash_goes_on():
    values = unit.parse_environment_file(KUBESPRAY_ENV)
    assert values["KUBELET_ARGS"].split() == [
        "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf", "--config=/etc/kubernetes/kubelet-config.yaml",
        "--kubeconfig=/etc/kubernetes/kubelet.conf", "--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock",
        "--runtime-cgroups=/system.slice/containerd.service", "--node-labels="]
    assert "--config" not in values and values["KUBELET_CLOUDPROVIDER"] == ""
    assert unit.parse_environment_file("# a \\\nA=1\n") == {"A": "1"}


def test_a_kubespray_node_is_read_and_the_assumed_layout_does_not_fit():
    runner = _stopped(KUBESPRAY_EXEC_START + "\n", "/etc/kubernetes/kubelet.env (ignore_errors=yes)\n")
    found = unit.read_unit(runner, "kubelet", {"/etc/kubernetes/kubelet.env": KUBESPRAY_ENV}.get)
    assert found["source"] == "ExecStart"
    assert found["flags"] == {"config": "/etc/kubernetes/kubelet-config.yaml", "config_dir": None, "root_dir": None,
                              "kubeconfig": "/etc/kubernetes/kubelet.conf"}
    fit = unit.layout_fit(found, DEFAULT_LAYOUT)
    assert fit == {"read": "ExecStart", "config": "/etc/kubernetes/kubelet-config.yaml", "config_dir": None,
                   "modes": {"dropin": False, "main": False}, "warnings": [
                       "the kubelet runs with --config=/etc/kubernetes/kubelet-config.yaml (read from ExecStart), but "
                       "numa_gate_kubelet_layout.path is /var/lib/kubelet/config.yaml: the plan was made over a file the kubelet "
                       "does not read; set numa_gate_kubelet_layout.path to /etc/kubernetes/kubelet-config.yaml",
                       "the kubelet runs with --config-dir=unset (read from ExecStart), not /etc/kubernetes/kubelet.conf.d: a "
                       "drop-in there would never be read; start the kubelet with --config-dir=/etc/kubernetes/kubelet.conf.d, or use "
                       "numa_gate_kubelet_layout.mode main"]}
    fitted = unit.layout_fit(found, {"path": "/etc/kubernetes/kubelet-config.yaml", "config_dir": "/etc/kubernetes/kubelet.conf.d"})
    assert fitted["modes"] == {"dropin": False, "main": True} and len(fitted["warnings"]) == 1


def test_a_kubeadm_node_with_config_dir_fits_both_modes():
    runner = _stopped(EXEC_START + "\n", "/var/lib/kubelet/kubeadm-flags.env (ignore_errors=yes)\n",
                      "KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml\n")
    files = {"/var/lib/kubelet/kubeadm-flags.env": 'KUBELET_KUBEADM_ARGS="--config-dir=/etc/kubernetes/kubelet.conf.d"\n'}
    fit = unit.layout_fit(unit.read_unit(runner, "kubelet", files.get), DEFAULT_LAYOUT)
    assert fit["modes"] == {"dropin": True, "main": True} and fit["warnings"] == []


def test_no_kubelet_unit_is_said_so():
    # systemctl show of a unit systemd does not know answers with empty properties (LoadState=not-found).
    runner = _stopped("\n", "\n")
    found = unit.read_unit(runner, "kubelet", {}.get)
    assert found["source"] == "no kubelet unit found" and found["argv"] == []
    assert unit.layout_fit(found, DEFAULT_LAYOUT) == {
        "read": "no kubelet unit found", "config": None, "config_dir": None, "modes": {"dropin": None, "main": None},
        "warnings": ["no kubelet unit found: which mode works on this node is unknown; check the kubelet's --config and "
                     "--config-dir before enable.yml"]}
    assert unit.layout_fit(None, DEFAULT_LAYOUT)["read"] == "the kubelet unit was not read"
