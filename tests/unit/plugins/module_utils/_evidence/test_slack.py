"""Reservation slack (_evidence/slack.py): the seed report's worked example, exactly, and an SMT-on variant."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import slack

SECOND = 10 ** 9


def samples(cpu_seconds, wall=60):
    """Two usage samples of one cgroup, ``wall`` seconds apart, ``cpu_seconds`` of CPU time between them."""
    return ({"usage_ns": 5 * SECOND, "monotonic_ns": 1000 * SECOND},
            {"usage_ns": 5 * SECOND + int(round(cpu_seconds * SECOND)), "monotonic_ns": (1000 + wall) * SECOND})


NO_SMT = [{"cpus": str(cpu)} for cpu in range(8)]
SMT = [{"cpus": "%d,%d" % (core, core + 4)} for core in range(4)]


def test_report_example_smt_off():
    # two sidecars, one physical core each, used 0.15 and 0.25 core-equivalents over the same interval
    uses = [samples(0.15 * 60), samples(0.25 * 60)]
    assert slack.average_use(*uses[0]) == {"cpu_seconds": 9.0, "wall_seconds": 60.0, "cpu_equivalents": 0.15, "unit": slack.UNIT}
    baseline = slack.reservation_slack("2-3", uses, NO_SMT)
    candidate = slack.reservation_slack("2", uses, NO_SMT)
    assert baseline == {"reserved_cpus": "2-3", "reserved_physical_cores": 2, "partial_cores": [], "reserved_cpu_equivalents": 2,
                        "used_cpu_equivalents": 0.4, "slack_cpu_equivalents": 1.6, "unit": slack.UNIT}
    assert (candidate["reserved_physical_cores"], candidate["used_cpu_equivalents"], candidate["slack_cpu_equivalents"]) == (1, 0.4, 0.6)
    assert slack.compare(baseline, candidate) == {"baseline_slack": 1.6, "candidate_slack": 0.6, "reduction_physical_cores": 1,
                                                  "reduction_cpu_equivalents": 1, "unit": slack.UNIT}
    worked = "%.2f - %.2f = %.2f"
    keys = ("reserved_cpu_equivalents", "used_cpu_equivalents", "slack_cpu_equivalents")
    assert worked % tuple(baseline[k] for k in keys) == "2.00 - 0.40 = 1.60"
    assert worked % tuple(candidate[k] for k in keys) == "1.00 - 0.40 = 0.60"


def test_report_example_smt_on_units_kept():
    uses = [samples(0.15 * 60), samples(0.25 * 60)]
    # one physical core each = both SMT threads: 2 cores are 4 CPU-equivalents
    baseline = slack.reservation_slack("1-2,5-6", uses, SMT)
    candidate = slack.reservation_slack("1,5", uses, SMT)
    assert (baseline["reserved_physical_cores"], baseline["reserved_cpu_equivalents"], baseline["slack_cpu_equivalents"]) == (2, 4, 3.6)
    assert (candidate["reserved_physical_cores"], candidate["reserved_cpu_equivalents"], candidate["slack_cpu_equivalents"]) == (1, 2, 1.6)
    assert slack.compare(baseline, candidate) == {"baseline_slack": 3.6, "candidate_slack": 1.6, "reduction_physical_cores": 1,
                                                  "reduction_cpu_equivalents": 2, "unit": slack.UNIT}
    # a lone SMT thread still costs its whole core
    half = slack.reservation_slack("1", uses, SMT)
    assert (half["reserved_physical_cores"], half["reserved_cpu_equivalents"], half["partial_cores"]) == (1, 2, ["1,5"])


def test_counter_that_went_down_is_refused():
    first, second = samples(1)
    with pytest.raises(nodefs.EvidenceError, match="CPU usage counter went down from 6000000000 to 5000000000 ns"):
        slack.average_use(second, dict(first, monotonic_ns=second["monotonic_ns"] + SECOND))
