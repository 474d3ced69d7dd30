# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The evidence role through the real ansible-playbook in check mode, against the API server TEST DOUBLE
(tests/doubles/apiserver): the real H200 facts, the kubelet's files from a folder, the Node read from the API, the canary
not sent (check mode), so every source that follows it is null, and one fact composed in Python.

The molecule ``canary`` scenario runs the same role for real (enable.yml, then verify.yml, on two systemd nodes).
"""

from __future__ import annotations

import os
import sys

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, playbook_run

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

SHOW_THE_FACT = """  tasks:
    - name: Show the fact
      ansible.builtin.debug:
        var: evidence_result
"""
CONFIG = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: none\n"
DROPIN = ('{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "cpuManagerPolicy": "static", '
          '"reservedSystemCPUs": "0-1"}\n')
# kubelet_config_info's base and effective, as it returns them: with evictionHard's defaults filled in.
EVICTION = {"imagefs.available": "15%", "imagefs.inodesFree": "5%", "memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
BASE = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "cpuManagerPolicy": "none", "evictionHard": EVICTION}


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        yield started
    finally:
        started.stop()


def run(tmp_path, extra):
    playbook = playbook_run.write_play(tmp_path, "gpusmith.numa_gate.evidence", tasks=SHOW_THE_FACT)
    variables = playbook_run.write_vars(tmp_path, extra)
    tasks = playbook_run.run(tmp_path, playbook, *playbook_run.LOCALHOST, "--check", "-e", "@%s" % variables)["plays"][0]["tasks"]
    return tasks, tasks[-1]["hosts"]["localhost"]["evidence_result"]


def test_check_mode_reads_the_files_and_the_node_sends_nothing_and_composes_one_fact(double, tmp_path):
    double.add_node("gpu-1")
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "config.yaml").write_text(CONFIG)
    (tmp_path / "conf.d" / "50-numa-gate.conf").write_text(DROPIN)
    tasks, found = run(tmp_path, {
        "evidence_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"), "evidence_node_name": "gpu-1",
        "evidence_plan": {"kubelet_settings": {"cpuManagerPolicy": "static", "topologyManagerScope": "pod"}},
        "evidence_kubelet_config_path": str(tmp_path / "config.yaml"), "evidence_kubelet_config_dir": str(tmp_path / "conf.d"),
        "evidence_kubelet_root_dir": str(tmp_path / "kubelet"), "evidence_verify_timeout": 1,
        "evidence_verify_stable_s": 1, "podresources_client_manage_packages": False,
        "podresources_client_python": ansible_run.PYTHON, "canary_timeout": 2, "canary_poll": 1,
        "evidence_state_dir": str(tmp_path / "state")})
    by_name = {task["task"]["name"].split(" : ", 1)[-1]: task["hosts"]["localhost"] for task in tasks}
    assert found["versions"] == {"container_runtime": "containerd://2.1.0", "kubelet": "v1.37.1", "node_image": "Debian GNU/Linux 12 (bookworm)"}
    assert (found["baseline_config"], found["target_config"]) == (BASE, dict(BASE, cpuManagerPolicy="static", reservedSystemCPUs="0-1"))
    assert found["canary"] == {"pod": "default/pod-numa-allocation-canary", "admission": {"admitted": False, "failures": [], "node": None, "phase": None}}
    # kubelet_verify failed (the double's node has no kubelet behind its proxy) and, under failed_when: false, reads failed: false
    # with mismatches []: a failure all the same, never verified.
    verify = by_name["Check the kubelet is Ready, healthy and runs the planned settings"]
    assert (verify["failed_when_result"], verify["mismatches"], verify["ready"]) == (False, [], False)
    assert found["configuration"] == {"verified": False, "message": verify["msg"]}
    assert verify["msg"].startswith("verify gpu-1: not Ready and healthy for 1s in a row within 1s; last seen: Ready=True since ")
    assert verify["msg"].endswith(", healthz HTTP 503: error trying to reach service: dial tcp 127.0.0.1:10250: [Errno 111] Connection refused")
    # Check mode sent no canary, so nothing that follows it ran.
    assert [by_name[name].get("skipped") for name in (
        "Read the canary's cgroups, thread masks and resident pages", "Read the ResourceClaims of the canary's namespace",
        "Read the node's ResourceSlices", "Read the kubelet's allocations (PodResources), DRA devices joined to their claims and slices",
        "Read the device path (device plugin, DRA slices, SR-IOV) and compare it with the host",
        "Read the transport variables of the canary's main container process",
        "Scrape the kubelet's metrics after the canary, with rates", "Remove the canary")] == [True] * 8
    assert {key: found[key] for key in ("allocations", "findings", "service_objectives", "device_path")} == {
        "allocations": None, "findings": [], "service_objectives": None, "device_path": None}
    assert found["transport"] is None  # no canary pod: transport_info did not run
    # The scrape before the canary failed the same way (no kubelet behind the proxy): kept with its message, never silence.
    assert found["metrics"] == {"samples": [], "error": "the scrape before the canary failed: error trying to reach service: "
                                                        "dial tcp 127.0.0.1:10250: [Errno 111] Connection refused"}
    # The rollback source: rehearsal_info on this node's own state folder (here one with no transitions: never rehearsed),
    # read in check mode as well; never a variable.
    rollback_task = by_name["Read the rollback rehearsal from the node's transition records"]
    assert found["rollback"] == rollback_task["rollback"] == {
        "schema_version": 1, "node": "gpu-1", "state": "not rehearsed", "rehearsed": False, "enable": None, "rollback": None,
        "re_enable": None, "check": None, "missing": [], "problems": [], "transitions": [], "notes": [], "reboot": None}
    assert sorted(found) == sorted(("versions", "baseline_config", "target_config", "allocations", "findings", "canary", "memory", "admission_failure",
                                    "configuration", "metrics", "effect", "service_objectives", "rollback", "device_path", "transport"))
    assert found["memory"] is None  # no canary pod (check mode): no second placement reading
    assert found["effect"] is None  # no canary pod (check mode): nothing to ask whether the feature took effect
