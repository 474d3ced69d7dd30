# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Keep credentials a kubelet configuration carries out of results, diffs and messages.

Public: `SENSITIVE_FIELDS`, `URL_FIELDS`, `MASK`, `mask(value)`, `mask_text(text, config)`.

Which fields: the kubelet's internal KubeletConfiguration (pkg/kubelet/apis/config/types.go)
tags exactly one field ``datapolicy:"token"``: ``staticPodURLHeader`` (HTTP headers, such as
``Authorization: Bearer ...``, sent when fetching static pods), and the kubelet masks its values
itself when it logs the effective configuration (cmd/kubelet/app/server.go:
marshalKubeletConfigForLog, ``<masked>``). ``staticPodURL`` is not tagged, but a URL can carry
``user:password@`` or a signed query string, so its userinfo and query are masked too.
``tlsPrivateKeyFile``, ``tlsCertFile`` and ``authentication.x509.clientCAFile`` are paths to
files, not secrets: the key stays in its file, and the path is what an operator needs to see to
fix a configuration, so they are shown. Header names are shown, their values are not.

`mask` works on structures (a config, an EffectiveConfig, a module result, lists of them): the
sensitive fields are found at any depth. `mask_text` is for text already built (a message, a
rendered YAML document): it replaces every sensitive value of ``config`` found in it. Mask a
document before rendering it where possible: YAML may fold a long value across lines.
"""

from __future__ import annotations

import json

from urllib.parse import urlsplit, urlunsplit

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config.merge import EffectiveConfig

MASK = "********"
SENSITIVE_FIELDS = ("staticPodURLHeader",)
URL_FIELDS = ("staticPodURL",)
# Shorter values are not searched for in text (replacing "a" would garble every message);
# words of a value (the token after "Bearer ") are searched for from this length.
_MIN_VALUE = 4
_MIN_WORD = 8


def _mask_header(value):
    if isinstance(value, dict):
        return {name: [MASK for _item in items] if isinstance(items, list) else MASK for name, items in value.items()}
    return MASK


def _url_parts(url):
    """(masked url, [secret parts]) for a URL's userinfo and query."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK, [url]
    secrets = []
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        secrets.extend([userinfo] + userinfo.split(":", 1))
        netloc = "%s@%s" % (MASK, host)
    query = parts.query
    if query:
        secrets.extend([query] + [item.split("=", 1)[-1] for item in query.split("&")])
        query = MASK
    if not secrets:
        return url, []
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)), secrets


def mask(value):
    """A copy of ``value`` with every credential-carrying kubelet field masked; input untouched."""
    if isinstance(value, dict):
        masked = {}
        for key, item in value.items():
            if key in SENSITIVE_FIELDS:
                masked[key] = _mask_header(item)
            elif key in URL_FIELDS and isinstance(item, str):
                masked[key] = _url_parts(item)[0]
            else:
                masked[key] = mask(item)
        if isinstance(value, EffectiveConfig):
            return EffectiveConfig(masked, value.origins, value.files)
        return masked
    if isinstance(value, (list, tuple)):
        return [mask(item) for item in value]
    return value


def _strings(value):
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings(item)]
    return [] if value is None else [str(value)]


def _secrets(value):
    """Every sensitive string in ``value``, at any depth."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in SENSITIVE_FIELDS:
                found.extend(_strings(item))
            elif key in URL_FIELDS and isinstance(item, str):
                found.extend(_url_parts(item)[1])
            else:
                found.extend(_secrets(item))
    elif isinstance(value, (list, tuple)):
        for item in value:
            found.extend(_secrets(item))
    return found


def mask_text(text, config):
    """``text`` with every sensitive value of ``config`` (any structure) replaced by MASK."""
    if not isinstance(text, str):
        return text
    needles = set()
    for secret in _secrets(config):
        if len(secret) >= _MIN_VALUE:
            needles.add(secret)
            needles.add(json.dumps(secret)[1:-1])  # as it appears inside JSON or a quoted message
        needles.update(word for word in secret.split() if len(word) >= _MIN_WORD)
    for needle in sorted(needles, key=len, reverse=True):
        text = text.replace(needle, MASK)
    return text
