# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's kubelet configuration as it is, read once: what kubelet_config_info returns.

Public: `read(params)`, `LAYOUT_OPTIONS`.

`read` is the whole body of the kubelet_config_info module, so that topology_facts can return the
same reading in the same module run when asked (its ``kubelet_layout`` option): playbooks/plan.yml
then makes one node round trip fewer. Everything it returns is masked (`secrets.mask`).
"""

from __future__ import annotations

import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet import checkpoint
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet import files
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet import secrets

# The options of doc fragment gpusmith.numa_gate.kubelet_layout, in files.layout_argument_spec().
LAYOUT_OPTIONS = ("path", "config_dir", "dropin_name", "kubelet_root_dir", "root")


def read(params):
    """The effective configuration with and without our drop-in, its files and sources, and the checkpoints' policies.

    ``params``: the kubelet_layout options (path, config_dir, dropin_name, kubelet_root_dir, root).
    Raises the ``_kubelet`` errors (FilesError, KubeletConfigError, FileIOError) naming the file.
    """
    root, paths = files.locate(params, ("path", "config_dir", "kubelet_root_dir"))
    files.check_dropin_name(params["dropin_name"])
    layout = files.Layout(root, params["path"], params["config_dir"], own=params["dropin_name"])
    base = layout.base()
    effective = layout.current()
    checkpoints = {"problems": []}
    for name, _key, _default, _manager in checkpoint.CHECKPOINTS:
        policy, problem = checkpoint.policy_of(os.path.join(paths["kubelet_root_dir"], name))
        checkpoints[name] = policy
        if problem:
            checkpoints["problems"].append(problem)
    return {
        "effective": secrets.mask(dict(effective)),
        "base": secrets.mask(dict(base)),
        "files": list(effective.files),
        "sources": {key: effective.origin_of(key) for key in effective},
        "main_exists": layout.main_doc is not None,
        "checkpoints": checkpoints,
    }
