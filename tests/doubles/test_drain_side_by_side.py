# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real kubectl drain and the collection's (the gpusmith.numa_gate.kube_node action, run by ``ansible``),
side by side on the same starting state in two API server doubles; and the kubectl drain variants the
double must serve faithfully: ``--disable-eviction`` (protobuf DeleteOptions) and ``--dry-run=server``.

What kubectl does is read from k8s.io/kubectl pkg/drain/drain.go (``evictPods``: one goroutine per
pod, an error other than 429/404 ends that pod only, the errors aggregated at the end;
``deletePods``; ``waitForDelete``) and pkg/cmd/drain/drain.go (``deleteOrEvictPodsSimple``: ``There are
pending pods in node %q when an error occurred: %v`` and one ``pod/<name>`` line each).
"""

import json
import os
import subprocess

import pytest

from apiserver.server import ApiServerDouble

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANSIBLE = os.path.join(REPO, ".venv", "bin", "ansible")
PYTHON = os.path.join(REPO, ".venv", "bin", "python")
WEBHOOK = 'Internal error occurred: admission webhook "deny.example.com" denied the request'
ERROR = 'error when evicting pods/"web-2" -n "default": ' + WEBHOOK


def _seed(api):
    """node-1: three web pods (web-2's eviction fails with a 500), db-0 under a budget allowing 1, a DaemonSet pod."""
    api.add_node("node-1")
    api.add_node("node-2")
    for name in ("web-1", "web-2", "web-3"):
        api.add_pod(name, "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=1)
    api.add_pod("db-0", "node-1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, grace=1)
    api.add_pod("db-1", "node-2", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, grace=1)
    api.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    api.add_pod("agent-1", "node-1", namespace="kube-system", owner_kind="DaemonSet", owner_name="agent", labels={"app": "agent"})
    api.fail_eviction("web-2", 500, WEBHOOK)


def _evictions(api):
    return sorted({p.split("/")[6] for m, p in api.requests if m == "POST" and p.endswith("/eviction")})


@pytest.fixture(name="kube_node")
def fixture_kube_node(tmp_path):
    """Run the collection's kube_node action on localhost against ``api``: ``kube_node(api, {...})`` -> (rc, result, progress lines)."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"),
               ANSIBLE_HOME=str(tmp_path / "ansible"), HOME=str(tmp_path / "home"))

    def run(api, args):
        args = dict(args, kubeconfig=api.write_kubeconfig(tmp_path / "collection-kubeconfig"))
        done = subprocess.run([ANSIBLE, "localhost", "-m", "gpusmith.numa_gate.kube_node", "-a", json.dumps(args),
                               "-e", "ansible_python_interpreter=%s" % PYTHON],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
        # The progress lines (Display) come first, then the json callback's report.
        lines, brace, report = done.stdout.partition("{\n")
        try:
            report = json.loads(brace + report)
        except ValueError:
            pytest.fail("ansible printed no JSON: rc %s\n%s\n%s" % (done.returncode, done.stdout, done.stderr))
        return done.returncode, report["plays"][0]["tasks"][0]["hosts"]["localhost"], lines.splitlines()

    return run


def test_drain_side_by_side_an_eviction_error_ends_one_pod_both_evict_the_others_and_name_it(api, kubectl, kube_node):
    _seed(api)
    done = kubectl("drain", "node-1", "--ignore-daemonsets", "--timeout=30s")
    assert done.returncode == 1
    assert sorted(line for line in done.stdout.splitlines() if line.startswith("pod/")) == [
        "pod/db-0 evicted", "pod/web-1 evicted", "pod/web-3 evicted"]
    assert ('There are pending pods in node "node-1" when an error occurred: %s\npod/web-2\n' % ERROR) in done.stderr
    assert done.stderr.endswith("\n%s\n" % ERROR)

    ours = ApiServerDouble().start()
    try:
        _seed(ours)
        rc, result, lines = kube_node(ours, {"node": "node-1", "state": "drained", "timeout": 30})
        assert rc == 2
        assert lines[0] == "drain node-1: evicting 4 pods (default/db-0, default/web-1, default/web-2, default/web-3)"
        assert lines[1].startswith("drain node-1: 4 pods left (db-0, web-1, web-2, web-3), ") and lines[1].endswith(" of 30s; failed: web-2")
        assert result["failed"] is True
        assert result["msg"] == ("drain node-1: 1 pod left after an error: default/web-2 (%s); evicted 3 (default/db-0, default/web-1, "
                                 "default/web-3); node node-1 stays cordoned (this task cordoned it)" % ERROR)
        # The failed result names every pod left, with the API's code and message.
        assert result["pending"] == ["default/web-2"]
        assert result["failed_pods"] == [{"pod": "default/web-2", "code": 500, "message": WEBHOOK}]
        assert result["evicted"] == ["default/db-0", "default/web-1", "default/web-3"]
        assert (result["changed"], result["cordoned"], result["was_unschedulable"]) == (True, True, False)
        # Same pods asked to leave, same pods left, same node state, one eviction request for the failed pod in both.
        assert _evictions(ours) == _evictions(api) == ["db-0", "web-1", "web-2", "web-3"]
        assert ours.pod_names("node-1") == api.pod_names("node-1") == ["default/web-2", "kube-system/agent-1"]
        assert ours.node("node-1")["spec"] == api.node("node-1")["spec"] == {"unschedulable": True}
        for double in (api, ours):
            assert [p for m, p in double.requests if (m, p) == ("POST", "/api/v1/namespaces/default/pods/web-2/eviction")] == [
                "/api/v1/namespaces/default/pods/web-2/eviction"]
    finally:
        ours.stop()


def test_kubectl_drain_disable_eviction_sends_protobuf_delete_options_the_double_reads(api, kubectl):
    api.add_node("node-1")
    for name in ("web-1", "web-2"):
        api.add_pod(name, "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=3600)
    api.add_pdb("web-pdb", {"app": "web"}, min_available=2)
    done = kubectl("drain", "node-1", "--disable-eviction", "--grace-period=0", "--timeout=20s")
    # Deleted at once: the grace period 0 came through the protobuf body (else 3600 s and a timeout); no budget asked.
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "node/node-1 cordoned\npod/web-1 deleted\npod/web-2 deleted\nnode/node-1 drained\n"
    assert api.pod_names("node-1") == []
    assert [p for m, p in api.requests if m == "DELETE"] == ["/api/v1/namespaces/default/pods/web-1", "/api/v1/namespaces/default/pods/web-2"]
    assert not [p for m, p in api.requests if p.endswith("/eviction")]


def test_kubectl_delete_dry_run_server_in_a_protobuf_body_deletes_nothing(api, kubectl):
    api.add_node("node-1")
    before = api.add_pod("web-1", "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=30)
    done = kubectl("delete", "pod", "web-1", "--dry-run=server")
    assert (done.returncode, done.stdout, done.stderr) == (0, 'pod "web-1" deleted from default namespace (server dry run)\n', "")
    assert api.pod("web-1") == before


def test_kubectl_drain_dry_run_server_evicts_nothing(api, kubectl):
    api.add_node("node-1")
    api.add_node("node-2")
    for name in ("web-1", "web-2"):
        api.add_pod(name, "node-1", owner_kind="ReplicaSet", owner_name="web", labels={"app": "web"}, grace=30)
    api.add_pod("db-0", "node-1", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, grace=30)
    api.add_pod("db-1", "node-2", owner_kind="ReplicaSet", owner_name="db", labels={"app": "db"}, grace=30)
    api.add_pdb("db-pdb", {"app": "db"}, min_available=1)
    pods = {name: api.pod(name) for name in ("web-1", "web-2", "db-0")}
    revision = api.store.revision
    done = kubectl("drain", "node-1", "--dry-run=server", "--timeout=20s")
    assert (done.returncode, done.stderr) == (0, "")
    assert sorted(done.stdout.splitlines()) == ["evicting pod default/db-0 (server dry run)", "evicting pod default/web-1 (server dry run)",
                                                "evicting pod default/web-2 (server dry run)", "node/node-1 cordoned (server dry run)",
                                                "node/node-1 drained (server dry run)"]
    assert _evictions(api) == ["db-0", "web-1", "web-2"]
    # Nothing changed: no deletionTimestamp, the budget's disruptedPods untouched, the node schedulable, no revision used.
    assert {name: api.pod(name) for name in pods} == pods
    assert "disruptedPods" not in api.store.get("poddisruptionbudgets", "default", "db-pdb").get("status", {})
    assert api.node("node-1")["spec"] == {}
    assert api.store.revision == revision
