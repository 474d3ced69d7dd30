"""Unit tests for the safe sysfs readers (_facts/sysfs.py): values or a warning, never an exception."""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs as _sysfs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs_cpusets as _cpusets


def write(path, content, mode="w"):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), mode) as handle:
        handle.write(content)
    return str(path)


def test_read_text_strips_nul_padding_and_blanks(tmp_path):
    path = write(tmp_path / "online", "0-3\n\x00\x00\x00")
    assert _sysfs.read_text(path) == ("0-3", None)


def test_read_text_missing(tmp_path):
    path = str(tmp_path / "nope")
    assert _sysfs.read_text(path) == (None, "%s: missing" % path)


def test_read_text_directory_where_a_file_is_expected(tmp_path):
    (tmp_path / "numa_node").mkdir()
    path = str(tmp_path / "numa_node")
    assert _sysfs.read_text(path) == (None, "%s: unreadable (a directory where a file is expected)" % path)


def test_read_text_parent_is_a_file(tmp_path):
    write(tmp_path / "topology", "x")
    path = str(tmp_path / "topology" / "core_id")
    assert _sysfs.read_text(path) == (None, "%s: missing (a parent is not a directory)" % path)


def test_read_text_permission_denied(tmp_path, monkeypatch):
    path = write(tmp_path / "meminfo", "MemTotal: 1 kB\n")

    def denied(name, flags, *args, **kwargs):
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr(_sysfs.os, "open", denied)
    assert _sysfs.read_text(path) == (None, "%s: unreadable (Permission denied)" % path)


def test_read_text_binary_garbage(tmp_path):
    path = write(tmp_path / "class", b"\xff\xfe\x80", mode="wb")
    assert _sysfs.read_text(path) == (None, "%s: not text (bytes that are not UTF-8)" % path)


@pytest.mark.parametrize("content, expected", [("1\n", 1), ("-1\n", -1), ("0\x00", 0), (" 42 ", 42)])
def test_read_int(tmp_path, content, expected):
    path = write(tmp_path / "value", content)
    assert _sysfs.read_int(path) == (expected, None)


@pytest.mark.parametrize("content, shown", [("abc\n", "'abc'"), ("", "''"), ("1.5", "'1.5'"), ("0x10", "'0x10'")])
def test_read_int_garbage(tmp_path, content, shown):
    path = write(tmp_path / "numa_node", content)
    assert _sysfs.read_int(path) == (None, "%s: %s is not an integer" % (path, shown))


def test_read_cpulist_canonical(tmp_path):
    path = write(tmp_path / "cpulist", "8,0-3,2-5\n")
    assert _cpusets.read_cpulist(path) == ("0-5,8", None)


def test_read_cpulist_garbage_names_the_file(tmp_path):
    path = write(tmp_path / "cpulist", "0-3,x\n")
    value, warning = _cpusets.read_cpulist(path)
    assert value is None
    assert warning == "%s: cpulist '0-3,x': 'x' is not a CPU id or a range 'a-b'" % path


@pytest.mark.parametrize(
    "mask, expected",
    [
        ("ff\n", "0-7"),
        ("00000000,00000001\n", "0"),
        ("0000,00000000,00000033", "0-1,4-5"),
        ("00000003,00000000\n", "32-33"),
        ("0\n", ""),
        # words shorter than 8 digits after the first: read word by word, as the kernel writes 32-bit words
        ("1,1", "0,32"),
    ],
)
def test_read_cpumask(tmp_path, mask, expected):
    path = write(tmp_path / "cpumap", mask)
    assert _cpusets.read_cpumask(path) == (expected, None)


@pytest.mark.parametrize("mask", ["ff,00000001", "ffff", "80000000,00000000,00000001", "1", "0000,00000000,00000033"])
def test_mask_ids_fast_path_agrees_with_cpulist_parse_mask(mask):
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist

    assert _cpusets.mask_ids(mask) == _cpulist.parse_mask(mask)


def test_read_cpumask_garbage(tmp_path):
    path = write(tmp_path / "cpumap", "zz,00000001")
    value, warning = _cpusets.read_cpumask(path)
    assert value is None
    assert warning == "%s: cpumask 'zz,00000001': 'zz' is not a hex word of at most 8 digits" % path


def test_read_cpus_prefers_the_list(tmp_path):
    list_path = write(tmp_path / "cpulist", "0-3")
    mask_path = write(tmp_path / "cpumap", "ff")
    assert _cpusets.read_cpus(list_path, mask_path) == ("0-3", None)


def test_read_cpus_falls_back_to_the_mask_quietly_when_the_list_is_missing(tmp_path):
    mask_path = write(tmp_path / "cpumap", "f0")
    assert _cpusets.read_cpus(str(tmp_path / "cpulist"), mask_path) == ("4-7", None)


def test_read_cpus_garbage_list_falls_back_and_says_so(tmp_path):
    list_path = write(tmp_path / "cpulist", "garbage")
    mask_path = write(tmp_path / "cpumap", "3")
    value, warning = _cpusets.read_cpus(list_path, mask_path)
    assert value == "0-1"
    assert warning == "%s: cpulist 'garbage': 'garbage' is not a CPU id or a range 'a-b'; used %s instead" % (list_path, mask_path)


def test_read_cpus_both_missing(tmp_path):
    list_path, mask_path = str(tmp_path / "cpulist"), str(tmp_path / "cpumap")
    assert _cpusets.read_cpus(list_path, mask_path) == (None, "%s: missing (and %s)" % (list_path, mask_path))


def test_read_cpus_mask_only(tmp_path):
    mask_path = write(tmp_path / "local_cpus", "ffff")
    assert _cpusets.read_cpus(None, mask_path) == ("0-15", None)


def test_list_dir(tmp_path):
    write(tmp_path / "b", "")
    write(tmp_path / "a", "")
    assert _sysfs.list_dir(str(tmp_path)) == (["a", "b"], None)
    missing = str(tmp_path / "none")
    assert _sysfs.list_dir(missing) == (None, "%s: missing" % missing)
    assert _sysfs.list_dir(str(tmp_path / "a")) == (None, "%s: not a directory" % (tmp_path / "a"))


# -- issue 7: bounded, non-blocking, inside the root, no invented CPUs ------------------


def test_nul_inside_a_cpulist_is_an_error_naming_the_file(tmp_path):
    path = write(tmp_path / "online", "0-1\x005\n")
    assert _cpusets.read_cpulist(path) == (
        None, "%s: a NUL byte at offset 3, before the end (only trailing NUL padding is ignored); not parsed" % path)


def test_trailing_nul_and_blank_padding_is_ignored(tmp_path):
    path = write(tmp_path / "online", "0-1\x00\x00\n\x00")
    assert _cpusets.read_cpulist(path) == ("0-1", None)


def test_fifo_is_not_opened(tmp_path):
    path = str(tmp_path / "online")
    os.mkfifo(path)
    assert _sysfs.read_text(path) == (None, "%s: unreadable (a FIFO, not a regular file; not opened)" % path)


def test_file_over_the_bound_is_not_read(tmp_path):
    path = write(tmp_path / "meminfo", "x" * ((1 << 20) + 1))
    value, warning = _sysfs.read_text(path)
    assert value is None
    assert warning == "%s: unreadable (%s is larger than 1048576 bytes; not read)" % (path, path)


def test_mask_longer_than_any_cpu_id_is_refused(tmp_path):
    path = write(tmp_path / "local_cpus", ",".join(["ffffffff"] * 4096) + "\n")
    value, warning = _cpusets.read_cpumask(path)
    assert value is None
    assert warning == "%s: not a cpu set (36863 characters starting %r)" % (path, "ffffffff," * 4 + "ffff...")
    with pytest.raises(_cpulist.CpuListError) as err:
        _cpusets.mask_ids("ff," * 2048 + "ff")
    assert str(err.value) == "cpumask of 2049 words: more than the 2048 words that CPU ids up to 65535 need"


def test_reads_under_a_root_resolve_links_inside_it(tmp_path):
    outside = write(tmp_path / "outside" / "online", "0-63\n")
    inside = write(tmp_path / "root" / str(outside).lstrip("/"), "0-3\n")
    link = str(tmp_path / "root" / "sys" / "online")
    os.makedirs(os.path.dirname(link))
    os.symlink(outside, link)
    up = str(tmp_path / "root" / "sys" / "up")
    os.symlink("../../outside/online", up)
    root = _sysfs.Root(str(tmp_path / "root"))
    assert _cpusets.read_cpulist(link, root) == ("0-3", None)
    assert _cpusets.read_cpulist(up, root) == (None, "%s: missing" % up)
    assert open(inside).read() == "0-3\n"


def test_root_must_be_a_path():
    with pytest.raises(_sysfs.TopologyError) as err:
        _sysfs.Root("")
    assert str(err.value) == "root '' is not a path"


def test_directory_links_out_of_the_root_are_read_inside_it(tmp_path):
    outside = tmp_path / "outside"
    write(outside / "online", "0-63\n")
    write(tmp_path / "root" / str(outside).lstrip("/") / "online", "0-1\n")
    os.makedirs(str(tmp_path / "root" / "sys"))
    os.symlink(str(outside), str(tmp_path / "root" / "sys" / "abs"))
    os.symlink("../../../outside", str(tmp_path / "root" / "sys" / "up"))
    root = _sysfs.Root(str(tmp_path / "root"))
    assert _cpusets.read_cpulist(str(tmp_path / "root" / "sys" / "abs" / "online"), root) == ("0-1", None)
    up = str(tmp_path / "root" / "sys" / "up" / "online")
    assert _cpusets.read_cpulist(up, root) == (None, "%s: missing" % up)
    assert root.list_dir(str(tmp_path / "root" / "sys" / "abs")) == (["online"], None)
    assert root.isdir(str(tmp_path / "root" / "sys" / "abs")) is True
