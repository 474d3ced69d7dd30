# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node proxy subresource: ``/api/v1/nodes/<name>/proxy/<path>`` forwarded to that node's kubelet.

The real server resolves the node's kubelet from ``status.addresses`` and
``status.daemonEndpoints.kubeletEndpoint.Port`` (pkg/registry/core/node/strategy.go
ResourceLocation) and forwards over HTTPS; the double forwards over plain HTTP to the URL a test
registered with ``register_kubelet(node, url)``, or else to ``http://<InternalIP>:<kubelet port>``
(so a kubelet stand-in that registers its node with its own address and port is reachable).
The answer passes through unchanged (status code, Content-Type, body). A kubelet that cannot be
reached gives what k8s.io/apimachinery/pkg/util/proxy/transport.go RoundTrip gives: 503
ServiceUnavailable ``error trying to reach service: <dial error>``.
"""

import http.client
import urllib.parse

from apiserver import status as api_status

_FORWARDED_HEADERS = ("Accept", "Content-Type", "Accept-Encoding")


def kubelet_base(node, registered):
    """The base URL of the node's kubelet: the registered one, else its InternalIP and kubelet port."""
    if registered:
        return registered.rstrip("/")
    status = node.get("status", {})
    addresses = {a["type"]: a["address"] for a in status.get("addresses") or []}
    port = status.get("daemonEndpoints", {}).get("kubeletEndpoint", {}).get("Port")
    address = addresses.get("InternalIP") or addresses.get("Hostname")
    if not address or not port:
        raise api_status.service_unavailable("error trying to reach service: no preferred addresses found; known addresses: []")
    return "http://%s:%s" % (address, port)


def forward(base, method, path, query, headers, body, timeout=10):
    """Send the request to ``base`` + ``path``; returns (code, body bytes, content type)."""
    target = urllib.parse.urlsplit(base)
    full_path = (target.path.rstrip("/") + "/" + path.lstrip("/")) + (("?" + query) if query else "")
    connection = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=timeout)
    try:
        connection.request(method, full_path, body=body or None, headers={k: headers[k] for k in _FORWARDED_HEADERS if headers.get(k)})
        response = connection.getresponse()
        return response.status, response.read(), response.getheader("Content-Type") or "text/plain; charset=utf-8"
    except OSError as exc:
        raise api_status.service_unavailable("error trying to reach service: dial tcp %s:%s: %s" % (target.hostname, target.port, exc)) from exc
    finally:
        connection.close()
