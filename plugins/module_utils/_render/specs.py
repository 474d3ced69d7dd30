# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_render action's argument spec, and kubelet_config's that it passes on, declared once.

Public: `KUBELET_CONFIG`, `KUBELET_CONFIG_RULES`, `KUBELET_RENDER`.

`KUBELET_CONFIG` is the kubelet_config module's options but journal (the module adds `journal.step`'s);
`KUBELET_RENDER` is them plus reading: the kubelet_render action takes its defaults from it and hands the
other options to kubelet_config unchanged, and its module file documents it. Plain dicts, from the layout's and
the state folder's one default each (`_kubelet.config.layout`, `_node_files.confine`).
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as _layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import confine

KUBELET_CONFIG = {
    **_layout.layout_argument_spec(),
    "mode": {"type": "str", "choices": ["dropin", "main"], "default": "dropin"},
    "settings": {"type": "dict"},
    "node": {"type": "dict"},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "backup_dir": {"type": "str", "default": os.path.join(confine.DEFAULT_STATE_DIR, "backups")},
    "stale_checkpoints": {"type": "str", "choices": ["fail", "report"], "default": "fail"},
}
# AnsibleModule's other keywords for kubelet_config.
KUBELET_CONFIG_RULES = {"required_if": [("state", "present", ("settings", "node"))]}

KUBELET_RENDER = {
    "reading": {"type": "dict"},
    **KUBELET_CONFIG,
}
