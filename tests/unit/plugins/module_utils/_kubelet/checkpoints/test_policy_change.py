"""Reading the CPU and Memory Manager checkpoints for a policy change: never blocks, never follows (issue 7, rule 3)."""

import hashlib
import json
import os
import threading

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import policy_change as checkpoint


def run_with_timeout(function, *args, seconds=5):
    """Call ``function`` in a thread; fail the test instead of hanging when it blocks."""
    result = {}

    def target():
        result["value"] = function(*args)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "%s blocked for %d seconds" % (function.__name__, seconds)
    return result["value"]


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def write(path, doc):
    path.write_text(json.dumps(doc))
    return str(path)


def test_checkpoints_known():
    assert [entry[0] for entry in checkpoint.CHECKPOINTS] == ["cpu_manager_state", "memory_manager_state"]


def test_missing_checkpoint_is_fine(tmp_path):
    assert checkpoint.policy_of(str(tmp_path / "cpu_manager_state")) == (None, None)
    assert checkpoint.stale({"cpuManagerPolicy": "static"}, str(tmp_path)) == []


def test_policy_from_v2_and_from_data(tmp_path):
    assert checkpoint.policy_of(write(tmp_path / "a", {"policyName": "static", "defaultCpuSet": "0-3", "checksum": 1})) == ("static", None)
    inner = {"policyName": "Static", "machineState": {}}
    assert checkpoint.policy_of(write(tmp_path / "b", {"data": json.dumps(inner), "dataChecksum": 2})) == ("Static", None)


def test_stale_policy_in_the_kubelets_words(tmp_path):
    path = write(tmp_path / "cpu_manager_state", {"policyName": "none", "defaultCpuSet": "", "checksum": 1})
    assert checkpoint.stale({"cpuManagerPolicy": "static"}, str(tmp_path)) == [
        'could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", please drain '
        'this node and delete the CPU manager checkpoint file "%s" before restarting Kubelet' % path]


def test_a_fifo_checkpoint_is_a_finding_not_a_hang(tmp_path):
    fifo = tmp_path / "cpu_manager_state"
    os.mkfifo(str(fifo))
    assert run_with_timeout(checkpoint.policy_of, str(fifo)) == (
        None, "%s is a FIFO, not a regular file; not read (a kubelet checkpoint is expected there)" % fifo)
    assert run_with_timeout(checkpoint.stale, {"cpuManagerPolicy": "static"}, str(tmp_path)) == [
        "%s is a FIFO, not a regular file; not read (a kubelet checkpoint is expected there); the kubelet could not restore it either: "
        "drain the node, stop the kubelet and remove it" % fifo]


def test_a_symlinked_checkpoint_is_not_followed(tmp_path):
    outside = tmp_path / "outside.json"
    write(outside, {"policyName": "static"})
    before = sha256(str(outside))
    state = tmp_path / "state"
    state.mkdir()
    os.symlink(str(outside), str(state / "memory_manager_state"))
    assert checkpoint.policy_of(str(state / "memory_manager_state")) == (
        None, "%s is a symlink, not a regular file; not read (a kubelet checkpoint is expected there)" % (state / "memory_manager_state"))
    assert sha256(str(outside)) == before


def test_a_directory_checkpoint_is_a_finding(tmp_path):
    (tmp_path / "cpu_manager_state").mkdir()
    assert checkpoint.policy_of(str(tmp_path / "cpu_manager_state")) == (
        None, "%s is a directory, not a regular file; not read (a kubelet checkpoint is expected there)" % (tmp_path / "cpu_manager_state"))


def test_a_checkpoint_that_is_not_json(tmp_path):
    path = tmp_path / "cpu_manager_state"
    path.write_text("{not json")
    policy, problem = checkpoint.policy_of(str(path))
    assert policy is None
    assert problem.startswith("%s: cannot be read as a kubelet checkpoint (" % path)
