"""Hybrid search: vector KNN and FTS5 BM25, each list's scores min-max normalised and fused by weight.

Within the top RECENT_TOP, a result that is newer than one ranked above it and updates it goes first: the
updated fact above the stale one. It updates it when the two are close in meaning and share two of the query's
words, or when the same speaker said both, close in meaning, and either naming two of the same things, or closer
still when the query names that speaker, or the newer holding more of the query's words (newer_first_order).

A query that names a speaker of the bank ("Where does Nadia live?") is about what that person said or what was
said of them. Every raw message of theirs starts with their name, so the name alone would rank their shortest
messages first ("Nadia: Very good."), in BM25 and in the vectors alike: the name is left out of the words and of
the query's vector, and the memories they said or that name them gain a fixed weight in the fusion instead.

Small banks use sqlite-vec's exact KNN and plain BM25. Large ones (codes.PREFILTER_FROM memories
and up) search vectors through sign-bit codes with exact rescoring (bank/codes.py), score with
BM25 only the memories the query's rarer words choose (text_plan), and rank words and vectors
side by side on two connections.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hymem_cli import config
from hymem_cli.bank import codes, scoring
from hymem_cli.bank.rows import SHOWN, version_dict
from hymem_cli.embed import to_blob

if TYPE_CHECKING:  # the bank is handed in; search never opens one
    from hymem_cli.bank.store import Bank

KNN_MAX = 4096  # sqlite-vec's largest k
SOURCES = "versions_sources_fts"  # writers' facts indexed by their source messages (migration m009); raw messages are not in it
TEXT_BUDGET = 10_000  # memories BM25 may score per query (a few µs each here); see text_plan
RRF_K = 60  # the usual reciprocal-rank constant: flattens the difference between ranks 1 and 2
POOL = 100  # results per ranker that are scored and fused; RRF keeps its old 50
RECENT_TOP = 10  # the newer-first rule reorders this many best results
RECENT_COSINE = 0.5  # ... between two results at least this close in meaning
RECENT_WORDS = 2  # ... that share at least this many of the query's words
SPEAKER_COSINE = 0.4  # or: said by the same speaker, at least this close (a restatement: "I left Ledgerly" after "I work at Ledgerly")
SPEAKER_WORDS = 2  # ... and sharing at least this many words other than stopwords and speakers' names
NAMED_COSINE = 0.6  # or: said by the speaker the query names, at least this close
# Words that match almost every conversational message and only add noise to an OR query.
STOPWORDS = frozenset(
    "a an and are as at be but by did do does for from had has have he her his how i in is it its "
    "me my of on or our she so that the their them they this to was we were what when where which "
    "who why will with you your".split()
)


MAX_RESULTS = 1_000_000  # more than any bank answers usefully; SQLite's integers end at 2**63


def _default(name: str):
    return config.KEYS[f"search.{name}"][0]  # every default is declared once, with its help, in config.KEYS


@dataclass(frozen=True)
class Ranking:
    """How results are ranked and which are good enough to show: the search.* settings that shape a result list,
    as one value (`Ranking.of(settings.search)`), passed whole to `search`, to `hymem serve` and to the benches.

    `fusion` "calibrated" orders by the score (bank/scoring.py: a probability of relevance); "minmax" scales each
    ranker's scores over its own top POOL to [0, 1] and adds them by weight; "rrf" adds weight / (RRF_K + rank).
    Whatever the order, `score` is the calibrated one, and results scoring below `min_score` are left out.
    `newer_first` applies the update rule of the module docstring to the top RECENT_TOP; `speaker_updates` adds
    its same-speaker half. `sources_weight` adds a third list: writers' facts ranked by BM25 over the source messages
    they cite (raw messages are never in it). `speaker_weight` > 0 turns on the handling of a query that names a
    speaker (module docstring), with that weight.
    """

    fusion: str = _default("fusion")
    vector_weight: float = _default("vector_weight")
    text_weight: float = _default("text_weight")
    sources_weight: float = _default("sources_weight")
    speaker_weight: float = _default("speaker_weight")
    newer_first: bool = _default("newer_first")
    speaker_updates: bool = _default("speaker_updates")
    min_score: float = _default("min_score")

    @classmethod
    def of(cls, settings) -> Ranking:
        """From config.SearchSettings (or anything with these attributes)."""
        return cls(**{f: getattr(settings, f) for f in cls.__dataclass_fields__})

    def changed(self, values: dict) -> Ranking:
        """A copy with those of `values` that name a field, each cast to that field's type (a request from another
        hymem may name fewer or more of them)."""
        import dataclasses

        known = {k: type(getattr(self, k))(v) for k, v in values.items() if k in self.__dataclass_fields__}
        return dataclasses.replace(self, **known) if known else self

    def asdict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


@dataclass
class SearchFilter:
    include_retired: bool = False  # --all
    as_of: int | None = None  # --as-of REV
    source: str | None = None  # glob on the source path
    since: str | None = None  # event_time >= since
    until: str | None = None  # event_time <= until
    origin: list[str] | None = None  # --origin: said (a participant's own words), quoted, document, comment, code, tool
    layer: str | None = None  # --layer: "fact", "message" or "all"; None: facts, and the messages no writer has read (rows.SHOWN)

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
        if self.origin:
            named = [o for o in self.origin if o != "said"]
            either = ([f"v.origin IN ({', '.join('?' * len(named))})"] if named else []) + (["v.origin IS NULL"] if "said" in self.origin else [])
            where.append(f"({' OR '.join(either)})")
            args += named
        if self.layer == "fact":
            where.append("v.layer IS NULL")
        elif self.layer == "message":
            where.append("v.layer = 'message'")
        elif self.layer != "all":
            where.append(SHOWN)
        return (" AND ".join(where) or "1"), args



def query_words(text: str) -> list[str]:
    """The query's distinct words, stopwords dropped unless nothing else is left; at most 64 (a 1 MB message is not a query)."""
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS] or re.findall(r"\w+", text.lower())
    return list(dict.fromkeys(words))[:64]


def named_speakers(conn, words: list[str]) -> set[str]:
    """Those of the query's `words` that name a speaker of the bank, whatever the case (one indexed lookup each)."""
    return {w for w in words if not w.isdigit() and len(w) > 1
            and conn.execute("SELECT 1 FROM versions WHERE speaker = ? COLLATE NOCASE LIMIT 1", (w,)).fetchone()}


def _names_pattern(names: set[str]) -> re.Pattern:
    """Any of `names` as a whole word, whatever the case."""
    return re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b", re.IGNORECASE)


def without_names(query: str, names: set[str]) -> str:
    """`query` with the `names` taken out; the query itself when nothing but stopwords would be left."""
    rest = _names_pattern(names).sub(" ", query)
    return " ".join(rest.split()) if any(w not in STOPWORDS for w in re.findall(r"\w+", rest.lower())) else query


def _any_of(words: list[str]) -> str | None:
    """An OR of quoted words: FTS5 joins with AND by default, which recalls too little."""
    return " OR ".join(f'"{w}"' for w in words) or None


def text_plan(conn, words: list[str], table: str = "versions_fts") -> list[tuple[str, str]]:
    """FTS5 queries, each with its ordering, whose results together rank `words` within TEXT_BUDGET.

    BM25 costs microseconds per matching document, so an OR of common words over a million
    memories takes most of a second. Below the budget the plan is that plain OR. Above it, a few
    words choose the documents to score: the rarest words while their documents fit the budget
    (any of them), or else the fewest rarest words whose documents together fit (all of them).
    The plan ranks the chosen documents holding one of the other words, then those holding none:
    FTS5 scores every word in an expression, present or not, so each document gets exactly the
    BM25 score the plain OR would give it, and the two lists merge by score. Left out are
    documents the choosing words miss, which BM25, weighing a word by its rarity, mostly ranks
    lower. Last, for when those are too few, the newest memories holding the rarest word.
    """
    total = conn.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()[0]
    if total <= TEXT_BUDGET:
        return [(_any_of(words), "bm25")] if words else []
    count = {w: _count(conn, f'"{w}"', 8 * TEXT_BUDGET, table) for w in words}  # capped: a word in every memory costs no more
    words = sorted((w for w in words if count[w]), key=count.__getitem__)
    if not words:
        return []
    chosen, spent = [], 0
    for w in words:
        if spent + count[w] > TEXT_BUDGET:
            break
        chosen.append(w)
        spent += count[w]
    if chosen:
        choose = _any_of(chosen)
    else:
        for w in words:
            chosen.append(w)
            if len(chosen) > 1 and _count(conn, _all_of(chosen), TEXT_BUDGET, table) <= TEXT_BUDGET:
                break
        else:
            return [(_all_of(words), "newest")]
        choose = _all_of(chosen)
    others = _any_of(words[len(chosen):])
    plan = [(f"({choose}) AND ({others})", "bm25"), (f"({choose}) NOT ({others})", "bm25")] if others else [(choose, "bm25")]
    return plan + [(f'"{words[0]}"', "newest")]


def _all_of(words: list[str]) -> str:
    return " AND ".join(f'"{w}"' for w in words)


def _count(conn, match: str, cap: int, table: str = "versions_fts") -> int:
    """How many memories `match` finds, counting no further than just past `cap` (counting costs time per match)."""
    return conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)", (match, cap + 1)).fetchone()[0]


def search(
    bank: Bank,
    query: str,
    limit: int = 10,
    flt: SearchFilter | None = None,
    ranking: Ranking | None = None,
    *,
    query_vector: list[float] | None = None,
    signals: bool = False,
    **changes,
) -> list[dict]:
    """The best `limit` versions for `query` that score at least `ranking.min_score`, each a version dict with
    `score` (bank/scoring.py: the same for a memory and a query whatever else the bank holds).

    `ranking`: the Ranking (default: the shipped one); `changes`: some of its fields changed for this call
    (`vector_weight=0`), as tests and callers that still pass the fields one by one do. `signals`: each result also
    carries the signals its score came from (score_signals), for benches and for reading why a result ranks where.
    """
    ranking = (ranking or Ranking()).changed(changes) if changes else (ranking or Ranking())
    flt = flt or SearchFilter()
    where, args = flt.sql()
    limit = max(1, min(int(limit), MAX_RESULTS))  # a limit from a config file is not bounded by the CLI's option
    pool = max(limit * 5, POOL if ranking.fusion != "rrf" else 50)  # candidates per ranker before fusion

    asked = query_words(query)
    named = named_speakers(bank.conn, asked) if ranking.speaker_weight > 0 else set()
    words = ([w for w in asked if w not in named] or asked)
    by_words = ranking.text_weight > 0
    by_vector = ranking.vector_weight > 0 and bank.embedder is not None  # not bound: the bank had no vectors when opened
    text_hits: list[tuple[int, float]] = []
    vector_hits: list[int] = []
    vector = _query_vector(bank, without_names(query, named) if named else query, query_vector) if by_vector else None
    large = _large(bank)
    if words and by_words and by_vector and large:
        # A large bank: rank the words on a second connection while the vectors are ranked here;
        # SQLite and numpy both let go of the interpreter while they work.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(1) as executor:
            job = executor.submit(text_ranked, bank.reader(), words, where, args, pool, True)
            vector_hits = _knn(bank, vector, where, args, pool, large, exact=limit)
            text_hits = job.result()
    else:
        text_hits = text_ranked(bank.conn, words, where, args, pool, True) if words and by_words else []
        vector_hits = _knn(bank, vector, where, args, pool, large, exact=limit) if by_vector else []
    source_hits = text_ranked(bank.conn, words, where, args, pool, True, SOURCES) if words and ranking.sources_weight > 0 else []

    candidates = list(dict.fromkeys([vid for vid, _ in text_hits] + vector_hits + [vid for vid, _ in source_hits]))
    found = score_signals(bank, candidates, words if by_words else [], vector, named, dict(source_hits))
    # The weights are relative: divided by the sum of those of the signals at hand (meaning, words), so that a search by
    # words alone (no vectors, or vector_weight 0) still reaches a full score when it holds every word of the query.
    at_hand = (ranking.vector_weight if by_vector else 0.0) + (ranking.text_weight if by_words else 0.0)
    scale = 1.0 / at_hand if at_hand > 0 else 1.0
    scores = {vid: scoring.probability(scale * (ranking.vector_weight * s["cosine"] + ranking.text_weight * s["words"]
                                                + ranking.speaker_weight * s["speaker"] + ranking.sources_weight * s["sources"]))
              for vid, s in found.items()}
    # Without vectors the words alone order the results as BM25 does (rarity, length), which the share of words held
    # cannot match; the scores stay the calibrated ones.
    fusion = ranking.fusion if by_vector or ranking.fusion != "calibrated" else "minmax"
    if fusion == "rrf":
        order = _rrf([([vid for vid, _ in text_hits], ranking.text_weight), (vector_hits, ranking.vector_weight),
                      ([vid for vid, _ in source_hits], ranking.sources_weight)])
        if named:  # the memories by or about the named speakers, in the order the other lists gave them
            order = _rrf([([vid for vid in sorted(order, key=lambda v: (-order[v], -v)) if found[vid]["speaker"]],
                           ranking.speaker_weight)], order)
    elif fusion == "minmax":
        lists = [({vid: -bm25 for vid, bm25 in text_hits}, ranking.text_weight),
                 ({vid: found[vid]["cosine"] for vid in vector_hits}, ranking.vector_weight),
                 ({vid: -bm25 for vid, bm25 in source_hits}, ranking.sources_weight)]
        if named:  # 1 for a memory by or about a named speaker, 0 for the other candidates
            lists.append(({vid: found[vid]["speaker"] for vid in candidates}, ranking.speaker_weight))
        order = _minmax(lists)
    else:
        order = scores

    ranked = [vid for vid, _ in sorted(order.items(), key=lambda kv: (-kv[1], -kv[0]))]
    rows: dict[int, object] = {}
    if ranking.newer_first and len(ranked) > 1:
        head = ranked[:RECENT_TOP]
        rows = {vid: bank.version_row(vid) for vid in head}
        moved = newer_first_order(head, rows, _vectors(bank, head), asked, ranking.speaker_updates, named)
        # An update taking an older result's place is at least as likely to be what the query asks for.
        for place, vid in enumerate(moved):
            if moved[place] != head[place] and scores[head[place]] > scores[vid]:
                scores[vid] = scores[head[place]]
        ranked = moved + ranked[RECENT_TOP:]
    results = []
    for vid in ranked:
        if len(results) >= limit:
            break
        if scores[vid] < ranking.min_score:
            continue
        hit = version_dict(rows.get(vid) or bank.version_row(vid), as_of=flt.as_of)
        hit["score"] = round(scores[vid], 6)
        if signals:
            hit["signals"] = found[vid]
        results.append(hit)
    return results


def score_signals(bank: Bank, ids: list[int], words: list[str], vector, named: set[str],
                  sources: dict[int, float] | None = None) -> dict[int, dict[str, float]]:
    """Each candidate's signals (bank/scoring.py), each fixed in scale: `cosine` to the query's vector (0 without one),
    `words` (the weighted share of `words` it holds), `speaker` (1 when said by or naming one of `named`), `sources`
    (its source messages' BM25 in `sources`, saturated)."""
    if not ids:
        return {}
    weights: dict[str, float] = {}
    for w in words:
        held_by = _count(bank.conn, f'"{w}"', scoring.DF_NONE)
        s = scoring.stem(w)
        weights[s] = max(weights.get(s, 0.0), scoring.word_weight(held_by))
    cosines = _cosines(bank, vector, ids) if vector is not None else {}
    rows = bank.conn.execute("SELECT id, speaker, text FROM versions WHERE id IN (SELECT value FROM json_each(?))",
                             (json.dumps(ids),)).fetchall()
    mention = _names_pattern(named) if named else None
    sources = sources or {}
    signals = {}
    for vid, speaker, text in rows:
        said = (speaker or "").lower()
        own = text[len(said) + 1:] if said and text.lower().startswith(said + ":") else text
        about = bool(named) and (said in named or bool(mention.search(own)))
        signals[vid] = {"cosine": max(0.0, cosines.get(vid, 0.0)), "words": scoring.words_held(weights, text),
                        "speaker": float(about), "sources": scoring.saturated(sources[vid]) if vid in sources else 0.0}
    return signals


def _rrf(lists: list[tuple[list[int], float]], scores: dict[int, float] | None = None) -> dict[int, float]:
    """Weighted reciprocal rank fusion: each list adds weight / (RRF_K + rank) (to `scores`, when given)."""
    scores = dict(scores or {})
    for hits, weight in lists:
        for rank, vid in enumerate(hits, 1):
            scores[vid] = scores.get(vid, 0.0) + weight / (RRF_K + rank)
    return scores


def _minmax(lists: list[tuple[dict[int, float], float]]) -> dict[int, float]:
    """Each list's scores (higher is better) scaled to [0, 1] over that list, then a weighted mean; absent counts 0.

    Unlike RRF this keeps how far apart scores are: a weak vector list (all similarities close together) moves
    results little, a decisive BM25 match keeps its lead. A list whose scores are all equal gives each 1.
    """
    total = sum(weight for scored, weight in lists if scored) or 1.0
    fused: dict[int, float] = {}
    for scored, weight in lists:
        if not scored:
            continue
        low, high = min(scored.values()), max(scored.values())
        span = high - low
        for vid, value in scored.items():
            fused[vid] = fused.get(vid, 0.0) + weight / total * ((value - low) / span if span > 0 else 1.0)
    return fused


def _vectors(bank: Bank, ids: list[int]) -> dict:
    """The stored vectors of `ids` (float32 numpy arrays), from the float16 copies that bank/codes.py keeps."""
    import numpy as np

    rows = bank.conn.execute("SELECT version, embedding FROM versions_f16 WHERE version IN (SELECT value FROM json_each(?))",
                             (json.dumps(ids),)).fetchall()
    return {r[0]: np.frombuffer(r[1], dtype="<f2").astype(np.float32) for r in rows}


def _cosines(bank: Bank, vector, ids: list[int]) -> dict[int, float]:
    """Cosine similarity of the query `vector` to each of `ids`: the vector ranker's scores."""
    import numpy as np

    query = np.asarray(vector, dtype=np.float32)
    query = query / (np.linalg.norm(query) or 1.0)
    found = _vectors(bank, ids)
    return {vid: float(found[vid] @ query / (np.linalg.norm(found[vid]) or 1.0)) for vid in ids if vid in found}


def _words(text: str, content: bool = False) -> set[str]:
    """A text's stemmed words; `content`: only those that are not stopwords or single letters."""
    return {scoring.stem(w) for w in re.findall(r"\w+", text.lower()) if not content or (w not in STOPWORDS and len(w) > 1)}


def newer_first_order(head: list[int], rows: dict, vectors: dict, words: list[str], by_speaker: bool = True,
                      named: set[str] = frozenset()) -> list[int]:
    """`head` (best first) with each result moved above the first older one it updates.

    "Updates" is a narrow rule, either of:
    - close in meaning (cosine > RECENT_COSINE between their stored vectors) and holding at least RECENT_WORDS of the
      query's words in common;
    - with `by_speaker`, the same named speaker (memories without one are left to the first rule), cosine > SPEAKER_COSINE and at least SPEAKER_WORDS words
      in common that are neither stopwords nor a speaker's name: an update restates what it changes ("I quit
      Ledgerly" after "I'm an engineer at Ledgerly") but often lacks the query's words ("Where does Raj work?");
    - with `by_speaker`, the same speaker, one the query names (`named`, lowercase), and cosine > NAMED_COSINE: the
      question is about that person, and two close things they said are most likely one fact and its change;
    - with `by_speaker`, the same speaker, cosine > RECENT_COSINE, and the newer holds more of the query's words (a
      named speaker's name aside) than the older: "she'll switch schools" after "She's in Year 2 at Hollybrook
      Primary", for "Which school will Ama go to?".
    Newer is the later event time when both have one, else the later stored version. Results without a stored
    vector stay where they are.
    """
    import numpy as np

    wanted = {scoring.stem(w) for w in words}
    shared = {vid: wanted & _words(rows[vid]["text"]) for vid in head}
    names = {scoring.stem(rows[vid]["speaker"].lower()) for vid in head if rows[vid]["speaker"]}
    content = {vid: _words(rows[vid]["text"], content=True) - names for vid in head}
    held = {vid: shared[vid] - {scoring.stem(n) for n in named} for vid in head}  # the query's words it holds, a named speaker's name aside
    unit = {vid: v / (np.linalg.norm(v) or 1.0) for vid, v in vectors.items()}

    def newer(a: int, b: int) -> bool:
        ta, tb = rows[a]["event_time"], rows[b]["event_time"]
        return (ta, a) > (tb, b) if ta and tb else a > b  # without both event times, the later stored

    def updates(later: int, earlier: int) -> bool:
        if earlier not in unit or not newer(later, earlier):
            return False
        cosine = float(unit[later] @ unit[earlier])
        if len(shared[later] & shared[earlier]) >= RECENT_WORDS and cosine > RECENT_COSINE:
            return True
        speaker = rows[later]["speaker"]
        if not by_speaker or speaker is None or speaker != rows[earlier]["speaker"]:
            return False
        return (cosine > NAMED_COSINE and speaker.lower() in named
                or cosine > RECENT_COSINE and len(held[later]) > len(held[earlier])
                or cosine > SPEAKER_COSINE and len(content[later] & content[earlier]) >= SPEAKER_WORDS)

    order = list(head)
    for j in range(1, len(order)):
        later = order[j]
        if later not in unit:
            continue
        for i in range(j):
            if updates(later, order[i]):
                order.insert(i, order.pop(j))
                break
    return order


def _query_vector(bank: Bank, query: str, given):
    if given is not None:
        return given
    with one_thread():
        return bank.embedder.embed([query])[0]


_THREADS: list = []  # the threadpoolctl controller, made on first use (it lists the loaded native libraries once)


def one_thread():
    """A context in which numpy's BLAS runs on one thread: one query's forward pass is a few small matrix products,
    and on a busy machine handing each to a pool of threads costs more than it saves (docs/benchmarks.md)."""
    import contextlib

    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # threadpoolctl comes with sentence-transformers; without it, BLAS keeps its own threads
        return contextlib.nullcontext()
    if not _THREADS:
        _THREADS.append(ThreadpoolController())
    return _THREADS[0].limit(limits=1, user_api="blas")


def text_ranked(conn, words: list[str], where: str, args: list, want: int, scores: bool = False, table: str = "versions_fts") -> list:
    """The `want` best versions for `words` admitted by the filter, following text_plan; `table`: the full-text index
    to search (SOURCES: writers' facts by their source messages).

    With `scores`, (version, BM25) pairs (lower is better); the newest memories a plan ends with, which have
    no score, get the worst score of the list."""
    scored: dict[int, float] = {}  # BM25 (lower is better) of versions ranked by score
    newest: list[int] = []  # then, for a plan that ends in common words only, the newest
    for match, order in text_plan(conn, words, table):
        if order == "newest" and len(scored) >= want:
            break
        for vid, score in _matches(conn, match, order, where, args, want, table):
            if score is None:
                newest.append(vid)
            else:
                scored[vid] = min(score, scored.get(vid, score))
    best = sorted(scored, key=lambda v: (scored[v], -v))
    ranked = (best + [v for v in newest if v not in scored])[:want]
    if not scores:
        return ranked
    worst = max(scored.values(), default=0.0)
    return [(v, scored.get(v, worst)) for v in ranked]


def _matches(conn, match: str, order: str, where: str, args: list, want: int, table: str = "versions_fts") -> list[tuple[int, float | None]]:
    """One FTS5 query's best matches admitted by the filter: ranked alone, then filtered, widening until enough survive.

    Filtering after ranking looks up a few hundred versions instead of every match.
    """
    sql = (f"SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY 2 LIMIT ?" if order == "bm25"
           else f"SELECT rowid, NULL FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ?")
    k = want * 2
    while True:
        ranked = conn.execute(sql, (match, k)).fetchall()
        admitted = {r[0] for r in conn.execute(
            f"SELECT v.id FROM versions v WHERE v.id IN (SELECT value FROM json_each(?)) AND {where}", [json.dumps([r[0] for r in ranked]), *args])}
        if len(admitted) >= want or len(ranked) < k:
            return [(r[0], r[1]) for r in ranked if r[0] in admitted][:want]
        k *= 4


def _large(bank: Bank) -> bool:
    """Search this bank through its codes? Not inside a transaction: rows may still roll back, and codes stay cached."""
    return not bank.conn.in_transaction and codes.worth_it(bank.conn)


def _knn(bank: Bank, vector, where: str, args: list, want: int, large: bool | None = None, exact: int | None = None) -> list[int]:
    """Nearest versions admitted by the filter: the binary prefilter on large banks (candidates sized for the first
    `exact`), else exact KNN."""
    if large is None:
        large = _large(bank)
    if large:
        found = codes.knn(bank, bank.code_index(), vector, where, args, want, exact)
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


RELATED = Ranking(min_score=0.0)  # the shipped ranking, without a floor


FACTS = SearchFilter(layer="fact")


def related(bank: Bank, texts: list[str], limit: int) -> list[dict]:
    """Current facts closest to any of `texts` (hybrid search per text, merged by best score); never a message: a
    writer updates facts, and a message waiting for it is what it is about to read."""
    if limit <= 0 or bank.embedder is None or not texts:
        return []
    best: dict[str, tuple[float, dict]] = {}
    for text, vector in zip(texts, bank.embedder.embed(list(texts))):
        # No floor: the writer must see the fact a chunk changes even when the chunk's words barely touch it.
        for hit in search(bank, text, limit, FACTS, RELATED, query_vector=vector):
            if hit["id"] not in best or hit["score"] > best[hit["id"]][0]:
                best[hit["id"]] = (hit["score"], hit)
    return [hit for _, hit in sorted(best.values(), key=lambda sh: -sh[0])[:limit]]
