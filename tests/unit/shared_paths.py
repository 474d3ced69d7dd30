"""Where the read-only real-machine fixtures are: the shared/ folder beside the checkout.

NUMA_GATE_SHARED wins when set. Otherwise the nearest ancestor of this file
that holds shared/fixtures is used: that is ../shared for the checkout, and it
still works from the copy of the collection that ansible-test runs (under
.build/), where the environment variable is not passed through.
"""

import os


def _find_shared():
    if os.environ.get("NUMA_GATE_SHARED"):
        return os.environ["NUMA_GATE_SHARED"]
    here = os.path.dirname(os.path.realpath(__file__))
    while True:
        candidate = os.path.join(here, "shared")
        if os.path.isdir(os.path.join(candidate, "fixtures")):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            raise RuntimeError("no shared/fixtures folder above %s: set NUMA_GATE_SHARED to the shared/ folder"
                               % os.path.realpath(__file__))
        here = parent


SHARED = _find_shared()
FIXTURES = os.path.join(SHARED, "fixtures")
HWLOC = os.path.join(FIXTURES, "hwloc")
H200_VM = os.path.join(FIXTURES, "real", "h200-vm")
NVIDIA_SMI = os.path.join(FIXTURES, "nvidia-smi")
