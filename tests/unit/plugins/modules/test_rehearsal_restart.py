"""rehearsal_restart, in-process, on a tmp_path root laid out as /proc: check mode names the process and stops nothing."""

import json

import pytest

from ansible.module_utils.testing import patch_module_args

from ansible_collections.gpusmith.numa_gate.plugins.modules import rehearsal_restart

CGROUP = "/kubepods/pod1/" + "a" * 64


def run(capsys, **args):
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            rehearsal_restart.main()
    return json.loads(capsys.readouterr().out)


def _proc(root, pid, parent, cgroup=CGROUP):
    (root / "proc" / str(pid)).mkdir(parents=True)
    (root / "proc" / str(pid) / "stat").write_text("%d (sleep) S %d %d %d 0 -1\n" % (pid, parent, pid, pid))
    (root / "proc" / str(pid) / "cgroup").write_text("12:cpuset:%s\n0::%s\n" % (cgroup, cgroup))


def test_check_mode_names_the_main_process_and_stops_nothing(capsys, tmp_path):
    _proc(tmp_path, 4101, 4000)
    _proc(tmp_path, 4102, 4101)
    found = run(capsys, root=str(tmp_path), cgroup=CGROUP, pids=[4102, 4101], _ansible_check_mode=True)
    assert (found["changed"], found["pid"], found["signal"], found["stopped"]) == (True, 4101, "SIGKILL", False)


def test_no_process_of_the_cgroup_fails_naming_it(capsys, tmp_path):
    _proc(tmp_path, 4101, 4000, cgroup="/elsewhere")
    found = run(capsys, root=str(tmp_path), cgroup=CGROUP, pids=[4101], _ansible_check_mode=True)
    assert found["failed"] is True
    assert found["msg"] == ("cgroup %s has no process of those given: its main process is not known, so nothing was stopped "
                            "(processes given: 4101)" % CGROUP)
