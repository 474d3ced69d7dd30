"""The collection against a Prometheus reference (prom_reference.py, from Prometheus' Go source) on generated cases, to the bit.

Generated (seeded): ties (q × N on a cumulative count, round counts), q = 0 and 1, NaN counts, unsorted and duplicated bounds,
le spellings Go refuses or reads differently, empty windows, resets per bucket series, 2.x and 3.x range rules. Every
comparison is exact float equality (NaN equal to NaN).
"""

import math
import random
import re

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import quantile as hq
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import query as service_query
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._service_comparison import window as service_window
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._service_comparison import prom_reference as ref

NAME = "vllm:time_to_first_token_seconds"
SPELLINGS = {0.1: ["0.1", "1e-1", "0.10", "0x1.999999999999ap-4"], 0.5: ["0.5", "5e-1", ".5"], 0.75: ["0.75"], 1.0: ["1", "1.0", "1e0"],
             2.5: ["2.5", "2_5e-1_0"], math.inf: ["+Inf", "Inf", "inf", "+infinity"]}
BAD = [" 1", "1e400", "0x1", "1__0", "", "abc"]


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def quantiles(rng):
    return [0.0, 1.0, 0.5, 0.9, 0.99, rng.random()]


def bucket_case(seed):
    rng = random.Random(seed)
    bounds = sorted(rng.sample([0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0, -1.0, 0.0], rng.randint(1, 6)))
    total = rng.choice([0, 100, 200, 1000, rng.randint(1, 500)])
    counts = sorted(rng.randint(0, total) for unused in bounds)
    if rng.random() < 0.5:
        counts[0] = 0  # an empty lowest bucket: q = 0 is 0/0
    buckets = list(zip(bounds, [float(c) for c in counts])) + [(math.inf, float(total))]
    if rng.random() < 0.2:
        buckets[rng.randrange(len(buckets))] = (buckets[0][0], math.nan)
    if rng.random() < 0.2:
        buckets.append(rng.choice(buckets))  # a duplicated bound
    if rng.random() < 0.2:
        buckets = [(b, c + rng.choice([-3.0, 1e-14, -1e-14])) for b, c in buckets]  # not monotonic, float noise
    scale = rng.choice([1.0, 1.0 / 60.0, 1.0 / 37.0])
    buckets = [(b, c * scale) for b, c in buckets]
    rng.shuffle(buckets)
    qs = quantiles(rng) + [c / total for unused, c in zip(bounds, counts) if total][:2]
    return buckets, qs


@pytest.mark.parametrize("seed", range(200))
@pytest.mark.parametrize("version", ["2", "3"])
def test_bucket_quantile_equals_the_reference(seed, version):
    buckets, qs = bucket_case(seed)
    for q in qs:
        ours = hq.bucket_quantile(q, buckets, legacy=version == "2")["value"]
        assert same(ours, ref.bucket_quantile(q, buckets, version)), (q, buckets)


@pytest.mark.parametrize("text", [s for spellings in SPELLINGS.values() for s in spellings] + BAD +
                         ["0x1p-3", "1_0", "1e-400", "infin", ".", "+nan", "NaN", "0x_1p0", "1_.5", "1e1_0", "-Inf", "1.", "-0"])
def test_le_parsing_equals_go(text):
    assert same(hq.parse_le(text), ref.go_parse_float(text)) if ref.go_parse_float(text) is not None else hq.parse_le(text) is None


def exposition(series, created=None):
    lines = ["# TYPE %s histogram" % NAME]
    for (pod, le), value in sorted(series.items()):
        lines.append('%s_bucket{le="%s",pod="%s"} %r' % (NAME, le, pod, value))
    for pod in sorted({pod for pod, unused in series}):
        top = max(value for (p, le), value in series.items() if p == pod and ref.go_parse_float(le) == math.inf)
        lines.append('%s_count{pod="%s"} %r\n%s_sum{pod="%s"} 1.0' % (NAME, pod, top, NAME, pod))
        if created:
            lines.append('%s_created{pod="%s"} %r' % (NAME, pod, created[pod]))
    return "\n".join(lines) + "\n"


def histogram_series(rng):
    """{(pod, le text): [cumulative values over the scrapes]}: rounded counts, ties, resets per bucket series, odd spellings."""
    pods = ["a", "b"][:rng.randint(1, 2)]
    bounds = sorted(rng.sample([0.1, 0.5, 0.75, 1.0, 2.5], rng.randint(1, 4))) + [math.inf]
    les = [rng.choice(SPELLINGS[b]) for b in bounds]
    if rng.random() < 0.3:
        les.append(rng.choice(SPELLINGS[bounds[0]]))  # a bound under a second spelling
    if rng.random() < 0.3:
        les.append(rng.choice(BAD))
    scrapes = rng.randint(2, 6)
    series = {}
    for pod in pods:
        per = {le: [] for le in les}
        for unused in range(scrapes):
            counts = sorted(rng.choice([0, 0, 10, 50, 100]) + rng.randint(0, 3) * 10 for unused in les)
            for le, count in zip(sorted(les, key=lambda x: ref.go_parse_float(x) if ref.go_parse_float(x) is not None else 0), counts):
                per[le].append(float(count))
        for le in les:
            values = per[le]
            running = sorted(values) if rng.random() < 0.8 else values  # some series go down: resets
            series[(pod, le)] = running
    return series, scrapes


@pytest.mark.parametrize("seed", range(120))
def test_scrape_path_equals_prometheus_2x_on_scrape_aligned_windows(seed):
    rng = random.Random(1000 + seed)
    series, unused = histogram_series(rng)
    start_ms = 1700000000000 + rng.randint(0, 999)
    end_ms = start_ms + rng.choice([1000, 15000, 60000, 61234, 300000])
    first = {key: values[0] for key, values in series.items()}
    last = {key: values[-1] for key, values in series.items()}
    window = service_window.scrape_window({"text": exposition(first), "timestamp": start_ms / 1000.0},
                                          {"text": exposition(last), "timestamp": end_ms / 1000.0})
    samples = {(("le", le), ("pod", pod)): [(start_ms, first[(pod, le)]), (end_ms, last[(pod, le)])] for pod, le in series}
    for q in quantiles(rng):
        theirs = ref.histogram_quantile_of_rate(q, samples, end_ms, end_ms - start_ms, "2")
        for version in ("2", "3"):
            ours = hq.entry_quantile(q, window["metrics"]["ttft"], legacy=version == "2")["value"]
            assert same(ours, ref.histogram_quantile_of_rate(q, samples, end_ms, end_ms - start_ms, "2") if version == "2" else
                        _with_rules(q, samples, end_ms, end_ms - start_ms)), (q, version, theirs)
        # 3.x leaves the start sample out: two scrapes are one sample, and Prometheus answers nothing.
        assert ref.histogram_quantile_of_rate(q, samples, end_ms, end_ms - start_ms, "3") is None


def _with_rules(q, samples, t_ms, range_ms):
    """2.x ranges and sums, 3.x's monotonicity rule: what the collection computes without a server's version."""
    saved = ref.bucket_quantile
    try:
        ref.bucket_quantile = lambda q_, buckets, unused_version: saved(q_, buckets, "3")
        return ref.histogram_quantile_of_rate(q, samples, t_ms, range_ms, "2")
    finally:
        ref.bucket_quantile = saved


class FakePrometheus:
    """Answers the query path's expressions from generated samples by the reference's rules for one version."""

    PATTERN = re.compile(r"^(?:(\w+)\()?([\w:]+?)(?:\{[^}]*\})?(?:\[(\d+)ms\])?\)?$")

    def __init__(self, samples, version):
        self.samples, self.version = samples, version

    def answer(self, expression, at):
        function, metric, range_ms = self.PATTERN.match(expression).groups()
        t_ms = int(round(at * 1000))
        out = []
        for (name, labels), points in sorted(self.samples.items()):
            if name != metric:
                continue
            if range_ms is None:
                seen = [p for p in points if t_ms - 300000 < p[0] <= t_ms]
                value = seen[-1][1] if seen else None
            else:
                chosen = ref.select_range(points, t_ms, int(range_ms), self.version)
                if function in ("rate", "increase"):
                    value = ref.extrapolated_rate(chosen, t_ms, int(range_ms), function == "rate", self.version)
                else:
                    value = (sum(1 for x, y in zip(chosen, chosen[1:]) if (y[1] < x[1] if function == "resets" else y[1] != x[1]))
                             if chosen else None)
            if value is not None:
                out.append({"metric": dict(labels), "value": [at, repr(value)]})
        return out


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("version", sorted(ref.TAGS))
def test_query_path_equals_the_servers_histogram_quantile(seed, version, monkeypatch):
    rng = random.Random(5000 + seed)
    series, scrapes = histogram_series(rng)
    base = 1700000000000
    step = rng.choice([1000, 15000])
    times = [base + i * step + rng.randint(0, 50) for i in range(scrapes)]
    samples = {}
    for (pod, le), values in series.items():
        samples[(NAME + "_bucket", (("le", le), ("pod", pod)))] = list(zip(times, values))
    start = times[0] if rng.random() < 0.5 else times[0] - rng.randint(1, step)
    end = times[-1] if rng.random() < 0.5 else times[-1] + rng.randint(1, step // 2)
    fake = FakePrometheus(samples, version)
    monkeypatch.setattr(service_query, "instant_query", lambda url, expression, at, **unused: fake.answer(expression, at))
    monkeypatch.setattr(service_query, "server_version", lambda url, **unused: version)
    range_ms = end - start
    theirs = {q: ref.histogram_quantile_of_rate(q, {labels: points for (unused, labels), points in samples.items()}, end, range_ms, version)
              for q in quantiles(rng)}
    try:
        window = service_query.query_window("http://prometheus.invalid", start / 1000.0, end / 1000.0, pool=object())
    except service_window.ServiceComparisonError as exc:
        assert all(value is None for value in theirs.values()), exc  # no rate at all: Prometheus has no answer either
        return
    assert window["prometheus_rules"] == version[0] + ".x" and window["rules"]["checked"] is True
    entry = window["metrics"]["ttft"]
    assert entry["quantile_rule"] == {"2": "running-max", "3": "small-deltas"}[ref.rule(version, "quantile")]
    for q, value in theirs.items():
        if value is None:
            assert not entry.get("rates")
            continue
        ours = hq.entry_quantile(q, entry, legacy=entry["quantile_rule"] == "running-max")["value"]
        assert same(ours, value), (q, ours, value)
