"""Re-embedding a bank with another model: every version's vector rebuilt from its stored text, then swapped in at once.

Vectors are an index of the versions, not history: no version, revision or retirement changes. The new vectors go
batch by batch into shadow tables, one transaction a batch, so an interrupted run keeps what it embedded and the next
run for the same model and recipe continues after it; meanwhile the bank keeps answering with its old vectors. The
swap (the vector table rebuilt at the new width, the sign-bit codes, their blocks and the float16 copies replaced, the
new embedder recorded) is one transaction: a crash leaves the old index or the new one, never a mix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from hymem_cli._errors import BankError
from hymem_cli.bank import codes, db
from hymem_cli.bank.memory_text import MemoryText
from hymem_cli.bank.sqlite import SHADOW, create_vector_table
from hymem_cli.embed import Embedder

BATCH = 256  # versions per embedder call and per shadow transaction: what an interrupted run loses at most
TARGET_KEY = "reembed_target"  # meta: the model, width and recipe the shadow tables hold vectors of



@dataclass
class Reembedded:
    """What a re-embed did: the embedder before and after, how many versions, how many an earlier run had done."""

    previous_model: str | None
    previous_dim: int | None
    model: str
    dim: int
    versions: int
    resumed: int

    def to_json(self) -> dict:
        return dict(self.__dict__)


def unfinished(conn) -> dict | None:
    """The target of a re-embed that was interrupted ({"model", "dim", "text"}), or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (TARGET_KEY,)).fetchone()
    return json.loads(row[0]) if row else None


def reembed(bank, embedder: Embedder, memory_text: MemoryText, progress: codes.Progress | None = None, batch: int = BATCH) -> Reembedded:
    """Rebuild every vector of `bank` with `embedder`, each version's text as `memory_text` embeds it; record the embedder.

    `progress(phase, done, total)` is told as it goes. Resumes an interrupted run for the same target; one for another
    target is discarded. The caller checks that the target differs from the bank's model (or wants it rebuilt anyway)."""
    conn = bank.conn
    previous = bank.meta("embed_model"), int(bank.meta("embed_dim") or 0) or None
    target = {"model": embedder.name, "dim": embedder.dim, "text": memory_text.to_json()}
    if previous[0] is None:  # no vectors yet: recording the embedder is all there is to do
        bank.bind_embedder(embedder, memory_text)
        return Reembedded(None, None, embedder.name, embedder.dim, 0, 0)
    resumed = _prepare(conn, target)
    total = conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    last = conn.execute("SELECT coalesce(max(version), 0) FROM reembed_vectors").fetchone()[0]
    done = resumed
    if progress is not None:
        progress("embedding", done, total)
    while rows := _versions_after(conn, last, batch):
        vectors = embedder.embed([memory_text.embedded(r[1], r[2], r[3]) for r in rows])
        with db.transaction(conn):
            _check_target(conn, target)
            _store(conn, [r[0] for r in rows], vectors)
        last, done = rows[-1][0], done + len(rows)
        if progress is not None:
            progress("embedding", done, max(total, done))
    if progress is not None:
        progress("swapping in the new vectors", 0, None)
    with db.transaction(conn):
        _check_target(conn, target)
        # Versions another process stored since the last batch: few, embedded while holding the lock.
        while rows := _versions_after(conn, last, batch):
            _store(conn, [r[0] for r in rows], embedder.embed([memory_text.embedded(r[1], r[2], r[3]) for r in rows]))
            last, done = rows[-1][0], done + len(rows)
        _swap(conn, embedder)
    bank.embedder, bank.memory_text, bank.codes = embedder, memory_text, None
    # The old vectors' pages are free now; rewrite the file when that is a good part of it.
    db.compact_file(conn, None if progress is None else lambda _name, phase, done_, total_: progress(phase, done_, total_))
    return Reembedded(previous[0], previous[1], embedder.name, embedder.dim, done, resumed)


def _prepare(conn, target: dict) -> int:
    """Shadow tables for `target`: those of an interrupted run for the same target are kept; returns how many
    versions they hold."""
    with db.transaction(conn):
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'reembed_%'")}
        if unfinished(conn) == target and tables == set(SHADOW):
            return conn.execute("SELECT count(*) FROM reembed_vectors").fetchone()[0]
        _drop_shadow(conn, tables)
        for statement in SHADOW.values():
            conn.execute(statement)
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (TARGET_KEY, json.dumps(target, sort_keys=True)))
    return 0


def _drop_shadow(conn, tables) -> None:
    for name in sorted(tables):
        conn.execute(f"DROP TABLE {name}")
    conn.execute("DELETE FROM meta WHERE key = ?", (TARGET_KEY,))


def _check_target(conn, target: dict) -> None:
    """Inside a transaction: the shadow tables are still ours (another re-embed may have replaced or finished them)."""
    if unfinished(conn) != target:
        raise BankError("another hymem re-embedded this bank while this one ran", hint="check `hymem stats`; run `hymem reembed` again if needed")


def _versions_after(conn, last: int, limit: int) -> list:
    cur = conn.cursor()
    cur.row_factory = None
    return cur.execute("SELECT id, text, event_time, context FROM versions WHERE id > ? ORDER BY id LIMIT ?", (last, limit)).fetchall()


def _store(conn, ids: list[int], vectors: list[list[float]]) -> None:
    import numpy as np

    matrix = np.asarray(vectors, dtype="<f4")
    bits = np.packbits(matrix > 0, axis=1, bitorder="little")  # what vec_quantize_binary stores
    conn.executemany("INSERT INTO reembed_vectors (version, embedding) VALUES (?, ?)", zip(ids, (v.tobytes() for v in matrix)))
    conn.executemany("INSERT INTO reembed_codes (version, bits) VALUES (?, ?)", zip(ids, (b.tobytes() for b in bits)))
    conn.executemany("INSERT INTO reembed_f16 (version, embedding) VALUES (?, ?)", zip(ids, (h.tobytes() for h in matrix.astype("<f2"))))


def _swap(conn, embedder: Embedder) -> None:
    """Inside one transaction: the shadow tables become the bank's vector index, and the new embedder is recorded."""
    conn.execute("DROP TABLE versions_vec")
    create_vector_table(conn, embedder.dim)
    conn.execute("INSERT INTO versions_vec (rowid, embedding) SELECT version, embedding FROM reembed_vectors ORDER BY version")
    for shadow, table in (("reembed_codes", "versions_codes"), ("reembed_f16", "versions_f16")):
        conn.execute(f"DROP TABLE {table}")
        conn.execute(f"ALTER TABLE {shadow} RENAME TO {table}")
    conn.execute("DELETE FROM versions_code_blocks")
    codes.compact(conn)
    conn.execute("DROP TABLE reembed_vectors")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'embed_model'", (embedder.name,))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'embed_dim'", (str(embedder.dim),))
    conn.execute("DELETE FROM meta WHERE key = ?", (TARGET_KEY,))
