# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/import_graph.py passes on the checkout, and fails, naming the edge, on a made-up back-edge.

The script checks the layout of plugins/module_utils: floors import only floors below them, steps
only floors and earlier steps; no package above 15 % of module_utils lines; no file above 400 lines.
The bad trees are temporary copies of plugins/ with one file changed.
"""

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "import_graph.py")
PREFIX = "from ansible_collections.gpusmith.numa_gate.plugins.module_utils."


def run(root):
    done = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True, timeout=120, check=False)
    return done.returncode, done.stdout + done.stderr


def test_the_checkout_passes():
    code, out = run(REPO)
    assert code == 0, out
    assert "Import graph" in out and "Lines per package" in out
    assert "OK: no back-edge" in out


@pytest.fixture(name="tree")
def fixture_tree(tmp_path):
    shutil.copytree(os.path.join(REPO, "plugins"), str(tmp_path / "plugins"), ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def add(tree, relative, text):
    path = tree / "plugins" / "module_utils" / relative
    with open(str(path), "a", encoding="utf-8") as handle:
        handle.write(text)


@pytest.mark.parametrize("importer, imported, kind", [
    ("_base/errors.py", "_kube_api", "a floor importing a higher floor or a step"),
    ("_node_files/atomic.py", "_facts", "a floor importing a higher floor or a step"),
    ("_facts/__init__.py", "_plan", "a step importing a later step"),
    ("_evidence/nodefs.py", "_record", "a step importing a later step"),
])
def test_a_back_edge_fails_and_is_named(tree, importer, imported, kind):
    add(tree, importer, "\n\ndef _late():\n    %s%s import errors  # noqa\n" % (PREFIX, imported))
    code, out = run(str(tree))
    assert code == 1, out
    package = importer.split("/")[0]
    assert "back-edge %s -> %s (%s): plugins/module_utils/%s" % (package, imported, kind, importer) in out, out
    assert "%s 1 BACK-EDGE" % imported in out


def test_a_file_above_400_lines_fails(tree):
    add(tree, "_plan/__init__.py", "\n" * 400)
    code, out = run(str(tree))
    assert code == 1
    assert "plugins/module_utils/_plan/__init__.py has " in out and "lines (more than 400)" in out


def test_a_package_above_15_percent_fails(tree):
    # Enough lines that _render's share passes 15 % however large module_utils has grown (each file under 400 lines).
    total = sum(sum(1 for _line in open(os.path.join(d, f), encoding="utf-8")) for d, _dirs, files in os.walk(str(tree / "plugins" / "module_utils"))
                for f in files if f.endswith(".py"))
    for index in range(total // 1500 + 1):
        (tree / "plugins" / "module_utils" / "_render" / ("filler%d.py" % index)).write_text("x = 1\n" * 390)
    code, out = run(str(tree))
    assert code == 1
    assert "package _render holds " in out and "of module_utils lines (more than 15 %)" in out


def test_a_package_outside_the_order_fails(tree):
    os.mkdir(str(tree / "plugins" / "module_utils" / "_misc"))
    (tree / "plugins" / "module_utils" / "_misc" / "__init__.py").write_text('"""A room without a place."""\n')
    code, out = run(str(tree))
    assert code == 1
    assert "package _misc is not in the order at the top of scripts/import_graph.py" in out
