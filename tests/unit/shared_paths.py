"""Where the read-only real-machine fixtures are: ../shared beside the checkout.

`make` exports NUMA_GATE_SHARED (ansible-test runs the tests from a copy of
the collection, where the relative path no longer holds).
"""

import os

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
SHARED = os.environ.get("NUMA_GATE_SHARED") or os.path.join(os.path.dirname(_REPO), "shared")
FIXTURES = os.path.join(SHARED, "fixtures")
HWLOC = os.path.join(FIXTURES, "hwloc")
H200_VM = os.path.join(FIXTURES, "real", "h200-vm")
NVIDIA_SMI = os.path.join(FIXTURES, "nvidia-smi")

if not os.path.isdir(FIXTURES):
    raise RuntimeError("fixtures not found at %s: set NUMA_GATE_SHARED to the shared/ folder" % FIXTURES)
