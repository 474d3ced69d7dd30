# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 16, rule 5 for artifacts: no inventory host name becomes a path unchecked, and a batch is checked whole before its first write.

Every refusal is asserted with its exact message and with the sha256 (and kind) of every path under the
test's tree before and after: a refusal changes nothing, not even an empty folder.
"""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import stat

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import artifacts as _artifacts


def tree(top):
    """Every path under ``top``: a file's sha256, a link's target, 'dir' for a folder."""
    found = {}
    for directory, dirnames, filenames in os.walk(str(top)):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                found[os.path.relpath(path, str(top))] = "link -> " + os.readlink(path)
            elif stat.S_ISDIR(mode):
                found[os.path.relpath(path, str(top))] = "dir"
            else:
                with open(path, "rb") as handle:
                    found[os.path.relpath(path, str(top))] = hashlib.sha256(handle.read()).hexdigest()
    return found


@pytest.fixture(name="site")
def fixture_site(tmp_path):
    """<tmp>/work/artifacts with node-a's files and index.html, and a file beside the artifacts folder and above it."""
    artifacts = tmp_path / "work" / "artifacts"
    (artifacts / "node-a").mkdir(parents=True)
    (artifacts / "node-a" / "plan.json").write_text('{"node": "a"}\n')
    (artifacts / "index.html").write_text("<html></html>\n")
    (tmp_path / "work" / "x").write_text("beside\n")
    (tmp_path / "x").write_text("above\n")
    return tmp_path


LONG = "n" * 256
HOSTILE = [
    ("../../x", "artifacts: host name '../../x' has a '/': it must be one name inside its folder, not a path"),
    ("..", "artifacts: host name '..' is not a name: '.' and '..' are the folder itself and its parent"),
    (".", "artifacts: host name '.' is not a name: '.' and '..' are the folder itself and its parent"),
    ("node-b/../node-a", "artifacts: host name 'node-b/../node-a' has a '/': it must be one name inside its folder, not a path"),
    ("/etc", "artifacts: host name '/etc' has a '/': it must be one name inside its folder, not a path"),
    (LONG, "artifacts: host name %r... is 256 bytes in UTF-8, over the 255-byte limit of one file name (NAME_MAX)" % ("n" * 40)),
    ("\u00e9" * 128, "artifacts: host name %r... is 256 bytes in UTF-8, over the 255-byte limit of one file name (NAME_MAX)" % ("\u00e9" * 40)),
    ("node\0a", "artifacts: host name 'node\\x00a' has a control character (U+0000) at offset 4: not a name"),
    ("node\na", "artifacts: host name 'node\\na' has a control character (U+000A) at offset 4: not a name"),
    ("node\x7f", "artifacts: host name 'node\\x7f' has a control character (U+007F) at offset 4: not a name"),
    ("node-\udcff", "artifacts: host name 'node-\\udcff' is not valid UTF-8 text (surrogates not allowed at offset 5)"),
    ("", "artifacts: host name must be a non-empty string, got ''"),
]


@pytest.mark.parametrize("host,message", HOSTILE, ids=[repr(h)[:24] for h, _m in HOSTILE])
def test_a_hostile_host_name_is_refused_before_anything_is_written(site, host, message):
    before = tree(site)
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(site / "work" / "artifacts"), {"plan.json": '{"node": "evil"}\n', "summary.md": "# evil\n"}, host=host)
    assert str(caught.value) == message
    assert tree(site) == before


@pytest.mark.parametrize("host,message", HOSTILE[:4], ids=[h for h, _m in HOSTILE[:4]])
def test_check_mode_refuses_the_same_names(site, host, message):
    before = tree(site)
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(site / "work" / "artifacts"), {"plan.json": "{}\n"}, check_mode=True, host=host)
    assert str(caught.value) == message
    assert tree(site) == before


def test_a_host_name_is_one_folder_inside_dest(site):
    artifacts = site / "work" / "artifacts"
    folder, changed, _entries = _artifacts.write(str(artifacts), {"plan.json": '{"node": "b"}\n'}, host="node-b.example.com")
    assert (folder, changed) == (str(artifacts / "node-b.example.com"), ["plan.json"])
    assert (artifacts / "node-b.example.com" / "plan.json").read_text() == '{"node": "b"}\n'
    assert (artifacts / "node-a" / "plan.json").read_text() == '{"node": "a"}\n'
    # Names the rule allows: 255 bytes, a leading dash, spaces, non-ASCII letters, an IP address.
    for host in ("h" * 255, "-n", "node one", "n\u00f6de", "10.0.0.7"):
        folder, _changed, _entries = _artifacts.write(str(artifacts), {"f": "x"}, host=host)
        assert folder == os.path.join(str(artifacts), host)
        assert os.listdir(folder) == ["f"]


def test_subdir_is_checked_and_nested_in_the_host_folder(site):
    artifacts = site / "work" / "artifacts"
    folder, _changed, _entries = _artifacts.write(str(artifacts), {"manifest.json": "{}\n"}, host="node-a", subdir="baseline")
    assert folder == str(artifacts / "node-a" / "baseline")
    assert sorted(os.listdir(str(artifacts / "node-a"))) == ["baseline", "plan.json"]
    before = tree(site)
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(artifacts), {"manifest.json": "{}\n"}, host="node-a", subdir="..")
    assert str(caught.value) == "artifacts: subdir '..' is not a name: '.' and '..' are the folder itself and its parent"
    assert tree(site) == before


def test_a_host_folder_that_is_a_symlink_is_refused_not_written_through(site):
    artifacts = site / "work" / "artifacts"
    os.symlink("../x-elsewhere", str(artifacts / "node-c"))
    (site / "work" / "x-elsewhere").mkdir()
    (site / "work" / "x-elsewhere" / "plan.json").write_text("precious\n")
    before = tree(site)
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(artifacts), {"plan.json": "{}\n"}, host="node-c")
    assert str(caught.value) == ("artifacts: host folder %s is a symlink (to ../x-elsewhere); not written through: "
                                 "a host's artifacts go into a folder inside dest" % (artifacts / "node-c"))
    assert tree(site) == before
    os.symlink("/", str(artifacts / "node-a" / "baseline"))
    before = tree(site)
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(artifacts), {"manifest.json": "{}\n"}, host="node-a", subdir="baseline")
    assert str(caught.value) == ("artifacts: subfolder %s is a symlink (to /); not written through: "
                                 "a host's artifacts go into a folder inside dest" % (artifacts / "node-a" / "baseline"))
    assert tree(site) == before


def test_a_host_folder_that_is_a_file_is_refused(site):
    artifacts = site / "work" / "artifacts"
    before = tree(site)
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(artifacts), {"a": "b"}, host="index.html")
    assert str(caught.value) == "artifacts: host folder %s exists and is not a folder" % (artifacts / "index.html")
    assert tree(site) == before


def test_file_names_have_the_same_limit_and_a_255_byte_name_is_written(site):
    artifacts = site / "work" / "artifacts"
    name = "t" * 250 + ".json"  # the temporary file's name does not grow with it
    _artifacts.write(str(artifacts), {name: "{}\n"}, host="node-a")
    assert sorted(os.listdir(str(artifacts / "node-a"))) == sorted([name, "plan.json"])
    before = tree(site)
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(artifacts), {"a.json": "{}\n", "t" * 251 + ".json": "{}\n"}, host="node-a")
    assert str(caught.value) == "artifacts: file name %r... is 256 bytes in UTF-8, over the 255-byte limit of one file name (NAME_MAX)" % ("t" * 40)
    assert tree(site) == before


def test_every_name_is_checked_before_the_first_file_of_the_batch(site):
    artifacts = site / "work" / "artifacts"
    before = tree(site)
    # Sorted, the good names come first: none of them is written when a later one is refused.
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(artifacts), {"a.json": "{}\n", "b.json": "{}\n", "z\nz": "{}\n"}, host="node-new")
    assert str(caught.value) == "artifacts: file name 'z\\nz' has a control character (U+000A) at offset 1: not a name"
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(artifacts), {"a.json": "{}\n", "b.json": "bad \udc80"}, host="node-new")
    assert str(caught.value) == "artifacts: content of b.json is not valid UTF-8 text (surrogates not allowed at offset 4)"
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.write(str(artifacts), {"a.json": "{}\n", 7: "{}\n"}, host="node-new")
    assert str(caught.value) == "artifacts: file name must be a non-empty string, got 7"
    assert tree(site) == before


def test_a_batch_that_fails_while_writing_changes_no_file_and_leaves_no_folder(site):
    """A real write failure: RLIMIT_FSIZE makes the second file's write fail with EFBIG after the first one is written."""
    artifacts = site / "work" / "artifacts"
    (artifacts / "node-a" / "a.json").write_text("old a\n")
    before = tree(site)
    files = {"a.json": "new a\n", "b.json": "b" * (2 * 1024 * 1024)}
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024 * 1024, hard))
    try:
        with pytest.raises(OSError) as first:
            _artifacts.write(str(artifacts), files, host="node-a")
        with pytest.raises(OSError) as second:
            _artifacts.write(str(artifacts), files, host="node-new")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert first.value.errno == second.value.errno == 27  # EFBIG
    assert tree(site) == before  # a.json is the old one, no temporary file, no node-new folder


def test_host_file_is_the_same_rule_for_reading(site):
    artifacts = site / "work" / "artifacts"
    assert _artifacts.host_file(str(artifacts), "node-a", "plan.json") == str(artifacts / "node-a" / "plan.json")
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.host_file(str(artifacts), "../../x", "acceptance.json")
    assert str(caught.value) == "artifacts: host name '../../x' has a '/': it must be one name inside its folder, not a path"
    with pytest.raises(_artifacts.ArtifactsError) as caught:
        _artifacts.host_file(str(artifacts), "node-a", "../x")
    assert str(caught.value) == "artifacts: file name '../x' has a '/': it must be one name inside its folder, not a path"
