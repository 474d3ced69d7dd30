# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""allocations: the overlap of containers' exclusive CPUs in one pass, one finding per container at most, and at most 64
(issue 29, class 3). Through ansible-playbook with 3000 containers: tests/playbooks/test_bounds_round_three.py."""

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import allocations


def pod(*cpu_ids):
    containers = [{"name": "c%d" % index, "cpu_ids": cpus, "memory": [], "devices": [], "dynamic_resources": []}
                  for index, cpus in enumerate(cpu_ids)]
    return [{"name": "web", "namespace": "default", "cpu_ids": "", "memory": [], "containers": containers}]


def messages(pods):
    return [f["message"] for f in allocations.reconcile_allocations(pods, "container", "0-127")["pods"][0]["findings"]]


def test_two_containers_sharing_cpus_keep_their_message():
    assert messages(pod("0-3", "2-5")) == ["pod default/web: containers c0 and c1 both hold exclusive CPUs 2-3 (PodResources cpu_ids)"]


def test_a_container_overlapping_two_earlier_ones_is_one_finding_naming_both_sets():
    assert messages(pod("0-1", "4-5", "1-4")) == [
        "pod default/web: containers c0 and c2 both hold exclusive CPUs 1 (PodResources cpu_ids) and CPUs 4 of other containers"]


def test_findings_end_at_64_with_a_count():
    found = messages(pod(*["0-7"] * 200))
    assert len(found) == 65
    assert found[-1] == "pod default/web: 135 more containers hold exclusive CPUs an earlier container holds (findings end at 64)"


def test_no_overlap_no_finding():
    assert messages(pod("0-1", "2-3", "")) == []
