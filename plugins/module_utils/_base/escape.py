# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every value that goes on a page goes through one of these (device names, messages, versions are data, never markup).

Public: `text`, `html_text`, `html_attr`, `md_text`, `size`.
"""

from __future__ import annotations

import html
import json

UNKNOWN = "unknown"


def text(value):
    """A value as plain text: None is "unknown", lists and mappings as compact JSON, the rest as str()."""
    if value is None:
        return UNKNOWN
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True, separators=(", ", ": "))
    return str(value)


def html_text(value):
    """Text for an HTML or SVG element's content: &, <, >, " and ' escaped (html.escape with quote=True)."""
    return html.escape(text(value), quote=True)


def html_attr(value):
    """Text for a double-quoted HTML or SVG attribute value."""
    return html.escape(text(value), quote=True).replace("\n", "&#10;")


# Backslash escapes (CommonMark: any ASCII punctuation may be escaped) rather than HTML entities: a renderer shows "\\<" as "<"
# and never starts raw HTML or an entity there, while the file still reads as plain text in a terminal.
_MD = str.maketrans({"\\": "\\\\", "`": "\\`", "*": "\\*", "[": "\\[", "]": "\\]", "|": "\\|", "<": "\\<", "&": "\\&",
                     "\n": " ", "\r": " "})


def md_text(value):
    """Text for a Markdown table cell or line: Markdown's markup, ``<`` (raw HTML) and ``&`` (entities) backslash-escaped; no HTML entity."""
    return text(value).translate(_MD)


def size(value):
    """Bytes as "4.34 GiB (4659331072 bytes)"; None is "unknown"."""
    if value is None:
        return UNKNOWN
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return "%.2f %s (%d bytes)" % (value / scale, unit, value)
    return "%d bytes" % value
