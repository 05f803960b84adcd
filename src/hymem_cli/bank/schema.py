"""What a bank's schema may hold: the objects hymem's migrations, vector table and re-embed make, and nothing else.

A bank file can come from anywhere (a backup, a colleague, a download). SQLite runs whatever triggers and
views the file defines, so a planted trigger could undo a `forget`, or a table redefined with ON CONFLICT
IGNORE could drop rows while hymem reports success. hymem therefore opens only banks whose sqlite_master
holds nothing but its own objects, each as hymem defines it.

The reference is derived, never listed by hand: the migrations run on an in-memory database, one at a time
(so a bank an older hymem left behind passes before it is upgraded), then the vector table and the shadow
tables of an unfinished re-embed are made there too. Definitions are compared without comments, spacing,
case or the object's own name (SQLite rewrites the name when a table is renamed, as a re-embed does).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

# The vector table is the one object whose definition varies: its width is the embedder's dimension.
VECTOR_TABLE = "versions_vec"
_VECTOR_SQL = re.compile(r"create virtual table (?:versions_vec|\"versions_vec\") using vec0 \( embedding float \[(\d{1,6})\] "
                         r"distance_metric = cosine \)")
# SQLite's own tables (ANALYZE's statistics, AUTOINCREMENT's counters): made by SQLite, never by a file's author.
_SQLITE_OWN = re.compile(r"sqlite_(stat[1-4]|sequence)")
_TOKEN = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\]|--[^\n]*|/\*.*?(?:\*/|\Z)|\s+|[A-Za-z0-9_$]+|.""", re.S)
_NAMED = ("table", "index", "trigger", "view")


@dataclass(frozen=True)
class Foreign:
    """An object in a bank's schema that hymem did not make, or made otherwise."""

    type: str
    name: str
    table: str
    altered: bool  # a name hymem uses, with another definition

    def describe(self) -> str:
        on = f" on {self.table}" if self.type in ("trigger", "index") and self.table and self.table != self.name else ""
        return f"{self.type} {self.name}{on}" + (" (defined otherwise than hymem defines it)" if self.altered else "")


def normalized(sql: str | None) -> str | None:
    """A definition as tokens: no comments, single spaces, identifiers unquoted and lower-cased, the object's own
    name left out. String literals keep their case and quotes, so a changed default or CHECK still differs."""
    if sql is None:
        return None
    tokens = []
    for token in _TOKEN.findall(sql):
        if token.isspace() or token.startswith("--") or token.startswith("/*"):
            continue
        if token[0] in "\"`[" and len(token) > 1:
            token = token[1:-1].replace('""', '"').replace("``", "`")
        tokens.append(token if token.startswith("'") else token.lower())
    # CREATE [UNIQUE|VIRTUAL|TEMP] TABLE|INDEX|TRIGGER|VIEW [IF NOT EXISTS] name ...: drop the name (and a schema prefix)
    for i, token in enumerate(tokens[:4]):
        if token in _NAMED:
            at = i + 1
            if tokens[at : at + 3] == ["if", "not", "exists"]:
                at += 3
            end = at + 3 if tokens[at + 1 : at + 2] == ["."] else at + 1
            return " ".join(tokens[:at] + tokens[end:])
    return " ".join(tokens)


def vector_width(sql: str | None) -> int | None:
    """The width a vector table's definition declares, or None when it is not hymem's vector table."""
    match = _VECTOR_SQL.fullmatch(_unnamed_vec(sql)) if sql else None
    return int(match.group(1)) if match else None


def _unnamed_vec(sql: str) -> str:
    # vector_width wants the name kept (a vec0 table of another name is not the vector table): normalise by hand.
    tokens = []
    for token in _TOKEN.findall(sql):
        if not (token.isspace() or token.startswith("--") or token.startswith("/*")):
            tokens.append(token if token.startswith("'") else token.lower())
    return " ".join(tokens)


Reference = dict[tuple[str, str], frozenset]  # (type, name) -> every normalised definition hymem gives it


@functools.lru_cache(maxsize=8)
def reference(width: int | None = None) -> Reference:
    """Every object hymem makes in a bank, with each definition it has had: after each migration in turn, then the
    vector table of `width` (None: no vector table yet) and a re-embed's shadow tables."""
    from hymem_cli.bank import sqlite
    from hymem_cli.bank.migrations import MIGRATIONS

    conn = sqlite.sqlite_module().connect(":memory:", isolation_level=None)
    try:
        conn.enable_load_extension(True)
        conn.load_extension(sqlite.vec_extension())
        conn.enable_load_extension(False)
        seen: dict[tuple[str, str], set] = {}

        def collect() -> None:
            for kind, name, _table, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"):
                seen.setdefault((kind, name), set()).add(normalized(sql))

        conn.execute(sqlite.MIGRATIONS_TABLE)
        for fn in MIGRATIONS:
            conn.execute("BEGIN")  # as db.migrate applies each, in a transaction of its own
            fn(conn)
            conn.execute("COMMIT")
            collect()
        if width is not None:
            sqlite.create_vector_table(conn, width)
        for statement in sqlite.SHADOW.values():
            conn.execute(statement)
        collect()
    finally:
        conn.close()
    return {key: frozenset(sqls) for key, sqls in seen.items()}


def foreign_objects(rows) -> list[Foreign]:
    """Which of a bank's sqlite_master rows (type, name, tbl_name, sql) hymem did not make, or made otherwise.

    One read of sqlite_master is all it takes: the reference is built once per process (and vector width)."""
    rows = [tuple(r) for r in rows]
    width = None
    for kind, name, _table, sql in rows:
        if kind == "table" and name == VECTOR_TABLE:
            width = vector_width(sql)
    known = reference(width)
    found = []
    for kind, name, table, sql in rows:
        if kind == "table" and _SQLITE_OWN.fullmatch(name):
            continue
        definitions = known.get((kind, name))
        if definitions is not None and normalized(sql) in definitions:
            continue
        if kind == "table" and name == VECTOR_TABLE and width is not None:
            continue  # its definition was matched to build the reference
        found.append(Foreign(kind, name, table, altered=definitions is not None or (kind == "table" and name == VECTOR_TABLE)))
    return found


def read_master(conn):
    """The one query: every object of the bank's main schema."""
    return conn.execute("SELECT type, name, tbl_name, sql FROM main.sqlite_master").fetchall()


def summary(found: list[Foreign], most: int = 5) -> str:
    """The foreign objects in a line: the first few by name, then how many more."""
    names = ", ".join(f.describe() for f in found[:most])
    return names + (f" and {len(found) - most} more" if len(found) > most else "")
