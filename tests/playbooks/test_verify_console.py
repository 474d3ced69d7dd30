# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""verify.yml's console as a person reads it (Ansible's default callback), through the real ansible-playbook against the API
server TEST DOUBLE (tests/doubles/apiserver) (issue 31, defect 5).

The double's node has no kubelet behind its proxy (healthz answers 503) and no scheduler binds the canary, so both waits run to
their bound: each says its state once and then once per 10 s, never a line per poll, no "FAILED - RETRYING" and no [ERROR]; the
last task of the host prints the verdict, its first reasons and the record's path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, shared_paths

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

HOST = "gpu-inventory-3"
NODE = "gpu-node-3"
VERDICT = "TASK [Say this node's verdict, its first reasons and where its record is] "


def test_the_console_says_each_state_once_per_10_seconds_and_ends_with_the_verdict(tmp_path):
    double = server.ApiServerDouble().start()
    try:
        double.add_node(NODE, labels={"example.com/pod-managers": "canary"})
        (tmp_path / "conf.d").mkdir()
        (tmp_path / "config.yaml").write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n")
        (tmp_path / "hosts.ini").write_text("[gpu_canary]\n%s ansible_connection=local ansible_python_interpreter=%s\n" % (HOST, ansible_run.PYTHON))
        (tmp_path / "vars.json").write_text(json.dumps({
            "numa_gate_hosts": "gpu_canary", "numa_gate_node_name": NODE, "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"),
            "numa_gate_kubelet_layout": {"path": str(tmp_path / "config.yaml"), "config_dir": str(tmp_path / "conf.d"),
                                         "dropin_name": "50-numa-gate.conf", "kubelet_root_dir": str(tmp_path / "kubelet"), "mode": "main"},
            "numa_gate_state_dir": str(tmp_path / "state"), "numa_gate_artifacts_dir": str(tmp_path / "artifacts"),
            "numa_gate_verify_timeout": 12, "evidence_verify_stable_s": 1, "canary_timeout": 12, "canary_poll": 1,
            "topology_root": shared_paths.H200_VM, "topology_gpu_source": "sysfs", "topology_write_artifacts": False,
            "podresources_client_manage_packages": False, "podresources_client_python": ansible_run.PYTHON}))
        argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(tmp_path / "hosts.ini"),
                os.path.join(ansible_run.REPO, "playbooks", "verify.yml"), "-e", "@%s" % (tmp_path / "vars.json")]
        env = dict(ansible_run.environment_without_api_settings(tmp_path), ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default")
        done = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=240, check=False)
    finally:
        double.stop()
    console = done.stdout
    assert done.returncode == 0, console + done.stderr
    assert "FAILED - RETRYING" not in console and "[ERROR]" not in console + done.stderr
    waits = [line for line in console.splitlines() if line.startswith(("verify %s: " % NODE, "canary default/"))]
    assert [line.rsplit(", ", 1)[-1] for line in waits] == ["0s of 12s", "10s of 12s", "0s of 12s", "10s of 12s"]
    assert waits[2] == "canary default/pod-numa-allocation-canary: 1 pod created, 0 scheduled, 0 admitted and Ready, 0s of 12s"
    # The host's last task is the verdict's, and its line names the record.
    tasks = [line for line in console.splitlines() if line.startswith("TASK [")]
    assert tasks[-1].startswith(VERDICT)
    said = console[console.rindex(VERDICT):console.index("PLAY RECAP")]
    record = os.path.join(str(tmp_path / "artifacts"), HOST, "acceptance.html")
    assert '"msg": "verdict defer: ' in said
    assert said.rstrip().endswith('; record %s"\n}' % record)
    assert os.path.isfile(record)
