# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The two checkpoint files on a node: where they are, what they say, which the kubelet would refuse.

Public: `KINDS`, `locate(root, kubelet_root_dir)`, `read_all(root, kubelet_root_dir)`,
`refusals(reports, config, node)`.

Files are found inside ``root`` (never outside it, see ``_fileio``) and read only when they are
regular files, within a size bound: a FIFO or a device there is a finding, never a hang.
"""

from __future__ import annotations

import hashlib
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import checks as checkpoint_checks, read as checkpoint_read

KINDS = (("cpu", "cpu_manager_state", checkpoint_read.read_cpu, checkpoint_checks.cpu_refusal),
         ("memory", "memory_manager_state", checkpoint_read.read_memory, checkpoint_checks.memory_refusal))
READ_LIMIT = 16 * 1024 * 1024


def locate(root, kubelet_root_dir):
    """{kind: (node path as the kubelet names it, real path inside root)}."""
    located = {}
    for kind, name, _read, _refusal in KINDS:
        node_path = os.path.join(kubelet_root_dir, name)
        located[kind] = (node_path, _fileio.resolve_within(root, node_path, follow_last=False))
    return located


def read_all(root, kubelet_root_dir):
    """{kind: report} for both files; each report adds ``path`` (the node's) and ``sha256``."""
    reports = {}
    for kind, _name, reader, _refusal in KINDS:
        node_path, real = locate(root, kubelet_root_dir)[kind]
        try:
            blob = _fileio.read_regular(real, READ_LIMIT)
        except FileNotFoundError:
            report = checkpoint_read.absent(kind)
            report.update(path=node_path, sha256=None)
        except _fileio.FileIOError as exc:
            report = checkpoint_read.absent(kind)
            report.update(present=True, load=False, problem=str(exc).replace(real, node_path), path=node_path, sha256=None)
        else:
            report = reader(blob)
            report.update(path=node_path, sha256=hashlib.sha256(blob).hexdigest())
        reports[kind] = report
    return reports


def refusals(reports, config, node=None):
    """{kind: the kubelet's refusal under ``config`` (the target effective configuration), or None}."""
    target = checkpoint_checks.target_from_config(config, node)
    return {kind: refusal(reports[kind], target, reports[kind]["path"]) for kind, _name, _read, refusal in KINDS}
