"""The check kept after a rehearsed rollback: beside its journal, atomic, private, never through a symlink; and the list of transitions."""

import json
import os
import stat

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._rehearsal import kept as rehearsals
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import transitions

STATE = "/var/lib/numa-gate"
RB = "20261201T091000Z"
DOC = {"schema_version": 1, "rollback": RB, "reconciled": True, "problems": []}


@pytest.fixture(name="root")
def fixture_root(tmp_path):
    atomic.make_private_dir(str(tmp_path / "var/lib/numa-gate/transitions" / RB))
    return tmp_path


def kept(root):
    return root / "var/lib/numa-gate/transitions" / RB / "rehearsal.json"


def test_written_once_private_then_unchanged_then_replaced(root):
    assert rehearsals.write(str(root), STATE, RB, DOC) == (True, None)
    assert json.loads(kept(root).read_text()) == DOC
    assert stat.S_IMODE(os.lstat(kept(root)).st_mode) == 0o600
    assert rehearsals.write(str(root), STATE, RB, DOC) == (False, DOC)
    changed = dict(DOC, reconciled=False)
    assert rehearsals.write(str(root), STATE, RB, changed, check_mode=True) == (True, DOC)
    assert json.loads(kept(root).read_text()) == DOC
    assert rehearsals.write(str(root), STATE, RB, changed) == (True, DOC)
    assert rehearsals.read(str(root), STATE, RB) == (changed, None)
    assert [name for name in os.listdir(kept(root).parent) if name.startswith(".numa-gate")] == []


def test_no_such_transition_is_refused(root):
    with pytest.raises(atomic.NodeStateError) as raised:
        rehearsals.write(str(root), STATE, "20261201T000000Z", DOC)
    assert str(raised.value) == ("no transition 20261201T000000Z on this node (/var/lib/numa-gate/transitions/20261201T000000Z); "
                                 "the rehearsal's check was not kept")
    with pytest.raises(atomic.NodeStateError) as raised:
        rehearsals.write(str(root), STATE, "../../etc", DOC)
    assert "transition id '../../etc' must be 1-64 letters" in str(raised.value)


def test_a_symlinked_check_is_neither_read_nor_written_through(root, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "target.json"
    outside.write_text(json.dumps(DOC))
    os.symlink(str(outside), str(kept(root)))
    document, problem = rehearsals.read(str(root), STATE, RB)
    assert document is None and problem.endswith("rehearsal.json is a symlink, not a regular file; not read")
    assert problem.startswith("/var/lib/numa-gate/transitions/%s/rehearsal.json: " % RB)
    with pytest.raises(atomic.NodeStateError) as raised:
        rehearsals.write(str(root), STATE, RB, DOC)
    assert "is a symlink (to %s); not written through it" % outside in str(raised.value)
    assert json.loads(outside.read_text()) == DOC


def test_state_someone_else_can_write_is_refused(root):
    os.chmod(str(kept(root).parent), 0o777)
    with pytest.raises(atomic.NodeStateError) as raised:
        rehearsals.write(str(root), STATE, RB, DOC)
    assert "/var/lib/numa-gate/transitions/%s is writable by group and others (mode 0777)" % RB in str(raised.value)
    assert not kept(root).exists()


def test_a_damaged_or_foreign_check_is_a_problem(root):
    kept(root).write_text("{not json")
    assert rehearsals.read(str(root), STATE, RB)[1].startswith("/var/lib/numa-gate/transitions/%s/rehearsal.json is not JSON (" % RB)
    kept(root).write_text(json.dumps(dict(DOC, rollback="another")))
    assert rehearsals.read(str(root), STATE, RB) == (None, "/var/lib/numa-gate/transitions/%s/rehearsal.json does not name rollback %s; not read"
                                                     % (RB, RB))


def test_ids_lists_transition_folders_only(root):
    base = root / "var/lib/numa-gate/transitions"
    atomic.make_private_dir(str(base / "20261201T090000Z"))
    (base / "current").write_text('{"id": "x", "target": "enable"}')
    (base / ".lock").write_text("")
    (base / "a-file").write_text("")
    os.symlink(str(base / RB), str(base / "linked"))
    assert transitions.ids(str(root), STATE) == ["20261201T090000Z", RB]
    assert transitions.ids(str(root / "nowhere"), STATE) == []
