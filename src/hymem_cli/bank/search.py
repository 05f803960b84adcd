"""Hybrid search: sqlite-vec KNN and FTS5 BM25, fused by weighted reciprocal rank."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hymem_cli.bank.store import Bank, version_dict
from hymem_cli.embed import to_blob

KNN_MAX = 4096  # sqlite-vec's largest k
RRF_K = 60  # the usual reciprocal-rank constant: flattens the difference between ranks 1 and 2
# Words that match almost every conversational message and only add noise to an OR query.
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have he her his how i in is it its "
    "me my of on or our she so that the their them they this to was we were what when where which "
    "who why will with you your".split()
)


@dataclass
class SearchFilter:
    include_retired: bool = False  # --all
    as_of: int | None = None  # --as-of REV
    source: str | None = None  # glob on the source path
    since: str | None = None  # event_time >= since
    until: str | None = None  # event_time <= until

    def sql(self) -> tuple[str, list]:
        """A WHERE clause over `versions v` selecting the versions this filter admits."""
        where, args = [], []
        if self.as_of is not None:
            where.append("v.revision <= ?")
            args.append(self.as_of)
        if not self.include_retired:
            if self.as_of is None:
                where.append("NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id)")
            else:
                where.append("NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id AND r.revision <= ?)")
                args.append(self.as_of)
        if self.source:
            where.append("v.source GLOB ?")
            args.append(self.source if any(c in self.source for c in "*?[") else f"*{self.source}*")
        if self.since:
            where.append("v.event_time >= ?")
            args.append(self.since)
        if self.until:
            where.append("v.event_time <= ?")
            args.append(self.until)
        return (" AND ".join(where) or "1"), args


def fts_query(text: str) -> str | None:
    """An OR of the query's quoted words (FTS5 joins with AND by default, which recalls too little)."""
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS]
    if not words:
        words = re.findall(r"\w+", text.lower())
    return " OR ".join(f'"{w}"' for w in list(dict.fromkeys(words))[:64]) or None  # a 1 MB message is not a 50k-term query


def search(
    bank: Bank,
    query: str,
    limit: int = 10,
    flt: SearchFilter | None = None,
    vector_weight: float = 0.5,
    text_weight: float = 1.0,
    query_vector: list[float] | None = None,
) -> list[dict]:
    """The best `limit` versions for `query`, each a version dict with `score` (and component ranks)."""
    flt = flt or SearchFilter()
    where, args = flt.sql()
    pool = max(limit * 5, 50)  # candidates per ranker before fusion
    scores: dict[int, float] = {}

    if text_weight > 0 and (match := fts_query(query)):
        rows = bank.conn.execute(
            f"SELECT v.id FROM versions_fts JOIN versions v ON v.id = versions_fts.rowid "
            f"WHERE versions_fts MATCH ? AND {where} ORDER BY bm25(versions_fts) LIMIT ?",
            [match, *args, pool],
        ).fetchall()
        for rank, row in enumerate(rows, 1):
            scores[row[0]] = scores.get(row[0], 0.0) + text_weight / (RRF_K + rank)

    if vector_weight > 0 and bank.embedder is not None:  # not bound: the bank had no vectors when opened
        vector = query_vector if query_vector is not None else bank.embedder.embed([query])[0]
        for rank, vid in enumerate(_knn(bank, to_blob(vector), where, args, pool), 1):
            scores[vid] = scores.get(vid, 0.0) + vector_weight / (RRF_K + rank)

    best = sorted(scores.items(), key=lambda kv: (-kv[1], -kv[0]))[:limit]
    results = []
    for vid, score in best:
        hit = version_dict(bank.version_row(vid), as_of=flt.as_of)
        hit["score"] = round(score * RRF_K, 6)  # 1.0 ≈ ranked first by a ranker of weight 1
        results.append(hit)
    return results


def _knn(bank: Bank, blob: bytes, where: str, args: list, want: int) -> list[int]:
    """Nearest versions admitted by the filter; widens k until enough survive the filter."""
    total = min(bank.conn.execute("SELECT coalesce(max(id), 0) FROM versions").fetchone()[0], KNN_MAX)  # cheap upper bound
    k = min(want, total)
    while k > 0:
        rows = bank.conn.execute(
            f"SELECT knn.rowid FROM (SELECT rowid, distance FROM versions_vec WHERE embedding MATCH ? AND k = ?) knn "
            f"JOIN versions v ON v.id = knn.rowid WHERE {where} ORDER BY knn.distance",
            [blob, k, *args],
        ).fetchall()
        if len(rows) >= want or k >= total:
            return [r[0] for r in rows][:want]
        k = min(total, k * 4)
    return []


