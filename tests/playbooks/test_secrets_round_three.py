# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 29, class 2, through the real ``ansible`` and ``ansible-playbook``: a header value with CR LF is never quoted, a
URL password with an unencoded '/' is masked, the load generator's own output is masked, a result file that is a symlink or
a FIFO is refused (never followed, never blocking), and a host's acceptance.json that is a symlink out of the artifacts
folder is refused by the artifacts_file filter the fleet page reads through. Every run has a timeout; nothing listens."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

SECRET = "s3cr/et-pass"
URL = "http://loaduser:%s@127.0.0.1:9/v1" % SECRET


def adhoc(tmp_path, module, args):
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate." + module,
            "-a", json.dumps(args), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON, "-vvv"]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True,
                          timeout=120, check=False)
    output = done.stdout + done.stderr
    return json.loads(done.stdout[done.stdout.index("\n{") + 1:])["plays"][0]["tasks"][0]["hosts"]["localhost"], output


def test_a_header_value_with_cr_lf_is_named_never_quoted(tmp_path):
    value = "Bearer tok3n-value\r\nX-Injected: 1"
    result, output = adhoc(tmp_path, "service_window", {"metrics_url": "http://127.0.0.1:9/metrics", "headers": {"Authorization": value}})
    assert result["msg"] == ("service_window: header 'Authorization' has a control character (U+000D) at offset 18 of its value (33 characters, "
                             "not shown: it may hold a credential); a CR or LF would end the header and start another (nothing was sent)")
    assert "tok3n-value" not in output


def test_a_header_name_with_a_space_is_refused(tmp_path):
    result, _output = adhoc(tmp_path, "service_window", {"metrics_url": "http://127.0.0.1:9/metrics", "headers": {"X Token": "a"}})
    assert result["msg"] == ("service_window: header name 'X Token' is not an HTTP field name (a token of letters, digits and "
                             "!#$%&'*+-.^_`|~, RFC 9110) (nothing was sent)")


def test_the_load_generators_output_and_failure_are_masked(tmp_path):
    argv = ["/bin/sh", "-c", 'echo "target $1"; echo "password $2" >&2; exit 3', "load", URL, SECRET]
    result, output = adhoc(tmp_path, "service_load", {"side": "baseline", "repetition": 1, "window": 1, "argv": argv, "timeout": 30})
    assert result["failed"] is True
    assert result["msg"] == ("the load generator failed for baseline repetition 1 (window 1, the measured part): exit status 3; argv "
                             "['/bin/sh', '-c', 'echo \"target $1\"; echo \"password $2\" >&2; exit 3', 'load', "
                             "'http://********@127.0.0.1:9/v1', '********']; stderr tail: password ********")
    assert result["stderr_tail"] == "password ********"
    assert SECRET not in output


def test_a_successful_runs_tails_are_masked(tmp_path):
    argv = ["/bin/sh", "-c", 'echo "target $1"; echo "url $1" >&2', "load", URL]
    result, output = adhoc(tmp_path, "service_load", {"side": "canary", "repetition": 2, "window": 4, "argv": argv, "timeout": 30})
    assert (result["outcome"], result["stdout_tail"], result["stderr_tail"]) == (
        "exit status 0", "target http://********@127.0.0.1:9/v1", "url http://********@127.0.0.1:9/v1")
    assert result["argv"][-1] == "http://********@127.0.0.1:9/v1"
    assert SECRET not in json.dumps(result) and SECRET not in output


@pytest.mark.parametrize("make, message", [
    ('ln -s /etc/hostname "$1"', "the result file {0} is a symlink (to /etc/hostname), not the file the load generator writes; "
                                 "not followed, not read"),
    ('mkfifo "$1"', "the result file {0} is a FIFO, not a regular file; not read"),
])
def test_a_result_file_that_is_a_symlink_or_a_fifo_is_refused(tmp_path, make, message):
    path = str(tmp_path / "result.json")
    argv = ["/bin/sh", "-c", make, "load", path]
    args = {"side": "baseline", "repetition": 1, "window": 1, "argv": argv, "timeout": 30, "result_file": path}
    result, _output = adhoc(tmp_path, "service_load", args)
    assert result["msg"] == message.format(path)


PLAY = """
- hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "{{ 'node-b' | gpusmith.numa_gate.artifacts_file(artifacts, 'acceptance.json') }}"
"""


def test_a_symlinked_acceptance_json_is_not_read_for_the_fleet_page(tmp_path):
    artifacts = tmp_path / "artifacts"
    (artifacts / "node-b").mkdir(parents=True)
    outside = tmp_path / "outside.json"
    outside.write_text('{"host": "node-b", "secret": "from outside"}')
    os.symlink(str(outside), str(artifacts / "node-b/acceptance.json"))
    (tmp_path / "play.yml").write_text(PLAY)
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
            "-e", "artifacts=%s" % artifacts, "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode != 0
    assert ("artifacts_file: artifacts: %s/node-b/acceptance.json is a symlink (to %s); not read: a host's artifact is read only from a "
            "file inside its folder" % (artifacts, outside)) in done.stdout
    assert "from outside" not in done.stdout + done.stderr
