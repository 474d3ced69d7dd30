# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's kubelet configuration as it is, read once: what kubelet_config_info returns.

Public: `read(params, documents=False)`, `LAYOUT_OPTIONS`.

`read` is the whole body of the kubelet_config_info module, so that topology_facts can return the
same reading in the same module run when asked (its ``kubelet_layout`` option): playbooks/plan.yml
then makes one node round trip fewer. Everything it returns is masked (`secrets.mask`).

With ``documents``, the reading also carries the documents themselves (``documents``: the main
file and every other drop-in in the kubelet's order, masked; our drop-in's state, its bytes only
as a digest and as masked text; each checkpoint's policy or problem), so that `render` can render
our drop-in on the controller, with no second module run (see `_kubelet/render.py`).
"""

from __future__ import annotations

import hashlib
import os

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import policy_change as checkpoint
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import layout as _layout
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import secrets

# The options of doc fragment gpusmith.numa_gate.kubelet_layout, in _layout.layout_argument_spec().
LAYOUT_OPTIONS = ("path", "config_dir", "dropin_name", "kubelet_root_dir", "root")


def read(params, documents=False):
    """The effective configuration with and without our drop-in, its files and sources, and the checkpoints' policies.

    ``params``: the kubelet_layout options (path, config_dir, dropin_name, kubelet_root_dir, root).
    Raises the ``_kubelet`` errors (FilesError, KubeletConfigError, FileIOError) naming the file.
    """
    root, paths = _layout.locate(params, ("path", "config_dir", "kubelet_root_dir"))
    _layout.check_dropin_name(params["dropin_name"])
    layout = _layout.Layout(root, params["path"], params["config_dir"], own=params["dropin_name"])
    base = layout.base()
    effective = layout.current()
    checkpoints = {"problems": []}
    reads = {}
    for name, _key, _default, _manager in checkpoint.CHECKPOINTS:
        path = os.path.join(paths["kubelet_root_dir"], name)
        policy, problem = checkpoint.policy_of(path)
        checkpoints[name] = policy
        reads[name] = {"path": path, "policy": policy, "problem": problem}
        if problem:
            checkpoints["problems"].append(problem)
    found = {
        "effective": secrets.mask(dict(effective)),
        "base": secrets.mask(dict(base)),
        "files": list(effective.files),
        "sources": {key: effective.origin_of(key) for key in effective},
        "main_exists": layout.main_doc is not None,
        "checkpoints": checkpoints,
    }
    if documents:
        found["documents"] = _documents(layout, reads)
    return found


def _documents(layout, reads):
    """The layout's documents, masked, and our drop-in's state, for `render.dropin` on the controller.

    Our drop-in parses here: `read` has already refused one that does not (``layout.current``).
    """
    before = None
    if layout.own_bytes is not None:
        before = layout.own_bytes.decode("utf-8")
        own_doc = merge.load_document(layout.own_bytes, layout.own)
        for config in [layout.main_doc, own_doc] + [doc for _path, doc in layout.dropins]:
            if config:
                before = secrets.mask_text(before, config)
    return {
        "main": {"path": layout.main_path, "doc": secrets.mask(layout.main_doc)},
        "dropins": [{"path": path, "doc": secrets.mask(doc)} for path, doc in layout.dropins],
        "own": {"path": layout.own, "link": layout.own_link, "before": before,
                "sha256": hashlib.sha256(layout.own_bytes).hexdigest() if layout.own_bytes is not None else None},
        "checkpoints": reads,
    }
