"""The one set of link, confinement and privacy checks every state module uses (issue 16, rules 6 and 8)."""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, confine
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions

STATE = "/var/lib/numa-gate"


@pytest.fixture(name="root")
def fixture_root(tmp_path):
    atomic.make_private_dir(str(tmp_path / "var/lib/numa-gate/transitions/t1"))
    return tmp_path


def test_a_transitions_folder_linked_inside_the_state_folder_is_refused_too(root):
    (root / "var/lib/numa-gate/other").mkdir(mode=0o700)
    os.rename(str(root / "var/lib/numa-gate/transitions"), str(root / "var/lib/numa-gate/other/transitions"))
    os.symlink("other/transitions", str(root / "var/lib/numa-gate/transitions"))
    with pytest.raises(atomic.NodeStateError) as raised:
        transitions.folder(str(root), STATE, "t1")
    assert str(raised.value) == "/var/lib/numa-gate/transitions is a symlink; not read"


def test_a_transition_folder_that_is_a_file(root):
    (root / "var/lib/numa-gate/transitions/t2").write_text("")
    with pytest.raises(atomic.NodeStateError) as raised:
        transitions.journal_path(str(root), STATE, "t2")
    assert str(raised.value) == "/var/lib/numa-gate/transitions/t2 is not a folder; not read"


def test_backups_are_confined_to_the_state_folder(root):
    assert confine.backup_copy(str(root), STATE, "/var/lib/numa-gate/transitions/t1/backups/x.bak") == os.path.join(
        os.path.realpath(str(root)), "var/lib/numa-gate/transitions/t1/backups/x.bak")
    os.symlink("/etc", str(root / "var/lib/numa-gate/transitions/t1/backups"))
    for backup in ("/etc/shadow", "/var/lib/numa-gate/../../../etc/shadow", "/var/lib/numa-gate/transitions/t1/backups/shadow"):
        with pytest.raises(atomic.NodeStateError) as raised:
            confine.backup_copy(str(root), STATE, backup)
        assert str(raised.value) == "backup %s lies outside the state folder; not read" % backup


def test_privacy_problems_walk_from_the_state_folder_down(root):
    real = os.path.join(os.path.realpath(str(root)), "var/lib/numa-gate/transitions/t1/journal.jsonl")
    assert confine.privacy_problems(str(root), STATE, real) == []
    with open(real, "w") as handle:
        handle.write("")
    os.chmod(real, 0o620)
    os.chmod(str(root / "var/lib/numa-gate"), 0o707)
    assert confine.privacy_problems(str(root), STATE, real) == [
        "state folder /var/lib/numa-gate is writable by others (mode 0707)",
        "state file /var/lib/numa-gate/transitions/t1/journal.jsonl is writable by group (mode 0620)"]
    with pytest.raises(confine.NotPrivate) as raised:
        confine.require_private(str(root), STATE, real)
    assert str(raised.value).startswith("state folder /var/lib/numa-gate is writable by others (mode 0707); state file ")
    assert str(raised.value).endswith("; nothing was changed")
