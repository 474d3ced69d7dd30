# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The device_path_info action through the real ``ansible`` (an ad-hoc play against the API server double, seeded as the
in-process tests seed it): the same result (in-process: tests/unit/plugins/action/test_device_path_info.py)."""

from __future__ import annotations

import json
import os
import subprocess

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action.test_device_path_info import (  # noqa: F401 pylint: disable=unused-import
    ALLOCATABLE, fixture_double, fixture_kubeconfig, seed)
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases as C


def test_through_ansible_the_result_is_the_same(double, kubeconfig, tmp_path):
    seed(double)
    args = json.dumps({"kubeconfig": kubeconfig, "node": "gpu-1", "topology": C.facts(), "allocatable": ALLOCATABLE})
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate.device_path_info",
            "-a", args, "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"][0]["hosts"]["localhost"]
    assert result["summary"] == {"agree": 4, "disagree": 4, "unknown": 2}  # 2 of them: both GPUs from a plugin and DRA (issue 27)
    assert result["versions"] == {"gpu_device_plugin": "v0.18.0", "dra_kubelet_plugin": "v25.12.0", "sriov_device_plugin": "v3.9.0"}
