"""Raw ingest throughput and whole-process command times, as figures to record in docs/benchmarks.md.

Usage: python bench/raw_ingest.py [--messages 5000] [--runs 5]
Prints messages/s of `hymem add --raw` on a synthetic JSONL transcript, the embedder's own batch
throughput for comparison (a ratio, since this machine is shared and noisy), and whole-process
wall times (median of --runs) of `hymem search` on that bank and of `hymem --help`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cold_start import process_env  # bench/ is on sys.path when a bench script runs

NAMES = ["Alex", "Sam", "Priya", "Jordan", "Mei", "Tomás"]
TOPICS = ["moved to", "started a job at", "is training for", "adopted a dog from", "is learning", "visited"]
OBJECTS = ["Sydney", "Atlassian", "the Vancouver half marathon", "a shelter in Fremont", "Portuguese", "Kyoto", "a bakery on 5th"]


def transcript(n: int, path: Path) -> None:
    rng = random.Random(7)
    with path.open("w") as f:
        for i in range(n):
            who = rng.choice(NAMES)
            text = f"I {rng.choice(TOPICS)} {rng.choice(OBJECTS)} around week {i % 52}, message {i}."
            msg = {"id": f"m{i}", "session": f"s{i // 40}", "speaker": who, "text": text,
                   "timestamp": f"2024-{1 + (i // 500) % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z"}
            f.write(json.dumps(msg) + "\n")


def timed(cmd: list[str], env: dict, stdin=None) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=stdin)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    hymem = [sys.executable, "-m", "hymem_cli"]
    with tempfile.TemporaryDirectory() as tmp:
        # The embedder's torch-free copies are made before timing (hymem makes them on a bank's first ingest).
        os.environ["HYMEM_CACHE"] = str(Path(tmp) / "cache")
        from hymem_cli.embed import SentenceTransformerEmbedder, get_embedder

        fast = get_embedder(prepare_fast=True)
        env = process_env(tmp, HYMEM_CACHE=os.environ["HYMEM_CACHE"])
        data = Path(tmp) / "chat.jsonl"
        transcript(args.messages, data)

        seconds = timed([*hymem, "add", "--raw", str(data)], env)
        print(f"raw ingest: {args.messages} messages in {seconds:.1f} s = {args.messages / seconds:.0f} messages/s "
              f"(whole process, incl. start-up; embedder: {type(fast).__name__})")

        texts = [json.loads(line)["text"] for line in data.read_text().splitlines()]
        for embedder in (fast, SentenceTransformerEmbedder()):
            started = time.perf_counter()
            embedder.embed(texts)
            rate = len(texts) / (time.perf_counter() - started)
            print(f"{type(embedder).__name__} alone: {rate:.0f} sentences/s; ingest reaches {args.messages / seconds / rate:.0%} of it")

        search = [timed([*hymem, "search", "who moved to Sydney", "-f", "jsonl"], env) for _ in range(args.runs)]
        print(f"hymem search (whole process, {args.messages}-memory bank): median {statistics.median(search):.2f} s over {args.runs} runs")
        helps = [timed([*hymem, "--help"], env) for _ in range(args.runs)]
        print(f"hymem --help (whole process): median {statistics.median(helps):.3f} s over {args.runs} runs")


if __name__ == "__main__":
    main()
