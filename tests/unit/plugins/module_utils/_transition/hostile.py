# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Not a test: a real TCP server on 127.0.0.1 that answers HTTP the way a broken or hostile API server would.

``Hostile(behaviour)`` accepts connections in a thread, reads each request (line, headers, a body of
``Content-Length``), records ``(method, path)`` in ``requests`` and hands the socket to ``behaviour``:
- ``silent``: accepts and never answers;
- ``trickle_headers``: a status line, then one header byte every ``interval`` seconds, forever;
- ``trickle_body``: whole headers with ``Content-Length: 100000``, then one body byte every ``interval``;
- ``endless_chunked``: a chunked body of 1 KiB chunks every 50 ms that never ends;
- ``endless_fast``: a body without a length, sent as fast as the socket takes it, until the client goes;
- ``huge_length``: headers that announce ``Content-Length: 1000000000000``;
- ``gzip_encoded``: a 200 with ``Content-Encoding: gzip``;
- ``keepalive_then_silent``: a whole answer on a kept-alive connection, then silence for the next request on it;
- ``answer(status, body)``: one whole answer (a JSON text, say), ``Content-Length`` set.
Every behaviour ends when the client closes or `stop` is called, so no thread outlives its test.
"""

import socket
import threading


class Hostile:  # pylint: disable=too-many-instance-attributes
    """A server on 127.0.0.1: ``url``, ``requests``, ``stop()``."""

    def __init__(self, behaviour, interval=2.0):
        self.behaviour, self.interval = behaviour, interval
        self.requests = []
        self.stopped = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.url = "http://127.0.0.1:%d" % self.listener.getsockname()[1]
        self.connections = []
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                conn, _peer = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.connections.append(conn)
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _serve(self, conn):
        try:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _sep, rest = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[:2]
            length = 0
            for line in lines[1:]:
                name, _colon, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            while len(rest) < length:
                rest += conn.recv(65536)
            self.requests.append((method, path))
            conn.settimeout(None)
            self.behaviour(self, conn)
        except OSError:
            pass
        finally:
            conn.close()

    def wait(self, seconds):
        """Sleep ``seconds`` unless stopped; False once stopped."""
        return not self.stopped.wait(seconds)

    def stop(self):
        """Stop accepting, end every behaviour, close every connection."""
        self.stopped.set()
        self.listener.close()
        for conn in self.connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for thread in self.threads:
            thread.join(10)


def silent(server, _conn):
    while server.wait(0.1):
        pass


def trickle_headers(server, conn):
    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    while server.wait(server.interval):
        conn.sendall(b"a")


def trickle_body(server, conn):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
    while server.wait(server.interval):
        conn.sendall(b" ")


def endless_chunked(server, conn):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    while server.wait(0.05):
        conn.sendall(b"400\r\n" + b" " * 1024 + b"\r\n")


def endless_fast(server, conn):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
    block = b"x" * 65536
    while not server.stopped.is_set():
        conn.sendall(block)


def huge_length(server, conn):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n{")
    while server.wait(0.1):
        pass


def gzip_encoded(_server, conn):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}")


def answer(status, body, content_type="application/json"):
    """A behaviour answering ``status`` with ``body`` (bytes or str; a callable of the path gives it per request)."""

    def behaviour(server, conn):
        text = body(server.requests[-1][1]) if callable(body) else body
        data = text.encode() if isinstance(text, str) else text
        conn.sendall(b"HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                     % (status, content_type.encode(), len(data)) + data)

    return behaviour


KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
users:
- name: u
  user:
{user}
contexts:
- name: x
  context:
    cluster: c
    user: u
current-context: x
"""


def write_kubeconfig(path, server, user="    token: t0ken-not-shown-anywhere"):
    """A kubeconfig at ``path`` pointing at ``server`` (a URL) with ``user`` (YAML lines of the user entry); returns the path."""
    path.write_text(KUBECONFIG.format(server=server, user=user))
    return str(path)


def keepalive_then_silent(server, conn):
    """Answer the first request whole on a kept-alive connection, then read the next one on it and never answer."""
    body = b'{"metadata": {"name": "n1"}}'
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    conn.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    server.requests.append(tuple(data.split(b" ")[:2][i].decode() for i in (0, 1)))
    while server.wait(0.1):
        pass
