"""Issue 30's seven case classes as exposition text: one histogram family per case, in three states a test serves in turn.

Each case: ``les`` (the ``le`` labels as written, in exposition order), cumulative counts in the start state ``s0``, the
middle state ``s1`` (None: as ``s0``; Prometheus scrapes it, the scrape path never sees it) and the end state ``s2``, and
``created`` (the ``*_created`` sample per state, or None: not exposed). ``NAN`` is a NaN count.

1. q = 0 with an empty lowest bucket (0/0), a lowest bound <= 0, no observations;
2. ties: q x N on a cumulative count with the buckets above it empty (N, q picked so that the rounding of the rates
   decides for windows of 3, 6, 7, 9, 11-15 s, never 1, 2, 4, 5, 8 or 10 s, where 1/w leaves no rounding that matters);
3. NaN in a bucket at the start, the end, the lowest bucket, the +Inf bucket;
4. ``le`` spellings Go's strconv.ParseFloat refuses (surrounding spaces, 1e400) or reads (hex, underscores, ``Infinity``,
   ``.5``, ``5.``, 1e-400 as 0);
5. one bound under two spellings (``0.1``, ``1e-1``: two series, added), bounds written out of order;
6. (the window rules: a window of one scrape interval, the server's version; no case of its own);
7. resets per bucket series, a restart Prometheus scrapes at zero and the scrape path sees only by ``*_created``, and the
   same restart Prometheus never scraped (its twin: ``c7_restart_seen``).
"""

import math

NAN = math.nan
TIE_BOUNDS = ["0.25", "0.5", "0.75", "1", "2.5", "5", "+Inf"]
TIE_BASE = [5, 10, 20, 20, 30, 40, 40]
TIES = {"c2_tie_250": (250, 0.1), "c2_tie_570": (570, 0.1), "c2_tie_210": (210, 0.1), "c2_tie_100": (100, 0.1)}


def _tie(total, q):
    rank = int(q * total)
    increase = [0, rank // 2, rank, rank, rank, total, total]
    return {"les": TIE_BOUNDS, "s0": TIE_BASE, "s2": [base + more for base, more in zip(TIE_BASE, increase)], "class": 2}


CASES = {
    "c1_empty_lowest": {"les": ["0.001", "0.01", "0.1", "1", "+Inf"], "s0": [0, 2, 5, 9, 10], "s2": [0, 14, 45, 99, 110], "class": 1},
    "c1_lowest_used": {"les": ["0.001", "0.01", "0.1", "1", "+Inf"], "s0": [1, 2, 5, 9, 10], "s2": [4, 14, 45, 99, 110], "class": 1},
    "c1_nonpositive_lowest": {"les": ["-1", "0", "1", "+Inf"], "s0": [0, 1, 2, 3], "s2": [0, 5, 8, 13], "class": 1},
    "c1_no_observations": {"les": ["0.1", "1", "+Inf"], "s0": [3, 5, 8], "s2": [3, 5, 8], "class": 1},
    "c3_nan_end": {"les": ["0.1", "0.5", "1", "+Inf"], "s0": [1, 2, 3, 4], "s2": [11, NAN, 53, 64], "class": 3},
    "c3_nan_start": {"les": ["0.1", "0.5", "1", "+Inf"], "s0": [1, NAN, 3, 4], "s2": [11, 32, 53, 64], "class": 3},
    "c3_nan_lowest": {"les": ["0.1", "0.5", "1", "+Inf"], "s0": [1, 2, 3, 4], "s2": [NAN, 32, 53, 64], "class": 3},
    "c3_nan_inf": {"les": ["0.1", "0.5", "1", "+Inf"], "s0": [1, 2, 3, 4], "s2": [11, 32, 53, NAN], "class": 3},
    "c4_spaces": {"les": [" 0.1", "0.25", "0.5 ", "1", "+Inf"], "s0": [1, 2, 3, 4, 5], "s2": [21, 42, 63, 84, 105], "class": 4},
    "c4_hex_out_of_range": {"les": ["0x1p-3", "0.5", "1e400", "1", "+Inf"], "s0": [1, 2, 5, 3, 5], "s2": [21, 42, 90, 63, 105],
                            "class": 4},
    "c4_other_spellings": {"les": ["1e-400", ".5", "0x1P+1", "0X1.8p+1", "5.", "2_5", "Infinity"], "s0": [0, 1, 2, 3, 4, 5, 6],
                           "s2": [0, 11, 22, 33, 44, 55, 66], "class": 4},
    "c5_two_spellings": {"les": ["0.1", "1e-1", "0.5", "+Inf"], "s0": [1, 2, 3, 5], "s2": [11, 7, 53, 65], "class": 5},
    "c5_out_of_order": {"les": ["1", "+Inf", "0.25", "0.5"], "s0": [3, 4, 1, 2], "s2": [63, 84, 21, 42], "class": 5},
    "c7_bucket_resets": {"les": ["0.1", "0.5", "1", "+Inf"], "s0": [5, 10, 20, 30], "s2": [2, 12, 15, 40], "class": 7},
    "c7_restart_seen": {"les": ["0.1", "0.5", "1", "+Inf"], "s0": [5, 10, 20, 30], "s1": [0, 0, 0, 0], "s2": [6, 12, 25, 35],
                        "created": [100.0, 200.0, 200.0], "class": 7},
    "c7_restart_created_only": {"les": ["0.1", "0.5", "1", "+Inf"], "s0": [5, 10, 20, 30], "s2": [6, 12, 25, 35],
                                "created": [100.0, 100.0, 200.0], "class": 7, "twin": "c7_restart_seen"},
}
CASES.update({name: _tie(total, q) for name, (total, q) in TIES.items()})
MAPPING = {name: name for name in CASES}


def _value(value):
    return "NaN" if math.isnan(value) else repr(float(value))


def counts(case, state):
    """The case's cumulative counts in ``state`` (0, 1, 2)."""
    if state == 1 and case.get("s1") is None:
        return case["s0"]
    return case["s%d" % state]


def text(state):
    """The whole exposition in ``state``: every case's family, its _count (the top bucket) and _sum, its _created."""
    lines = []
    for name, case in sorted(CASES.items()):
        values = counts(case, state)
        lines.append("# TYPE %s histogram" % name)
        lines.extend('%s_bucket{le="%s"} %s' % (name, le, _value(value)) for le, value in zip(case["les"], values))
        top = values[case["les"].index("+Inf")] if "+Inf" in case["les"] else values[-1]
        lines.append("%s_count %s" % (name, _value(top)))
        lines.append("%s_sum %s" % (name, _value(top * 0.25)))
        if case.get("created"):
            lines.append("# TYPE %s_created gauge" % name)
            lines.append("%s_created %s" % (name, _value(case["created"][state])))
    return "\n".join(lines) + "\n"
