# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa_gate_node_name names the Node, not the inventory host: enable.yml (check mode) and verify.yml through the real
ansible-playbook against the API server TEST DOUBLE (tests/doubles/apiserver), the inventory host named
``node-inventory-name`` and the Node ``gpu-node-7``; the double's request log says which Node was read and patched.

The topology is the real H200 VM fixture (sysfs), the kubelet's files lie in temporary folders (numa_gate_kubelet_layout),
the state folder too (numa_gate_state_dir); the host is this machine (ansible_connection=local).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, shared_paths

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

HOST = "node-inventory-name"
NODE = "gpu-node-7"
CONFIG = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: none\n"

SYSTEMCTL = "#!/bin/sh\nif [ \"$1\" = show ]; then printf 'LoadState=loaded\\nActiveState=active\\n'; exit 0; fi\nexit 1\n"


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        started.add_node(NODE, labels={"example.com/pod-managers": "canary"})  # the pool enable.yml may change (numa_gate_pool_selector)
        yield started
    finally:
        started.stop()


def playbook(tmp_path, double, name, *flags):
    """ansible-playbook playbooks/<name> on the one inventory host, with the shared settings pointing at the double and tmp_path."""
    (tmp_path / "conf.d").mkdir(exist_ok=True)
    (tmp_path / "config.yaml").write_text(CONFIG)
    (tmp_path / "hosts.ini").write_text("[gpu_canary]\n%s ansible_connection=local ansible_python_interpreter=%s\n" % (HOST, ansible_run.PYTHON))
    variables = {
        "numa_gate_node_name": NODE, "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"),
        "numa_gate_kubelet_layout": {"path": str(tmp_path / "config.yaml"), "config_dir": str(tmp_path / "conf.d"),
                                     "dropin_name": "50-numa-gate.conf", "kubelet_root_dir": str(tmp_path / "kubelet"), "mode": "main"},
        "numa_gate_state_dir": str(tmp_path / "state"), "numa_gate_artifacts_dir": str(tmp_path / "artifacts"),
        "numa_gate_verify_timeout": 1, "topology_root": shared_paths.H200_VM, "topology_gpu_source": "sysfs",
        "topology_write_artifacts": False, "podresources_client_manage_packages": False, "podresources_client_python": ansible_run.PYTHON,
        "canary_timeout": 2, "canary_poll": 1, "evidence_verify_stable_s": 1}
    (tmp_path / "vars.json").write_text(json.dumps(variables))
    # This machine has no systemd: a systemctl that says the kubelet runs (check mode only reads its state).
    (tmp_path / "bin").mkdir(exist_ok=True)
    (tmp_path / "bin" / "systemctl").write_text(SYSTEMCTL)
    (tmp_path / "bin" / "systemctl").chmod(0o755)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(tmp_path / "hosts.ini"),
            os.path.join(ansible_run.REPO, "playbooks", name), "-e", "@%s" % (tmp_path / "vars.json")] + list(flags)
    env = ansible_run.environment(tmp_path, PATH="%s:%s" % (tmp_path / "bin", os.environ.get("PATH", "")))
    done = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=240,
                          check=False)
    return done, json.loads(done.stdout[done.stdout.index("{"):])


def failures(result):
    return [(task["task"]["name"], host, outcome.get("msg"))
            for play in result["plays"] for task in play["tasks"] for host, outcome in task["hosts"].items() if outcome.get("failed")]


def node_requests(double):
    """(method, path without its query) of every request the double saw under /api/v1/nodes."""
    return [(method, path.split("?", 1)[0]) for method, path in double.requests if path.startswith("/api/v1/nodes")]


def test_enable_in_check_mode_reads_only_the_named_node(double, tmp_path):
    done, result = playbook(tmp_path, double, "enable.yml", "--check", "-e", "numa_gate_hosts=gpu_canary")
    assert (done.returncode, failures(result)) == (0, []), double.requests
    seen = node_requests(double)
    # Six reads of the named Node (the first: its eligibility; one by the dry run's admission check, for its extended resources)
    # and nothing else: check mode patches nothing.
    assert seen == [("GET", "/api/v1/nodes/%s" % NODE)] * 6
    assert not [entry for entry in double.requests if HOST in entry[1]]
    assert result["stats"][HOST]["failures"] == 0


def test_verify_reads_only_the_named_node(double, tmp_path):
    done, result = playbook(tmp_path, double, "verify.yml", "-e", "numa_gate_hosts=gpu_canary")
    assert (done.returncode, failures(result)) == (0, []), double.requests
    seen = node_requests(double)
    node = "/api/v1/nodes/%s" % NODE
    # kubelet_verify first (the first API call: an API that does not answer stops the run there), then the Node, the metrics,
    # three more reads of the named Node (the evidence's and the record's) and the pool's nodes (a list: the path without a name).
    assert seen == [("GET", node), ("GET", node + "/proxy/healthz"), ("GET", node), ("GET", node + "/proxy/healthz"), ("GET", node),
                    ("GET", node + "/proxy/metrics"), ("GET", node), ("GET", node), ("GET", node), ("GET", "/api/v1/nodes")]
    assert result["stats"][HOST]["failures"] == 0
    assert not [entry for entry in double.requests if HOST in entry[1]]
