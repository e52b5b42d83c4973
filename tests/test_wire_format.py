"""The wire format stays at the edge: only results.py writes or reads a camelCase key.

Below the faces, values are frozen dataclasses with snake_case fields; results.py shapes them
for --json and the MCP tools. server.py is the other place camelCase is allowed: its tool
arguments (`filePath`, `topK`, `jobId`) are the protocol's names.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "minirag"
CAMEL = re.compile(r"^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$")

ALLOWED = {
    "results.py": "the one serializer",
    "server.py": "the tools' argument names and schemas are the protocol's",
    "tool_arguments.py": "it reads the tools' JSON Schemas (`anyOf`), the protocol's",
    "ingest/roff_characters.py": "roff's own names for characters (`\\(lB`, `\\[rC]`), keys of no JSON",
}


def camel_keys(tree: ast.AST) -> list[tuple[int, str]]:
    """Whole-string camelCase literals used as keys: in a dict display, a subscript, a
    `.get`/`.pop`/`.setdefault` call, or a tuple of names zipped into a dict."""
    found = []

    def check(node: ast.AST | None) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CAMEL.match(node.value):
            found.append((node.lineno, node.value))

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key in node.keys:
                check(key)
        elif isinstance(node, ast.Subscript):
            check(node.slice)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr in ("get", "pop", "setdefault"):
                check(node.args[0])
        elif isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                check(element)
    return found


def test_no_module_below_the_faces_builds_or_reads_a_camel_case_key():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in ALLOWED:
            continue
        for line, key in camel_keys(ast.parse(path.read_text(encoding="utf-8"))):
            offenders.append(f"minirag/{relative}:{line}: {key!r}")
    assert not offenders, "camelCase keys outside results.py:\n" + "\n".join(offenders)


def test_the_check_finds_each_kind_of_key():
    source = ('a = {"chunkCount": 1}\nb = row["mtimeNs"]\nc = d.pop("currentFile", None)\n'
              'keys = ("source", "contentHash")\nok = {"chunk_count": "chunkCount is a word here"}\n')
    assert [key for _line, key in camel_keys(ast.parse(source))] == [
        "chunkCount", "mtimeNs", "currentFile", "contentHash"]
