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

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._fileio import FileIOError, read_regular

# The kubelet's checkpoints are a few KiB to a few MiB (one entry per container).
MAX_CHECKPOINT_BYTES = 16 * 1024 * 1024

CHECKPOINTS = (
    # (file name, config key, the kubelet's default policy, manager name in the kubelet's message)
    ("cpu_manager_state", "cpuManagerPolicy", "none", "CPU manager"),
    ("memory_manager_state", "memoryManagerPolicy", "None", "memory manager"),
)


def policy_of(path):
    """(policy name, problem) of a checkpoint file; (None, None) when there is none.

    v1/v2 checkpoints carry ``policyName`` at the top; the 1.37 format embeds the
    v2 structure under ``data`` (an object, or that object as a JSON string).
    """
    try:
        data = read_regular(path, MAX_CHECKPOINT_BYTES)
    except FileNotFoundError:
        return None, None
    except FileIOError as exc:
        return None, "%s (a kubelet checkpoint is expected there)" % exc
    except OSError as exc:
        return None, "%s: cannot be read as a kubelet checkpoint (%s)" % (path, exc.strerror or exc)
    try:
        doc = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        return None, "%s: cannot be read as a kubelet checkpoint (%s)" % (path, exc)
    if isinstance(doc, dict) and "policyName" not in doc and "data" in doc:
        data = doc["data"]
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError as exc:
                return None, "%s: its data field is not JSON (%s)" % (path, exc)
        doc = data
    if not isinstance(doc, dict) or not isinstance(doc.get("policyName"), str):
        return None, "%s: no policyName in the checkpoint" % path
    return doc["policyName"], None


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
