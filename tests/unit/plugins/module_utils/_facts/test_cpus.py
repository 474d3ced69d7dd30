"""CPU sets (_facts/cpus.py): online detection as hwloc reads it (issue 6), stray cpu directories, hostile cpu/online files."""

import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts.gather import TopologyError, gather
from ansible_collections.gpusmith.numa_gate.tests.unit import shared_paths
from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.module_utils._facts import trees

H200 = shared_paths.H200_VM
HWLOC_32 = os.path.join(shared_paths.HWLOC, "32intel64-2p8co2t+8ve")
ONLINE_RULE = "counted as online (a cpu is offline only when its online file says 0)"


def cpu_dir(root):
    return os.path.join(str(root), "sys/devices/system/cpu")


def without_cpu_online(tmp_path, source, per_cpu):
    """A copy of ``source`` without cpu/online, each existing cpuN/online file holding ``per_cpu``."""
    root = trees.copy_snapshot(tmp_path, source)
    trees.remove(os.path.join(cpu_dir(root), "online"))
    for name in os.listdir(cpu_dir(root)):
        path = os.path.join(cpu_dir(root), name, "online")
        if name.startswith("cpu") and name[3:].isdigit() and os.path.exists(path):
            trees.replace(path, per_cpu)
    return root


def test_empty_per_cpu_online_files_count_as_online(tmp_path):
    """The held-out snapshot of issue 6: cpu/online missing, every cpuN/online empty -> all online, one warning."""
    root = without_cpu_online(tmp_path, H200, "")
    facts = gather(str(root), gpu_source="none")
    assert facts["cpus"]["online"] == "0-15"
    assert facts["cpus"]["offline"] == ""
    assert facts["cpus"]["logical"] == 16
    assert facts["numa_nodes"][0]["cpus"] == "0-15"
    assert len(facts["cores"]) == 16
    # cpu0 has no online file in this snapshot (as on most kernels): online without a word
    assert [w for w in facts["warnings"] if "cpuN/online" in w] == [
        "%s/cpuN/online is empty or neither 0 nor 1; %s for cpus 1-15" % (cpu_dir(root), ONLINE_RULE)]


def test_garbage_per_cpu_online_files_count_as_online(tmp_path):
    root = without_cpu_online(tmp_path, HWLOC_32, "yes\n")  # this snapshot has cpu0/online too
    facts = gather(str(root), gpu_source="none")
    assert facts["cpus"]["online"] == "0-31"
    assert facts["cpus"]["logical"] == 32
    assert [w for w in facts["warnings"] if "cpuN/online" in w] == [
        "%s/cpuN/online is empty or neither 0 nor 1; %s for cpus 0-31" % (cpu_dir(root), ONLINE_RULE)]


def test_only_zero_means_offline(tmp_path):
    root = without_cpu_online(tmp_path, H200, "1\n")
    trees.replace(os.path.join(cpu_dir(root), "cpu3", "online"), "0\n")
    trees.replace(os.path.join(cpu_dir(root), "cpu4", "online"), "2\n")
    trees.replace(os.path.join(cpu_dir(root), "cpu5", "online"), "")
    facts = gather(str(root), gpu_source="none")
    assert facts["cpus"]["online"] == "0-2,4-15"
    assert facts["cpus"]["offline"] == "3"
    assert [w for w in facts["warnings"] if "cpuN/online" in w] == [
        "%s/cpuN/online is empty or neither 0 nor 1; %s for cpus 4-5" % (cpu_dir(root), ONLINE_RULE)]


def test_no_online_cpu_fails(tmp_path):
    root = without_cpu_online(tmp_path, H200, "0\n")
    trees.replace(os.path.join(cpu_dir(root), "cpu0", "online"), "0\n")
    with pytest.raises(TopologyError) as err:
        gather(str(root), gpu_source="none")
    assert str(err.value) == (
        "%s: cpus 0-15 exist but none is online (cpu/online is missing or unreadable and every cpuN/online file says 0); "
        "no topology facts without an online cpu" % cpu_dir(root))


def test_stray_huge_cpu_directory_is_named_and_the_rest_kept(tmp_path):
    """Issue 7 rule 9: one cpuNNNNNNNN directory (no topology) with no cpu/online does not cost every fact."""
    root = trees.copy_snapshot(tmp_path, H200)
    trees.remove(os.path.join(cpu_dir(root), "online"))
    os.makedirs(os.path.join(cpu_dir(root), "cpu99999999"))
    facts = gather(str(root), gpu_source="none")
    assert facts["cpus"]["online"] == "0-15"
    assert facts["cpus"]["present"] == "0-15"
    assert len(facts["cores"]) == 16
    assert ("%s: ignored the directories cpu99999999: CPU ids above the limit 65535 are not CPUs" % cpu_dir(root)) in facts["warnings"]


def test_cpu_online_fifo_does_not_block(tmp_path):
    """Issue 7 rule 3: a FIFO where cpu/online is expected is a warning naming it, read never blocks."""
    root = trees.copy_snapshot(tmp_path, H200)
    online = os.path.join(cpu_dir(root), "online")
    trees.remove(online)
    os.mkfifo(online)
    facts = trees.within(20, gather, str(root), gpu_source="none")
    assert facts["cpus"]["online"] == "0-15"
    assert "%s: unreadable (a FIFO, not a regular file; not opened); used the cpuN/online files instead" % online in facts["warnings"]


def test_per_cpu_online_fifo_does_not_block(tmp_path):
    root = without_cpu_online(tmp_path, H200, "1\n")
    path = os.path.join(cpu_dir(root), "cpu7", "online")
    trees.remove(path)
    os.mkfifo(path)
    facts = trees.within(20, gather, str(root), gpu_source="none")
    assert facts["cpus"]["online"] == "0-15"
    assert ("%s: unreadable (a FIFO, not a regular file; not opened); cpu7 %s" % (path, ONLINE_RULE)) in facts["warnings"]


def test_nul_inside_cpu_online_is_an_error_not_cpus(tmp_path):
    """Issue 7 rule 9: '0-1\\x005' is not CPUs 0-1005; the file is named and the cpuN files are used."""
    root = trees.copy_snapshot(tmp_path, H200)
    online = os.path.join(cpu_dir(root), "online")
    trees.replace(online, "0-1\x005\n")
    facts = gather(str(root), gpu_source="none")
    assert facts["cpus"]["online"] == "0-15"
    assert ("%s: a NUL byte at offset 3, before the end (only trailing NUL padding is ignored); not parsed; used the cpuN/online files instead"
            % online) in facts["warnings"]
