# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write protoc's serialized FileDescriptorSet of api.proto as a Python module (api_descriptor.py) the nodes get.

Usage (scripts/gen_podresources.sh runs it; standard library only):
    python scripts/podresources_postprocess.py --tools "grpcio-tools X protobuf Y" DESCRIPTOR_SET OUTPUT

Ansible's module packer (AnsiballZ) ships only the ``.py`` files of module_utils to a node, so the
descriptor travels as a bytes literal: ``FILE_DESCRIPTOR_SET``, split into concatenated literals of at
most MAX_LINE columns, and ``SHA256``, the digest of those bytes. Deterministic: the same descriptor
set gives the same file. It checks that the module it wrote evaluates back to the same bytes.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import sys

MAX_LINE = 159
INDENT = "    "
# printable ASCII that needs no escape inside b"..."
PLAIN = {c: chr(c) for c in range(0x20, 0x7f) if chr(c) not in '\\"'}
NAMED = {0x5c: "\\\\", 0x22: '\\"', 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t"}

HEADER = '''\
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
#
# Generated from plugins/module_utils/_evidence/podresources/api.proto by scripts/gen_podresources.sh
# ({tools}); do not edit. The script's exact commands, from the repository root:
#   D=plugins/module_utils/_evidence/podresources
#   python -m grpc_tools.protoc -I$D --include_imports --descriptor_set_out=<stage>/api.desc api.proto
#   python scripts/podresources_postprocess.py --tools '{tools}' <stage>/api.desc $D/api_descriptor.py
"""The serialized ``FileDescriptorSet`` of api.proto (beside this file): messages.py builds the message classes from it at run time.

A descriptor set is data, not generated code: it carries no protobuf version check, and every
protobuf runtime from 3.12 on reads it.
"""

from __future__ import annotations

SHA256 = "{sha256}"

FILE_DESCRIPTOR_SET = (
{literals}
)
'''


class PostProcessError(Exception):
    """The output would not evaluate back to the descriptor set's bytes; nothing is written."""


def _escape(byte):
    if byte in PLAIN:
        return PLAIN[byte]
    return NAMED.get(byte, "\\x%02x" % byte)


def literals(data, width=MAX_LINE):
    """``data`` as lines of concatenated bytes literals, each line at most ``width`` columns (an escape is never split)."""
    room = width - len(INDENT) - len('b""')
    lines, piece = [], ""
    for byte in data:
        text = _escape(byte)
        if len(piece) + len(text) > room:
            lines.append('%sb"%s"' % (INDENT, piece))
            piece = ""
        piece += text
    if piece or not lines:
        lines.append('%sb"%s"' % (INDENT, piece))
    return lines


def render(data, tools):
    """The module's text for the descriptor set ``data`` made by ``tools``."""
    return HEADER.format(tools=tools, sha256=hashlib.sha256(data).hexdigest(), literals="\n".join(literals(data)))


def check(text, data):
    """Parse the module text and compare its literal and digest with ``data``."""
    tree = ast.parse(text)
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = ast.literal_eval(node.value)
    if values.get("FILE_DESCRIPTOR_SET") != data:
        raise PostProcessError("FILE_DESCRIPTOR_SET does not evaluate back to the descriptor set's %d bytes" % len(data))
    if values.get("SHA256") != hashlib.sha256(data).hexdigest():
        raise PostProcessError("SHA256 is not the digest of the descriptor set")
    long_lines = [number for number, line in enumerate(text.splitlines(), 1) if len(line) > MAX_LINE]
    if long_lines:
        raise PostProcessError("lines longer than %d columns: %s" % (MAX_LINE, long_lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", required=True, help="the protoc the set was made with, e.g. 'grpcio-tools 1.85.1 protobuf 7.36.2'")
    parser.add_argument("descriptor_set")
    parser.add_argument("output")
    args = parser.parse_args(argv)
    with open(args.descriptor_set, "rb") as handle:
        data = handle.read()
    if not data:
        raise PostProcessError("%s is empty" % args.descriptor_set)
    text = render(data, args.tools)
    check(text, data)
    temporary = args.output + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, args.output)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except PostProcessError as exc:
        sys.stderr.write("podresources_postprocess.py: %s\n" % exc)
        sys.exit(1)
