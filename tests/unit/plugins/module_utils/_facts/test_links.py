"""Unit tests for links inside a root (_facts/links.py): real symlinks and snapshot link stubs, never leaving the root."""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import links


def write(path, content, mode="w"):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), mode) as handle:
        handle.write(content)
    return str(path)


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
    assert links.resolve(str(tmp_path), "sys/class/net/eth0/device") == (str(device), None)
    assert links.resolve(str(tmp_path), "sys/class/net/eth0/device/numa_node") == (str(device / "numa_node"), None)


@pytest.mark.parametrize("link", [real_symlink, link_stub], ids=["symlinks", "links-stored-as-files"])
def test_link_basename_names_a_dangling_link(tmp_path, link):
    # Snapshots copy the device tree but not /sys/bus/pci/drivers: the link's own text still names the driver.
    make_pci_tree(tmp_path, link)
    assert links.resolve(str(tmp_path), "sys/class/net/eth0/device/driver")[0] is None
    assert links.link_basename(str(tmp_path), "sys/class/net/eth0/device/driver") == ("virtio-pci", None)


@pytest.mark.parametrize("link", [real_symlink, link_stub], ids=["symlinks", "links-stored-as-files"])
def test_link_basename_missing_link(tmp_path, link):
    device = make_pci_tree(tmp_path, link)
    os.remove(str(device / "driver"))
    name, warning = links.link_basename(str(tmp_path), "sys/class/net/eth0/device/driver")
    assert name is None
    assert warning == "%s: missing" % (device / "driver")


def test_link_basename_parent_missing(tmp_path):
    make_pci_tree(tmp_path, real_symlink)
    name, warning = links.link_basename(str(tmp_path), "sys/class/net/eth9/device/driver")
    assert name is None
    assert warning == "%s: missing (no such file)" % (tmp_path / "sys/class/net/eth9/device")


def test_link_basename_of_a_plain_file_is_not_a_link(tmp_path):
    device = make_pci_tree(tmp_path, link_stub)
    name, warning = links.link_basename(str(tmp_path), "sys/class/net/eth0/device/numa_node")
    assert name is None
    assert warning == "%s: not a link" % (device / "numa_node")


def test_link_basename_target_that_names_nothing(tmp_path):
    os.makedirs(str(tmp_path / "sys"))
    os.symlink("../..", str(tmp_path / "sys" / "driver"))
    assert links.link_basename(str(tmp_path), "sys/driver") == (None, "%s: link target '../..' names nothing" % (tmp_path / "sys" / "driver"))


def test_read_link(tmp_path):
    os.symlink("../bus/pci/drivers/i40e/", str(tmp_path / "symlink"))
    write(tmp_path / "stub", "../bus/pci/drivers/i40e\n")
    write(tmp_path / "plain", "0x030000\n")
    assert links.read_link(str(tmp_path / "symlink")) == ("../bus/pci/drivers/i40e/", None)
    assert links.read_link(str(tmp_path / "stub")) == ("../bus/pci/drivers/i40e", None)
    assert links.read_link(str(tmp_path / "stub"), link_stubs=False) == (None, "%s: not a link" % (tmp_path / "stub"))
    assert links.read_link(str(tmp_path / "plain")) == (None, "%s: not a link" % (tmp_path / "plain"))
    assert links.read_link(str(tmp_path / "none")) == (None, "%s: missing" % (tmp_path / "none"))
    assert links.read_link(str(tmp_path / "plain" / "x")) == (None, "%s: missing (a parent is not a directory)" % (tmp_path / "plain" / "x"))


def test_link_basename_existing_target(tmp_path):
    make_pci_tree(tmp_path, real_symlink)
    os.makedirs(str(tmp_path / "sys" / "bus" / "pci" / "drivers" / "virtio-pci"))
    assert links.link_basename(str(tmp_path), "sys/class/net/eth0/device/driver") == ("virtio-pci", None)


def test_resolve_never_leaves_the_root(tmp_path):
    root = tmp_path / "root"
    write(tmp_path / "secret", "outside")
    write(root / "etc" / "secret", "inside")
    os.makedirs(str(root / "sys"))
    os.symlink("../../../../secret", str(root / "sys" / "up"))
    os.symlink("/etc/secret", str(root / "sys" / "absolute"))
    # ".." stops at the root, and an absolute target is taken relative to the root, as in a chroot
    assert links.resolve(str(root), "sys/up") == (None, "%s: missing (dangling link)" % (root / "sys/up"))
    assert links.resolve(str(root), "sys/absolute") == (str(root / "etc" / "secret"), None)


def test_resolve_link_loop(tmp_path):
    os.symlink("b", str(tmp_path / "a"))
    os.symlink("a", str(tmp_path / "b"))
    assert links.resolve(str(tmp_path), "a") == (None, "%s: too many levels of links" % (tmp_path / "a"))


def test_resolve_file_in_the_middle(tmp_path):
    write(tmp_path / "sys" / "class", "0x030000\n")
    path, warning = links.resolve(str(tmp_path), "sys/class/net")
    assert path is None
    assert warning == "%s: missing (%s is not a directory)" % (tmp_path / "sys/class/net", tmp_path / "sys" / "class")


def test_stub_content_that_is_not_a_path_is_a_plain_file(tmp_path):
    path = write(tmp_path / "sys" / "device", "0x1041\n")
    assert links.resolve(str(tmp_path), "sys/device") == (path, None)


def test_stubs_are_off_for_the_real_root_by_default(tmp_path):
    # On "/" links are real symlinks; a file holding a path stays a file there.
    make_pci_tree(tmp_path, link_stub)
    path, warning = links.resolve(str(tmp_path), "sys/class/net/eth0/device", link_stubs=False)
    assert path is None
    assert warning.endswith("is not a directory)")
