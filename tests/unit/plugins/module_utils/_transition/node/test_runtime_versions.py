# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node's container runtime and runc versions: this machine's real binaries, and the outputs each runtime prints."""

import shutil
import subprocess

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.node import runtime_versions


def _run(argv):
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    return done.returncode, done.stdout, done.stderr


def test_this_machines_binaries_as_they_answer():
    found = runtime_versions.read(shutil.which, _run)
    assert set(found) == {"containerd", "cri-o", "runc"}
    for name, (binary, dummy) in runtime_versions.BINARIES.items():
        path = shutil.which(binary)
        if path is None:
            assert found[name] is None
        else:
            # "runc version 1.1.5+ds1", "containerd containerd.io 1.7.27 <commit>", "crio version 1.30.4": the third word.
            first = _run([path, "--version"])[1].splitlines()[0]
            assert found[name] == first.split()[2].lstrip("v")
    if shutil.which("runc"):
        assert found["runc"][0].isdigit()


@pytest.mark.parametrize("name, out, version", [
    ("containerd", "containerd containerd.io 1.7.27 05044ec0a9a75232cad458027ca83437aae3f4da\n", "1.7.27"),
    ("containerd", "containerd github.com/containerd/containerd/v2 v2.1.4 75cb2b7193e4e490e9fbdc236c0e811ccaba3376\n", "2.1.4"),
    ("cri-o", "crio version 1.30.4\nVersion:        1.30.4\nGitCommit:      0000\n", "1.30.4"),
    ("cri-o", "Version:        1.33.1\nGitCommit:      0000\nGoVersion:      go1.24.2\n", "1.33.1"),
    ("runc", "runc version 1.1.12\ncommit: v1.1.12-0-g51d5e94\nspec: 1.0.2-dev\ngo: go1.20.13\nlibseccomp: 2.5.4\n", "1.1.12"),
    ("runc", "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\nspec: 1.0.2-dev\n", "1.1.5+ds1"),
])
def test_each_runtimes_version_line(name, out, version):
    assert runtime_versions.parse(name, 0, out, "") == version


def test_a_binary_that_says_no_version_is_unknown_naming_what_it_said():
    assert runtime_versions.parse("runc", 1, "", "runc: error while loading shared libraries: libseccomp.so.2\n") == (
        "unknown (runc --version exited 1: runc: error while loading shared libraries: libseccomp.so.2)")
    assert runtime_versions.parse("containerd", 0, "", "") == "unknown (containerd --version exited 0: no output)"


def test_a_binary_not_on_the_node_is_none_and_not_run():
    ran = []
    found = runtime_versions.read(lambda binary: "/usr/bin/runc" if binary == "runc" else None,
                                  lambda argv: ran.append(argv) or (0, "runc version 1.3.0\n", ""))
    assert found == {"containerd": None, "cri-o": None, "runc": "1.3.0"}
    assert ran == [["/usr/bin/runc", "--version"]]
