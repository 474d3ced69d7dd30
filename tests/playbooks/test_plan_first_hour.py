# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/plan.yml as a newcomer meets it, through the real ansible-playbook (default callback, as on a terminal):
a plan the node cannot take fails once, naming the variable the user sets; a node whose Python lacks PyYAML is told the
package to install.

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


def _plan(tmp_path, *extra, python=None):
    layout = {"path": str(tmp_path / "kubelet" / "config.yaml"), "config_dir": str(tmp_path / "kubelet" / "conf.d"),
              "dropin_name": "50-numa-gate.conf", "kubelet_root_dir": str(tmp_path / "kubelet"), "mode": "dropin"}
    (tmp_path / "kubelet").mkdir(exist_ok=True)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", _inventory(tmp_path, python),
            os.path.join(ansible_run.REPO, "playbooks", "plan.yml"),
            "-e", json.dumps({"topology_root": H200, "topology_gpu_source": "sysfs", "numa_gate_kubelet_layout": layout,
                              "numa_gate_artifacts_dir": str(tmp_path / "artifacts")})]
    for item in extra:
        argv += ["-e", item]
    env = ansible_run.environment(tmp_path, ANSIBLE_STDOUT_CALLBACK="default")
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
