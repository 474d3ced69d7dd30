# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 29, class 3, through the real ``ansible`` and ``ansible-playbook``, every run under a timeout: a YAML alias bomb in
the NVIDIA device plugin's ConfigMap is refused before it expands, ``repetitions: 1e9`` is refused before a plan is built,
the PodResources overlap check of thousands of containers ends in seconds with bounded findings, and a host's acceptance.json
over the bound is not read back. (A FIFO result file: tests/playbooks/test_secrets_round_three.py; systemctl's deadline:
tests/playbooks/test_kubelet_service_adhoc.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action.test_device_path_info import (  # noqa: F401 pylint: disable=unused-import
    fixture_double, fixture_kubeconfig, seed)
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "doubles"))
from apiserver import device_objects  # noqa: E402  pylint: disable=wrong-import-position,import-error,wrong-import-order

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" \
       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n" \
       "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ni: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n"


def play(tmp_path, text, **extra):
    (tmp_path / "play.yml").write_text(text)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    for key, value in extra.items():
        argv += ["-e", json.dumps({key: value})]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=120,
                          check=False)
    return json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"][0]["hosts"]["localhost"], time.monotonic() - started


def test_a_yaml_alias_bomb_in_the_device_plugins_configmap_is_refused(double, kubeconfig, tmp_path):
    seed(double, nvidia_env={"CONFIG_FILE": "/config/config.yaml"},
         nvidia_volumes=[{"name": "available-configs", "configMap": {"name": "nvidia-device-plugin-configs"}}])
    double.store.create("configmaps", device_objects.configmap("nvidia-device-plugin-configs", "kube-system", {"default": BOMB}))
    args = json.dumps({"kubeconfig": kubeconfig, "node": "gpu-1", "topology": C.facts(),
                       "selectors": {"dra_kubelet_plugin": [], "sriov_device_plugin": []}})
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate.device_path_info",
            "-a", args, "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=120, check=False)
    result = json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"][0]["hosts"]["localhost"]
    assert result["msg"] == ("ConfigMap kube-system/nvidia-device-plugin-configs key default: the NVIDIA device plugin config is not YAML: "
                             "yaml: document contains excessive aliasing (its 28 YAML nodes would expand through aliases to more than "
                             "10000); not loaded"), json.dumps(result)[:2000]


PLAN = """
- hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "{{ settings | gpusmith.numa_gate.service_load_plan }}"
"""


def test_a_billion_repetitions_are_refused_before_a_plan_is_built(tmp_path):
    settings = {"repetitions": 1000000000, "command": ["load", "{target_url}"], "load": {}, "result_dir": str(tmp_path),
                "baseline": {"target_url": "http://127.0.0.1:9/", "metrics_url": "http://127.0.0.1:9/metrics"},
                "canary": {"target_url": "http://127.0.0.1:8/", "metrics_url": "http://127.0.0.1:8/metrics"}}
    result, seconds = play(tmp_path, PLAN, settings=settings)
    assert result["msg"].endswith("service_comparison_repetitions 1000000000 is above the limit of 1000 (each repetition is two load runs, "
                                  "one per side); not planned"), result["msg"]
    assert seconds < 60


ALLOCATIONS = """
- hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.set_fact:
        reconciled: "{{ pods | gpusmith.numa_gate.pod_allocations('container', topology) }}"
    - ansible.builtin.debug:
        msg: "{{ reconciled.pods[0].findings | length }} {{ reconciled.pods[0].findings[-1].message }}"
"""


def test_thousands_of_overlapping_containers_give_bounded_findings_in_seconds(tmp_path):
    containers = [{"name": "c%04d" % index, "cpu_ids": "0-63", "memory": [], "devices": [], "dynamic_resources": []} for index in range(3000)]
    pods = [{"name": "web", "namespace": "default", "cpu_ids": "", "memory": [], "containers": containers}]
    (tmp_path / "play.yml").write_text(ALLOCATIONS)
    (tmp_path / "vars.json").write_text(json.dumps({"pods": pods, "topology": C.facts()}))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
            "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300,
                          check=False)
    seconds = time.monotonic() - started
    tasks = json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"]
    assert tasks[-1]["hosts"]["localhost"]["msg"] == ("65 pod default/web: 2935 more containers hold exclusive CPUs an earlier container "
                                                      "holds (findings end at 64)"), done.stdout[-3000:]
    assert seconds < 120


READ_BACK = """
- hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "{{ 'node-b' | gpusmith.numa_gate.artifacts_file(artifacts, 'acceptance.json') }}"
"""


def test_a_previous_acceptance_json_over_the_bound_is_not_read(tmp_path):
    folder = tmp_path / "artifacts/node-b"
    folder.mkdir(parents=True)
    with open(str(folder / "acceptance.json"), "wb") as stream:
        stream.truncate(16 * 1024 * 1024 + 1)  # sparse: nothing is written
    result, _seconds = play(tmp_path, READ_BACK, artifacts=str(tmp_path / "artifacts"))
    assert result["msg"].endswith("artifacts_file: artifacts: %s/acceptance.json is 16777217 bytes, over the 16777216-byte bound for "
                                  "reading an artifact back; not read" % folder), result["msg"]
