# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Post-process grpcio-tools' api_pb2.py / api_pb2_grpc.py so the checked-in copies pass ansible-test sanity.

Usage (scripts/gen_podresources.sh runs it; standard library only):
    python scripts/podresources_postprocess.py --tools "grpcio-tools X protobuf Y" GENERATED OUTPUT

Deterministic: the same protoc output gives the same bytes. It changes layout only, plus four edits
that keep behaviour when the libraries are there:
- the long import alias protoc derives from the collection path (``ansible__collections_dot_..._api__pb2``)
  is renamed ``api__pb2`` (the name protoc gives a plain api.proto);
- the top-level imports of ``google.protobuf`` / ``grpc`` go into ``try: ... except ImportError``
  that sets ``HAS_PROTOBUF`` / ``HAS_GRPC`` and ``PROTOBUF_IMPORT_ERROR`` / ``GRPC_IMPORT_ERROR``,
  and the rest of the module runs under ``if HAS_...:``, so importing never fails without them;
- a top-level import of a standard library module that the code never uses (``import warnings``) is left out;
- layout: 4-space indentation, pep8 continuation lines, spaces around ``=``, at most one blank line
  in a row, and bytes literals longer than a line split into concatenated literals.
It then checks that the result parses to the same statements as protoc's code (docstrings compared
after inspect.cleandoc) and that no line is longer than MAX_LINE; any difference is an error.
"""

from __future__ import annotations

import argparse
import ast
import copy
import inspect
import io
import os
import re
import sys
import tokenize

MAX_LINE = 159
GUARDED = {"google": ("PROTOBUF", "google.protobuf"), "grpc": ("GRPC", "grpc")}
OPENERS, CLOSERS = "([{", ")]}"
SKIP = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER)


class PostProcessError(Exception):
    """The generated code is not of the shape this post-processor knows; nothing is written."""


def _tokens(source):
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def _replace_spans(source, edits):
    """``edits``: [((row, col), (row, col), text)] on single rows; applied right to left."""
    lines = source.splitlines(keepends=True)
    for (row, start), (_row, end), text in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + text + line[end:]
    return "".join(lines)


def rename_aliases(source, tree):
    """Rename protoc's path-derived import aliases to ``<name with _ doubled>``."""
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname and len(alias.asname) > 40:
                    names[alias.asname] = alias.name.replace("_", "__")
    taken = {t.string for t in _tokens(source) if t.type == tokenize.NAME}
    for old, new in names.items():
        if new in taken:
            raise PostProcessError("cannot rename %s: %s is already used" % (old, new))
    edits = [(t.start, t.end, names[t.string]) for t in _tokens(source) if t.type == tokenize.NAME and t.string in names]
    return _replace_spans(source, edits), names


def space_assignments(source):
    """E225: spaces around ``=`` in one-line statements (protoc writes ``x._serialized_start=100``)."""
    edits, line_tokens, depth = [], [], 0
    for tok in _tokens(source):
        if tok.type == tokenize.OP and tok.string in OPENERS:
            depth += 1
        elif tok.type == tokenize.OP and tok.string in CLOSERS:
            depth -= 1
        if tok.type == tokenize.NEWLINE:
            if line_tokens and line_tokens[0][0].start[0] == tok.start[0]:
                edits.extend(_assignment_edits(line_tokens))
            line_tokens = []
        elif tok.type not in SKIP:
            line_tokens.append((tok, depth))
    return _replace_spans(source, edits)


def _assignment_edits(line_tokens):
    edits = []
    for index, (tok, depth) in enumerate(line_tokens):
        if tok.type == tokenize.OP and tok.string == "=" and depth == 0:
            before, after = line_tokens[index - 1][0], line_tokens[index + 1][0]
            if before.end == tok.start or after.start == tok.end:
                edits.append((before.end, after.start, " = "))
    return [((b[0], b[1]), (a[0], a[1]), text) for b, a, text in edits]


class _Reindenter:
    """New leading whitespace for every physical line: 4 spaces a block level plus ``extra``."""

    def __init__(self, source, extra):
        self.lines = source.splitlines()
        self.extra = extra
        self.delta = {}        # row -> change of its leading whitespace
        self.interior = set()  # rows inside a multi-line string (after its first row)
        self.pending = []      # comment-only rows waiting for the next code row's indent

    def old_indent(self, row):
        line = self.lines[row - 1]
        return len(line) - len(line.lstrip(" "))

    def new_indent(self, row):
        return self.old_indent(row) + self.delta[row]

    def _decide(self, row, indent):
        self.delta[row] = indent - self.old_indent(row)
        for comment_row in self.pending:
            self.delta[comment_row] = indent - self.old_indent(comment_row)
        self.pending = []

    def run(self):
        tokens = _tokens("\n".join(self.lines) + "\n")
        depth, stack, row_seen = 0, [], set()
        for index, tok in enumerate(tokens):
            row = tok.start[0]
            if tok.type == tokenize.INDENT:
                depth += 1
                continue
            if tok.type == tokenize.DEDENT:
                depth -= 1
                continue
            if tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            if row not in row_seen and row not in self.interior:
                row_seen.add(row)
                if tok.type == tokenize.COMMENT and not stack:
                    self.pending.append(row)
                elif not stack:
                    self._decide(row, 4 * depth + self.extra)
                elif tok.type == tokenize.OP and tok.string in CLOSERS:
                    self._decide(row, stack[-1][1])
                else:
                    self._decide(row, stack[-1][0])
            if tok.type == tokenize.OP and tok.string in OPENERS:
                stack.append(self._bracket(tokens, index))
            elif tok.type == tokenize.OP and tok.string in CLOSERS:
                stack.pop()
            elif tok.type == tokenize.STRING and tok.end[0] > row:
                for inner in range(row + 1, tok.end[0] + 1):
                    self.interior.add(inner)
                    self.delta[inner] = self.delta[row]
                row_seen.add(tok.end[0])
        for comment_row in self.pending:
            self.delta[comment_row] = self.extra - self.old_indent(comment_row)
        return self._render()

    def _bracket(self, tokens, index):
        """(indent of continuation rows, indent of a row that starts with the closing bracket)."""
        tok, following = tokens[index], tokens[index + 1]
        row = tok.start[0]
        if following.type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            return self.new_indent(row) + 4, self.new_indent(row)
        column = following.start[1] + self.delta[row]
        return column, column

    def _render(self):
        out, blank = [], 0
        for row, line in enumerate(self.lines, 1):
            if row in self.interior:
                out.append(_shift(line, self.delta[row]))
                blank = 0
            elif not line.strip():
                blank += 1
                if blank == 1 and out:
                    out.append("")
            else:
                out.append(" " * self.new_indent(row) + line.lstrip(" "))
                blank = 0
        while out and not out[-1]:
            out.pop()
        return "\n".join(out) + "\n"


def _shift(line, delta):
    if not line.strip():
        return ""
    if delta >= 0:
        return " " * delta + line
    if line[:-delta].strip():
        raise PostProcessError("cannot dedent a string line: %r" % line)
    return line[-delta:]


def split_bytes_literals(source):
    """``NAME = call(b'...')`` lines over MAX_LINE become the call over several concatenated literals."""
    out = []
    for line in source.splitlines():
        match = re.match(r"^( *)([\w.]+ = [\w.()]+\()(b'.*'|b\".*\")\)$", line)
        if len(line) <= MAX_LINE or not match:
            out.append(line)
            continue
        indent, head, literal = match.groups()
        value = ast.literal_eval(literal)
        out.append(indent + head)
        out.extend(indent + "    " + chunk for chunk in _chunks(value, MAX_LINE - len(indent) - 4))
        out.append(indent + ")")
    return "\n".join(out) + "\n"


def _chunks(value, width):
    chunks, start = [], 0
    while start < len(value):
        end = start + 1
        while end < len(value) and len(repr(value[start:end + 1])) <= width:
            end += 1
        chunks.append(repr(value[start:end]))
        start = end
    return chunks


def _guard_of(node):
    if isinstance(node, ast.Import):
        roots = {alias.name.split(".")[0] for alias in node.names}
    elif isinstance(node, ast.ImportFrom) and node.level == 0:
        roots = {node.module.split(".")[0]}
    else:
        return None
    found = roots & set(GUARDED)
    if found and roots - found:
        raise PostProcessError("line %d mixes guarded and other imports" % node.lineno)
    return found.pop() if found else None


def unused_stdlib_imports(tree):
    """Top-level ``import <standard library module>`` statements whose names the module never uses (protoc's ``import warnings``)."""
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return [node for node in tree.body if isinstance(node, ast.Import)
            and all(alias.name in sys.stdlib_module_names and (alias.asname or alias.name).split(".")[0] not in used for alias in node.names)]


def _segment(lines, node):
    return "".join(lines[node.lineno - 1:node.end_lineno])


def restructure(source, tools, name):
    """Header, protoc's leading comments and docstring, other imports, the guarded imports, the body under ``if HAS_...:``."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    body = tree.body
    docstring = body[0] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else None
    imports_end = 1 if docstring else 0
    while imports_end < len(body) and isinstance(body[imports_end], (ast.Import, ast.ImportFrom)):
        imports_end += 1
    imports = body[1 if docstring else 0:imports_end]
    guarded = [node for node in imports if _guard_of(node)]
    kinds = {_guard_of(node) for node in guarded}
    if len(kinds) != 1 or imports_end == len(body):
        raise PostProcessError("expected top-level imports of exactly one of %s, then code" % sorted(GUARDED))
    flag, module = GUARDED[kinds.pop()]
    start = body[0].lineno if not docstring else docstring.lineno
    leading = [line for line in lines[:start - 1] if line.startswith("#") and "pylint" not in line]
    rest = "".join(lines[imports[-1].end_lineno:])
    parts = header(tools, name, module)
    parts.extend(leading)
    if docstring:
        parts.append(_segment(lines, docstring))
    parts.extend(_segment(lines, node) for node in imports if not _guard_of(node) and node not in unused_stdlib_imports(tree))
    parts.append("\ntry:\n")
    parts.extend("    " + _segment(lines, node) for node in guarded)
    parts.append("except ImportError as _exc:\n")
    parts.append("    HAS_%s = False\n" % flag)
    parts.append("    %s_IMPORT_ERROR = \"%%s: %%s\" %% (type(_exc).__name__, _exc)\n" % flag)
    parts.append("else:\n    HAS_%s = True\n    %s_IMPORT_ERROR = None\n\n" % (flag, flag))
    parts.append("if HAS_%s:\n" % flag)
    parts.append(_Reindenter(space_assignments(rest), 4).run())
    return "".join(parts), flag


def _normalized(nodes):
    """ast.dump of ``nodes`` with every docstring passed through inspect.cleandoc."""
    dumps = []
    for node in nodes:
        node = copy.deepcopy(node)
        for inner in ast.walk(node):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
                first = inner.body[0] if inner.body else None
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                    first.value.value = inspect.cleandoc(first.value.value)
        dumps.append(ast.dump(node))
    return dumps


def check(original, result, flag):
    """The result holds protoc's statements (aliases renamed), only moved into try / if HAS_...; lines fit."""
    for number, line in enumerate(result.splitlines(), 1):
        if len(line) > MAX_LINE:
            raise PostProcessError("line %d is %d characters long" % (number, len(line)))
        if line != line.rstrip():
            raise PostProcessError("line %d has trailing whitespace" % number)
    old, new = ast.parse(original).body, ast.parse(result).body
    guarded = [node for node in old if _guard_of(node)]
    dropped = unused_stdlib_imports(ast.parse(original))
    kept = [node for node in old if node not in guarded and ast.dump(node) not in [ast.dump(d) for d in dropped]]
    tail = [node for node in new if not isinstance(node, (ast.Try, ast.If))]
    trys = [node for node in new if isinstance(node, ast.Try)]
    ifs = [node for node in new if isinstance(node, ast.If)]
    if len(trys) != 1 or len(ifs) != 1 or ast.unparse(ifs[0].test) != "HAS_%s" % flag:
        raise PostProcessError("expected one try block and one 'if HAS_%s:' block" % flag)
    expected = _normalized(guarded) + _normalized(kept)
    actual = _normalized(trys[0].body) + _normalized(tail + ifs[0].body)
    if expected != actual:
        raise PostProcessError("the post-processed statements differ from protoc's")


def header(tools, name, module):
    """The lines that say where the file came from and exactly how to make it again."""
    pkg = "plugins/module_utils/_evidence/podresources"
    return [
        "# Generated from %s/api.proto by scripts/gen_podresources.sh\n" % pkg,
        "# (%s); do not edit. The script's exact commands, from the repository root:\n" % tools,
        "#   D=%s P=ansible_collections/gpusmith/numa_gate/$D\n" % pkg,
        "#   mkdir -p <stage>/$P && cp $D/api.proto <stage>/$P/\n",
        "#   python -m grpc_tools.protoc -I<stage> --python_out=<stage> --grpc_python_out=<stage> $P/api.proto\n",
        "#   python scripts/podresources_postprocess.py --tools '%s' <stage>/$P/%s $D/%s\n" % (tools, name, name),
        "# The post-processor only guards the %s imports (HAS_ flag) and reflows the layout for ansible-test sanity;\n" % module,
        "# its docstring lists each change.\n",
    ]


def main(argv=None):
    """Read GENERATED, write OUTPUT; exit 1 (writing nothing) when the code is not of the known shape."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", required=True, help='the generator versions, e.g. "grpcio-tools 1.85.1 protobuf 7.36.2"')
    parser.add_argument("generated")
    parser.add_argument("output")
    args = parser.parse_args(argv)
    with open(args.generated, encoding="utf-8") as handle:
        original = handle.read()
    try:
        renamed, _names = rename_aliases(original, ast.parse(original))
        result, flag = restructure(renamed, args.tools, os.path.basename(args.output))
        result = split_bytes_literals(result)
        check(renamed, result, flag)
    except (PostProcessError, SyntaxError, tokenize.TokenError) as exc:
        sys.stderr.write("%s: %s\n" % (args.generated, exc))
        return 1
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
