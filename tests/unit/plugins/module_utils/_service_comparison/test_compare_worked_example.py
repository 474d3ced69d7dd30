"""The worked example of docs/service-comparison.md: three interleaved repetitions per side from the test service, compared; the doc shows this table.

The test service (tests/prometheus/vllm_like_service.py, vLLM's names and buckets, seeded) serves the baseline; the canary is the same
service with a 10 % lower inter-token latency. Each repetition is a 60 s window between two scrapes of its /metrics text (the
timestamps are the example's), after a warmup window that is excluded.
"""

import pathlib

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import compare as service_compare, window as service_window
from ansible_collections.gpusmith.numa_gate.tests.prometheus.vllm_like_service import Service

DOC = pathlib.Path(__file__).resolve().parents[5] / "docs" / "service-comparison.md"
IDENTITY = {"images": {"server": "docker.io/vllm/vllm-openai@sha256:" + "3" * 64}, "model": "test-model", "runtime": "vllm 0.12.0"}
LOAD = {"request_rate": 5.0, "max_concurrency": 16, "burstiness": 1.0, "dataset": "random", "seed": 0}
OBJECTIVES = [{"metric": "ttft", "quantile": 0.95, "at_most": 1.0}, {"metric": "itl", "quantile": 0.95, "relative": 0.05},
              {"metric": "error_ratio", "at_most": 0.01}, {"metric": "throughput", "relative": 0.05}]


def runs():
    sides = {"baseline": Service(seed=1, serve=False), "canary": Service(seed=2, serve=False)}
    out, clock = [], 1000.0
    for index, side in enumerate(["baseline", "canary"] * 4):
        service = sides[side]
        start = {"text": service.text(), "timestamp": clock}
        service.observe(300, itl_median=0.03 if side == "baseline" else 0.027, errors=1)
        clock += 60.0
        end = {"text": service.text(), "timestamp": clock}
        clock += 30.0
        out.append({"side": side, "warmup": index < 2, "identity": IDENTITY, "load": dict(LOAD, seed=index),
                    "window": service_window.scrape_window(start, end)})
    return out


def table(result):
    lines = ["| metric | quantile | baseline min / median / max | canary min / median / max | finding |", "|---|---|---|---|---|"]
    for key, entry in result["table"]["latency"].items():
        for label, row in entry["quantiles"].items():
            sides = [" / ".join("%.4f" % row[side][k] for k in ("min", "median", "max")) for side in ("baseline", "canary")]
            lines.append("| %s | %s | %s | %s | %s |" % (key, label, sides[0], sides[1], row["finding"]))
    return "\n".join(lines)


def test_the_worked_example_is_the_docs():
    result = service_compare.compare(runs(), OBJECTIVES)
    assert result["state"] == "held"
    assert result["warmups_excluded"] == 2
    assert result["table"]["latency"]["ttft"]["observations"] == {"baseline": [300.0] * 3, "canary": [300.0] * 3}
    assert result["warnings"] == ["no prefix cache hit and query counters on both sides: prompt-prefix reuse is not shown to be controlled"]
    text = DOC.read_text()
    assert table(result) in text, table(result)
    for reason in result["reasons"]:
        assert reason in text, reason
