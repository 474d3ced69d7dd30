# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CPU Manager rules: the policy, its options, reservedSystemCPUs, the static policy's reservation.

Public: `check_cpu_manager(checker, gates, topology_policy)` -> the policy (None when broken),
`check_reserved_cpus(checker)` -> the reserved CPUs (None when unset or broken),
`check_static_reservation(checker, policy, reserved_cpus, allocatable)`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.gates import bad_bool, check_options

_POLICIES = ("none", "static")
# pkg/kubelet/cm/cpumanager/policy_options.go (option names; maturity as of v1.36/v1.37:
# full-pcpus-only GA, strict-cpu-reservation and prefer-align-cpus-by-uncorecache GA,
# distribute-cpus-across-numa beta, align-by-socket and distribute-cpus-across-cores alpha).
_OPTIONS = (("align-by-socket", "distribute-cpus-across-cores"),
            ("distribute-cpus-across-numa",),
            ("full-pcpus-only", "strict-cpu-reservation", "prefer-align-cpus-by-uncorecache"))
# pkg/kubelet/cm/cpumanager/policy_options.go: NewStaticPolicyOptions, options that exclude each other.
_EXCLUSIVE = (
    ("full-pcpus-only", "distribute-cpus-across-cores"),
    ("distribute-cpus-across-numa", "distribute-cpus-across-cores"),
    ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-cores"),
    ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-numa"),
)
# pkg/kubelet/cm/cpumanager/policy_options.go: CheckPolicyOptionAvailable
_OPTION_TEXTS = ("CPUManagerPolicyAlphaOptions", "CPUManagerPolicyBetaOptions",
                 "unknown CPU Manager Policy option: %s",
                 "CPU Manager Policy Alpha-level Options not enabled, but option %s provided",
                 "CPU Manager Policy Beta-level Options not enabled, but option %s provided")
_OPTIONS_RULE = "pkg/kubelet/cm/cpumanager/policy_options.go"
_VALIDATION_RULE = "pkg/kubelet/apis/config/validation/validation.go"


def check_cpu_manager(checker, gates, topology_policy):
    """cpuManagerPolicy and cpuManagerPolicyOptions; returns the policy, None when broken."""
    policy = checker.string("cpuManagerPolicy", "none")
    options = checker.mapping("cpuManagerPolicyOptions")
    if policy is None:
        return policy
    if policy not in _POLICIES:
        # pkg/kubelet/cm/cpumanager/cpu_manager.go: NewManager
        hint = "policy names are case-sensitive: %s" % " | ".join(_POLICIES)
        checker.add("cpuManagerPolicy", "unknown policy: %s" % wording.quote(policy), rule="pkg/kubelet/cm/cpumanager/cpu_manager.go", hint=hint)
        return None
    if policy == "none":
        if options:
            # pkg/kubelet/cm/cpumanager/policy_none.go: NewNonePolicy
            checker.add("cpuManagerPolicyOptions", "None policy: received unsupported options=%s" % wording.go_map(options),
                        rule="pkg/kubelet/cm/cpumanager/policy_none.go")
        return policy
    parsed = check_options(checker, "cpuManagerPolicyOptions", options, _OPTIONS, gates, _OPTION_TEXTS, _OPTIONS_RULE)
    # pkg/kubelet/cm/cpumanager/policy_options.go: NewStaticPolicyOptions (values, exclusive pairs)
    enabled = set()
    for name, value in parsed.items():
        flag = wording.go_bool(value)
        if flag is None:
            bad_bool(checker, "cpuManagerPolicyOptions", name, value, _OPTIONS_RULE)
        elif flag:
            enabled.add(name)
    for first, second in _EXCLUSIVE:
        if first in enabled and second in enabled:
            checker.add("cpuManagerPolicyOptions", "static policy options %s and %s can not be used at the same time" % (first, second),
                        rule=_OPTIONS_RULE)
    if "align-by-socket" in enabled and topology_policy == "single-numa-node":
        # pkg/kubelet/cm/cpumanager/policy_options.go: ValidateStaticPolicyOptions (upstream spelling kept)
        checker.add("cpuManagerPolicyOptions.align-by-socket",
                    "Topolgy manager single-numa-node policy is incompatible with CPUManager align-by-socket policy option",
                    path=("cpuManagerPolicyOptions", "align-by-socket"), rule=_OPTIONS_RULE)
    return policy


def check_reserved_cpus(checker):
    """reservedSystemCPUs as a list, or None when unset or broken (reported)."""
    text = checker.config.get("reservedSystemCPUs")
    if text is None or text == "":
        return None
    if not isinstance(text, str):
        checker.add("reservedSystemCPUs", wording.unmarshal(text, "KubeletConfiguration.reservedSystemCPUs", "string"),
                    rule=wording.STRICT_DECODING, hint="quote the cpulist: \"%s\"" % (text,))
        return None
    # pkg/kubelet/apis/config/validation/validation.go: ValidateKubeletConfiguration (reservedSystemCPUs)
    if checker.config.get("systemReservedCgroup") or checker.config.get("kubeReservedCgroup"):
        checker.add("reservedSystemCPUs", "invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup "
                    "(--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)", rule=_VALIDATION_RULE)
    try:
        cpus = _cpulist.parse(text)
    except _cpulist.CpuListError as exc:
        checker.add("reservedSystemCPUs", "invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) %s, error: %s"
                    % (text, exc), rule=_VALIDATION_RULE)
        return None
    online = checker.machine.online
    if online is not None and not set(cpus) <= set(online):
        # cmd/kubelet/app/server.go: getReservedCPUs
        checker.add("reservedSystemCPUs", "reserved-cpus: %s is not a subset of online-cpus: %s" % (text, _cpulist.format(online)),
                    rule="cmd/kubelet/app/server.go",
                    hint="CPUs %s are not online" % _cpulist.format(set(cpus) - set(online)))
    return cpus


# pkg/kubelet/cm/cpumanager/cpu_manager.go: NewManager; policy_static.go: NewStaticPolicy
def check_static_reservation(checker, policy, reserved_cpus, allocatable):
    """The static policy needs a non-zero CPU reservation that fits the online CPUs."""
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
    online = checker.machine.online
    if reserved_cpus is None and online is not None:
        wanted = -(-milli // 1000)
        if wanted > len(online):
            # pkg/kubelet/cm/cpumanager/policy_static.go: NewStaticPolicy
            checker.add("cpuManagerPolicy", "[cpumanager] unable to reserve the required amount of CPUs (size of %s did not equal %d)"
                        % (_cpulist.format(online), wanted), rule="pkg/kubelet/cm/cpumanager/policy_static.go")
