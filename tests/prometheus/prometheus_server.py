"""A real Prometheus on 127.0.0.1 for the tests in tests/prometheus: Debian's package, a free port, tmp storage, one target.

`Prometheus(tmp_path, target_port)` starts it (scrape_interval 1s) and waits until it is ready; `api` asks its HTTP API;
`samples` returns the raw samples of one series (its timestamps are the scrape times, the window boundaries the tests use).
Every wait has a deadline, and a Prometheus that exits fails the test at once.
"""

import json
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

BINARY = shutil.which("prometheus")
VERSION = subprocess.run([BINARY, "--version"], capture_output=True, text=True, check=False).stdout.split()[2] if BINARY else ""
DEADLINE = 120.0


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def api(base, path, **params):
    with urllib.request.urlopen("%s%s?%s" % (base, path, urllib.parse.urlencode(params)), timeout=5) as response:
        answer = json.loads(response.read())
    assert answer["status"] == "success", answer
    return answer["data"]


class Prometheus:
    """The server process; `close` ends it (SIGTERM, then SIGKILL after 10 s)."""

    def __init__(self, tmp_path, target_port):
        self.started = time.monotonic()
        self.base = "http://127.0.0.1:%d" % free_port()
        config = tmp_path / "prometheus.yml"
        config.write_text("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: service\n"
                          "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % target_port)
        self.log = open(tmp_path / "prometheus.log", "w", encoding="utf-8")  # pylint: disable=consider-using-with
        self.process = subprocess.Popen(  # pylint: disable=consider-using-with
            [BINARY, "--config.file=%s" % config, "--storage.tsdb.path=%s" % (tmp_path / "data"),
             "--web.listen-address=%s" % self.base[len("http://"):]], stdout=self.log, stderr=subprocess.STDOUT)
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

    def samples(self, series, back="60s"):
        """[(timestamp in s, value text)] of ``series`` over the last ``back``, as Prometheus stored them."""
        result = api(self.base, "/api/v1/query", query="%s[%s]" % (series, back), time="%.3f" % time.time())["result"]
        return [(float(at), value) for at, value in (result[0]["values"] if result else [])]

    def first_sample_after(self, series, moment):
        """The timestamp of the first sample of ``series`` Prometheus took after ``moment`` (waits for it)."""
        while True:
            self.check_time("no Prometheus sample of %s after %.3f" % (series, moment))
            after = [at for at, unused in self.samples(series) if at > moment]
            if after:
                return min(after)
            time.sleep(0.2)

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
