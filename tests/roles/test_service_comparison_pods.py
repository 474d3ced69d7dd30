# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The service_comparison role on the workload's own pods, then the acceptance record, through real ansible-playbook on localhost.

The pods are in the API server TEST DOUBLE (tests/doubles/apiserver): one baseline and one canary pod of the workload,
their pod proxy (port 8000) sent to two test services on 127.0.0.1 (tests/prometheus/vllm_like_service.py) standing in
for the pods' servers, so every window is read through ``/api/v1/namespaces/serving/pods/<name>:8000/proxy/metrics``.
Each pod has a REAL cgroup on this machine's cgroup mounts (a kubelet-shaped tree under a unique --cgroup-root, the
Guaranteed layout ``kubepods/pod<uid>/<container id>``), its container's CPU set one CPU, and a REAL process burning CPU
in that container cgroup; placement_info reads the container cgroups' usage counters at the start and the end of every
measured part, and the record's reservation slack is computed from those counters, nothing typed in.
"""

import http.server
import json
import os
import subprocess
import sys
import threading
import uuid
from fractions import Fraction

import pytest

from ansible_collections.gpusmith.numa_gate.tests.prometheus.vllm_like_service import Service
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._evidence.placement.evidence_procs import KubeletCgroups

if os.path.join(ansible_run.REPO, "tests", "doubles") not in sys.path:
    sys.path.insert(0, os.path.join(ansible_run.REPO, "tests", "doubles"))

from apiserver import server  # noqa: E402 pylint: disable=wrong-import-position,import-error

GENERATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "service_load_generator.py")
IMAGES = {"server": "docker.io/vllm/vllm-openai@sha256:" + "a" * 64}
PROFILES = {"baseline": {"itl_median": 0.03}, "canary": {"itl_median": 0.027}}
ONLINE = sorted(os.sched_getaffinity(0))
BURN = "import sys\nsys.stdin.readline()\nwhile True:\n    pass\n"
PLAY = """- hosts: localhost
  gather_facts: false
  roles:
    - role: gpusmith.numa_gate.service_comparison
    - role: gpusmith.numa_gate.acceptance_record
  post_tasks:
    - name: Keep the result
      ansible.builtin.copy:
        content: "{{ {'result': service_comparison_result, 'slack': service_comparison_slack} | to_json }}"
        dest: "{{ result_path }}"
        mode: "0600"
"""


class Workload:
    """The two pods: API objects in the double, their servers, their real cgroups and burning processes."""

    def __init__(self, double, tree):
        self.double, self.tree = double, tree
        self.services, self.pods, self.burners, self.cgroups = {}, {}, [], {}
        double.add_node("node-1")
        tree.make("kubepods", "0-%d" % ONLINE[-1], "0")
        for side, seed in (("baseline", 19), ("canary", 20)):
            pod = double.add_pod("%s-0" % side, "node-1", namespace="serving")
            uid = pod["metadata"]["uid"]
            self.services[side] = Service(seed=seed)
            double.register_pod_endpoint("serving", "%s-0" % side, 8000, "http://127.0.0.1:%d" % self.services[side].port)
            cpu = str(ONLINE[0] if side == "baseline" else ONLINE[-1])
            tree.make("kubepods/pod%s" % uid, cpu, "0")
            container = tree.make("kubepods/pod%s/%s" % (uid, ("b" if side == "baseline" else "c") * 64), cpu, "0")
            burner = subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.PIPE, text=True)  # pylint: disable=consider-using-with
            self.burners.append(burner)
            tree.enter(container, burner.pid)
            burner.stdin.write("go\n")
            burner.stdin.flush()
            self.pods[side] = {"pod": "serving/%s-0" % side, "uid": uid, "node": "node-1"}
            self.cgroups[side] = (container, cpu)
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

        self.load = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.load.serve_forever, daemon=True).start()

    def side(self, side):
        return {"target_url": "http://127.0.0.1:%d/%s" % (self.load.server_address[1], side), "pods": [self.pods[side]], "metrics_port": 8000,
                "cgroup_root": "/" + self.tree.prefix, "identity": {"images": IMAGES, "model": "test-model", "runtime": "vllm 0.12.0"}}

    def close(self):
        for burner in self.burners:
            burner.kill()
            burner.wait()
        self.load.shutdown()
        self.load.server_close()
        for service in self.services.values():
            service.close()


@pytest.fixture(name="workload")
def fixture_workload():
    tree = KubeletCgroups("numa-gate-service-%s" % uuid.uuid4().hex[:8])
    if tree.version != 1:
        pytest.skip("this machine has cgroup v2; this test was written against this machine's v1 cpuset and cpuacct")
    double = server.ApiServerDouble().start()
    workload = None
    try:
        workload = Workload(double, tree)
        yield workload
    finally:
        if workload is not None:
            workload.close()
        double.stop()
        tree.remove()


def _use(samples):
    return Fraction(samples["second"]["usage_ns"] - samples["first"]["usage_ns"], samples["second"]["monotonic_ns"] - samples["first"]["monotonic_ns"])


def test_windows_on_the_pods_through_the_pod_proxy_and_the_slack_from_measured_cpu_use(tmp_path, workload):
    playbook = tmp_path / "play.yml"
    playbook.write_text(PLAY)
    (tmp_path / "results").mkdir()
    # The reads' path and the slack are under test, not the load's steadiness: on a busy 2-core CI machine one run's offered rate
    # strayed more than 50 % from the median (the run is then refused and there is no table), so the rate check is wide here.
    given = {"service_comparison_baseline": workload.side("baseline"), "service_comparison_canary": workload.side("canary"),
             "service_comparison_command": [sys.executable, GENERATOR, "--target", "{target_url}", "--requests", "{requests}",
                                            "--seconds", "{seconds}", "--result", "{result_file}"],
             "service_comparison_load": {"requests": 300, "seconds": 1.0}, "service_comparison_repetitions": 3,
             "service_comparison_objectives": [{"metric": "ttft", "quantile": 0.95, "at_most": 2.0}],
             "service_comparison_settings": {"max_rate_difference": 10.0}, "service_comparison_result_dir": str(tmp_path / "results"),
             "numa_gate_kubeconfig": workload.double.write_kubeconfig(tmp_path / "kubeconfig"),
             "numa_gate_artifacts_dir": str(tmp_path / "artifacts"), "acceptance_record_generated_at": "2026-12-05T00:00:00Z",
             "result_path": str(tmp_path / "result.json")}
    (tmp_path / "vars.json").write_text(json.dumps(given))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook),
            "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    kept = json.loads((tmp_path / "result.json").read_text())
    result, slack = kept["result"], kept["slack"]
    # Every read went through the pod proxy of the workload's own pods: 2 per window (start, end), 6 windows, none by URL.
    proxied = [path for method, path in workload.double.requests if "/proxy/" in path and method == "GET"]
    assert proxied == ["/api/v1/namespaces/serving/pods/%s-0:8000/proxy/metrics" % side for side in ("baseline", "canary") * 3 for _read in "se"]
    assert [(run["side"], run["pods"]) for run in result["runs"]] == [
        (side, [{"pod": workload.pods[side]["pod"], "uid": workload.pods[side]["uid"]}]) for side in ("baseline", "canary") * 3]
    assert result["table"] is not None, (result["state"], result["reasons"])
    assert result["table"]["latency"]["ttft"]["observations"] == {"baseline": [300.0] * 3, "canary": [300.0] * 3}
    assert result["state"] == "held"
    # The CPU use of each window: the container cgroup's own counter (never the pod's), read at the window's start and end.
    for run in result["runs"]:
        container, cpu = workload.cgroups[run["side"]]
        (cgroup,) = run["cpu"]["cgroups"]
        assert (cgroup["cgroup"], cgroup["cpus"], run["cpu"]["cpus"]) == (container, cpu, cpu)
        assert cgroup["first"]["source"] == cgroup["second"]["source"] == "/sys/fs/cgroup/cpuacct%s/cpuacct.usage" % container
        assert cgroup["second"]["monotonic_ns"] > cgroup["first"]["monotonic_ns"]
    # The slack per side: reserved (one core, one CPU) minus the median of the windows' measured use, recomputed here from the samples.
    assert slack["source"].startswith("measured: each container cgroup's CPU usage counter")
    for side in ("baseline", "canary"):
        runs = [run for run in result["runs"] if run["side"] == side]
        uses = sorted(round(float(_use(run["cpu"]["cgroups"][0])), 6) for run in runs)
        entry = slack[side]
        assert (entry["reserved_cpus"], entry["reserved_physical_cores"], entry["reserved_cpu_equivalents"]) == (workload.cgroups[side][1], 1, 1)
        assert entry["used_cpu_equivalents"] == {"min": uses[0], "median": uses[1], "max": uses[2]}
        assert entry["slack_cpu_equivalents"] == round(1 - uses[1], 6)
        assert [window["window"] for window in entry["windows"]] == [run["window"] for run in runs]
        # A real process burned CPU in the container cgroup through each window: a busy loop on one CPU, which this 2-CPU machine shares
        # with ansible and other work (0.21 to 0.50 of it measured here; an idle cgroup reads below 0.001).
        assert uses[0] > 0.02
    assert slack["comparison"] == {"baseline_slack": slack["baseline"]["slack_cpu_equivalents"], "candidate_slack": slack["canary"]["slack_cpu_equivalents"],
                                   "reduction_physical_cores": 0, "reduction_cpu_equivalents": 0, "unit": "CPU-equivalents (logical-CPU-seconds per second)"}
    # The acceptance record holds that slack, as measured.
    record = json.loads((tmp_path / "artifacts" / "localhost" / "acceptance.json").read_text())
    assert record["slack"] == slack


def test_a_typed_slack_is_refused_by_the_record(tmp_path):
    playbook = tmp_path / "play.yml"
    playbook.write_text("- hosts: localhost\n  gather_facts: false\n  roles:\n    - role: gpusmith.numa_gate.acceptance_record\n")
    (tmp_path / "vars.json").write_text(json.dumps({"acceptance_record_evidence": {"slack": {"baseline_slack": 1.6, "candidate_slack": 0.6}},
                                                    "numa_gate_artifacts_dir": str(tmp_path / "artifacts")}))
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook),
            "-e", "@%s" % (tmp_path / "vars.json"), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 2
    output = json.loads(done.stdout[done.stdout.index("{"):])
    failed = [task["hosts"]["localhost"]["msg"] for play_ in output["plays"] for task in play_["tasks"]
              if task["hosts"].get("localhost", {}).get("failed")]
    assert failed == ["acceptance_record_evidence.slack is refused: the record's reservation slack is computed from the CPU use the "
                      "service_comparison role measured in its windows (service_comparison_slack), never from typed numbers"]
    assert not (tmp_path / "artifacts").exists()
