# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One HTTP exchange, bounded in bytes and ended by one deadline whatever the server does.

Public: `bound`, `exchange`, `header_problem`, `TransportError` and its kinds `Unreached`, `Untrusted`, `Expired`, `TooLarge`, `Refused`, `Broken`.

urllib3's timeouts bound each socket operation, not the exchange: a server that sends one byte
every two seconds, of its headers or of a body that never ends, is never slower than a read
timeout, and urllib3's default retries repeat a silent server four times. So `bound` gives a
urllib3 PoolManager (the kubernetes client's, with its TLS and proxy settings) connection classes
that hand every socket they open or reuse to the exchange in progress, and `exchange` runs a
timer that shuts those sockets down when its deadline passes: any blocked connect, TLS handshake,
header or body read then returns at once, and the exchange reports how far the answer got. No
retry happens here (``retries=False``); the caller retries inside the same deadline. The body is
read in chunks and refused past ``max_bytes`` (a ``Content-Length`` above it is refused before
reading); ``Accept-Encoding: identity`` is asked for and an encoded answer refused, so the bound
counts what is parsed (no decompression bomb).
"""

from __future__ import annotations

import os
import socket
import ssl
import threading
import time

try:
    import urllib3
    from urllib3 import exceptions as urllib3_exceptions
    HAS_URLLIB3 = True
except ImportError:  # pragma: no cover - the kubernetes client requires urllib3
    HAS_URLLIB3 = False

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError

CHUNK = 65536
_CURRENT = threading.local()
# Errors raised before anything was sent (urllib3 1.26 has no NameResolutionError: it raises NewConnectionError there).
_UNREACHED = tuple(getattr(urllib3_exceptions, name) for name in ("NewConnectionError", "ConnectTimeoutError", "NameResolutionError")
                   if HAS_URLLIB3 and hasattr(urllib3_exceptions, name))


class TransportError(NumaGateError):
    """An exchange that did not give a whole answer: ``stage`` (how far it got), ``status`` (HTTP code or None), ``received`` (body bytes)."""

    def __init__(self, message, stage="", status=None, received=0):
        super().__init__(message)
        self.stage, self.status, self.received = stage, status, received


class Unreached(TransportError):
    """No connection was made: nothing was sent, so trying again is safe."""


class Untrusted(Unreached):
    """The server's TLS certificate failed verification (an unknown CA, another host name): nothing was sent; trying again changes nothing."""


class Expired(TransportError):
    """The deadline passed before the answer was whole."""


class TooLarge(TransportError):
    """The answer is larger than the bound."""


class Refused(TransportError):
    """An answer of a form this client does not read (an encoded body)."""


class Broken(TransportError):
    """The connection failed after the request may have been sent."""


class _Watch:
    """The sockets of one exchange, shut down (through duplicated descriptors) when its deadline passes."""

    def __init__(self, seconds):
        self.lock = threading.Lock()
        self.sockets = []
        self.fired = False
        self.closed = False
        self.timer = threading.Timer(max(0.0, seconds), self._fire)
        self.timer.daemon = True

    def add(self, sock):
        """Watch ``sock`` (a plain or TLS socket) through a duplicate of its descriptor."""
        try:
            dup = socket.socket(fileno=os.dup(sock.fileno()))
        except (OSError, ValueError):
            return
        with self.lock:
            self.sockets.append(dup)
            late = self.fired
        if late:
            _shut(dup)

    def _fire(self):
        with self.lock:
            if self.closed:
                return
            self.fired = True
            sockets = list(self.sockets)
        for sock in sockets:
            _shut(sock)

    def close(self):
        """Stop the timer and let go of the duplicates (the connections themselves stay as urllib3 left them)."""
        self.timer.cancel()
        with self.lock:
            self.closed = True
            sockets, self.sockets = self.sockets, []
        for sock in sockets:
            sock.close()


def _shut(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _watched(connection_cls):
    """A subclass of a urllib3 connection class whose sockets the exchange in progress watches."""

    class Watched(connection_cls):  # pylint: disable=too-few-public-methods
        """``connection_cls`` handing each new or reused socket to the current exchange's watch."""

        def _new_conn(self):
            sock = super()._new_conn()
            watch = getattr(_CURRENT, "watch", None)
            if watch is not None:
                watch.add(sock)
            return sock

        def request(self, *args, **kwargs):  # pylint: disable=arguments-differ,signature-differs
            """urllib3's request, with a kept-alive socket watched first."""
            watch = getattr(_CURRENT, "watch", None)
            if watch is not None and getattr(self, "sock", None) is not None:
                watch.add(self.sock)
            return super().request(*args, **kwargs)

    # The class's name shows in urllib3's messages ("HTTPConnection(host=..., port=...): ..."): keep the original's.
    Watched.__name__ = connection_cls.__name__
    Watched.__qualname__ = connection_cls.__qualname__
    return Watched


def bound(pool_manager):
    """Make ``pool_manager`` (a urllib3 PoolManager, ProxyManager or SOCKSProxyManager) use watched connections; returns it."""
    if getattr(pool_manager, "_numa_gate_bound", False):
        return pool_manager
    classes = {}
    for scheme, pool_cls in pool_manager.pool_classes_by_scheme.items():
        classes[scheme] = type("Bounded" + pool_cls.__name__, (pool_cls,), {"ConnectionCls": _watched(pool_cls.ConnectionCls)})
    pool_manager.pool_classes_by_scheme = classes
    pool_manager.clear()
    pool_manager._numa_gate_bound = True  # pylint: disable=protected-access
    return pool_manager


NO_ANSWER = "status line and headers not received in full"


def _stage(status, received):
    if status is None:
        return NO_ANSWER
    return "HTTP %d, %d byte%s of the body received" % (status, received, "" if received == 1 else "s")


_TOKEN = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def header_problem(headers):
    """Why ``headers`` cannot be sent as given, or None: a name that is not an HTTP token (RFC 9110), a value that is not
    one line of text (CR, LF, NUL or another control character would split or end the header). A value is never quoted:
    it may hold a credential; a name is quoted at most 40 characters, its control characters escaped."""
    if not isinstance(headers, dict):
        return "headers must be a mapping of header name to value, got %s" % type(headers).__name__
    for name, value in headers.items():
        shown = repr(str(name)[:40]) + ("..." if len(str(name)) > 40 else "")
        if not isinstance(name, str) or not name or any(char not in _TOKEN for char in name):
            return ("header name %s is not an HTTP field name (a token of letters, digits and !#$%%&'*+-.^_`|~, RFC 9110); not sent"
                    % shown)
        if not isinstance(value, str):
            return "header %s value is of type %s, not a string; not sent" % (shown, type(value).__name__)
        for offset, char in enumerate(value):
            if (ord(char) < 32 and char != "\t") or ord(char) == 127:
                return ("header %s has a control character (U+%04X) at offset %d of its value (%d characters, not shown: it may "
                        "hold a credential); a CR or LF would end the header and start another; not sent" % (shown, ord(char), offset, len(value)))
    return None


def exchange(pool_manager, method, url, headers, body, deadline, max_bytes, clock=time.monotonic):
    """``(status, body bytes)`` of one request, ended by ``deadline`` (a ``clock()`` time); raises a `TransportError`."""
    problem = header_problem(headers or {})
    if problem:
        raise TransportError(problem, stage="not sent")
    remaining = deadline - clock()
    if remaining <= 0:
        raise Expired("no time left before sending", stage="not sent")
    headers = dict(headers or {}, **{"Accept-Encoding": "identity"})
    watch = _Watch(remaining)
    _CURRENT.watch = watch
    watch.timer.start()
    status, received, response = None, 0, None
    try:
        try:
            response = pool_manager.request(method, url, body=body, headers=headers, retries=False, redirect=False,
                                            preload_content=False, decode_content=False,
                                            timeout=urllib3.Timeout(connect=remaining, read=remaining))
        except (urllib3_exceptions.HTTPError, OSError) as exc:
            if watch.fired or clock() >= deadline:
                raise Expired("no answer", stage=NO_ANSWER) from exc
            kind = Untrusted if _verify_failed(exc) else Unreached if isinstance(exc, _UNREACHED) else Broken
            raise kind(_reason(exc), stage=NO_ANSWER) from exc
        if watch.fired:
            # The shutdown cut the headers short: http.client took the end of the stream for their end.
            raise Expired("no answer", stage=NO_ANSWER)
        status = response.status
        encoding = (response.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding != "identity":
            raise Refused("the answer is encoded (Content-Encoding: %s) though identity was asked for; not decoded" % encoding[:40],
                          stage="HTTP %d" % status, status=status)
        length = response.headers.get("Content-Length")
        if length and length.strip().isdigit() and int(length) > max_bytes:
            raise TooLarge("its Content-Length is over the bound", stage="HTTP %d, Content-Length %s" % (status, length.strip()), status=status)
        chunks = []
        # read1: one read of the socket per call, so what is counted is what arrived (read() waits to fill CHUNK bytes).
        read = getattr(response, "read1", None) or response.read
        try:
            while True:
                chunk = read(CHUNK)
                if not chunk:
                    break
                received += len(chunk)
                if received > max_bytes:
                    raise TooLarge("more than the bound was sent", stage=_stage(status, received), status=status, received=received)
                chunks.append(chunk)
        except (urllib3_exceptions.HTTPError, OSError) as exc:
            if watch.fired or clock() >= deadline:
                raise Expired("the answer did not end", stage=_stage(status, received), status=status, received=received) from exc
            raise Broken(_reason(exc), stage=_stage(status, received), status=status, received=received) from exc
        if watch.fired:
            # The shutdown ends a body without a length as if the server had closed it: not a whole answer.
            raise Expired("the answer did not end", stage=_stage(status, received), status=status, received=received)
        return status, b"".join(chunks)
    finally:
        _CURRENT.watch = None
        watch.close()
        if response is not None:
            _release(response, whole=not watch.fired and status is not None)


def _release(response, whole):
    try:
        if not whole:
            response.close()
        response.release_conn()
    except (urllib3_exceptions.HTTPError, OSError, AttributeError):
        pass  # a connection that cannot be given back is dropped; the answer is already decided


def _verify_failed(exc):
    """Whether ``exc`` (a urllib3 error) comes of the TLS certificate check (ssl.SSLCertVerificationError, raised before any byte of the request)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ssl.SSLCertVerificationError):
            return True
        inner = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None
        exc = inner or exc.__cause__ or exc.__context__
    return False


def _reason(exc):
    """A one-line reason from a urllib3 error (its innermost cause where it wraps one)."""
    inner = getattr(exc, "reason", None) or exc
    text = " ".join(str(inner).split())
    return text[:300] or type(inner).__name__
