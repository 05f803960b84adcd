"""Vector search that stays fast at a million memories: a binary prefilter, then rescoring from half floats.

Every version's embedding is also kept as its sign bits in `versions_codes` (one bit per dimension,
sqlite-vec's `vec_quantize_binary`) and as float16 in `versions_f16`, a plain table where reading
a few hundred rows by id is cheap (sqlite-vec's own point lookups are not: 0.2-0.5 ms each on a 1M bank,
and `rowid IN (...)` scans the whole table). A search ranks all codes by Hamming distance in memory —
column-major uint64 words, about 10 ms for 1M codes of 384 bits here — keeps the nearest `CANDIDATES`,
and rescores those by cosine. On embeddings with real structure that finds the exact top 10
(bench/search_latency.py measures recall against exact KNN); on structureless random vectors it would not,
which is why small banks, where exact KNN is as fast, never use it (see `worth_it`).

Why float16 and not a float32 copy: a float32 row (1,536 bytes) fits twice in a 4 KB page, so it cost
2 KB a memory, as much as sqlite-vec's own vector; a float16 row fits five times (about 820 bytes), and its
rounding (a relative 5e-4 per dimension) only reorders vectors whose cosines tie to the fourth decimal.

The codes stay in memory for the life of the Bank object and are topped up with the rows added
since, so a long-lived process pays the load once; versions are insert-only, so ids above the last
one loaded are all that can be new. A new process reads them from `versions_code_blocks`, copies
of the codes in blocks of BLOCK (see `compact`), and only the newest few one row each.

Upgrades read every vector once (`stored_vectors`): straight from sqlite-vec's chunk tables, a chunk of
1,024 vectors per row, which takes seconds for a million where a scan of the vec0 table took many minutes.
"""

from __future__ import annotations

import json
from typing import Callable, Iterator

Progress = Callable[[str, int, int | None], None]  # (phase, done, total): told as long work goes on

PREFILTER_FROM = 20_000  # vectors; below this sqlite-vec's exact KNN takes ~25 ms or less here
CANDIDATES = 1_000  # codes rescored per search at least; 0.996 recall@10 on 1M structured vectors (docs/benchmarks.md)
OVERSAMPLE = 20  # and at least this many per result wanted
RESCORE_MAX = 16_384  # widening for a selective filter stops here; the caller falls back to exact KNN
BLOCK = 4_096  # codes per row of versions_code_blocks


def _ids_blob(ids: list[int]) -> bytes:
    """Version ids as little-endian int64, the way numpy reads them back ("<i8")."""
    import array
    import sys

    packed = array.array("q", ids)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def compact(conn) -> None:
    """Copy the newest codes into blocks of BLOCK, inside the caller's transaction.

    Loading a million codes one row each costs about a second of Python; from blocks it is a few
    dozen rows. versions_codes stays the record, the blocks are a copy of it.
    """
    last = conn.execute("SELECT coalesce(max(last), 0) FROM versions_code_blocks").fetchone()[0]
    cur = conn.cursor()
    cur.row_factory = None
    cur.execute("SELECT version, bits FROM versions_codes WHERE version > ? ORDER BY version", (last,))
    blocks = []
    while len(rows := cur.fetchmany(BLOCK)) == BLOCK:  # one ordered scan; a last partial block waits for more codes
        blocks.append((rows[-1][0], _ids_blob([r[0] for r in rows]), b"".join(r[1] for r in rows)))
    conn.executemany("INSERT INTO versions_code_blocks (last, ids, bits) VALUES (?, ?, ?)", blocks)


def half_blob(blob: bytes) -> bytes:
    """A little-endian float32 vector as little-endian float16: what versions_f16 keeps."""
    import numpy as np

    return np.frombuffer(blob, dtype="<f4").astype("<f2").tobytes()


def stored_vectors(conn, batch: int = 16_384) -> Iterator[tuple[list[int], "np.ndarray"]]:  # noqa: F821
    """Every vector of versions_vec as (ids, float32 matrix), a batch at a time, in no particular order.

    Read from sqlite-vec's own tables (versions_vec_chunks: ids and a validity bitmap per chunk;
    versions_vec_vector_chunks00: the chunk's vectors as one blob), which is sequential; a layout this code
    does not know (another sqlite-vec) falls back to scanning the vec0 table, which is right but slow."""
    import numpy as np

    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'versions_vec%'")}
    if "versions_vec" not in tables:
        return
    dim = int(conn.execute("SELECT value FROM meta WHERE key = 'embed_dim'").fetchone()[0])
    known = {"versions_vec_chunks", "versions_vec_vector_chunks00"} <= tables and [
        r[1] for r in conn.execute("PRAGMA table_info(versions_vec_chunks)")] == ["chunk_id", "size", "validity", "rowids"]
    cur = conn.cursor()
    cur.row_factory = None
    if known:
        # No ORDER BY: sorting would hold every chunk's vectors before the first came back.
        rows = cur.execute("SELECT c.size, c.validity, c.rowids, v.vectors FROM versions_vec_chunks c "
                           "JOIN versions_vec_vector_chunks00 v ON v.rowid = c.chunk_id")
        for size, validity, rowids, vectors in rows:
            if len(rowids) != 8 * size or len(vectors) != 4 * dim * size or len(validity) * 8 < size:
                known = False  # not the layout of sqlite-vec 0.1.x
                break
            valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
            if valid.any():
                ids = np.frombuffer(rowids, dtype="<i8")[valid]
                yield ids.tolist(), np.frombuffer(vectors, dtype="<f4").reshape(size, dim)[valid]
        if known:
            return
    cur.execute("SELECT rowid, embedding FROM versions_vec")
    while rows := cur.fetchmany(batch):
        yield [r[0] for r in rows], np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), dim)


def derive(conn, codes: bool, halves: bool, progress: Progress | None = None) -> None:
    """Fill versions_codes and/or versions_f16 from every stored vector (an upgrade; inside its transaction)."""
    total = conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    if not total:
        return  # a new bank (or schema.reference's): nothing to fill, and no numpy to load for it
    import numpy as np

    done = 0
    for ids, matrix in stored_vectors(conn):
        if codes:
            bits = np.packbits(matrix > 0, axis=1, bitorder="little")  # what vec_quantize_binary stores
            conn.executemany("INSERT INTO versions_codes (version, bits) VALUES (?, ?)", zip(ids, (b.tobytes() for b in bits)))
        if halves:
            half = matrix.astype("<f2")
            conn.executemany("INSERT INTO versions_f16 (version, embedding) VALUES (?, ?)", zip(ids, (h.tobytes() for h in half)))
        done += len(ids)
        if progress is not None:
            progress("vectors", done, max(total, done))


def block_problems(conn) -> list[str]:
    """Where versions_code_blocks disagrees with versions_codes (for `hymem doctor`)."""
    problems, previous = [], 0
    for last, ids, bits in conn.execute("SELECT last, ids, bits FROM versions_code_blocks ORDER BY last"):
        rows = conn.execute("SELECT version, bits FROM versions_codes WHERE version > ? AND version <= ? ORDER BY version", (previous, last)).fetchall()
        if ids != _ids_blob([r[0] for r in rows]) or bits != b"".join(r[1] for r in rows):
            problems.append(f"block ending at m{last} does not match its codes")
        previous = last
    return problems


def worth_it(conn) -> bool:
    row = conn.execute("SELECT max(version) FROM versions_codes").fetchone()
    return (row[0] or 0) >= PREFILTER_FROM  # ids are dense enough: versions are never deleted


class BinaryCodes:
    """The bank's sign-bit codes, loaded once and kept current."""

    def __init__(self) -> None:
        import numpy as np

        self._np = np
        self.ids = np.empty(0, dtype=np.int64)
        self.words = None  # uint64[words_per_code, n]: column-major, so each word is one contiguous XOR
        self.last = 0

    def refresh(self, conn) -> None:
        np = self._np
        top = conn.execute("SELECT coalesce(max(version), 0) FROM versions_codes").fetchone()[0]
        if top < self.last:  # the bank was replaced under us
            self.__init__()
        if top == self.last:
            return
        cur = conn.cursor()
        cur.row_factory = None
        parts = [(np.frombuffer(ids, dtype="<i8"), bits) for ids, bits in
                 cur.execute("SELECT ids, bits FROM versions_code_blocks WHERE last > ? ORDER BY last", (self.last,))]
        blocked = int(parts[-1][0][-1]) if parts else self.last
        tail = cur.execute("SELECT version, bits FROM versions_codes WHERE version > ? ORDER BY version", (blocked,)).fetchall()
        if tail:
            parts.append((np.fromiter((r[0] for r in tail), dtype=np.int64, count=len(tail)), b"".join(r[1] for r in tail)))
        # One copy into column-major words; a block may hold codes loaded earlier from the tail.
        width = len(parts[0][1]) // 8 // len(parts[0][0])
        total = sum(int(np.count_nonzero(ids > self.last)) for ids, _ in parts)
        ids_out, words = np.empty(total, dtype=np.int64), np.empty((width, total), dtype=np.uint64)
        at = 0
        for ids, bits in parts:
            rows = np.frombuffer(bits, dtype=np.uint64).reshape(len(ids), width)
            keep = ids > self.last
            if not keep.all():
                ids, rows = ids[keep], rows[keep]
            ids_out[at:at + len(ids)] = ids
            words[:, at:at + len(ids)] = rows.T
            at += len(ids)
        first = self.words is None
        self.ids = ids_out if first else np.concatenate([self.ids, ids_out])
        self.words = words if first else np.concatenate([self.words, words], axis=1)
        self.last = int(ids_out[-1])

    def nearest_codes(self, vector, count: int):
        """Ids of the `count` codes nearest to `vector` by Hamming distance, unordered (a few more on ties)."""
        np = self._np
        if count >= len(self.ids):
            return self.ids
        query = np.frombuffer(np.packbits(np.asarray(vector, dtype=np.float32) > 0, bitorder="little").tobytes(), dtype=np.uint64)
        distance = np.bitwise_count(self.words[0] ^ query[0]).astype(np.uint16)
        for word, q in zip(self.words[1:], query[1:]):
            distance += np.bitwise_count(word ^ q)
        # The distance below which `count` codes lie, from a histogram: cheaper than a partial sort.
        limit = int(np.searchsorted(np.cumsum(np.bincount(distance)), count))
        picked = np.flatnonzero(distance <= limit)
        if len(picked) > 2 * count:  # many ties at the limit
            picked = picked[np.argpartition(distance[picked], count - 1)[:count]]
        return self.ids[picked]


def knn(bank, codes: BinaryCodes, vector, where: str, args: list, want: int, exact: int | None = None) -> list[int] | None:
    """The `want` nearest versions admitted by the filter, nearest first; None when the filter is too selective.

    Candidates are sized for the first `exact` of them (default all): a fusion pool wider than the results shown
    needs its tail only to scale scores, and rescoring twice the candidates doubled the time (docs/benchmarks.md).
    """
    np = codes._np
    codes.refresh(bank.conn)
    query = np.asarray(vector, dtype=np.float32)
    count = max(CANDIDATES, (exact or want) * OVERSAMPLE)
    while True:
        ids = codes.nearest_codes(query, count)
        rows = bank.conn.execute(
            f"SELECT c.version, c.embedding FROM versions_f16 c JOIN versions v ON v.id = c.version "
            f"WHERE c.version IN (SELECT value FROM json_each(?)) AND {where}",
            [json.dumps(ids.tolist()), *args],
        ).fetchall()
        if len(rows) >= want or count >= len(codes.ids):
            break
        if count >= RESCORE_MAX:
            return None
        count = min(count * 4, RESCORE_MAX)
    if not rows:
        return []
    found = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f2").reshape(len(rows), -1).astype(np.float32)
    cosine = (matrix @ query) / (np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0) + 1e-12)
    order = np.lexsort((found, -cosine))  # nearest first; ties by id, so results are deterministic
    return found[order[:want]].tolist()
