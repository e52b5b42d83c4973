"""What a schema holds that minirag never makes, told from each object's SQL.

An index can come from someone else (a clone's `.minirag/index.db`, a file copied to a share, a
backup restored from anywhere). A trigger or view would run its author's SQL on minirag's reads and
writes; an index's expression, a CHECK constraint, a default expression or a generated column is
evaluated by SQLite on every row minirag writes (and by its integrity checks). trusted_schema keeps
those to functions without side effects, but they still run (a string of hundreds of megabytes built
per row takes the machine's memory), so an index holding any of them, or a virtual table of a module
minirag never uses, is refused before it is used.

SQLite builds each object from its row's SQL alone, whatever the row's `type` says (a row edited
through writable_schema can say `table` and make a trigger), so the SQL is what is read: comments
read as spaces and a quoted name or string as one token, as SQLite's tokenizer reads them.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_TOKEN = re.compile(
    r"""(?P<space>\s+|/\*.*?(?:\*/|$)|--[^\n]*)"""
    r"""|(?P<literal>'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`(?:[^`]|``)*`?|\[[^\]]*\]?)"""
    r"""|(?P<word>\w+)|(?P<mark>.)""",
    re.DOTALL,
)

# The indexes minirag makes (store/schema.py, _m001_core), as _tokens joins them; SQLite's own
# (a UNIQUE or PRIMARY KEY's) keep no SQL.
_INDEXES = frozenset({
    "createindexchunks_by_parentonchunks(parent_id)",
    "createindexchunks_by_hashonchunks(text_hash)",
    "createindexchunks_by_schemeonchunks(scheme)",
    "createindexparents_by_sourceonparents(source_id)",
})
# The virtual tables minirag makes; each one's declaration is checked where it is used
# (schema.keyword_table_problem, vector_table_problem). Another module's (sqlite_dbpage writes the
# file's pages) must not stand in for a table minirag writes.
_VIRTUAL_TABLES = frozenset({"chunks_fts", "chunks_vec"})
# The CHECK constraints minirag writes: `sources.kind` (schema.py) and the one codebook row (codes.py).
_CHECKS = frozenset({"(kindin('file','data','url'))", "(id=1)"})


def planted_object(conn: Any) -> tuple[str, str] | None:
    """What the schema holds that minirag never makes, as (what, name), e.g. ("a trigger", "poison")
    or ("a CHECK constraint", "sources"); None for an index minirag made. In the file of another
    program (no `migrations` and `meta` of minirag's) only its triggers and views: the rest never
    runs there, for minirag refuses to write to it (connection.another_programs)."""
    rows = [(_text(name), _verdicts(_text(kind).lower(), _text(name), _text(sql))) for kind, name, sql
            in conn.execute("SELECT type, name, sql FROM sqlite_master")]
    for name, (runs_sql, _evaluates) in rows:
        if runs_sql is not None:
            return runs_sql, name
    if not {"migrations", "meta"} <= {name for name, _ in rows}:
        return None
    for name, (_runs_sql, evaluates) in rows:
        if evaluates is not None:
            return evaluates, name
    return None


def _text(value: Any) -> str:
    """A schema row's value as SQLite reads it: a BLOB's bytes are the statement's text all the same
    (SQLite builds the object from them), a byte that is no UTF-8 read as a mark joining no word; NULL
    as nothing. (TEXT that is not UTF-8 fails the read: connection.explain says it is damage.)"""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


@functools.lru_cache(maxsize=256)  # every connection reads the same few dozen rows again
def _verdicts(kind: str, name: str, sql: str) -> tuple[str | None, str | None]:
    """What one schema row makes that minirag never does: (a trigger or view, which runs SQL; an
    index, expression or virtual table, which only minirag's own index must not hold)."""
    tokens = _tokens(sql)
    makes = _makes(tokens)
    if makes in ("trigger", "view") or (makes is None and kind in ("trigger", "view")):
        return f"a {makes or kind}", None
    if makes == "index" and "".join(tokens) not in _INDEXES:
        return None, "an index"
    if makes == "table":
        return None, _expression_in(tokens)
    if makes == "virtual" and name not in _VIRTUAL_TABLES:
        return None, "a virtual table"
    return None, None


def _tokens(sql: str) -> list[str]:
    """SQL's tokens as compared: words in lower case, a quoted name or string as it is, no space."""
    tokens = []
    for match in _TOKEN.finditer(sql):
        if match.lastgroup == "word":
            tokens.append(match.group().lower())
        elif match.lastgroup != "space":
            tokens.append(match.group())
    return tokens


def _makes(tokens: list[str]) -> str | None:
    """What a CREATE statement makes: "trigger", "view", "index", "table" or "virtual" (table); None for
    no CREATE."""
    if not tokens or tokens[0] != "create":
        return None
    rest = [token for token in tokens[1:4] if token not in ("temp", "temporary", "unique")]
    return rest[0] if rest and rest[0] in ("trigger", "view", "index", "table", "virtual") else None


def _expression_in(tokens: list[str]) -> str | None:
    """The kind of expression a CREATE TABLE holds that SQLite evaluates on a write, beyond minirag's own."""
    for at, token in enumerate(tokens):
        opens = tokens[at + 1:at + 2] == ["("]
        if token == "check" and (not opens or "".join(_group(tokens, at + 1)) not in _CHECKS):
            return "a CHECK constraint"
        if token == "default" and opens:
            return "a default expression"
        if token == "generated" or (token == "as" and opens):
            return "a generated column"
    return None


def _group(tokens: list[str], start: int) -> list[str]:
    """The parenthesized tokens from tokens[start] (an opening one) to its closing one."""
    depth = 0
    for at in range(start, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[at], 0)
        if depth == 0:
            return tokens[start:at + 1]
    return tokens[start:]
