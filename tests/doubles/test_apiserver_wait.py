# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``kubectl wait`` (the real kubectl 1.37) against the API server double: its watch-list request
(sendInitialEvents with bookmarks) gets the initial events and the initial-events-end bookmark, so a
Ready node is met at once, a NotReady one times out with kubectl's message, a change is seen."""

import json
import threading
import time
import urllib.error
import urllib.request

WATCH_LIST = "allowWatchBookmarks=true&fieldSelector=metadata.name%3Dnode-1&resourceVersionMatch=NotOlderThan&sendInitialEvents=true"


def _watch_lines(api, query, count):
    """The first ``count`` events of a watch on nodes, parsed."""
    with urllib.request.urlopen(api.url + "/api/v1/nodes?watch=true&timeoutSeconds=5&" + query, timeout=10) as answer:
        return [json.loads(answer.readline()) for dummy in range(count)]


def test_apiserver_wait_for_a_ready_node_returns_at_once(api, kubectl):
    api.add_node("node-1")
    started = time.monotonic()
    result = kubectl("wait", "--for=condition=Ready", "node/node-1", "--timeout=20s", timeout=30)
    took = time.monotonic() - started
    assert (result.returncode, result.stdout, result.stderr) == (0, "node/node-1 condition met\n", "")
    assert took < 5, took
    # kubectl picks timeoutSeconds at random; the rest of its watch-list request is fixed.
    [asked] = [path for method, path in api.requests if "watch=true" in path]
    assert asked.startswith("/api/v1/nodes?" + WATCH_LIST + "&timeoutSeconds=") and asked.endswith("&watch=true")


def test_apiserver_wait_for_a_not_ready_node_times_out_in_kubectls_words(api, kubectl):
    api.add_node("node-1", ready=False)
    result = kubectl("wait", "--for=condition=Ready", "node/node-1", "--timeout=2s", timeout=30)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "error: timed out waiting for the condition on nodes/node-1\n")


def test_apiserver_wait_sees_the_node_become_ready(api, kubectl):
    api.add_node("node-1", ready=False)
    timer = threading.Timer(1.0, api.set_node_ready, args=("node-1", True))
    timer.start()
    try:
        result = kubectl("wait", "--for=condition=Ready", "node/node-1", "--timeout=20s", timeout=30)
    finally:
        timer.cancel()
    assert (result.returncode, result.stdout, result.stderr) == (0, "node/node-1 condition met\n", "")


def test_apiserver_wait_for_delete_of_a_terminating_pod(api, kubectl):
    api.add_node("node-1")
    api.add_pod("web-1", "node-1", grace=1)
    api.store.delete("pods", "default", "web-1")
    result = kubectl("wait", "--for=delete", "pod/web-1", "--timeout=20s", timeout=30)
    assert (result.returncode, result.stdout, result.stderr) == (0, "pod/web-1 condition met\n", "")
    assert api.pod("web-1") is None


def test_apiserver_watch_list_ends_the_initial_events_with_the_bookmark(api):
    api.add_node("node-1")
    api.add_node("node-2")
    added, mark = _watch_lines(api, WATCH_LIST, 2)
    assert (added["type"], added["object"]["metadata"]["name"]) == ("ADDED", "node-1")
    assert mark == {"type": "BOOKMARK", "object": {"kind": "Node", "apiVersion": "v1", "metadata": {
        "resourceVersion": api.store.revision, "annotations": {"k8s.io/initial-events-end": "true"}}}}


def test_apiserver_watch_without_watch_list_options_has_no_bookmark(api):
    api.add_node("node-1")
    api.add_node("node-2")
    first, second = _watch_lines(api, "", 2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in (first, second)] == [("ADDED", "node-1"), ("ADDED", "node-2")]
    version = api.node("node-1")["metadata"]["resourceVersion"]
    threading.Timer(0.5, api.set_node_ready, args=("node-2", False)).start()
    created, changed = _watch_lines(api, "resourceVersion=%s" % version, 2)
    assert (created["type"], created["object"]["metadata"]["name"]) == ("ADDED", "node-2")
    assert (changed["type"], changed["object"]["metadata"]["name"]) == ("MODIFIED", "node-2")
    assert changed["object"]["status"]["conditions"][0]["status"] == "False"


def test_apiserver_watch_selector_sends_deleted_when_an_object_stops_matching(api):
    api.add_node("node-1")
    threading.Timer(0.5, api.store.update, args=("nodes", dict(api.node("node-1"), spec={"unschedulable": True}))).start()
    added, gone = _watch_lines(api, "fieldSelector=spec.unschedulable%3Dfalse", 2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in (added, gone)] == [("ADDED", "node-1"), ("DELETED", "node-1")]
    assert gone["object"]["spec"] == {"unschedulable": True}


def test_apiserver_watch_options_refused_as_the_real_validation_refuses_them(api):
    try:
        urllib.request.urlopen(api.url + "/api/v1/nodes?watch=true&sendInitialEvents=true", timeout=10)
        raise AssertionError("no error")
    except urllib.error.HTTPError as error:
        assert error.code == 422
        assert json.loads(error.read())["message"] == (
            'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
            'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan')
    try:
        urllib.request.urlopen(api.url + "/api/v1/nodes?sendInitialEvents=true&resourceVersionMatch=NotOlderThan", timeout=10)
        raise AssertionError("no error")
    except urllib.error.HTTPError as error:
        assert error.code == 422
        assert json.loads(error.read())["message"] == (
            'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless '
            'resourceVersion is provided, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list]')
