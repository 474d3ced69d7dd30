# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""rehearse.yml's guards and the rehearsal_workloads action, through the real ansible-playbook against the API server double.

The inventory's node is an ssh host on a loopback port nothing listens on: the guards run on localhost (the Node is read
through the API from the controller), so a refusal that comes before any node is contacted shows no unreachable host.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

INVENTORY = "[gpu_canary]\ngpu-1 ansible_host=127.0.0.1 ansible_port=9 ansible_user=nobody\n"
CANARY = {"example.com/pod-managers": "canary"}


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble(controllers=True).start()
    try:
        yield started
    finally:
        started.stop()


def playbook(tmp_path, path, *flags):
    (tmp_path / "hosts.ini").write_text(INVENTORY)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", str(tmp_path / "hosts.ini"), path,
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON, "-e", "numa_gate_artifacts_dir=%s" % (tmp_path / "artifacts")] + list(flags)
    done = subprocess.run(argv, cwd=str(tmp_path), env=ansible_run.environment(tmp_path, ANSIBLE_TIMEOUT="2"),
                          capture_output=True, text=True, timeout=180, check=False)
    return done, json.loads(done.stdout[done.stdout.index("{"):])


def rehearse(tmp_path, *flags):
    return playbook(tmp_path, os.path.join(ansible_run.REPO, "playbooks", "rehearse.yml"), *flags)


def failures(result):
    return [(task["task"]["name"], host, outcome.get("msg"))
            for play in result["plays"] for task in play["tasks"] for host, outcome in task["hosts"].items() if outcome.get("failed")]


def test_no_host_pattern_refuses_before_any_node_is_contacted(tmp_path):
    done, result = rehearse(tmp_path)
    assert done.returncode == 2
    assert failures(result) == [(
        "Refuse unless numa_gate_hosts or --limit names the nodes", "localhost",
        "rehearse.yml enables, rolls back and enables again (each a cordon, a drain and a kubelet restart) every node it targets, and no "
        "target was named: set numa_gate_hosts to the canary pool (for example -e numa_gate_hosts=gpu_canary) or pass --limit; nothing "
        "was changed")]
    assert sorted(result["stats"]) == ["localhost"]


@pytest.mark.parametrize("labels, said", [
    ({"example.com/pod-managers": "general"}, 'has {"example.com/pod-managers": "general"} of those labels'),
    (None, "has {} of those labels"),
])
def test_a_node_outside_the_canary_pool_is_refused_before_anything_changes(double, tmp_path, labels, said):
    double.add_node("gpu-1", labels=labels)
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    done, result = rehearse(tmp_path, "-e", "numa_gate_hosts=gpu_canary", "-e", "numa_gate_kubeconfig=%s" % kubeconfig)
    assert done.returncode == 2
    assert failures(result) == [(
        "Refuse a node that does not carry the canary pool's labels", "gpu-1",
        "rehearse.yml rehearses a rollback on the canary pool only: node gpu-1 %s, and the canary pool is the nodes labelled "
        '{"example.com/pod-managers": "canary"} (numa_gate_pool_selector); nothing was changed on any node' % said)]
    assert result["stats"]["gpu-1"]["unreachable"] == 0
    assert not (double.store.get("nodes", None, "gpu-1").get("spec") or {}).get("unschedulable")


def test_a_node_in_the_canary_pool_goes_on_to_the_enable(double, tmp_path):
    double.add_node("gpu-1", labels=dict(CANARY, other="x"))
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    done, result = rehearse(tmp_path, "-e", "numa_gate_hosts=gpu_canary", "-e", "kubelet_transition_kubeconfig=%s" % kubeconfig)
    assert done.returncode == 4
    assert result["stats"]["gpu-1"]["unreachable"] == 1
    assert failures(result) == []


PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: Before
      gpusmith.numa_gate.rehearsal_workloads: {kubeconfig: "%(kubeconfig)s", node: gpu-1}
      register: before
    - name: Evict the web pod (a drain's eviction); the double's ReplicaSet controller recreates it, Pending while the node is cordoned
      ansible.builtin.uri: {url: "%(url)s/api/v1/namespaces/default/pods/web-a/eviction", method: POST, body_format: json, status_code: 201,
                            body: {apiVersion: policy/v1, kind: Eviction, metadata: {name: web-a, namespace: default}}}
    - name: After
      gpusmith.numa_gate.rehearsal_workloads: {kubeconfig: "%(kubeconfig)s", node: gpu-1, before: "{{ before }}", timeout: %(timeout)d, poll: 0.5}
      register: after
    - name: Show
      ansible.builtin.debug: {msg: {before: "{{ before }}", after: "{{ after }}"}}
"""


def run_play(double, tmp_path, timeout):
    kubeconfig = double.write_kubeconfig(tmp_path / "kubeconfig")
    (tmp_path / "play.yml").write_text(PLAY % {"kubeconfig": kubeconfig, "url": double.url, "timeout": timeout})
    done, result = playbook(tmp_path, str(tmp_path / "play.yml"))
    shown = result["plays"][0]["tasks"][-1]["hosts"]["localhost"]["msg"]
    return done, shown["before"], shown["after"]


def test_the_action_names_the_workloads_and_waits_for_their_return(double, tmp_path):
    double.add_node("gpu-1")
    double.add_pod("web-a", "gpu-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    double.add_pod("agent-a", "gpu-1", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    double.add_pod("debug", "gpu-1")
    done, before, after = run_play(double, tmp_path, timeout=20)
    assert done.returncode == 0, done.stdout[-2000:]
    assert [(w["owner"], [p["name"] for p in w["pods"]]) for w in before["workloads"]] == [
        ("DaemonSet/default/agent", ["agent-a"]), ("ReplicaSet/default/web", ["web-a"])]
    assert before["unowned"] == ["default/debug"]
    assert (after["back"], after["missing"], after["timeout_s"]) == (True, [], 20)
    web = after["workloads"][1]
    assert (web["state"], web["ready"], len(web["now"]), web["now"][0]["kept"]) == ("back", 1, 1, False)
    assert web["now"][0]["name"].startswith("web-") and web["now"][0]["name"] != "web-a"
    assert after["workloads"][0]["now"] == [dict(before["workloads"][0]["pods"][0], kept=True)]


def test_a_workload_whose_controller_is_gone_is_missing_when_the_wait_runs_out(double, tmp_path):
    double.add_node("gpu-1")
    double.add_pod("web-a", "gpu-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=0)
    double.store.delete("replicasets", "default", "web")
    done, _before, after = run_play(double, tmp_path, timeout=2)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (after["back"], after["missing"], after["workloads"][0]["state"]) == (False, ["ReplicaSet/default/web"], "missing")
    assert after["waited_s"] >= 1.5
