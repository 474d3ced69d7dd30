# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Events on the API server double through the real kubectl: field selectors on ``involvedObject.*``,
``reason``, ``source``, ``type`` filter as the real registry does; ``kubectl events --for`` and the
server-side event table of ``kubectl get events``."""

import re

from apiserver import objects


def _ages_out(text):
    return re.sub(r"\b\ds\b", "Ns", text)


def _seed(api):
    node = api.add_node("node-1")
    api.add_node("node-2")
    api.add_event(objects.kubelet_node_reference("node-1"), "NodeReady", "Node node-1 status is now: NodeReady", host="node-1")
    api.add_event(objects.object_reference(node), "RegisteredNode", "Node node-1 event: Registered Node node-1 in Controller",
                  component="node-controller")
    api.add_event(objects.object_reference(api.node("node-2")), "NodeNotReady", "Node node-2 status is now: NodeNotReady",
                  event_type="Warning", component="node-controller")
    pod = api.add_pod("web-1", "node-2")
    api.add_event(objects.object_reference(pod, field_path="spec.containers{main}"), "Started", "Started container main", host="node-2")
    return node


def test_apiserver_events_field_selector_on_the_involved_object(api, kubectl):
    _seed(api)
    result = kubectl("get", "events", "--field-selector", "involvedObject.name=node-1")
    assert (result.returncode, result.stderr) == (0, "")
    assert _ages_out(result.stdout) == (
        "LAST SEEN   TYPE     REASON           OBJECT        MESSAGE\n"
        "Ns          Normal   NodeReady        node/node-1   Node node-1 status is now: NodeReady\n"
        "Ns          Normal   RegisteredNode   node/node-1   Node node-1 event: Registered Node node-1 in Controller\n")
    assert ("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dnode-1&limit=500") in api.requests


def test_apiserver_events_field_selector_on_reason_source_type_and_field_path(api, kubectl):
    _seed(api)
    warning = kubectl("get", "events", "--field-selector", "type=Warning,source=node-controller", "-o", "name")
    assert (warning.returncode, warning.stderr) == (0, "")
    assert re.fullmatch(r"event/node-2\.[0-9a-f]+\n", warning.stdout), warning.stdout
    started = kubectl("get", "events", "--field-selector", "involvedObject.fieldPath=spec.containers{main},reason!=Killing", "-o",
                      "jsonpath={.items[*].message}")
    assert (started.returncode, started.stdout, started.stderr) == (0, "Started container main", "")
    by_uid = kubectl("get", "events", "--field-selector", "involvedObject.uid=node-1", "-o", "jsonpath={.items[*].reason}")
    assert (by_uid.returncode, by_uid.stdout) == (0, "NodeReady")


def test_apiserver_events_kubectl_events_for_a_node(api, kubectl):
    _seed(api)
    result = kubectl("events", "--for", "node/node-1")
    assert (result.returncode, result.stderr) == (0, "")
    # kubectl selects involvedObject.apiVersion=v1 too: the kubelet's nodeRef has none, so its NodeReady is not listed.
    assert _ages_out(result.stdout) == (
        "LAST SEEN   TYPE     REASON           OBJECT        MESSAGE\n"
        "Ns          Normal   RegisteredNode   Node/node-1   Node node-1 event: Registered Node node-1 in Controller\n")
    assert ("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DNode%2CinvolvedObject.apiVersion%3Dv1"
                   "%2CinvolvedObject.name%3Dnode-1&limit=500") in api.requests


def test_apiserver_events_wide_table(api, kubectl):
    _seed(api)
    result = kubectl("get", "events", "-o", "wide", "--field-selector", "involvedObject.kind=Pod")
    assert (result.returncode, result.stderr) == (0, "")
    header, row, end = _ages_out(result.stdout).split("\n")
    assert end == ""
    assert header.split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST", "SEEN", "COUNT", "NAME"]
    assert re.fullmatch(r"Ns +Normal +Started +pod/web-1 +spec\.containers\{main\} +kubelet, node-2 +Started container main +Ns +1 +web-1\.[0-9a-f]+",
                        row), row


def test_apiserver_events_unknown_field_label_is_refused(api, kubectl):
    _seed(api)
    result = kubectl("get", "events", "--field-selector", "involvedObject.foo=x")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ('Error from server (BadRequest): Unable to find "/v1, Resource=events" that match label selector "", '
                             'field selector "involvedObject.foo=x": field label not supported: involvedObject.foo\n')
