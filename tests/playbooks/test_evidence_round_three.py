# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 29, class 5, through the real ``ansible``: service_window refuses a match key that is no label name before any
query, and a window whose start scrape gives a counter below zero or whose end scrape gives a series twice. The end scrape
comes from a server on 127.0.0.1 that answers one request and ends by itself; every run has a timeout."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

COUNTER = '# TYPE vllm:request_success_total counter\nvllm:request_success_total{finished_reason="stop"} %s\n'


def adhoc(tmp_path, module, args):
    argv = [os.path.join(ansible_run.BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local", "-m", "gpusmith.numa_gate." + module,
            "-a", json.dumps(args), "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=ansible_run.environment(tmp_path), capture_output=True, text=True,
                          timeout=120, check=False)
    return done.returncode, json.JSONDecoder().raw_decode(done.stdout[done.stdout.index("{"):])[0]["plays"][0]["tasks"][0]["hosts"]["localhost"]


def serve_once(body):
    """A server on 127.0.0.1 that answers one GET with ``body`` (text/plain), then ends; (url, thread)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # pylint: disable=invalid-name
            data = body.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):  # pylint: disable=arguments-differ
            del args

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = 60

    def one():
        server.handle_request()
        server.server_close()

    thread = threading.Thread(target=one, daemon=True)
    thread.start()
    return "http://127.0.0.1:%d/metrics" % server.server_address[1], thread


def test_a_match_key_that_is_no_label_name_is_refused_before_any_query(tmp_path):
    rc, result = adhoc(tmp_path, "service_window", {"prometheus_url": "http://127.0.0.1:9", "start": 100, "end": 160,
                                                    "match": {'model"} or vector(1) #': "m"}})
    assert rc == 2 and result["failed"] is True
    assert result["msg"] == ("match key 'model\"} or vector(1) #' is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*); "
                             "not queried, not matched")


def test_a_counter_below_zero_in_the_start_scrape_is_refused(tmp_path):
    url, thread = serve_once(COUNTER % 3)
    rc, result = adhoc(tmp_path, "service_window", {"metrics_url": url, "previous": {"text": COUNTER % -5, "timestamp": 100.0}})
    thread.join(10)
    assert not thread.is_alive()
    assert rc == 2 and result["failed"] is True
    assert result["msg"] == ('the start scrape gives the counter vllm:request_success_total{finished_reason="stop"} as -5.0: a counter is '
                             'never below zero; not a window')


def test_a_series_given_twice_in_the_end_scrape_is_refused(tmp_path):
    url, thread = serve_once(COUNTER % 4 + 'vllm:request_success_total{finished_reason="stop"} 9\n')
    rc, result = adhoc(tmp_path, "service_window", {"metrics_url": url, "previous": {"text": COUNTER % 1, "timestamp": 100.0}})
    thread.join(10)
    assert not thread.is_alive()
    assert rc == 2 and result["failed"] is True
    assert result["msg"] == ('the end scrape gives the series vllm:request_success_total{finished_reason="stop"} twice (4.0, then 9.0): '
                             'a series is one sample per scrape (Prometheus drops the second as a duplicate sample for its timestamp); '
                             'not a window')
