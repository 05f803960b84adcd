"""Search latency on large banks, as figures to record in docs/benchmarks.md (a script, not a test).

Usage: python bench/search_latency.py [--sizes 10000,100000,1000000] [--queries 50] [--cli-runs 5] [--real]

For each size, builds a bank fast: the bank creates its own schema (open_bank, then bind_embedder with the
hash embedder for a 384-d vector table), then synthetic rows go straight into revisions, versions,
versions_fts and versions_vec with executemany in one transaction: seeded unit vectors (numpy) and short
synthetic texts. Then it measures
  - in-process `search()` p50/p95 over --queries random queries (query vectors passed in, so no
    embedding is timed), hybrid and each ranker alone;
  - whole-process `python -m hymem_cli search` p50 over --cli-runs runs with HYMEM_EMBED_MODEL=hash
    (a process that never imports torch);
  - with --real, the same on the 100k bank with the real embedder, from torch (HYMEM_EMBED_ONNX=0) and
    from its ONNX copy (the bank is relabelled as an all-MiniLM-L6-v2 bank: its vectors stay
    synthetic, the query is embedded for real).
1M rows take minutes to build and about 2 GB of disk (in --workdir, default a temporary folder).
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
from cold_start import median_seconds  # bench/ is on sys.path when a bench script runs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from hymem_cli.bank import open_bank  # noqa: E402
from hymem_cli.bank.search import search  # noqa: E402
from hymem_cli.embed import DEFAULT_MODEL, HashEmbedder  # noqa: E402

DIM = 384
BATCH = 20_000
NAMES = ["Alex", "Sam", "Priya", "Jordan", "Mei", "Tomás", "Raj", "Elena", "Lin", "Noor", "Theo", "Ada"]
VERBS = ["moved to", "started a job at", "is training for", "adopted a dog from", "is learning", "visited",
         "is allergic to", "bought a house in", "loves", "stopped eating", "plans a trip to", "met a friend in"]
OBJECTS = ["Sydney", "Atlassian", "the Vancouver half marathon", "a shelter in Fremont", "Portuguese", "Kyoto",
           "peanuts", "Round Rock", "sourdough", "cilantro", "Lisbon", "Montreal", "Denver", "pottery", "Niseko",
           "a bakery on 5th", "the Chicago Marathon", "watercolor", "Reykjavik", "bouldering"]


def texts(rng: np.random.Generator, n: int, start: int) -> list[str]:
    who = rng.integers(len(NAMES), size=n)
    verb = rng.integers(len(VERBS), size=n)
    obj = rng.integers(len(OBJECTS), size=n)
    week = rng.integers(1, 53, size=n)
    return [f"{NAMES[a]} {VERBS[b]} {OBJECTS[c]} in week {w}, note {start + i}" for i, (a, b, c, w) in enumerate(zip(who, verb, obj, week))]


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v.astype("<f4")


def build(path: Path, size: int, seed: int = 7) -> float:
    """A bank of `size` current versions; returns seconds spent."""
    started = time.perf_counter()
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder(DIM))
    conn = bank.conn
    rng = np.random.default_rng(seed)
    now = "2026-11-30T00:00:00.000000Z"
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO revisions (id, time, command, source, writer, counts, state) VALUES (1, ?, 'bench', 'synthetic', NULL, '{}', 'done')", (now,))
    for start in range(1, size + 1, BATCH):
        n = min(BATCH, size + 1 - start)
        ids = range(start, start + n)
        body = texts(rng, n, start)
        vectors = unit_vectors(rng, n)
        conn.executemany(
            "INSERT INTO versions (id, chain, op, text, speaker, revision, source, source_ids, event_time, created_at) "
            "VALUES (?, ?, 'add', ?, NULL, 1, 'synthetic', ?, ?, ?)",
            [(i, i, t, json.dumps([f"m{i}"]), f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z", now) for i, t in zip(ids, body)],
        )
        conn.executemany("INSERT INTO versions_fts (rowid, text) VALUES (?, ?)", list(zip(ids, body)))
        conn.executemany("INSERT INTO versions_vec (rowid, embedding) VALUES (?, ?)", [(i, v.tobytes()) for i, v in zip(ids, vectors)])
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.perf_counter() - started


def percentile(values: list[float], p: float) -> float:
    return float(np.percentile(np.array(values), p))


def in_process(path: Path, queries: int, seed: int = 11) -> dict:
    bank = open_bank(path, create=False)
    bank.bind_embedder(HashEmbedder(DIM))
    rng = np.random.default_rng(seed)
    qtexts = [f"where did {NAMES[a]} {VERBS[b]} {OBJECTS[c]}" for a, b, c in rng.integers(0, [len(NAMES), len(VERBS), len(OBJECTS)], size=(queries, 3))]
    qvectors = unit_vectors(rng, queries)
    out = {}
    search(bank, qtexts[0], 10, query_vector=qvectors[0].tolist())  # warm the page cache once
    for label, weights in (("hybrid", {}), ("vector only", {"text_weight": 0.0}), ("text only", {"vector_weight": 0.0})):
        times = []
        for text, vector in zip(qtexts, qvectors):
            started = time.perf_counter()
            search(bank, text, 10, query_vector=vector.tolist(), **weights)
            times.append((time.perf_counter() - started) * 1000)
        out[label] = (percentile(times, 50), percentile(times, 95))
    bank.conn.close()
    return out


def clean_env(home: Path, **extra: str) -> dict:
    """This environment without the caller's HYMEM_* settings, with everything under `home`."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("HYMEM_")}, "HYMEM_HOME": str(home), **extra}


def whole_process(path: Path, runs: int, model: str, home: Path, **extra_env: str) -> float:
    env = clean_env(home, HYMEM_EMBED_MODEL=model, **extra_env)
    cmd = [sys.executable, "-m", "hymem_cli", "search", "where did Priya move to Lisbon", "--bank", str(path), "-f", "jsonl"]
    return median_seconds(cmd, env, runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000", help="bank sizes, comma-separated")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--cli-runs", type=int, default=5)
    ap.add_argument("--real", action="store_true", help="also time whole-process search with the real embedder on the 100k bank")
    ap.add_argument("--workdir", help="where the banks go (default: a temporary folder, removed afterwards)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="hymem-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"{'rows':>9}  {'build s':>8}  {'MB':>7}  {'hybrid p50/p95 ms':>18}  {'vector p50/p95 ms':>18}  {'text p50/p95 ms':>16}  {'CLI hash p50 s':>14}")
    try:
        for size in sizes:
            path = work / f"bank-{size}.db"
            path.unlink(missing_ok=True)
            built = build(path, size)
            mb = path.stat().st_size / 2**20
            timing = in_process(path, args.queries)
            cli = whole_process(path, args.cli_runs, "hash", work)
            cells = "  ".join(f"{timing[k][0]:8.1f}/{timing[k][1]:<8.1f}" for k in ("hybrid", "vector only", "text only"))
            print(f"{size:>9}  {built:8.1f}  {mb:7.0f}  {cells}  {cli:14.2f}", flush=True)
            if args.real and size == 100_000:
                bank = open_bank(path, create=False)
                bank.conn.execute("UPDATE meta SET value = ? WHERE key = 'embed_model'", (DEFAULT_MODEL,))
                bank.conn.close()
                torch_s = whole_process(path, args.cli_runs, DEFAULT_MODEL, work, HYMEM_EMBED_ONNX="0")
                # the ONNX copy that `hymem add` makes on first ingest, made here directly
                prepare = f"from hymem_cli.embed import get_embedder; get_embedder({DEFAULT_MODEL!r}, prepare_fast=True)"
                subprocess.run([sys.executable, "-c", prepare], env=clean_env(work), check=True, capture_output=True)
                onnx_s = whole_process(path, args.cli_runs, DEFAULT_MODEL, work)
                print(f"{size:>9}  whole-process search, real embedder ({DEFAULT_MODEL}): p50 {torch_s:.2f} s from torch, "
                      f"{onnx_s:.2f} s from the ONNX copy", flush=True)
            path.unlink(missing_ok=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
