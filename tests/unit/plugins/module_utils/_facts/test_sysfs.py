"""Unit tests for the safe sysfs readers (_sysfs): values or a warning, never an exception."""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import sysfs as _sysfs


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

    def denied(name, flags, *args):
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
    assert _sysfs.read_cpulist(path) == ("0-5,8", None)


def test_read_cpulist_garbage_names_the_file(tmp_path):
    path = write(tmp_path / "cpulist", "0-3,x\n")
    value, warning = _sysfs.read_cpulist(path)
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
    assert _sysfs.read_cpumask(path) == (expected, None)


@pytest.mark.parametrize("mask", ["ff,00000001", "ffff", "80000000,00000000,00000001", "1", "0000,00000000,00000033"])
def test_mask_ids_fast_path_agrees_with_cpulist_parse_mask(mask):
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist

    assert _sysfs.mask_ids(mask) == _cpulist.parse_mask(mask)


def test_read_cpumask_garbage(tmp_path):
    path = write(tmp_path / "cpumap", "zz,00000001")
    value, warning = _sysfs.read_cpumask(path)
    assert value is None
    assert warning == "%s: cpumask 'zz,00000001': 'zz' is not a hex word of at most 8 digits" % path


def test_read_cpus_prefers_the_list(tmp_path):
    list_path = write(tmp_path / "cpulist", "0-3")
    mask_path = write(tmp_path / "cpumap", "ff")
    assert _sysfs.read_cpus(list_path, mask_path) == ("0-3", None)


def test_read_cpus_falls_back_to_the_mask_quietly_when_the_list_is_missing(tmp_path):
    mask_path = write(tmp_path / "cpumap", "f0")
    assert _sysfs.read_cpus(str(tmp_path / "cpulist"), mask_path) == ("4-7", None)


def test_read_cpus_garbage_list_falls_back_and_says_so(tmp_path):
    list_path = write(tmp_path / "cpulist", "garbage")
    mask_path = write(tmp_path / "cpumap", "3")
    value, warning = _sysfs.read_cpus(list_path, mask_path)
    assert value == "0-1"
    assert warning == "%s: cpulist 'garbage': 'garbage' is not a CPU id or a range 'a-b'; used %s instead" % (list_path, mask_path)


def test_read_cpus_both_missing(tmp_path):
    list_path, mask_path = str(tmp_path / "cpulist"), str(tmp_path / "cpumap")
    assert _sysfs.read_cpus(list_path, mask_path) == (None, "%s: missing (and %s)" % (list_path, mask_path))


def test_read_cpus_mask_only(tmp_path):
    mask_path = write(tmp_path / "local_cpus", "ffff")
    assert _sysfs.read_cpus(None, mask_path) == ("0-15", None)


def test_list_dir(tmp_path):
    write(tmp_path / "b", "")
    write(tmp_path / "a", "")
    assert _sysfs.list_dir(str(tmp_path)) == (["a", "b"], None)
    missing = str(tmp_path / "none")
    assert _sysfs.list_dir(missing) == (None, "%s: missing" % missing)
    assert _sysfs.list_dir(str(tmp_path / "a")) == (None, "%s: not a directory" % (tmp_path / "a"))


def make_pci_tree(root, link):
    """A tiny sysfs with /sys/class/net/eth0 -> the PCI function, links made by `link`."""
    device = root / "sys" / "devices" / "pci0000:00" / "0000:00:03.0"
    write(device / "numa_node", "0\n")
    os.makedirs(str(device / "net" / "eth0"))
    link("../../../0000:00:03.0", device / "net" / "eth0" / "device")
    link("../../../bus/pci/drivers/virtio-pci", device / "driver")
    os.makedirs(str(root / "sys" / "class" / "net"))
    link("../../devices/pci0000:00/0000:00:03.0/net/eth0", root / "sys" / "class" / "net" / "eth0")
    return device


def real_symlink(target, path):
    os.symlink(target, str(path))


def link_stub(target, path):
    write(path, target)


@pytest.mark.parametrize("link", [real_symlink, link_stub], ids=["symlinks", "links-stored-as-files"])
def test_resolve_follows_relative_links_and_stubs(tmp_path, link):
    device = make_pci_tree(tmp_path, link)
    assert _sysfs.resolve(str(tmp_path), "sys/class/net/eth0/device") == (str(device), None)
    assert _sysfs.resolve(str(tmp_path), "sys/class/net/eth0/device/numa_node") == (str(device / "numa_node"), None)


@pytest.mark.parametrize("link", [real_symlink, link_stub], ids=["symlinks", "links-stored-as-files"])
def test_link_basename_names_a_dangling_link(tmp_path, link):
    # Snapshots copy the device tree but not /sys/bus/pci/drivers: the link's own text still names the driver.
    make_pci_tree(tmp_path, link)
    assert _sysfs.resolve(str(tmp_path), "sys/class/net/eth0/device/driver")[0] is None
    assert _sysfs.link_basename(str(tmp_path), "sys/class/net/eth0/device/driver") == ("virtio-pci", None)


@pytest.mark.parametrize("link", [real_symlink, link_stub], ids=["symlinks", "links-stored-as-files"])
def test_link_basename_missing_link(tmp_path, link):
    device = make_pci_tree(tmp_path, link)
    os.remove(str(device / "driver"))
    name, warning = _sysfs.link_basename(str(tmp_path), "sys/class/net/eth0/device/driver")
    assert name is None
    assert warning == "%s: missing" % (device / "driver")


def test_link_basename_parent_missing(tmp_path):
    make_pci_tree(tmp_path, real_symlink)
    name, warning = _sysfs.link_basename(str(tmp_path), "sys/class/net/eth9/device/driver")
    assert name is None
    assert warning == "%s: missing (no such file)" % (tmp_path / "sys/class/net/eth9/device")


def test_link_basename_of_a_plain_file_is_not_a_link(tmp_path):
    device = make_pci_tree(tmp_path, link_stub)
    name, warning = _sysfs.link_basename(str(tmp_path), "sys/class/net/eth0/device/numa_node")
    assert name is None
    assert warning == "%s: not a link" % (device / "numa_node")


def test_link_basename_target_that_names_nothing(tmp_path):
    os.makedirs(str(tmp_path / "sys"))
    os.symlink("../..", str(tmp_path / "sys" / "driver"))
    assert _sysfs.link_basename(str(tmp_path), "sys/driver") == (None, "%s: link target '../..' names nothing" % (tmp_path / "sys" / "driver"))


def test_read_link(tmp_path):
    os.symlink("../bus/pci/drivers/i40e/", str(tmp_path / "symlink"))
    write(tmp_path / "stub", "../bus/pci/drivers/i40e\n")
    write(tmp_path / "plain", "0x030000\n")
    assert _sysfs.read_link(str(tmp_path / "symlink")) == ("../bus/pci/drivers/i40e/", None)
    assert _sysfs.read_link(str(tmp_path / "stub")) == ("../bus/pci/drivers/i40e", None)
    assert _sysfs.read_link(str(tmp_path / "stub"), link_stubs=False) == (None, "%s: not a link" % (tmp_path / "stub"))
    assert _sysfs.read_link(str(tmp_path / "plain")) == (None, "%s: not a link" % (tmp_path / "plain"))
    assert _sysfs.read_link(str(tmp_path / "none")) == (None, "%s: missing" % (tmp_path / "none"))
    assert _sysfs.read_link(str(tmp_path / "plain" / "x")) == (None, "%s: missing (a parent is not a directory)" % (tmp_path / "plain" / "x"))


def test_link_basename_existing_target(tmp_path):
    make_pci_tree(tmp_path, real_symlink)
    os.makedirs(str(tmp_path / "sys" / "bus" / "pci" / "drivers" / "virtio-pci"))
    assert _sysfs.link_basename(str(tmp_path), "sys/class/net/eth0/device/driver") == ("virtio-pci", None)


def test_resolve_never_leaves_the_root(tmp_path):
    root = tmp_path / "root"
    write(tmp_path / "secret", "outside")
    write(root / "etc" / "secret", "inside")
    os.makedirs(str(root / "sys"))
    os.symlink("../../../../secret", str(root / "sys" / "up"))
    os.symlink("/etc/secret", str(root / "sys" / "absolute"))
    # ".." stops at the root, and an absolute target is taken relative to the root, as in a chroot
    assert _sysfs.resolve(str(root), "sys/up") == (None, "%s: missing (dangling link)" % (root / "sys/up"))
    assert _sysfs.resolve(str(root), "sys/absolute") == (str(root / "etc" / "secret"), None)


def test_resolve_link_loop(tmp_path):
    os.symlink("b", str(tmp_path / "a"))
    os.symlink("a", str(tmp_path / "b"))
    assert _sysfs.resolve(str(tmp_path), "a") == (None, "%s: too many levels of links" % (tmp_path / "a"))


def test_resolve_file_in_the_middle(tmp_path):
    write(tmp_path / "sys" / "class", "0x030000\n")
    path, warning = _sysfs.resolve(str(tmp_path), "sys/class/net")
    assert path is None
    assert warning == "%s: missing (%s is not a directory)" % (tmp_path / "sys/class/net", tmp_path / "sys" / "class")


def test_stub_content_that_is_not_a_path_is_a_plain_file(tmp_path):
    path = write(tmp_path / "sys" / "device", "0x1041\n")
    assert _sysfs.resolve(str(tmp_path), "sys/device") == (path, None)


def test_stubs_are_off_for_the_real_root_by_default(tmp_path):
    # On "/" links are real symlinks; a file holding a path stays a file there.
    make_pci_tree(tmp_path, link_stub)
    path, warning = _sysfs.resolve(str(tmp_path), "sys/class/net/eth0/device", link_stubs=False)
    assert path is None
    assert warning.endswith("is not a directory)")
