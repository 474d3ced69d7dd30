"""The version matrix's library folders: one ``pip install --target`` folder per (distribution, version), built once and cached.

Folders live under ``.build/protobuf-matrix/<distribution>-<version>/`` (NUMA_GATE_MATRIX_CACHE moves
them); a folder counts as built when its ``.complete`` marker names the wheel's version, so an
interrupted build is redone, never used. Wheels only (``--only-binary=:all:``), with their dependencies
(protobuf has none; grpcio's newer releases need typing-extensions, never protobuf), every pip run
bounded by PIP_TIMEOUT.
"""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get("NUMA_GATE_MATRIX_CACHE", os.path.join(CHECKOUT, ".build", "protobuf-matrix"))
PIP_TIMEOUT = 300


def _pinned(name):
    """The version requirements-test.txt pins for ``name`` (the venv's "current" one)."""
    with open(os.path.join(CHECKOUT, "requirements-test.txt"), encoding="utf-8") as handle:
        for line in handle:
            requirement = line.split("#", 1)[0].strip()
            if requirement.startswith(name + "=="):
                return requirement.split("==", 1)[1]
    raise LookupError("requirements-test.txt pins no %s" % name)


# protobuf: Ubuntu 22.04's 3.12.4 (the oldest on a node), the last 3.x, Debian 12/13's and Ubuntu
# 24.04's 4.21.12 (Debian's 3.21.12 package reports 4.21.12), the last 4.x, 5.x and 6.x, the current 7.x.
PROTOBUF = ("3.12.4", "3.20.3", "4.21.12", "4.25.9", "5.29.6", "6.33.6", _pinned("protobuf"))
# grpcio: 1.51.x is Debian 12/13's and Ubuntu 24.04's (1.51.1 has no CPython 3.11 wheel on PyPI; 1.51.3,
# the last 1.51, has), and the current one.
GRPCIO = ("1.51.3", _pinned("grpcio"))


def folder(distribution, version):
    return os.path.join(CACHE, "%s-%s" % (distribution, version))


def ensure(distribution, version):
    """The folder holding ``distribution==version`` for this interpreter, installing it the first time."""
    target = folder(distribution, version)
    marker = os.path.join(target, ".complete")
    if os.path.exists(marker):
        with open(marker, encoding="utf-8") as handle:
            if handle.read().strip() == "%s==%s" % (distribution, version):
                return target
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--only-binary=:all:",
                    "--no-compile", "--target", target, "%s==%s" % (distribution, version)], check=True, timeout=PIP_TIMEOUT)
    if distribution == "grpcio" and os.path.isdir(os.path.join(target, "google")):
        raise AssertionError("grpcio %s brought a protobuf into %s: the matrix would not test the protobuf it names" % (version, target))
    with open(marker, "w", encoding="utf-8") as handle:
        handle.write("%s==%s\n" % (distribution, version))
    return target
