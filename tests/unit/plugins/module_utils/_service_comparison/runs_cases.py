"""Synthetic measured windows for the comparison tests: histogram entries counted from known observations (vLLM's buckets)."""

import random

TTFT = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
ITL = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0)
IMAGES = {"server": "docker.io/vllm/vllm-openai@sha256:" + "a" * 64}
LOAD = {"request_rate": 4.0, "max_concurrency": 16, "burstiness": 1.0, "dataset": "random", "input_len": 1024, "output_len": 128, "seed": 1}


def histogram(name, observations, bounds):
    buckets = [[repr(float(bound)), float(sum(1 for value in observations if value <= bound))] for bound in bounds]
    buckets.append(["+Inf", float(len(observations))])
    return {"name": name, "type": "histogram", "buckets": buckets, "count": float(len(observations)), "sum": float(sum(observations)),
            "series": 1, "reset": False}


def counter(name, by):
    return {"name": name, "type": "counter", "total": float(sum(by.values())), "series": len(by), "reset": False,
            "by": [{"labels": {"finished_reason": reason}, "increase": float(value)} for reason, value in sorted(by.items())]}


def run(side, start, seed, ttft_scale=0.2, itl_scale=0.03, requests=240, errors=0, duration=60.0, hits=100.0, queries=1000.0,
        ttft_bounds=TTFT, warmup=False, images=None, load=None):
    rng = random.Random(seed)
    ttft = [ttft_scale * rng.lognormvariate(0.0, 0.5) for unused_request in range(requests)]
    itl = [itl_scale * rng.lognormvariate(0.0, 0.4) for unused_token in range(requests * 10)]
    metrics = {
        "ttft": histogram("vllm:time_to_first_token_seconds", ttft, ttft_bounds),
        "itl": histogram("vllm:inter_token_latency_seconds", itl, ITL),
        "tpot": {"name": "vllm:request_time_per_output_token_seconds", "type": None},
        "e2e": {"name": "vllm:e2e_request_latency_seconds", "type": None},
        "requests": counter("vllm:request_success_total", {"stop": requests - errors, "error": errors}),
        "prefix_cache_hits": {"name": "vllm:prefix_cache_hits_total", "type": "counter", "total": hits, "by": [], "series": 1, "reset": False},
        "prefix_cache_queries": {"name": "vllm:prefix_cache_queries_total", "type": "counter", "total": queries, "by": [], "series": 1,
                                 "reset": False},
    }
    return {"side": side, "warmup": warmup, "identity": {"images": dict(IMAGES if images is None else images), "model": "m", "runtime": "vllm 0.12.0"},
            "load": dict(LOAD if load is None else load), "command": ["vllm", "bench", "serve", "--seed", str(seed)],
            "window": {"source": "scrape", "start": start, "end": start + duration, "duration": duration, "metrics": metrics}}


def interleaved(canary=None, **baseline):
    """Warmup, then B C B C B C (seeds 1..6); ``canary`` overrides the canary runs' arguments."""
    runs = [run("baseline", 0.0, 99, warmup=True)]
    for index in range(6):
        side = "baseline" if index % 2 == 0 else "canary"
        args = dict(baseline if side == "baseline" else (canary or {}))
        runs.append(run(side, 100.0 + 100 * index, index + 1, **args))
    return runs
