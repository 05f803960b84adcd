"""How the cost of a bank grows with its size: one row of figures per size, for docs/benchmarks.md (a script, not a test).

Usage: python bench/cost_growth.py [--sizes 10000,100000,1000000] [--runs 5] [--ingest 1000] [--workdir DIR]

Per size, on a `mixture` bank built straight into the schema (bench/search_latency.py):
  - the bank file's bytes per memory;
  - whole-process `hymem search` p50 of --runs (real embedder), in-process hybrid search p50/p95 and the
    vector ranker's recall@10 against exact KNN (search_latency.in_process);
  - whole-process `hymem stats` p50 of --runs, and the in-process `Bank.stats()` once warm;
  - whole-process `hymem history`, `diff` and `log` (search_latency.usability);
  - `hymem add --raw` of --ingest new messages into the bank, whole process: messages per second;
  - the upgrade of the same bank as hymem left it before m008 (bench/migrate.py): seconds.
Banks go to --workdir (default a temporary folder, removed afterwards); 1M takes about 8 GB while it runs.
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

from cold_start import median_seconds, process_env  # bench/ is on sys.path when a bench script runs
from migrate import build_old, upgrade
from search_latency import build, corpus, hymem, in_process, usability

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from hymem_cli.bank import open_bank  # noqa: E402


def ingest_rate(path: Path, home: Path, messages: int) -> float:
    """Messages per second of one whole `hymem add --raw` of `messages` new messages into the bank."""
    data = path.with_suffix(".ingest.jsonl")
    stamp = time.time_ns()
    data.write_text("".join(json.dumps({"id": f"i{stamp}-{i}", "speaker": "Sam",
                                        "text": f"Sam noted item {i} of batch {stamp}: the rent is due."}) + "\n"
                            for i in range(messages)))
    started = time.perf_counter()
    subprocess.run(hymem("add", "--raw", str(data), "--bank", str(path), "-q"), env=process_env(home), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return messages / (time.perf_counter() - started)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ingest", type=int, default=1000)
    ap.add_argument("--workdir")
    args = ap.parse_args()
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="hymem-growth-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["HYMEM_HOME"] = str(work)
    rows = []
    try:
        base_texts, base, query_texts, query = corpus(work, 4000, 50)
        for size in (int(s) for s in args.sizes.split(",") if s.strip()):
            path = work / f"growth-{size}.db"
            for leftover in work.glob(f"{path.name}*"):
                leftover.unlink()
            _, everything = build(path, size, "mixture", base_texts, base)
            row = {"memories": size, "bytes per memory": round(path.stat().st_size / size)}
            row["search, whole process p50 s"] = median_seconds(hymem("search", "where did Priya move", "--bank", str(path), "-f", "jsonl"),
                                                                process_env(work), args.runs)
            timing = in_process(path, everything, query_texts, query)
            del everything
            row["search in process p50 / p95 ms"] = [round(v, 1) for v in timing["hybrid"]]
            row["vector recall@10"] = timing["vector recall@10"]
            row["stats, whole process p50 s"] = median_seconds(hymem("stats", "--bank", str(path), "-f", "jsonl"), process_env(work),
                                                               args.runs)
            bank = open_bank(path, create=False)
            bank.stats()
            started = time.perf_counter()
            bank.stats()
            row["stats in process s"] = time.perf_counter() - started
            bank.close()
            for label, seconds in usability(path, work).items():
                row[f"{label} s"] = seconds
            row["raw ingest msg/s"] = ingest_rate(path, work, args.ingest)
            path.unlink()
            old = work / f"growth-old-{size}.db"
            for leftover in work.glob(f"{old.name}*"):
                leftover.unlink()
            build_old(old, size, 5, base_texts, base)
            row["bytes per memory before m008"] = round(old.stat().st_size / size)
            row["upgrade from m006 s"], _ = upgrade(old)
            old.unlink()
            rows.append(row)
            print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}), flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
