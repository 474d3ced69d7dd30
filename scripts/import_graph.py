# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The package import graph of plugins/module_utils, checked against the layout.

Prints each package with the packages it imports (and how many import statements), then the lines
of each package and its share of module_utils. Exits 1 when:

- a floor imports a higher floor or any step;
- a step imports a later step (against the flow);
- a package holds more than MAX_SHARE of module_utils lines;
- a ``.py`` file under plugins/ has more than MAX_FILE_LINES lines;
- a package under module_utils is not in the order below (so a new one is placed on purpose).

Usage: python3 scripts/import_graph.py [collection root]   (stdlib only)
"""

from __future__ import annotations

import ast
import os
import sys

# Floors, lowest first: each may import only floors below it.
FLOORS = ["_base", "_amd", "_kube_api", "_node_files", "_kubelet"]
# Steps, in flow order: each may import any floor and steps before it, never one after it.
STEPS = [
    "_facts",
    "_stack",
    "_plan",
    "_render",
    "_transition",
    "_rehearsal",
    "_device_path",
    "_service_comparison",
    "_evidence",
    "_record",
]
MAX_SHARE = 0.15
MAX_FILE_LINES = 400

PREFIX = "ansible_collections.gpusmith.numa_gate.plugins.module_utils."


def _rank(package):
    """(kind, index): floors are kind 0, steps kind 1."""
    if package in FLOORS:
        return (0, FLOORS.index(package))
    return (1, STEPS.index(package))


def allowed(importer, imported):
    """Whether package ``importer`` may import package ``imported``."""
    if importer == imported:
        return True
    kind_a, index_a = _rank(importer)
    kind_b, index_b = _rank(imported)
    if kind_a == 0:
        return kind_b == 0 and index_b < index_a
    return kind_b == 0 or index_b < index_a


def _count_lines(path):
    with open(path, "rb") as handle:
        return sum(1 for _line in handle)


def _imported_packages(path):
    """The module_utils packages a file imports (one entry per import statement and package)."""
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read(), filename=path)
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module + "." + alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        packages = set()
        for name in names:
            if name.startswith(PREFIX):
                packages.add(name[len(PREFIX):].split(".")[0])
        found.extend(sorted(packages))
    return found


def analyse(root):
    """(edges, lines, problems): edges[(a, b)] = [files], lines[package] = count, problems = [str]."""
    module_utils = os.path.join(root, "plugins", "module_utils")
    problems = []
    edges = {}
    lines = {}
    known = FLOORS + STEPS
    for entry in sorted(os.listdir(module_utils)):
        full = os.path.join(module_utils, entry)
        if entry == "__pycache__":
            continue
        if os.path.isdir(full):
            if entry not in known:
                problems.append("package %s is not in the order at the top of scripts/import_graph.py" % entry)
                continue
            lines.setdefault(entry, 0)
        elif entry.endswith(".py") and entry != "__init__.py":
            problems.append("module_utils/%s lies outside any package" % entry)
    for dirpath, dirnames, filenames in os.walk(module_utils):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        rel_dir = os.path.relpath(dirpath, module_utils)
        if rel_dir == ".":
            continue
        package = rel_dir.split(os.sep)[0]
        if package not in lines:
            continue
        for filename in sorted(filenames):
            if not filename.endswith(".py"):
                continue
            path = os.path.join(dirpath, filename)
            rel = os.path.relpath(path, root)
            lines[package] += _count_lines(path)
            for imported in _imported_packages(path):
                if imported == package:
                    continue
                if imported not in known:
                    problems.append("%s imports %s, which is not in the order" % (rel, imported))
                    continue
                edges.setdefault((package, imported), []).append(rel)
    for (importer, imported), files in sorted(edges.items()):
        if not allowed(importer, imported):
            kind = "floor" if importer in FLOORS else "step"
            problems.append(
                "back-edge %s -> %s (a %s importing %s): %s"
                % (importer, imported, kind, "a higher floor or a step" if kind == "floor" else "a later step",
                   ", ".join(sorted(set(files))))
            )
    total = sum(lines.values()) or 1
    for package in known:
        if package in lines and lines[package] / total > MAX_SHARE:
            problems.append(
                "package %s holds %.1f %% of module_utils lines (more than %d %%)"
                % (package, 100.0 * lines[package] / total, round(MAX_SHARE * 100))
            )
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "plugins")):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for filename in sorted(filenames):
            if filename.endswith(".py"):
                path = os.path.join(dirpath, filename)
                count = _count_lines(path)
                if count > MAX_FILE_LINES:
                    problems.append("%s has %d lines (more than %d)" % (os.path.relpath(path, root), count, MAX_FILE_LINES))
    return edges, lines, problems


def report(edges, lines, problems, out=sys.stdout):
    known = [p for p in FLOORS + STEPS if p in lines]
    width = max(len(p) for p in known) if known else 0
    out.write("Import graph (package -> packages it imports: import statements)\n")
    for package in known:
        kind = "floor" if package in FLOORS else "step "
        targets = sorted(((b, len(f)) for (a, b), f in edges.items() if a == package), key=lambda t: known.index(t[0]) if t[0] in known else 99)
        text = ", ".join("%s %d%s" % (b, n, "" if allowed(package, b) else " BACK-EDGE") for b, n in targets)
        out.write("  %s %-*s -> %s\n" % (kind, width, package, text or "(nothing)"))
    total = sum(lines.values()) or 1
    out.write("\nLines per package (share of %d module_utils lines; limit %d %%)\n" % (total, round(MAX_SHARE * 100)))
    for package in known:
        out.write("  %-*s %6d  %5.1f %%\n" % (width, package, lines[package], 100.0 * lines[package] / total))
    if problems:
        out.write("\nFAILED (%d):\n" % len(problems))
        for problem in problems:
            out.write("  %s\n" % problem)
    else:
        out.write("\nOK: no back-edge, no package above %d %%, no file above %d lines\n" % (round(MAX_SHARE * 100), MAX_FILE_LINES))


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    edges, lines, problems = analyse(root)
    report(edges, lines, problems)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
