# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_verify action through the real ``ansible`` (an ad-hoc play against the API server double and a kubelet
on 127.0.0.1): progress lines, the JSON result masked (in-process: tests/unit/plugins/action/test_kubelet_verify.py)."""

from __future__ import annotations

import json
import os
import subprocess

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
# The kubelet and API server doubles, and the /configz they serve, are the in-process tests' own.
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action.test_kubelet_verify import (  # noqa: F401 pylint: disable=unused-import
    CONFIGZ, fixture_double, fixture_kubeconfig)


def test_verify_through_ansible_prints_progress_and_returns_configz_masked(kubeconfig, tmp_path):
    env = ansible_run.environment(tmp_path)
    args = json.dumps({"kubeconfig": kubeconfig, "node": "n1", "stable_s": 2, "poll": 1, "timeout": 30,
                       "expect": {"cpuManagerPolicy": "static", "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}]}})
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate.kubelet_verify",
            "-a", args, "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    start = done.stdout.index("\n{") + 1
    lines = done.stdout[:start].splitlines()
    result = json.loads(done.stdout[start:])["plays"][0]["tasks"][0]["hosts"]["localhost"]
    # The same window a second on is no new line: one per change of state, or per 10 s (progress.Pace).
    assert lines == ["verify n1: Ready for 0s of 2s stable window, 0s of 30s"]
    assert (result["changed"], result["ready"], result["healthz"], result["mismatches"]) == (False, True, "ok", [])
    assert result["configz"] == dict(CONFIGZ, staticPodURL="https://pods.example/list?********",
                                     staticPodURLHeader={"Authorization": ["********"]})
    assert "abcdefghijklmnop" not in done.stdout
    assert "s3cr3t-token-value" not in done.stdout
