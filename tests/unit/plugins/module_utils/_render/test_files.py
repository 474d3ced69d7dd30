"""The kubelet's files on a node: read and written only inside root, never through a link, never blocking.

Hostile trees are real: symlinks, FIFOs (os.mkfifo, each read under a SIGALRM timeout) and files
outside the root whose sha256 is compared before and after (issue 7 rules 1, 3, 4, 6 and 8).
"""

import hashlib
import os
import stat

import pytest
import yaml

from ansible_collections.gpusmith.numa_gate.tests.unit.no_hang import no_hang
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import fileio as _fileio
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as _layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import files
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import backups

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
MAIN = "var/lib/kubelet/config.yaml"
DROPINS = "etc/kubernetes/kubelet.conf.d"
OWN = "50-numa-gate.conf"


def dump(doc):
    return yaml.safe_dump(doc, default_flow_style=False, sort_keys=False)


def hashes(top, skip):
    """sha256 (or link target) of every entry under top that is not under skip."""
    found = {}
    for directory, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if os.path.join(directory, d) != str(skip)]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(directory, d))]:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                found[path] = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    found[path] = (stat.S_IMODE(info.st_mode), hashlib.sha256(handle.read()).hexdigest())
            else:
                found[path] = ("special", stat.S_IFMT(info.st_mode))
        for name in dirnames:
            found[os.path.join(directory, name)] = "dir"
    return found


@pytest.fixture
def tree(tmp_path):
    """(root, outside): a node tree and a folder beside it holding files nothing may change."""
    root = tmp_path / "node"
    (root / "var/lib/kubelet").mkdir(parents=True)
    (root / MAIN).write_text(HEAD + "cgroupDriver: systemd\n")
    (root / DROPINS).mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0::/root:/bin/sh\n")
    (outside / OWN).write_text(HEAD + "maxPods: 7\n")
    (outside / "config.yaml").write_text(HEAD + "maxPods: 9\n")
    return root, outside


def layout(root, own=OWN, tolerant=False, main="/" + MAIN, config_dir="/" + DROPINS):
    return files.Layout(str(root), main, config_dir, own=own, tolerant=tolerant)


# ---- writing and removing our drop-in ---------------------------------------

def test_dropin_is_written_inside_root_and_removed(tree, tmp_path):
    root, _outside = tree
    before = hashes(tmp_path, root)
    change = layout(root).dropin_change({"maxPods": 10}, dump)
    assert change.path == str(root / DROPINS / OWN)
    assert change.changed is True
    assert files.apply(change, str(root / "var/lib/numa-gate/backups")) is None
    assert (root / DROPINS / OWN).read_text() == files.DROPIN_HEADER + HEAD + "maxPods: 10\n"
    removed = layout(root).dropin_change(None, dump)
    saved = files.apply(removed, str(root / "var/lib/numa-gate/backups"))
    assert not (root / DROPINS / OWN).exists()
    with open(saved, "rb") as handle:
        assert handle.read() == (files.DROPIN_HEADER + HEAD + "maxPods: 10\n").encode()
    assert hashes(tmp_path, root) == before


def test_config_dir_with_dotdot_stays_inside_root(tree, tmp_path):
    # Issue 7 rule 1: "../../.." once wrote beside root.
    root, outside = tree
    before = hashes(tmp_path, root)
    sneaky = "/etc/../../../../../../outside"
    change = layout(root, config_dir=sneaky).dropin_change({"maxPods": 10}, dump)
    assert change.path == str(root / "outside" / OWN)
    files.apply(change, str(root / "var/lib/numa-gate/backups"))
    assert (root / "outside" / OWN).exists()
    assert (outside / OWN).read_text() == HEAD + "maxPods: 7\n"
    assert hashes(tmp_path, root) == before


def test_config_dir_that_is_an_absolute_link_out_of_root_is_read_inside_root(tree, tmp_path):
    root, outside = tree
    os.rmdir(root / DROPINS)
    os.symlink(str(outside), root / DROPINS)
    before = hashes(tmp_path, root)
    current = layout(root)
    # The link's target is taken inside root: nothing of outside/ is read.
    assert current.config_dir == str(root) + str(outside)
    assert current.own_bytes is None and current.dropins == []
    change = current.dropin_change({"maxPods": 10}, dump)
    assert change.path == str(root) + str(outside / OWN)
    assert change.before is None
    files.apply(change, str(root / "var/lib/numa-gate/backups"))
    assert hashes(tmp_path, root) == before


def test_symlinked_own_dropin_is_refused_and_nothing_changes(tree, tmp_path):
    root, outside = tree
    os.symlink(str(outside / OWN), root / DROPINS / OWN)
    before = hashes(tmp_path, None)
    current = layout(root)
    assert current.own_link == str(outside / OWN)
    assert current.own_bytes is None
    with pytest.raises(files.FilesError) as err:
        current.dropin_change({"maxPods": 10}, dump)
    assert str(err.value) == ("%s is a symlink (to %s) that this collection did not create; not replaced: remove the link "
                              "or choose another dropin_name" % (root / DROPINS / OWN, outside / OWN))
    assert hashes(tmp_path, None) == before


def test_absent_of_a_symlinked_own_dropin_removes_the_link_only(tree, tmp_path):
    root, outside = tree
    os.symlink(str(outside / OWN), root / DROPINS / OWN)
    before = hashes(tmp_path, root)
    change = layout(root, tolerant=True).dropin_change(None, dump)
    assert change.changed is True
    assert change.link == str(outside / OWN)
    saved = files.apply(change, str(root / "var/lib/numa-gate/backups"))
    assert not os.path.lexists(root / DROPINS / OWN)
    with open(saved, "rb") as handle:
        assert handle.read() == os.fsencode(str(outside / OWN))
    assert hashes(tmp_path, root) == before
    # The backup puts the link itself back.
    backups.restore(saved, str(root / DROPINS / OWN))
    assert os.readlink(root / DROPINS / OWN) == str(outside / OWN)


def test_current_reads_a_symlinked_own_dropin_inside_root(tree):
    root, outside = tree
    (root / "srv").mkdir()
    (root / "srv" / OWN).write_text(HEAD + "maxPods: 3\n")
    os.symlink("/srv/" + OWN, root / DROPINS / OWN)
    os.symlink(str(outside / "config.yaml"), root / DROPINS / "60-out.conf")
    current = layout(root)
    assert current.current()["maxPods"] == 3
    # 60-out.conf points out of root: read inside root, where nothing is; it is skipped as absent.
    assert [path for path, _doc in current.dropins] == []


def test_symlinked_main_file_is_refused_in_mode_main(tree, tmp_path):
    root, outside = tree
    os.unlink(root / MAIN)
    os.symlink(str(outside / "config.yaml"), root / MAIN)
    (root / "tmp").mkdir()
    before = hashes(tmp_path, None)
    with pytest.raises(files.FilesError) as err:
        layout(root, own=None).main_change({"maxPods": 10}, dump)
    assert str(err.value) == ("%s is a symlink (to %s); mode=main does not replace a link it did not create: set path to the file itself"
                              % (root / MAIN, outside / "config.yaml"))
    with pytest.raises(files.FilesError, match="is a symlink"):
        layout(root, own=None).main_restore(str(root / "var/lib/numa-gate/backups"))
    assert hashes(tmp_path, None) == before


def test_symlinked_main_file_inside_root_is_read_in_dropin_mode(tree):
    root, _outside = tree
    os.rename(root / MAIN, root / "var/lib/kubelet/real.yaml")
    os.symlink("real.yaml", root / MAIN)
    current = layout(root)
    assert current.main_doc["cgroupDriver"] == "systemd"
    assert current.main_path == str(root / MAIN)


# ---- nothing blocks (rule 3) ----------------------------------------------------

def test_fifo_dropin_is_refused_by_name_without_blocking(tree, tmp_path):
    root, _outside = tree
    os.mkfifo(root / DROPINS / "10-fifo.conf")
    before = hashes(tmp_path, None)
    with no_hang(5):
        with pytest.raises(_fileio.FileIOError) as err:
            layout(root)
    assert str(err.value) == "%s is a FIFO, not a regular file; not read" % (root / DROPINS / "10-fifo.conf")
    with no_hang(5):
        tolerant = layout(root, tolerant=True)
    assert tolerant.skipped == [str(err.value)]
    assert hashes(tmp_path, None) == before


def test_fifo_main_file_is_refused_by_name_without_blocking(tree):
    root, _outside = tree
    os.unlink(root / MAIN)
    os.mkfifo(root / MAIN)
    with no_hang(5):
        with pytest.raises(_fileio.FileIOError) as err:
            layout(root)
    assert str(err.value) == "%s is a FIFO, not a regular file; not read" % (root / MAIN)


def test_fifo_own_dropin_is_refused_for_present_and_absent(tree):
    root, _outside = tree
    os.mkfifo(root / DROPINS / OWN)
    for tolerant in (False, True):
        with no_hang(5):
            with pytest.raises(_fileio.FileIOError) as err:
                layout(root, tolerant=tolerant)
        assert str(err.value) == "%s is a FIFO, not a regular file; not read" % (root / DROPINS / OWN)
    assert stat.S_ISFIFO(os.lstat(root / DROPINS / OWN).st_mode)


# ---- proportional (rule 4) ------------------------------------------------------

def test_expanded_size_stops_counting_at_the_limit():
    level = ["x" * 10]
    for dummy in range(30):
        level = [level, level]  # 2**30 leaves, shared
    assert 1000 < _layout._expanded_size(level, 1000) <= 1011  # pylint: disable=protected-access
    # dict, "a" (1 + 1 character), list, "bc" (1 + 2), 1
    assert _layout._expanded_size({"a": ["bc", 1]}, 1000) == 8  # pylint: disable=protected-access


def test_an_aliased_main_file_is_refused_before_anything_is_built(tree, tmp_path):
    root, _outside = tree
    bomb = HEAD + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for index, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[index]
        bomb += "%s: &%s [%s]\n" % (name, name, ",".join(["*" + prev] * 9))
    (root / MAIN).write_text(bomb)
    before = hashes(tmp_path, None)
    with no_hang(10):
        with pytest.raises(merge.KubeletConfigError) as err:
            layout(root, own=None).main_change({"maxPods": 10}, dump)
    assert str(err.value).startswith(str(root / MAIN))
    assert hashes(tmp_path, None) == before


# ---- private state, long names (rule 6) -----------------------------------------

def test_backups_of_a_very_long_config_dir_are_shortened_and_found(tree, tmp_path):
    root, _outside = tree
    long_dir = "/etc/" + "/".join("kubelet-drop-in-directory-level-%02d" % i for i in range(8))
    assert len(long_dir) > 255
    backup_dir = str(root / "var/lib/numa-gate/backups")
    before = hashes(tmp_path, root)
    for pods in (10, 11, 12):
        files.apply(layout(root, config_dir=long_dir).dropin_change({"maxPods": pods}, dump), backup_dir)
    own = os.path.join(str(root) + long_dir, OWN)
    found = backups.backups_of(own, backup_dir)
    assert len(found) == 2
    assert all(len(os.path.basename(p)) < 255 for p in found)
    with open(found[0], "rb") as handle:
        assert b"maxPods: 10" in handle.read()
    saved = files.apply(layout(root, config_dir=long_dir).dropin_change(None, dump), backup_dir)
    assert backups.backups_of(own, backup_dir)[-1] == saved
    assert hashes(tmp_path, root) == before


def test_backup_dir_and_baseline_are_private(tree):
    root, _outside = tree
    os.umask(0o022)
    backup_dir = str(root / "var/lib/numa-gate/backups")
    files.apply(layout(root, own=None).main_change({"maxPods": 10}, dump), backup_dir)
    for folder in ("var/lib/numa-gate", "var/lib/numa-gate/backups", "var/lib/numa-gate/backups/baseline"):
        assert stat.S_IMODE(os.stat(root / folder).st_mode) == 0o700, folder
    for directory, _dirs, names in os.walk(backup_dir):
        for name in names:
            assert stat.S_IMODE(os.stat(os.path.join(directory, name)).st_mode) == 0o600, name
            if os.geteuid() == 0:
                assert os.stat(os.path.join(directory, name)).st_uid == 0


def test_backup_dir_that_is_a_file_stops_before_anything_is_written(tree, tmp_path):
    root, _outside = tree
    (root / "var/lib/numa-gate").write_text("not a folder")
    before = hashes(tmp_path, None)
    change = layout(root, own=None).main_change({"maxPods": 10}, dump)
    with pytest.raises(atomic.NodeStateError) as err:
        files.apply(change, str(root / "var/lib/numa-gate/backups"))
    assert str(err.value) == "cannot create folder %s: %s is not a folder" % (
        root / "var/lib/numa-gate/backups", root / "var/lib/numa-gate")
    assert hashes(tmp_path, None) == before


# ---- empty paths (rule 8) ---------------------------------------------------------

@pytest.mark.parametrize("name", ["root", "path", "config_dir", "kubelet_root_dir", "backup_dir"])
def test_empty_path_options_are_refused(tree, name):
    root, _outside = tree
    params = {"root": str(root), "path": "/" + MAIN, "config_dir": "/" + DROPINS, "kubelet_root_dir": "/var/lib/kubelet",
              "backup_dir": "/var/lib/numa-gate/backups"}
    params[name] = ""
    with pytest.raises(files.FilesError) as err:
        _layout.locate(params, ("path", "config_dir", "kubelet_root_dir", "backup_dir"))
    if name == "root":
        assert str(err.value) == 'root must not be empty (an empty value is not a default): give "/" for the node itself, or a folder'
    else:
        assert str(err.value) == "%s must not be empty (an empty value is not a default): give a path, or leave the option out" % name


def test_locate_resolves_inside_root(tree):
    root, _outside = tree
    found_root, paths = _layout.locate({"root": str(root), "backup_dir": "/../../x/./y"}, ("backup_dir",))
    assert found_root == str(root)
    assert paths == {"backup_dir": str(root / "x/y")}


@pytest.mark.parametrize("name", ["", "a/b.conf", "..", "x.yaml"])
def test_dropin_name_must_be_a_conf_file_name(name):
    with pytest.raises(files.FilesError) as err:
        _layout.check_dropin_name(name)
    assert str(err.value) == "dropin_name %r must be a file name ending in .conf (the kubelet reads only *.conf drop-ins)" % name
