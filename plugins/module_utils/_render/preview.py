# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Our drop-in rendered on the controller from a reading, as kubelet_config renders it in check mode.

Public: `dropin(reading, settings, node, stale_checkpoints="fail")`, `matches(reading, layout)`,
`stale_messages(config, reads)`, `dump`, `RenderError`.

``reading`` is what `info.read(params, documents=True)` returned on the node (topology_facts with
``kubelet_layout``): the main file and the other drop-ins (masked), our drop-in's digest and masked
text, and each checkpoint's policy. From it, `dropin` computes what the kubelet_config module
computes for ``mode: dropin, state: present`` in check mode - the same target (`merge`), the same
rules (`fields.check_fields`, `validate.validate`), the same stale-checkpoint words
(`stale_messages`, `checkpoint.stale` over the policies read on the node) and the same diff - with no module run on the node. Nothing is
written anywhere; applying stays the module's.
"""

from __future__ import annotations

import hashlib
import json

try:
    import yaml
except ImportError:  # the controller always has PyYAML (ansible-core needs it); this keeps the import test honest
    yaml = None

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._facts import schema
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints import policy_change as checkpoint
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import fields
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import files
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import secrets
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import validate

# The options a reading records in ``layout`` (info.LAYOUT_OPTIONS).
LAYOUT_OPTIONS = ("path", "config_dir", "dropin_name", "kubelet_root_dir", "root")


class RenderError(NumaGateError, ValueError):
    """The target configuration is refused (or the reading cannot be rendered); ``details`` hold the result.

    ``warnings``: what the module would have warned about before failing.
    """

    warnings = ()


def dump(doc):
    """YAML exactly as the kubelet_config module writes it."""
    return yaml.safe_dump(doc, default_flow_style=False, sort_keys=False, width=4096, allow_unicode=True)


def matches(reading, layout):
    """Whether ``reading`` was read with these layout options (path, config_dir, dropin_name, kubelet_root_dir, root)."""
    read_with = (reading or {}).get("layout") or {}
    return bool((reading or {}).get("documents")) and all(read_with.get(name) == layout.get(name) for name in LAYOUT_OPTIONS)


class _Masker:
    """Masks the credential-carrying values of every configuration involved, in text."""

    def __init__(self, configs):
        self.configs = [config for config in configs if config]

    def text(self, text):
        for config in self.configs:
            text = secrets.mask_text(text, config)
        return text


def _target(documents, settings):
    own = documents["own"]
    if own["link"] is not None:
        raise files.FilesError("%s is a symlink (to %s) that this collection did not create; not replaced: remove the link "
                               "or choose another dropin_name" % (own["path"], own["link"]))
    doc = {key: value for key, value in settings.items() if key not in ("apiVersion", "kind")}
    after = files.render(doc, files.DROPIN_HEADER, dump)
    dropins = [(item["path"], item["doc"]) for item in documents["dropins"]] + [(own["path"], doc)]
    target = merge.effective_config(documents["main"]["doc"], dropins, documents["main"]["path"])
    return after, target


def stale_messages(config, reads):
    """`checkpoint.stale`'s messages, from the policies read on the node (``reads``: name -> path, policy, problem)."""
    problems = []
    for name, key, default, manager in checkpoint.CHECKPOINTS:
        read = reads[name]
        if read["problem"]:
            problems.append(read["problem"] + "; the kubelet could not restore it either: drain the node, stop the kubelet and remove it")
            continue
        configured = config.get(key) or default
        if read["policy"] is not None and read["policy"] != configured:
            problems.append(
                "could not restore state from checkpoint: configured policy %s differs from state checkpoint policy %s, please drain "
                "this node and delete the %s checkpoint file %s before restarting Kubelet"
                % (json.dumps(configured), json.dumps(read["policy"]), manager, json.dumps(read["path"])))
    return problems


def dropin(reading, settings, node, stale_checkpoints="fail"):
    """(result, warnings) of kubelet_config (mode dropin, state present) in check and diff mode, from ``reading``.

    Raises RenderError with the module's message (and the result in ``details``) where the module fails.
    """
    documents = reading["documents"]
    masker = _Masker([settings, documents["main"]["doc"]] + [item["doc"] for item in documents["dropins"]])
    try:
        node_summary = schema.kubelet_node(node)
        problems = fields.check_fields(settings, "settings")
        after, target = _target(documents, settings)
    except NumaGateError as exc:
        raise RenderError(masker.text("%s; nothing was written" % exc), **exc.details)
    masker.configs.append(target)
    warnings = []
    if documents["main"]["doc"] is None:
        warnings.append("main kubelet config %s does not exist; validating the drop-ins alone" % documents["main"]["path"])
    seen = {(p.key, p.message) for p in problems}
    problems += [p for p in validate.validate(target, node_summary) if (p.key, p.message) not in seen]
    own = documents["own"]
    changed = own["sha256"] != hashlib.sha256(after).hexdigest()
    stale = stale_messages(target, documents["checkpoints"]) if changed else []
    result = {
        "changed": changed, "path": own["path"], "backup_file": None,
        "effective": secrets.mask(dict(target)), "files": list(target.files),
        "sources": {key: target.origin_of(key) for key in target},
        "problems": [{key: masker.text(value) if isinstance(value, str) else value for key, value in p.as_dict().items()}
                     for p in problems],
        "stale_checkpoints": stale,
        "content": masker.text(after.decode("utf-8")),
    }
    if problems or (stale and stale_checkpoints == "fail"):
        refused = stale if stale_checkpoints == "fail" else []
        lines = "\n".join(["- %s" % p for p in problems] + ["- %s" % m for m in refused])
        result["changed"] = False
        error = RenderError(masker.text("the kubelet would refuse this configuration; nothing was written:\n%s" % lines), **result)
        error.warnings = [masker.text(warning) for warning in warnings]
        raise error
    if changed:
        result["diff"] = {"before_header": own["path"], "after_header": own["path"],
                          "before": masker.text(own["before"] or ""), "after": masker.text(after.decode("utf-8"))}
    return result, [masker.text(warning) for warning in warnings]
