# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tarball ``ansible-galaxy collection build`` writes: what a user installs, without the checkout's development files.

galaxy.yml's build_ignore keeps out the make targets, scripts, molecule scenarios, the test trees with the stand-ins
(the API double, the kubelet stand-in), the browser and Prometheus suites, the test venv's pins and the build folders.
"""

import os
import subprocess
import tarfile

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

# Top-level names a user's tarball must not hold (development only).
DEVELOPMENT = {"Makefile", "scripts", "extensions", "tests", ".build", ".venv", "artifacts", "constraints.txt",
               "requirements-test.txt", "pytest.ini", ".ansible-lint", ".ci", ".ansible", "context"}


@pytest.fixture(scope="module", name="names")
def built_names(tmp_path_factory):
    out = tmp_path_factory.mktemp("galaxy-build")
    env = ansible_run.environment(out)
    done = subprocess.run([os.path.join(ansible_run.BIN, "ansible-galaxy"), "collection", "build", "--output-path", str(out),
                           ansible_run.REPO], cwd=str(out), env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    tarballs = [name for name in os.listdir(str(out)) if name.endswith(".tar.gz")]
    assert len(tarballs) == 1, tarballs
    with tarfile.open(str(out / tarballs[0])) as archive:
        return sorted(archive.getnames())


def test_no_development_file_is_shipped(names):
    shipped = {name.split("/")[0] for name in names}
    assert sorted(shipped & DEVELOPMENT) == []
    # The stand-ins and the browser and Prometheus suites by name, wherever they would sit.
    assert [name for name in names if "doubles" in name.split("/") or "browser" in name.split("/") or "prometheus" in name.split("/")
            or "molecule" in name.split("/") or name.startswith("changelogs/fragments")] == []


def test_what_a_user_runs_is_shipped(names):
    shipped = set(names)
    for path in ("plugins/modules/topology_facts.py", "plugins/filter/plan.py", "roles/kubelet_plan/tasks/main.yml",
                 "playbooks/plan.yml", "playbooks/enable.yml", "docs/README.md", "meta/runtime.yml",
                 "meta/execution-environment.yml", "requirements.txt", "bindep.txt", "README.md", "LICENSE",
                 "inventories/example/hosts.yml"):
        assert path in shipped, path
    tops = {name.split("/")[0] for name in names}
    assert {"plugins", "roles", "playbooks", "docs", "meta"} <= tops
