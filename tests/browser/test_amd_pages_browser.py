"""The 8x MI300X CPX host's acceptance page in a real headless Chromium at 800 and 1400 CSS pixels: each GPU and its
partitions render inside their NUMA node, measured in the RENDERED page (getBoundingClientRect); a screenshot of each is
kept in tests/output/acceptance/ (amd-mi300x-cpx-<width>.png, with the page and the plan beside it).

Facts: the KFD dump of shared/fixtures/amd (8 MI300X in CPX mode, 63 partitions, 4 GPUs on each of 2 CPU nodes) rebuilt
as a sysfs tree and read by the real facts code (tests/unit/plugins/module_utils/_plan/amd_machines.py); the plan is the
planner's (reserved_cpus 4, device-aware), carried by a topology record. Chromium over a pipe (tests/browser/cdp_pipe.py).

Run: NUMA_GATE_REQUIRE_BROWSER=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/browser/test_amd_pages_browser.py
"""

import json
import os
import pathlib
import shutil

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import plan
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import html
from ansible_collections.gpusmith.numa_gate.tests.browser import cdp_pipe
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._plan import amd_machines

OUTPUT = pathlib.Path(__file__).resolve().parents[1] / "output" / "acceptance"
CHROMIUM = cdp_pipe.find_chromium()
if CHROMIUM is None and os.environ.get("NUMA_GATE_REQUIRE_BROWSER"):
    raise RuntimeError("no chromium on PATH, and NUMA_GATE_REQUIRE_BROWSER is set (tests/browser/ensure_chromium.sh installs it)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (tests/browser/ensure_chromium.sh installs Debian's package)")
WIDTHS = (800, 1400)
NODE_GPUS = {"0": ["0000:05:00.0", "0000:27:00.0", "0000:47:00.0", "0000:65:00.0"],
             "1": ["0000:85:00.0", "0000:a7:00.0", "0000:c7:00.0", "0000:e5:00.0"]}

# Boxes of the drawn rectangles, rounded to a tenth of a pixel; texts of the drawing that overlap (more than 0.5 px both ways).
MEASURE = """(() => {
  const box = e => { const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom].map(v => Math.round(v * 10) / 10); };
  const svg = document.querySelector('svg[data-kind="node-drawing"]');
  const texts = [...svg.querySelectorAll('text')].filter(t => t.getBBox().width > 0).map(t => [t.textContent, box(t)]);
  const overlaps = [];
  for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
    const a = texts[i][1], b = texts[j][1];
    if (Math.min(a[2], b[2]) - Math.max(a[0], b[0]) > 0.5 && Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 0.5) overlaps.push([texts[i][0], texts[j][0]]); }
  return JSON.stringify({
    viewport: window.innerWidth, scroll: document.documentElement.scrollWidth, overlaps: overlaps,
    nodes: [...svg.querySelectorAll('g[data-kind="numa-node"]')].map(g => [g.dataset.numaNode, box(g.querySelector('rect.numa-box'))]),
    unknown: svg.querySelectorAll('[data-kind="numa-unknown"]').length,
    gpus: [...svg.querySelectorAll('g[data-kind="gpu"]')].map(g => ({pci: g.dataset.pci, node: g.dataset.numaNode, vendor: g.dataset.vendor,
      parent: g.closest('g[data-kind="numa-node"]') ? g.closest('g[data-kind="numa-node"]').dataset.numaNode : null,
      box: box(g.querySelector('rect.device-box')), title: g.querySelector('title').textContent,
      parts: [...g.querySelectorAll('g[data-kind="gpu-partition"]')].map(p => [p.dataset.partition, p.dataset.gpuPci, box(p.querySelector('rect')),
        box(p.querySelector('text'))])})),
    reserved: [...svg.querySelectorAll('rect[data-role="reserved"]')].map(r => r.dataset.cpu)});
})()"""


@pytest.fixture(name="browser", scope="module")
def fixture_browser(tmp_path_factory):
    OUTPUT.mkdir(parents=True, exist_ok=True)
    chromium = cdp_pipe.Browser(CHROMIUM, str(tmp_path_factory.mktemp("chromium-profile")))
    yield chromium
    chromium.close()


def _inside(inner, outer):
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


@pytest.mark.parametrize("width", WIDTHS)
def test_each_gpu_and_its_partitions_render_inside_their_numa_node(browser, tmp_path, width):
    facts = amd_machines.mi300x_cpx_facts(tmp_path / "facts")
    planned = plan.reservation_plan(facts, {"reserved_cpus": 4})
    built = record.build(facts, "mi300x-cpx", {"plan": planned})
    path = tmp_path / ("amd-mi300x-cpx-%d.html" % width)
    path.write_text(html.page(built), encoding="utf-8")
    page = browser.open(path.as_uri(), width=width)
    page.screenshot(str(OUTPUT / ("amd-mi300x-cpx-%d.png" % width)))
    shutil.copy(str(path), str(OUTPUT / path.name))
    (OUTPUT / "amd-mi300x-cpx-plan.json").write_text(json.dumps(planned, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert page.console() == [] and page.requests() == [path.as_uri()]
    found = json.loads(page.evaluate(MEASURE))
    assert found["viewport"] == width and found["scroll"] <= width
    assert found["overlaps"] == []
    # The plan's reserved CPUs are drawn as reserved: two cores on each node (device-aware fell back to spread).
    assert found["reserved"] == ["0", "1", "16", "17"]
    nodes = dict(found["nodes"])
    assert sorted(nodes) == ["0", "1"] and found["unknown"] == 0
    assert dict((node, [g["pci"] for g in found["gpus"] if g["parent"] == node]) for node in nodes) == NODE_GPUS
    counts = {}
    for gpu in found["gpus"]:
        assert (gpu["vendor"], gpu["node"]) == ("amd", gpu["parent"])
        # Drawn on the page (a size) and inside its NUMA node's box.
        assert gpu["box"][2] - gpu["box"][0] > 20 and gpu["box"][3] - gpu["box"][1] > 20
        assert _inside(gpu["box"], nodes[gpu["node"]]), gpu
        for part, owner, square, number in gpu["parts"]:
            assert owner == gpu["pci"]
            assert _inside(square, gpu["box"]) and _inside(number, square), (gpu["pci"], part, square, number)
        counts[gpu["pci"]] = [part for part, _owner, _square, _number in gpu["parts"]]
        assert "; amd KFD node " in gpu["title"] and "partition mode compute CPX, memory unknown" in gpu["title"]
    assert counts == dict([(pci, [str(part) for part in range(8)]) for pci in NODE_GPUS["0"] + NODE_GPUS["1"][:3]]
                          + [("0000:e5:00.0", [str(part) for part in range(7)])])
    assert sum(len(parts) for parts in counts.values()) == 63
    # The identities are in the page's device table too.
    text = json.loads(page.evaluate("JSON.stringify(document.body.innerText)"))
    assert "KFD node 2; KFD unique_id 16404946649897475633; device 0x74a1; XGMI hive 15188982192727901047" in text
