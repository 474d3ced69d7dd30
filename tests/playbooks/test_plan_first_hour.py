# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/plan.yml as a newcomer meets it, through the real ansible-playbook (default callback, as on a terminal):
a plan the node cannot take fails once, naming the variable the user sets; a node whose Python lacks PyYAML is told the
package to install; summary.md says how the kubelet is started and which mode works (issue 31, defects 3 and 6).

The topology is the real H200 VM fixture (sysfs); the kubelet's files lie in a temporary folder (numa_gate_kubelet_layout);
the host is this machine (ansible_connection=local).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, shared_paths

H200 = shared_paths.H200_VM


def _inventory(tmp_path, python=None):
    path = tmp_path / "hosts.yml"
    path.write_text(json.dumps({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": python or sys.executable}}}}), encoding="utf-8")
    return str(path)


def _plan(tmp_path, *extra, python=None, root=None, path=None):
    layout = {"path": str(tmp_path / "kubelet" / "config.yaml"), "config_dir": str(tmp_path / "kubelet" / "conf.d"),
              "dropin_name": "50-numa-gate.conf", "kubelet_root_dir": str(tmp_path / "kubelet"), "mode": "dropin"}
    (tmp_path / "kubelet").mkdir(exist_ok=True)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", _inventory(tmp_path, python),
            os.path.join(ansible_run.REPO, "playbooks", "plan.yml"),
            "-e", json.dumps({"topology_root": root or H200, "topology_gpu_source": "sysfs", "numa_gate_kubelet_layout": layout,
                              "numa_gate_artifacts_dir": str(tmp_path / "artifacts")})]
    for item in extra:
        argv += ["-e", item]
    env = ansible_run.environment(tmp_path, ANSIBLE_STDOUT_CALLBACK="default", **({"PATH": path} if path else {}))
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_a_plan_the_node_cannot_take_fails_once_naming_the_variable(tmp_path):
    done = _plan(tmp_path, "kubelet_plan_reserved_cpus=2000")
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    message = ("kubelet_plan_reserved_cpus 2000 needs 2000 logical CPUs in whole cores, but only ")
    # ansible-core shows every failed task twice: the [ERROR] line and the fatal result (an ansible.builtin.fail too).
    assert out.count(message) == 2, out
    assert "[ERROR]: Task failed: Action failed: " + message in out
    assert 'fatal: [localhost]: FAILED! => {"changed": false, "msg": "' + message in out
    # No chain of template layers, no internal key.
    assert "caused by" not in out
    assert "Finalization of task args" not in out
    assert " reserved_cpus 2000" not in out.replace("kubelet_plan_reserved_cpus 2000", "")


def test_a_cpu_list_off_the_node_names_the_role_variable(tmp_path):
    done = _plan(tmp_path, "kubelet_plan_reserved_cpu_list=999")
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert out.count("kubelet_plan_reserved_cpu_list 999 includes CPUs 999 that are not online (online: ") == 2, out
    assert " reserved_cpu_list 999" not in out


def test_a_node_python_without_pyyaml_is_told_the_package(tmp_path):
    bare = tmp_path / "bare-python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    python = str(bare / "bin" / "python")
    assert subprocess.run([python, "-c", "import yaml"], capture_output=True, check=False).returncode == 1
    done = _plan(tmp_path, python=python)
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert ("PyYAML is not installed for the Python that runs this module on the node (%s), and reading the kubelet's "
            "configuration needs it: install the OS package python3-yaml (Debian, Ubuntu; python3-pyyaml on RHEL, Fedora, "
            "SUSE) or PyYAML with that Python's pip" % python) in out
    assert "Failed to import the required Python library" not in out


# What `systemctl show --property P --value -- kubelet.service` prints for kubespray's unit (kubernetes-sigs/kubespray,
# roles/kubernetes/node/templates/kubelet.service.j2: EnvironmentFile=-/etc/kubernetes/kubelet.env, ExecStart with
# $KUBELET_ARGS; kubelet.env.v1beta1.j2: KUBELET_ARGS over several lines with --config=/etc/kubernetes/kubelet-config.yaml,
# no --config-dir). systemd is not PID 1 on this machine, so a stand-in answers on PATH; the env file is a real file.
SYSTEMCTL = """#!/bin/sh
case "$3" in
  ActiveState) echo inactive ;;
  MainPID) echo 0 ;;
  EnvironmentFiles) echo "%(env)s (ignore_errors=yes)" ;;
  Environment) echo ;;
  ExecStart) echo "{ path=/usr/local/bin/kubelet ; argv[]=/usr/local/bin/kubelet \\$KUBE_LOGTOSTDERR \\$KUBELET_ARGS ; ignore_errors=no }" ;;
esac
"""
KUBELET_ENV = ('KUBE_LOGTOSTDERR="--logtostderr=true"\nKUBELET_ARGS="--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \\\n'
               '--config=/etc/kubernetes/kubelet-config.yaml \\\n--kubeconfig=/etc/kubernetes/kubelet.conf \\\n --node-labels=  "\n')


def _summary(tmp_path):
    return (tmp_path / "artifacts" / "localhost" / "summary.md").read_text(encoding="utf-8")


def test_a_kubespray_kubelet_is_read_and_the_summary_warns(tmp_path):
    (tmp_path / "kubelet.env").write_text(KUBELET_ENV, encoding="utf-8")
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    (stand_in / "systemctl").write_text(SYSTEMCTL % {"env": tmp_path / "kubelet.env"}, encoding="utf-8")
    (stand_in / "systemctl").chmod(0o755)
    # One CPU: this machine may have two single-thread cores (inventories/demo does the same).
    done = _plan(tmp_path, "kubelet_plan_reserved_cpus=1", root="/", path=os.pathsep.join([str(stand_in), os.environ["PATH"]]))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = _summary(tmp_path).splitlines()
    section = lines[lines.index("## Kubelet unit") + 2:lines.index("## Allocatable per NUMA node") - 1]
    layout = tmp_path / "kubelet"
    assert section == [
        "- Flags read from: ExecStart; `--config` /etc/kubernetes/kubelet-config.yaml, `--config-dir` unset",
        "- Drop-in mode would be read: no; main-file mode: no (this run assumes `dropin`)",
        "- Warning: the kubelet runs with --config=/etc/kubernetes/kubelet-config.yaml (read from ExecStart), but "
        "numa_gate_kubelet_layout.path is %s/config.yaml: the plan was made over a file the kubelet does not read; set "
        "numa_gate_kubelet_layout.path to /etc/kubernetes/kubelet-config.yaml" % layout,
        "- Warning: the kubelet runs with --config-dir=unset (read from ExecStart), not %s/conf.d: a drop-in there would never "
        "be read; start the kubelet with --config-dir=%s/conf.d, or use numa_gate_kubelet_layout.mode main" % (layout, layout),
        "- Warning: the assumed mode `dropin` would not be read by this kubelet; enable.yml refuses it"]


def test_a_machine_without_a_kubelet_says_no_kubelet_unit_found(tmp_path):
    # This machine as it is: no kubelet.service (and systemd not PID 1), read through the real systemctl.
    done = _plan(tmp_path, "kubelet_plan_reserved_cpus=1", root="/")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = _summary(tmp_path).splitlines()
    section = lines[lines.index("## Kubelet unit") + 2:lines.index("## Allocatable per NUMA node") - 1]
    assert section == [
        "- Flags read from: no kubelet unit found; `--config` unset, `--config-dir` unset",
        "- Drop-in mode would be read: unknown; main-file mode: unknown (this run assumes `dropin`)",
        "- Warning: no kubelet unit found: which mode works on this node is unknown; check the kubelet's --config and "
        "--config-dir before enable.yml"]
    assert "read from ExecStart" not in _summary(tmp_path)
