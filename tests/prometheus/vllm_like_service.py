"""A small test service instrumented with prometheus-client under vLLM's metric names and default buckets.

Not vLLM: a stand-in for the parity test. The names and buckets are vLLM's (vllm/v1/metrics/buckets.py:
TIME_TO_FIRST_TOKEN_BUCKETS, INTER_TOKEN_LATENCY_BUCKETS; loggers.py: labels model_name and engine,
``vllm:request_success`` by ``finished_reason``). Observations come only from the test (`observe`),
drawn from a seeded latency distribution, so each window's content is known. `restart` replaces the
registry by a fresh one, as a restarted server would: every counter starts again from zero.
"""

import http.server
import random
import threading

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
                160.0, 640.0, 2560.0)
ITL_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0)
LABELS = {"model_name": "test-model", "engine": "0"}
# The exposition format Prometheus 2.x asks for (prometheus-client's latest may announce a newer version).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Service:
    """The registry, its HTTP endpoint on 127.0.0.1 and the seeded observations."""

    def __init__(self, seed=19, serve=True):
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.restart()
        self.server = None
        if not serve:
            return
        handler = self._handler()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def restart(self):
        """A fresh registry: every series present at zero (children created), as after a server restart."""
        with self.lock:
            self.registry = CollectorRegistry()
            self.ttft = Histogram("vllm:time_to_first_token_seconds", "TTFT", list(LABELS), buckets=TTFT_BUCKETS,
                                  registry=self.registry).labels(**LABELS)
            self.itl = Histogram("vllm:inter_token_latency_seconds", "ITL", list(LABELS), buckets=ITL_BUCKETS,
                                 registry=self.registry).labels(**LABELS)
            success = Counter("vllm:request_success", "finished", list(LABELS) + ["finished_reason"], registry=self.registry)
            self.success = {reason: success.labels(finished_reason=reason, **LABELS) for reason in ("stop", "length", "error")}

    def observe(self, requests, ttft_median=0.2, itl_median=0.03, slow_itl_fraction=0.0, errors=0):
        """``requests`` requests: a log-normal TTFT and ten log-normal ITLs each; ``slow_itl_fraction`` of the ITLs above 80 s."""
        with self.lock:
            for index in range(requests):
                self.ttft.observe(ttft_median * self.random.lognormvariate(0.0, 0.8))
                for unused_try in range(10):
                    if self.random.random() < slow_itl_fraction:
                        self.itl.observe(80.0 + self.random.uniform(1.0, 100.0))
                    else:
                        self.itl.observe(itl_median * self.random.lognormvariate(0.0, 0.5))
                self.success["error" if index < errors else "stop"].inc()

    def text(self):
        with self.lock:
            return generate_latest(self.registry).decode("utf-8")

    def _handler(self):
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                body = service.text().encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Handler

    def close(self):
        if self.server is None:
            return
        self.server.shutdown()
        self.server.server_close()
