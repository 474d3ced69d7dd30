# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan merged over the node's kubelet configuration, as the kubelet merges a drop-in, and where each key came from.

Public: `base_config`, `over_base`, `origin`, `PLAN_ORIGIN`, `BASE_ORIGIN`.

The merge and its origin tracking are `_kubelet.config.merge.effective_config`'s: the base is the main
document and the plan's settings its one drop-in; what came from the base keeps the base's own
origin (the file that set it), what the plan sets is ``PLAN_ORIGIN``.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._plan.policy import PlanError

# Where a key of the merged configuration came from, in problems and reasons.
PLAN_ORIGIN = "the plan"
BASE_ORIGIN = "the node's kubelet configuration"
# Stand-ins for the two documents while effective_config merges them (a drop-in name must end in .conf).
_BASE_DOCUMENT = "<the node's kubelet configuration>"
_PLAN_DROPIN = "<the plan>.conf"


def base_config(config):
    """The node's kubelet configuration the plan is merged over (None: a bare one, kubelet defaults)."""
    if config is None:
        return merge.effective_config({"apiVersion": merge.API_VERSION, "kind": merge.KIND}, [])
    if not isinstance(config, dict):
        raise PlanError("base_config %r is a %s, expected the node's effective kubelet configuration (a dict, as "
                        "_kubelet.config.merge.effective_config returns it)" % (config, type(config).__name__))
    return config


def over_base(base, settings):
    """merge_patch(base, settings) as an EffectiveConfig: each key's origin is the base's, or PLAN_ORIGIN."""
    merged = merge.effective_config(base, [(_PLAN_DROPIN, settings)], main_path=_BASE_DOCUMENT)
    base_origin = getattr(base, "origin_of", None)
    origins = {}
    for path, source in merged.origins.items():
        if source == _PLAN_DROPIN:
            origins[path] = PLAN_ORIGIN
        elif source == _BASE_DOCUMENT:
            origins[path] = (base_origin(path) if callable(base_origin) else None) or BASE_ORIGIN
        else:
            origins[path] = source
    return merge.EffectiveConfig(merged, origins)


def origin(merged, path):
    """Where a key of the merged configuration came from, for the reasons; None when it is not set."""
    value = merged
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    source = merged.origin_of(path)
    if source == PLAN_ORIGIN:
        return "policy"
    if source == merge.DEFAULT_ORIGIN:
        return "kubelet default"
    if source in (None, BASE_ORIGIN):
        return "node config"
    return "node config %s" % source
