# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``baseline_config`` and ``target_config`` sources: the kubelet's configuration files as they are (pure).

Public: `baseline`, `target`, `BASELINE_SHAPE`, `TARGET_SHAPE`.

Both from ``kubelet_files`` (kubelet_config_info, one read of the node's files): ``base`` (the main
file) and ``effective`` (the main file merged with the drop-ins, what the kubelet runs). Not read:
None, and the record leaves its config diff out.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import shape_check as S
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.composition import task_result

# What the record takes for each (`Source.shape`): any mapping, and a configuration whose reservedSystemCPUs is a cpulist.
BASELINE_SHAPE = S.MAPPING
TARGET_SHAPE = S.Fields("a kubelet configuration", {}, {"reservedSystemCPUs": S.Nullable(S.STR)})


def baseline(reads):
    return (task_result.result(reads, "kubelet_files") or {}).get("base")


def target(reads):
    return (task_result.result(reads, "kubelet_files") or {}).get("effective")
