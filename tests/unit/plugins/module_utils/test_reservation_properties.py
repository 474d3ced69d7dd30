"""Property tests for the reservation planner over generated topologies.

Machines with 1-8 NUMA nodes (some without CPUs, some without memory), SMT off/2/4, two
CPU numbering schemes, offline and isolated CPUs, GPUs and NICs on random nodes (or on
none), and random policies. Whatever the planner returns must keep every rule; it may
refuse only when the numbers really do not fit.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _kubelet_validation
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._quantity import to_bytes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._reservation import PlanError, reservation_plan

MI = 1 << 20
GI = 1 << 30
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def topologies(draw):
    nodes = draw(st.integers(1, 8))
    cores_per_node = draw(st.lists(st.integers(0, 5), min_size=nodes, max_size=nodes).filter(any))
    smt = draw(st.sampled_from([1, 2, 4]))
    interleaved = draw(st.booleans())
    packages = draw(st.sampled_from(["per-node", "one", "pairs"]))
    total_cores = sum(cores_per_node)
    all_cpus = list(range(total_cores * smt))
    offline = set(draw(st.lists(st.sampled_from(all_cpus), max_size=max(0, len(all_cpus) // 3), unique=True)))
    if len(offline) == len(all_cpus):
        offline.discard(all_cpus[0])
    online = [cpu for cpu in all_cpus if cpu not in offline]
    isolated = set(draw(st.lists(st.sampled_from(online), max_size=len(online) // 3, unique=True)))
    keep_offline_in_cores = draw(st.booleans())
    cores, numa_nodes = [], []
    core = 0
    for node in range(nodes):
        node_cpus = []
        for _index in range(cores_per_node[node]):
            cpus = [core + t * total_cores if interleaved else core * smt + t for t in range(smt)]
            listed = [c for c in cpus if keep_offline_in_cores or c not in offline]
            node_cpus += [c for c in cpus if c not in offline]
            if listed:
                package = {"per-node": node, "one": 0, "pairs": node // 2}[packages]
                cores.append({"package": package, "core": core, "cpus": _cpulist.format(listed), "numa_node": node})
            core += 1
        memory = draw(st.sampled_from([0, 512 * MI, 2 * GI, 8 * GI, 8 * GI + 12345, 64 * GI]))
        pages = draw(st.integers(0, 2))
        numa_nodes.append({"id": node, "cpus": _cpulist.format(node_cpus), "memory_bytes": memory,
                           "hugepages": {"1048576kB": {"total": pages if memory >= 4 * GI else 0, "free": 0}, "2048kB": {"total": 0, "free": 0}},
                           "distances": {}})
    device_nodes = st.one_of(st.none(), st.integers(0, nodes - 1))
    gpus = [{"pci_address": "0000:%02x:00.0" % i, "numa_node": draw(device_nodes)} for i in range(draw(st.integers(0, 3)))]
    nics = [{"name": "ens%d" % i, "numa_node": draw(device_nodes)} for i in range(draw(st.integers(0, 2)))]
    return {
        "schema_version": 1,
        "cpus": {"online": _cpulist.format(online), "offline": _cpulist.format(offline), "isolated": _cpulist.format(isolated)},
        "cores": cores,
        "numa_nodes": numa_nodes,
        "gpus": gpus,
        "nics": nics,
    }


@st.composite
def policies(draw):
    policy = {"strategy": draw(st.sampled_from(["spread", "compact", "device-aware"]))}
    if draw(st.booleans()):
        policy["reserved_cpus"] = draw(st.integers(1, 12))
    if draw(st.booleans()):
        policy["system_reserved"] = {"memory": draw(st.sampled_from(["0", "1Gi", "1500Mi", "1000000001", "3G"]))}
    if draw(st.booleans()):
        policy["kube_reserved"] = {"memory": draw(st.sampled_from(["256Mi", "77777"])), "cpu": "500m"}
    policy["eviction_hard"] = draw(st.sampled_from([None, {"memory.available": "100Mi"}, {"memory.available": "5%"},
                                                    {"memory.available": "7.5%", "nodefs.available": "10%"}, {"nodefs.available": "10%"}]))
    return policy


def _usable_cores(facts):
    online = set(_cpulist.parse(facts["cpus"]["online"]))
    isolated = set(_cpulist.parse(facts["cpus"]["isolated"]))
    result = {}
    for core in facts["cores"]:
        cpus = set(_cpulist.parse(core["cpus"])) & online
        if cpus and not cpus & isolated:
            result.setdefault(core["numa_node"], []).append(frozenset(cpus))
    return result


def _memory_config(policy):
    config = {"kubeReserved": policy.get("kube_reserved", {}), "systemReserved": policy.get("system_reserved", {})}
    if policy.get("eviction_hard") is not None:
        config["evictionHard"] = policy["eviction_hard"]
    return config


def _node_capacity(facts):
    return {n["id"]: max(0, n["memory_bytes"] - n["hugepages"]["1048576kB"]["total"] * GI) for n in facts["numa_nodes"]}


@PROPERTY_SETTINGS
@given(topologies(), policies())
def test_every_plan_keeps_the_rules(facts, policy):
    total_memory = sum(n["memory_bytes"] for n in facts["numa_nodes"])
    needed_memory = _kubelet_validation.reserved_memory_total(_memory_config(policy), total_memory)
    usable = _usable_cores(facts)
    count = policy.get("reserved_cpus", 2)
    try:
        plan = reservation_plan(facts, policy)
    except PlanError as exc:
        spare_cores = sum(len(cores) - 1 for cores in usable.values())
        capacity = sum(_node_capacity(facts).values())
        # a refusal only when the CPUs, the memory or the reservation itself do not fit
        assert count > spare_cores or needed_memory > capacity or needed_memory == 0, str(exc)
        return

    online = set(_cpulist.parse(facts["cpus"]["online"]))
    isolated = set(_cpulist.parse(facts["cpus"]["isolated"]))
    reserved = set(_cpulist.parse(plan["reserved"]["cpus"]))
    # reserved within online - isolated, at least what was asked, whole cores, never a core split
    assert reserved <= online - isolated
    assert len(reserved) >= count
    for core in facts["cores"]:
        cpus = set(_cpulist.parse(core["cpus"])) & online
        assert not cpus & reserved or cpus <= reserved
    # at least one whole allocatable core left on every node that had one
    for node, cores in usable.items():
        assert any(not core & reserved for core in cores), node
        assert plan["allocatable"][str(node)]["whole_cores"] >= 1
    # reservedMemory sums exactly, per node within memory less hugepage pools, no zero or duplicate entries
    entries = plan["kubelet_settings"]["reservedMemory"]
    assert [e["numaNode"] for e in entries] == sorted(set(e["numaNode"] for e in entries))
    amounts = {e["numaNode"]: to_bytes(e["limits"]["memory"]) for e in entries}
    assert all(list(e["limits"]) == ["memory"] for e in entries)
    assert sum(amounts.values()) == needed_memory
    assert all(amount > 0 for amount in amounts.values())
    capacity = _node_capacity(facts)
    assert all(amounts[node] <= capacity[node] for node in amounts)
    assert plan["reserved"]["memory_bytes"] == {str(node): amount for node, amount in amounts.items()}
    # memory goes where the reserved CPUs are, unless those nodes are full
    cpu_nodes = set(int(node) for node in plan["reserved"]["by_numa"])
    for node in set(amounts) - cpu_nodes:
        assert all(amounts.get(n, 0) == capacity[n] for n in cpu_nodes)
    # the kubelet's own rules hold on this node
    node = {"online_cpus": facts["cpus"]["online"], "numa_nodes": {n["id"]: n["memory_bytes"] for n in facts["numa_nodes"]}}
    assert _kubelet_validation.validate(plan["kubelet_settings"], node) == []


@PROPERTY_SETTINGS
@given(topologies(), policies(), st.randoms(use_true_random=False))
def test_plans_are_deterministic_and_ignore_list_order(facts, policy, rnd):
    try:
        first = reservation_plan(facts, policy)
    except PlanError as exc:
        first = str(exc)
    shuffled = dict(facts)
    for key in ("cores", "numa_nodes", "gpus", "nics"):
        shuffled[key] = rnd.sample(facts[key], len(facts[key]))
    for candidate in (facts, shuffled):
        try:
            again = reservation_plan(candidate, policy)
        except PlanError as exc:
            again = str(exc)
        assert again == first


@PROPERTY_SETTINGS
@given(topologies(), st.data())
def test_explicit_list_of_a_plan_gives_the_same_reservation(facts, data):
    policy = {"reserved_cpus": data.draw(st.integers(1, 6)), "strategy": data.draw(st.sampled_from(["spread", "compact"]))}
    try:
        plan = reservation_plan(facts, policy)
    except PlanError:
        return
    again = reservation_plan(facts, {"reserved_cpu_list": plan["reserved"]["cpus"]})
    assert again["reserved"] == plan["reserved"]
    assert again["kubelet_settings"] == plan["kubelet_settings"]
