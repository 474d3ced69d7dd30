# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Watch streams (``?watch=true`` or the legacy ``/watch/`` prefix), a double's subset of the real ones.

As the real watch (apiserver/pkg/endpoints/handlers/watch.go, meta/v1 ``WatchEvent``): a chunked
stream of JSON lines ``{"type": "ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK", "object": {...}}``.

Options, as the real server reads them:
- validation first (apimachinery/pkg/apis/meta/internalversion/validation validation.go
  ``ValidateListOptions`` / ``validateWatchOptions``): a 422 ``ListOptions.meta.k8s.io "" is
  invalid: ...`` for ``sendInitialEvents`` without ``resourceVersionMatch=NotOlderThan``, a match
  without ``sendInitialEvents`` on a watch, a match other than NotOlderThan on a watch, and
  ``sendInitialEvents`` on a list;
- defaulting (internalversion ``SetListOptionsDefaults``, the WatchList feature on): a watch with
  no or a ``"0"`` resourceVersion and neither option is read as ``sendInitialEvents=true`` with
  NotOlderThan;
- initial events: with ``sendInitialEvents=true`` (so also a legacy watch from no or ``"0"``
  resourceVersion) a synthetic ADDED for every object that matches now, then changes; with
  ``sendInitialEvents=false`` or a resourceVersion, only the changes after it (from now when unset);
- the watch-list protocol (KEP-3157, what kubectl 1.37's ``wait`` and client-go's reflector speak:
  ``sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan``): after
  the initial events one BOOKMARK whose object carries only ``metadata.resourceVersion`` (the
  revision the initial events reflect) and the annotation ``k8s.io/initial-events-end: "true"``
  (apiserver/pkg/storage/cacher/cacher.go ``isListWatchRequest``, cache_watcher.go
  ``convertToWatchEvent`` / storage ``AnnotateInitialEventsEndBookmark``). The real bookmark object
  is the kind's zero value, so it also has the type's empty ``spec``/``status``; clients read only
  the metadata. Without ``allowWatchBookmarks`` no bookmark is sent;
- filtering as cache_watcher.go ``convertToWatchEvent``: an object that starts matching the field
  or label selector arrives as ADDED, one that stops matching as DELETED;
- the stream ends after ``timeoutSeconds`` (the double caps it at 60 s; the real server picks
  30-60 min when unset). The real server's periodic bookmarks (about every minute and 2 s before
  the timeout) are not sent.
"""

import json
import time

from apiserver import status as api_status

MAX_SECONDS = 60
INITIAL_EVENTS_END = "k8s.io/initial-events-end"
NOT_OLDER_THAN = "NotOlderThan"


def _flag(value):
    """A bool query parameter as the API's query conversion reads it (strconv.ParseBool)."""
    if value is None:
        return None
    return value in ("1", "t", "T", "true", "TRUE", "True")


def _invalid(errors):
    detail = errors[0] if len(errors) == 1 else "[%s]" % ", ".join(errors)
    return api_status.ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                "message": 'ListOptions.meta.k8s.io "" is invalid: %s' % detail, "reason": "Invalid",
                                "details": {"group": "meta.k8s.io", "kind": "ListOptions"}, "code": 422})


def options(query, watching):
    """Validate and default the list/watch options of ``query``; ``(send_initial_events, bookmarks)``.

    Raises ApiError (422) as ValidateListOptions refuses them."""
    send_initial = _flag(query.get("sendInitialEvents"))
    match = query.get("resourceVersionMatch") or ""
    version = query.get("resourceVersion") or ""
    errors = []
    if not watching:
        if match and not version:
            errors.append("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided")
        if match and match not in ("Exact", NOT_OLDER_THAN):
            errors.append('resourceVersionMatch: Unsupported value: "%s": supported values: "Exact", "NotOlderThan", ""' % match)
        if send_initial is not None:
            errors.append("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list")
        if errors:
            raise _invalid(errors)
        return None, False
    if send_initial is None and not match and version in ("", "0"):
        send_initial, match = True, NOT_OLDER_THAN
    if send_initial is not None and match != NOT_OLDER_THAN:
        errors.append("resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
    if match and send_initial is None:
        errors.append("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
    if match and match != NOT_OLDER_THAN:
        errors.append('resourceVersionMatch: Unsupported value: "%s": supported values: "NotOlderThan"' % match)
    if errors:
        raise _invalid(errors)
    return bool(send_initial), bool(send_initial) and _flag(query.get("allowWatchBookmarks")) is True


def _event(event_type, obj):
    return (json.dumps({"type": event_type, "object": obj}, separators=(",", ":")) + "\n").encode()


def bookmark(kind, api_version, resource_version):
    """The watch-list end-of-initial-events BOOKMARK's object (see the module docstring)."""
    return {"kind": kind, "apiVersion": api_version,
            "metadata": {"resourceVersion": resource_version, "annotations": {INITIAL_EVENTS_END: "true"}}}


def _key(obj):
    return (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])


def _visible_at(store, resource, revision, wanted):
    """The keys of the objects that matched at ``revision``, replayed from the store's event log."""
    latest = {}
    for rv, res, kind, obj in store.events:
        if rv <= revision and res == resource:
            latest[_key(obj)] = (kind, obj)
    return {key for key, (kind, obj) in latest.items() if kind != "DELETED" and wanted(obj)}


def stream(handler, store, resource, namespace, matches, query, type_meta):
    """Write a watch stream to ``handler`` (a BaseHTTPRequestHandler) until the timeout.

    ``type_meta`` is the resource's ``(kind, apiVersion)`` for the bookmark; raises ApiError before
    anything is written when the options are invalid."""
    send_initial, bookmarks = options(query, True)
    resource_version = query.get("resourceVersion") or ""
    timeout_seconds = int(query.get("timeoutSeconds") or 0)
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    deadline = time.time() + min(timeout_seconds or MAX_SECONDS, MAX_SECONDS)

    def write(data):
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        handler.wfile.flush()

    def wanted(obj):
        return namespace in (None, obj["metadata"].get("namespace", "")) and matches(obj)

    try:
        with store.cond:
            items, current = store.list(resource, namespace)
            last = int(current) if send_initial or resource_version == "" else int(resource_version)
            visible = _visible_at(store, resource, last, wanted)
            if send_initial:
                for obj in items:
                    if _key(obj) in visible:
                        write(_event("ADDED", obj))
                if bookmarks:
                    write(_event("BOOKMARK", bookmark(type_meta[0], type_meta[1], current)))
        while time.time() < deadline:
            with store.cond:
                store.reap()
                pending = [(rv, kind, obj) for rv, res, kind, obj in store.events if rv > last and res == resource]
                if not pending:
                    store.cond.wait(timeout=0.2)
                    continue
            for rv, kind, obj in pending:
                last = rv
                now, before = kind != "DELETED" and wanted(obj), _key(obj) in visible
                if now:
                    visible.add(_key(obj))
                else:
                    visible.discard(_key(obj))
                if now or before:
                    write(_event(kind if now == before else ("ADDED" if now else "DELETED"), obj))
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass
    handler.close_connection = True
