# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's CPU and Memory Manager checkpoint files, as far as a policy change needs them.

A kubelet refuses to start when its configured policy differs from the one in
its checkpoint (pkg/kubelet/cm/cpumanager/state/state_checkpoint.go and
pkg/kubelet/cm/memorymanager/state/state_checkpoint.go, restoreState), with
"could not restore state from checkpoint: configured policy %q differs from
state checkpoint policy %q, please drain this node and delete the CPU manager
checkpoint file %q before restarting Kubelet". Writing such a configuration
onto a node whose checkpoints are still there breaks its next kubelet restart
or reboot, so it is refused here with the same words.

Public: `CHECKPOINTS`, `policy_of(path)`, `stale(config, state_dir)`.

Checkpoint files are read through `_fileio.read_regular`: a FIFO, device or symlink where a
checkpoint is expected is a finding that names the file, never a blocking read.
"""

from __future__ import annotations

import json
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.fileio import FileIOError, read_regular
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import read as checkpoint_read

# The kubelet's checkpoints are a few KiB to a few MiB (one entry per container).
MAX_CHECKPOINT_BYTES = 16 * 1024 * 1024

CHECKPOINTS = (
    # (file name, config key, the kubelet's default policy, manager name in the kubelet's message)
    ("cpu_manager_state", "cpuManagerPolicy", "none", "CPU manager"),
    ("memory_manager_state", "memoryManagerPolicy", "None", "memory manager"),
)


def policy_of(path):
    """(policy name, problem) of a checkpoint file; (None, None) when there is none.

    Read by `checkpoint_read` as the 1.37 kubelet reads it: the policy comes from ``data`` where the
    file has it. Only the policy matters here, so a checksum that does not verify is left to
    ``kubelet_checkpoint``, which decides whether the kubelet would start.
    """
    try:
        data = read_regular(path, MAX_CHECKPOINT_BYTES)
    except FileNotFoundError:
        return None, None
    except FileIOError as exc:
        return None, "%s (a kubelet checkpoint is expected there)" % exc
    except OSError as exc:
        return None, "%s: cannot be read as a kubelet checkpoint (%s)" % (path, exc.strerror or exc)
    reader = checkpoint_read.read_memory if os.path.basename(path).startswith("memory") else checkpoint_read.read_cpu
    report = reader(data)
    if isinstance(report.get("policy"), str):
        return report["policy"], None
    if report["problem"]:
        return None, "%s: cannot be read as a kubelet checkpoint (%s)" % (path, report["problem"])
    return None, "%s: no policyName in the checkpoint" % path


def stale(config, state_dir):
    """Messages for every checkpoint in state_dir whose policy differs from config's."""
    problems = []
    for name, key, default, manager in CHECKPOINTS:
        path = os.path.join(state_dir, name)
        policy, problem = policy_of(path)
        if problem:
            problems.append(problem + "; the kubelet could not restore it either: drain the node, stop the kubelet and remove it")
            continue
        configured = config.get(key) or default
        if policy is not None and policy != configured:
            problems.append(
                "could not restore state from checkpoint: configured policy %s differs from state checkpoint policy %s, please drain "
                "this node and delete the %s checkpoint file %s before restarting Kubelet"
                % (json.dumps(configured), json.dumps(policy), manager, json.dumps(path)))
    return problems
