# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The three PATCH content types the API server accepts for built-in objects (a double's subset).

- ``application/merge-patch+json``: RFC 7386 (maps merged, ``null`` deletes, lists replaced).
- ``application/strategic-merge-patch+json``: k8s.io/apimachinery/pkg/util/strategicpatch. The
  double merges like RFC 7386 and understands the ``$patch: delete`` / ``$patch: replace``
  directives on maps; lists are replaced whole (the real one merges lists that carry a
  ``patchMergeKey``, e.g. node conditions by ``type``: done here for ``status.conditions``).
  Enough for cordon (``{"spec":{"unschedulable":true}}``) and uncordon (``{"spec":{"unschedulable":null}}``).
- ``application/json-patch+json``: RFC 6902 (add, remove, replace, test, copy, move). A body that
  is not a list is refused as the real handler refuses it (patch.go: NewBadRequest of the decode error).
"""

import copy
import json

from apiserver import status as api_status

MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
CONTENT_TYPES = (JSON_PATCH, MERGE, STRATEGIC)


def merge_patch(target, patch):
    """RFC 7386 merge of ``patch`` into a copy of ``target``."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _merge_by_key(current, patch, key):
    merged = [copy.deepcopy(item) for item in current or []]
    for item in patch:
        for index, existing in enumerate(merged):
            if isinstance(item, dict) and existing.get(key) == item.get(key):
                merged[index] = strategic_merge(existing, item)
                break
        else:
            merged.append(copy.deepcopy(item))
    return merged


# Lists the real strategic merge merges by a key (the API types' patchMergeKey tags).
_MERGE_KEYS = {"conditions": "type", "addresses": "type", "containers": "name", "volumes": "name"}


def strategic_merge(target, patch):
    """Strategic merge of ``patch`` into a copy of ``target`` (the subset described above)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    directive = patch.get("$patch")
    if directive == "delete":
        return None
    if directive == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, list) and key in _MERGE_KEYS and isinstance(result.get(key), list):
            result[key] = _merge_by_key(result[key], value, _MERGE_KEYS[key])
        else:
            merged = strategic_merge(result.get(key), value)
            if merged is None:
                result.pop(key, None)
            else:
                result[key] = merged
    return result


def _pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise api_status.bad_request("JSON Patch path must start with '/': %s" % path)
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _walk(doc, parts):
    for part in parts:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def _set(doc, parts, value, insert):
    parent = _walk(doc, parts[:-1])
    last = parts[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else int(last)
        if insert:
            parent.insert(index, value)
        else:
            parent[index] = value
    else:
        if not insert and last not in parent:
            raise KeyError(last)
        parent[last] = value


def _remove(doc, parts):
    parent = _walk(doc, parts[:-1])
    if isinstance(parent, list):
        return parent.pop(int(parts[-1]))
    return parent.pop(parts[-1])


def json_patch(target, operations):
    """RFC 6902 applied to a copy of ``target``."""
    if not isinstance(operations, list):
        raise api_status.bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    doc = copy.deepcopy(target)
    for operation in operations:
        op, parts = operation.get("op"), _pointer(operation.get("path", ""))
        try:
            if op == "add":
                _set(doc, parts, copy.deepcopy(operation["value"]), insert=True)
            elif op == "replace":
                _set(doc, parts, copy.deepcopy(operation["value"]), insert=False)
            elif op == "remove":
                _remove(doc, parts)
            elif op == "test":
                if _walk(doc, parts) != operation["value"]:
                    raise ValueError("testing value %s failed" % operation.get("path"))
            elif op in ("copy", "move"):
                source = _pointer(operation["from"])
                value = copy.deepcopy(_walk(doc, source))
                if op == "move":
                    _remove(doc, source)
                _set(doc, parts, value, insert=True)
            else:
                raise api_status.bad_request("Unexpected kind: %s" % op)
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            raise api_status.ApiError({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "the server rejected our request due to an error in our request: %s" % exc,
                "reason": "Invalid", "code": 422}) from exc
    return doc


def apply(content_type, target, body):
    """Apply a PATCH body of ``content_type`` to ``target``; raises ApiError for a bad type or body."""
    media = (content_type or "").split(";")[0].strip().lower()
    try:
        document = json.loads(body or b"null")
    except ValueError as exc:
        raise api_status.bad_request("error decoding patch: %s" % exc) from exc
    if media == JSON_PATCH:
        return json_patch(target, document)
    if not isinstance(document, dict):
        raise api_status.bad_request("json: cannot unmarshal %s into Go value of type map[string]interface {}" % type(document).__name__)
    if media == MERGE:
        return merge_patch(target, document)
    if media == STRATEGIC:
        return strategic_merge(target, document)
    raise api_status.ApiError({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "the body of the request was in an unknown format - accepted media types include: %s"
                   % ", ".join(CONTENT_TYPES + ("application/apply-patch+yaml",)),
        "reason": "UnsupportedMediaType", "code": 415})
