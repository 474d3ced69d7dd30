# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Watch streams (``?watch=true`` or the legacy ``/watch/`` prefix), a double's subset of the real ones.

As the real watch (apiserver/pkg/endpoints/handlers/watch.go, meta/v1 ``WatchEvent``): a chunked
stream of JSON lines ``{"type": "ADDED"|"MODIFIED"|"DELETED", "object": {...}}``; without a
``resourceVersion`` (or with ``"0"``) it starts with a synthetic ADDED for every object that
matches, then sends changes; with one, it replays the changes after it. The stream ends after
``timeoutSeconds`` (the double caps it at 60 s; the real server picks 30-60 min when unset).
Simplification: an object that stops matching a field selector is not sent as DELETED.
"""

import json
import time

MAX_SECONDS = 60


def _event(event_type, obj):
    return (json.dumps({"type": event_type, "object": obj}, separators=(",", ":")) + "\n").encode()


def stream(handler, store, resource, namespace, matches, resource_version, timeout_seconds):
    """Write a watch stream to ``handler`` (a BaseHTTPRequestHandler) until the timeout."""
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
            if resource_version in (None, "", "0"):
                items, current = store.list(resource, namespace)
                for obj in items:
                    if wanted(obj):
                        write(_event("ADDED", obj))
                last = int(current)
            else:
                last = int(resource_version)
        while time.time() < deadline:
            with store.cond:
                store.reap()
                pending = [(rv, kind, obj) for rv, res, kind, obj in store.events if rv > last and res == resource]
                if not pending:
                    store.cond.wait(timeout=0.2)
                    continue
            for rv, kind, obj in pending:
                last = rv
                if wanted(obj):
                    write(_event(kind, obj))
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass
    handler.close_connection = True
