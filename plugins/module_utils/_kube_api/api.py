# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A thin wrapper over the ``kubernetes`` Python client for the transition's few API calls, every one bounded.

Public: `connect`, `Api`, `KubeApiError`, `HAS_KUBERNETES`, `REQUEST_TIMEOUT`, `MAX_ANSWER_BYTES`, `MAX_PROXY_BYTES`.

It connects with kubernetes.core's connection options (`connection`: host, api_key, ca_cert,
client_cert, client_key, validate_certs, proxy, kubeconfig, context and their K8S_AUTH_* variables),
loading a kubeconfig, when one is used, with the client's own loader (`kubeconfig`: files checked
first, an exec credential plugin bounded), so every authentication the client supports works
(certificates, tokens, exec plugins), and builds each request with the client's ApiClient
(``param_serialize``: URL, headers, credentials). The exchange itself is `transport.exchange` over
the client's urllib3 pool: each call has one deadline (``timeout``, default `REQUEST_TIMEOUT` s)
that its tries all live inside (at most `ATTEMPTS`, only when nothing was sent or a GET broke) and
a size bound in bytes. Answers come back as the API's JSON (plain dicts, camelCase keys), checked
by `shapes` for the fields the steps read; every error answer becomes a `KubeApiError` carrying the
HTTP code and the API's Status (reason, message, causes); a 401 names the credential that was refused
(never its value: the token is masked in every message). Names are checked by the API server's
rules before they go into a path (`_k8s_names`), and each path segment is quoted. The API server's
URL is shown with its userinfo masked (`urls`), everywhere. Paths are the API's own
(``/api/v1/nodes/<name>``, ``/api/v1/namespaces/<ns>/pods/<name>/eviction``, ``/apis/policy/v1/...``,
``/api/v1/nodes/<name>/proxy/<path>``).
"""

from __future__ import annotations

import json
import math
import time
import urllib.parse

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import k8s_names as _k8s_names
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.fileio import parse_json
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import connection, connection_spec
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import kubeconfig as _kubeconfig
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kube_api import answers as shapes, transport, urls

HAS_KUBERNETES = _kubeconfig.HAS_KUBERNETES
STRATEGIC_MERGE = "application/strategic-merge-patch+json"
REQUEST_TIMEOUT = connection_spec.REQUEST_TIMEOUT
MAX_ANSWER_BYTES = 16 * 1024 * 1024
MAX_PROXY_BYTES = {"healthz": 64 * 1024, "configz": 1024 * 1024, "metrics": 32 * 1024 * 1024}
ATTEMPTS = 4
# Pages of a list cut short (metadata.continue) followed before the list is refused: a loop bounded in count.
MAX_LIST_PAGES = 100
BACKOFF = (0.25, 0.5, 1.0)
_IDEMPOTENT = ("GET", "HEAD")


class KubeApiError(NumaGateError):
    """An API request that failed: ``code`` (HTTP status, 0 when the server was not reached),
    ``reason`` and ``causes`` from the API's Status body, ``answer`` (its message, or the body that was not a Status)."""

    def __init__(self, message, code=0, reason="", causes=None, answer=None, **details):
        super().__init__(message, **details)
        self.code = code
        self.answer = message if answer is None else answer
        self.reason = reason
        self.causes = list(causes or [])


def _quote(part):
    return urllib.parse.quote(str(part), safe="")


def _size(limit):
    return "%d bytes" % limit


def connect(kubeconfig=None, context=None, timeout=REQUEST_TIMEOUT, settings=None):
    """An `Api` for ``settings`` (checked `connection.Settings`, from `connection.from_task`), or else for ``kubeconfig``
    (None: the client's default, ``$KUBECONFIG`` or ~/.kube/config) and ``context`` alone.

    ``timeout``: each request's deadline in seconds, and the exec credential plugin's.
    """
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not math.isfinite(timeout) or timeout <= 0:
        raise NumaGateError("request_timeout must be a finite number of seconds above 0, not %r" % (timeout,))
    if settings is None:
        settings = connection.Settings({"kubeconfig": kubeconfig, "context": context})
    client = _kubeconfig.ApiClient(configuration=connection.configuration(settings, exec_timeout=timeout))
    return Api(client, timeout=timeout, secrets=settings.secrets(), credential=settings.credential())


class Api:
    """The API calls the transition needs, over one ApiClient; answers are the API's JSON as dicts."""

    # pylint: disable-next=too-many-arguments
    def __init__(self, client, timeout=REQUEST_TIMEOUT, clock=time.monotonic, sleep=time.sleep, secrets=(), credential=None):
        self.client = client
        self.timeout = timeout
        self.clock, self.sleep = clock, sleep
        self.credential = credential or "the kubeconfig's credentials"
        self._secrets = (urls.userinfo(client.configuration.host) + urls.userinfo(getattr(client.configuration, "proxy", None))
                         + [s for s in secrets if s])

    @property
    def host(self):
        """The API server's URL, its userinfo masked."""
        return urls.mask_url(self.client.configuration.host)

    def _masked(self, text):
        return urls.mask_text(text, self._secrets)

    def request(self, method, path, query=None, body=None, content_type=None, raw=False, max_bytes=MAX_ANSWER_BYTES):
        """Send one request within the deadline; the decoded JSON object (or the text when ``raw``); errors raise KubeApiError."""
        deadline = self.clock() + self.timeout
        headers = {"Accept": "*/*" if raw else "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
        try:
            method, url, headers, _body, _post = self.client.param_serialize(
                method, path, query_params=list((query or {}).items()), header_params=headers, auth_settings=["BearerToken"])
        except NumaGateError as exc:
            raise KubeApiError(self._masked(str(exc))) from exc
        # A credential refresh (the kubeconfig's exec plugin or auth provider) runs here and may raise what the client raises.
        except Exception as exc:  # pylint: disable=broad-exception-caught
            raise KubeApiError("cannot prepare %s %s: the kubeconfig's credentials: %s: %s"
                               % (method, path, type(exc).__name__, self._masked(" ".join(str(exc).split())[:300]))) from exc
        where = "%s %s" % (method, self._masked(url))
        data = json.dumps(body).encode("utf-8") if body is not None else None
        status, answer = self._exchange(method, url, headers, data, deadline, max_bytes, where, path)
        text = answer.decode("utf-8", "replace")
        if status == 401:
            # kube-apiserver's authentication filter answers every request it cannot authenticate so, whatever the path.
            raise KubeApiError("%s: HTTP 401 Unauthorized: the API server did not accept %s" % (where, self.credential),
                               code=401, reason="Unauthorized")
        if not 200 <= status <= 299:
            raise _error(method, path, status, text, self._masked)
        if raw:
            return text
        if not answer.strip():
            return {}
        return shapes.decode(answer, where)

    def _exchange(self, method, url, headers, data, deadline, max_bytes, where, path):  # pylint: disable=too-many-arguments
        """(status, body) from the tries of one request, all inside ``deadline``."""
        pool = transport.bound(self.client.rest_client.pool_manager)
        attempt = 0
        while True:
            attempt += 1
            try:
                return transport.exchange(pool, method, url, headers, data, deadline, max_bytes, clock=self.clock)
            except transport.TooLarge as exc:
                raise KubeApiError("%s: the answer is larger than %s, the bound for it (%s); not read further"
                                   % (where, _size(max_bytes), exc.stage), code=exc.status or 0) from exc
            except transport.Expired as exc:
                raise KubeApiError("%s: no whole answer within the %ss deadline (%d attempt%s; %s)"
                                   % (where, _seconds(self.timeout), attempt, "" if attempt == 1 else "s", exc.stage)) from exc
            except transport.Untrusted as exc:
                raise KubeApiError("cannot reach the API server at %s (%s %s): its TLS certificate was not accepted: %s; nothing was sent "
                                   "(the CA that signed it is ca_cert, K8S_AUTH_SSL_CA_CERT, or the kubeconfig's certificate-authority)"
                                   % (self.host, method, path, self._masked(str(exc)))) from exc
            except transport.Refused as exc:
                raise KubeApiError("%s: %s (%s)" % (where, exc, exc.stage), code=exc.status or 0) from exc
            except transport.TransportError as exc:
                retry = isinstance(exc, transport.Unreached) or method in _IDEMPOTENT
                pause = BACKOFF[min(attempt, len(BACKOFF)) - 1]
                if not retry or attempt >= ATTEMPTS or self.clock() + pause >= deadline:
                    raise KubeApiError("cannot reach the API server at %s (%s %s): %s (%d attempt%s within the %ss deadline)"
                                       % (self.host, method, path, self._masked(str(exc)), attempt, "" if attempt == 1 else "s",
                                          _seconds(self.timeout))) from exc
                self.sleep(pause)

    # -- nodes -----------------------------------------------------------------------------
    def get_node(self, name):
        """The Node ``name``."""
        path = "/api/v1/nodes/%s" % _quote(_k8s_names.node_name(name))
        return shapes.node(self.request("GET", path), self._where("GET", path))

    def set_unschedulable(self, name, unschedulable, dry_run=False):
        """Cordon (True) or uncordon (False) as kubectl does: a strategic merge patch of ``spec.unschedulable``."""
        body = {"spec": {"unschedulable": True if unschedulable else None}}
        query = {"dryRun": "All"} if dry_run else None
        path = "/api/v1/nodes/%s" % _quote(_k8s_names.node_name(name))
        return self.request("PATCH", path, query=query, body=body, content_type=STRATEGIC_MERGE)

    def node_proxy_get(self, name, path):
        """GET ``/api/v1/nodes/<name>/proxy/<path>`` (the node's kubelet through the API server): the body as text.

        ``path`` is one of `MAX_PROXY_BYTES` (``healthz``, ``configz``, ``metrics``), each with its own size bound.
        """
        if path not in MAX_PROXY_BYTES:
            raise NumaGateError("node proxy path %r is not one this collection reads (%s)" % (path, ", ".join(sorted(MAX_PROXY_BYTES))))
        return self.request("GET", "/api/v1/nodes/%s/proxy/%s" % (_quote(_k8s_names.node_name(name)), path), raw=True,
                            max_bytes=MAX_PROXY_BYTES[path])

    # -- pods ------------------------------------------------------------------------------
    def pods_on_node(self, name):
        """Every pod bound to the node (all namespaces, field selector ``spec.nodeName=<name>``), as kubectl lists them, each checked.

        A list cut short (``metadata.continue`` set) is followed with its token, as kubectl's pager does, for at most
        `MAX_LIST_PAGES` pages; one still cut short then is refused naming the token: a part of a list is not the list.
        """
        query = {"fieldSelector": "spec.nodeName=%s" % _k8s_names.node_name(name)}
        pods, token = [], None
        for unused_page in range(MAX_LIST_PAGES):
            asked = dict(query, **({"continue": token} if token else {}))
            answer = self.request("GET", "/api/v1/pods", query=asked)
            where = self._where("GET", "/api/v1/pods", asked)
            pods.extend(shapes.pod_list(answer, where))
            token = (answer.get("metadata") or {}).get("continue") if isinstance(answer.get("metadata"), dict) else None
            if token is not None and not isinstance(token, str):
                raise KubeApiError("%s: the answer's metadata.continue is %s, expected a string" % (where, type(token).__name__))
            if not token:
                return pods
        raise KubeApiError("GET /api/v1/pods (spec.nodeName=%s): still cut short after %d pages (%d pods; metadata.continue %r): "
                           "a part of the node's pods is not all of them; not read as complete" % (name, MAX_LIST_PAGES, len(pods), token[:64]))

    def get_pod(self, namespace, name):
        """The pod, or None when it is gone (404)."""
        path = self._pod_path(namespace, name)
        try:
            answer = self.request("GET", path)
        except KubeApiError as exc:
            if exc.code == 404:
                return None
            raise
        return shapes.pod(answer, self._where("GET", path))

    def evict(self, namespace, name, grace_period=None, dry_run=False):
        """POST a policy/v1 Eviction for the pod (DeleteOptions carry ``grace_period`` when given)."""
        options = {}
        if grace_period is not None:
            options["gracePeriodSeconds"] = int(grace_period)
        if dry_run:
            options["dryRun"] = ["All"]
        body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": namespace}, "deleteOptions": options}
        return self.request("POST", self._pod_path(namespace, name) + "/eviction", body=body)

    def delete_pod(self, namespace, name, grace_period=None, dry_run=False):
        """DELETE the pod (kubectl's ``--disable-eviction``: no PodDisruptionBudget is consulted)."""
        options = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if grace_period is not None:
            options["gracePeriodSeconds"] = int(grace_period)
        if dry_run:
            options["dryRun"] = ["All"]
        return self.request("DELETE", self._pod_path(namespace, name), body=options)

    # -- owners and budgets ----------------------------------------------------------------
    def get_daemonset(self, namespace, name):
        """The DaemonSet, or None when it is gone (404)."""
        path = "/apis/apps/v1/namespaces/%s/daemonsets/%s" % (_quote(_k8s_names.namespace(namespace)),
                                                              _quote(_k8s_names.pod_name(name, "DaemonSet name")))
        try:
            return self.request("GET", path)
        except KubeApiError as exc:
            if exc.code == 404:
                return None
            raise

    def pdbs(self, namespace):
        """The policy/v1 PodDisruptionBudgets of the namespace, each checked."""
        path = "/apis/policy/v1/namespaces/%s/poddisruptionbudgets" % _quote(_k8s_names.namespace(namespace))
        return shapes.pdb_list(self.request("GET", path), self._where("GET", path))

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _pod_path(namespace, name):
        return "/api/v1/namespaces/%s/pods/%s" % (_quote(_k8s_names.namespace(namespace)), _quote(_k8s_names.pod_name(name)))

    def _where(self, method, path, query=None):
        """``GET <masked url>``, as the messages about an answer name it."""
        return "%s %s%s%s" % (method, self.host, path, "?" + urllib.parse.urlencode(query) if query else "")


def _seconds(value):
    return "%g" % value


def _error(method, path, code, text, mask):
    """A KubeApiError from an error answer: the Status message when the body is one, else the text."""
    try:
        status = parse_json(text)
    except ValueError:
        status = None
    shown = mask(" ".join(text.split())[:300])
    if not isinstance(status, dict) or status.get("kind") != "Status":
        return KubeApiError("%s %s: HTTP %d: %s" % (method, path, code, shown), code=code, answer=shown)
    details = status.get("details") if isinstance(status.get("details"), dict) else {}
    causes = [c for c in details.get("causes") or [] if isinstance(c, dict)] if isinstance(details.get("causes"), list) else []
    message = status.get("message") if isinstance(status.get("message"), str) and status.get("message") else "%s %s: HTTP %d" % (method, path, code)
    reason = status.get("reason") if isinstance(status.get("reason"), str) else ""
    return KubeApiError(mask(message[:1000]), code=code, reason=reason, causes=causes)
