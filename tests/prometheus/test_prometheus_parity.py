"""The collection's quantiles equal a real Prometheus' histogram_quantile(q, rate(x_bucket[w])) over the same windows.

Debian's `prometheus` (tests/prometheus/ensure_prometheus.sh installs it) runs on 127.0.0.1 (a free port, tmp storage,
scrape_interval 1s) and scrapes tests/prometheus/vllm_like_service.py (prometheus-client, vLLM's names and buckets). The test
drives every observation, then waits for a Prometheus sample taken after the state froze; that sample's timestamp is a window
boundary, and the test's own scrape of /metrics in the same frozen state is the scrape path's boundary. Windows:

- A: ordinary traffic;
- B: the service restarts (a fresh registry, scraped by Prometheus at zero) and serves fewer requests: a counter reset;
- C: 10 % of the inter-token latencies above the highest finite bucket (80 s): p95 and p99 fall in the +Inf bucket.

Prometheus is asked at time=end with a range of exactly end - start in ms, so the first sample is the start sample and rate()
does not extrapolate (the range in Prometheus 2.x is closed at both ends): rate = (last - first [+ the value before a reset]) / w,
the same for every bucket. For each window and q in 0.5, 0.9, 0.95, 0.99, TTFT and ITL: the scrape path's quantile equals
Prometheus' (to 1e-12 relative: the scrape path interpolates increases, Prometheus rates), and the query path (increase over the
HTTP API) gives the same buckets and counts as the scrape path. Without prometheus the test is skipped, unless
NUMA_GATE_REQUIRE_PROMETHEUS=1 (set by `make prometheus`), where it fails.
"""

import json
import math
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import prometheus_rules, quantile as hq
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import query as service_query, window as service_window
from ansible_collections.gpusmith.numa_gate.tests.prometheus.vllm_like_service import Service

PROMETHEUS = shutil.which("prometheus")
VERSION = subprocess.run([PROMETHEUS, "--version"], capture_output=True, text=True, check=False).stdout.split()[2] if PROMETHEUS else ""
REQUIRED = os.environ.get("NUMA_GATE_REQUIRE_PROMETHEUS") == "1"
QUANTILES = (0.0, 0.5, 0.9, 0.95, 0.99, 1.0)
HISTOGRAMS = {"ttft": "vllm:time_to_first_token_seconds", "itl": "vllm:inter_token_latency_seconds"}
MAPPING = {"tpot": "vllm:inter_token_latency_seconds", "e2e": "vllm:time_to_first_token_seconds"}
DEADLINE = 80.0


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def api(base, path, **params):
    with urllib.request.urlopen("%s%s?%s" % (base, path, urllib.parse.urlencode(params)), timeout=5) as response:
        answer = json.loads(response.read())
    assert answer["status"] == "success", answer
    return answer["data"]


class Run:
    """Prometheus and the service; `freeze` returns a boundary: the Prometheus sample time and the test's own scrape."""

    def __init__(self, tmp_path):
        self.started = time.monotonic()
        self.service = Service()
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        config = tmp_path / "prometheus.yml"
        config.write_text("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: vllm\n"
                          "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % self.service.port)
        self.log = open(tmp_path / "prometheus.log", "w", encoding="utf-8")  # pylint: disable=consider-using-with
        self.process = subprocess.Popen(  # pylint: disable=consider-using-with
            [PROMETHEUS, "--config.file=%s" % config, "--storage.tsdb.path=%s" % (tmp_path / "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port], stdout=self.log, stderr=subprocess.STDOUT)
        while True:
            self.check_time("prometheus did not become ready")
            try:
                with urllib.request.urlopen(self.base + "/-/ready", timeout=1) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.2)

    def check_time(self, what):
        if time.monotonic() - self.started > DEADLINE:
            pytest.fail("%s within %.0f s" % (what, DEADLINE))
        if self.process.poll() is not None:
            pytest.fail("prometheus exited with %s" % self.process.returncode)

    def freeze(self):
        """{"at": Prometheus' first sample after now (s), "text": /metrics now}: the state does not change until the next call."""
        frozen = time.time()
        while True:
            self.check_time("no Prometheus sample after the state froze")
            result = api(self.base, "/api/v1/query", query='vllm:time_to_first_token_seconds_count[5s]', time="%.3f" % time.time())["result"]
            after = [float(point[0]) for point in (result[0]["values"] if result else []) if float(point[0]) > frozen]
            if after:
                return {"at": min(after), "text": self.service.text()}
            time.sleep(0.2)

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        self.service.close()


@pytest.fixture(name="run", scope="module")
def fixture_run(tmp_path_factory):
    if PROMETHEUS is None:
        if REQUIRED:
            pytest.fail("prometheus is not on PATH and NUMA_GATE_REQUIRE_PROMETHEUS=1 (tests/prometheus/ensure_prometheus.sh installs it)")
        pytest.skip("prometheus is not on PATH (tests/prometheus/ensure_prometheus.sh installs Debian's package)")
    run = Run(tmp_path_factory.mktemp("prometheus"))
    try:
        run.service.observe(300)                      # before T0: warmup, never measured
        bounds = [run.freeze()]
        run.service.observe(400, errors=8)            # A
        bounds.append(run.freeze())
        run.service.restart()
        run.freeze()                                  # Prometheus sees the fresh registry at zero
        run.service.observe(150, ttft_median=0.3)     # B: after the reset, fewer than before it
        bounds.append(run.freeze())
        run.service.observe(200, slow_itl_fraction=0.1)   # C
        bounds.append(run.freeze())
        run.windows = {name: (bounds[i], bounds[i + 1]) for i, name in enumerate("ABC")}
        yield run
    finally:
        run.close()


def prometheus_quantile(run, q, name, start, end):
    span = int(round((end - start) * 1000))
    result = api(run.base, "/api/v1/query", query="histogram_quantile(%s, sum by (le) (rate(%s_bucket[%dms])))" % (q, name, span),
                 time="%.3f" % end)["result"]
    assert len(result) == 1, result
    return float(result[0]["value"][1])


def scrape(run, window):
    start, end = run.windows[window]
    return service_window.scrape_window({"text": start["text"], "timestamp": start["at"]}, {"text": end["text"], "timestamp": end["at"]},
                                        mapping=MAPPING)


def local_quantile(entry, q):
    # Over the window's rates (as Prometheus), by the monotonicity rule of the server's version (Debian's 2.42: the running maximum).
    return hq.entry_quantile(q, entry, legacy=prometheus_rules.rules_for(VERSION)["quantile"] == "running-max")["value"]


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("window", "ABC")
def test_quantiles_equal_prometheus(run, window, record_property):
    measured = scrape(run, window)
    start, end = measured["start"], measured["end"]
    seen = {}
    for key, name in HISTOGRAMS.items():
        for q in QUANTILES:
            ours = local_quantile(measured["metrics"][key], q)
            theirs = prometheus_quantile(run, q, name, start, end)
            seen["%s p%g" % (key, q * 100)] = (ours, theirs)
            assert same(ours, theirs), (window, key, q)  # to the bit: the same rates, the same float operations
    record_property("quantiles", seen)
    print("window %s (%.3f s):" % (window, end - start), json.dumps(seen))
    assert measured["metrics"]["ttft"]["reset"] is (window == "B")
    if window == "C":
        assert seen["itl p95"] == (80.0, 80.0)
        assert seen["itl p99"] == (80.0, 80.0)
        assert seen["itl p50"][0] < 0.1


@pytest.mark.parametrize("window", "ABC")
def test_scrape_path_and_query_path_agree(run, window):
    measured = scrape(run, window)
    queried = service_query.query_window(run.base, measured["start"], measured["end"], mapping=MAPPING)
    for key in HISTOGRAMS:
        ours, theirs = measured["metrics"][key], queried["metrics"][key]
        assert theirs["buckets"] == ours["buckets"]
        assert theirs["count"] == ours["count"]
        assert theirs["sum"] == pytest.approx(ours["sum"], rel=1e-12)
        assert theirs["reset"] is ours["reset"] is (window == "B")
        assert queried["prometheus_version"] == VERSION and queried["prometheus_rules"] == VERSION[0] + ".x"
        for q in QUANTILES:
            assert same(local_quantile(theirs, q), local_quantile(ours, q))
            assert same(local_quantile(theirs, q), prometheus_quantile(run, q, HISTOGRAMS[key], measured["start"], measured["end"]))
    requests = {(entry["labels"]["finished_reason"], entry["increase"]) for entry in measured["metrics"]["requests"]["by"]}
    assert {(entry["labels"]["finished_reason"], entry["increase"]) for entry in queried["metrics"]["requests"]["by"]} == requests
    expected = {"A": {("stop", 392.0), ("length", 0.0), ("error", 8.0)}, "B": {("stop", 150.0), ("length", 0.0), ("error", 0.0)},
                "C": {("stop", 200.0), ("length", 0.0), ("error", 0.0)}}[window]
    assert requests == expected
    assert measured["metrics"]["ttft"]["count"] == {"A": 400.0, "B": 150.0, "C": 200.0}[window]
    assert measured["metrics"]["prefix_cache_hits"]["type"] is None and queried["metrics"]["prefix_cache_hits"]["type"] is None


def test_counts_are_integers_not_extrapolated(run):
    # The window ends are sample times: increase() is the exact difference (no extrapolation, no fraction of a request).
    measured = scrape(run, "A")
    for unused_bound, count in measured["metrics"]["itl"]["buckets"]:
        assert count == math.floor(count)


def test_a_list_of_match_values_is_read_by_prometheus_as_any_of_them_each_literal(run):
    # Several pods of a side are one regex matcher of their escaped names: Prometheus anchors it, so "vll." (an escaped dot) matches
    # no job while "vllm" among the values keeps every series, exactly as without the matcher.
    start, end = run.windows["A"][0]["at"], run.windows["A"][1]["at"]
    every = service_query.query_window(run.base, start, end, mapping=MAPPING)
    listed = service_query.query_window(run.base, start, end, mapping=MAPPING, match={"job": ["vll.", "vllm"]})
    for key in HISTOGRAMS:
        assert listed["metrics"][key]["buckets"] == every["metrics"][key]["buckets"]
        assert listed["metrics"][key]["count"] == every["metrics"][key]["count"]
    assert (every["metrics"]["ttft"]["count"], every["metrics"]["itl"]["count"]) == (400.0, 4000.0)
    escaped = service_query.query_window(run.base, start, end, mapping=MAPPING, match={"job": ["vll."]})
    # No series carries job "vll.": the metric is not found (type None), where an unescaped dot would have matched "vllm".
    assert [escaped["metrics"][key] for key in HISTOGRAMS] == [{"name": HISTOGRAMS[key], "type": None} for key in HISTOGRAMS]
