# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The roles that talk to the API set their connection once, with module_defaults at the top of each entry point.

Read from the roles' task files: no task passes ``kubeconfig`` or ``context`` itself, and every task that runs an action of
the ``kube_api`` group (meta/runtime.yml) or a kubernetes.core module is reached from an entry point whose top block's
``module_defaults`` names that action with both options. Through the real ansible-playbook against the API server TEST
DOUBLE (tests/doubles/apiserver), with HOME an empty folder and no KUBECONFIG or K8S_AUTH_*: the canary role, given only
``numa_gate_kubeconfig``, sends its pod and removes it (both entry points), so the connection came from module_defaults.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

REPO = ansible_run.REPO
if os.path.join(REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

BLOCKS = ("block", "rescue", "always")
INCLUDES = ("ansible.builtin.import_tasks", "ansible.builtin.include_tasks")


def _load(path):
    with open(path, encoding="utf-8") as stream:
        return yaml.safe_load(stream) or []


def _api_actions():
    group = _load(os.path.join(REPO, "meta", "runtime.yml"))["action_groups"]["kube_api"]
    return {"gpusmith.numa_gate." + name for name in group}


def _action(task):
    names = [key for key in task if "." in key and key not in INCLUDES]
    return names[0] if names else None


def _tasks(role, name, seen=()):
    """Every task reached from tasks/<name> (blocks opened, static task-file includes followed), each with the
    module_defaults keys the blocks around it set."""
    path = os.path.join(REPO, "roles", role, "tasks", name)
    found = []

    def walk(tasks, defaults):
        for task in tasks:
            inner = dict(defaults, **(task.get("module_defaults") or {}))
            if any(key in task for key in BLOCKS):
                for key in BLOCKS:
                    walk(task.get(key) or [], inner)
                continue
            included = next((task[key] for key in INCLUDES if key in task), None)
            if isinstance(included, str) and included not in seen:
                for one, outer in _tasks(role, included, seen + (name,)):
                    found.append((one, dict(inner, **outer)))
                continue
            found.append((task, inner))

    walk(_load(path), {})
    return found


def _entry_points(role):
    specs = _load(os.path.join(REPO, "roles", role, "meta", "argument_specs.yml"))["argument_specs"]
    return ["%s.yml" % entry for entry in specs]


ROLES = sorted(os.path.basename(os.path.dirname(os.path.dirname(path))) for path in glob.glob(os.path.join(REPO, "roles", "*", "tasks", "main.yml")))


@pytest.mark.parametrize("role", ROLES)
def test_no_task_passes_its_own_connection(role):
    for path in glob.glob(os.path.join(REPO, "roles", role, "tasks", "*.yml")):
        for task, _defaults in _tasks(role, os.path.basename(path)):
            arguments = task.get(_action(task)) if _action(task) else None
            assert not (isinstance(arguments, dict) and {"kubeconfig", "context"} & set(arguments)), (path, task.get("name"))


@pytest.mark.parametrize("role", ROLES)
def test_every_api_task_takes_the_connection_from_its_entry_points_module_defaults(role):
    api = _api_actions()
    for entry in _entry_points(role):
        for task, defaults in _tasks(role, entry):
            action = _action(task)
            if action in api or (action or "").startswith("kubernetes.core."):
                connection = defaults.get(action) or {}
                assert sorted(connection) == ["context", "kubeconfig"], (role, entry, task.get("name"))
                assert connection["kubeconfig"] == "{{ %s_kubeconfig | default(omit, true) }}" % role
                assert connection["context"] == "{{ %s_context | default(omit, true) }}" % role


def test_the_api_roles_set_module_defaults():
    """The roles that talk to the API are the ones expected (a new one is added here knowingly)."""
    api = _api_actions()
    talking = [role for role in ROLES if any(
        (_action(task) or "") in api or (_action(task) or "").startswith("kubernetes.core.")
        for entry in _entry_points(role) for task, _where in _tasks(role, entry))]
    assert talking == ["acceptance_record", "canary", "evidence", "kubelet_transition", "rehearsal", "service_comparison"]


PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: Send the canary
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.canary
    - name: Remove the canary
      ansible.builtin.include_role:
        name: gpusmith.numa_gate.canary
        tasks_from: remove
"""


@pytest.fixture(name="double")
def fixture_double():
    started = server.ApiServerDouble().start()
    try:
        started.add_node("gpu-1")
        yield started
    finally:
        started.stop()


def test_the_canary_role_reaches_the_api_with_only_numa_gate_kubeconfig(double, tmp_path):
    (tmp_path / "play.yml").write_text(PLAY)
    (tmp_path / "vars.json").write_text(json.dumps({
        "numa_gate_kubeconfig": double.write_kubeconfig(tmp_path / "kubeconfig"), "canary_node_name": "gpu-1",
        "canary_timeout": 2, "canary_poll": 1}))
    env = ansible_run.environment_without_api_settings(tmp_path)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
            "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    requests = [(method, path.split("?", 1)[0]) for method, path in double.requests]
    pod = "/api/v1/namespaces/default/pods"
    # Sent by kubernetes.core.k8s (main), read by k8s_info, deleted by k8s (remove): all through the one kubeconfig.
    assert ("POST", pod) in requests
    assert ("GET", pod + "/pod-numa-allocation-canary") in requests
    assert ("DELETE", pod + "/pod-numa-allocation-canary") in requests
