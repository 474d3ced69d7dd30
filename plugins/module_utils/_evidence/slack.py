# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reservation slack as the collection defines it: reserved capacity minus average use, units kept.

Public: `average_use`, `reservation_slack`, `topology_cores`, `compare`.

Average use is the change of a cgroup's CPU usage counter over the change of wall time between
two samples (`usage.read_usage`): logical-CPU-seconds per second ("CPU-equivalents"). A
reservation is counted in physical cores (a core counts once, whole, when any of its SMT threads
is reserved: with full-pcpus-only a partial core costs the whole core) and in the logical CPUs
those cores hold, which is the unit the usage counter is in. With SMT off the two units are the
same; with SMT on, slack is stated in CPU-equivalents and the reduction in physical cores, and
no conversion between them is invented.
"""

from __future__ import annotations

from fractions import Fraction

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as _shapes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import inputs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs

UNIT = "CPU-equivalents (logical-CPU-seconds per second)"
_CORES = _shapes.ListOf(_shapes.Fields("a core of the topology facts", {"cpus": _shapes.STR}))


def _number(value):
    return round(float(value), 6)


def _fraction_use(first, second):
    if second["usage_ns"] < first["usage_ns"]:
        raise nodefs.EvidenceError("CPU usage counter went down from %d to %d ns (%s): the cgroup was recreated between the samples"
                                   % (first["usage_ns"], second["usage_ns"], second.get("source")))
    wall = second["monotonic_ns"] - first["monotonic_ns"]
    if wall <= 0:
        raise nodefs.EvidenceError("the second usage sample is not later than the first (%d ns apart)" % wall)
    return Fraction(second["usage_ns"] - first["usage_ns"], wall), wall


def average_use(first, second):
    """{"cpu_seconds", "wall_seconds", "cpu_equivalents", "unit"} between two `read_usage` samples of one cgroup."""
    first = inputs.check_sample(first, "the first usage sample")
    second = inputs.check_sample(second, "the second usage sample")
    use, wall = _fraction_use(first, second)
    return {"cpu_seconds": _number(Fraction(second["usage_ns"] - first["usage_ns"], 10 ** 9)), "wall_seconds": _number(Fraction(wall, 10 ** 9)),
            "cpu_equivalents": _number(use), "unit": UNIT}


def _cores_of(cpus, cores):
    wanted = set(_cpulist.parse(cpus))
    touched = [core for core in cores if wanted & set(_cpulist.parse(core["cpus"]))]
    partial = [core["cpus"] for core in touched if not set(_cpulist.parse(core["cpus"])) <= wanted]
    covered = set()
    for core in touched:
        covered.update(_cpulist.parse(core["cpus"]))
    missing = wanted - covered
    if missing:
        raise nodefs.EvidenceError("reserved CPUs %s are in no physical core of the facts" % _cpulist.format(missing))
    return len(touched), len(covered), partial


def reservation_slack(reserved_cpus, samples, cores):
    """Slack of one reservation: ``reserved_cpus`` (a cpulist), ``samples`` [(first, second)] per cgroup using it, ``cores`` (facts).

    Each cgroup is counted once: pass containers or their pod, never both (a pod's counter holds its containers').
    """
    if not isinstance(reserved_cpus, str):
        raise nodefs.EvidenceError("reserved_cpus must be a cpulist string, got %s" % type(reserved_cpus).__name__, field="reserved_cpus")
    cores = _shapes.check(cores, _CORES, "topology cores", nodefs.EvidenceError)
    samples = inputs.check_samples(samples)
    physical, logical, partial = _cores_of(reserved_cpus, cores)
    used = sum((_fraction_use(first, second)[0] for first, second in samples), Fraction(0))
    return {"reserved_cpus": _cpulist.canonical(reserved_cpus), "reserved_physical_cores": physical, "partial_cores": partial,
            "reserved_cpu_equivalents": logical, "used_cpu_equivalents": _number(used), "slack_cpu_equivalents": _number(logical - used),
            "unit": UNIT}


def topology_cores(topology):
    """The ``cores`` of topology facts (the physical cores slack counts in); EvidenceError when the facts have none."""
    if not isinstance(topology, dict) or "cores" not in topology:
        raise nodefs.EvidenceError("topology must be the numa_gate_topology facts (a mapping with cores), got %s"
                                   % ("a mapping without cores" if isinstance(topology, dict) else type(topology).__name__), field="topology")
    return topology["cores"]


def compare(baseline, candidate):
    """The comparison: both slacks and the reservation reduction in physical cores (and CPU-equivalents)."""
    return {"baseline_slack": baseline["slack_cpu_equivalents"], "candidate_slack": candidate["slack_cpu_equivalents"],
            "reduction_physical_cores": baseline["reserved_physical_cores"] - candidate["reserved_physical_cores"],
            "reduction_cpu_equivalents": baseline["reserved_cpu_equivalents"] - candidate["reserved_cpu_equivalents"],
            "unit": UNIT}
