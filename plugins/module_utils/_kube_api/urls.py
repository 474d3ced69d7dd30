# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""No credential of a URL in a message: ``https://user:password@host`` is shown as ``https://********@host``.

Public: `MASK`, `mask_url`, `mask_text`, `userinfo`.

A kubeconfig's ``server`` (or a proxy URL) may carry ``user:password@``; every message and result that
names the API server goes through `mask_url` (one URL) or `mask_text` (text already built, such as an
error a library raised, which may quote the URL in any form).
"""

from __future__ import annotations

import re

MASK = "********"
# scheme://<anything without a slash or space up to the last @ of the authority>@
# user:password@ where the password may hold an unencoded '/' (or '@'): up to the last '@' before a space. Without a ':'
# the userinfo ends at the first '/', as a URL parser reads it.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)(?:[^\s/@:]*:[^\s]*|[^/\s]*)@")
_MIN_SECRET = 4


def userinfo(url):
    """The ``user:password`` part of ``url`` (with its pieces), or ``[]``: the strings a message must not show."""
    match = _USERINFO.match(url or "")
    if not match:
        return []
    found = match.group(0)[len(match.group(1)):-1]
    return [found] + [part for part in found.split(":", 1) if part]


def mask_url(url):
    """``url`` with its userinfo replaced by `MASK` (anything else unchanged); None stays None."""
    if url is None:
        return None
    return _USERINFO.sub(lambda m: m.group(1) + MASK + "@", str(url))


def mask_text(text, secrets=()):
    """``text`` with the userinfo of every URL in it masked, and each of ``secrets`` (4 characters or more) replaced by `MASK`."""
    text = mask_url(text)
    for secret in sorted({s for s in secrets if s and len(s) >= _MIN_SECRET}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
