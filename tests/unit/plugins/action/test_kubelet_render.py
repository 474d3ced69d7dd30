# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_render action: a controller render in check mode with a matching reading, the module otherwise."""

from __future__ import annotations

import json
from unittest import mock

import pytest

from ansible.playbook.task import Task

from ansible_collections.gpusmith.numa_gate.plugins.action.kubelet_render import ActionModule
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as _layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import files
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import info

GI = 1 << 30
NODE = {"online_cpus": "0-15", "numa_nodes": {"0": 32 * GI, "1": 32 * GI}, "memory_bytes": 64 * GI}
SETTINGS = {"cpuManagerPolicy": "static", "reservedSystemCPUs": "0,8"}
MAIN = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n"


@pytest.fixture
def reading(tmp_path):
    (tmp_path / "var/lib/kubelet").mkdir(parents=True)
    (tmp_path / "var/lib/kubelet/config.yaml").write_text(MAIN)
    layout = {name: spec["default"] for name, spec in _layout.layout_argument_spec().items()}
    layout["root"] = str(tmp_path)
    return json.loads(json.dumps(dict(info.read(layout, documents=True), layout=layout)))


def run(args, check_mode, diff=True):
    task = Task()
    task.action = "gpusmith.numa_gate.kubelet_render"
    task.args = args
    task.check_mode = check_mode
    task.diff = diff
    action = ActionModule(task, mock.MagicMock(), mock.MagicMock(), mock.MagicMock(), mock.MagicMock(), None)
    with mock.patch.object(action, "_execute_module", return_value={"changed": True, "ran": "module"}) as module:
        result = action.run(task_vars={})
    return result, module


def test_check_mode_with_a_matching_reading_runs_no_module(reading):
    result, module = run({"settings": SETTINGS, "node": NODE, "root": reading["layout"]["root"], "reading": reading}, check_mode=True)
    assert not module.called
    assert result["rendered_on"] == "controller"
    assert result["changed"] is True
    assert result["effective"]["cpuManagerPolicy"] == "static"
    assert result["diff"]["before"] == ""
    assert result["diff"]["after"].startswith(files.DROPIN_HEADER)


def test_without_diff_mode_there_is_no_diff(reading):
    result, _module = run({"settings": SETTINGS, "node": NODE, "root": reading["layout"]["root"], "reading": reading}, check_mode=True, diff=False)
    assert "diff" not in result and result["changed"] is True


@pytest.mark.parametrize("check_mode, extra", [
    (False, {}),
    (True, {"mode": "main"}),
    (True, {"state": "absent"}),
    (True, {"dropin_name": "60-other.conf"}),
    (True, {"reading": None}),
])
def test_otherwise_the_module_runs_with_the_other_arguments(reading, check_mode, extra):
    args = dict({"settings": SETTINGS, "node": NODE, "root": reading["layout"]["root"], "reading": reading}, **extra)
    result, module = run(args, check_mode=check_mode)
    assert result["ran"] == "module" and "rendered_on" not in result
    sent = module.call_args.kwargs["module_args"]
    assert module.call_args.kwargs["module_name"] == "gpusmith.numa_gate.kubelet_config"
    assert "reading" not in sent
    assert sent == {key: value for key, value in args.items() if key != "reading"}


def test_a_refusal_is_a_failed_result_with_the_module_message(reading):
    result, module = run({"settings": dict(SETTINGS, cpuManagerPolicy="bogus"), "node": NODE, "root": reading["layout"]["root"],
                          "reading": reading}, check_mode=True)
    assert not module.called
    assert result["failed"] is True and result["changed"] is False
    assert result["msg"].startswith("the kubelet would refuse this configuration; nothing was written:\n- ")
