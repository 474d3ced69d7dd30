# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""execution-environment.yml through the real ansible-builder, offline.

The collection tarball is built (``ansible-galaxy collection build``) beside a copy of the definition, as
docs/execution-environment.md says; ``ansible-builder create`` writes the build context. Then the
image's galaxy stage is replayed here with the same command in the same working directory (``--offline``,
kubernetes.core already installed from the ansible package the tests use), and the builder stage's
``ansible-builder introspect`` reads the installed collections: the Python and system requirements the
image would install, exactly. Every subprocess gets proxies that refuse, so a network need fails loudly.

The builder's outcome must not depend on which container runtime a machine happens to have: left to
itself, ``ansible-builder create`` writes a ``Dockerfile`` when it finds ``docker`` and no ``podman``. So
every subprocess here runs on the PATH of such a machine (a ``docker`` stub that answers, no ``podman``),
and ``create`` is told the file to write, as docs/execution-environment.md says.
"""

import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import tarfile

import pytest
import yaml
from bindep import depends
from packaging.requirements import Requirement

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

REFUSE = "http://127.0.0.1:9"
OFFLINE = {"HTTP_PROXY": REFUSE, "HTTPS_PROXY": REFUSE, "http_proxy": REFUSE, "https_proxy": REFUSE,
           "NO_PROXY": "", "no_proxy": "", "PIP_NO_INDEX": "1"}
BASE_IMAGE = "quay.io/centos/centos:stream9"
# The ansible package's own copy of kubernetes.core (requirements-test.txt): the one every test of this collection runs against.
BUNDLED = str(importlib.metadata.distribution("ansible").locate_file("ansible_collections/kubernetes/core"))

# requirements.txt's lower bounds (ansible-core and pyyaml dropped: the image has them).
PYTHON = [
    "jinja2>=3.1.0  # from collection gpusmith.numa_gate",
    "jmespath>=1.0.0  # from collection gpusmith.numa_gate",
    "kubernetes>=24.2.0  # from collection gpusmith.numa_gate",
    "netaddr>=0.10.0  # from collection gpusmith.numa_gate",
    "prometheus-client>=0.17.0  # from collection gpusmith.numa_gate",
    "kubernetes>=24.2.0  # from collection kubernetes.core",
    "requests-oauthlib  # from collection kubernetes.core",
    "jsonpatch  # from collection kubernetes.core",
]
SYSTEM = [
    "openssh-clients [platform:rpm]  # from collection gpusmith.numa_gate",
    "openssh-client [platform:dpkg]  # from collection gpusmith.numa_gate",
]


def galaxy():
    with open(os.path.join(ansible_run.REPO, "galaxy.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def tarball_name():
    meta = galaxy()
    return "%s-%s-%s.tar.gz" % (meta["namespace"], meta["name"], meta["version"])


DOCKER_STUB = """#!/bin/sh
# A docker that answers, as on a machine where podman is not installed yet.
echo "Docker version 27.0.0, build stub"
"""


def docker_only_path(tmp):
    """A PATH with a ``docker`` that answers and no ``podman``: the tools of this venv and the stub only."""
    stubs = tmp / "docker-only-bin"
    if not stubs.is_dir():
        stubs.mkdir()
        (stubs / "docker").write_text(DOCKER_STUB, encoding="utf-8")
        (stubs / "docker").chmod(0o755)
    path = os.pathsep.join([str(stubs), ansible_run.BIN])
    assert shutil.which("podman", path=path) is None
    assert subprocess.run(["docker", "--version"], env={"PATH": path}, capture_output=True, check=True).returncode == 0
    return path


def run(argv, cwd, tmp, **extra):
    env = ansible_run.environment(tmp, **dict(OFFLINE, PATH=docker_only_path(tmp), **extra))
    done = subprocess.run(argv, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, " ".join(argv) + "\n" + done.stdout[-3000:] + done.stderr[-3000:]
    return done


def sha256(path):
    with open(str(path), "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.fixture(scope="module", name="built")
def built_context(tmp_path_factory):
    root = tmp_path_factory.mktemp("ee")
    project = root / "project"
    project.mkdir()
    run([os.path.join(ansible_run.BIN, "ansible-galaxy"), "collection", "build", "--output-path", str(project), ansible_run.REPO], root, root)
    shutil.copy(os.path.join(ansible_run.REPO, "execution-environment.yml"), str(project))
    done = run([os.path.join(ansible_run.BIN, "ansible-builder"), "create", "--file", str(project / "execution-environment.yml"),
                "--context", str(root / "context"), "--output-filename", "Containerfile"], root, root)
    return {"root": root, "project": project, "context": root / "context", "output": done.stdout}


@pytest.fixture(scope="module", name="introspected")
def introspected_requirements(built):
    """The galaxy stage's install and the builder stage's introspection, as the Containerfile runs them."""
    root, build = built["root"], built["context"] / "_build"
    collections = root / "collections"
    shutil.copytree(BUNDLED, str(collections / "ansible_collections" / "kubernetes" / "core"))
    run([os.path.join(ansible_run.BIN, "ansible-galaxy"), "collection", "install", "--offline", "-r", "requirements.yml",
         "--collections-path", str(collections)], build, root, ANSIBLE_COLLECTIONS_PATH=str(collections))
    out = root / "introspected"
    out.mkdir()
    done = run([os.path.join(ansible_run.BIN, "ansible-builder"), "introspect", "--exclude-bindep-reqs=exclude-bindep.txt",
                "--write-pip=%s" % (out / "requirements.txt"), "--write-bindep=%s" % (out / "bindep.txt"), str(collections)], build, root)
    return {"collections": collections, "out": out, "stdout": done.stdout}


def test_the_builder_writes_the_containerfile_it_was_told_on_a_docker_only_machine(built):
    assert sorted(path.name for path in built["context"].iterdir()) == ["Containerfile", "_build"]
    assert "Complete! The build context can be found at: %s" % (built["root"] / "context") in built["output"]


def test_containerfile_names_the_base_image_and_the_tested_ansible_core(built):
    lines = (built["context"] / "Containerfile").read_text(encoding="utf-8").splitlines()
    assert lines[0] == 'ARG EE_BASE_IMAGE="%s"' % BASE_IMAGE
    assert lines[1:3] == ['ARG PYCMD="/usr/bin/python3.11"', 'ARG PYPKG="python3.11"']
    assert 'ARG ANSIBLE_INSTALL_REFS="ansible-core==2.19.14 ansible-runner==2.4.3"' in lines
    assert lines.count("FROM $EE_BASE_IMAGE AS base") == 1
    # The ansible-core the tests run (constraints.txt) within requirements.txt's bound.
    with open(os.path.join(ansible_run.REPO, "constraints.txt"), encoding="utf-8") as handle:
        pins = [line.strip() for line in handle if line.startswith("ansible-core")]
    assert pins == ["ansible-core==2.19.14"]
    with open(os.path.join(ansible_run.REPO, "requirements.txt"), encoding="utf-8") as handle:
        bounds = [line.strip() for line in handle if line.startswith("ansible-core")]
    assert bounds == ["ansible-core>=2.18.0"]
    # The galaxy stage installs requirements.yml; the builder stage introspects the installed collections.
    assert ('RUN ANSIBLE_GALAXY_DISABLE_GPG_VERIFY=1 ansible-galaxy collection install $ANSIBLE_GALAXY_CLI_COLLECTION_OPTS '
            '-r requirements.yml --collections-path "/usr/share/ansible/collections"') in lines
    assert ("RUN $PYCMD /output/scripts/introspect.py introspect --exclude-bindep-reqs=exclude-bindep.txt "
            "--write-bindep=/tmp/src/bindep.txt --write-pip=/tmp/src/requirements.txt") in lines
    # No requirements of the definition's own: the collection carries them.
    assert [line for line in lines if line.startswith("COPY _build")] == [
        "COPY _build/scripts/ /output/scripts/", "COPY _build/scripts/entrypoint /opt/builder/bin/entrypoint",
        "COPY _build /build", "COPY _build/exclude-bindep.txt exclude-bindep.txt"]


def test_build_context_holds_the_requirements_and_the_built_collection(built):
    build = built["context"] / "_build"
    files = sorted(str(path.relative_to(build)) for path in build.rglob("*") if path.is_file() and path.parent.name != "scripts")
    assert files == ["collection/" + tarball_name(), "exclude-bindep.txt", "requirements.yml"]
    assert yaml.safe_load((build / "requirements.yml").read_text(encoding="utf-8")) == {"collections": [
        {"name": "collection/" + tarball_name(), "type": "file"},
        {"name": "kubernetes.core", "version": "6.2.0"}]}
    assert (build / "exclude-bindep.txt").read_text(encoding="utf-8").splitlines() == ["kubernetes-client", "openshift-clients"]
    assert sha256(build / "collection" / tarball_name()) == sha256(built["project"] / tarball_name())


def test_kubernetes_core_is_the_version_the_tests_run_and_galaxy_yml_allows(built):
    requirements = yaml.safe_load((built["context"] / "_build" / "requirements.yml").read_text(encoding="utf-8"))
    pinned = [entry["version"] for entry in requirements["collections"] if entry["name"] == "kubernetes.core"]
    with open(os.path.join(BUNDLED, "MANIFEST.json"), encoding="utf-8") as handle:
        bundled = json.load(handle)["collection_info"]["version"]
    allowed = Requirement("kubernetes.core" + galaxy()["dependencies"]["kubernetes.core"]).specifier
    assert pinned == [bundled]
    assert allowed.contains(bundled)


def test_the_tarball_keeps_what_ansible_builder_reads(built):
    with tarfile.open(str(built["project"] / tarball_name())) as archive:
        names = set(archive.getnames())
        carried = {name: archive.extractfile(name).read() for name in ("meta/execution-environment.yml", "requirements.txt", "bindep.txt")}
    for name, content in carried.items():
        with open(os.path.join(ansible_run.REPO, name), "rb") as handle:
            assert content == handle.read(), name
    assert yaml.safe_load(carried["meta/execution-environment.yml"]) == {
        "version": 1, "dependencies": {"python": "requirements.txt", "system": "bindep.txt"}}
    assert not {".venv", ".build", "context", "artifacts"} & {name.split("/")[0] for name in names}


def test_galaxy_stage_then_introspection_lists_the_exact_requirements(introspected):
    installed = introspected["collections"] / "ansible_collections" / "gpusmith" / "numa_gate" / "MANIFEST.json"
    assert json.loads(installed.read_text(encoding="utf-8"))["collection_info"]["version"] == galaxy()["version"]
    assert (introspected["out"] / "requirements.txt").read_text(encoding="utf-8").splitlines() == PYTHON
    assert (introspected["out"] / "bindep.txt").read_text(encoding="utf-8").splitlines() == SYSTEM
    assert yaml.safe_load(introspected["stdout"][introspected["stdout"].index("---"):]) == {
        "python": PYTHON, "system": SYSTEM}


def test_every_tested_version_satisfies_every_collection(introspected):
    """The image resolves bounds, never exact pins; the versions the tests run (constraints.txt) satisfy every collection's."""
    lines = (introspected["out"] / "requirements.txt").read_text(encoding="utf-8").splitlines()
    wanted = [Requirement(line.split("#")[0]) for line in lines]
    assert [str(req) for req in wanted if str(req.specifier).startswith("==")] == []
    with open(os.path.join(ansible_run.REPO, "constraints.txt"), encoding="utf-8") as handle:
        pinned = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    tested = {req.name: next(iter(req.specifier)).version for req in (Requirement(line) for line in pinned)}
    for req in wanted:
        if req.name in tested:
            assert req.specifier.contains(tested[req.name]), str(req)
    assert tested == {"ansible-core": "2.19.14", "cryptography": "50.0.2", "jinja2": "3.1.6", "jmespath": "1.1.0", "kubernetes": "37.0.2", "netaddr": "1.3.0",
                      "prometheus-client": "0.26.0", "pyyaml": "6.0.3"}


@pytest.mark.parametrize("distro_id, version, name, expected", [
    ("centos", "9", "CentOS Stream", ["openssh-clients"]),
    ("rhel", "9.4", "Red Hat Enterprise Linux", ["openssh-clients"]),
    ("debian", "13", "Debian GNU/Linux", ["openssh-client"]),
])
def test_bindep_installs_only_the_ssh_client_on_the_image(introspected, monkeypatch, distro_id, version, name, expected):
    """What the image's assemble step (``bindep -l newline``) picks on each platform, kubectl excluded."""
    for attribute, value in (("id", distro_id), ("version", version), ("codename", ""), ("name", name)):
        monkeypatch.setattr(depends.distro, attribute, lambda value=value, **kwargs: value)
    written = depends.Depends((introspected["out"] / "bindep.txt").read_text(encoding="utf-8"))
    profiles = written.platform_profiles() + ["default"]
    assert [rule[0] for rule in written.active_rules(profiles)] == expected
    with open(os.path.join(BUNDLED, "bindep.txt"), encoding="utf-8") as handle:
        unexcluded = depends.Depends(handle.read())
    kubectl = [rule[0] for rule in unexcluded.active_rules(profiles)]
    assert kubectl == (["openshift-clients"] if distro_id == "rhel" else [])
