# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validate an effective kubelet configuration by the kubelet's own rules.

Every rule below cites the upstream file (kubernetes/kubernetes) it mirrors
and uses that file's error wording, so a message here reads like the line the
kubelet would log before refusing to start. A Problem also names the key and
the file that set it (from the merge's origins), which the kubelet does not.

Scope: the rules that matter for the NUMA resource managers (CPU, Memory and
Topology Manager, reservations, eviction, the feature gates around them),
checked against the node's online CPUs and NUMA memory. It is not the whole
of ValidateKubeletConfiguration.
"""

from __future__ import annotations

import json
import math
import re
import struct
from decimal import Decimal

from ansible_collections.gpusmith.numa_gate.plugins.module_utils import _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._quantity import QuantityError, from_bytes, parse_decimal
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet_merge import DEFAULT_EVICTION_HARD

CPU_POLICIES = ("none", "static")
MEMORY_POLICIES = ("None", "Static")
TOPOLOGY_POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
TOPOLOGY_SCOPES = ("container", "pod")
DEFAULT_MAX_ALLOWABLE_NUMA_NODES = 8

# pkg/kubelet/cm/cpumanager/policy_options.go (option names; maturity as of v1.36/v1.37:
# full-pcpus-only GA, strict-cpu-reservation and prefer-align-cpus-by-uncorecache GA,
# distribute-cpus-across-numa beta, align-by-socket and distribute-cpus-across-cores alpha).
CPU_OPTIONS_ALPHA = ("align-by-socket", "distribute-cpus-across-cores")
CPU_OPTIONS_BETA = ("distribute-cpus-across-numa",)
CPU_OPTIONS_STABLE = ("full-pcpus-only", "strict-cpu-reservation", "prefer-align-cpus-by-uncorecache")
# pkg/kubelet/cm/cpumanager/policy_options.go: NewStaticPolicyOptions, options that exclude each other.
CPU_OPTIONS_EXCLUSIVE = (
    ("full-pcpus-only", "distribute-cpus-across-cores"),
    ("distribute-cpus-across-numa", "distribute-cpus-across-cores"),
    ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-cores"),
    ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-numa"),
)
# pkg/kubelet/cm/topologymanager/policy_options.go: prefer-closest-numa-nodes and
# max-allowable-numa-nodes are GA; numa-allocation-strategy is alpha where it exists.
TOPOLOGY_OPTIONS_ALPHA = ("numa-allocation-strategy",)
TOPOLOGY_OPTIONS_BETA = ()
TOPOLOGY_OPTIONS_STABLE = ("prefer-closest-numa-nodes", "max-allowable-numa-nodes")

# Feature gates this collection relies on, with the kubelet 1.37 defaults.
# pkg/features/kube_features.go; stages from the feature-gate reference pages.
FEATURE_GATE_DEFAULTS = {
    "PodLevelResources": True,                 # beta since 1.34, on by default
    "PodLevelResourceManagers": False,         # alpha 1.36, beta 1.37, off by default
    "CPUManagerPolicyAlphaOptions": False,
    "CPUManagerPolicyBetaOptions": True,
    "TopologyManagerPolicyAlphaOptions": False,
    "TopologyManagerPolicyBetaOptions": True,
    "CPUManagerPolicyOptions": True,           # GA 1.33, locked
    "TopologyManagerPolicyOptions": True,      # GA 1.32, locked
    "MemoryManager": True,                     # GA 1.32, locked
}
LOCKED_GATES = ("CPUManagerPolicyOptions", "TopologyManagerPolicyOptions", "MemoryManager")
# KEP-5526: PodLevelResourceManagers depends on PodLevelResources. The 1.37
# kube_features.go dependency table was not found in the stored sources; the
# wording is component-base/featuregate/feature_gate.go's dependency check.
GATE_DEPENDENCIES = {"PodLevelResourceManagers": ("PodLevelResources",)}

# cmd/kubelet/app/server.go: parseResourceList accepts only these.
RESERVABLE = ("cpu", "memory", "ephemeral-storage", "pid")
# pkg/kubelet/eviction/api/types.go: the signals the kubelet knows.
EVICTION_SIGNALS = ("memory.available", "allocatableMemory.available", "nodefs.available", "nodefs.inodesFree",
                    "imagefs.available", "imagefs.inodesFree", "containerfs.available", "containerfs.inodesFree",
                    "pid.available")
_HUGEPAGES = re.compile(r"^hugepages-(.+)$")
# k8s.io/apimachinery/pkg/api/resource/quantity.go: ErrFormatWrong
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
_GO_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_GO_FALSE = ("0", "f", "F", "FALSE", "false", "False")


class KubeletValidationError(ValueError):
    """A value the validation helpers cannot interpret."""


class Problem:
    """One rule the configuration breaks.

    ``key``: the config key (dotted, e.g. ``reservedMemory[1].limits.memory``);
    ``message``: the kubelet's wording; ``source``: the file that set the key;
    ``rule``: the upstream source file of the rule; ``hint``: what to change.
    """

    def __init__(self, key, message, source=None, rule=None, hint=None):
        self.key = key
        self.message = message
        self.source = source
        self.rule = rule
        self.hint = hint

    def __str__(self):
        text = "%s: %s: %s" % (self.source or "<config>", self.key, self.message)
        if self.hint:
            text += " (%s)" % self.hint
        return text

    __repr__ = __str__

    def as_dict(self):
        return {"key": self.key, "message": self.message, "source": self.source, "rule": self.rule,
                "hint": self.hint, "text": str(self)}


def _q(text):
    """Go's %q for plain strings."""
    return json.dumps(text if isinstance(text, str) else str(text))


def _go_type(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else type(value).__name__


def _unmarshal(value, field, go_type):
    return "json: cannot unmarshal %s into Go struct field %s of type %s" % (_go_type(value), field, go_type)


def _go_map(mapping):
    """Go's %v of a map[string]string: map[a:b c:d], keys sorted."""
    return "map[%s]" % " ".join("%s:%s" % (k, mapping[k]) for k in sorted(mapping))


def _go_bool(value):
    if value in _GO_TRUE:
        return True
    if value in _GO_FALSE:
        return False
    return None


def _f32(value):
    return struct.unpack("f", struct.pack("f", value))[0]


def format_bytes(count):
    """Quantity.String() of a byte count: binary suffix when exact, else plain."""
    if -1024 < count < 1024:
        return str(count)
    return from_bytes(count) if count >= 0 else str(count)


def format_millicpu(milli):
    return str(milli // 1000) if milli % 1000 == 0 else "%dm" % milli


class _Checker:
    def __init__(self, config, node):
        self.config = config
        self.node = node or {}
        self.problems = []
        self.rule_options = None
        origin_of = getattr(config, "origin_of", None)
        self._origin_of = origin_of if callable(origin_of) else (lambda key: None)

    def source(self, *path):
        return self._origin_of(tuple(path))

    def add(self, key, message, path=None, rule=None, hint=None):
        source = self.source(*(path or (key,)))
        self.problems.append(Problem(key, message, source, rule, hint))

    def mapping(self, key, value_type="string"):
        """A map field; reports values of the wrong JSON type, returns the usable part."""
        value = self.config.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.add(key, _unmarshal(value, "KubeletConfiguration." + key, "map[string]%s" % value_type),
                     rule="k8s.io/apimachinery/pkg/runtime/serializer/json (strict decoding)")
            return {}
        usable = {}
        for name, item in value.items():
            ok = isinstance(item, bool) if value_type == "bool" else isinstance(item, str)
            if not ok:
                self.add("%s.%s" % (key, name), _unmarshal(item, "KubeletConfiguration." + key, value_type), path=(key, name),
                         rule="k8s.io/apimachinery/pkg/runtime/serializer/json (strict decoding)",
                         hint="quote the value: %s: \"%s\"" % (name, str(item).lower() if isinstance(item, bool) else item)
                         if value_type == "string" else None)
                continue
            usable[str(name)] = item
        return usable

    def string(self, key, default):
        value = self.config.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.add(key, _unmarshal(value, "KubeletConfiguration." + key, "string"),
                     rule="k8s.io/apimachinery/pkg/runtime/serializer/json (strict decoding)")
            return None
        return value


def _gates(checker):
    """The feature gates as the kubelet resolves them (config over defaults)."""
    # k8s.io/component-base/featuregate/feature_gate.go: SetFromMap; values are booleans.
    given = checker.mapping("featureGates", "bool")
    rule = "k8s.io/component-base/featuregate/feature_gate.go"
    lowered = {name.lower(): name for name in FEATURE_GATE_DEFAULTS}
    for name in sorted(given):
        if name in FEATURE_GATE_DEFAULTS:
            continue
        near = lowered.get(name.lower()) or _near_miss(name, FEATURE_GATE_DEFAULTS)
        if near:
            checker.add("featureGates.%s" % name, "unrecognized feature gate: %s" % name, path=("featureGates", name),
                        rule=rule, hint="did you mean %s? gate names are case-sensitive" % near)
    for name in LOCKED_GATES:
        if name in given and given[name] != FEATURE_GATE_DEFAULTS[name]:
            checker.add("featureGates.%s" % name, "cannot set feature gate %s to %s, feature is locked to %s"
                        % (name, str(given[name]).lower(), str(FEATURE_GATE_DEFAULTS[name]).lower()),
                        path=("featureGates", name), rule=rule)
    gates = dict(FEATURE_GATE_DEFAULTS)
    gates.update(given)
    for feature in sorted(GATE_DEPENDENCIES):
        if not gates.get(feature):
            continue
        disabled = [dep for dep in GATE_DEPENDENCIES[feature] if not gates.get(dep)]
        if disabled:
            checker.add("featureGates.%s" % feature,
                        "%s is enabled, but depends on features that are disabled: [%s]" % (feature, " ".join(disabled)),
                        path=("featureGates", feature), rule=rule,
                        hint="set featureGates.%s: true" % disabled[0])
    return gates


def _near_miss(name, known):
    """A known gate within two edits of ``name`` (a likely typo), else None."""
    for candidate in known:
        if abs(len(candidate) - len(name)) <= 2 and len(name) > 8 and _distance(name, candidate) <= 2:
            return candidate
    return None


def _distance(first, second):
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, 1):
        current = [i]
        for j, b in enumerate(second, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def _check_options(checker, key, options, known, gates, texts):
    """CheckPolicyOptionAvailable: the option exists and its maturity's gate is on."""
    alpha, beta, stable = known
    alpha_gate, beta_gate, unknown, alpha_off, beta_off = texts
    parsed = {}
    for name in sorted(options):
        path = (key, name)
        full = "%s.%s" % (key, name)
        if name not in alpha and name not in beta and name not in stable:
            checker.add(full, unknown % _q(name), path=path, rule=checker.rule_options)
        elif name in alpha and not gates.get(alpha_gate):
            checker.add(full, alpha_off % _q(name), path=path, rule=checker.rule_options, hint="set featureGates.%s: true" % alpha_gate)
        elif name in beta and not gates.get(beta_gate):
            checker.add(full, beta_off % _q(name), path=path, rule=checker.rule_options, hint="set featureGates.%s: true" % beta_gate)
        else:
            parsed[name] = options[name]
    return parsed


# pkg/kubelet/cm/cpumanager/policy_options.go: CheckPolicyOptionAvailable
CPU_OPTION_TEXTS = ("CPUManagerPolicyAlphaOptions", "CPUManagerPolicyBetaOptions",
                    "unknown CPU Manager Policy option: %s",
                    "CPU Manager Policy Alpha-level Options not enabled, but option %s provided",
                    "CPU Manager Policy Beta-level Options not enabled, but option %s provided")
# pkg/kubelet/cm/topologymanager/policy_options.go: CheckPolicyOptionAvailable
TOPOLOGY_OPTION_TEXTS = ("TopologyManagerPolicyAlphaOptions", "TopologyManagerPolicyBetaOptions",
                         "unknown Topology Manager Policy option: %s",
                         "topology manager policy alpha-level options not enabled, but option %s provided",
                         "topology manager policy beta-level options not enabled, but option %s provided")


def _bad_bool(checker, key, name, value):
    checker.add("%s.%s" % (key, name), "bad value for option %s: strconv.ParseBool: parsing %s: invalid syntax"
                % (_q(name), _q(value)), path=(key, name), rule=checker.rule_options)


def _cpu_manager(checker, gates, topology_policy):
    policy = checker.string("cpuManagerPolicy", "none")
    options = checker.mapping("cpuManagerPolicyOptions")
    checker.rule_options = "pkg/kubelet/cm/cpumanager/policy_options.go"
    if policy is None:
        return policy
    if policy not in CPU_POLICIES:
        # pkg/kubelet/cm/cpumanager/cpu_manager.go: NewManager
        hint = "policy names are case-sensitive: %s" % " | ".join(CPU_POLICIES)
        checker.add("cpuManagerPolicy", "unknown policy: %s" % _q(policy), rule="pkg/kubelet/cm/cpumanager/cpu_manager.go", hint=hint)
        return None
    if policy == "none":
        if options:
            # pkg/kubelet/cm/cpumanager/policy_none.go: NewNonePolicy
            checker.add("cpuManagerPolicyOptions", "None policy: received unsupported options=%s" % _go_map(options),
                        rule="pkg/kubelet/cm/cpumanager/policy_none.go")
        return policy
    parsed = _check_options(checker, "cpuManagerPolicyOptions", options, (CPU_OPTIONS_ALPHA, CPU_OPTIONS_BETA, CPU_OPTIONS_STABLE),
                            gates, CPU_OPTION_TEXTS)
    # pkg/kubelet/cm/cpumanager/policy_options.go: NewStaticPolicyOptions (values, exclusive pairs)
    enabled = set()
    for name, value in parsed.items():
        flag = _go_bool(value)
        if flag is None:
            _bad_bool(checker, "cpuManagerPolicyOptions", name, value)
        elif flag:
            enabled.add(name)
    for first, second in CPU_OPTIONS_EXCLUSIVE:
        if first in enabled and second in enabled:
            checker.add("cpuManagerPolicyOptions", "static policy options %s and %s can not be used at the same time" % (first, second),
                        rule=checker.rule_options)
    if "align-by-socket" in enabled and topology_policy == "single-numa-node":
        # pkg/kubelet/cm/cpumanager/policy_options.go: ValidateStaticPolicyOptions (upstream spelling kept)
        checker.add("cpuManagerPolicyOptions.align-by-socket",
                    "Topolgy manager single-numa-node policy is incompatible with CPUManager align-by-socket policy option",
                    path=("cpuManagerPolicyOptions", "align-by-socket"), rule=checker.rule_options)
    return policy


def _topology_manager(checker, gates):
    policy = checker.string("topologyManagerPolicy", "none")
    scope = checker.string("topologyManagerScope", "container")
    rule = "pkg/kubelet/apis/config/validation/validation.go"
    # pkg/kubelet/apis/config/validation/validation.go: ValidateKubeletConfiguration (topologyManagerPolicy)
    if policy is not None and policy not in TOPOLOGY_POLICIES:
        checker.add("topologyManagerPolicy", "invalid configuration: topologyManagerPolicy (--topology-manager-policy) %s must be one of: [%s]"
                    % (_q(policy), " ".join(_q(p) for p in TOPOLOGY_POLICIES)), rule=rule)
        policy = None
    # pkg/kubelet/apis/config/validation/validation.go: ValidateKubeletConfiguration (topologyManagerScope)
    if scope is not None and scope not in TOPOLOGY_SCOPES:
        checker.add("topologyManagerScope", "invalid configuration: topologyManagerScope (--topology-manager-scope) %s must be one of: %s, or %s"
                    % (_q(scope), _q(TOPOLOGY_SCOPES[0]), _q(TOPOLOGY_SCOPES[1])), rule=rule)
    options = checker.mapping("topologyManagerPolicyOptions")
    max_nodes = DEFAULT_MAX_ALLOWABLE_NUMA_NODES
    if policy in (None, "none"):
        # pkg/kubelet/cm/topologymanager/topology_manager.go: NewManager returns early for none.
        return policy, max_nodes
    checker.rule_options = "pkg/kubelet/cm/topologymanager/policy_options.go"
    parsed = _check_options(checker, "topologyManagerPolicyOptions", options,
                            (TOPOLOGY_OPTIONS_ALPHA, TOPOLOGY_OPTIONS_BETA, TOPOLOGY_OPTIONS_STABLE), gates, TOPOLOGY_OPTION_TEXTS)
    # pkg/kubelet/cm/topologymanager/policy_options.go: NewPolicyOptions (values)
    for name, value in parsed.items():
        path = ("topologyManagerPolicyOptions", name)
        full = "topologyManagerPolicyOptions.%s" % name
        if name == "prefer-closest-numa-nodes" and _go_bool(value) is None:
            _bad_bool(checker, "topologyManagerPolicyOptions", name, value)
        elif name == "max-allowable-numa-nodes":
            if not re.match(r"^[+-]?\d+$", value):
                checker.add(full, "unable to convert policy option to integer %s: strconv.Atoi: parsing %s: invalid syntax" % (_q(name), _q(value)),
                            path=path, rule=checker.rule_options)
            elif int(value) < DEFAULT_MAX_ALLOWABLE_NUMA_NODES:
                checker.add(full, "the minimum value of %s should not be less than %d" % (_q(name), DEFAULT_MAX_ALLOWABLE_NUMA_NODES),
                            path=path, rule=checker.rule_options)
            else:
                max_nodes = int(value)
    numa_nodes = _numa_nodes(checker.node)
    if numa_nodes is not None and len(numa_nodes) > max_nodes:
        # pkg/kubelet/cm/topologymanager/topology_manager.go: NewManager
        checker.add("topologyManagerPolicy", "unsupported on machines with more than %d NUMA Nodes" % max_nodes,
                    rule="pkg/kubelet/cm/topologymanager/topology_manager.go",
                    hint="this node has %d NUMA nodes; set topologyManagerPolicyOptions.max-allowable-numa-nodes: \"%d\""
                    % (len(numa_nodes), len(numa_nodes)))
    return policy, max_nodes


def _numa_nodes(node):
    nodes = node.get("numa_nodes") if node else None
    if nodes is None:
        return None
    try:
        return {int(k): int(v) for k, v in nodes.items()}
    except (TypeError, ValueError, AttributeError):
        raise KubeletValidationError("node numa_nodes %r is not a mapping of NUMA id to memory bytes" % (nodes,))


def _node_memory(node):
    if not node:
        return None
    if node.get("memory_bytes") is not None:
        return int(node["memory_bytes"])
    numa = _numa_nodes(node)
    return sum(numa.values()) if numa else None


def _reserved_cpus(checker, online):
    """reservedSystemCPUs as a list, or None when unset or broken (reported)."""
    text = checker.config.get("reservedSystemCPUs")
    if text is None or text == "":
        return None
    rule = "pkg/kubelet/apis/config/validation/validation.go"
    if not isinstance(text, str):
        checker.add("reservedSystemCPUs", _unmarshal(text, "KubeletConfiguration.reservedSystemCPUs", "string"),
                    rule="k8s.io/apimachinery/pkg/runtime/serializer/json (strict decoding)", hint="quote the cpulist: \"%s\"" % (text,))
        return None
    # pkg/kubelet/apis/config/validation/validation.go: ValidateKubeletConfiguration (reservedSystemCPUs)
    if checker.config.get("systemReservedCgroup") or checker.config.get("kubeReservedCgroup"):
        checker.add("reservedSystemCPUs", "invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup "
                    "(--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)", rule=rule)
    try:
        cpus = _cpulist.parse(text)
    except _cpulist.CpuListError as exc:
        checker.add("reservedSystemCPUs", "invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) %s, error: %s"
                    % (text, exc), rule=rule)
        return None
    if online is not None and not set(cpus) <= set(online):
        # cmd/kubelet/app/server.go: getReservedCPUs
        checker.add("reservedSystemCPUs", "reserved-cpus: %s is not a subset of online-cpus: %s" % (text, _cpulist.format(online)),
                    rule="cmd/kubelet/app/server.go",
                    hint="CPUs %s are not online" % _cpulist.format(set(cpus) - set(online)))
    return cpus


# cmd/kubelet/app/server.go: parseResourceList
def _resource_list(checker, key):
    """kubeReserved / systemReserved parsed as the kubelet does (parseResourceList)."""
    rule = "cmd/kubelet/app/server.go"
    result = {}
    for name, value in sorted(checker.mapping(key).items()):
        path = (key, name)
        full = "%s.%s" % (key, name)
        if name not in RESERVABLE:
            checker.add(full, "cannot reserve %s resource" % _q(name), path=path, rule=rule,
                        hint="only %s can be reserved here" % ", ".join(RESERVABLE))
            continue
        try:
            amount = parse_decimal(value)
        except QuantityError:
            checker.add(full, "failed to parse quantity %s for %s resource: %s" % (_q(value), _q(name), QUANTITY_FORMAT), path=path, rule=rule)
            continue
        if amount < 0:
            checker.add(full, "resource quantity for %s cannot be negative: %s" % (_q(name), value), path=path, rule=rule)
            continue
        result[name] = amount
    return result


def _ceil(amount):
    return int(amount.to_integral_value(rounding="ROUND_CEILING"))


def _eviction_quantity(checker, signal, value, capacity):
    """pkg/kubelet/eviction/helpers.go: parseThresholdStatement, resolved against ``capacity``."""
    rule = "pkg/kubelet/eviction/helpers.go"
    path = ("evictionHard", signal)
    full = "evictionHard.%s" % signal
    if value.endswith("%"):
        if value in ("0%", "100%"):
            return 0
        try:
            percent = _f32(_f32(float(value[:-1])) / 100)
        except ValueError:
            checker.add(full, "strconv.ParseFloat: parsing %s: invalid syntax" % _q(value[:-1]), path=path, rule=rule)
            return None
        if percent < 0:
            checker.add(full, "eviction percentage threshold %s must be >= 0%%: %s" % (signal, value), path=path, rule=rule)
            return None
        if percent > 1 or math.isnan(percent):
            checker.add(full, "eviction percentage threshold %s must be <= 100%%: %s" % (signal, value), path=path, rule=rule)
            return None
        # pkg/kubelet/eviction/api/types.go: GetThresholdQuantity
        return None if capacity is None else int(float(capacity) * percent)
    try:
        amount = parse_decimal(value)
    except QuantityError:
        checker.add(full, QUANTITY_FORMAT, path=path, rule=rule)
        return None
    if amount <= 0:
        checker.add(full, "eviction threshold %s must be positive: %s" % (signal, value), path=path, rule=rule)
        return None
    return _ceil(amount)


def effective_eviction_hard(config):
    """The hard eviction thresholds the kubelet will use, signal -> value.

    Unset ``evictionHard``: the kubelet's defaults. Set: only what it names,
    every default signal it omits is reported as ``"0"`` (no threshold), unless
    ``mergeDefaultEvictionSettings: true`` fills the omitted ones from the
    defaults. Do not write the result back as ``evictionHard`` (the kubelet
    refuses a quantity of 0).
    """
    given = config.get("evictionHard") if config else None
    if given is None:
        return dict(DEFAULT_EVICTION_HARD)
    if not isinstance(given, dict):
        raise KubeletValidationError("evictionHard %r is not a mapping of signal to threshold" % (given,))
    if config.get("mergeDefaultEvictionSettings") is True:
        result = dict(DEFAULT_EVICTION_HARD)
    else:
        result = {signal: "0" for signal in DEFAULT_EVICTION_HARD}
    result.update({str(k): v for k, v in given.items()})
    return result


def node_allocatable_reservation(config, node_memory_bytes=None, checker=None):
    """What the kubelet keeps back from allocatable: kube + system reserved + hard eviction.

    pkg/kubelet/cm/node_container_manager_linux.go: GetNodeAllocatableReservation
    and hardEvictionReservation (only ``memory.available`` reserves memory;
    ``experimentalNodeAllocatableIgnoreEvictionThreshold`` drops it). With
    ``reservedSystemCPUs`` set, cmd/kubelet/app/server.go replaces the CPU part
    by the number of those CPUs. Returns ``{"cpu": millicores, "memory": bytes,
    ...}`` with only non-zero entries, as the kubelet does.
    """
    own = checker is None
    if own:
        checker = _Checker(config or {}, None)
    kube = _resource_list(checker, "kubeReserved")
    system = _resource_list(checker, "systemReserved")
    reserved_text = (config or {}).get("reservedSystemCPUs")
    if isinstance(reserved_text, str) and reserved_text:
        try:
            count = len(_cpulist.parse(reserved_text))
        except _cpulist.CpuListError:
            count = 0
        if count:
            kube.pop("cpu", None)
            system["cpu"] = Decimal(count)
    totals = {}
    for name in set(kube) | set(system):
        totals[name] = kube.get(name, Decimal(0)) + system.get(name, Decimal(0))
    result = {}
    for name, amount in totals.items():
        value = _ceil(amount * 1000) if name == "cpu" else _ceil(amount)
        if value:
            result[name] = value
    if not (config or {}).get("experimentalNodeAllocatableIgnoreEvictionThreshold"):
        try:
            hard = effective_eviction_hard(config or {})
        except KubeletValidationError:
            if own:
                raise
            hard = {}  # the validator reports the broken evictionHard itself
        value = hard.get("memory.available")
        if isinstance(value, str) and value != "0":
            memory = _eviction_quantity(checker, "memory.available", value, node_memory_bytes)
            if memory:
                result["memory"] = result.get("memory", 0) + memory
    if own and checker.problems:
        raise KubeletValidationError("; ".join(str(p) for p in checker.problems))
    return result


def reserved_memory_total(config, node_memory_bytes):
    """Bytes that ``reservedMemory``'s ``memory`` entries must add up to.

    kubeReserved.memory + systemReserved.memory + the hard eviction threshold
    for ``memory.available`` (a percentage is taken of ``node_memory_bytes``),
    as pkg/kubelet/cm/memorymanager/memory_manager.go: validateReservedMemory
    compares. Raises KubeletValidationError for values the kubelet would refuse.
    """
    return node_allocatable_reservation(config, node_memory_bytes).get("memory", 0)


# pkg/kubelet/apis/config/validation/validation_reserved_memory.go: validateReservedMemoryConfiguration
def _reserved_memory(checker):
    """Structural checks of reservedMemory; returns [(index, numa, resource, bytes)]."""
    value = checker.config.get("reservedMemory")
    if value is None:
        return []
    strict = "k8s.io/apimachinery/pkg/runtime/serializer/json (strict decoding)"
    rule = "pkg/kubelet/apis/config/validation/validation_reserved_memory.go"
    if not isinstance(value, list):
        checker.add("reservedMemory", _unmarshal(value, "KubeletConfiguration.reservedMemory", "[]v1beta1.MemoryReservation"), rule=strict)
        return []
    entries = []
    seen = {}
    for index, entry in enumerate(value):
        key = "reservedMemory[%d]" % index
        if not isinstance(entry, dict):
            checker.add(key, _unmarshal(entry, "KubeletConfiguration.reservedMemory", "v1beta1.MemoryReservation"), path=("reservedMemory",), rule=strict)
            continue
        numa = entry.get("numaNode")
        if isinstance(numa, bool) or not isinstance(numa, int):
            checker.add(key + ".numaNode", _unmarshal(numa, "MemoryReservation.reservedMemory.numaNode", "int32")
                        if numa is not None else "numaNode is required", path=("reservedMemory",), rule=strict)
            continue
        limits = entry.get("limits")
        if not isinstance(limits, dict):
            checker.add(key + ".limits", _unmarshal(limits, "MemoryReservation.reservedMemory.limits", "v1.ResourceList"),
                        path=("reservedMemory",), rule=strict)
            continue
        for extra in sorted(set(entry) - {"numaNode", "limits"}):
            checker.add("%s.%s" % (key, extra), "strict decoding error: unknown field \"reservedMemory[%d].%s\"" % (index, extra),
                        path=("reservedMemory",), rule=strict)
        for name in sorted(limits, key=str):
            amount_text = limits[name]
            name = str(name)
            full = "%s.limits.%s" % (key, name)
            supported = bool(_HUGEPAGES.match(name) or name == "memory")
            if not supported:
                checker.add(full, "invalid configuration: the limit type %s for NUMA node %d is not supported, only "
                            "[memory hugepages-<HugePageSize>] is accepted" % (_q(name), numa), path=("reservedMemory",), rule=rule)
            if isinstance(amount_text, float):
                amount_text = repr(amount_text)
            try:
                amount = parse_decimal(amount_text)
            except QuantityError:
                checker.add(full, QUANTITY_FORMAT, path=("reservedMemory",), rule="k8s.io/apimachinery/pkg/api/resource/quantity.go")
                continue
            if amount == 0:
                checker.add(full, "invalid configuration: reserved memory may not be zero for NUMA node %d and resource %s" % (numa, _q(name)),
                            path=("reservedMemory",), rule=rule)
            if (numa, name) in seen:
                checker.add(full, "invalid configuration: the reserved memory has a duplicate value for NUMA node %d and resource %s"
                            % (numa, _q(name)), path=("reservedMemory",), rule=rule,
                            hint="also set in reservedMemory[%d]" % seen[(numa, name)])
            else:
                seen[(numa, name)] = index
            if amount < 0:
                checker.add(full, "reserved memory for NUMA node %d and resource %s is negative: %s" % (numa, _q(name), amount_text),
                            path=("reservedMemory",), rule=rule)
                continue
            if supported:
                entries.append((index, numa, name, _ceil(amount)))
    return entries


def _memory_manager(checker, entries, allocatable, node_memory):
    # pkg/kubelet/cm/memorymanager/memory_manager.go: NewManager (policy names)
    policy = checker.string("memoryManagerPolicy", "None")
    rule = "pkg/kubelet/cm/memorymanager/memory_manager.go"
    if policy is None:
        return
    if policy == "BestEffort":
        checker.add("memoryManagerPolicy", "policy %s is not available for platform \"linux\"" % _q(policy), rule=rule)
        return
    if policy not in MEMORY_POLICIES:
        checker.add("memoryManagerPolicy", "unknown policy: %s" % _q(policy), rule=rule,
                    hint="policy names are case-sensitive: %s" % " | ".join(MEMORY_POLICIES))
        return
    if policy != "Static":
        return
    numa_nodes = _numa_nodes(checker.node)
    totals = {}
    for index, numa, name, amount in entries:
        if numa_nodes is not None and numa not in numa_nodes:
            # getTotalMemoryTypeReserved
            checker.add("reservedMemory[%d].numaNode" % index,
                        "the reserved memory configuration references a NUMA node %d that does not exist on this machine" % numa,
                        path=("reservedMemory",), rule=rule, hint="NUMA nodes here: %s" % ", ".join(str(n) for n in sorted(numa_nodes)))
        totals[name] = totals.get(name, 0) + amount
    if node_memory is None and _memory_percent(checker.config):
        return  # a percentage of an unknown node size: the sums cannot be checked
    # validateReservedMemory: every memory-like type in either side must match.
    expected = {name: value for name, value in allocatable.items() if name == "memory" or _HUGEPAGES.match(name)}
    for name in sorted(set(totals) | set(expected)):
        have = totals.get(name, 0)
        want = expected.get(name, 0)
        if have != want:
            checker.add("reservedMemory", "the total amount %s of type %s is not equal to the value %s determined by Node Allocatable feature"
                        % (_q(format_bytes(have)), _q(name), _q(format_bytes(want))), rule=rule, hint=_sum_hint(checker, name))
    if not totals.get("memory") and not expected.get("memory"):
        # pkg/kubelet/cm/memorymanager/policy_static.go: NewPolicyStatic
        checker.add("reservedMemory", "[memorymanager] you should specify the system reserved memory",
                    rule="pkg/kubelet/cm/memorymanager/policy_static.go")
    # Not a kubelet message: the kubelet computes a NUMA node's free memory as capacity minus
    # reservation (pkg/kubelet/cm/memorymanager/policy_static.go), which this keeps from going negative.
    if numa_nodes:
        per_node = {}
        for _index, numa, name, amount in entries:
            if numa in numa_nodes:
                per_node[numa] = per_node.get(numa, 0) + amount
        for numa in sorted(per_node):
            if per_node[numa] > numa_nodes[numa]:
                checker.add("reservedMemory", "reserved memory %s for NUMA node %d is larger than the node's memory %s"
                            % (format_bytes(per_node[numa]), numa, format_bytes(numa_nodes[numa])), rule=rule)


def _memory_percent(config):
    try:
        hard = effective_eviction_hard(config)
    except KubeletValidationError:
        return False
    value = hard.get("memory.available")
    return isinstance(value, str) and value.endswith("%")


def _sum_hint(checker, name):
    if name != "memory":
        return ("kubeReserved/systemReserved cannot reserve hugepages and eviction does not count them, "
                "so Node Allocatable expects 0 for %s" % name)
    parts = []
    for key, path in (("kubeReserved.memory", ("kubeReserved", "memory")), ("systemReserved.memory", ("systemReserved", "memory")),
                      ("evictionHard.memory.available", ("evictionHard", "memory.available"))):
        source = checker.source(*path)
        if source:
            parts.append("%s from %s" % (key, source))
    return "it must equal kubeReserved.memory + systemReserved.memory + evictionHard memory.available" + (
        " (%s)" % ", ".join(parts) if parts else "")


# pkg/kubelet/cm/cpumanager/cpu_manager.go: NewManager; policy_static.go: NewStaticPolicy
def _static_cpu(checker, policy, reserved_cpus, allocatable, online):
    if policy != "static":
        return
    milli = allocatable.get("cpu", 0)
    if reserved_cpus is None and checker.config.get("reservedSystemCPUs") not in (None, ""):
        return  # already reported as unparsable
    if not milli:
        # pkg/kubelet/cm/cpumanager/cpu_manager.go: NewManager
        checker.add("cpuManagerPolicy", "[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero "
                    "(with nothing reserved the kubelet stops with \"[cpumanager] unable to determine reserved CPU resources for static policy\")",
                    rule="pkg/kubelet/cm/cpumanager/cpu_manager.go",
                    hint="set reservedSystemCPUs, or kubeReserved/systemReserved cpu")
        return
    if reserved_cpus is None and online is not None:
        wanted = -(-milli // 1000)
        if wanted > len(online):
            # pkg/kubelet/cm/cpumanager/policy_static.go: NewStaticPolicy
            checker.add("cpuManagerPolicy", "[cpumanager] unable to reserve the required amount of CPUs (size of %s did not equal %d)"
                        % (_cpulist.format(online), wanted), rule="pkg/kubelet/cm/cpumanager/policy_static.go")


def _capacity(checker, allocatable, node_memory, online):
    """pkg/kubelet/cm/node_container_manager_linux.go: validateNodeAllocatable."""
    capacity = {}
    if node_memory is not None:
        capacity["memory"] = node_memory
    if online is not None:
        capacity["cpu"] = len(online) * 1000
    for name in sorted(allocatable):
        if name not in capacity or allocatable[name] <= capacity[name]:
            continue
        fmt = format_millicpu if name == "cpu" else format_bytes
        if name == "cpu" and checker.config.get("reservedSystemCPUs"):
            key, path = "reservedSystemCPUs", ("reservedSystemCPUs",)
        else:
            key = "kubeReserved/systemReserved" + ("/evictionHard" if name == "memory" else "")
            path = next((p for p in (("systemReserved", name), ("kubeReserved", name)) if checker.source(*p)), ("kubeReserved",))
        checker.add(key, "invalid Node Allocatable configuration. Resource %s has a reservation of %s but capacity of %s. "
                    "Expected capacity >= reservation." % (_q(name), fmt(allocatable[name]), fmt(capacity[name])), path=path,
                    rule="pkg/kubelet/cm/node_container_manager_linux.go")


# pkg/kubelet/eviction/helpers.go: ParseThresholdConfig (signal names and values)
def _eviction(checker):
    given = checker.mapping("evictionHard")
    for signal in sorted(given):
        if signal not in EVICTION_SIGNALS:
            checker.add("evictionHard.%s" % signal, "unsupported eviction signal %s" % signal, path=("evictionHard", signal),
                        rule="pkg/kubelet/eviction/helpers.go")
        elif signal != "memory.available":
            _eviction_quantity(checker, signal, given[signal], None)


def validate(config, node=None):
    """Check an effective kubelet configuration; returns a list of Problem.

    ``node`` is ``{"online_cpus": "0-63", "numa_nodes": {0: bytes, ...},
    "memory_bytes": total}`` (memory_bytes defaults to the NUMA sum); without
    it the rules that need the machine are skipped. ``config`` is a dict or
    the EffectiveConfig from _kubelet_merge (then problems name their file).
    """
    if not isinstance(config, dict):
        return [Problem("(config)", "the configuration is a %s, not a mapping" % type(config).__name__)]
    checker = _Checker(config, node)
    online = None
    if node and node.get("online_cpus") is not None:
        try:
            online = _cpulist.parse(node["online_cpus"])
        except _cpulist.CpuListError as exc:
            raise KubeletValidationError("node online_cpus: %s" % exc)
    node_memory = _node_memory(node)
    gates = _gates(checker)
    topology_policy, _max = _topology_manager(checker, gates)
    cpu_policy = _cpu_manager(checker, gates, topology_policy)
    reserved_cpus = _reserved_cpus(checker, online)
    _eviction(checker)
    allocatable = node_allocatable_reservation(config, node_memory, checker)
    _static_cpu(checker, cpu_policy, reserved_cpus, allocatable, online)
    entries = _reserved_memory(checker)
    _memory_manager(checker, entries, allocatable, node_memory)
    _capacity(checker, allocatable, node_memory, online)
    return checker.problems


def node_from_topology(facts):
    """The ``node`` argument of validate() from numa_gate_topology facts (schema v1)."""
    numa = {node["id"]: node["memory_bytes"] or 0 for node in facts["numa_nodes"]}
    return {"online_cpus": facts["cpus"]["online"], "numa_nodes": numa,
            "memory_bytes": facts.get("memory_bytes") or sum(numa.values())}
