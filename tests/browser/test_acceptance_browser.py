"""acceptance.html and index.html in a real headless Chromium (Debian's package): no console errors, no requests but the page, and
the drawing in the RENDERED DOM has one element per NUMA node, core, CPU, GPU and NIC of the facts, and each service drawing one line
per repetition and side; a screenshot of each page is kept in tests/output/acceptance/.

Facts: the real H200 VM (`gather(root, gpu_source="sysfs")`), hwloc's 40intel64-2g2n4c+pci (4 NUMA nodes, 40 cores, 5 NICs) and
nvidiagpunumanodes (8 NUMA nodes, 6 of them CPU-less GPU memory, 6 GPUs), read in place. Chromium is driven through the DevTools
protocol over a pipe (tests/browser/cdp_pipe.py). Without Chromium the tests are skipped; `tests/browser/ensure_chromium.sh` installs it.

Run: .venv/bin/python -m pytest -q -p no:cacheprovider tests/browser
"""

import json
import os
import pathlib
import shutil

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import gather
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import fleet
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import html
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.tests.browser import cdp_pipe
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

OUTPUT = pathlib.Path(__file__).resolve().parents[1] / "output" / "acceptance"
CHROMIUM = cdp_pipe.find_chromium()
# `make browser` installs Chromium first and sets NUMA_GATE_REQUIRE_BROWSER: there a missing browser is a failure, not a skip.
if CHROMIUM is None and os.environ.get("NUMA_GATE_REQUIRE_BROWSER"):
    raise RuntimeError("no chromium on PATH, and NUMA_GATE_REQUIRE_BROWSER is set (tests/browser/ensure_chromium.sh installs it)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (tests/browser/ensure_chromium.sh installs Debian's package)")

COUNTS = """JSON.stringify(Object.fromEntries(["numa-node", "core", "cpu", "gpu", "nic", "memory", "canary", "numa-unknown"].map(
    k => [k, document.querySelectorAll('svg [data-kind="' + k + '"]').length])))"""


@pytest.fixture(name="browser", scope="module")
def fixture_browser(tmp_path_factory):
    OUTPUT.mkdir(parents=True, exist_ok=True)
    chromium = cdp_pipe.Browser(CHROMIUM, str(tmp_path_factory.mktemp("chromium-profile")))
    yield chromium
    chromium.close()


def cases(root):
    h200 = ri.h200_facts()
    hostile = ri.h200_facts(hostile=True)
    gpus = gather(os.path.join(shared_paths.HWLOC, "nvidiagpunumanodes"), gpu_source="sysfs")
    multi = ri.multi_numa_facts()
    return {
        "h200-adopt": (h200, record.build(h200, "h200-vm", ri.full_inputs(os.path.join(root, "a"), h200))),
        "h200-hostile-defer": (hostile, record.build(hostile, 'h200 "<script>"', ri.full_inputs(os.path.join(root, "b"), hostile, hostile=True))),
        "hwloc-40intel64-4numa-topology": (multi, record.build(multi, ri.MULTI_NUMA)),
        "hwloc-nvidiagpunumanodes-topology": (gpus, record.build(gpus, "nvidiagpunumanodes")),
    }


def render(browser, tmp_path, name, page_text):
    path = tmp_path / ("%s.html" % name)
    path.write_text(page_text, encoding="utf-8")
    url = path.as_uri()
    page = browser.open(url)
    shot = page.screenshot(str(OUTPUT / ("%s.png" % name)))
    shutil.copy(str(path), str(OUTPUT / ("%s.html" % name)))
    return page, url, shot


@pytest.mark.parametrize("name", ["h200-adopt", "h200-hostile-defer", "hwloc-40intel64-4numa-topology", "hwloc-nvidiagpunumanodes-topology"])
def test_page_renders_cleanly_and_draws_every_element(browser, tmp_path, name):
    facts, built = cases(str(tmp_path))[name]
    page, url, shot = render(browser, tmp_path, name, html.page(built))
    assert page.console() == []
    assert page.requests() == [url]
    counts = page.evaluate(COUNTS)
    counts = json.loads(counts)
    assert counts["numa-node"] == len(facts["numa_nodes"])
    assert counts["core"] == len(facts["cores"])
    assert counts["cpu"] == len(_cpulist.parse(facts["cpus"]["online"]))
    assert counts["gpu"] == len(facts["gpus"])
    assert counts["nic"] == len(facts["nics"])
    assert counts["memory"] == len(facts["numa_nodes"])
    assert os.path.getsize(shot) > 10000
    # Each NUMA node's box really is drawn: it has a size on the page.
    sizes = page.evaluate("""JSON.stringify([...document.querySelectorAll('svg [data-kind="numa-node"]')].map(
        g => { const r = g.getBoundingClientRect(); return [g.dataset.numaNode, Math.round(r.width) > 0 && Math.round(r.height) > 0]; }))""")
    assert json.loads(sizes) == [[str(node["id"]), True] for node in facts["numa_nodes"]]


SERVICE = """JSON.stringify([...document.querySelectorAll('svg[data-kind="service-drawing"]')].map(svg => ({
    metric: svg.dataset.metric, scale: svg.dataset.scale, labelledby: svg.getAttribute('aria-labelledby'),
    title: document.getElementById(svg.getAttribute('aria-labelledby').split(' ')[0]).textContent,
    legend: [...svg.querySelectorAll('[data-kind="service-legend"] text')].map(t => t.textContent),
    lines: [...svg.querySelectorAll('polyline[data-kind="service-line"]')].map(p => ({
        side: p.dataset.side, repetition: p.dataset.repetition, cls: p.getAttribute('class'),
        points: p.points.numberOfItems, length: Math.round(p.getTotalLength()),
        stroke: getComputedStyle(p).stroke, dashed: getComputedStyle(p).strokeDasharray !== 'none'}))})))"""


def test_service_drawings_have_one_line_per_repetition_and_side(browser, tmp_path):
    """The h200-adopt record holds a comparison of 3 repetitions per side (ttft and itl): 6 drawn lines per drawing, 3 a side."""
    _facts, built = cases(str(tmp_path))["h200-adopt"]
    page, url, _shot = render(browser, tmp_path, "service-drawings", html.page(built))
    assert page.console() == []
    assert page.requests() == [url]
    drawings = json.loads(page.evaluate(SERVICE))
    assert [(d["metric"], d["scale"], d["labelledby"]) for d in drawings] == [
        ("ttft", "log", "service-drawing-0-title service-drawing-0-desc"), ("itl", "log", "service-drawing-1-title service-drawing-1-desc")]
    assert [d["title"] for d in drawings] == ["Cumulative distributions of vllm:time_to_first_token_seconds (ttft), baseline and canary",
                                              "Cumulative distributions of vllm:inter_token_latency_seconds (itl), baseline and canary"]
    for found in drawings:
        assert found["legend"] == ["baseline (3 repetitions)", "canary (3 repetitions)"]
        assert len(found["lines"]) == 6
        assert [(line["side"], line["repetition"]) for line in found["lines"]] == [
            ("baseline", "1"), ("baseline", "2"), ("baseline", "3"), ("canary", "1"), ("canary", "2"), ("canary", "3")]
        for side, colour, dashed in (("baseline", "rgb(31, 119, 180)", False), ("canary", "rgb(214, 39, 40)", True)):
            mine = [line for line in found["lines"] if line["side"] == side]
            assert len(mine) == 3
            assert set((line["cls"], line["stroke"], line["dashed"]) for line in mine) == {("service-line side-%s" % side, colour, dashed)}
            # Each line is really drawn: several points and a length on the page.
            assert all(line["points"] >= 3 and line["length"] > 100 for line in mine), mine


def test_exact_counts_of_the_known_machines(browser, tmp_path):
    found = {}
    for name, (_facts, built) in cases(str(tmp_path)).items():
        page, _url, _shot = render(browser, tmp_path, "counts-" + name, html.page(built))
        found[name] = json.loads(page.evaluate(COUNTS))
    assert found == {
        "h200-adopt": {"numa-node": 1, "core": 16, "cpu": 16, "gpu": 1, "nic": 1, "memory": 1, "canary": 1, "numa-unknown": 0},
        "h200-hostile-defer": {"numa-node": 1, "core": 16, "cpu": 16, "gpu": 1, "nic": 1, "memory": 1, "canary": 1, "numa-unknown": 0},
        "hwloc-40intel64-4numa-topology": {"numa-node": 4, "core": 40, "cpu": 40, "gpu": 0, "nic": 5, "memory": 4, "canary": 0, "numa-unknown": 1},
        "hwloc-nvidiagpunumanodes-topology": {"numa-node": 8, "core": 8, "cpu": 32, "gpu": 6, "nic": 0, "memory": 8, "canary": 0, "numa-unknown": 1},
    }


def test_hostile_names_and_messages_are_text_in_the_rendered_dom(browser, tmp_path):
    _facts, built = cases(str(tmp_path))["h200-hostile-defer"]
    page, _url, _shot = render(browser, tmp_path, "hostile-dom", html.page(built))
    state = json.loads(page.evaluate("""JSON.stringify({
        scripts: document.querySelectorAll('script').length, images: document.querySelectorAll('img').length,
        handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
        title: document.title, text: document.body.innerText,
        gpu: document.querySelector('svg [data-kind="gpu"] title').textContent,
        verdict: document.querySelector('span[data-verdict]').dataset.verdict})"""))
    assert (state["scripts"], state["images"], state["handlers"]) == (0, 0, 0)
    assert state["title"] == 'Acceptance record: h200 "<script>"'
    assert state["verdict"] == "defer"
    assert ri.HOSTILE_GPU_NAME in state["text"] and ri.HOSTILE_NIC_NAME in state["text"] and ri.HOSTILE_MESSAGE in state["text"]
    assert state["gpu"] == "GPU %s 0000:00:06.0 NUMA node 0 (single-node)" % ri.HOSTILE_GPU_NAME
    assert page.console() == []


def test_fleet_page(browser, tmp_path):
    records = [built for _facts, built in cases(str(tmp_path)).values()]
    page, url, _shot = render(browser, tmp_path, "index", fleet.page(records))
    assert page.console() == [] and page.requests() == [url]
    rows = json.loads(page.evaluate("""JSON.stringify([...document.querySelectorAll('tr[data-kind="fleet-node"]')].map(
        r => [r.dataset.host, r.dataset.verdict, r.querySelector('a').getAttribute('href')]))"""))
    assert rows == [["40intel64-2g2n4c+pci", "defer", "40intel64-2g2n4c%2Bpci/acceptance.html"],
                    ['h200 "<script>"', "defer", "h200%20%22%3Cscript%3E%22/acceptance.html"],
                    ["h200-vm", "adopt", "h200-vm/acceptance.html"],
                    ["nvidiagpunumanodes", "defer", "nvidiagpunumanodes/acceptance.html"]]


def test_the_harness_sees_console_errors_script_and_external_requests(browser, tmp_path):
    """A negative control: a page that logs, runs a script and asks for a remote image is caught (the CSP blocks both)."""
    path = tmp_path / "control.html"
    path.write_text('<html><head><meta http-equiv="Content-Security-Policy" content="%s"></head><body>'
                    '<script>console.error("boom")</script><img src="http://192.0.2.1/x.png"></body></html>' % html.CSP.replace("'", "&#x27;"))
    page = browser.open(path.as_uri())
    assert page.requests() == [path.as_uri(), "http://192.0.2.1/x.png"]
    messages = page.console()
    assert len(messages) == 2
    assert messages[0].startswith("log error (security): Executing inline script violates the following Content Security Policy directive")
    assert messages[1].startswith("log error (security): Loading the image 'http://192.0.2.1/x.png' violates the following Content Security Policy")
