"""The SQLite underneath a bank: a build that can load sqlite-vec, and the statements every bank is made of from the start."""

from __future__ import annotations

import os

from hymem_cli._errors import BankError

MIGRATIONS_TABLE = "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"


def sqlite_module():
    """A sqlite3 module that can load extensions: sqlean (bundled SQLite) first, then the stdlib."""
    try:
        import sqlean

        return sqlean
    except ImportError:
        import sqlite3

        if hasattr(sqlite3.Connection, "enable_load_extension"):
            return sqlite3
        raise BankError(
            "this Python's sqlite3 cannot load extensions, and sqlean-py is not installed",
            hint="pip install sqlean-py",
        ) from None


def vec_extension() -> str:
    """sqlite-vec's loadable library, found without importing its package (which imports numpy)."""
    import importlib.util

    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise BankError("sqlite-vec is not installed", hint="pip install sqlite-vec")
    return os.path.join(spec.submodule_search_locations[0], "vec0")


def create_vector_table(conn, dim: int) -> None:
    # Vector KNN for search; rowid = versions.id.
    conn.execute(f"CREATE VIRTUAL TABLE versions_vec USING vec0(embedding float[{dim}] distance_metric=cosine)")


# The shadow tables. The float32 vectors are copied into a new vec0 table at the swap (a vec0 table cannot be
# renamed: its own tables keep the old name); the codes and copies are renamed into place.
SHADOW = {
    # float32 by version: the new vectors themselves.
    "reembed_vectors": "CREATE TABLE reembed_vectors (version INTEGER PRIMARY KEY REFERENCES versions(id), embedding BLOB NOT NULL)",
    # becomes versions_codes: sign bits of each new vector.
    "reembed_codes": "CREATE TABLE reembed_codes (version INTEGER PRIMARY KEY REFERENCES versions(id), bits BLOB NOT NULL)",
    # becomes versions_f16: float16 of each new vector.
    "reembed_f16": "CREATE TABLE reembed_f16 (version INTEGER PRIMARY KEY REFERENCES versions(id), embedding BLOB NOT NULL)",
}
