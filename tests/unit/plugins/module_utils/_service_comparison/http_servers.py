"""Not a test: real HTTP servers on 127.0.0.1 (threaded http.server) for the service window reads.

``Served(handler_behaviour)`` runs a ``ThreadingHTTPServer`` in a thread: ``url``, ``seen`` (each
request's ``(path, headers)``), ``stop()``. Behaviours (callables of the request handler):
- `prometheus(table)`: ``/api/v1/query`` answered from ``table`` (query -> vector result; a query
  missing from it is an empty vector; a value that is an int is an HTTP status with Prometheus'
  error JSON), anything else a 404;
- `metrics(text)`: ``text`` (a str, or a callable giving the next one) as a ``/metrics`` body;
- `trickle`: whole headers announcing ``Content-Length: 100000``, then one body byte every ``interval`` seconds;
- `silent`: reads the request and never answers;
- `body(data, length=True)`: ``data`` whole, with a ``Content-Length`` or (``length=False``) until the connection closes.
Every behaviour ends when `stop` is called, so no thread outlives its test.
"""

import http.server
import json
import sys
import threading
import urllib.parse


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        """Quiet."""

    def do_GET(self):  # pylint: disable=invalid-name
        """Record the request, then hand it to the server's behaviour."""
        self.server.served.seen.append((self.path, dict(self.headers.items())))
        try:
            self.server.served.behaviour(self)
        except OSError:
            pass  # the client went (its deadline passed): nothing to answer

    def answer(self, status, data, content_type="text/plain; version=0.0.4", length=True):
        """One whole answer of ``data`` (bytes)."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(data)))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """Quiet: a client that went at its deadline resets the connection; anything else is printed."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class Served:
    """A running server: ``url``, ``seen``, ``stopped`` (an Event behaviours wait on), ``interval``, ``stop()``."""

    def __init__(self, behaviour, interval=2.0):
        self.behaviour, self.interval = behaviour, interval
        self.seen = []
        self.stopped = threading.Event()
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.served = self
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def stop(self):
        """End every behaviour, stop serving, close the listener."""
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)


def prometheus(table):
    """A Prometheus-like ``/api/v1/query``: ``table`` maps a query to its vector (a list) or to an HTTP error status (an int)."""

    def behaviour(handler):
        parsed = urllib.parse.urlsplit(handler.path)
        if parsed.path != "/api/v1/query":
            handler.answer(404, b"404 page not found\n")
            return
        query = urllib.parse.parse_qs(parsed.query)["query"][0]
        found = table.get(query, [])
        if isinstance(found, int):
            document = {"status": "error", "errorType": "bad_data", "error": "1:1: parse error: unexpected character"}
            handler.answer(found, json.dumps(document).encode(), "application/json")
            return
        document = {"status": "success", "data": {"resultType": "vector", "result": found}}
        handler.answer(200, json.dumps(document).encode(), "application/json")

    return behaviour


def metrics(text):
    """``/metrics`` answering ``text`` (or ``text()``, called per request); any other path a 404."""

    def behaviour(handler):
        if urllib.parse.urlsplit(handler.path).path != "/metrics":
            handler.answer(404, b"404 page not found\n")
            return
        handler.answer(200, (text() if callable(text) else text).encode())

    return behaviour


def trickle(handler):
    """Headers whole, then one body byte every ``interval`` seconds of a body that would take 100000 of them."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    handler.wfile.flush()
    while not handler.server.served.stopped.wait(handler.server.served.interval):
        handler.wfile.write(b" ")
        handler.wfile.flush()


def silent(handler):
    """Never answer (until the server stops)."""
    handler.server.served.stopped.wait(60)
    handler.close_connection = True


def body(data, length=True):
    """``data`` (bytes) whole as a 200, with its ``Content-Length`` or (``length=False``) ended by closing the connection."""

    def behaviour(handler):
        handler.answer(200, data, length=length)

    return behaviour
