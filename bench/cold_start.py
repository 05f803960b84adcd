"""Cold-start times of whole hymem processes, as figures to record in docs/benchmarks.md (a script, not a test).

Usage: python bench/cold_start.py [--runs 5]
Median wall time over --runs of: the bare interpreter, `hymem --help`, `hymem history`, `hymem search`
with the real embedder (all-MiniLM-L6-v2) from its numpy copy (the default; made by the first `add`),
from its ONNX copy alone (the numpy copy moved aside), and from torch (HYMEM_EMBED_ONNX=0), `hymem
search` with HYMEM_EMBED_MODEL=hash, and the imports of torch and sentence_transformers alone. The
search banks hold the same 40 raw messages, stored before timing starts.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HYMEM = [sys.executable, "-m", "hymem_cli"]


def process_env(home, **extra: str) -> dict:
    """This environment for a timed hymem process: the caller's HYMEM_* settings dropped, everything under `home`.

    PYTHONDONTWRITEBYTECODE is dropped too: where it is set (this development machine sets it), every
    process compiles hymem's modules from source again, about 0.1 s that no installed copy pays.
    """
    drop = ("PYTHONDONTWRITEBYTECODE",)
    return {**{k: v for k, v in os.environ.items() if not k.startswith("HYMEM_") and k not in drop}, "HYMEM_HOME": str(home), **extra}


def median_seconds(cmd: list[str], env: dict, runs: int, before_each=None) -> float:
    """Median wall time of `runs` runs, after one untimed run (bytecode written, files in the page cache);
    `before_each` is called before every run, untimed."""
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    times = []
    for _ in range(runs):
        if before_each:
            before_each()
        started = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hymem-cold-") as tmp:
        env = process_env(tmp)
        chat = Path(tmp) / "chat.jsonl"
        chat.write_text("".join(
            json.dumps({"id": f"m{i}", "speaker": "Alex" if i % 2 else "Assistant",
                        "text": f"Note {i}: Alex moved to Sydney in week {i}."}) + "\n"
            for i in range(40)))
        real_bank, hash_bank = str(Path(tmp) / "real.db"), str(Path(tmp) / "hash.db")
        subprocess.run([*HYMEM, "add", "--raw", str(chat), "--bank", real_bank, "-q"], env=env, check=True)
        subprocess.run([*HYMEM, "add", "--raw", str(chat), "--bank", hash_bank, "-q"], env={**env, "HYMEM_EMBED_MODEL": "hash"}, check=True)
        query = "where does Alex live"
        rows = [
            ("python -c pass (interpreter alone)", [sys.executable, "-c", "pass"], env),
            ("hymem --help", [*HYMEM, "--help"], env),
            ("hymem history m1 (no embedder)", [*HYMEM, "history", "m1", "--bank", real_bank, "-f", "jsonl"], env),
            ("hymem search (real embedder, numpy copy for the query)", [*HYMEM, "search", query, "--bank", real_bank, "-f", "jsonl"], env),
            ("hymem search (real embedder, torch)", [*HYMEM, "search", query, "--bank", real_bank, "-f", "jsonl"],
             {**env, "HYMEM_EMBED_ONNX": "0"}),
            ("hymem search (HYMEM_EMBED_MODEL=hash)", [*HYMEM, "search", query, "--bank", hash_bank, "-f", "jsonl"],
             {**env, "HYMEM_EMBED_MODEL": "hash"}),
            ("python -c 'import torch'", [sys.executable, "-c", "import torch"], env),
            ("python -c 'import sentence_transformers'", [sys.executable, "-c", "import sentence_transformers"], env),
        ]
        numpy_copy = next((Path(tmp) / "cache" / "embedders").glob("*-numpy"))
        for label, cmd, run_env in rows:
            print(f"{label:<55} median {median_seconds(cmd, run_env, args.runs):6.2f} s over {args.runs} runs", flush=True)
            if "numpy" in label:  # the same search as before the numpy copy existed
                # A search without the numpy copy writes it again: remove that before each run, and at the end.
                aside = numpy_copy.with_name("aside")
                numpy_copy.rename(aside)
                drop_copy = lambda: shutil.rmtree(numpy_copy, ignore_errors=True)  # noqa: E731
                seconds = median_seconds(cmd, run_env, args.runs, before_each=drop_copy)
                drop_copy()
                aside.rename(numpy_copy)
                print(f"{'hymem search (real embedder, ONNX copy only)':<55} median {seconds:6.2f} s over {args.runs} runs", flush=True)


if __name__ == "__main__":
    main()
