# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deployments and StatefulSets through the double's controllers (workloads.py), checked with the real kubectl: the
ReplicaSet and pod names, ownerReferences and replicas, pods pinned by nodeSelector, a pod no node takes (FailedScheduling),
the garbage collector, and .spec.resources dropped on create when the PodLevelResources gate is off."""

import json
import re
import time

import pytest

from apiserver import jobs, workloads
from apiserver.server import ApiServerDouble

TEMPLATE = {"metadata": {"labels": {"app": "smoke"}},
            "spec": {"nodeSelector": {"kubernetes.io/hostname": "gpu-1"}, "terminationGracePeriodSeconds": 0,
                     "resources": {"requests": {"cpu": "4", "memory": "4Gi"}, "limits": {"cpu": "4", "memory": "4Gi"}},
                     "containers": [{"name": "main", "image": "cuda-smoke:1",
                                     "resources": {"requests": {"cpu": "2", "memory": "2Gi"},
                                                   "limits": {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "1"}}}]}}


def manifest(kind, name, replicas, template=None):
    spec = {"replicas": replicas, "selector": {"matchLabels": {"app": "smoke"}}, "template": template or TEMPLATE}
    if kind == "StatefulSet":
        spec["serviceName"] = "smoke"
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": "default"}, "spec": spec}


@pytest.fixture(name="api")
def fixture_api():
    """The double with its controllers and two Ready nodes: gpu-1 with two GPUs, cpu-1 with none."""
    double = ApiServerDouble(controllers=True).start()
    double.add_node("gpu-1", labels={"kubernetes.io/hostname": "gpu-1"}, capacity={"nvidia.com/gpu": "2"})
    double.add_node("cpu-1", labels={"kubernetes.io/hostname": "cpu-1"})
    try:
        yield double
    finally:
        double.stop()


def _apply(kubectl, tmp_path, obj):
    path = tmp_path / ("%s.json" % obj["metadata"]["name"])
    path.write_text(json.dumps(obj))
    return kubectl("create", "--validate=false", "-f", str(path))  # the double serves no OpenAPI schema


def _pods(api):
    return sorted(api.store.list("pods")[0], key=lambda p: p["metadata"]["name"])


def test_a_deployment_makes_one_replicaset_and_its_pods_on_the_selected_node(api, kubectl, tmp_path):
    done = _apply(kubectl, tmp_path, manifest("Deployment", "smoke", 2))
    assert (done.returncode, done.stdout) == (0, "deployment.apps/smoke created\n"), done.stderr
    assert jobs.sleep_until(lambda: len(_pods(api)) == 2)
    [replicaset] = api.store.list("replicasets")[0]
    deployment = api.store.get("deployments", "default", "smoke")
    pod_hash = workloads.template_hash(TEMPLATE)
    assert re.fullmatch(r"[bcdfghjklmnpqrstvwxz2456789]{6,10}", pod_hash)
    assert replicaset["metadata"]["name"] == "smoke-" + pod_hash
    assert replicaset["metadata"]["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "smoke",
                                                          "uid": deployment["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
    assert (replicaset["spec"]["replicas"], replicaset["spec"]["selector"]) == (2, {"matchLabels": {"app": "smoke", "pod-template-hash": pod_hash}})
    for pod in _pods(api):
        assert re.fullmatch("smoke-%s-[bcdfghjklmnpqrstvwxz2456789]{5}" % pod_hash, pod["metadata"]["name"])
        assert pod["metadata"]["generateName"] == "smoke-%s-" % pod_hash
        assert pod["metadata"]["labels"] == {"app": "smoke", "pod-template-hash": pod_hash}
        assert pod["metadata"]["ownerReferences"][0]["uid"] == replicaset["metadata"]["uid"]
        assert (pod["spec"]["nodeName"], pod["status"]["phase"], pod["status"]["qosClass"]) == ("gpu-1", "Running", "Guaranteed")
        assert pod["spec"]["resources"] == TEMPLATE["spec"]["resources"]  # the gate is on: kept
    got = kubectl("get", "deployment", "smoke", "-o", "json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["status"] == {"observedGeneration": 1, "replicas": 2, "readyReplicas": 2, "availableReplicas": 2,
                                                "updatedReplicas": 2}
    gone = kubectl("delete", "deployment", "smoke")
    assert (gone.returncode, gone.stdout) == (0, 'deployment.apps "smoke" deleted from default namespace\n'), gone.stderr
    assert jobs.sleep_until(lambda: not _pods(api) and not api.store.list("replicasets")[0])


def test_a_statefulset_makes_ordinal_pods_one_at_a_time(api, kubectl, tmp_path):
    done = _apply(kubectl, tmp_path, manifest("StatefulSet", "db", 2))
    assert (done.returncode, done.stdout) == (0, "statefulset.apps/db created\n"), done.stderr
    assert jobs.sleep_until(lambda: len(_pods(api)) == 2)
    statefulset = api.store.get("statefulsets", "default", "db")
    revision = "db-" + workloads.template_hash(TEMPLATE)
    assert [(p["metadata"]["name"], p["metadata"]["labels"], p["spec"]["hostname"], p["spec"]["subdomain"]) for p in _pods(api)] == [
        ("db-0", {"app": "smoke", workloads.POD_NAME: "db-0", workloads.POD_INDEX: "0", workloads.REVISION: revision}, "db-0", "smoke"),
        ("db-1", {"app": "smoke", workloads.POD_NAME: "db-1", workloads.POD_INDEX: "1", workloads.REVISION: revision}, "db-1", "smoke")]
    assert {p["metadata"]["ownerReferences"][0]["uid"] for p in _pods(api)} == {statefulset["metadata"]["uid"]}
    assert statefulset["spec"]["podManagementPolicy"] == "OrderedReady"
    gone = kubectl("delete", "statefulset", "db")
    assert (gone.returncode, gone.stdout) == (0, 'statefulset.apps "db" deleted from default namespace\n'), gone.stderr
    assert jobs.sleep_until(lambda: not _pods(api))


def test_pod_level_resources_are_dropped_on_create_when_the_gate_is_off(api, kubectl, tmp_path):
    api.feature_gates[workloads.GATE] = ("BETA", False)
    done = _apply(kubectl, tmp_path, manifest("Deployment", "smoke", 1))
    assert done.returncode == 0 and done.stderr == ""  # silently: no warning
    assert "resources" not in api.store.get("deployments", "default", "smoke")["spec"]["template"]["spec"]
    assert jobs.sleep_until(lambda: len(_pods(api)) == 1)
    [pod] = _pods(api)
    assert "resources" not in pod["spec"]
    assert pod["spec"]["containers"][0]["resources"] == TEMPLATE["spec"]["containers"][0]["resources"]  # the containers' own are kept
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare", "namespace": "default"}, "spec": TEMPLATE["spec"]}
    assert _apply(kubectl, tmp_path, bare).returncode == 0
    assert "resources" not in api.store.get("pods", "default", "bare")["spec"]


def test_a_pod_no_node_takes_stays_pending_with_the_schedulers_event(api, kubectl, tmp_path):
    template = json.loads(json.dumps(TEMPLATE))
    template["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "3"
    assert _apply(kubectl, tmp_path, manifest("Deployment", "greedy", 1, template)).returncode == 0
    assert jobs.sleep_until(lambda: api.store.list("events")[0])
    [pod] = _pods(api)
    message = ("0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 "
               "nodes are available: 2 Preemption is not helpful for scheduling.")
    assert (pod["status"]["phase"], pod["status"]["conditions"][0]["reason"], pod["status"]["conditions"][0]["message"]) == (
        "Pending", "Unschedulable", message)
    [event] = api.store.list("events")[0]
    assert (event["reason"], event["type"], event["source"], event["involvedObject"]["name"], event["message"]) == (
        "FailedScheduling", "Warning", {"component": "default-scheduler"}, pod["metadata"]["name"], message)
    got = kubectl("get", "events", "-o", "json")
    assert [e["reason"] for e in json.loads(got.stdout)["items"]] == ["FailedScheduling"]


def test_a_pod_the_kubelet_rejected_is_replaced_by_its_replicaset_and_kept(api, kubectl, tmp_path):
    """replica_set.go manageReplicas counts only active pods (controller_utils.go FilterActivePods): a Failed pod gets a replacement
    at once and stays (kubernetes#84869); on a node a kubelet stand-in registered, the new pod is bound and left Pending for it."""
    api.add_node("n1", labels={"kubernetes.io/hostname": "n1"})
    node = api.store.get("nodes", "", "n1")
    node["metadata"]["annotations"] = {workloads.STANDIN: "true"}
    api.store.update("nodes", node, check_version=False)
    template = dict(TEMPLATE, spec=dict(TEMPLATE["spec"], nodeSelector={"kubernetes.io/hostname": "n1"}, containers=[
        {"name": "main", "image": "cuda-smoke:1", "resources": {"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}}}]))
    done = _apply(kubectl, tmp_path, manifest("Deployment", "probe", 1, template))
    assert done.returncode == 0, done.stderr
    assert jobs.sleep_until(lambda: len(_pods(api)) == 1)
    [first] = _pods(api)
    assert (first["spec"]["nodeName"], first["status"]["phase"], [c["type"] for c in first["status"]["conditions"]]) == ("n1", "Pending", ["PodScheduled"])
    # What the kubelet's rejectPod writes (the stand-in's status patch): phase Failed, its reason and message.
    first["status"] = {"phase": "Failed", "reason": "TopologyAffinityError", "message": "Pod was rejected: x", "qosClass": "Guaranteed"}
    api.store.update("pods", first, check_version=False)
    assert jobs.sleep_until(lambda: len(_pods(api)) == 2)
    time.sleep(0.5)  # the controller has seen its own create: still one replacement for one failed pod, no more
    [second] = [p for p in _pods(api) if p["metadata"]["uid"] != first["metadata"]["uid"]]
    listed = kubectl("get", "pods", "-o", "jsonpath={range .items[*]}{.metadata.name} {.status.phase}{\"\\n\"}{end}")
    assert sorted(listed.stdout.splitlines()) == sorted(["%s Failed" % first["metadata"]["name"], "%s Pending" % second["metadata"]["name"]])
    assert second["metadata"]["generateName"] == first["metadata"]["generateName"] == "probe-%s-" % workloads.template_hash(template)
