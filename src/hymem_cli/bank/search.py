"""Hybrid search: sqlite-vec KNN and FTS5 BM25, fused by weighted reciprocal rank."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from hymem_cli.bank import codes
from hymem_cli.bank.store import Bank, version_dict
from hymem_cli.embed import to_blob

KNN_MAX = 4096  # sqlite-vec's largest k
TEXT_BUDGET = 20_000  # documents BM25 may score per query (~1.2 µs each here); see text_plan
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


def query_words(text: str) -> list[str]:
    """The query's distinct words, stopwords dropped unless nothing else is left; at most 64 (a 1 MB message is not a query)."""
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS] or re.findall(r"\w+", text.lower())
    return list(dict.fromkeys(words))[:64]


def _any_of(words: list[str]) -> str | None:
    """An OR of quoted words: FTS5 joins with AND by default, which recalls too little."""
    return " OR ".join(f'"{w}"' for w in words) or None


def text_plan(conn, words: list[str]) -> tuple[str | None, str]:
    """The FTS5 query and ordering to rank `words` by, within TEXT_BUDGET scored documents.

    BM25 costs about a microsecond per matching document, so an OR of common words over a million
    memories takes most of a second. Below the budget this is the plain OR, ranked by BM25. Above
    it, words are taken rarest first while their documents fit the budget: a document holding only
    the common words left out would rank below those with a rare one anyway, since BM25 weighs a
    word by its rarity. When even the rarest word is too common, documents holding every word are
    ranked — by BM25 if they are few enough, else newest first.
    """
    if not words:
        return None, "bm25"
    total = conn.execute("SELECT coalesce(max(rowid), 0) FROM versions_fts").fetchone()[0]
    if total <= TEXT_BUDGET:
        return _any_of(words), "bm25"
    frequency = _document_frequencies(conn, words)
    words = sorted((w for w in words if frequency[w]), key=frequency.__getitem__)
    if not words:
        return None, "bm25"
    chosen, spent = [], 0
    for w in words:
        if spent + frequency[w] > TEXT_BUDGET:
            break
        chosen.append(w)
        spent += frequency[w]
    if chosen:
        return _any_of(chosen), "bm25"
    expected = total
    for w in words:
        expected *= frequency[w] / total  # as if the words were independent
    return " AND ".join(f'"{w}"' for w in words), "bm25" if expected <= TEXT_BUDGET else "newest"


def _document_frequencies(conn, words: list[str]) -> dict[str, int]:
    """How many memories hold each word, as FTS5 tokenizes it (porter stems: "moved" counts "move")."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words USING fts5(word, tokenize='porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms USING fts5vocab(temp, query_words, instance)")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.bank_terms USING fts5vocab(main, versions_fts, row)")
    conn.execute("DELETE FROM temp.query_words")
    conn.executemany("INSERT INTO temp.query_words (rowid, word) VALUES (?, ?)", list(enumerate(words, 1)))
    frequency = dict.fromkeys(words, 0)
    rows = conn.execute(
        "SELECT q.doc, min(coalesce(b.doc, 0)) FROM temp.query_terms q LEFT JOIN temp.bank_terms b ON b.term = q.term GROUP BY q.doc"
    ).fetchall()
    for doc, count in rows:  # a word of several tokens is a phrase: no more common than its rarest token
        frequency[words[doc - 1]] = count
    conn.execute("DELETE FROM temp.query_words")
    return frequency


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

    match, order = text_plan(bank.conn, query_words(query)) if text_weight > 0 else (None, "")
    if match:
        for rank, vid in enumerate(_text_ranked(bank, match, order, where, args, pool), 1):
            scores[vid] = scores.get(vid, 0.0) + text_weight / (RRF_K + rank)

    if vector_weight > 0 and bank.embedder is not None:  # not bound: the bank had no vectors when opened
        vector = query_vector if query_vector is not None else bank.embedder.embed([query])[0]
        for rank, vid in enumerate(_knn(bank, vector, where, args, pool), 1):
            scores[vid] = scores.get(vid, 0.0) + vector_weight / (RRF_K + rank)

    best = sorted(scores.items(), key=lambda kv: (-kv[1], -kv[0]))[:limit]
    results = []
    for vid, score in best:
        hit = version_dict(bank.version_row(vid), as_of=flt.as_of)
        hit["score"] = round(score * RRF_K, 6)  # 1.0 ≈ ranked first by a ranker of weight 1
        results.append(hit)
    return results


def _text_ranked(bank: Bank, match: str, order: str, where: str, args: list, want: int) -> list[int]:
    """FTS5's best matches admitted by the filter: ranked alone, then filtered, widening until enough survive.

    Filtering after ranking looks up a few hundred versions instead of every match.
    """
    ordering = "bm25(versions_fts)" if order == "bm25" else "rowid DESC"
    k = want * 2
    while True:
        ranked = [r[0] for r in bank.conn.execute(f"SELECT rowid FROM versions_fts WHERE versions_fts MATCH ? ORDER BY {ordering} LIMIT ?", (match, k))]
        admitted = {r[0] for r in bank.conn.execute(
            f"SELECT v.id FROM versions v WHERE v.id IN (SELECT value FROM json_each(?)) AND {where}", [json.dumps(ranked), *args])}
        if len(admitted) >= want or len(ranked) < k:
            return [vid for vid in ranked if vid in admitted][:want]
        k *= 4


def _knn(bank: Bank, vector, where: str, args: list, want: int) -> list[int]:
    """Nearest versions admitted by the filter: the binary prefilter on large banks, else exact KNN."""
    if not bank.conn.in_transaction and codes.worth_it(bank.conn):  # inside a transaction, rows may still roll back
        if bank.codes is None:
            bank.codes = codes.BinaryCodes()
        found = codes.knn(bank, bank.codes, vector, where, args, want)
        if found is not None:
            return found
    return _exact_knn(bank, to_blob(vector), where, args, want)


def _exact_knn(bank: Bank, blob: bytes, where: str, args: list, want: int) -> list[int]:
    """sqlite-vec's exact KNN; widens k until enough versions survive the filter."""
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


