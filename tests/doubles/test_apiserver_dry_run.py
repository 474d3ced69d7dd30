# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Server-side dry run on the API server double, driven by the real kubectl: ``--dry-run=server``
cordon, label, delete, create and replace check and answer as a real server does, and change
nothing (no stored change, no resourceVersion used, no watch event)."""

import copy
import json
import urllib.error
import urllib.request


def _state(api):
    """Everything a write could change: the objects, the revision counter, the watch event log."""
    return (copy.deepcopy(api.store.list("nodes")[0]), copy.deepcopy(api.store.list("pods")[0]), api.store.revision, len(api.store.events))


def _raw(api, method, path, body=None, content_type="application/json"):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(api.url + path, data=data, method=method, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_apiserver_dry_run_cordon_label_and_delete_change_nothing(api, kubectl):
    api.add_node("node-1")
    api.add_pod("web-1", "node-1", grace=5)
    before = _state(api)
    cordon = kubectl("cordon", "--dry-run=server", "node/node-1")
    assert (cordon.returncode, cordon.stdout, cordon.stderr) == (0, "node/node-1 cordoned (server dry run)\n", "")
    label = kubectl("label", "--dry-run=server", "node/node-1", "pool=canary")
    assert (label.returncode, label.stdout, label.stderr) == (0, "node/node-1 labeled (server dry run)\n", "")
    delete = kubectl("delete", "pod", "web-1", "--dry-run=server")
    assert (delete.returncode, delete.stdout, delete.stderr) == (0, 'pod "web-1" deleted from default namespace (server dry run)\n', "")
    assert _state(api) == before
    assert ("PATCH", "/api/v1/nodes/node-1?dryRun=All") in api.requests
    assert ("PATCH", "/api/v1/nodes/node-1?dryRun=All&fieldManager=kubectl-label") in api.requests
    assert api.node("node-1")["spec"] == {} and "pool" not in api.node("node-1")["metadata"]["labels"]
    assert "deletionTimestamp" not in api.pod("web-1")["metadata"]
    # The same commands without the dry run do write: the test above can fail.
    assert kubectl("cordon", "node/node-1").returncode == 0
    assert api.node("node-1")["spec"] == {"unschedulable": True}


def test_apiserver_dry_run_still_checks_what_the_real_write_checks(api, kubectl, tmp_path):
    api.add_node("node-1")
    api.add_pod("web-1", "node-1")
    before = _state(api)
    missing = kubectl("cordon", "--dry-run=server", "node/node-9")
    assert (missing.returncode, missing.stderr) == (1, 'Error from server (NotFound): nodes "node-9" not found\n')
    manifest = tmp_path / "pod.json"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "default"},
           "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}}
    manifest.write_text(json.dumps(pod))
    taken = kubectl("create", "--dry-run=server", "--validate=false", "-f", str(manifest))
    assert (taken.returncode, taken.stderr) == (1, 'Error from server (AlreadyExists): error when creating "%s": pods "web-1" already exists\n' % manifest)
    pod["metadata"]["name"] = "web-2"
    manifest.write_text(json.dumps(pod))
    created = kubectl("create", "--dry-run=server", "--validate=false", "-f", str(manifest), "-o", "json")
    assert created.returncode == 0, created.stderr
    answer = json.loads(created.stdout)
    assert answer["metadata"]["name"] == "web-2" and answer["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    assert "resourceVersion" not in answer["metadata"] and answer["metadata"]["uid"]
    assert ("POST", "/api/v1/namespaces/default/pods?dryRun=All&fieldManager=kubectl-create&fieldValidation=Ignore") in api.requests
    node = api.node("node-1")
    node["metadata"]["labels"]["pool"] = "canary"
    manifest.write_text(json.dumps(node))
    replaced = kubectl("replace", "--dry-run=server", "--validate=false", "-f", str(manifest), "-o", "json")
    assert replaced.returncode == 0, replaced.stderr
    answer = json.loads(replaced.stdout)
    assert answer["metadata"]["labels"]["pool"] == "canary" and answer["metadata"]["resourceVersion"] == node["metadata"]["resourceVersion"]
    node["metadata"]["resourceVersion"] = "1"
    manifest.write_text(json.dumps(node))
    stale = kubectl("replace", "--dry-run=server", "--validate=false", "-f", str(manifest))
    assert stale.returncode == 1
    assert stale.stderr == ('Error from server (Conflict): error when replacing "%s": Operation cannot be fulfilled on nodes "node-1": '
                            'the object has been modified; please apply your changes to the latest version and try again\n' % manifest)
    assert _state(api) == before


def test_apiserver_dry_run_graceful_delete_answers_the_deletion_it_would_start(api):
    api.add_node("node-1")
    stored = api.add_pod("web-1", "node-1", grace=30)
    before = _state(api)
    code, answer = _raw(api, "DELETE", "/api/v1/namespaces/default/pods/web-1", {"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]})
    assert code == 200
    assert answer["metadata"]["deletionGracePeriodSeconds"] == 30 and answer["metadata"]["deletionTimestamp"]
    assert answer["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    code, answer = _raw(api, "DELETE", "/api/v1/namespaces/default/pods/web-1?dryRun=All",
                        {"preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}})
    assert code == 409
    assert answer["message"] == ('Operation cannot be fulfilled on pods "web-1": Precondition failed: UID in precondition: '
                                 '00000000-0000-0000-0000-000000000000, UID in object meta: %s' % stored["metadata"]["uid"])
    assert _state(api) == before


def test_apiserver_dry_run_refuses_a_value_other_than_all(api):
    api.add_node("node-1")
    before = _state(api)
    code, answer = _raw(api, "PATCH", "/api/v1/nodes/node-1?dryRun=Some", {"spec": {"unschedulable": True}}, "application/merge-patch+json")
    assert code == 422
    assert answer == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": 'PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
                      "reason": "Invalid", "details": {"group": "meta.k8s.io", "kind": "PatchOptions", "causes": [
                          {"reason": "FieldValueNotSupported", "message": 'Unsupported value: []string{"Some"}: supported values: "All"',
                           "field": "dryRun"}]}, "code": 422}
    assert _state(api) == before
