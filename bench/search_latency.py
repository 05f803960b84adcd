"""Search speed and quality on large banks, as figures to record in docs/benchmarks.md (a script, not a test).

Usage: python bench/search_latency.py [--sizes 10000,100000,1000000] [--vectors mixture|uniform]
                                      [--queries 50] [--cli-runs 5] [--usability] [--workdir DIR [--reuse]]

Building a million memories through the embedder would take hours here, so each bank is built
straight into the schema the bank creates (open_bank, bind_embedder, then executemany into
revisions, versions, versions_fts, versions_vec, versions_codes and versions_f16 in one transaction,
then codes.compact):

  - `mixture` (default) vectors have the structure of real ones: a few thousand sentences from a
    small grammar of personal facts are embedded for real with all-MiniLM-L6-v2, and every memory
    is a weighted mix of two of them plus a little noise (renormalised); its text is the sentence
    with the larger weight. Queries are other sentences of the grammar, embedded for real.
  - `uniform` vectors are random unit vectors: no neighbourhood structure at all, the worst case for
    any approximate index (texts and queries as above).
  - `real`: every memory is a distinct sentence of the grammar with a time added, embedded for real
    (the embedding is the slow part: minutes per 100k here).

Then, per size:
  - in-process `search()` p50/p95 over --queries queries, hybrid and each ranker alone, with the
    query vector passed in (embedding is timed in the whole-process column), after one warm-up
    search (which loads the binary codes of a large bank; its time is printed);
  - recall@10 of the vector ranker against exact KNN (numpy over every vector), and of the text
    ranker against plain BM25 over every matching memory (see search.text_plan), counted by score:
    a hit scoring at least the exact 10th best counts, as the synthetic texts have many ties;
  - whole-process `hymem search` p50 over --cli-runs runs, with the real embedder (the bank is
    labelled all-MiniLM-L6-v2; its ONNX copy is made first, as the first `hymem add` does);
  - with --usability, whole-process `hymem add --raw` of 12 new messages into the bank, then
    `hymem history`, `hymem diff` and `hymem log` on it.
1M rows take several minutes to build and about 3.5 GB of disk (in --workdir, default a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from cold_start import median_seconds, process_env  # bench/ is on sys.path when a bench script runs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import hymem_cli.bank.search as search_module  # noqa: E402
from hymem_cli.bank import codes, open_bank  # noqa: E402
from hymem_cli.bank.search import SearchFilter, search  # noqa: E402
from hymem_cli.embed import DEFAULT_MODEL, HashEmbedder, get_embedder  # noqa: E402

DIM = 384
BATCH = 20_000

NAMES = ("Alex Sam Priya Jordan Mei Tomás Raj Elena Lin Noor Theo Ada Kofi Ingrid "
         "Mateo Yuki Omar Sofia Dmitri Grace Hana Luca Zara Ben").split()
PATTERNS = [
    "{n} moved to {p}", "{n} started working at {c}", "{n} is training for {e}", "{n} adopted a {a} named {x}",
    "{n} is learning {l}", "{n} visited {p} with {m}", "{n} is allergic to {f}", "{n} bought an apartment in {p}",
    "{n} loves cooking {f}", "{n} stopped eating {f}", "{n} plans a trip to {p} in {mo}", "{n} met {m} at {c}",
    "{n}'s favorite band is {b}", "{n} prefers {t} over {t2}", "{n} has a meeting with {m} on {d}", "{n} sold the old {v}",
    "{n} got promoted to {r} at {c}", "{n} broke a wrist while {s}", "{n}'s daughter starts school in {mo}",
    "{n} wants reminders about {h}", "{n} switched from {t} to {t2}", "{n} is reading a book about {topic}",
    "{n} volunteers at {o} on {d}s", "{n} keeps a budget of {money} per month for {h}", "{n} asked about flights to {p}",
    "The dentist appointment for {n} moved to {d}", "{n} and {m} are renovating the {room}", "{n} hates {f} but likes {f2}",
]
FILL = {
    "p": "Sydney Lisbon Kyoto Montreal Denver Reykjavik Nairobi Oslo Seoul Austin Porto Cusco Hanoi Tbilisi".split(),
    "c": ["Atlassian", "Stripe", "a bakery", "a hospital", "the city council", "Canonical", "a law firm", "a startup", "the university"],
    "e": ["the Chicago Marathon", "a triathlon", "the Vancouver half marathon", "a 10k", "an ultramarathon", "a cycling race"],
    "a": "dog cat rabbit parrot tortoise".split(), "x": "Biscuit Luna Pepper Miso Ziggy Olive Nori".split(),
    "l": "Portuguese Japanese Swahili Rust calculus pottery watercolor guitar chess".split(),
    "m": "Dana Chris Lee Pat Robin Morgan Jamie Casey".split(),
    "f": "peanuts shellfish cilantro gluten lactose sourdough ramen tofu mushrooms curry".split(),
    "mo": "January March May July September November".split(), "b": ["Radiohead", "Fleetwood Mac", "BTS", "Daft Punk", "the Beatles"],
    "t": "tea coffee vim emacs Python Go trains planes mornings evenings".split(),
    "d": "Monday Tuesday Wednesday Thursday Friday Saturday".split(), "v": "car bike piano couch laptop".split(),
    "r": ["team lead", "senior engineer", "director", "head chef", "principal"], "s": "skiing bouldering skateboarding surfing".split(),
    "h": ["medication", "rent", "groceries", "birthdays", "the gym", "plants"],
    "topic": ["Roman history", "mycology", "black holes", "chess openings", "urban gardening", "jazz"],
    "o": ["a food bank", "the animal shelter", "a library", "a hospice"], "money": ["$200", "$500", "€300", "$1,000"],
    "room": ["kitchen", "bathroom", "attic", "garage"],
}


WHEN = [f"in {m} {y}" for m in ("January", "March", "May", "July", "September", "November") for y in range(2019, 2026)] + [
    "last week", "yesterday", "this spring", "two years ago", "after the holidays", "before the move", "over the weekend"]


def sentences(rng: np.random.Generator, n: int, dated: bool = False) -> list[str]:
    """`n` distinct sentences of the grammar (about 25,000 exist; `dated` adds a time to each, for many more)."""
    out: dict[str, None] = {}
    while len(out) < n:
        pattern = PATTERNS[rng.integers(len(PATTERNS))]
        words = {k: v[rng.integers(len(v))] for k, v in FILL.items()}
        text = pattern.format(n=NAMES[rng.integers(len(NAMES))], f2=words["f"], t2=words["t"], **words)
        out[f"{text} {WHEN[rng.integers(len(WHEN))]}" if dated else text] = None
    return list(out)


def corpus(work: Path, bases: int, queries: int, dated: bool = False) -> tuple[list[str], np.ndarray, list[str], np.ndarray]:
    """Base and query sentences with their real embeddings, cached in the work folder."""
    cache = work / f"corpus-{bases}-{queries}{'-dated' if dated else ''}.npz"
    if cache.exists():
        data = np.load(cache, allow_pickle=False)
        return list(data["base_texts"]), data["base"], list(data["query_texts"]), data["query"]
    texts = sentences(np.random.default_rng(5), bases + queries, dated)
    embedder = get_embedder(DEFAULT_MODEL, prepare_fast=True)
    started = time.perf_counter()
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    print(f"embedded {len(texts)} sentences in {time.perf_counter() - started:.1f} s", flush=True)
    np.savez(cache, base_texts=texts[:bases], base=vectors[:bases], query_texts=texts[bases:], query=vectors[bases:])
    return texts[:bases], vectors[:bases], texts[bases:], vectors[bases:]


def memories(rng: np.random.Generator, start: int, n: int, kind: str, base_texts: list[str],
             base: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Memories `start`..`start + n - 1` (1-based) of a bank of this kind."""
    if kind == "real":  # one distinct real sentence per memory
        return base_texts[start - 1:start - 1 + n], base[start - 1:start - 1 + n].astype("<f4")
    first = rng.integers(len(base), size=n)
    texts = [base_texts[i] for i in first]
    if kind == "uniform":
        v = rng.standard_normal((n, DIM), dtype=np.float32)
    else:
        weight = rng.uniform(0.5, 1.0, size=(n, 1)).astype(np.float32)
        v = weight * base[first] + (1 - weight) * base[rng.integers(len(base), size=n)]
        v += 0.02 * rng.standard_normal((n, DIM), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return texts, v.astype("<f4")


def insert_memories(conn, rng: np.random.Generator, ids: range, kind: str, base_texts: list[str], base: np.ndarray,
                    now: str) -> np.ndarray:
    """Synthetic memories `ids` as revision 1's adds: their rows, full-text entries and sqlite-vec vectors (returned)."""
    texts, vectors = memories(rng, ids.start, len(ids), kind, base_texts, base)
    texts = [f"{t} (note {i})" for i, t in zip(ids, texts)]
    conn.executemany(
        "INSERT INTO versions (id, chain, op, text, speaker, revision, source, source_ids, event_time, created_at) "
        "VALUES (?, ?, 'add', ?, NULL, 1, 'synthetic', ?, ?, ?)",
        [(i, i, t, json.dumps([f"m{i}"]), f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z", now) for i, t in zip(ids, texts)],
    )
    conn.executemany("INSERT INTO versions_fts (rowid, text) VALUES (?, ?)", list(zip(ids, texts)))
    conn.executemany("INSERT INTO versions_vec (rowid, embedding) VALUES (?, ?)", [(i, v.tobytes()) for i, v in zip(ids, vectors)])
    return vectors


def replay(size: int, kind: str, base_texts: list[str], base: np.ndarray, seed: int = 7) -> np.ndarray:
    """The vectors `build` stores, made again (for --reuse)."""
    rng = np.random.default_rng(seed)
    return np.concatenate([memories(rng, start, min(BATCH, size + 1 - start), kind, base_texts,
                                    base)[1] for start in range(1, size + 1, BATCH)])


def build(path: Path, size: int, kind: str, base_texts: list[str], base: np.ndarray, seed: int = 7) -> tuple[float, np.ndarray]:
    """A bank of `size` current versions; returns seconds spent and every vector (for exact KNN)."""
    started = time.perf_counter()
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder(DIM))  # a 384-d vector table; relabelled below
    conn = bank.conn
    rng = np.random.default_rng(seed)
    now = "2026-11-30T00:00:00.000000Z"
    everything = np.empty((size, DIM), dtype=np.float32)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO revisions (id, time, command, source, writer, counts, state) "
                 "VALUES (1, ?, 'bench', 'synthetic', NULL, '{}', 'done')", (now,))
    for start in range(1, size + 1, BATCH):
        n = min(BATCH, size + 1 - start)
        ids = range(start, start + n)
        vectors = insert_memories(conn, rng, ids, kind, base_texts, base, now)
        everything[start - 1:start - 1 + n] = vectors
        bits = np.packbits(vectors > 0, axis=1, bitorder="little")  # what vec_quantize_binary stores
        conn.executemany("INSERT INTO versions_codes (version, bits) VALUES (?, ?)", [(i, b.tobytes()) for i, b in zip(ids, bits)])
        conn.executemany("INSERT INTO versions_f16 (version, embedding) VALUES (?, ?)",
                         [(i, v.astype("<f2").tobytes()) for i, v in zip(ids, vectors)])
    codes.compact(conn)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'embed_model'", (DEFAULT_MODEL,))
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.perf_counter() - started, everything


def percentiles(values: list[float]) -> tuple[float, float]:
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def in_process(path: Path, everything: np.ndarray, query_texts: list[str], query: np.ndarray) -> dict:
    bank = open_bank(path, create=False)
    stand_in = HashEmbedder(DIM)  # never called: query vectors are passed in
    stand_in.name = DEFAULT_MODEL
    bank.bind_embedder(stand_in)
    out: dict = {}
    started = time.perf_counter()
    search(bank, query_texts[0], 10, query_vector=query[0].tolist())  # loads the codes of a large bank
    out["warm-up s"] = time.perf_counter() - started
    for label, weights in (("hybrid", {}), ("vector", {"text_weight": 0.0}), ("text", {"vector_weight": 0.0})):
        times = []
        for text, vector in zip(query_texts, query):
            started = time.perf_counter()
            search(bank, text, 10, query_vector=vector.tolist(), **weights)
            times.append((time.perf_counter() - started) * 1000)
        out[label] = percentiles(times)
    where, args = SearchFilter().sql()
    found = 0
    for vector in query:
        got = search_module._knn(bank, vector.tolist(), where, args, 10)
        exact = np.argpartition(-(everything @ vector), 10)[:10] + 1  # ids are row numbers + 1
        found += len(set(got) & set(exact.tolist()))
    out["vector recall@10"] = found / (10 * len(query))
    found = 0
    for text in query_texts:  # text ranker vs plain BM25 over every matching memory, compared by score (ties are common)
        full = " OR ".join(f'"{w}"' for w in search_module.query_words(text))
        tenth = bank.conn.execute("SELECT bm25(versions_fts) FROM versions_fts WHERE versions_fts MATCH ? ORDER BY 1 LIMIT 10",
                                  (full,)).fetchall()[-1][0]
        hits = [int(h["id"][1:]) for h in search(bank, text, 10, vector_weight=0.0)]
        scores = bank.conn.execute("SELECT bm25(versions_fts) FROM versions_fts "
                                   "WHERE versions_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
                                   (full, json.dumps(hits))).fetchall()
        found += sum(score <= tenth + 1e-9 for (score,) in scores)
    out["text recall@10"] = found / (10 * len(query_texts))
    bank.conn.close()
    return out


def hymem(*args: str) -> list[str]:
    return [sys.executable, "-m", "hymem_cli", *args]


def usability(path: Path, home: Path) -> dict:
    """Whole-process seconds of everyday commands on the big bank."""
    env = process_env(home)
    out = {}
    fresh = path.with_suffix(".new.jsonl")  # new messages on every run: a re-run would only skip stored chunks
    stamp = time.time_ns()
    fresh.write_text("".join(json.dumps({"id": f"n{stamp}-{i}", "speaker": "Alex", "text": f"Note {stamp}-{i}: Alex moved to Oslo."}) + "\n"
                             for i in range(12)))
    for label, cmd in (("add --raw (12 new messages)", hymem("add", "--raw", str(fresh), "--bank", str(path), "-q")),
                       ("history m1", hymem("history", "m1", "--bank", str(path), "-f", "jsonl")),
                       ("diff 2", hymem("diff", "2", "--bank", str(path), "-f", "jsonl")),
                       ("log", hymem("log", "--bank", str(path), "-f", "jsonl"))):
        started = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        out[label] = time.perf_counter() - started
    return out


def name_speakers(path: Path) -> None:
    """Each memory said by the person its text starts with ("Priya visited Reykjavik ..."): about 40 speakers, so
    that a query naming one ranks through the named-speaker path (bank/search.py) with its lookups and weight."""
    from hymem_cli.bank.store import open_bank

    bank = open_bank(path)  # the speaker index comes with the upgrade (m010)
    bank.conn.execute("UPDATE versions SET speaker = substr(text, 1, instr(text, ' ') - 1) WHERE speaker IS NULL")  # one statement: atomic
    bank.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000", help="bank sizes, comma-separated")
    ap.add_argument("--vectors", choices=("mixture", "uniform", "real"), default="mixture",
                    help="real: one real sentence embedding per memory (embeds as many sentences as the largest size)")
    ap.add_argument("--bases", type=int, default=4000, help="real sentences the mixture is made from")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--cli-runs", type=int, default=5)
    ap.add_argument("--usability", action="store_true", help="also time add, history, diff and log on each bank")
    ap.add_argument("--workdir", help="where the banks go (default: a temporary folder, removed afterwards)")
    ap.add_argument("--reuse", action="store_true", help="measure banks already in --workdir instead of building them")
    ap.add_argument("--speakers", action="store_true",
                    help="make each memory's first word (a name) its speaker, so that queries naming someone take that path")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="hymem-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["HYMEM_HOME"] = str(work)  # the ONNX copy of the embedder goes here too
    try:
        bases = max(args.bases, *sizes) if args.vectors == "real" else args.bases
        base_texts, base, query_texts, query = corpus(work, bases, args.queries, dated=args.vectors == "real")
        for size in sizes:
            path = work / f"bank-{args.vectors}-{size}.db"
            if args.reuse and path.exists():
                built, everything = 0.0, replay(size, args.vectors, base_texts, base)
            else:
                for leftover in work.glob(f"{path.name}*"):
                    leftover.unlink()
                built, everything = build(path, size, args.vectors, base_texts, base)
            if args.speakers:
                name_speakers(path)
            mb = path.stat().st_size / 2**20
            print(f"\n{size:,} memories ({args.vectors} vectors): built in {built:.0f} s, {mb:,.0f} MB", flush=True)
            # Whole processes before the exact KNN below, whose BLAS threads were seen to slow them down.
            cli = median_seconds(hymem("search", "where did Priya move", "--bank", str(path), "-f", "jsonl"), process_env(work),
                                 args.cli_runs)
            print(f"  whole-process `hymem search`, real embedder, p50 of {args.cli_runs}: {cli:.2f} s", flush=True)
            timing = in_process(path, everything, query_texts, query)
            del everything
            print(f"  first search (loads the codes): {timing['warm-up s'] * 1000:.0f} ms")
            for label in ("hybrid", "vector", "text"):
                print(f"  {label:7} p50 {timing[label][0]:7.1f} ms   p95 {timing[label][1]:7.1f} ms")
            print(f"  vector recall@10 vs exact KNN: {timing['vector recall@10']:.3f}; "
                  f"text recall@10 vs plain BM25: {timing['text recall@10']:.3f}",
                  flush=True)
            if args.usability:  # last: it adds memories to the bank
                for label, seconds in usability(path, work).items():
                    print(f"  whole-process `hymem {label}`: {seconds:.2f} s", flush=True)
            if not args.workdir:
                path.unlink(missing_ok=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
