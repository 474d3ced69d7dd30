# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 29, class 6, through the real ``ansible-playbook``: bad option values (an IPv6 URL without its brackets, NaN and
infinite timeouts and times, a NUL in argv or a path) and hostile answers (a Job status that is a list, metadata that is a
string, Prometheus answers of another shape, JSON nested too deep, conditions and owner uids of the wrong type, PodResources
blocks that are strings, Node and DaemonSet lists of the wrong shape) each end with a message naming the value and the
rule, never "unexpected ..." or a bare KeyError. One play per module, each task a case (ignore_errors); the answers come
from servers on 127.0.0.1, one per case, that end by themselves; the files under the run's folder are the same before and
after (sha256)."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._device_path import device_path_cases
from ansible_collections.gpusmith.numa_gate.tests.unit.tree_state import snapshot

DEEP = b"[" * 5000 + b"]" * 5000
KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
users:
- name: u
  user:
    token: t0ken-not-shown
contexts:
- name: x
  context:
    cluster: c
    user: u
current-context: x
"""


class Answers(object):
    """A server on 127.0.0.1 that answers every request whose path starts with a key of ``routes`` with its value (JSON, or
    bytes as they are), else 404; it ends by itself after ``seconds`` (or at `stop`)."""

    def __init__(self, routes, seconds=90):
        self.routes = routes
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # pylint: disable=invalid-name
                path = self.path.split("?")[0]
                found = [value for prefix, value in owner.routes.items() if path.startswith(prefix)]
                data = b'{"kind": "Status", "code": 404}' if not found else found[0] if isinstance(found[0], bytes) else json.dumps(found[0]).encode()
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_DELETE = do_GET

            def log_message(self, *args):  # pylint: disable=arguments-differ
                del args

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.timeout = 0.2
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.deadline = time.monotonic() + seconds
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while time.monotonic() < self.deadline:
            self.server.handle_request()
        self.server.server_close()

    def stop(self):
        self.deadline = 0
        self.thread.join(5)
        assert not self.thread.is_alive()


@pytest.fixture(name="serve")
def fixture_serve(tmp_path):
    started = []

    def serve(routes):
        answers = Answers(routes)
        started.append(answers)
        path = tmp_path / ("kubeconfig-%d" % len(started))
        path.write_text(KUBECONFIG.format(server=answers.url), encoding="utf-8")
        answers.kubeconfig = str(path)
        return answers

    yield serve
    for answers in started:
        answers.stop()


def play(tmp_path, module, cases):
    """Run one play of ``module`` with one task per case (name: args), each under ignore_errors; {name: msg or the result}."""
    tasks = [{"name": name, "gpusmith.numa_gate." + module: args, "ignore_errors": True} for name, args in cases.items()]
    playbook = tmp_path / "play.yml"
    playbook.write_text(json.dumps([{"hosts": "localhost", "gather_facts": False, "tasks": tasks}]), encoding="utf-8")
    before = snapshot(tmp_path / "files")
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook),
            "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True,
                          timeout=300, check=False)
    assert snapshot(tmp_path / "files") == before
    found = {}
    for task in json.loads(done.stdout[done.stdout.index("{"):])["plays"][0]["tasks"]:
        result = task["hosts"]["localhost"]
        found[task["task"]["name"]] = result["msg"] if result.get("failed") else result
    return found


@pytest.fixture(name="files")
def fixture_files(tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "kept.txt").write_text("kept\n", encoding="utf-8")
    return folder


LOAD = {"side": "baseline", "repetition": 1, "window": 1}
SECONDS = "must be a finite number of seconds above 0, got the number %s"


def test_service_load_options_and_job_answers(tmp_path, files, serve):
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "load", "namespace": "default"}, "spec": {}}
    status_list = serve({"/apis/batch/v1/namespaces/default/jobs": {"status": ["Complete"]}})
    condition_type = serve({"/apis/batch/v1/namespaces/default/jobs": {"status": {"conditions": [{"type": 5, "status": "True"}]}}})
    found = play(tmp_path, "service_load", {
        "NUL in argv": dict(LOAD, argv=["/bin/echo", "a\u0000b"]),
        "NUL in the result file's path": dict(LOAD, argv=["/bin/true"], result_file=str(files / "r\u0000.json")),
        "an infinite timeout": dict(LOAD, argv=["/bin/true"], timeout="inf"),
        "a NaN stop_after": dict(LOAD, argv=["/bin/true"], stop_after="nan"),
        "a Job status that is a list": dict(LOAD, job=job, kubeconfig=status_list.kubeconfig, timeout=10, poll=0.5),
        "a Job condition whose type is a number": dict(LOAD, job=job, kubeconfig=condition_type.kubeconfig, timeout=10, poll=0.5)})
    where = "the Job (GET /apis/batch/v1/namespaces/default/jobs/load)"
    assert found == {
        "NUL in argv": "service_load's argv[1] has a NUL byte at offset 1: argv and paths are C strings, which a NUL would end early; "
                       "nothing was run",
        "NUL in the result file's path": "service_load's result_file has a NUL byte at offset %d: argv and paths are C strings, which a "
                                         "NUL would end early; nothing was run" % (len(str(files)) + 2),
        "an infinite timeout": "service_load's timeout " + SECONDS % "inf",
        "a NaN stop_after": "service_load's stop_after " + SECONDS % "nan",
        "a Job status that is a list": where + ".status must be a Job's status (a mapping), got a list",
        "a Job condition whose type is a number": where + ".status.conditions[0].type must be a string, got the number 5"}


def test_service_window_options_and_prometheus_answers(tmp_path, files, serve):
    del files
    build = {"/api/v1/status/buildinfo": {"status": "success", "data": {"version": "3.5.0"}}}
    text = serve(dict(build, **{"/api/v1/query": {"status": "success", "data": {"resultType": "vector", "result": "x"}}}))
    pair = serve(dict(build, **{"/api/v1/query": {"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}, "value": "2"}]}}}))
    deep = serve(dict(build, **{"/api/v1/query": DEEP}))
    status = serve(dict(build, **{"/api/v1/query": {"status": 5}}))
    window = {"start": 100, "end": 160}
    found = play(tmp_path, "service_window", {
        "an IPv6 host without brackets": dict(window, prometheus_url="http://::1:9090"),
        "an IPv6 URL without its closing bracket": {"metrics_url": "http://[::1:9090/metrics"},
        "a NaN timeout": {"metrics_url": "http://127.0.0.1:9/metrics", "timeout": "nan"},
        "an infinite end": {"prometheus_url": "http://127.0.0.1:9", "start": 100, "end": "inf"},
        "a result that is a string": dict(window, prometheus_url=text.url),
        "a sample value that is no pair": dict(window, prometheus_url=pair.url),
        "an answer nested too deep": dict(window, prometheus_url=deep.url),
        "a status that is a number": dict(window, prometheus_url=status.url)})
    query = "increase(vllm:e2e_request_latency_seconds_bucket[60000ms])"
    assert found == {
        "an IPv6 host without brackets": "service_window's prometheus_url 'http://::1:9090' cannot be read as a URL: Port could not be cast "
                                         "to integer value as ':1:9090' (an IPv6 address is written in brackets, as http://[::1]:9090); "
                                         "nothing was sent",
        "an IPv6 URL without its closing bracket": "service_window's metrics_url 'http://[::1:9090/metrics' cannot be read as a URL: "
                                                   "Invalid IPv6 URL (an IPv6 address is written in brackets, as http://[::1]:9090); "
                                                   "nothing was sent",
        "a NaN timeout": "service_window's timeout " + SECONDS % "nan",
        "an infinite end": "service_window's end must be a finite number of seconds since the epoch (0 or more), got the number inf",
        "a result that is a string": "Prometheus' answer to %s: data.result must be a list, got the string 'x'" % query,
        "a sample value that is no pair": "Prometheus' answer to %s: data.result[0].value must be a [time, value] pair (a number, then "
                                          "the sample as a string such as \"4\" or \"NaN\"), got the string '2'" % query,
        "an answer nested too deep": "Prometheus at %s answered %s with something that is not JSON: nested too deeply to parse (more "
                                     "levels of arrays and objects than the parser's recursion limit)" % (deep.url, query),
        "a status that is a number": "Prometheus at %s answered %s with status 5, neither success nor error (the HTTP API's answer has "
                                     "one of them); not read" % (status.url, query)}


POD = {"metadata": {"name": "c", "namespace": "default", "uid": "u1"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}


def pod(**changes):
    found = json.loads(json.dumps(POD))
    for path, value in changes.items():
        part, key = path.split("__")
        found[part][key] = value
    return found


def test_canary_wait_and_rehearsal_workloads_answers(tmp_path, files, serve):
    del files
    conditions = serve({"/api/v1/namespaces/default/pods/c": pod(status__conditions={"Ready": "True"})})
    owner = serve({"/api/v1/namespaces/default/pods/c": pod(metadata__ownerReferences=[{"kind": "ReplicaSet", "name": "r", "uid": 5}])})
    listed = serve({"/api/v1/namespaces/default/pods": {"items": {"c": POD}}})
    metadata = serve({"/api/v1/pods": {"items": [dict(POD, metadata="c")]}})
    statuses = serve({"/api/v1/pods": {"items": [pod(status__containerStatuses="ready")]}})
    deep = serve({"/api/v1/pods": DEEP})
    canary = {"node": "n1", "namespace": "default", "name": "c", "timeout": 0}
    found = play(tmp_path, "canary_wait", {
        "conditions that are a mapping": dict(canary, kubeconfig=conditions.kubeconfig),
        "an owner uid that is a number": dict(canary, kubeconfig=owner.kubeconfig),
        "a pod list whose items are a mapping": {"node": "n1", "namespace": "default", "selector": {"app": "c"}, "timeout": 0,
                                                 "kubeconfig": listed.kubeconfig},
        "a NaN poll": dict(canary, poll="nan", kubeconfig=owner.kubeconfig)})
    pod_path = "GET %s/api/v1/namespaces/default/pods/c: the answer's "
    assert found == {
        "conditions that are a mapping": pod_path % conditions.url + "status.conditions is an object, expected a list",
        "an owner uid that is a number": pod_path % owner.url + "metadata.ownerReferences[0].uid is a number, expected a string",
        "a pod list whose items are a mapping": "GET /api/v1/namespaces/default/pods?labelSelector=app=c: the answer's items is an object, "
                                                "expected a list",
        "a NaN poll": "timeout must be 0 or more seconds, poll a finite number of seconds above 0 and replicas 1 or more, not 0, nan and 1"}
    found = play(tmp_path, "rehearsal_workloads", {
        "metadata that is a string": {"node": "n1", "kubeconfig": metadata.kubeconfig},
        "container statuses that are a string": {"node": "n1", "kubeconfig": statuses.kubeconfig},
        "a pod list nested too deep": {"node": "n1", "kubeconfig": deep.kubeconfig},
        "an infinite poll": {"node": "n1", "kubeconfig": deep.kubeconfig, "poll": "inf", "before": {"workloads": []}}})
    listing = "GET %s/api/v1/pods?fieldSelector=spec.nodeName%%3Dn1: "
    assert found == {
        "metadata that is a string": listing % metadata.url + "the answer's items[0].metadata is a string, expected an object",
        "container statuses that are a string": listing % statuses.url + "the answer's items[0].status.containerStatuses is a string, "
                                                                         "expected a list",
        "a pod list nested too deep": listing % deep.url + "the answer is not JSON (nested too deeply to parse (more levels of arrays and "
                                                           "objects than the parser's recursion limit)): '%s'" % ("[" * 200),
        "an infinite poll": "timeout must be 0 or more seconds and poll a finite number of seconds above 0, not 300 and inf"}


NODE = {"metadata": {"name": "n1", "labels": {}}, "status": {"nodeInfo": {"kubeletVersion": "v1.37.1", "kernelVersion": "6.8"}}}


def test_stack_info_and_device_path_info_answers(tmp_path, files, serve):
    del files
    node_info = serve({"/api/v1/nodes/n1": dict(NODE, status={"nodeInfo": "v1.37.1"}), "/version": {"gitVersion": "v1.37.1"}})
    daemonsets = serve({"/api/v1/nodes/n1": NODE, "/version": {"gitVersion": "v1.37.1"}, "/apis/apps/v1/deployments": {"items": []},
                        "/apis/apps/v1/daemonsets": {"items": [{"metadata": {"name": "d"}, "spec": {"template": {"spec": {"containers": "x"}}}}]}})
    found = play(tmp_path, "stack_info", {
        "a nodeInfo that is a string": {"node": "n1", "kubeconfig": node_info.kubeconfig},
        "DaemonSets whose containers are a string": {"node": "n1", "workloads": True, "kubeconfig": daemonsets.kubeconfig},
        "an infinite request_timeout": {"node": "n1", "kubeconfig": node_info.kubeconfig, "request_timeout": "inf"},
        "an IPv6 API host without brackets": {"node": "n1", "host": "https://::1:6443", "api_key": "t0ken-not-shown"}})
    errors = {name: sorted({entry["error"] for entry in result["observed"] if entry["error"] and "HTTP 404" not in entry["error"]})
              for name, result in found.items() if isinstance(result, dict)}
    assert errors == {
        "a nodeInfo that is a string": ["GET %s/api/v1/nodes/n1: the answer's status.nodeInfo is a string, expected an object" % node_info.url],
        "DaemonSets whose containers are a string": [
            "GET /apis/apps/v1/daemonsets: the answer's items[0].spec.template.spec.containers is a string, expected a list"]}
    assert found["an infinite request_timeout"] == "request_timeout must be a finite number of seconds above 0, not inf"
    assert found["an IPv6 API host without brackets"] == ("host 'https://::1:6443' is not the API server's URL: Port could not be cast to "
                                                          "integer value as ':1:6443' (an IPv6 address is written in brackets, as "
                                                          "https://[::1]:6443)")
    slices = {"/apis/resource.k8s.io/v1/resourceslices": {"items": []}}
    labels = serve(dict(slices, **{"/api/v1/nodes/gpu-1": {"metadata": {"name": "gpu-1", "labels": ["a"]}}, "/api/v1/pods": {"items": []}}))
    pods = serve(dict(slices, **{"/api/v1/nodes/gpu-1": {"metadata": {"name": "gpu-1"}}, "/api/v1/pods": {"items": ["nvidia-device-plugin"]}}))
    topology = device_path_cases.facts()
    found = play(tmp_path, "device_path_info", {
        "Node labels that are a list": {"node": "gpu-1", "topology": topology, "kubeconfig": labels.kubeconfig},
        "a pod list of strings": {"node": "gpu-1", "topology": topology, "kubeconfig": pods.kubeconfig}})
    assert found == {
        "Node labels that are a list": "GET /api/v1/nodes/gpu-1: the answer's metadata.labels is a list, expected an object",
        "a pod list of strings": "GET /api/v1/pods (gpu_device_plugin pods, app.kubernetes.io/name=nvidia-device-plugin): items[0] must be "
                                 "a pod (a mapping), got the string 'nvidia-device-plugin'"}


ROLLBACK = "20261201T091000Z"


def test_rehearsal_check_info_artifacts_and_kubelet_service_options(tmp_path, files):
    root = files / "root"
    transitions.open_transition(str(root), "/var/lib/numa-gate", "rollback", ROLLBACK)
    path = transitions.journal_path(str(root), "/var/lib/numa-gate", ROLLBACK)
    journal.append(path, "decide", "finished", outcome="ok", changed={"target": "rollback"}, at="2026-12-01T09:10:00Z")
    transitions.close(str(root), "/var/lib/numa-gate", ROLLBACK)
    observed = {"workloads": [], "unowned": [], "observed_at": "2026-12-01T09:10:30Z"}
    found = play(tmp_path, "rehearsal_check", {
        "PodResources pods that are strings": {"root": str(root), "transition": ROLLBACK, "workloads": observed,
                                               "pod_resources": {"reachable": True, "pods": ["web-0"]}},
        "a PodResources memory block that is a string": {"root": str(root), "transition": ROLLBACK, "workloads": observed, "pod_resources": {
            "reachable": True, "pods": [{"name": "web-0", "namespace": "default", "memory": ["memory"]}]}},
        "a NaN waited_s": {"root": str(root), "transition": ROLLBACK, "workloads": dict(observed, waited_s="nan")}})
    assert found == {
        "PodResources pods that are strings": "pod_resources.pods[0] must be a PodResources pod (a mapping), got the string 'web-0'",
        "a PodResources memory block that is a string": "pod_resources.pods[0].memory[0] must be a PodResources memory block (a mapping), "
                                                        "got the string 'memory'",
        "a NaN waited_s": "workloads.waited_s must be a finite number, got the string 'nan'"}
    found = play(tmp_path, "rehearsal_info", {"a node name with a NUL": {"root": str(root), "node": "gpu\u00001"}})
    assert found["a node name with a NUL"].startswith("node 'gpu\\x001' is not valid: a lowercase RFC 1123 subdomain must consist of ")
    found = play(tmp_path, "artifacts", {
        "content that is a number": {"dest": str(files), "files": {"kept.txt": 5}},
        "a file name with a NUL": {"dest": str(files), "files": {"a\u0000b": "x"}}})
    assert found == {"content that is a number": "artifacts: content of kept.txt must be a string, got the number 5",
                     "a file name with a NUL": "artifacts: file name 'a\\x00b' has a control character (U+0000) at offset 1: not a name"}
    found = play(tmp_path, "kubelet_service", {
        "an infinite timeout": {"state": "stopped", "service": "kubelet", "timeout": "inf"},
        "a NUL in the unit": {"state": "stopped", "service": "kube\u0000let"}})
    assert found == {
        "an infinite timeout": "timeout must be a finite number of seconds above 0, not inf",
        "a NUL in the unit": "service 'kube\\x00let' has '\\x00' at offset 4: a unit name has only ASCII letters, digits, ':', '-', '_', '.', "
                             "'\\' and one '@' before an instance (systemd's unit name rules); give one unit name, such as kubelet or "
                             "kubelet.service; nothing was changed"}
