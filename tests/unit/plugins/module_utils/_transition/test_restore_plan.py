# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restore_plan.apply when a write fails after its backup was taken (issue 29, class 7): the backup of a file that is still
as it was is taken away again, and the restore folder this run made with it; a removed file's backup is kept (its only copy).
Through ansible: tests/playbooks/test_transition_hostile_round_three.py."""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic, backups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition import restore_plan


@pytest.fixture(name="two")
def fixture_two(tmp_path):
    """Two node files changed after their backups; returns (root, steps, keep)."""
    kept = str(tmp_path / "state/backups")
    steps = []
    for name in ("a.conf", "b.conf"):
        path = tmp_path / "etc" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"old " + name.encode())
        copy = backups.replace(str(path), b"new " + name.encode(), kept)
        steps.append(("/etc/" + name, str(path), backups.load(copy)))
    return tmp_path, steps, str(tmp_path / "state/restore")


def test_a_failed_first_write_leaves_no_backup_and_no_restore_folder(two, monkeypatch):
    root, steps, keep = two
    monkeypatch.setattr(backups, "put_back", lambda kept, real: (never for never in ()).throw(atomic.NodeStateError("cannot write %s: disk full" % real)))
    with pytest.raises(atomic.NodeStateError) as raised:
        restore_plan.apply(steps, keep)
    assert str(raised.value) == "cannot write %s: disk full; nothing was put back" % steps[0][1]
    assert not os.path.lexists(keep)
    assert (root / "etc/a.conf").read_bytes() == b"new a.conf"


def test_a_failed_second_write_keeps_only_the_first_files_backup(two, monkeypatch):
    root, steps, keep = two
    real_put_back = backups.put_back

    def put_back(kept, real):
        if real.endswith("b.conf"):
            raise atomic.NodeStateError("cannot write %s: disk full" % real)
        return real_put_back(kept, real)
    monkeypatch.setattr(backups, "put_back", put_back)
    with pytest.raises(atomic.NodeStateError) as raised:
        restore_plan.apply(steps, keep)
    assert str(raised.value) == "cannot write %s: disk full; put back before it: /etc/a.conf" % steps[1][1]
    names = sorted(os.listdir(keep))
    assert len(names) == 2 and all("a.conf" in name for name in names)
    assert (root / "etc/a.conf").read_bytes() == b"old a.conf"
    assert (root / "etc/b.conf").read_bytes() == b"new b.conf"
