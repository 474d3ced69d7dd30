"""The transition record, built from journals the real journal writer wrote and backups the real backup code made."""

import hashlib
import os
import signal
import subprocess
import sys

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import record

CONFIG = b"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 110\n"
CPU_STATE = b'{"policyName":"none","defaultCpuSet":"0-7","checksum":1353318690}'
DROPIN = b"cpuManagerPolicy: static\n"


def sha(data):
    return hashlib.sha256(data).hexdigest()


def at(clock):
    return "2026-12-01T09:%s" % clock


def write_enable_journal(path, backup_cpu, backup_config, dropin):
    """What steps.yml records for an enable that goes through, with fixed times."""
    journal.append(path, "decide", "finished", outcome="changed", at=at("00:00.000000Z"),
                   changed={"render_changed": True, "refusals": {"cpu": "policy differs"}, "resumed": False})
    journal.append(path, "cordon", "finished", outcome="changed", at=at("00:01.250000Z"),
                   changed={"cordoned": True, "was_unschedulable": False})
    journal.append(path, "drain", "finished", outcome="changed", at=at("00:31.500000Z"), changed={"evicted": ["default/web-1"]})
    journal.append(path, "stop", "started", at=at("00:32.000000Z"))
    journal.append(path, "stop", "finished", outcome="changed", at=at("00:33.125000Z"))
    journal.append(path, "state", "started", at=at("00:33.200000Z"))
    journal.append(path, "state", "finished", outcome="changed", at=at("00:33.300000Z"),
                   changed={"files": [{"path": "/var/lib/kubelet/cpu_manager_state", "backup": backup_cpu}]})
    journal.append(path, "config", "started", at=at("00:33.400000Z"), changed={"files": [{"path": dropin, "backup": None}]})
    journal.append(path, "config", "finished", outcome="changed", at=at("00:33.500000Z"),
                   changed={"files": [{"path": dropin, "backup": None},
                                      {"path": "/var/lib/kubelet/config.yaml", "backup": backup_config}]})
    journal.append(path, "start", "started", at=at("00:34Z"))
    journal.append(path, "start", "finished", outcome="changed", at=at("00:35Z"))
    journal.append(path, "verify", "finished", outcome="ok", at=at("00:57.500000Z"))
    journal.append(path, "uncordon", "finished", outcome="changed", at=at("00:58.000000Z"))


def test_an_enable_that_went_through(tmp_path):
    kubelet = tmp_path / "node"
    kubelet.mkdir()
    (kubelet / "cpu_manager_state").write_bytes(CPU_STATE)
    (kubelet / "config.yaml").write_bytes(CONFIG)
    os.chmod(kubelet / "cpu_manager_state", 0o644)
    os.chmod(kubelet / "config.yaml", 0o640)
    kept = str(tmp_path / "backups")
    backup_cpu = backups.remove(str(kubelet / "cpu_manager_state"), kept)
    backup_config = backups.replace(str(kubelet / "config.yaml"), CONFIG + b"cpuManagerPolicy: static\n", kept)
    (kubelet / "50-numa-gate.conf").write_bytes(DROPIN)
    path = str(tmp_path / "journal.jsonl")
    dropin = "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"
    write_enable_journal(path, backup_cpu, backup_config, dropin)
    entries, notes = journal.read(path)
    files = [
        {"path": "/var/lib/kubelet/cpu_manager_state", "backup": backup_cpu, "recorded": True,
         "kept": backups.read_record(backup_cpu), "sha256_now": None},
        {"path": dropin, "backup": None, "recorded": True, "kept": None, "sha256_now": sha(DROPIN)},
        {"path": "/var/lib/kubelet/config.yaml", "backup": backup_config, "recorded": True,
         "kept": backups.read_record(backup_config), "sha256_now": sha((kubelet / "config.yaml").read_bytes())},
    ]
    built = record.build("20261201T090000Z", entries, files, pointer=None, node="gpu-1", target="enable", notes=notes)
    owner = {"uid": os.getuid(), "gid": os.getgid()}
    assert built == {
        "schema_version": 1, "transition": "20261201T090000Z", "target": "enable", "target_source": "caller", "node": "gpu-1",
        "open": False, "opened": at("00:00.000000Z"), "closed": at("00:58.000000Z"), "duration_s": 58.0,
        "outcome": "converged", "failed_steps": [], "in_progress": None, "notes": [],
        "steps": [
            {"step": "decide", "started": None, "finished": at("00:00.000000Z"), "duration_s": None, "outcome": "changed",
             "start_recorded": False, "details_at_start": None,
             "details": {"render_changed": True, "refusals": {"cpu": "policy differs"}, "resumed": False}},
            {"step": "cordon", "started": at("00:00.000000Z"), "finished": at("00:01.250000Z"), "duration_s": 1.25,
             "outcome": "changed", "start_recorded": False, "details_at_start": None,
             "details": {"cordoned": True, "was_unschedulable": False}},
            {"step": "drain", "started": at("00:01.250000Z"), "finished": at("00:31.500000Z"), "duration_s": 30.25,
             "outcome": "changed", "start_recorded": False, "details_at_start": None, "details": {"evicted": ["default/web-1"]}},
            {"step": "stop", "started": at("00:32.000000Z"), "finished": at("00:33.125000Z"), "duration_s": 1.125,
             "outcome": "changed", "start_recorded": True, "details_at_start": None, "details": None},
            {"step": "state", "started": at("00:33.200000Z"), "finished": at("00:33.300000Z"), "duration_s": 0.1,
             "outcome": "changed", "start_recorded": True, "details_at_start": None,
             "details": {"files": [{"path": "/var/lib/kubelet/cpu_manager_state", "backup": backup_cpu}]}},
            {"step": "config", "started": at("00:33.400000Z"), "finished": at("00:33.500000Z"), "duration_s": 0.1,
             "outcome": "changed", "start_recorded": True, "details_at_start": {"files": [{"path": dropin, "backup": None}]},
             "details": {"files": [{"path": dropin, "backup": None}, {"path": "/var/lib/kubelet/config.yaml", "backup": backup_config}]}},
            {"step": "start", "started": at("00:34Z"), "finished": at("00:35Z"), "duration_s": 1.0, "outcome": "changed",
             "start_recorded": True, "details_at_start": None, "details": None},
            {"step": "verify", "started": at("00:35Z"), "finished": at("00:57.500000Z"), "duration_s": 22.5, "outcome": "ok",
             "start_recorded": False, "details_at_start": None, "details": None},
            {"step": "uncordon", "started": at("00:57.500000Z"), "finished": at("00:58.000000Z"), "duration_s": 0.5,
             "outcome": "changed", "start_recorded": False, "details_at_start": None, "details": None},
        ],
        "files": [
            {"path": "/var/lib/kubelet/cpu_manager_state", "backup": backup_cpu, "recorded": True, "sha256_before": sha(CPU_STATE),
             "sha256_after": None, "changed": True, "original": dict(kind="file", mode="0644", **owner), "problem": None},
            {"path": dropin, "backup": None, "recorded": True, "sha256_before": None, "sha256_after": sha(DROPIN), "changed": True,
             "original": None, "problem": None},
            {"path": "/var/lib/kubelet/config.yaml", "backup": backup_config, "recorded": True, "sha256_before": sha(CONFIG),
             "sha256_after": sha(CONFIG + b"cpuManagerPolicy: static\n"), "changed": True,
             "original": dict(kind="file", mode="0640", **owner), "problem": None},
        ],
    }


KILLED_AFTER_THE_STOP = r"""
import os, sys, time
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import journal, transitions
state_dir, path = sys.argv[1], sys.argv[2]
transitions.open_transition("/", state_dir, "rollback", "t-killed")
journal.append(path, "decide", "finished", outcome="changed", at="2026-12-01T10:00:00Z", changed={"target": "rollback"})
journal.append(path, "cordon", "finished", outcome="ok", at="2026-12-01T10:00:00.400000Z", changed={"cordoned": False})
journal.append(path, "drain", "finished", outcome="ok", at="2026-12-01T10:00:02Z", changed={"evicted": []})
journal.append(path, "stop", "started", at="2026-12-01T10:00:02.100000Z")
journal.append(path, "stop", "finished", outcome="changed", at="2026-12-01T10:00:04.350000Z")
# The state step's start, cut where a kill between two write() calls would cut it.
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
os.write(fd, b'{"at": "2026-12-01T10:00:04.4')
os.fsync(fd)
os.close(fd)
print("written", flush=True)
time.sleep(60)
"""


def test_a_run_killed_after_the_stop(tmp_path):
    state_dir = str(tmp_path / "numa-gate")
    path = transitions.journal_path("/", state_dir, "t-killed")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, "-c", KILLED_AFTER_THE_STOP, state_dir, path], env=env, stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"written\n"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    entries, notes = journal.read(path)
    built = record.build("t-killed", entries, [], pointer=transitions.current("/", state_dir), node="gpu-2", target="enable", notes=notes)
    assert built == {
        "schema_version": 1, "transition": "t-killed", "target": "rollback", "target_source": "open transition", "node": "gpu-2",
        "open": True, "opened": "2026-12-01T10:00:00Z", "closed": None, "duration_s": None, "outcome": "failed-open",
        "failed_steps": [], "in_progress": None, "files": [],
        "notes": ["the last line of %s was cut short (the run was killed while writing it) and is ignored" % path],
        "steps": [
            {"step": "decide", "started": None, "finished": "2026-12-01T10:00:00Z", "duration_s": None, "outcome": "changed",
             "start_recorded": False, "details_at_start": None, "details": {"target": "rollback"}},
            {"step": "cordon", "started": "2026-12-01T10:00:00Z", "finished": "2026-12-01T10:00:00.400000Z", "duration_s": 0.4,
             "outcome": "ok", "start_recorded": False, "details_at_start": None, "details": {"cordoned": False}},
            {"step": "drain", "started": "2026-12-01T10:00:00.400000Z", "finished": "2026-12-01T10:00:02Z", "duration_s": 1.6,
             "outcome": "ok", "start_recorded": False, "details_at_start": None, "details": {"evicted": []}},
            {"step": "stop", "started": "2026-12-01T10:00:02.100000Z", "finished": "2026-12-01T10:00:04.350000Z", "duration_s": 2.25,
             "outcome": "changed", "start_recorded": True, "details_at_start": None, "details": None},
        ],
    }
    # The same journal once the transition is closed: the open pointer no longer names it.
    transitions.close("/", state_dir, "t-killed")
    closed = record.build("t-killed", entries, [], pointer=transitions.current("/", state_dir))
    assert (closed["open"], closed["closed"], closed["duration_s"], closed["outcome"]) == (False, "2026-12-01T10:00:04.350000Z", 4.35, "converged")
    assert (closed["target"], closed["target_source"], closed["node"]) == ("rollback", "journal", None)


def test_resumed_then_restored(tmp_path):
    """Killed during the state step, resumed, the start refused: the record keeps both runs and says restored."""
    path = str(tmp_path / "journal.jsonl")
    journal.append(path, "stop", "started", at="2026-12-01T11:00:00Z")
    journal.append(path, "stop", "finished", outcome="changed", at="2026-12-01T11:00:01Z")
    journal.append(path, "state", "started", at="2026-12-01T11:00:02Z")
    # killed here; the re-run:
    journal.append(path, "decide", "finished", outcome="changed", at="2026-12-01T11:05:00Z", changed={"resumed": True})
    journal.append(path, "stop", "started", at="2026-12-01T11:05:01Z")
    journal.append(path, "stop", "finished", outcome="ok", at="2026-12-01T11:05:01.500000Z")
    journal.append(path, "state", "started", at="2026-12-01T11:05:02Z")
    journal.append(path, "state", "finished", outcome="ok", at="2026-12-01T11:05:02.001000Z", changed={"files": []})
    journal.append(path, "restore", "started", at="2026-12-01T11:06:00Z", changed={"failure": "Start the kubelet: exit 1"})
    journal.append(path, "restore", "finished", outcome="changed", at="2026-12-01T11:06:30.123456Z",
                   changed={"files": [{"path": "/var/lib/kubelet/config.yaml", "action": "restored", "saved": "/x.bak"}]})
    entries, _notes = journal.read(path)
    kept = {"kind": "file", "mode": "0600", "uid": 0, "gid": 0, "sha256": sha(CONFIG), "path": "/var/lib/kubelet/config.yaml"}
    files = [{"path": "/var/lib/kubelet/config.yaml", "backup": "/b/config.bak", "recorded": True, "kept": kept, "sha256_now": sha(CONFIG)},
             {"path": "/var/lib/kubelet/cpu_manager_state", "backup": "/b/cpu.bak", "recorded": False, "kept": None, "sha256_now": None,
              "problem": "backup /b/cpu.bak is missing"}]
    built = record.build("t3", entries, files, pointer={"id": "another", "target": "enable"})
    assert [(s["step"], s["started"], s["finished"], s["duration_s"], s["outcome"]) for s in built["steps"]] == [
        ("stop", "2026-12-01T11:00:00Z", "2026-12-01T11:00:01Z", 1.0, "changed"),
        ("state", "2026-12-01T11:00:02Z", None, None, None),
        ("decide", "2026-12-01T11:00:02Z", "2026-12-01T11:05:00Z", 298.0, "changed"),
        ("stop", "2026-12-01T11:05:01Z", "2026-12-01T11:05:01.500000Z", 0.5, "ok"),
        ("state", "2026-12-01T11:05:02Z", "2026-12-01T11:05:02.001000Z", 0.001, "ok"),
        ("restore", "2026-12-01T11:06:00Z", "2026-12-01T11:06:30.123456Z", 30.123, "changed")]
    assert built["steps"][-1]["details_at_start"] == {"failure": "Start the kubelet: exit 1"}
    assert (built["outcome"], built["open"], built["in_progress"], built["failed_steps"]) == ("restored", False, None, [])
    assert (built["target"], built["target_source"], built["duration_s"]) == (None, None, 390.123)
    assert built["files"] == [
        {"path": "/var/lib/kubelet/config.yaml", "backup": "/b/config.bak", "recorded": True, "sha256_before": sha(CONFIG),
         "sha256_after": sha(CONFIG), "changed": False, "original": {"kind": "file", "mode": "0600", "uid": 0, "gid": 0}, "problem": None},
        {"path": "/var/lib/kubelet/cpu_manager_state", "backup": "/b/cpu.bak", "recorded": False, "sha256_before": None,
         "sha256_after": None, "changed": None, "original": None, "problem": "backup /b/cpu.bak is missing"}]


def test_a_failed_drain_closes_the_transition(tmp_path):
    path = str(tmp_path / "journal.jsonl")
    journal.append(path, "decide", "finished", outcome="changed", at="2026-12-01T12:00:00Z")
    journal.append(path, "cordon", "finished", outcome="changed", at="2026-12-01T12:00:01Z", changed={"cordoned": True})
    journal.append(path, "drain", "finished", outcome="failed", at="2026-12-01T12:05:01Z", changed={"message": "drain n1: timed out"})
    entries, _notes = journal.read(path)
    built = record.build("t4", entries, [], target="enable")
    assert (built["outcome"], built["failed_steps"], built["steps"][-1]["duration_s"]) == ("failed-closed", ["drain"], 300.0)
    # The same journal while still open: the role keeps the record before it closes, so the failed drain ends it all the same.
    opened = record.build("t4", entries, [], pointer={"id": "t4", "target": "enable"})
    assert (opened["outcome"], opened["open"], opened["closed"], opened["target_source"]) == (
        "failed-closed", False, "2026-12-01T12:05:01Z", "open transition")
    assert opened["notes"] == ["the journal ends with drain finished (failed): the transition is done, and this record was read before its "
                               "pointer (transitions/current) was removed"]
    # Killed before the failed drain was recorded: it stays open, and a re-run goes on with it.
    still = record.build("t4", entries[:-1], [], pointer={"id": "t4", "target": "enable"})
    assert (still["outcome"], still["open"], still["closed"], still["notes"]) == ("failed-open", True, None, [])


def test_a_symlink_kept_as_a_link():
    kept = {"kind": "symlink", "link": "../shared/config.yaml", "mode": "0777", "uid": 0, "gid": 0, "sha256": sha(b"../shared/config.yaml")}
    built = record.build("t5", [], [{"path": "/etc/k.yaml", "backup": "/b/k.bak", "kept": kept, "sha256_now": sha(b"../shared/config.yaml")}])
    assert built["files"] == [{"path": "/etc/k.yaml", "backup": "/b/k.bak", "recorded": True, "sha256_before": sha(b"../shared/config.yaml"),
                               "sha256_after": sha(b"../shared/config.yaml"), "changed": False, "problem": None,
                               "original": {"kind": "symlink", "link": "../shared/config.yaml", "mode": "0777", "uid": 0, "gid": 0}}]
    assert (built["opened"], built["closed"], built["steps"], built["outcome"]) == (None, None, [], "converged")


def test_event_time():
    assert record.event_time("2026-12-01T09:00:01.250000Z").isoformat() == "2026-12-01T09:00:01.250000+00:00"
    assert record.event_time("2026-12-01T09:00:01Z").isoformat() == "2026-12-01T09:00:01+00:00"
    assert record.event_time("2026-12-01T09:00:01").isoformat() == "2026-12-01T09:00:01+00:00"
    assert record.event_time("2026-12-01T09:00:01.5Z").isoformat() == "2026-12-01T09:00:01.500000+00:00"
    assert record.event_time("2026-12-01T09:00:01.123456789Z").isoformat() == "2026-12-01T09:00:01.123457+00:00"
    assert record.event_time("2026-12-01T11:00:01+02:00") == record.event_time("2026-12-01T09:00:01Z")
    for bad in ("yesterday", None, "2026-12-01T09:00:01Z\n", "2026-13-01T09:00:01Z", "2026-12-01 09:00:01"):
        assert record.event_time(bad) is None, bad
    bad = [{"step": "stop", "event": "started", "at": "soon"}, {"step": "stop", "event": "finished", "at": "2026-12-01T09:00:01Z", "outcome": "ok"}]
    assert record.build("t6", bad, [])["steps"][0]["duration_s"] is None


def test_a_step_in_progress_when_the_last_line_was_cut(tmp_path):
    path = str(tmp_path / "journal.jsonl")
    journal.append(path, "stop", "started", at="2026-12-01T09:00:00Z")
    with open(path, "ab") as handle:
        handle.write(b'{"step": "stop", "ev')
    entries, notes = journal.read(path)
    built = record.build("t7", entries, [], pointer={"id": "t7", "target": "enable"}, notes=notes)
    assert (built["in_progress"], built["outcome"], built["notes"]) == ("stop", "failed-open", notes)
    assert len(notes) == 1
    assert built["steps"] == [{"step": "stop", "started": "2026-12-01T09:00:00Z", "finished": None, "duration_s": None, "outcome": None,
                               "start_recorded": True, "details": None, "details_at_start": None}]
