"""How long upgrading a large bank takes, and what it does to the file's size (a script, not a test).

Usage: python bench/migrate.py [--sizes 100000,1000000] [--from m001|m006|m010] [--workdir DIR]

Builds banks as an older hymem left them, straight into that schema (the structured `mixture` vectors
of bench/search_latency.py, made the same way), then opens each with this hymem and times the upgrade,
phase by phase, as `hymem` shows it:

  - `--from m001`: a bank from before the vector codes (migrations m002 to m008 pending): the upgrade reads
    every vector once to make its sign-bit codes and once for its float16 copies.
  - `--from m006`: a bank with float32 copies of every vector (m008 pending): the upgrade makes float16
    copies, drops the float32 ones, and rewrites the file without the freed pages (VACUUM).
  - `--from m010`: a bank of raw messages from before the message layer (m011 pending): the upgrade marks every
    memory a message (they came from `add --raw`) and makes the writer's queue.

Prints seconds per phase and in all, the file's size and bytes per memory before and after, and its parts
(`hymem stats`' size by part). 1M memories take about two minutes to build and 4 GB of disk per bank.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from search_latency import BATCH, DIM, corpus, insert_memories  # bench/ is on sys.path when a bench script runs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from hymem_cli.bank import codes, db, open_bank  # noqa: E402
from hymem_cli.bank.migrations import MIGRATIONS  # noqa: E402
from hymem_cli.bank.stats import size_by_part  # noqa: E402
from hymem_cli.embed import DEFAULT_MODEL  # noqa: E402

FROM = {"m001": 1, "m006": 5, "m010": 9}  # how many migrations the old bank had
HALVES = 7  # from m008 on, the rescoring copies are float16


def build_old(path: Path, size: int, applied: int, base_texts: list[str], base: np.ndarray, seed: int = 7) -> float:
    """A bank of `size` memories with only the first `applied` migrations, as the hymem of that schema wrote it."""
    started = time.perf_counter()
    sqlite = db.sqlite_module()
    conn = sqlite.connect(str(path), isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(db.vec_extension())
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for fn in MIGRATIONS[:applied]:
        fn(conn)  # on an empty bank: the tables only
        conn.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (fn.__name__,))
    floats = applied >= 2
    conn.execute("INSERT INTO meta VALUES ('embed_model', ?), ('embed_dim', ?)", (DEFAULT_MODEL, str(DIM)))
    conn.execute(f"CREATE VIRTUAL TABLE versions_vec USING vec0(embedding float[{DIM}] distance_metric=cosine)")
    now = "2026-11-30T00:00:00.000000Z"
    conn.execute("INSERT INTO revisions (id, time, command, source, writer, counts, state) "
                 "VALUES (1, ?, 'add --raw', 'synthetic', NULL, '{}', 'done')", (now,))
    rng = np.random.default_rng(seed)
    for start in range(1, size + 1, BATCH):
        n = min(BATCH, size + 1 - start)
        ids = range(start, start + n)
        vectors = insert_memories(conn, rng, ids, "mixture", base_texts, base, now)
        if floats:
            bits = np.packbits(vectors > 0, axis=1, bitorder="little")
            conn.executemany("INSERT INTO versions_codes (version, bits) VALUES (?, ?)", [(i, b.tobytes()) for i, b in zip(ids, bits)])
            copies = "versions_f16" if applied >= HALVES else "versions_floats"
            conn.executemany(f"INSERT INTO {copies} (version, embedding) VALUES (?, ?)",
                             [(i, codes.half_blob(v.tobytes()) if applied >= HALVES else v.tobytes()) for i, v in zip(ids, vectors)])
    if floats:
        codes.compact(conn)
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.perf_counter() - started


def upgrade(path: Path) -> tuple[float, list[tuple[str, float]]]:
    """Open the bank with this hymem; seconds in all and per phase (from one progress report to the next phase's)."""
    marks: list[tuple[str, float]] = []

    def progress(migration: str, phase: str, done: int, total: int | None) -> None:
        label = f"{migration}: {phase}"
        if not marks or marks[-1][0] != label:
            marks.append((label, time.perf_counter()))
            print(f"    {label}", flush=True)

    started = time.perf_counter()
    bank = open_bank(path, progress=progress)
    ended = time.perf_counter()
    bank.close()
    phases = [(label, (marks[i + 1][1] if i + 1 < len(marks) else ended) - at) for i, (label, at) in enumerate(marks)]
    return ended - started, phases


def parts(path: Path) -> dict:
    conn = db.open_read_only(path)
    try:
        return size_by_part(conn)
    finally:
        conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--from", dest="start", choices=sorted(FROM), default="m006", help="the schema the old bank has")
    ap.add_argument("--workdir", help="where the banks go (default: a temporary folder, removed afterwards)")
    args = ap.parse_args()
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="hymem-migrate-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        base_texts, base, _, _ = corpus(work, 4000, 50)
        for size in (int(s) for s in args.sizes.split(",") if s.strip()):
            path = work / f"old-{args.start}-{size}.db"
            for leftover in work.glob(f"{path.name}*"):
                leftover.unlink()
            built = build_old(path, size, FROM[args.start], base_texts, base)
            before = parts(path)
            print(f"\n{size:,} memories, schema after {MIGRATIONS[FROM[args.start] - 1].__name__}: built in {built:.0f} s, "
                  f"{before['file'] / 1e6:,.0f} MB = {before['file'] / size:,.0f} bytes per memory", flush=True)
            seconds, phases = upgrade(path)
            after = parts(path)
            print(f"  upgrade: {seconds:.1f} s")
            for label, spent in phases:
                print(f"    {spent:6.1f} s  {label}")
            print(f"  file: {before['file'] / 1e6:,.0f} MB -> {after['file'] / 1e6:,.0f} MB; "
                  f"{before['file'] / size:,.0f} -> {after['file'] / size:,.0f} bytes per memory")
            for name in before:
                if isinstance(before[name], int) and name != "file":
                    print(f"    {name:16} {before[name] / size:8,.0f} -> {after.get(name, 0) / size:8,.0f} bytes per memory")
            if not args.workdir:
                path.unlink(missing_ok=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
