"""An HTTP endpoint on 127.0.0.1 that serves whatever exposition text the test sets (Prometheus text format 0.0.4).

Not a client library: the case classes need what no client library writes (``le`` spellings Go refuses, NaN counts, one
bound under two spellings, a restart only ``*_created`` shows). `Exposition.set(text)` replaces the body atomically.
"""

import http.server
import threading

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Exposition:
    """The endpoint and its current body."""

    def __init__(self):
        self.lock = threading.Lock()
        self.body = b""
        exposition = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                with exposition.lock:
                    body = exposition.body
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def set(self, text):
        with self.lock:
            self.body = text.encode("utf-8")

    def close(self):
        self.server.shutdown()
        self.server.server_close()
