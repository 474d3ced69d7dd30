# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A thin wrapper over the ``kubernetes`` Python client for the transition's few API calls.

Public: `connect`, `Api`, `KubeApiError`, `HAS_KUBERNETES`.

It loads a kubeconfig (and context) with the client's own loader, so every authentication the
client supports works (certificates, tokens, exec plugins), and sends raw REST requests through the
client's ApiClient: answers come back as the API's JSON (plain dicts, camelCase keys), never as
generated models, and every error answer becomes a `KubeApiError` carrying the HTTP code and the
API's Status (reason, message, causes). Paths are the API's own (``/api/v1/nodes/<name>``,
``/api/v1/namespaces/<ns>/pods/<name>/eviction``, ``/apis/policy/v1/...``,
``/api/v1/nodes/<name>/proxy/<path>``).
"""

from __future__ import annotations

import json
import urllib.parse

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._errors import NumaGateError

try:
    from kubernetes import config as kube_config
    from kubernetes.client import exceptions as kube_exceptions
    HAS_KUBERNETES = True
    KUBERNETES_IMPORT_ERROR = None
except ImportError as _exc:  # pragma: no cover - the controller requirement is missing
    HAS_KUBERNETES = False
    KUBERNETES_IMPORT_ERROR = str(_exc)

STRATEGIC_MERGE = "application/strategic-merge-patch+json"
REQUEST_TIMEOUT = 30


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


def connect(kubeconfig=None, context=None):
    """An `Api` for ``kubeconfig`` (None: the client's default, ``$KUBECONFIG`` or ~/.kube/config) and ``context``."""
    if not HAS_KUBERNETES:
        raise NumaGateError("the Python library 'kubernetes' is needed on the controller for the Kubernetes API steps "
                            "(pip install kubernetes): %s" % KUBERNETES_IMPORT_ERROR)
    try:
        client = kube_config.new_client_from_config(config_file=kubeconfig, context=context, persist_config=False)
    except (kube_config.ConfigException, OSError, TypeError, ValueError) as exc:
        raise NumaGateError("cannot load the kubeconfig %s (context %s): %s"
                            % (kubeconfig or "(default)", context or "(current)", exc), kubeconfig=kubeconfig) from exc
    return Api(client)


class Api:
    """The API calls the transition needs, over one ApiClient; answers are the API's JSON as dicts."""

    def __init__(self, client, timeout=REQUEST_TIMEOUT):
        self.client = client
        self.timeout = timeout

    @property
    def host(self):
        """The API server's URL."""
        return self.client.configuration.host

    def request(self, method, path, query=None, body=None, content_type=None, raw=False):
        """Send one request; returns the decoded JSON (or the text when ``raw``); errors raise KubeApiError."""
        headers = {"Accept": "*/*" if raw else "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
        serialized = self.client.param_serialize(method, path, query_params=list((query or {}).items()), header_params=headers,
                                                 body=body, auth_settings=["BearerToken"])
        try:
            response = self.client.call_api(*serialized, _request_timeout=self.timeout)
            data = response.read()
        except kube_exceptions.ApiException as exc:
            raise KubeApiError("%s %s: %s" % (method, path, exc.reason or exc), code=exc.status or 0) from exc
        # urllib3 raises its own errors (MaxRetryError, timeouts) when the server is not reached.
        except Exception as exc:  # pylint: disable=broad-exception-caught
            raise KubeApiError("cannot reach the API server at %s (%s %s): %s" % (self.host, method, path, exc)) from exc
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data or "")
        if not 200 <= response.status <= 299:
            raise _error(method, path, response.status, text)
        if raw:
            return text
        try:
            return json.loads(text) if text else {}
        except ValueError as exc:
            raise KubeApiError("%s %s: the API server answered %d with a body that is not JSON: %r"
                               % (method, path, response.status, text[:200]), code=response.status) from exc

    # -- nodes -----------------------------------------------------------------------------
    def get_node(self, name):
        """The Node ``name``."""
        return self.request("GET", "/api/v1/nodes/%s" % _quote(name))

    def set_unschedulable(self, name, unschedulable, dry_run=False):
        """Cordon (True) or uncordon (False) as kubectl does: a strategic merge patch of ``spec.unschedulable``."""
        body = {"spec": {"unschedulable": True if unschedulable else None}}
        query = {"dryRun": "All"} if dry_run else None
        return self.request("PATCH", "/api/v1/nodes/%s" % _quote(name), query=query, body=body, content_type=STRATEGIC_MERGE)

    def node_proxy_get(self, name, path):
        """GET ``/api/v1/nodes/<name>/proxy/<path>`` (the node's kubelet through the API server): the body as text."""
        return self.request("GET", "/api/v1/nodes/%s/proxy/%s" % (_quote(name), path.lstrip("/")), raw=True)

    # -- pods ------------------------------------------------------------------------------
    def pods_on_node(self, name):
        """Every pod bound to the node (all namespaces, field selector ``spec.nodeName=<name>``), as kubectl lists them."""
        answer = self.request("GET", "/api/v1/pods", query={"fieldSelector": "spec.nodeName=%s" % name})
        return answer.get("items") or []

    def get_pod(self, namespace, name):
        """The pod, or None when it is gone (404)."""
        try:
            return self.request("GET", "/api/v1/namespaces/%s/pods/%s" % (_quote(namespace), _quote(name)))
        except KubeApiError as exc:
            if exc.code == 404:
                return None
            raise

    def evict(self, namespace, name, grace_period=None, dry_run=False):
        """POST a policy/v1 Eviction for the pod (DeleteOptions carry ``grace_period`` when given)."""
        options = {}
        if grace_period is not None:
            options["gracePeriodSeconds"] = int(grace_period)
        if dry_run:
            options["dryRun"] = ["All"]
        body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": namespace}, "deleteOptions": options}
        return self.request("POST", "/api/v1/namespaces/%s/pods/%s/eviction" % (_quote(namespace), _quote(name)), body=body)

    def delete_pod(self, namespace, name, grace_period=None, dry_run=False):
        """DELETE the pod (kubectl's ``--disable-eviction``: no PodDisruptionBudget is consulted)."""
        options = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if grace_period is not None:
            options["gracePeriodSeconds"] = int(grace_period)
        if dry_run:
            options["dryRun"] = ["All"]
        return self.request("DELETE", "/api/v1/namespaces/%s/pods/%s" % (_quote(namespace), _quote(name)), body=options)

    # -- owners and budgets ----------------------------------------------------------------
    def get_daemonset(self, namespace, name):
        """The DaemonSet, or None when it is gone (404)."""
        try:
            return self.request("GET", "/apis/apps/v1/namespaces/%s/daemonsets/%s" % (_quote(namespace), _quote(name)))
        except KubeApiError as exc:
            if exc.code == 404:
                return None
            raise

    def pdbs(self, namespace):
        """The policy/v1 PodDisruptionBudgets of the namespace."""
        answer = self.request("GET", "/apis/policy/v1/namespaces/%s/poddisruptionbudgets" % _quote(namespace))
        return answer.get("items") or []


def _error(method, path, code, text):
    """A KubeApiError from an error answer: the Status message when the body is one, else the text."""
    try:
        status = json.loads(text)
    except ValueError:
        status = None
    if not isinstance(status, dict) or status.get("kind") != "Status":
        return KubeApiError("%s %s: HTTP %d: %s" % (method, path, code, text.strip()[:300]), code=code, answer=text.strip()[:300])
    causes = (status.get("details") or {}).get("causes") or []
    return KubeApiError(status.get("message") or "%s %s: HTTP %d" % (method, path, code), code=code,
                        reason=status.get("reason") or "", causes=causes)
