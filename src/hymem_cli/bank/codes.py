"""Vector search that stays fast at a million memories: a binary prefilter, then exact cosine.

Every version's embedding is also kept in `versions_codes`: its sign bits (one bit per dimension,
sqlite-vec's `vec_quantize_binary`) and its float32 vector in a plain table, where reading a few
hundred rows by id is cheap (sqlite-vec's own point lookups are not). A search ranks all codes by
Hamming distance in memory — column-major uint64 words, about 10 ms for 1M codes of 384 bits here —
keeps the nearest `CANDIDATES`, and rescores those exactly by cosine. On embeddings with real
structure that finds the exact top 10 (bench/search_latency.py measures recall against exact KNN);
on structureless random vectors it would not, which is why small banks, where exact KNN is as fast,
never use it (see `worth_it`).

The codes stay in memory for the life of the Bank object and are topped up with the rows added
since, so a long-lived process pays the load once; versions are insert-only, so ids above the last
one loaded are all that can be new.
"""

from __future__ import annotations

import json

PREFILTER_FROM = 20_000  # vectors; below this sqlite-vec's exact KNN takes ~25 ms or less here
CANDIDATES = 1_000  # codes rescored per search at least; 0.997 recall@10 on 1M structured vectors (docs/benchmarks.md)
OVERSAMPLE = 20  # and at least this many per result wanted
RESCORE_MAX = 16_384  # widening for a selective filter stops here; the caller falls back to exact KNN


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
        cur.row_factory = None  # plain tuples: a million Row objects would cost more than the rows
        rows = cur.execute("SELECT version, bits FROM versions_codes WHERE version > ? ORDER BY version", (self.last,)).fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        bits = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint64).reshape(len(rows), -1).T
        self.ids = np.concatenate([self.ids, ids])
        self.words = bits.copy() if self.words is None else np.concatenate([self.words, bits], axis=1)
        self.last = int(ids[-1])

    def nearest_codes(self, vector, count: int):
        """Ids of the `count` codes nearest to `vector` by Hamming distance (unordered)."""
        np = self._np
        if count >= len(self.ids):
            return self.ids
        query = np.frombuffer(np.packbits(np.asarray(vector, dtype=np.float32) > 0, bitorder="little").tobytes(), dtype=np.uint64)
        distance = np.bitwise_count(self.words[0] ^ query[0]).astype(np.uint16)
        for word, q in zip(self.words[1:], query[1:]):
            distance += np.bitwise_count(word ^ q)
        return self.ids[np.argpartition(distance, count - 1)[:count]]


def knn(bank, codes: BinaryCodes, vector, where: str, args: list, want: int) -> list[int] | None:
    """The `want` nearest versions admitted by the filter, nearest first; None when the filter is too selective."""
    np = codes._np
    codes.refresh(bank.conn)
    query = np.asarray(vector, dtype=np.float32)
    count = max(CANDIDATES, want * OVERSAMPLE)
    while True:
        ids = codes.nearest_codes(query, count)
        rows = bank.conn.execute(
            f"SELECT c.version, c.embedding FROM versions_codes c JOIN versions v ON v.id = c.version "
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
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    cosine = (matrix @ query) / (np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0) + 1e-12)
    order = np.lexsort((found, -cosine))  # nearest first; ties by id, so results are deterministic
    return found[order[:want]].tolist()
