"""The fleet page (index.html) for 1,000 generated records in a real headless Chromium (Debian's package): its size, its render
time, the grouped counts, the pool's decision per shape, the missing and stale pool nodes, and every node reachable from it (issue 32).

The records are the real H200 VM's record (`record.build` on its facts, read in place) and hwloc's 40intel64-2g2n4c+pci topology
record, copied under 1,000 host names with verdicts, dates and GPU counts varied so the page holds three shapes. The numbers
are written to tests/output/acceptance/fleet-1000.json and quoted in docs/benchmarks.md.

Run: NUMA_GATE_REQUIRE_BROWSER=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/browser/test_fleet_browser.py
"""

import copy
import json
import os
import pathlib
import time

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import fleet
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.tests.browser import cdp_pipe
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

OUTPUT = pathlib.Path(__file__).resolve().parents[1] / "output" / "acceptance"
CHROMIUM = cdp_pipe.find_chromium()
if CHROMIUM is None and os.environ.get("NUMA_GATE_REQUIRE_BROWSER"):
    raise RuntimeError("no chromium on PATH, and NUMA_GATE_REQUIRE_BROWSER is set (tests/browser/ensure_chromium.sh installs it)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (tests/browser/ensure_chromium.sh installs Debian's package)")

NOW = "2026-12-04T12:00:00Z"
MAX_BYTES = 1024 * 1024  # one page a browser opens at once
MAX_RENDER_S = 5.0


def thousand(root):
    h200 = ri.h200_facts()
    adopt = record.build(h200, "h200", ri.full_inputs(os.path.join(root, "a"), h200))
    assert adopt["verdict"]["verdict"] == "adopt"
    topology = record.build(ri.multi_numa_facts(), "multi")
    records = []
    for index in range(1000):
        if index % 10 == 9:  # every tenth node: the 4-NUMA topology-only record (defer: no canary evidence)
            built = copy.deepcopy(topology)
        else:
            built = copy.deepcopy(adopt)
            if index % 10 == 8:  # a second H200 shape (two GPUs): one of its nodes defers, so the shape defers
                built["devices"]["gpus"] = built["devices"]["gpus"] * 2
                if index == 8:
                    built["verdict"] = {"verdict": "defer", "reasons": [{"criterion": "placement", "effect": "defer", "message": "placement unknown"}],
                                        "accepted": None}
        built["host"] = "gpu-%04d" % index
        built["generated_at"] = "2026-12-%02dT%02d:00:00Z" % (1 + index % 3, index % 24)
        records.append(built)
    return records


def test_the_fleet_page_for_1000_records(tmp_path):
    records = thousand(str(tmp_path))
    pool = [{"metadata": {"name": "gpu-%04d" % index, "creationTimestamp": "2026-11-01T00:00:00Z"},
             "status": {"conditions": [{"type": "Ready", "lastTransitionTime": "2026-12-03T06:00:00Z" if index == 5 else "2026-11-02T00:00:00Z"}]}}
            for index in range(1002)]
    started = time.perf_counter()
    text = fleet.page(records, pool=pool, now=NOW)
    build_s = time.perf_counter() - started
    path = tmp_path / "index.html"
    path.write_text(text, encoding="utf-8")
    size = path.stat().st_size
    (tmp_path / "profile").mkdir()
    browser = cdp_pipe.Browser(CHROMIUM, str(tmp_path / "profile"))
    try:
        started = time.perf_counter()
        page = browser.open(path.as_uri(), width=1400)
        render_s = time.perf_counter() - started
        assert page.console() == [] and page.requests() == [path.as_uri()]
        seen = json.loads(page.evaluate("""JSON.stringify({
            links: [...document.querySelectorAll('tr[data-kind="fleet-node"] a')].map(a => a.getAttribute('href')),
            decision: document.querySelector('[data-kind="pool-decision"]').dataset.decision,
            summary: document.querySelector('[data-kind="fleet-summary"]').textContent,
            shapes: [...document.querySelectorAll('section[data-section="by-shape"] tbody tr')].map(r => [...r.cells].map(c => c.textContent)),
            reasons: [...document.querySelectorAll('section[data-section="by-reason"] tbody tr')].map(r => [...r.cells].map(c => c.textContent)),
            missing: [...document.querySelectorAll('section[data-section="pool-missing"] tbody tr')].map(r => r.cells[0].textContent),
            stale: [...document.querySelectorAll('section[data-section="pool-stale"] tbody tr')].map(r => r.cells[0].textContent),
            height: document.documentElement.scrollHeight})"""))
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(str(OUTPUT / "fleet-1000.png"))
    finally:
        browser.close()
    assert sorted(seen["links"]) == ["gpu-%04d/acceptance.html" % index for index in range(1000)]  # every node reachable
    assert seen["summary"] == "adopt: 899, restrict: 0, defer: 101, revalidate: 0; 1000 nodes; generated %s" % NOW
    assert sorted(row[2:] for row in seen["shapes"]) == [["100", "0", "defer"], ["100", "99", "defer"], ["800", "800", "adopt"]]
    assert seen["decision"] == "restrict"
    assert seen["reasons"] == [["adopt: service", "899"], ["defer: versions", "100"], ["defer: placement", "1"]]
    assert seen["missing"] == ["gpu-1000", "gpu-1001"]
    assert seen["stale"] == ["gpu-0005"]
    assert size < MAX_BYTES
    assert render_s < MAX_RENDER_S
    (OUTPUT / "fleet-1000.json").write_text(json.dumps({"records": 1000, "bytes": size, "build_s": round(build_s, 3),
                                                        "render_s": round(render_s, 3), "height_px": seen["height"]}, indent=2) + "\n")
