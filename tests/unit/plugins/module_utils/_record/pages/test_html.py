"""acceptance.md, acceptance.html, the node drawing and the fleet page (_record/markdown, html, svg, escape): counts and escaping."""

import re
from html.parser import HTMLParser
from xml.etree import ElementTree

from markdown_it import MarkdownIt

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import fleet
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import html
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import markdown
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import record
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import svg
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._rehearsal import rehearsal_cases
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._record import record_inputs as ri

SVG_NS = "{http://www.w3.org/2000/svg}"


class Tags(HTMLParser):
    """Every start tag with its attributes, and the page's text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parsed(page):
    tags = Tags()
    tags.feed(page)
    return tags


def kinds(svg_text):
    root = ElementTree.fromstring(svg_text)
    found = {}
    for element in root.iter():
        kind = element.get("data-kind")
        if kind:
            found[kind] = found.get(kind, 0) + 1
    return root, found


def test_drawing_has_one_element_per_numa_node_core_cpu_gpu_nic_on_the_h200(tmp_path):
    facts = ri.h200_facts()
    built = record.build(facts, "h200-vm", ri.full_inputs(str(tmp_path), facts))
    root, found = kinds(svg.drawing(built))
    assert found == {"node-drawing": 1, "legend": 1, "numa-node": 1, "core": 16, "cpu": 16, "cpu-number": 16, "memory": 1, "reserved-memory": 1,
                     "gpu": 1, "nic": 1, "canary": 1}
    roles = {int(e.get("data-cpu")): e.get("data-role") for e in root.iter(SVG_NS + "rect") if e.get("data-kind") == "cpu"}
    assert roles == dict([(0, "reserved"), (1, "reserved"), (2, "canary-exclusive"), (3, "canary-exclusive"), (4, "canary-shared"),
                          (5, "canary-shared")] + [(cpu, "shared") for cpu in range(6, 16)])
    gpu = [e for e in root.iter(SVG_NS + "g") if e.get("data-kind") == "gpu"][0]
    assert (gpu.get("data-pci"), gpu.get("data-numa-node"), gpu.get("data-canary")) == ("0000:00:06.0", "0", "true")
    label = [e for e in root.iter(SVG_NS + "text") if e.get("data-kind") == "canary"][0]
    assert (label.get("data-pod"), label.get("data-cpus"), label.text) == (ri.CANARY, "2-5", "canary %s: CPUs 2-5" % ri.CANARY)
    memory = [e for e in root.iter(SVG_NS + "g") if e.get("data-kind") == "memory"][0]
    assert memory.get("data-bytes") == "4659331072"


def test_drawing_of_a_multi_numa_snapshot_topology_only():
    facts = ri.multi_numa_facts()
    root, found = kinds(svg.drawing(record.build(facts, "snapshot")))
    assert found == {"node-drawing": 1, "legend": 1, "numa-node": 4, "core": 40, "cpu": 40, "cpu-number": 40, "memory": 4, "nic": 5, "numa-unknown": 1}
    # eth0-eth3 have sysfs numa_node -1 (unknown): drawn in the unknown box; ib0 inside NUMA node 2.
    placed = {}
    for group in root.iter(SVG_NS + "g"):
        for nic in group.findall(SVG_NS + "g"):
            if nic.get("data-kind") == "nic":
                placed[nic.get("data-pci")] = group.get("data-numa-node", group.get("data-kind"))
    assert placed == {"0000:02:00.0": "numa-unknown", "0000:02:00.1": "numa-unknown", "0000:03:00.0": "numa-unknown",
                      "0000:03:00.1": "numa-unknown", "0000:43:00.0": "2"}


def test_devices_of_unknown_locality_are_drawn_apart():
    facts = ri.h200_facts()
    facts["gpus"][0].update(numa_node=None, numa_source=None)
    _root, found = kinds(svg.drawing(record.build(facts, "h200-vm")))
    assert (found["gpu"], found["numa-unknown"], found["numa-node"]) == (1, 1, 1)


def test_hostile_names_and_messages_are_text_not_markup(tmp_path):
    facts = ri.h200_facts(hostile=True)
    built = record.build(facts, "h200-vm <b>", ri.full_inputs(str(tmp_path), facts, hostile=True))
    assert built["verdict"]["verdict"] == "defer"
    page = html.page(built)
    tags = parsed(page)
    assert [t for t, _attrs in tags.tags if t in ("script", "img", "b", "iframe", "object", "link")] == []
    assert not [attrs for _tag, attrs in tags.tags if any(key.startswith("on") for key in attrs)]
    text = "".join(tags.text)
    assert ri.HOSTILE_GPU_NAME in text and ri.HOSTILE_NIC_NAME in text and ri.HOSTILE_MESSAGE in text
    assert "&lt;script&gt;alert(&quot;gpu&quot;)&lt;/script&gt; &#x27;quoted&#x27;" in page
    nic = [attrs for tag, attrs in tags.tags if tag == "g" and attrs.get("data-kind") == "nic"][0]
    assert nic["data-pci"] == "0000:00:03.0"
    ElementTree.fromstring(svg.drawing(built))  # still well-formed XML
    text_md = markdown.render(built)
    # No raw HTML for a renderer (every "<" is backslash-escaped) and no HTML entity for a reader in a terminal.
    assert "<" not in text_md.replace("\\<", "") and not re.search(r"&(#?[0-9A-Za-z]+);", text_md.replace("\\&", ""))
    assert "NVIDIA H200 \\<script>alert(\"gpu\")\\</script> 'quoted'" in text_md
    # Rendered as CommonMark (markdown-it, tables on): the hostile names are text in the cells, no tag comes out.
    rendered = parsed(MarkdownIt("commonmark").enable("table").render(text_md))
    assert [t for t, _attrs in rendered.tags if t in ("script", "img", "b")] == []
    cells = "".join(rendered.text)
    assert ri.HOSTILE_GPU_NAME in cells and ri.HOSTILE_NIC_NAME in cells and ri.HOSTILE_MESSAGE in cells
    index = fleet.page([built])
    index_tags = parsed(index)
    assert [t for t, _attrs in index_tags.tags if t in ("script", "img", "b")] == []
    assert [attrs["href"] for tag, attrs in index_tags.tags if tag == "a"] == ["h200-vm%20%3Cb%3E/acceptance.html"]


def test_page_is_self_contained(tmp_path):
    facts = ri.h200_facts()
    page = html.page(record.build(facts, "h200-vm", ri.full_inputs(str(tmp_path), facts)))
    tags = parsed(page)
    assert [t for t, _attrs in tags.tags if t in ("script", "link", "img", "iframe")] == []
    assert [a["content"] for t, a in tags.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"] == [html.CSP]
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page
    assert [a["data-verdict"] for t, a in tags.tags if a.get("data-verdict") and t == "span"] == ["adopt"]
    assert [a["data-section"] for t, a in tags.tags if t == "section"] == [
        "acceptance-grid", "verdict-reasons", "drawing", "versions", "device-identities", "numa-nodes", "locality-oracle", "cpu-roles", "planned-reservation",
        "config-diff-from-the-baseline", "canary", "reconciled-allocations", "placement-evidence", "device-path", "kubelet-metrics", "service-comparison",
        "service-metric-ttft-vllm-time-to-first-token-seconds", "service-drawing", "service-metric-itl-vllm-inter-token-latency-seconds",
        "service-drawing", "service-runs", "reservation-slack", "memory-over-time", "admission-failure-the-owning-controller-s-answer",
        "feature-in-effect", "transport", "attestations", "warnings"]


def test_markdown_exact_head_and_table(tmp_path):
    facts = ri.h200_facts()
    text = markdown.render(record.build(facts, "h200-vm", ri.full_inputs(str(tmp_path), facts)))
    assert text.splitlines()[:9] == [
        "# Acceptance record: h200-vm", "",
        "**Verdict: adopt** (schema_version 1, mode full, generated 2026-12-01T09:00:00Z)", "",
        "## Acceptance grid", "", "| criterion | state | evidence |", "|---|---|---|",
        "| versions | held | no reason against it in what it read (versions, has_gpus) |"]
    assert text.split("## Verdict reasons\n\n", 1)[1].splitlines()[:3] == [
        "| criterion | effect | reason |", "|---|---|---|",
        "| service | adopt | service objectives held (3 baseline and 3 canary repetitions): p95 ttft \\<= 0.5 s: canary held: worst repetition 0.496032 "
        "(median 0.477273) |"]
    assert "| kubelet | v1.37.1 |" in text
    assert "| cpuManagerPolicy | changed | none | static |" in text


def test_fleet_lists_every_node_with_counts(tmp_path):
    facts = ri.h200_facts()
    adopt = record.build(facts, "gpu-b", ri.full_inputs(str(tmp_path), facts))
    defer = record.build(ri.multi_numa_facts(), "gpu-a")
    tags = parsed(fleet.page([adopt, defer]))
    rows = [(a["data-host"], a["data-verdict"]) for t, a in tags.tags if a.get("data-kind") == "fleet-node"]
    assert rows == [("gpu-a", "defer"), ("gpu-b", "adopt")]
    assert "adopt: 1, restrict: 0, defer: 1, revalidate: 0; 2 nodes; generated unknown" in "".join(tags.text)


def test_escape_helpers():
    assert escape.html_text('<a href="x">\'') == "&lt;a href=&quot;x&quot;&gt;&#x27;"
    assert escape.html_attr("a\nb") == "a&#10;b"
    assert escape.md_text("a|b `c` *d* [e](f) <g> & \"h\" 'i'") == "a\\|b \\`c\\` \\*d\\* \\[e\\](f) \\<g> \\& \"h\" 'i'"
    assert (escape.text(None), escape.text(True), escape.text({"b": 1, "a": [2]})) == ("unknown", "true", '{"a": [2], "b": 1}')
    assert (escape.size(4659331072), escape.size(512), escape.size(None)) == ("4.34 GiB (4659331072 bytes)", "512 bytes", "unknown")


def test_the_rollback_attestation_is_one_line_naming_the_rehearsal(tmp_path):
    """The pages show the observed rollback as its state and the transitions it names, not the evidence's JSON."""
    facts = ri.h200_facts()
    inputs = ri.full_inputs(str(tmp_path), facts)
    page = markdown.render(record.build(facts, "h200-vm", inputs))
    row = [line for line in page.splitlines() if line.startswith("| rollback |") and "(observed)" in line]
    assert row == ["| rollback | rehearsed (observed): enable 20261201T090000Z (22.5 s); rollback 20261201T091000Z (21.6 s); "
                   "re-enable 20261201T092000Z (19 s) |"]
    missing = record.build(facts, "h200-vm", dict(inputs, rollback=rehearsal_cases.cache_missing()))
    row = [line for line in markdown.render(missing).splitlines() if line.startswith("| rollback |") and "(observed)" in line]
    assert row == ["| rollback | not reconciled (observed): enable 20261201T090000Z (22.5 s); rollback 20261201T091000Z (21.6 s); "
                   "re-enable 20261201T092000Z (19 s); not back: ReplicaSet/default/cache-5b8d4c |"]
