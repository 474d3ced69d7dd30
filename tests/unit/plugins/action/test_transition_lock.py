# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transition_lock action plugin in-process, against the API server double: take, refuse, check mode, release, bad input."""

from __future__ import annotations

import pytest

from ansible_collections.gpusmith.numa_gate.tests.unit.plugins.action import in_process
from ansible_collections.gpusmith.numa_gate.plugins.action import transition_lock as action_file

T1, T2 = "20261204T090000Z", "20261204T100000Z"


@pytest.fixture(name="double")
def fixture_double():
    with in_process.api_double() as started:
        yield started


@pytest.fixture(name="kubeconfig")
def fixture_kubeconfig(double, tmp_path):
    return double.write_kubeconfig(tmp_path / "kubeconfig")


def lease_writes(double):
    return [(m, p) for m, p in double.requests if m != "GET" and "/leases" in p]


def test_held_refused_for_another_and_released(double, kubeconfig):
    held = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n1", "transition": T1})
    assert (held["changed"], held["lock_action"], held["holder"], held["duration_s"]) == (True, "created", "gpusmith.numa_gate/n1/" + T1, 900)
    other = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n1", "transition": T2})
    assert other["failed"] is True and other["changed"] is False
    assert other["msg"].startswith("node n1 is held for maintenance by gpusmith.numa_gate/n1/%s since %s (Lease kube-system/gpusmith-numa-gate-n1, "
                                   % (T1, held["acquired"]))
    assert other["holder"] == "gpusmith.numa_gate/n1/" + T1
    released = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n1", "transition": T1, "state": "released"})
    assert (released["changed"], released["lock_action"]) == (True, "released")
    assert lease_writes(double) == [("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"),
                                    ("DELETE", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/gpusmith-numa-gate-n1")]


def test_check_mode_says_what_it_would_do_and_writes_nothing(double, kubeconfig):
    would = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n1", "transition": T1}, check_mode=True)
    assert (would["changed"], would["lock_action"]) == (True, "created")
    assert lease_writes(double) == []


def test_bad_input_is_refused_before_any_request(double, kubeconfig):
    bad = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n1", "transition": "../x"})
    assert bad["failed"] is True
    assert bad["msg"] == "transition id '../x' must be 1-64 letters, digits, '.', '_' or '-', not starting with a punctuation mark"
    assert double.requests == []


def test_auto_takes_a_nodemaintenance_where_its_crd_is_served_and_lease_chooses_the_lease(double, kubeconfig):
    double.install_node_maintenance(grant_after=0)
    held = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n1", "transition": T1, "poll": 0.1})
    assert (held["changed"], held["lock_kind"], held["lock_action"], held["maintenance"], held["phase"]) == (
        True, "NodeMaintenance", "created", "default/gpusmith-numa-gate-n1", "Ready")
    leased = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n2", "transition": T1, "kind": "lease"})
    assert (leased["lock_kind"], leased["lock_action"], leased["lease"]) == ("Lease", "created", "kube-system/gpusmith-numa-gate-n2")
    released = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n1", "transition": T1, "state": "released"})
    assert (released["changed"], released["lock_kind"], released["lock_action"]) == (True, "NodeMaintenance", "released")
    assert [(m, p) for m, p in double.requests if m != "GET"] == [
        ("POST", "/apis/maintenance.nvidia.com/v1alpha1/namespaces/default/nodemaintenances"),
        ("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"),
        ("DELETE", "/apis/maintenance.nvidia.com/v1alpha1/namespaces/default/nodemaintenances/gpusmith-numa-gate-n1")]


def test_node_maintenance_asked_where_no_crd_is_served_is_refused_writing_nothing(double, kubeconfig):
    refused = in_process.run(action_file, {"kubeconfig": kubeconfig, "node": "n1", "transition": T1, "kind": "node_maintenance"})
    assert (refused["failed"], refused["changed"]) == (True, False)
    assert refused["msg"] == ("kind node_maintenance needs the NVIDIA Maintenance Operator's NodeMaintenance CRD, and the API serves no nodemaintenances "
                              "in maintenance.nvidia.com/v1alpha1; nothing was changed (kind auto or lease takes a Lease)")
    assert double.requests == [("GET", "/apis/maintenance.nvidia.com/v1alpha1")]
