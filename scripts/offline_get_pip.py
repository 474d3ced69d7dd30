"""Offline stand-in for ansible-test's get-pip bootstrap script.

`ansible-test sanity` bootstraps pip in each of its virtual environments by
downloading get-pip.py, which cannot be fetched here. It first looks for a
cached copy under ~/.ansible/test/cache/; `make` places this file there. It
installs the requested packages with the pip wheel that the interpreter's own
`ensurepip` bundles, so nothing is downloaded except the packages themselves
from the configured package index.
"""

import glob
import os
import runpy
import sys

import ensurepip

# That bundled pip predates these get-pip-only switches and rejects them.
_GET_PIP_ONLY = {"--no-setuptools", "--no-wheel"}


def main():
    bundled = os.path.join(os.path.dirname(ensurepip.__file__), "_bundled")
    wheels = sorted(glob.glob(os.path.join(bundled, "pip-*.whl")))
    if not wheels:
        sys.exit("offline_get_pip: no pip wheel bundled with ensurepip in %s" % bundled)
    sys.path.insert(0, wheels[-1])
    args = [arg for arg in sys.argv[1:] if arg not in _GET_PIP_ONLY]
    sys.argv = ["pip", "install"] + args
    runpy.run_module("pip", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
