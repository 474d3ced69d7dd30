# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Feature gates, and the policy options whose maturity a gate switches on.

Public: `check_gates(checker)` -> the gates as the kubelet resolves them; `check_options(checker,
key, options, known, gates, texts)` (CheckPolicyOptionAvailable, shared by the CPU and Topology
Manager rules); `bad_bool`.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording

# Feature gates this collection relies on, with the kubelet 1.37 defaults.
# pkg/features/kube_features.go; stages from the feature-gate reference pages.
_GATE_DEFAULTS = {
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
_LOCKED = ("CPUManagerPolicyOptions", "TopologyManagerPolicyOptions", "MemoryManager")
# KEP-5526: PodLevelResourceManagers depends on PodLevelResources. The 1.37
# kube_features.go dependency table was not found in the stored sources; the
# wording is component-base/featuregate/feature_gate.go's dependency check.
_DEPENDENCIES = {"PodLevelResourceManagers": ("PodLevelResources",)}
_RULE = "k8s.io/component-base/featuregate/feature_gate.go"


def check_gates(checker):
    """The feature gates as the kubelet resolves them (config over defaults)."""
    # k8s.io/component-base/featuregate/feature_gate.go: SetFromMap; values are booleans.
    given = checker.mapping("featureGates", "bool")
    lowered = {name.lower(): name for name in _GATE_DEFAULTS}
    for name in sorted(given):
        if name in _GATE_DEFAULTS:
            continue
        near = lowered.get(name.lower()) or wording.near_miss(name, _GATE_DEFAULTS)
        if near:
            checker.add("featureGates.%s" % name, "unrecognized feature gate: %s" % name, path=("featureGates", name),
                        rule=_RULE, hint="did you mean %s? gate names are case-sensitive" % near)
    for name in _LOCKED:
        if name in given and given[name] != _GATE_DEFAULTS[name]:
            checker.add("featureGates.%s" % name, "cannot set feature gate %s to %s, feature is locked to %s"
                        % (name, str(given[name]).lower(), str(_GATE_DEFAULTS[name]).lower()),
                        path=("featureGates", name), rule=_RULE)
    gates = dict(_GATE_DEFAULTS)
    gates.update(given)
    for feature in sorted(_DEPENDENCIES):
        if not gates.get(feature):
            continue
        disabled = [dep for dep in _DEPENDENCIES[feature] if not gates.get(dep)]
        if disabled:
            checker.add("featureGates.%s" % feature,
                        "%s is enabled, but depends on features that are disabled: [%s]" % (feature, " ".join(disabled)),
                        path=("featureGates", feature), rule=_RULE,
                        hint="set featureGates.%s: true" % disabled[0])
    return gates


def check_options(checker, key, options, known, gates, texts, rule):
    """CheckPolicyOptionAvailable: the option exists and its maturity's gate is on.

    ``known`` is (alpha, beta, stable) option names, ``texts`` the manager's
    (alpha gate, beta gate, unknown, alpha off, beta off) wording. Returns the
    options that passed.
    """
    alpha, beta, stable = known
    alpha_gate, beta_gate, unknown, alpha_off, beta_off = texts
    parsed = {}
    for name in sorted(options):
        path = (key, name)
        full = "%s.%s" % (key, name)
        if name not in alpha and name not in beta and name not in stable:
            checker.add(full, unknown % wording.quote(name), path=path, rule=rule)
        elif name in alpha and not gates.get(alpha_gate):
            checker.add(full, alpha_off % wording.quote(name), path=path, rule=rule, hint="set featureGates.%s: true" % alpha_gate)
        elif name in beta and not gates.get(beta_gate):
            checker.add(full, beta_off % wording.quote(name), path=path, rule=rule, hint="set featureGates.%s: true" % beta_gate)
        else:
            parsed[name] = options[name]
    return parsed


def bad_bool(checker, key, name, value, rule):
    """An option value strconv.ParseBool refuses."""
    checker.add("%s.%s" % (key, name), "bad value for option %s: strconv.ParseBool: parsing %s: invalid syntax"
                % (wording.quote(name), wording.quote(value)), path=(key, name), rule=rule)
