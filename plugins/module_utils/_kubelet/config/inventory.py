# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The files that make up a kubelet's configuration and state on a node.

Public: `kubelet_files(root, config_path, config_dir, kubelet_root_dir)`.

The main file (``--config``), every drop-in the kubelet would merge (files named ``*.conf`` under
``--config-dir``, walked recursively in ``filepath.WalkDir`` order, cmd/kubelet/app/server.go),
and the CPU and Memory Manager checkpoints. Symlinked folders are not descended (WalkDir does not
follow them either); every path stays inside ``root``.
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config.merge import dropin_sort_key, is_dropin_name

CHECKPOINTS = ("cpu_manager_state", "memory_manager_state")


def _dropins(root, config_dir):
    real = _fileio.resolve_within(root, config_dir)
    if not os.path.isdir(real):
        return []
    found = []
    for folder, dirs, names in os.walk(real, followlinks=False):
        dirs.sort()
        for name in names:
            if is_dropin_name(name):
                found.append(os.path.join(config_dir, os.path.relpath(os.path.join(folder, name), real)))
    return sorted(found, key=dropin_sort_key)


def kubelet_files(root, config_path, config_dir, kubelet_root_dir):
    """[(node path, role)] with role ``main``, ``dropin`` or ``checkpoint``, in that order."""
    files = [(config_path, "main")] if config_path else []
    if config_dir:
        files += [(path, "dropin") for path in _dropins(root, config_dir)]
    files += [(os.path.join(kubelet_root_dir, name), "checkpoint") for name in CHECKPOINTS]
    return files
