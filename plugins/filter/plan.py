# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: reservation_plan (docs in plugins/filter/reservation_plan.yml)."""

from __future__ import annotations

from decimal import DecimalException

from ansible.errors import AnsibleFilterError

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan import plan
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.policy import in_user_terms
from ansible_collections.gpusmith.numa_gate.plugins.plugin_utils.filters import adapt, plain

ERRORS = ("raise", "return")


def reservation_plan(topology, policy=None, base_config=None, names=None, errors="raise"):
    """Plan kubelet CPU and memory reservations from numa_gate_topology facts, over the node's kubelet configuration.

    ``names`` (policy key -> the variable the user sets) rewrites the keys a refusal or a warning names. ``errors=return``
    gives ``{"error": message}`` instead of raising: ansible-core 2.19 prints a filter's error once per template layer
    (four times for a set_fact), so the kubelet_plan role fails with the message in one task of its own.
    """
    if errors not in ERRORS:
        raise AnsibleFilterError("reservation_plan: errors %r is not one of %s" % (errors, ", ".join(ERRORS)))
    names = plain(names) if names is not None else {}
    if not isinstance(names, dict):
        raise AnsibleFilterError("reservation_plan: names %r is not a dict of policy key: variable name" % (names,))
    if not names and errors == "raise":
        return adapt("reservation_plan", plan.reservation_plan, topology, policy, base_config)
    try:
        result = plan.reservation_plan(plain(topology), plain(policy), plain(base_config))
    except (NumaGateError, ValueError, DecimalException) as exc:
        message = in_user_terms(str(exc), names)
        if errors == "return":
            return {"error": message}
        # The key names differ from the cause's, which ansible-core would print again after it.
        raise AnsibleFilterError("reservation_plan: %s" % message) from None
    result["warnings"] = [in_user_terms(warning, names) for warning in result["warnings"]]
    return result


class FilterModule(object):
    """The reservation planner filter."""

    def filters(self):
        return {"reservation_plan": reservation_plan}
