# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The NVIDIA Maintenance Operator's NodeMaintenance on the API server double, checked with the real kubectl: absent until a test
installs the CRD, then created, defaulted, granted by the operator stand-in, refused as the CRD's schema refuses, deleted."""

import json
import time

REQUEST = {"apiVersion": "maintenance.nvidia.com/v1alpha1", "kind": "NodeMaintenance",
           "metadata": {"name": "gpusmith-numa-gate-node-1", "namespace": "default"},
           "spec": {"requestorID": "numa-gate.gpusmith", "nodeName": "node-1"}}


def test_the_resource_is_unknown_until_the_crd_is_installed(api, kubectl):
    missing = kubectl("get", "nodemaintenances")
    assert (missing.returncode, missing.stderr) == (1, 'error: the server doesn\'t have a resource type "nodemaintenances"\n')
    api.install_node_maintenance()
    listed = kubectl("api-resources", "--api-group=maintenance.nvidia.com", "--no-headers")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == ["nodemaintenances", "maintenance.nvidia.com/v1alpha1", "true", "NodeMaintenance"]


def test_kubectl_creates_a_request_the_operator_grants_and_deletes_it(api, kubectl, tmp_path):
    api.install_node_maintenance(grant_after=0.6)
    path = tmp_path / "request.json"
    path.write_text(json.dumps(dict(REQUEST, status={"conditions": [{"type": "Ready", "status": "True"}]})))
    created = kubectl("create", "--validate=false", "-f", str(path))
    assert (created.returncode, created.stdout, created.stderr) == (0, "nodemaintenance.maintenance.nvidia.com/gpusmith-numa-gate-node-1 created\n", "")
    time.sleep(0.2)
    first = api.store.get("nodemaintenances", "default", "gpusmith-numa-gate-node-1")
    assert first["spec"] == {"requestorID": "numa-gate.gpusmith", "nodeName": "node-1", "cordon": True}
    assert [(c["type"], c["status"], c["reason"]) for c in first["status"]["conditions"]] == [("Ready", "False", "Pending")]
    time.sleep(0.6)
    got = json.loads(kubectl("get", "nodemaintenance", "gpusmith-numa-gate-node-1", "-o", "json").stdout)
    assert [(c["type"], c["status"], c["reason"]) for c in got["status"]["conditions"]] == [("Ready", "True", "Ready")]
    deleted = kubectl("delete", "nodemaintenance", "gpusmith-numa-gate-node-1")
    assert (deleted.returncode, deleted.stdout) == (
        0, 'nodemaintenance.maintenance.nvidia.com "gpusmith-numa-gate-node-1" deleted from default namespace\n')
    assert api.store.list("nodemaintenances")[0] == []


def test_a_requestor_id_outside_the_crds_pattern_is_invalid(api, kubectl, tmp_path):
    api.install_node_maintenance(grant_after=None)
    path = tmp_path / "request.json"
    path.write_text(json.dumps(dict(REQUEST, spec=dict(REQUEST["spec"], requestorID="gpusmith.numa_gate"))))
    refused = kubectl("create", "--validate=false", "-f", str(path))
    assert refused.returncode == 1
    assert refused.stderr == (
        'The NodeMaintenance "gpusmith-numa-gate-node-1" is invalid: spec.requestorID: Invalid value: "gpusmith.numa_gate": spec.requestorID in '
        "body should match '^([a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?(\\.[a-z0-9A-Z]([-a-z0-9A-Z]*[a-z0-9A-Z])?)*)$'\n")
    assert api.store.list("nodemaintenances")[0] == []
