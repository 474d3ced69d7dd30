# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One node's wanted scheduling state: cordoned, drained or uncordoned, or its drain checked (the kube_node action's logic).

Public: `apply`, `STATES`, `options_from`.
"""

from __future__ import annotations

import time

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.api import cordon, drain, dry_run, specs

STATES = specs.STATES  # declared with the kube_node action's argument spec, which the module file imports without this file


def options_from(args):
    """`drain.DrainOptions` from the action's arguments, checked (names the bad value)."""
    if args["timeout"] < 0:
        raise NumaGateError("timeout must be 0 (no bound, as kubectl's --timeout=0) or more seconds, not %r" % (args["timeout"],))
    if not args["poll"] > 0:
        raise NumaGateError("poll must be more than 0 seconds, not %r" % (args["poll"],))
    grace = args.get("grace_period")
    if grace is not None and grace < 0:
        grace = None  # kubectl: a negative grace period means the pod's own
    return drain.DrainOptions(timeout=args["timeout"], poll=args["poll"], ignore_daemonsets=args["ignore_daemonsets"],
                              delete_emptydir_data=args["delete_emptydir_data"], force=args["force"], grace_period=grace,
                              disable_eviction=args["disable_eviction"])


def apply(api, name, state, options=drain.DEFAULT_OPTIONS, check_mode=False, display=None, clock=time.monotonic, sleep=time.sleep,
          admission=None):
    """Bring node ``name`` to ``state``; the result dict (``changed``, ``was_unschedulable``, and per state
    ``cordoned`` / ``uncordoned``, or the drain's keys, or the dry run's, with ``admission`` its prediction of the pods that stay)."""
    if state not in STATES:
        raise NumaGateError("state must be one of %s, not %r" % (", ".join(STATES), state))
    if state == "drainable":
        # A dry run changes nothing; check mode sends not even the dry runs (the API sees only reads).
        return dry_run.check(api, name, options, admission=admission, check_mode=check_mode)
    if state == "drained":
        return drain.drain(api, name, options, check_mode=check_mode, display=display, clock=clock, sleep=sleep)
    changed, was = cordon.set_unschedulable(api, name, state == "cordoned", check_mode=check_mode)
    key = "cordoned" if state == "cordoned" else "uncordoned"
    return {"changed": changed, "was_unschedulable": was, key: changed}
