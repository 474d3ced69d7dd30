"""The record's first screen in a real headless Chromium at 800 and 1400 CSS pixels: the acceptance grid, the node drawing and
the verdict's colours, measured in the RENDERED page (getBoundingClientRect, getComputedStyle); a screenshot of each is kept in
tests/output/acceptance/ (record-<case>-<width>.png).

- No two text boxes of the drawing overlap (every SVG <text>, pairwise), nor the grid's cells.
- The drawing fits the page (no horizontal scroll) and its legend is whole: inside the viewport and inside the drawing.
- The four verdicts have four distinct colours (adopt green, restrict blue, defer amber, revalidate purple); defer is neither
  the red of the canary's exclusive CPUs nor a failure's red.

Facts: the real H200 VM and hwloc's 40intel64-2g2n4c+pci and nvidiagpunumanodes, read in place (the cases of
test_acceptance_browser.py). Chromium over a pipe (tests/browser/cdp_pipe.py); `make browser` sets NUMA_GATE_REQUIRE_BROWSER.

Run: NUMA_GATE_REQUIRE_BROWSER=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/browser/test_record_pages_browser.py
"""

import json
import os
import pathlib
import shutil

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import criteria
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import html
from ansible_collections.gpusmith.numa_gate.tests.browser import cdp_pipe
from ansible_collections.gpusmith.numa_gate.tests.browser import test_acceptance_browser as pages
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

OUTPUT = pathlib.Path(__file__).resolve().parents[1] / "output" / "acceptance"
CHROMIUM = cdp_pipe.find_chromium()
if CHROMIUM is None and os.environ.get("NUMA_GATE_REQUIRE_BROWSER"):
    raise RuntimeError("no chromium on PATH, and NUMA_GATE_REQUIRE_BROWSER is set (tests/browser/ensure_chromium.sh installs it)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (tests/browser/ensure_chromium.sh installs Debian's package)")
WIDTHS = (800, 1400)
CASES = ("h200-adopt", "h200-hostile-defer", "hwloc-40intel64-4numa-topology", "hwloc-nvidiagpunumanodes-topology")

# Every box is rounded to a tenth of a pixel; two boxes overlap when they share more than 0.5 px both ways.
MEASURE = """(() => {
  const box = e => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  const overlaps = boxes => { const found = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i][1], b = boxes[j][1];
      if (Math.min(a.r, b.r) - Math.max(a.l, b.l) > 0.5 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 0.5) found.push([boxes[i][0], boxes[j][0]]); }
    return found; };
  const svg = document.querySelector('svg[data-kind="node-drawing"]');
  const texts = [...svg.querySelectorAll('text')].filter(t => t.getBBox().width > 0).map(t => [t.textContent, box(t)]);
  const cells = [...document.querySelectorAll('section[data-section="acceptance-grid"] td')].map(c => [c.textContent.slice(0, 40), box(c)]);
  const legend = box(svg.querySelector('[data-kind="legend"]')), drawing = box(svg);
  const grid = document.querySelector('section[data-section="acceptance-grid"]');
  return JSON.stringify({
    viewport: window.innerWidth, scroll: document.documentElement.scrollWidth, texts: texts.length,
    text_overlaps: overlaps(texts), cell_overlaps: overlaps(cells),
    legend: legend, drawing: drawing, legend_texts: [...svg.querySelectorAll('[data-kind="legend"] text')].map(t => t.textContent),
    legend_font: Math.min(...[...svg.querySelectorAll('[data-kind="legend"] text')].map(t => t.getBoundingClientRect().height)),
    first: document.querySelector('body > section').dataset.section, grid_top: grid.getBoundingClientRect().top,
    rows: [...grid.querySelectorAll('tr[data-kind="criterion"]')].map(r => [r.dataset.criterion, r.dataset.state,
      getComputedStyle(r.querySelector('td.state')).backgroundColor])});
})()"""


@pytest.fixture(name="browser", scope="module")
def fixture_browser(tmp_path_factory):
    OUTPUT.mkdir(parents=True, exist_ok=True)
    chromium = cdp_pipe.Browser(CHROMIUM, str(tmp_path_factory.mktemp("chromium-profile")))
    yield chromium
    chromium.close()


def _open(browser, tmp_path, name, text, width):
    path = tmp_path / ("%s-%d.html" % (name, width))
    path.write_text(text, encoding="utf-8")
    page = browser.open(path.as_uri(), width=width)
    page.screenshot(str(OUTPUT / ("record-%s-%d.png" % (name, width))))
    shutil.copy(str(path), str(OUTPUT / ("record-%s-%d.html" % (name, width))))
    assert page.console() == [] and page.requests() == [path.as_uri()]
    return page


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", CASES)
def test_grid_and_drawing_read_at_a_glance(browser, tmp_path, name, width):
    facts, built = pages.cases(str(tmp_path))[name]
    found = json.loads(_open(browser, tmp_path, name, html.page(built), width).evaluate(MEASURE))
    assert found["viewport"] == width
    # The page opens with the grid, one row per criterion of the verdict.
    assert found["first"] == "acceptance-grid"
    names = []
    for row in criteria.rows():
        if row.name not in names:
            names.append(row.name)
    assert [row[0] for row in found["rows"]] == names
    # No text box of the drawing runs into another (CPU numbers, labels, legend, devices), nor a cell of the grid.
    assert found["texts"] >= len(_cpulist.parse(facts["cpus"]["online"])) + 9 + len(facts["numa_nodes"])
    assert found["text_overlaps"] == []
    assert found["cell_overlaps"] == []
    # Nothing wider than the page; the legend is whole, inside the viewport and inside the drawing, and still legible.
    assert found["scroll"] <= width
    legend, drawing = found["legend"], found["drawing"]
    assert 0 <= drawing["l"] <= legend["l"] and legend["r"] <= drawing["r"] <= width
    assert drawing["t"] <= legend["t"] and legend["b"] <= drawing["b"]
    assert found["legend_texts"] == ["reserved (system, kubelet)", "canary exclusive", "canary shared pool", "exclusive (other pods)",
                                     "shared", "isolated (isolcpus)", "offline", "NUMA node memory", "reserved memory (plan)"]
    assert found["legend_font"] >= 8


STATE_COLOURS = {"held": "rgb(200, 230, 201)", "restricted": "rgb(187, 222, 251)", "revalidate": "rgb(225, 190, 231)",
                 "deferred": "rgb(255, 224, 130)", "not asked": "rgb(238, 238, 238)"}


def test_the_grid_states_are_coloured_by_state(browser, tmp_path):
    _facts, built = pages.cases(str(tmp_path))["hwloc-40intel64-4numa-topology"]
    found = json.loads(_open(browser, tmp_path, "grid-states", html.page(built), 1400).evaluate(MEASURE))
    states = dict((name, (state, colour)) for name, state, colour in found["rows"])
    assert states["versions"] == ("deferred", STATE_COLOURS["deferred"])
    assert states["support"] == ("held", STATE_COLOURS["held"])
    assert states["placement"] == ("not asked", STATE_COLOURS["not asked"])
    assert all(colour == STATE_COLOURS[state] for state, colour in states.values())


VERDICT_STYLE = """JSON.stringify((() => { const s = getComputedStyle(document.querySelector('span.verdict'));
  const canary = document.querySelector('svg rect[data-role="canary-exclusive"]');
  return [document.querySelector('span.verdict').dataset.verdict, s.backgroundColor, s.color,
          canary ? getComputedStyle(canary).fill : null]; })())"""


def test_the_four_verdicts_have_four_colours_and_defer_reads_not_yet(browser, tmp_path):
    facts = ri.h200_facts()
    inputs = ri.full_inputs(str(tmp_path / "inputs"), facts)
    adopted = record.build(facts, "h200-vm", inputs)
    records = {"adopt": adopted, "restrict": record.build(facts, "h200-vm", dict(inputs, policy={"restrict_to": "gpu-pool-a"})),
               "defer": record.build(facts, "h200-vm", dict(inputs, canary=dict(inputs["canary"], admission={"admitted": False, "failures": []}))),
               "revalidate": record.build(facts, "h200-vm", dict(inputs, previous=adopted, versions=dict(ri.VERSIONS, kubelet="v1.37.2")))}
    found = {}
    for verdict, built in records.items():
        assert built["verdict"]["verdict"] == verdict
        page = _open(browser, tmp_path, "verdict-%s" % verdict, html.page(built), 800)
        found[verdict] = json.loads(page.evaluate(VERDICT_STYLE))
    assert found == {
        "adopt": ["adopt", "rgb(46, 125, 50)", "rgb(255, 255, 255)", "rgb(214, 39, 40)"],
        "restrict": ["restrict", "rgb(21, 101, 192)", "rgb(255, 255, 255)", "rgb(214, 39, 40)"],
        "defer": ["defer", "rgb(255, 179, 0)", "rgb(34, 34, 34)", "rgb(214, 39, 40)"],
        "revalidate": ["revalidate", "rgb(106, 27, 154)", "rgb(255, 255, 255)", "rgb(214, 39, 40)"]}
    backgrounds = [value[1] for value in found.values()]
    assert len(set(backgrounds)) == 4
    # Amber is "not yet": not the red of the canary's exclusive CPUs in the same page.
    assert found["defer"][1] != found["defer"][3]
