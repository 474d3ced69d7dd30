"""Not a test: a role of the collection after the topology role, through the real ansible-playbook, its JSON output read back.

`write_play(tmp_path, role, hosts="localhost", tasks="")` writes ``tmp_path/play.yml``: the topology role on the real
H200 VM fixture (sysfs, no artifacts written), then ``role``, then ``tasks`` (a play's ``tasks:`` key, as YAML text).
`write_vars(tmp_path, variables)` writes ``tmp_path/vars.json``, for ``-e @<path>``. Both come first, so a test can
take what its tree holds before the run. `run(tmp_path, playbook, *options, returncode=0, env=None)` runs ansible-playbook
(`ansible_run.environment` unless ``env``, from the checkout) and returns the json callback's output once the exit status is
``returncode``; `LOCALHOST` are the options that run the play on this machine with the Python running the tests.
"""

import json
import os
import subprocess

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run, shared_paths

LOCALHOST = ("-i", "localhost,", "-c", "local", "-e", "ansible_python_interpreter=%s" % ansible_run.PYTHON)
_PLAY = """- hosts: {hosts}
  gather_facts: false
  roles:
    - role: gpusmith.numa_gate.topology
      vars:
        topology_root: {root}
        topology_gpu_source: sysfs
        topology_write_artifacts: false
    - role: {role}
"""


def write_play(tmp_path, role, hosts="localhost", tasks=""):
    """The path of ``tmp_path/play.yml``: the topology role, then ``role`` (its FQCN), then ``tasks``, on ``hosts``."""
    playbook = tmp_path / "play.yml"
    playbook.write_text(_PLAY.format(hosts=hosts, root=shared_paths.H200_VM, role=role) + tasks)
    return playbook


def write_vars(tmp_path, variables):
    """The path of ``tmp_path/vars.json``, which holds ``variables``."""
    path = tmp_path / "vars.json"
    path.write_text(json.dumps(variables))
    return path


def run(tmp_path, playbook, *options, returncode=0, env=None):
    """The json callback's output of ``ansible-playbook *options playbook``, asserted to have exited with ``returncode``; ``env``
    defaults to `ansible_run.environment` (`ansible_run.environment_without_api_settings` for a play that brings its own API)."""
    argv = [os.path.join(ansible_run.BIN, "ansible-playbook"), *options, str(playbook)]
    done = subprocess.run(argv, cwd=ansible_run.REPO, env=env or ansible_run.environment(tmp_path), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == returncode, done.stdout[-4000:] + done.stderr[-2000:]
    return json.loads(done.stdout[done.stdout.index("{"):])
