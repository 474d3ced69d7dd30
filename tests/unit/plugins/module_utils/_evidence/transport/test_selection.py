"""What each transport variable selects (_evidence/transport/selection.py), in the forms UCX's and NCCL's docs give."""

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.transport import selection

# Twelve HCAs, so that NCCL's prefix rule shows (mlx5_1 is also mlx5_10 and mlx5_11).
RDMA = ["mlx5_%d" % i for i in range(12)]
IFACES = ["docker0", "eth0", "eth1", "ibp26s0"]


def selected(variable, value):
    found = selection.resolve(selection.parse(variable, value), RDMA, IFACES)
    return [(item["device"], item["port"]) for item in found["selected"]], found["unmatched"], found["problems"]


def test_ucx_exact_device_and_port():
    assert selected("UCX_NET_DEVICES", "mlx5_0:1") == ([("mlx5_0", "1")], [], [])


def test_ucx_exact_is_not_a_prefix_and_a_tcp_device_is_its_interface():
    assert selected("UCX_NET_DEVICES", "mlx5_1:1,eth0") == ([("mlx5_1", "1"), ("eth0", None)], [], [])


def test_ucx_bare_rdma_device_selects_nothing_and_says_why():
    assert selected("UCX_NET_DEVICES", "mlx5_0") == ([], ["mlx5_0"], [
        "UCX_NET_DEVICES entry 'mlx5_0' names an RDMA device without its port; UCX matches UCT device names exactly, "
        "such as mlx5_0:1, so it selects nothing",
        "UCX_NET_DEVICES entry 'mlx5_0' matches no RDMA device or interface on the node (%s)" % ", ".join(RDMA + IFACES)])


def test_ucx_all_is_every_device():
    parsed = selection.parse("UCX_NET_DEVICES", "all")
    assert parsed["all"] is True
    assert [item["device"] for item in selection.resolve(parsed, RDMA, IFACES)["selected"]] == RDMA + IFACES


def test_ucx_has_no_exclusion():
    parsed = selection.parse("UCX_NET_DEVICES", "^mlx5_1:1")
    assert (parsed["exclude"], parsed["entries"][0]["name"]) == (False, "^mlx5_1")


def test_nccl_ib_hca_exclusion_is_a_prefix():
    devices, unmatched, problems = selected("NCCL_IB_HCA", "^mlx5_1")
    assert [d for d, _port in devices] == ["mlx5_0"] + ["mlx5_%d" % i for i in range(2, 10)]
    assert (unmatched, problems) == ([], [])


def test_nccl_ib_hca_exact_exclusion():
    devices, _unmatched, _problems = selected("NCCL_IB_HCA", "^=mlx5_1,mlx5_4")
    assert [d for d, _port in devices] == [d for d in RDMA if d not in ("mlx5_1", "mlx5_4")]


def test_nccl_ib_hca_exact():
    assert selected("NCCL_IB_HCA", "=mlx5_2") == ([("mlx5_2", None)], [], [])


def test_nccl_ib_hca_prefix_by_default_with_ports():
    assert selected("NCCL_IB_HCA", "mlx5_1:1") == ([("mlx5_1", "1"), ("mlx5_10", "1"), ("mlx5_11", "1")], [], [])


def test_nccl_ib_hca_newer_rail_and_plane_form():
    parsed = selection.parse("NCCL_IB_HCA", "=mlx5_0::0:0,mlx5_3:1")
    assert [(e["name"], e["port"]) for e in parsed["entries"]] == [("mlx5_0", None), ("mlx5_3", "1")]
    assert [item["device"] for item in selection.resolve(parsed, RDMA, IFACES)["selected"]] == ["mlx5_0", "mlx5_3"]


def test_nccl_ib_hca_names_no_interface():
    assert selected("NCCL_IB_HCA", "=eth0") == ([], ["eth0"], ["NCCL_IB_HCA entry 'eth0' matches no RDMA device on the node (%s)" % ", ".join(RDMA)])


def test_nccl_socket_ifname_exclusion_and_exact():
    assert selected("NCCL_SOCKET_IFNAME", "^docker")[0] == [("eth0", None), ("eth1", None), ("ibp26s0", None)]
    assert selected("NCCL_SOCKET_IFNAME", "=eth0")[0] == [("eth0", None)]
    assert selected("NCCL_SOCKET_IFNAME", "eth")[0] == [("eth0", None), ("eth1", None)]
    assert selected("NCCL_SOCKET_IFNAME", "^=docker0")[0] == [("eth0", None), ("eth1", None), ("ibp26s0", None)]


def test_unknown_variable_is_refused():
    with pytest.raises(ValueError, match="transport variable 'NCCL_DEBUG' is not one of UCX_NET_DEVICES, NCCL_IB_HCA, NCCL_SOCKET_IFNAME"):
        selection.parse("NCCL_DEBUG", "INFO")
