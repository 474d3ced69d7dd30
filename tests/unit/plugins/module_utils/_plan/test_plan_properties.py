"""Property tests for the reservation planner over generated topologies.

Machines with 1-8 NUMA nodes (some without CPUs, some without memory), SMT off/2/4, two
CPU numbering schemes, offline and isolated CPUs, GPUs and NICs on random nodes (or on
none), a MemTotal a little above the NUMA nodes' sum, random policies, and a random main
kubelet file on the node. Whatever the planner returns must keep every rule once merged
as the kubelet_config module merges it (main file, then the plan as a drop-in); it may
refuse only when the numbers really do not fit.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge as _kubelet_merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import allocatable as _allocatable
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate as _validate
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema as _schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.quantity import to_bytes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.plan import PlanError, reservation_plan

MI = 1 << 20
GI = 1 << 30
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAIN = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-gate.conf"


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
        # MemTotal: the kernel's own share is in no NUMA node's MemTotal, so it differs from their sum.
        "memory_bytes": sum(n["memory_bytes"] for n in numa_nodes) + draw(st.sampled_from([1, 3, 7])) * MI,
    }


@st.composite
def main_files(draw):
    """The node's main kubelet file: empty, or with its own reservations and eviction thresholds."""
    doc = dict(MAIN)
    if draw(st.booleans()):
        doc["kubeReserved"] = {"memory": draw(st.sampled_from(["512Mi", "1G"]))}
        if draw(st.booleans()):
            doc["kubeReserved"]["cpu"] = "1"
    if draw(st.booleans()):
        doc["systemReserved"] = {"memory": draw(st.sampled_from(["256Mi", "300000000"]))}
    eviction = draw(st.sampled_from([None, {"memory.available": "300Mi"}, {"memory.available": "2%", "nodefs.available": "10%"},
                                     {"nodefs.available": "10%"}]))
    if eviction is not None:
        doc["evictionHard"] = eviction
    return doc


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


def _policy_dropin(policy):
    """The reservation part of the drop-in the policy asks for: only the maps it sets."""
    dropin = dict(MAIN)
    for key, name in (("kubeReserved", "kube_reserved"), ("systemReserved", "system_reserved")):
        if policy.get(name):
            dropin[key] = policy[name]
    if policy.get("eviction_hard") is not None:
        dropin["evictionHard"] = policy["eviction_hard"]
    return dropin


def _node_capacity(facts):
    return {n["id"]: max(0, n["memory_bytes"] - n["hugepages"]["1048576kB"]["total"] * GI) for n in facts["numa_nodes"]}


def _spare_cores(usable):
    """Sizes of the whole spare cores: on each node every usable core but one, the smallest, which stays allocatable."""
    spare = []
    for cores in usable.values():
        spare += sorted(len(core) for core in cores)[1:]
    return spare


def _cores_needed(spare, count):
    """Whole cores needed for ``count`` CPUs, per core shape: ceil(count / threads) when every core has ``threads``
    CPUs; with mixed shapes (an SMT sibling offline), the fewest spare cores, largest first, that hold ``count``.
    More than all spare cores when even they cannot."""
    held = 0
    for number, size in enumerate(sorted(spare, reverse=True), 1):
        held += size
        if held >= count:
            return number
    return len(spare) + 1


@PROPERTY_SETTINGS
@given(topologies(), policies(), main_files())
def test_every_plan_keeps_the_rules(facts, policy, main_doc):
    # The tiered kube-reserved default is checked with exact numbers in test_memory.py; here the model is the kubelet's own sum.
    policy = dict(policy, reserved_memory_default="none")
    # What the kubelet will reserve: the main file (defaults filled in), then the policy's maps merged as a drop-in.
    needed_memory = _allocatable.reserved_memory_total(_kubelet_merge.effective_config(main_doc, [(DROPIN, _policy_dropin(policy))]),
                                                       facts["memory_bytes"])
    usable = _usable_cores(facts)
    count = policy.get("reserved_cpus", 2)
    try:
        plan = reservation_plan(facts, policy, _kubelet_merge.effective_config(main_doc, []))
    except PlanError as exc:
        message = str(exc)
        if "logical CPUs in whole cores" in message:
            # Refused for the CPU count: whole spare cores (all online CPUs non-isolated, one whole core left per node)
            # really cannot hold it, counted independently of the planner.
            spare = _spare_cores(usable)
            assert len(spare) < _cores_needed(spare, count), message
        elif "does not fit in the NUMA nodes' memory" in message:
            assert needed_memory > sum(_node_capacity(facts).values()), message
        else:
            assert "reserve no memory" in message and needed_memory == 0, message
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
    assert sum(amounts.values()) == needed_memory > 0
    assert all(amount > 0 for amount in amounts.values())
    capacity = _node_capacity(facts)
    assert all(amounts[node] <= capacity[node] for node in amounts)
    assert plan["reserved"]["memory_bytes"] == {str(node): amount for node, amount in amounts.items()}
    # memory goes where the reserved CPUs are, unless those nodes are full
    cpu_nodes = set(int(node) for node in plan["reserved"]["by_numa"])
    for node in set(amounts) - cpu_nodes:
        assert all(amounts.get(n, 0) == capacity[n] for n in cpu_nodes)
    # only the maps the policy sets are written, so the node's own values stay
    settings = plan["kubelet_settings"]
    assert ("kubeReserved" in settings) == bool(policy.get("kube_reserved"))
    assert ("systemReserved" in settings) == bool(policy.get("system_reserved"))
    assert ("evictionHard" in settings) == (policy.get("eviction_hard") is not None)
    # the kubelet's own rules hold on this node for what the module will validate: the main file, then the plan as a drop-in
    effective = _kubelet_merge.effective_config(main_doc, [(DROPIN, dict(MAIN, **settings))])
    assert _validate.validate(effective, _schema.kubelet_node(facts)) == []


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


# Any JSON-ish value, for the malformed-input test.
JUNK = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 20), st.floats(), st.text(max_size=6),
              st.sampled_from(["0-3", "1Gi", "10%", "-1", "abc", "0", "2048kB"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.one_of(st.integers(0, 3), st.sampled_from(["memory", "cpu", "id", "cpus", "numa_node"])),
                                            inner, max_size=3)),
    max_leaves=6)


def _paths(value, prefix=()):
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _paths(item, prefix + (key,))


@PROPERTY_SETTINGS
@given(topologies(), st.integers(0, 2), st.data(), JUNK)
def test_malformed_input_is_only_ever_a_plan_error(facts, which, data, junk):
    """Any one value of the facts, the policy or the base configuration replaced by junk: a plan or a PlanError, nothing else."""
    main_doc = dict(MAIN, kubeReserved={"memory": "1Gi", "cpu": "1"})
    args = [facts, {"reserved_cpus": 2, "system_reserved": {"memory": "1Gi"}, "eviction_hard": {"memory.available": "5%"}},
            dict(_kubelet_merge.effective_config(main_doc, []))]
    path = data.draw(st.sampled_from(list(_paths(args[which]))))
    if not path:
        args[which] = junk
    else:
        target = args[which]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = junk
    try:
        reservation_plan(*args)
    except PlanError:
        pass
