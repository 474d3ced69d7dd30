# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""batch/v1 Jobs in the API server double (apiserver/jobs.py), checked with the real kubectl: create, get, wait for
Complete or Failed, the pod log, and delete with each propagation policy."""

import json
import re

import pytest

from apiserver import jobs
from apiserver.server import ApiServerDouble

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: load
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
      - name: bench
        image: registry.example/vllm/vllm-openai@sha256:0123
        command: [vllm, bench, serve]
"""


@pytest.fixture(name="api")
def fixture_api():
    """The double with its controllers (the Job controller and garbage collector) and one Ready node."""
    double = ApiServerDouble(controllers=True).start()
    double.add_node("node-1")
    try:
        yield double
    finally:
        double.stop()


def _create(kubectl, tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(JOB)
    return kubectl("create", "--validate=false", "-f", str(path))  # the double serves no OpenAPI schema


def _pod(api):
    assert jobs.sleep_until(lambda: [p for p in api.store.list("pods")[0] if p["metadata"]["name"].startswith("load-")])
    return [p for p in api.store.list("pods")[0] if p["metadata"]["name"].startswith("load-")][0]


def _stable(text):
    return re.sub(r"\b\d+s\b", "Ns", text)


def test_a_created_job_gets_its_selector_labels_and_one_pod_on_a_node(api, kubectl, tmp_path):
    result = _create(kubectl, tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "job.batch/load created\n", "")
    job = api.job("load")
    uid = job["metadata"]["uid"]
    assert job["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert job["spec"]["template"]["metadata"]["labels"] == {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "load",
                                                             "controller-uid": uid, "job-name": "load"}
    assert (job["spec"]["completions"], job["spec"]["parallelism"], job["spec"]["backoffLimit"]) == (1, 1, 0)
    pod = _pod(api)
    assert re.fullmatch(r"load-[bcdfghjklmnpqrstvwxz2456789]{5}", pod["metadata"]["name"])
    assert pod["metadata"]["labels"] == job["spec"]["template"]["metadata"]["labels"]
    assert pod["metadata"]["ownerReferences"] == [{"apiVersion": "batch/v1", "kind": "Job", "name": "load", "uid": uid, "controller": True,
                                                   "blockOwnerDeletion": True}]
    placed = (pod["spec"]["nodeName"], pod["status"]["phase"], pod["spec"]["containers"][0]["command"])
    assert placed == ("node-1", "Running", ["vllm", "bench", "serve"])
    assert jobs.sleep_until(lambda: (api.job("load")["status"].get("active"), api.job("load")["status"].get("ready")) == (1, 1))
    result = kubectl("get", "jobs")
    assert (result.returncode, result.stderr) == (0, "")
    assert _stable(result.stdout) == ("NAME   STATUS    COMPLETIONS   DURATION   AGE\n"
                                      "load   Running   0/1           Ns         Ns\n")
    listed = kubectl("get", "pods", "-l", "job-name=load", "-o", "name")
    assert listed.stdout == "pod/%s\n" % pod["metadata"]["name"]


def test_kubectl_wait_sees_complete_and_the_pod_log_is_served(api, kubectl, tmp_path):
    _create(kubectl, tmp_path)
    pod = _pod(api)
    api.finish_job("load", succeeded=True, log="line 1\nline 2\nline 3\n")
    result = kubectl("wait", "--for=condition=Complete", "job/load", "--timeout=10s")
    assert (result.returncode, result.stdout, result.stderr) == (0, "job.batch/load condition met\n", "")
    status = api.job("load")["status"]
    assert [(c["type"], c["reason"], c["message"]) for c in status["conditions"]] == [
        ("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"),
        ("Complete", "CompletionsReached", "Reached expected number of succeeded pods")]
    assert (status["succeeded"], "active" in status, status["ready"]) == (1, False, 0)
    assert api.pod(pod["metadata"]["name"])["status"]["phase"] == "Succeeded"
    assert _stable(kubectl("get", "job", "load").stdout).splitlines()[1].split()[:3] == ["load", "Complete", "1/1"]
    logs = kubectl("logs", pod["metadata"]["name"], "--tail=2")
    assert (logs.returncode, logs.stdout, logs.stderr) == (0, "line 2\nline 3\n", "")


def test_a_failed_pod_past_the_backoff_limit_fails_the_job(api, kubectl, tmp_path):
    _create(kubectl, tmp_path)
    _pod(api)
    api.finish_job("load", succeeded=False, log="connection refused\n")
    result = kubectl("wait", "--for=condition=Failed", "job/load", "--timeout=10s")
    assert (result.returncode, result.stdout) == (0, "job.batch/load condition met\n")
    status = api.job("load")["status"]
    assert [(c["type"], c["reason"], c["message"]) for c in status["conditions"]] == [
        ("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"),
        ("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit")]
    assert status["failed"] == 1
    assert len(api.store.list("pods")[0]) == 1


def test_kubectl_delete_removes_the_job_and_its_pods_in_the_background(api, kubectl, tmp_path):
    _create(kubectl, tmp_path)
    pod = _pod(api)["metadata"]["name"]
    result = kubectl("delete", "job", "load")
    assert (result.returncode, result.stdout, result.stderr) == (0, 'job.batch "load" deleted from default namespace\n', "")
    assert ("DELETE", "/apis/batch/v1/namespaces/default/jobs/load") in api.requests
    assert api.job("load") is None
    assert jobs.sleep_until(lambda: api.pod(pod) is None, timeout=5)


def test_foreground_keeps_the_job_until_its_pods_are_gone_and_orphan_keeps_the_pods(api, kubectl, tmp_path):
    _create(kubectl, tmp_path)
    pod = _pod(api)["metadata"]["name"]
    result = kubectl("delete", "job", "load", "--cascade=foreground", "--wait=false")
    assert (result.returncode, result.stderr) == (0, "")
    job = api.job("load")
    assert job is None or (job["metadata"]["finalizers"] == ["foregroundDeletion"] and "deletionTimestamp" in job["metadata"])
    assert jobs.sleep_until(lambda: api.job("load") is None and api.pod(pod) is None, timeout=5)
    _create(kubectl, tmp_path)
    pod = _pod(api)["metadata"]["name"]
    result = kubectl("delete", "job", "load", "--cascade=orphan")
    assert (result.returncode, result.stderr) == (0, "")
    assert jobs.sleep_until(lambda: api.job("load") is None)
    assert api.pod(pod)["metadata"].get("ownerReferences") == []


def test_a_delete_without_a_policy_orphans_and_warns_as_batch_v1_does(api, tmp_path):
    api.store.create("jobs", jobs.prepare_create({"metadata": {"name": "plain", "namespace": "default"}, "spec": {"template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}))
    import http.client  # pylint: disable=import-outside-toplevel
    connection = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
    connection.request("DELETE", "/apis/batch/v1/namespaces/default/jobs/plain")
    answer = connection.getresponse()
    body = json.loads(answer.read())
    assert answer.status == 200
    assert answer.getheader("Warning") == '299 - "%s"' % jobs.DELETE_WARNING
    assert body["metadata"]["finalizers"] == ["orphan"]
    connection.request("DELETE", "/apis/batch/v1/namespaces/default/jobs/plain?propagationPolicy=Sideways")
    answer = connection.getresponse()
    assert (answer.status, json.loads(answer.read())["message"]) == (400, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: '
                                                                          'Unsupported value: "Sideways": supported values: "Foreground", '
                                                                          '"Background", "Orphan"')
