# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``ApiServerDouble``: a TEST DOUBLE of kube-apiserver on 127.0.0.1, not the real thing.

Tests start it on a free port (``start()``, or ``with ApiServerDouble() as api:``), seed it through
this Python API, write a kubeconfig for the real clients (kubectl, the ``kubernetes`` Python
client, kubernetes.core modules) and read its objects back to assert. Plain HTTP, no
authentication: the kubeconfig says ``server: http://127.0.0.1:<port>``; with ``tls`` (a `tls.Pki`)
HTTPS and client certificates, with ``tokens`` ({token: user}) bearer tokens required (tls.py). What each behaviour
copies from the real API server is written in the docstring of the module that implements it
(status, store, eviction, selection, patch, discovery, tables, proxy, watch, handler, audit).
``controllers=True`` adds what the ReplicaSet controller and the scheduler would do (controllers.py), and the
Job controller and garbage collector (jobs.py; `finish_job` ends a Job's pod, as no container runs here), and the
Deployment and StatefulSet controllers with the scheduler's nodeSelector and extended-resource filters (workloads.py).
"""

import http.server
import threading

from apiserver import audit, discovery, handler, jobs, leases, nodemaintenance, objects, tls as api_tls, workloads
from apiserver import controllers as replicaset_controller
from apiserver import status as api_status
from apiserver import store as api_store

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: double
  cluster:
    server: {url}{cluster_extra}
contexts:
- name: double
  context:
    cluster: double
    user: double
    namespace: default
current-context: double
preferences: {{}}
users:
- name: double
  user: {user}
"""


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


class ApiServerDouble:
    """The double: an HTTP server thread over an in-memory store (see the module docstring)."""

    def __init__(self, controllers=False, audit_log=None, tls=None, tokens=None):
        self.tls, self.tokens = tls, (dict(tokens) if tokens is not None else None)
        self.store = api_store.Store()
        self.kubelets = {}
        self.pod_endpoints = {}
        self.requests = audit.RequestLog(audit_log)
        self.eviction_failures = {}
        self.controllers = controllers
        self._replicasets = None
        self._jobs = None
        self._workloads = None
        self.pod_logs = {}
        # kube-apiserver's feature gates as its /metrics reports them (discovery.metrics): {name: (stage, enabled)}.
        self.feature_gates = dict(discovery.FEATURE_GATES)
        # CRDs a test installed: {group/version: resources} (install_node_maintenance).
        self.custom_resources = {}
        self._maintenance_operator = None
        self._httpd = None
        self._thread = None
        for namespace in ("default", "kube-system", leases.NODE_LEASE_NAMESPACE):
            self.store.create("namespaces", {"metadata": {"name": namespace}, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})

    # -- lifecycle -------------------------------------------------------------------------
    def start(self, port=0):
        """Listen on 127.0.0.1 (on a free port unless ``port`` is given) and serve in a daemon thread."""
        self._httpd = _Server(("127.0.0.1", port), handler.Handler)
        self._httpd.double = self
        if self.tls is not None:
            api_tls.serve(self._httpd, self.tls)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        if self.controllers:
            self._replicasets = replicaset_controller.ReplicaSetController(self.store).start()
            self._jobs = jobs.JobController(self.store).start()
            self._workloads = workloads.WorkloadController(self.store).start()
        return self

    def stop(self):
        """Stop serving and close the socket."""
        if self._replicasets is not None:
            self._replicasets.stop()
            self._replicasets = None
        if self._jobs is not None:
            self._jobs.stop()
            self._jobs = None
        if self._workloads is not None:
            self._workloads.stop()
            self._workloads = None
        if self._maintenance_operator is not None:
            self._maintenance_operator.stop()
            self._maintenance_operator = None
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=5)
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self):
        """The TCP port it listens on."""
        return self._httpd.server_address[1]

    @property
    def url(self):
        """``http://127.0.0.1:<port>``, ``https://`` with ``tls``"""
        return "%s://127.0.0.1:%d" % ("https" if self.tls is not None else "http", self.port)

    def write_kubeconfig(self, path):
        """Write a kubeconfig whose current context points at the double (its CA and first token too); returns the path."""
        extra = "\n    certificate-authority: %s" % self.tls.ca_cert if self.tls is not None else ""
        user = "{token: %s}" % next(iter(self.tokens)) if self.tokens else "{}"
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(KUBECONFIG.format(url=self.url, cluster_extra=extra, user=user))
        return str(path)

    # -- seeding ---------------------------------------------------------------------------
    def install_node_maintenance(self, grant_after=0.5):
        """Install the NVIDIA Maintenance Operator's NodeMaintenance CRD and play its operator: a request is Pending, then
        Ready once it is ``grant_after`` seconds old (never with None) (nodemaintenance.py)."""
        self.custom_resources[nodemaintenance.GROUP_VERSION] = nodemaintenance.RESOURCE_LIST
        self._maintenance_operator = nodemaintenance.Operator(self.store, grant_after).start()

    def add_namespace(self, name):
        """Create a namespace (``default``, ``kube-system`` and ``kube-node-lease`` exist from the start)."""
        return self.store.create("namespaces", {"metadata": {"name": name}, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})

    def add_node(self, name, ready=True, unschedulable=False, labels=None, kubelet_version="v1.37.1", kubelet_url=None, **resources):
        """A registered Node, Ready unless told otherwise; ``kubelet_url`` registers its kubelet endpoint. ``capacity``,
        ``allocatable``, ``reserved``, ``eviction_hard`` set its resources (node_resources.py; defaults documented there)."""
        node = objects.node(name, api_store.timestamp(), ready=_ready_word(ready), unschedulable=unschedulable, labels=labels,
                            kubelet_version=kubelet_version, resources=resources)
        created = self.store.create("nodes", node)
        self.store.create("leases", leases.node_lease(created))  # as its kubelet would (leases.py)
        if kubelet_url:
            self.register_kubelet(name, kubelet_url)
        return created

    def set_node_ready(self, name, ready=True, message=None):
        """Set the node's Ready condition (True, False or Unknown, or a bool) as the kubelet or node controller would."""
        with self.store.cond:
            node = self.store.get("nodes", None, name)
            condition = objects.ready_condition(_ready_word(ready), api_store.timestamp(), message)
            others = [c for c in node["status"].get("conditions", []) if c["type"] != "Ready"]
            node["status"]["conditions"] = others + [condition]
            return self.store.update("nodes", node, check_version=False)

    def register_kubelet(self, node, url):
        """Send the node proxy for ``node`` to ``url`` (a test's fake kubelet HTTP server)."""
        self.kubelets[node] = url

    def register_pod_endpoint(self, namespace, name, port, url):
        """Send the pod proxy for ``namespace/name:port`` to ``url`` (a test's service standing in for the pod's server)."""
        self.pod_endpoints[(namespace, name, str(port))] = url

    def add_daemonset(self, name, labels, namespace="default"):
        """A DaemonSet (apps/v1) whose selector is ``labels``."""
        return self.store.create("daemonsets", objects.workload("DaemonSet", name, namespace, labels))

    def add_replicaset(self, name, labels, namespace="default", replicas=1):
        """A ReplicaSet (apps/v1) with ``replicas`` and selector ``labels``."""
        return self.store.create("replicasets", objects.workload("ReplicaSet", name, namespace, labels, replicas))

    def add_pod(self, name, node, namespace="default", owner_kind=None, owner_name=None, labels=None, ready=True, phase="Running",
                grace=30, emptydir=False, mirror=False, create_owner=True, annotations=None):
        """A pod on ``node``. ``owner_kind`` DaemonSet/ReplicaSet sets a controller ownerReference (the
        owner is created when missing unless ``create_owner`` is False); ``mirror`` makes a static
        pod's mirror (annotation ``kubernetes.io/config.mirror``, owned by its Node)."""
        annotations = dict(annotations or {})
        if mirror:
            annotations[objects.MIRROR_ANNOTATION] = "0123456789abcdef0123456789abcdef"
            annotations["kubernetes.io/config.source"] = "file"
            owner_kind, owner_name = "Node", node
        pod = objects.pod(name, namespace, api_store.timestamp(), node_name=node, labels=labels, ready=ready, phase=phase,
                          grace=grace, emptydir=emptydir, annotations=annotations)
        if owner_kind:
            owner_name = owner_name or "%s-owner" % name
            pod["metadata"]["ownerReferences"] = [objects.owner_reference(owner_kind, owner_name, self._owner_uid(
                owner_kind, owner_name, namespace, labels or {}, create_owner))]
        return self.store.create("pods", pod)

    def _owner_uid(self, kind, name, namespace, labels, create):
        resource = {"DaemonSet": "daemonsets", "ReplicaSet": "replicasets", "Node": "nodes"}.get(kind)
        if resource is None:
            return "00000000-0000-0000-0000-000000000000"
        try:
            return self.store.get(resource, None if kind == "Node" else namespace, name)["metadata"]["uid"]
        except api_status.ApiError:
            if not create or kind == "Node":
                return "00000000-0000-0000-0000-000000000000"
        if kind == "DaemonSet":
            return self.add_daemonset(name, labels, namespace)["metadata"]["uid"]
        return self.add_replicaset(name, labels, namespace)["metadata"]["uid"]

    def add_pdb(self, name, match_labels, namespace="default", min_available=None, max_unavailable=None):
        """A policy/v1 PodDisruptionBudget; its status is computed from the pods on every read."""
        return self.store.create("poddisruptionbudgets", objects.pdb(name, namespace, match_labels, min_available, max_unavailable))

    def fail_eviction(self, name, code, message, namespace="default"):
        """Make every eviction of pod ``namespace/name`` fail with HTTP ``code`` and ``message`` (eviction.py
        ``failure``) until `allow_eviction`; ``code`` 429 or 404 are what a drain retries or takes as gone."""
        self.eviction_failures[(namespace, name)] = (int(code), str(message))

    def allow_eviction(self, name, namespace="default"):
        """Undo `fail_eviction` for that pod."""
        self.eviction_failures.pop((namespace, name), None)

    def add_event(self, involved, reason, message, event_type="Normal", component="kubelet", host=None):
        """A core/v1 Event about ``involved`` (an ObjectReference: ``objects.object_reference(obj)`` or the
        kubelet's ``objects.kubelet_node_reference(name)``), as client-go's recorder writes it."""
        return self.store.create("events", objects.event(involved, reason, message, api_store.timestamp(), event_type, component, host))

    def finish_job(self, name, succeeded=True, log="", namespace="default"):
        """End the Job's running pod: Succeeded or Failed with ``log`` as its output, the Job's status as its controller
        writes it (jobs.py ``finish``); returns the Job."""
        return jobs.finish(self.store, self.pod_logs, namespace, name, succeeded, log)

    def job(self, name, namespace="default"):
        """The Job as stored now, or None when it is gone."""
        try:
            return self.store.get("jobs", namespace, name)
        except api_status.ApiError:
            return None

    # -- reading back ----------------------------------------------------------------------
    def node(self, name):
        """The node as stored now."""
        return self.store.get("nodes", None, name)

    def pod(self, name, namespace="default"):
        """The pod as stored now, or None when it is gone."""
        try:
            return self.store.get("pods", namespace, name)
        except api_status.ApiError:
            return None

    def pod_names(self, node=None):
        """Sorted ``namespace/name`` of the pods (on ``node`` when given)."""
        pods = self.store.list("pods")[0]
        return sorted("%s/%s" % (p["metadata"]["namespace"], p["metadata"]["name"]) for p in pods
                      if node is None or p["spec"].get("nodeName") == node)


def _ready_word(ready):
    if ready is True:
        return "True"
    if ready is False:
        return "False"
    return ready
