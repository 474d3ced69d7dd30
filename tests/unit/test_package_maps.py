# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every package's ``__init__.py`` under plugins/module_utils maps exactly its files and subpackages.

The map is the docstring's list: ``- ``name``: first docstring line`` for each ``name.py`` beside it,
``- ``sub/``: title`` for each subpackage (the first line of its own ``__init__`` docstring).
A file or subpackage missing from the map, or a map entry with nothing behind it, fails.
"""

import ast
import os
import re

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
MODULE_UTILS = os.path.join(REPO, "plugins", "module_utils")
ENTRY = re.compile(r"^- ``([^`]+)``: (.*)$", re.MULTILINE)


def _packages():
    found = []
    for dirpath, dirnames, _filenames in os.walk(MODULE_UTILS):
        dirnames[:] = sorted(name for name in dirnames if name != "__pycache__")
        if dirpath != MODULE_UTILS:
            found.append(os.path.relpath(dirpath, MODULE_UTILS))
    return found


def _first_line(path):
    with open(path, encoding="utf-8") as handle:
        doc = ast.get_docstring(ast.parse(handle.read(), filename=path)) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _contents(package):
    """{map name: first docstring line} of what lies in ``package``."""
    folder = os.path.join(MODULE_UTILS, package)
    found = {}
    for name in sorted(os.listdir(folder)):
        full = os.path.join(folder, name)
        if os.path.isdir(full) and name != "__pycache__":
            init = os.path.join(full, "__init__.py")
            found[name + "/"] = _first_line(init) if os.path.isfile(init) else ""
        elif name.endswith(".py") and name != "__init__.py":
            found[name[:-3]] = _first_line(full)
    return found


def _map(package):
    init = os.path.join(MODULE_UTILS, package, "__init__.py")
    assert os.path.isfile(init), "plugins/module_utils/%s has no __init__.py (and so no map)" % package
    with open(init, encoding="utf-8") as handle:
        doc = ast.get_docstring(ast.parse(handle.read(), filename=init)) or ""
    entries = ENTRY.findall(doc)
    names = [name for name, _title in entries]
    assert len(names) == len(set(names)), "plugins/module_utils/%s/__init__.py lists a name twice: %s" % (package, names)
    return dict(entries)


def test_there_are_packages_to_check():
    assert {"_base", "_kube_api", "_record"} <= set(_packages())


@pytest.mark.parametrize("package", _packages())
def test_the_map_lists_every_file_and_subpackage_and_nothing_else(package):
    listed = set(_map(package))
    there = set(_contents(package))
    assert not there - listed, "plugins/module_utils/%s/__init__.py does not list %s" % (package, sorted(there - listed))
    assert not listed - there, "plugins/module_utils/%s/__init__.py lists %s, which are not there" % (package, sorted(listed - there))


@pytest.mark.parametrize("package", _packages())
def test_each_entry_says_the_first_line_of_its_docstring(package):
    listed = _map(package)
    there = _contents(package)
    wrong = ["%s: the map says %r, the file says %r" % (name, listed[name], there[name])
             for name in sorted(set(listed) & set(there)) if listed[name] != there[name]]
    assert not wrong, "plugins/module_utils/%s/__init__.py:\n%s" % (package, "\n".join(wrong))
