"""Print the pip version that the installed ansible-test bootstraps, spelled as in its cache file name."""

import os
import re

import ansible_test

SOURCE = os.path.join(os.path.dirname(ansible_test.__file__), "_internal", "python_requirements.py")

with open(SOURCE, encoding="utf-8") as handle:
    found = sorted(set(re.findall(r"\bpip='([0-9.]+)'", handle.read())))
if not found:
    raise SystemExit("no pip version found in %s; ansible-test changed its bootstrap" % SOURCE)
print(" ".join(version.replace(".", "_") for version in found))
