# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shipped documents name only files that are in the repository, and stand on their own.

Scans ``docs/*.md``, ``README.md`` and ``roles/*/README.md``:

- every repository-relative path in inline code (``plugins/...``, ``roles/...``, ``docs/...``,
  ``scripts/...``, ``tests/...``, ``playbooks/...``, ``extensions/...``, ``inventories/...``,
  ``changelogs/...``) or in a Markdown link must exist in the checkout. ``*`` is a
  glob that must match something; a placeholder such as ``<host>`` or ``{{ var }}`` counts as
  ``*``. Paths on a node (``/var/lib/...``) and URLs are not repository paths. A relative link is
  resolved from the document's own folder, as a Markdown viewer does. ``tests/output/``, where the
  tests write, is a place, not a file, and is not checked.
- no document points outside the collection: ``../shared``, ``notes/`` or ``DESIGN.md``.

The checkout is found from this file's path (``ansible_run.REPO``), so the test runs the same
under plain pytest and ``ansible-test units``.
"""

import glob
import os
import re

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit import ansible_run

REPO = ansible_run.REPO
PREFIXES = ("plugins", "roles", "docs", "scripts", "tests", "playbooks", "extensions", "inventories", "changelogs")
FORBIDDEN = ("../shared", "notes/", "DESIGN.md")
# Folders the tests write into (ansible-test's output folder, git-ignored): named as places, never checked in.
GENERATED = ("tests/output/",)

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_INLINE = re.compile(r"(`+)(.+?)\1", re.S)
_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<(https?://[^>]+)>")
_TOKEN = re.compile(r"(?<![\w./-])((?:%s)/[^\s`'\"),;]*)" % "|".join(PREFIXES))
_PLACEHOLDER = re.compile(r"<[^<>/]+>|\{\{.*?\}\}|\{[^{}/]+\}")


def shipped_docs(repo=REPO):
    """The documents that ship with the collection, relative to ``repo``."""
    found = sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    found += [os.path.join(repo, "README.md")]
    found += sorted(glob.glob(os.path.join(repo, "roles", "*", "README.md")))
    return [os.path.relpath(path, repo) for path in found if os.path.isfile(path)]


def _strip_fences(text):
    """The text without fenced code blocks (their commands are examples, not references), lines kept."""
    return _FENCE.sub(lambda match: "\n" * match.group(0).count("\n"), text)


def _clean(path):
    path = path.rstrip(".:")
    path = _PLACEHOLDER.sub("*", path)
    return path.split("#", 1)[0]


def referenced_paths(text):
    """(line, path as written, path to check relative to the repository or None, relative link?) for ``text``."""
    text = _strip_fences(text)
    found = []
    for match in _INLINE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        for token in _TOKEN.finditer(match.group(2)):
            found.append((line, token.group(1), _clean(token.group(1)), False))
    for match in _LINK.finditer(text):
        target = match.group(1)
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            continue
        line = text.count("\n", 0, match.start()) + 1
        found.append((line, target, _clean(target), True))
    return found


def missing_paths(doc, repo=REPO):
    """Each 'doc:line: path' that names a file the repository does not have."""
    with open(os.path.join(repo, doc), encoding="utf-8") as stream:
        text = stream.read()
    missing = []
    for line, written, path, relative in referenced_paths(text):
        if not path or (not relative and path.startswith(GENERATED)):
            continue
        base = os.path.dirname(os.path.join(repo, doc)) if relative else repo
        full = os.path.normpath(os.path.join(base, path))
        if not (full == repo or full.startswith(repo + os.sep)):
            missing.append("%s:%d: %s (outside the repository)" % (doc, line, written))
        elif not glob.glob(full.rstrip(os.sep) or os.sep):
            missing.append("%s:%d: %s" % (doc, line, written))
    return missing


def outside_mentions(doc, repo=REPO):
    """Each 'doc:line: word' where the document points outside the collection."""
    found = []
    with open(os.path.join(repo, doc), encoding="utf-8") as stream:
        for number, line in enumerate(stream, 1):
            found += ["%s:%d: %s" % (doc, number, word) for word in FORBIDDEN if word in line]
    return found


def test_the_docs_are_found():
    docs = shipped_docs()
    assert "README.md" in docs
    assert "docs/transition.md" in docs and "docs/plan.md" in docs


@pytest.mark.parametrize("doc", shipped_docs())
def test_every_repository_path_a_doc_names_exists(doc):
    assert missing_paths(doc) == []


@pytest.mark.parametrize("doc", shipped_docs())
def test_no_doc_points_outside_the_collection(doc):
    assert outside_mentions(doc) == []


def test_the_scan_catches_a_missing_file_and_a_pointer_outside(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "plugins" / "modules").mkdir(parents=True)
    (tmp_path / "plugins" / "modules" / "real.py").write_text("")
    (tmp_path / "docs" / "other.md").write_text("")
    (tmp_path / "docs" / "page.md").write_text(
        "`plugins/modules/real.py` and `plugins/modules/gone.py`, `plugins/modules/*.py`,\n"
        "`ansible-playbook -i inventories/nowhere x`, `roles/<role>/README.md`, `/var/lib/kubelet/config.yaml`,\n"
        "[other](other.md), [lost](lost.md#part), [web](https://kubernetes.io/docs/), `<artifacts>/<host>/x`\n"
        "```sh\nls plugins/not-checked-in-a-fence\n```\n"
        "see ../shared/notes/X.md and DESIGN.md; screenshots in `tests/output/acceptance/`\n")
    repo = str(tmp_path)
    assert missing_paths("docs/page.md", repo) == [
        "docs/page.md:1: plugins/modules/gone.py",
        "docs/page.md:2: inventories/nowhere",
        "docs/page.md:2: roles/<role>/README.md",
        "docs/page.md:3: lost.md#part",
    ]
    assert outside_mentions("docs/page.md", repo) == [
        "docs/page.md:7: ../shared", "docs/page.md:7: notes/", "docs/page.md:7: DESIGN.md"]
