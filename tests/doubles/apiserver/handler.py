# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP routing of the API server double: REST paths to store operations, errors to Status bodies.

Paths and verbs as the real server lays them out (apiserver/pkg/endpoints/installer.go):
``/api/v1/<resource>[/<name>[/<subresource>]]``, ``/api/v1/namespaces/<ns>/<resource>/...``,
``/apis/<group>/<version>/...``, the legacy ``.../watch/...`` prefix, list across namespaces at
``/api/v1/pods``. Codes: GET/PATCH/PUT/DELETE 200, POST 201 (create handler), errors with the
Status's ``code``. A DELETE answers the object (with ``deletionTimestamp`` while a pod's grace
period runs). PUT/PATCH of ``/status`` changes only ``status``, of the object everything but
``status`` (the registries' PrepareForUpdate). Every request is logged as (method, path with query)
in ``double.requests`` so tests can see what a client really sent. Protobuf request bodies
(kubectl's DeleteOptions) are read into their JSON form first (protobuf_body.py). ``dryRun=All`` writes check and
answer but change nothing (dryrun.py). Jobs' create, delete, table and their pods' ``log`` are jobs.py's; a
warning (apiserver/pkg/warning) goes out as ``Warning: 299 - "<text>"`` (endpoints/filters/warning.go).
"""

import copy
import http.server
import json
import urllib.parse

from apiserver import binding, discovery, dryrun, eviction, jobs, leases, nodemaintenance
from apiserver import objects, patch, protobuf_body, proxy, selection, tables, watch, workloads
from apiserver import status as api_status
from apiserver import store as api_store
from apiserver import tls as api_tls


def _strip_list_item(obj):
    obj = dict(obj)
    obj.pop("kind", None)
    obj.pop("apiVersion", None)
    return obj


class Handler(http.server.BaseHTTPRequestHandler):
    """One request; ``self.server.double`` is the ApiServerDouble."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        """Quiet: tests read ``double.requests`` instead of stderr."""

    def _body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, code, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else (json.dumps(body, separators=(",", ":")) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for text in getattr(self, "warnings", ()):
            self.send_header("Warning", '299 - "%s"' % text)
        if isinstance(body, dict) and body.get("kind") == "Status" and (body.get("details") or {}).get("retryAfterSeconds", 0) > 0:
            self.send_header("Retry-After", str(body["details"]["retryAfterSeconds"]))
        self.end_headers()
        self.wfile.write(data)

    def _dispatch(self):
        double = self.server.double
        url = urllib.parse.urlsplit(self.path)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
        body = self._body()
        self.warnings = []
        user, refused = api_tls.authenticate(double.tokens, self.headers.get("Authorization"), self.connection)
        double.requests.append((self.command, self.path), user=user)
        try:
            if refused is not None:
                raise refused
            if self.headers.get("Content-Type", "").startswith(protobuf_body.CONTENT_TYPE) and body:
                body = protobuf_body.json_body(body)
            result = self._route(double, url.path, query, body)
            if result is not None:
                self._send(*result)
        except api_status.ApiError as error:
            self._send(error.code, error.status)
        except (ValueError, KeyError, TypeError) as exc:
            error = api_status.bad_request("the double could not handle this request: %r" % (exc,))
            self._send(error.code, error.status)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch

    def _route(self, double, path, query, body):
        parts = [p for p in path.split("/") if p]
        if path in ("/healthz", "/readyz", "/livez"):
            return 200, b"ok", "text/plain; charset=utf-8"
        if path == "/version":
            return 200, discovery.version()
        if path == "/metrics":
            return 200, discovery.metrics(double.feature_gates).encode("utf-8"), "text/plain; version=0.0.4; charset=utf-8"
        if path == "/api":
            return 200, discovery.api_versions("127.0.0.1:%d" % double.port)
        custom = double.custom_resources
        if path == "/apis":
            return 200, discovery.api_group_list(custom)
        if len(parts) == 2 and parts[0] == "apis" and parts[1] in discovery.GROUPS:
            return 200, discovery.api_group(parts[1])
        if len(parts) == 2 and parts[0] == "apis" and discovery.custom_group(custom, parts[1]):
            return 200, discovery.api_group(parts[1], discovery.custom_group(custom, parts[1]))
        if parts[:2] == ["api", "v1"]:
            group, rest = "", parts[2:]
        elif len(parts) >= 3 and parts[0] == "apis":
            group, rest = parts[1], parts[3:]
            if "%s/%s" % (parts[1], parts[2]) not in discovery.served(custom):
                raise api_status.plain_not_found()
        else:
            raise api_status.plain_not_found()
        if not rest:
            return 200, discovery.resource_list("%s/%s" % (group, parts[2]) if group else "v1", custom)
        return self._resource(double, group, rest, query, body)

    def _resource(self, double, group, rest, query, body):
        watching = rest[0] == "watch" or query.get("watch") in ("1", "true")
        if rest[0] == "watch":
            rest = rest[1:]
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
        resource, name = rest[0], (rest[1] if len(rest) > 1 else None)
        sub, tail = (rest[2] if len(rest) > 2 else None), "/".join(rest[3:])
        if resource not in api_store.RESOURCES or api_store.RESOURCES[resource][0] != group:
            raise api_status.plain_not_found()
        namespaced = api_store.RESOURCES[resource][3]
        if namespaced and name is not None and namespace is None:
            raise api_status.plain_not_found()
        if resource == "nodes" and sub == "proxy":
            return self._proxy(double, name, tail, body)
        if resource == "pods" and sub == "proxy":
            return self._pod_proxy(double, namespace, name, tail, body)
        if name is None:
            return self._collection(double, resource, namespace, query, body, watching)
        return self._item(double, resource, namespace, name, sub, query, body)

    def _proxy(self, double, name, tail, body):
        node = double.store.get("nodes", None, name)
        base = proxy.kubelet_base(node, double.kubelets.get(name))
        query = urllib.parse.urlsplit(self.path).query
        return proxy.forward(base, self.command, tail, query, self.headers, body)

    def _pod_proxy(self, double, namespace, id_, tail, body):
        split = proxy.split_scheme_name_port(id_)
        if split is None:
            raise api_status.bad_request('invalid pod request "%s"' % id_)
        pod = double.store.get("pods", namespace, split[1])
        base = proxy.pod_base(pod, id_, double.pod_endpoints)
        return proxy.forward(base, self.command, tail, urllib.parse.urlsplit(self.path).query, self.headers, body)

    def _wants_table(self):
        return "as=Table" in self.headers.get("Accept", "")

    @staticmethod
    def _view(double, resource, obj):
        """Objects whose status a controller keeps: computed from the pods now."""
        if resource == "poddisruptionbudgets":
            return eviction.with_status(double.store, obj)
        if resource in ("daemonsets", "replicasets"):
            pods = double.store.list("pods", obj["metadata"]["namespace"])[0]
            uid = obj["metadata"]["uid"]
            owned = [p for p in pods if any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])]
            obj["status"] = objects.workload_status(obj, owned)
        if resource in ("deployments", "statefulsets"):
            obj["status"] = workloads.status(double.store, resource, obj)
        return obj

    def _collection(self, double, resource, namespace, query, body, watching):
        store = double.store
        if self.command == "POST":
            obj = json.loads(body)
            obj.setdefault("metadata", {})
            if namespace is not None:
                obj["metadata"]["namespace"] = namespace
            if resource == "pods":
                # podStrategy.PrepareForCreate (pkg/registry/core/pod/strategy.go): a new pod's status is
                # reset to Pending with its QoS class; only the kubelet fills it in later, through /status.
                obj["status"] = {"phase": "Pending", "qosClass": objects.qos_class(obj.get("spec") or {})}
            if resource == "jobs":
                obj = jobs.prepare_create(obj)
            # PrepareForCreate of the pod and workload strategies: defaults, and the PodLevelResources drop (workloads.py).
            obj = workloads.drop_disabled(resource, workloads.prepare_create(resource, obj), double.feature_gates.get(workloads.GATE, ("", True))[1])
            if resource == "leases":
                leases.validate(obj)
            if resource == "nodemaintenances":
                obj = nodemaintenance.prepare_create(obj)
            return 201, store.create(resource, obj, dry_run=dryrun.requested("CreateOptions", query))
        if self.command != "GET":
            raise api_status.method_not_supported(resource, self.command.lower(), api_store.RESOURCES[resource][0])
        fields = selection.field_matcher(resource, query.get("fieldSelector"))
        labels = selection.label_matcher(query.get("labelSelector"))

        def matches(obj):
            return fields(obj) and labels(obj["metadata"].get("labels"))

        if watching:
            group, version, kind = api_store.RESOURCES[resource][:3]
            watch.stream(self, store, resource, namespace, matches, query, (kind, "%s/%s" % (group, version) if group else version))
            return None
        watch.options(query, watching=False)
        items, revision = store.list(resource, namespace)
        items = [self._view(double, resource, o) for o in items if matches(o)]
        if self._wants_table():
            table = tables.table(resource, items, revision, query.get("includeObject", "Metadata"))
            if table is not None:
                return 200, table
        group, version, kind = api_store.RESOURCES[resource][:3]
        return 200, {"kind": kind + "List", "apiVersion": "%s/%s" % (group, version) if group else version,
                     "metadata": {"resourceVersion": revision}, "items": [_strip_list_item(o) for o in items]}

    def _item(self, double, resource, namespace, name, sub, query, body):
        store = double.store
        if resource == "pods" and sub == "binding":
            if self.command != "POST":
                raise api_status.method_not_supported("pods/binding", self.command.lower())
            return binding.bind(store, namespace, name, json.loads(body or b"{}"))
        if resource == "pods" and sub == "eviction":
            if self.command != "POST":
                raise api_status.method_not_supported("pods/eviction", self.command.lower())
            code, result = eviction.evict(store, namespace, name, json.loads(body or b"{}"), query.get("dryRun"), double.eviction_failures)
            return code, result
        if resource == "pods" and sub == "log" and self.command == "GET":
            return 200, jobs.log_text(double.pod_logs, store, namespace, name, query).encode(), "text/plain"
        if sub not in (None, "status"):
            raise api_status.plain_not_found()
        if self.command == "GET":
            obj = self._view(double, resource, store.get(resource, namespace, name))
            if self._wants_table() and sub is None:
                table = tables.table(resource, [obj], obj["metadata"]["resourceVersion"], query.get("includeObject", "Metadata"))
                if table is not None:
                    return 200, table
            return 200, obj
        if self.command == "DELETE":
            options = json.loads(body) if body else {}
            if "gracePeriodSeconds" in query:
                options["gracePeriodSeconds"] = int(query["gracePeriodSeconds"])
            if "propagationPolicy" in query:
                options["propagationPolicy"] = query["propagationPolicy"]
            if resource == "jobs":
                answer, self.warnings = jobs.delete(store, namespace, name, options, dry_run=dryrun.requested("DeleteOptions", query, options))
                return 200, answer
            return 200, store.delete(resource, namespace, name, options, dry_run=dryrun.requested("DeleteOptions", query, options))
        if self.command in ("PUT", "PATCH"):
            dry_run = dryrun.requested("UpdateOptions" if self.command == "PUT" else "PatchOptions", query)
            with store.cond:
                current = store.get(resource, namespace, name)
                if self.command == "PUT":
                    wanted = json.loads(body)
                else:
                    wanted = patch.apply(self.headers.get("Content-Type"), current, body)
                if resource == "leases":
                    leases.validate(wanted)
                return 200, store.update(resource, self._merge_scope(current, wanted, sub, name, resource), dry_run=dry_run)
        raise api_status.method_not_supported(resource, self.command.lower(), api_store.RESOURCES[resource][0])

    @staticmethod
    def _merge_scope(current, wanted, sub, name, resource):
        """Keep what the endpoint may not change: ``status`` on the object, everything else on /status."""
        if wanted.get("metadata", {}).get("name", name) != name:
            raise api_status.bad_request("the name of the object (%s) does not match the name on the URL (%s)" % (wanted["metadata"]["name"], name))
        result = copy.deepcopy(current)
        if sub == "status":
            result["status"] = wanted.get("status", {})
        else:
            result.update({k: v for k, v in wanted.items() if k != "status"})
            result["metadata"] = dict(wanted.get("metadata") or current["metadata"], name=name)
            if "namespace" in current["metadata"]:
                result["metadata"]["namespace"] = current["metadata"]["namespace"]
        if resource != "poddisruptionbudgets" or sub == "status":
            return result
        if result.get("spec") != current.get("spec"):
            result["metadata"]["generation"] = current["metadata"].get("generation", 1) + 1
        return result
