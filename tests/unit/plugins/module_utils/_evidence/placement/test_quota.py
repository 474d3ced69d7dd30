"""placement.quota: a cgroup's CFS limit in cpu.max form, from trees laid out as the kernel lays them out.

The v1 tree has the cpu and cpuacct controllers on mounts of their own, as this machine has them
(/proc/self/cgroup lists cpu and cpuacct apart); the other with cpu,cpuacct together, as systemd mounts them.
"""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence import nodefs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import cgroups
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.placement import quota

POD = "kubepods/pod1234/abcd"


def _write(root, path, text):
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def _v2(tmp_path, cpu_max):
    _write(tmp_path, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n")
    if cpu_max is not None:
        _write(tmp_path, "sys/fs/cgroup/%s/cpu.max" % POD, cpu_max)
    else:
        (tmp_path / "sys/fs/cgroup" / POD).mkdir(parents=True)
    return str(tmp_path), cgroups.hierarchy(str(tmp_path))


def _v1(tmp_path, mount, quota_us, period_us="100000\n"):
    (tmp_path / "sys/fs/cgroup/cpuset" / POD).mkdir(parents=True)
    _write(tmp_path, "sys/fs/cgroup/%s/%s/cpu.cfs_quota_us" % (mount, POD), quota_us)
    _write(tmp_path, "sys/fs/cgroup/%s/%s/cpu.cfs_period_us" % (mount, POD), period_us)
    return str(tmp_path), cgroups.hierarchy(str(tmp_path))


@pytest.mark.parametrize("text, expected", [("max 100000\n", "max 100000"), ("150000 100000\n", "150000 100000")])
def test_v2_cpu_max_as_the_kernel_writes_it(tmp_path, text, expected):
    root, tree = _v2(tmp_path, text)
    assert quota.read_quota(root, tree, "/" + POD) == expected


def test_v2_without_the_file_is_not_read(tmp_path):
    root, tree = _v2(tmp_path, None)
    assert quota.read_quota(root, tree, "/" + POD) is None


@pytest.mark.parametrize("mount", ["cpu", "cpu,cpuacct"])
@pytest.mark.parametrize("quota_us, expected", [("-1\n", "max 100000"), ("200000\n", "200000 100000")])
def test_v1_quota_and_period_in_the_v2_form(tmp_path, mount, quota_us, expected):
    root, tree = _v1(tmp_path, mount, quota_us)
    assert quota.read_quota(root, tree, "/" + POD) == expected


@pytest.mark.parametrize("text, message", [
    ("max\n", "sys/fs/cgroup/%s/cpu.max is 'max': cpu.max is '<quota|max> <period>'" % POD),
    ("max 100000 7\n", "sys/fs/cgroup/%s/cpu.max is 'max 100000 7': cpu.max is '<quota|max> <period>'" % POD),
])
def test_a_cpu_max_of_another_shape_is_refused_naming_the_file(tmp_path, text, message):
    root, tree = _v2(tmp_path, text)
    with pytest.raises(nodefs.EvidenceError) as caught:
        quota.read_quota(root, tree, "/" + POD)
    assert str(caught.value) == message


@pytest.mark.parametrize("text", ["-5 100000\n", "max 0\n", "max -1\n", "1e5 100000\n"])
def test_a_negative_zero_period_or_foreign_number_is_refused(tmp_path, text):
    root, tree = _v2(tmp_path, text)
    with pytest.raises(nodefs.EvidenceError) as caught:
        quota.read_quota(root, tree, "/" + POD)
    assert "/sys/fs/cgroup/%s/cpu.max" % POD in str(caught.value)


def test_v1_quota_of_another_shape_is_refused(tmp_path):
    root, tree = _v1(tmp_path, "cpu", "lots\n")
    with pytest.raises(nodefs.EvidenceError) as caught:
        quota.read_quota(root, tree, "/" + POD)
    assert "/sys/fs/cgroup/cpu/%s/cpu.cfs_quota_us" % POD in str(caught.value)


def test_v1_without_a_cpu_mount_is_not_read(tmp_path):
    (tmp_path / "sys/fs/cgroup/cpuset" / POD).mkdir(parents=True)
    assert quota.read_quota(str(tmp_path), cgroups.hierarchy(str(tmp_path)), "/" + POD) is None
