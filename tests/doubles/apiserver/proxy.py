# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node and pod proxy subresources: ``/api/v1/nodes/<name>/proxy/<path>`` forwarded to that node's kubelet,
``/api/v1/namespaces/<ns>/pods/<name>[:<port>]/proxy/<path>`` to the pod.

The real server resolves the node's kubelet from ``status.addresses`` and
``status.daemonEndpoints.kubeletEndpoint.Port`` (pkg/registry/core/node/strategy.go
ResourceLocation) and forwards over HTTPS; the double forwards over plain HTTP to the URL a test
registered with ``register_kubelet(node, url)``, or else to ``http://<InternalIP>:<kubelet port>``
(so a kubelet stand-in that registers its node with its own address and port is reachable).
The answer passes through unchanged (status code, Content-Type, body). A kubelet that cannot be
reached gives what k8s.io/apimachinery/pkg/util/proxy/transport.go RoundTrip gives: 503
ServiceUnavailable ``error trying to reach service: <dial error>``.

The pod proxy follows pkg/registry/core/pod/strategy.go ResourceLocation: the id is ``name``,
``name:port`` or ``scheme:name:port`` (k8s.io/apimachinery/pkg/util/net SplitSchemeNamePort; else 400
``invalid pod request "<id>"``), the pod is read first (404 when it does not exist), no port takes the
first ``containerPort`` of the spec's containers, and ``status.podIPs[0]`` must be a global unicast
address (else 400 ``address not allowed``). The double then forwards to the URL a test registered for
that pod and port (``register_pod_endpoint``: a test service on 127.0.0.1, which the real server would
refuse as not global unicast), else to ``http://<podIP>:<port>``.
"""

import ipaddress

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


def split_scheme_name_port(id_):
    """(scheme, name, port) of a pod proxy id as SplitSchemeNamePort splits it; None when it is not valid."""
    parts = id_.split(":")
    if len(parts) == 1:
        scheme, name, port = "", parts[0], ""
    elif len(parts) == 2:
        scheme, name, port = "", parts[0], parts[1]
    elif len(parts) == 3:
        scheme, name, port = parts
        if scheme not in ("http", "https"):
            return None
    else:
        return None
    return (scheme, name, port) if name else None


def pod_base(pod, id_, registered):
    """The base URL the pod proxy sends ``id_`` (name, name:port, scheme:name:port) of ``pod`` to."""
    scheme, unused_name, port = split_scheme_name_port(id_)
    if not port:
        port = next((str(c["ports"][0]["containerPort"]) for c in pod.get("spec", {}).get("containers") or [] if c.get("ports")), "")
    ips = pod.get("status", {}).get("podIPs") or ([{"ip": pod["status"]["podIP"]}] if pod.get("status", {}).get("podIP") else [])
    try:
        address = ipaddress.ip_address(ips[0]["ip"]) if ips else None
    except ValueError:
        address = None
    # netutils.ParseIPSloppy(podIP) ... !ip.IsGlobalUnicast(): loopback, link-local, multicast and unspecified are refused.
    if address is None or address.is_loopback or address.is_link_local or address.is_multicast or address.is_unspecified:
        raise api_status.bad_request("address not allowed")
    url = registered.get((pod["metadata"]["namespace"], pod["metadata"]["name"], port))
    if url:
        return url.rstrip("/")
    host = "[%s]" % address if address.version == 6 else str(address)
    return "%s://%s%s" % (scheme or "http", host, ":" + port if port else "")


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
