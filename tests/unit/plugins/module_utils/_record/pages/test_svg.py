"""The node drawing (_record/pages/svg.py): labels on lines of their own, CPU numbers, the plan's reserved memory, a drawing that scales."""

from xml.etree import ElementTree

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import svg
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

SVG = "{http://www.w3.org/2000/svg}"


def _h200(tmp_path):
    facts = ri.h200_facts()
    return record.build(facts, "h200-vm", ri.full_inputs(str(tmp_path), facts))


def _texts(root):
    return list(root.iter(SVG + "text"))


def test_the_canary_label_has_a_line_of_its_own_under_the_numa_label(tmp_path):
    root = ElementTree.fromstring(svg.drawing(_h200(tmp_path)))
    node = [g for g in root.iter(SVG + "g") if g.get("data-kind") == "numa-node"][0]
    labels = [t for t in node.iter(SVG + "text") if t.get("font-weight") == "bold"]
    assert [(t.text, t.get("x"), t.get("y")) for t in labels] == [
        ("NUMA node 0: CPUs 0-15", "20", "72"), ("canary %s: CPUs 2-5" % ri.CANARY, "20", "89")]
    assert labels[1].get("data-kind") == "canary" and labels[1].get("text-anchor") is None


def test_every_cpu_square_carries_its_number_inside_it(tmp_path):
    root = ElementTree.fromstring(svg.drawing(_h200(tmp_path)))
    squares = [r for r in root.iter(SVG + "rect") if r.get("data-kind") == "cpu"]
    numbers = [t for t in _texts(root) if t.get("data-kind") == "cpu-number"]
    assert [t.text for t in numbers] == [str(cpu) for cpu in range(16)]
    for square, number in zip(squares, numbers):
        left, width = int(square.get("x")), int(square.get("width"))
        assert left < int(number.get("x")) < left + width and number.get("text-anchor") == "middle"
        assert int(square.get("y")) < int(number.get("y")) <= int(square.get("y")) + int(square.get("height"))
    # White numbers on the dark squares (reserved, canary exclusive), dark ones on the light.
    assert [t.get("class") for t in numbers[:4]] == ["cpu-number on-dark"] * 4
    assert numbers[4].get("class") == "cpu-number"


def test_the_planned_reserved_memory_is_drawn_on_the_node_memory(tmp_path):
    built = _h200(tmp_path)
    planned = built["reservation"]["reserved"]["memory_bytes"]
    root = ElementTree.fromstring(svg.drawing(built))
    bars = [r for r in root.iter(SVG + "rect") if r.get("data-kind") == "reserved-memory"]
    assert [(r.get("data-numa-node"), int(r.get("data-bytes"))) for r in bars] == [("0", planned["0"])]
    memory = [g for g in root.iter(SVG + "g") if g.get("data-kind") == "memory"][0]
    line = [t.text for t in memory.iter(SVG + "text")]
    assert line == ["memory 4.34 GiB; reserved %s (plan)" % svg.escape.size(planned["0"]).split(" (")[0]]
    # Without a plan in the record the line says so, and nothing is drawn as reserved.
    topology_only = ElementTree.fromstring(svg.drawing(record.build(ri.h200_facts(), "h200-vm")))
    assert not [r for r in topology_only.iter(SVG + "rect") if r.get("data-kind") == "reserved-memory"]
    assert [t.text for g in topology_only.iter(SVG + "g") if g.get("data-kind") == "memory" for t in g.iter(SVG + "text")] == [
        "memory 4.34 GiB; no plan in this record"]


def test_the_drawing_scales_and_the_legend_wraps_to_its_width(tmp_path):
    built = _h200(tmp_path)
    geometry = svg.layout(built)
    root = ElementTree.fromstring(svg.drawing(built))
    assert root.get("width") is None and root.get("height") is None
    assert root.get("viewBox") == "0 0 %d %d" % (geometry["width"], geometry["height"])
    assert root.get("style") == "width:100%%;max-width:%dpx;height:auto" % geometry["width"]
    words = [t.text for g in root.iter(SVG + "g") if g.get("data-kind") == "legend" for t in g.iter(SVG + "text")]
    assert words == ["reserved (system, kubelet)", "canary exclusive", "canary shared pool", "exclusive (other pods)", "shared",
                     "isolated (isolcpus)", "offline", "NUMA node memory", "reserved memory (plan)"]
    rows = sorted(set(row for _css, _words, _x, row in geometry["legend"]))
    assert rows == [0, 1]
    for _css, words_, x, _row in geometry["legend"]:
        assert x + svg.CPU_W + 3 + len(words_) * svg.CHAR_PX <= geometry["width"] - svg.PAD


def test_fit_cuts_with_an_ellipsis_and_the_whole_text_is_the_title():
    assert svg.fit("abcdef", 64) == "abcdef"
    assert svg.fit("abcdefghijklmnop", 64) == "abcdefghi\u2026"
    facts = ri.h200_facts()
    facts["gpus"][0]["name"] = "NVIDIA H200 with a name far longer than any device box can hold"
    root = ElementTree.fromstring(svg.drawing(record.build(facts, "h200-vm")))
    gpu = [g for g in root.iter(SVG + "g") if g.get("data-kind") == "gpu"][0]
    assert [t.text for t in gpu.iter(SVG + "text")][0] == "GPU NVIDIA H200 with a n\u2026"
