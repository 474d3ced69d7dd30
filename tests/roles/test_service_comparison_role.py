"""The service_comparison role through real ansible-playbook on localhost: two test services (baseline, canary) on 127.0.0.1,
tests/roles/service_load_generator.py as the operator's controller command, three repetitions per side.

Each service is tests/prometheus/vllm_like_service.py (prometheus-client, vLLM's names and buckets, seeded); the load
generator's POST to the side's load endpoint makes that service observe the requests, so each window's content is known:
40 requests per warmup, 300 per measured part, the canary's inter-token latency 10 % lower.
"""

import http.server
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from ansible_collections.gpusmith.numa_gate.tests.prometheus.vllm_like_service import Service
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

GENERATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "service_load_generator.py")
IMAGES = {"server": "docker.io/vllm/vllm-openai@sha256:" + "a" * 64}
PROFILES = {"baseline": {"itl_median": 0.03}, "canary": {"itl_median": 0.027}}
OBJECTIVES = [{"metric": "ttft", "quantile": 0.95, "at_most": 2.0}, {"metric": "itl", "quantile": 0.95, "relative": 0.05},
              {"metric": "error_ratio", "at_most": 0.01}]
PLAY = """- hosts: localhost
  gather_facts: false
  roles:
    - role: gpusmith.numa_gate.service_comparison
  post_tasks:
    - name: Keep the result
      ansible.builtin.copy:
        content: "{{ service_comparison_result | to_json }}"
        dest: "{{ result_path }}"
        mode: "0600"
"""


class Services:
    """The two services and one load endpoint (POST /<side> {"requests": n}) on 127.0.0.1."""

    def __init__(self):
        self.services = {"baseline": Service(seed=19), "canary": Service(seed=20)}
        services = self.services

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                side = self.path.strip("/")
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                services[side].observe(body["requests"], **PROFILES[side])
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def side(self, side):
        return {"target_url": "http://127.0.0.1:%d/%s" % (self.server.server_address[1], side),
                "metrics_url": "http://127.0.0.1:%d/metrics" % self.services[side].port,
                "identity": {"images": IMAGES, "model": "test-model", "runtime": "vllm 0.12.0"}}

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        for service in self.services.values():
            service.close()


@pytest.fixture(name="services")
def fixture_services():
    services = Services()
    try:
        yield services
    finally:
        services.close()


def command(*extra):
    return [sys.executable, GENERATOR, "--target", "{target_url}", "--side", "{side}", "--repetition", "{repetition}",
            "--requests", "{requests}", "--seconds", "{seconds}", "--result", "{result_file}"] + list(extra)


def play(tmp_path, services, **variables):
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY)
    given = dict({"service_comparison_baseline": services.side("baseline"), "service_comparison_canary": services.side("canary"),
                  "service_comparison_command": command(), "service_comparison_repetitions": 3,
                  "service_comparison_load": {"requests": 300, "seconds": 0.5, "max_concurrency": 16},
                  "service_comparison_objectives": OBJECTIVES, "service_comparison_settings": {"max_rate_difference": 0.5},
                  "service_comparison_result_dir": str(tmp_path / "results"), "result_path": str(tmp_path / "result.json")}, **variables)
    (tmp_path / "results").mkdir()
    (tmp_path / "vars.json").write_text(json.dumps(given))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook),
            "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=120,
                          check=False)
    return done, json.loads(done.stdout[done.stdout.index("{"):])


def test_three_interleaved_repetitions_with_warmups(tmp_path, services):
    warmup = [sys.executable, GENERATOR, "--target", "{target_url}", "--side", "{side}", "--repetition", "{repetition}", "--requests", "40"]
    done, output = play(tmp_path, services, service_comparison_warmup_command=warmup)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    result = json.loads((tmp_path / "result.json").read_text())
    runs = result["runs"]
    # A B A B A B, by the recorded times: each measured part after its warmup, each window after the one before.
    assert [(run["side"], run["repetition"]) for run in sorted(runs, key=lambda run: run["start"])] == [
        ("baseline", 1), ("canary", 1), ("baseline", 2), ("canary", 2), ("baseline", 3), ("canary", 3)]
    assert [run["window"] for run in runs] == [1, 2, 3, 4, 5, 6]
    for before, after in zip(runs, runs[1:]):
        assert before["end"] <= after["warmup"]["start"]
    for run in runs:
        assert run["warmup"]["start"] <= run["warmup"]["load_start"] <= run["warmup"]["load_end"] <= run["warmup"]["end"] <= run["start"]
        assert run["start"] <= run["load_start"] <= run["load_end"] <= run["end"]
        assert (run["exit_status"], run["outcome"], run["stopped"], run["warmup"]["exit_status"]) == (0, "exit status 0", False, 0)
        assert run["load"] == {"requests": 300, "seconds": 0.5, "max_concurrency": 16}
        assert run["identity"]["images"] == IMAGES and run["source"] == "scrape"
    # The exact argv, placeholders filled in from the side, the repetition, the load settings and the result file.
    first = runs[1]
    result_file = str(tmp_path / "results" / "02-canary-1-measure.json")
    assert first["argv"] == [sys.executable, GENERATOR, "--target", services.side("canary")["target_url"], "--side", "canary",
                             "--repetition", "1", "--requests", "300", "--seconds", "0.5", "--result", result_file]
    assert first["warmup"]["argv"] == [sys.executable, GENERATOR, "--target", services.side("canary")["target_url"], "--side", "canary",
                                       "--repetition", "1", "--requests", "40"]
    assert (first["result_file"], first["warmup"]["result_file"]) == (result_file, None)
    # The load generator's own result, kept beside the histograms (its counts and *_ms percentiles, nothing else).
    written = json.loads((tmp_path / "results" / "02-canary-1-measure.json").read_text())
    assert first["client"] == {key: written[key] for key in ("completed", "duration", "failed", "max_concurrency", "mean_ttft_ms", "num_prompts",
                                                             "p99_ttft_ms", "request_rate")}
    assert (written["completed"], written["mean_ttft_ms"]) == (300, 210.5)
    # Warmups excluded: 300 observations per window, not 340; the warmups were compared as warmups only.
    ttft = result["table"]["latency"]["ttft"]
    assert ttft["observations"] == {"baseline": [300.0, 300.0, 300.0], "canary": [300.0, 300.0, 300.0]}
    assert result["table"]["latency"]["itl"]["observations"] == {"baseline": [3000.0] * 3, "canary": [3000.0] * 3}
    assert (result["warmups_excluded"], result["repetitions"], result["refusals"]) == (6, {"baseline": 3, "canary": 3}, [])
    assert result["state"] == "held"
    assert result["reasons"] == [
        "p95 ttft <= 2 s: canary held: worst repetition 0.85 (median 0.74)",
        "p95 itl not worse than baseline by more than 5% beyond the spread: canary lower by 0.00320083 s (4.5% of the baseline median) "
        "beyond the run-to-run spread; allowed 0.00356563 beyond the spread",
        "error ratio <= 0.01: canary held: worst repetition 0 (median 0)"]
    assert output["stats"]["localhost"]["failures"] == 0


def _running(pid, seconds=2.0):
    """Whether ``pid`` still runs ``seconds`` after the kill (a zombie or no process: not running)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state == "Z":
            return False
        if time.monotonic() > deadline:
            return True
        time.sleep(0.02)


def test_a_failed_load_run_fails_naming_it_and_leaves_nothing_running(tmp_path, services):
    pid_file = str(tmp_path / "child.pid")
    done, output = play(tmp_path, services, service_comparison_command=command("--fail-at", "canary-1", "--child-pid", pid_file))
    assert done.returncode == 2
    failed = [task["hosts"]["localhost"] for play_ in output["plays"] for task in play_["tasks"]
              if task["hosts"].get("localhost", {}).get("failed")]
    target = services.side("canary")["target_url"]
    argv = [sys.executable, GENERATOR, "--target", target, "--side", "canary", "--repetition", "1", "--requests", "300", "--seconds", "0.5",
            "--result", str(tmp_path / "results" / "02-canary-1-measure.json"), "--fail-at", "canary-1", "--child-pid", pid_file]
    assert [entry["msg"] for entry in failed] == [
        "the load generator failed for canary repetition 1 (window 2, the measured part): exit status 3; argv %s; stderr tail: "
        "load generator: %s answered 503 Service Unavailable" % (argv, target)]
    assert (failed[0]["exit_status"], failed[0]["argv"]) == (3, argv)
    # The child it left in its process group was killed with it; the baseline window before it ran, nothing after it.
    assert not _running(int(open(pid_file, encoding="utf-8").read()))
    assert sorted(os.listdir(str(tmp_path / "results"))) == ["01-baseline-1-measure.json"]
    assert not (tmp_path / "result.json").exists()
