# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's container runtime and runc versions, as the binaries on the node say them.

Public: `read`, `parse`, `BINARIES`.

The GPU device access preflight records them beside how the device plugin runs (GPU-NODE-FACTS.md section 3: the
NVML loss comes from runc re-applying the device cgroup, and "newer systemd/containerd/runc break the pass-device-specs
workaround"). No plugin document names a version that decides it, so they are recorded, never judged. The Node's
``containerRuntimeVersion`` is what the kubelet reports through the API; these are the binaries' own words, runc's included,
which the API never shows. Each is ``<binary> --version``'s version (``containerd containerd.io 1.7.27 <commit>``,
``containerd github.com/containerd/containerd/v2 v2.1.4 <commit>``, ``crio version 1.30.4``, ``runc version 1.1.12``), None when
the binary is not on the node, ``unknown (<first line>)`` when it runs but says no version this reads.
"""

from __future__ import annotations

import re

# name -> (binary, the version in its --version output)
BINARIES = {
    "containerd": ("containerd", re.compile(r"^containerd \S+ v?(\d[^\s]*)")),
    "cri-o": ("crio", re.compile(r"^(?:crio version|Version:)\s+v?(\d[^\s]*)", re.M)),
    "runc": ("runc", re.compile(r"^runc version v?(\d[^\s]*)")),
}


def parse(name, rc, out, err):
    """The version ``name``'s binary printed (``rc``, ``out``, ``err`` of ``--version``), or ``unknown (...)`` naming what it said."""
    found = BINARIES[name][1].search(out or "")
    if rc == 0 and found:
        return found.group(1)
    said = ((out or "").strip() or (err or "").strip()).splitlines()
    return "unknown (%s--version exited %d: %s)" % (BINARIES[name][0] + " ", rc, said[0][:200] if said else "no output")


def read(find, run):
    """``{containerd, cri-o, runc}`` on this node: ``find(binary)`` its path or None (AnsibleModule.get_bin_path), ``run(argv)``
    ``(rc, out, err)`` (AnsibleModule.run_command)."""
    versions = {}
    for name, (binary, dummy) in BINARIES.items():
        path = find(binary)
        versions[name] = None if path is None else parse(name, *run([path, "--version"]))
    return versions
