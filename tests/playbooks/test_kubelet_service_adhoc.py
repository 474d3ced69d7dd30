# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubelet_service through the real ``ansible`` against a stand-in ``systemctl`` first on PATH that logs its argv:
a pattern or an option is refused before systemctl runs, a unit goes after ``--``, a systemctl that hangs is killed
at the timeout (its pid is gone). In-process: tests/unit/plugins/modules/test_kubelet_service.py."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

SYSTEMCTL = """#!/bin/sh
printf '%s\\n' "$*" >> "$LOG"
case "$1" in
  show) if [ -e "$LOG.pid" ]; then state=inactive; else state=active; fi; printf 'LoadState=loaded\\nActiveState=%s\\n' $state ;;
  stop) echo $$ > "$LOG.pid"; if [ -n "$HANG" ]; then exec sleep 60; fi ;;
esac
"""


@pytest.fixture(name="fake")
def fixture_fake(tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "systemctl").write_text(SYSTEMCTL)
    (folder / "systemctl").chmod(0o755)
    log = tmp_path / "systemctl.log"
    return folder, log


def adhoc(tmp_path, fake, args, **env):
    folder, log = fake
    environ = ansible_run.environment(tmp_path, PATH="%s:%s" % (folder, os.environ["PATH"]), LOG=str(log), **env)
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate.kubelet_service",
            "-a", json.dumps(args), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=environ, capture_output=True, text=True, timeout=120, check=False)
    result = json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"][0]["hosts"]["localhost"]
    calls = log.read_text().splitlines() if log.exists() else []
    return result, calls


@pytest.mark.parametrize("service, message", [
    ("*", "service '*' is a unit pattern (it has '*'): systemctl would stop or start every unit it matches; "),
    ("-H root@10.0.0.1", "service '-H root@10.0.0.1' starts with '-': systemctl would take it for an option; "),
])
def test_a_pattern_or_an_option_never_reaches_systemctl(tmp_path, fake, service, message):
    result, calls = adhoc(tmp_path, fake, {"state": "stopped", "service": service})
    assert result["msg"] == message + "give one unit name, such as kubelet or kubelet.service; nothing was changed"
    assert calls == []


def test_a_unit_goes_after_double_dash(tmp_path, fake):
    result, calls = adhoc(tmp_path, fake, {"state": "stopped", "service": "kubelet.service"})
    assert result["changed"] is True, json.dumps(result)
    assert calls == ["show --property LoadState,ActiveState -- kubelet.service", "stop -- kubelet.service",
                     "show --property LoadState,ActiveState -- kubelet.service"]


def test_a_systemctl_that_hangs_is_killed_at_the_timeout(tmp_path, fake):
    started = time.monotonic()
    result, calls = adhoc(tmp_path, fake, {"state": "stopped", "timeout": 2}, HANG="1")
    assert time.monotonic() - started < 60
    assert result["msg"] == ("stop -- kubelet did not exit within 2s; it was killed (the unit's own job may still be going on: read it "
                             "with systemctl status); nothing else was run")
    assert calls[1] == "stop -- kubelet"
    pid = int((fake[1].parent / "systemctl.log.pid").read_text())
    assert not os.path.exists("/proc/%d" % pid) or open("/proc/%d/stat" % pid).read().split()[2] == "Z"


def test_kubelet_baseline_reads_no_unit_by_an_option_either(tmp_path, fake):
    folder, log = fake
    args = {"kubelet_service": "-H root@10.0.0.1", "state_dir": str(tmp_path / "state")}
    environ = ansible_run.environment(tmp_path, PATH="%s:%s" % (folder, os.environ["PATH"]), LOG=str(log))
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate.kubelet_baseline",
            "-a", json.dumps(args), "--check", "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=environ, capture_output=True, text=True, timeout=120, check=False)
    result = json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"][0]["hosts"]["localhost"]
    assert result["msg"] == ("service '-H root@10.0.0.1' starts with '-': systemctl would take it for an option; give one unit name, "
                             "such as kubelet or kubelet.service; nothing was changed")
    assert not log.exists() and not (tmp_path / "state").exists()
