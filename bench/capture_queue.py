"""Capture latency and drain rate of the writer's queue, as a user runs them (whole `hymem` processes).

Usage: python bench/capture_queue.py [--runs 7] [--messages 300] [--delay 3] [--smollm2 4] [--workdir DIR]

- capture: `hymem add --queue` of a transcript of `--messages` messages (sessions of 10: one chunk each) into a
  fresh bank, with a writer configured that takes `--delay` seconds a call (a local OpenAI-compatible fake): p50
  and p95 over `--runs`, and how many calls the writer got (none is the point);
- the same file through `hymem add` with that writer, for comparison (one run: it waits for every chunk);
- drain: `hymem write` of that queue with the scripted writer (chunks per second, the queue's own cost), and
  with SmolLM2-135M through llama.cpp on `--smollm2` chunks (seconds per chunk; 0 skips it).

The hash embedder is used throughout, so the figures are hymem's own work, not the embedding model's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HYMEM = [sys.executable, "-m", "hymem_cli"]


class SlowWriter:
    """/v1/chat/completions answering no operations after `delay` seconds; counts the calls."""

    def __init__(self, delay: float):
        self.delay, self.calls = delay, 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.calls += 1
                time.sleep(outer.delay)
                body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": '{"operations": []}'},
                                                "finish_reason": "stop"}],
                                   "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def transcript(path: Path, messages: int) -> Path:
    with path.open("w") as f:
        for i in range(messages):
            f.write(json.dumps({"id": f"m{i}", "session": f"s{i // 10}", "speaker": "Alex" if i % 2 == 0 else "assistant",
                                "timestamp": f"2025-01-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
                                "text": f"Message {i}: the garden bed {i % 7} needs {i % 5} more bags of compost."}) + "\n")
    return path


def run(args: list[str], env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run([*HYMEM, *args], env=env, capture_output=True, text=True, timeout=3600)
    spent = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"hymem {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return spent


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--messages", type=int, default=300)
    ap.add_argument("--delay", type=float, default=3.0)
    ap.add_argument("--smollm2", type=int, default=4, help="chunks to drain with SmolLM2-135M (0: skip)")
    ap.add_argument("--workdir")
    args = ap.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="hymem-capture-"))
    work.mkdir(parents=True, exist_ok=True)
    chat = transcript(work / "chat.jsonl", args.messages)
    chunks = -(-args.messages // 10)
    writer = SlowWriter(args.delay)
    base = {**os.environ, "HYMEM_EMBED_MODEL": "hash", "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")}
    slow = {"HYMEM_WRITER_BACKEND": "openai", "HYMEM_WRITER_BASE_URL": writer.url, "HYMEM_WRITER_PROTOCOL": "hymem"}

    capture = []
    for n in range(args.runs):
        capture.append(run(["add", "--queue", str(chat)], {**base, **slow, "HYMEM_HOME": str(work / f"capture-{n}")}))
    print(f"capture: hymem add --queue, {args.messages} messages ({chunks} chunks), a writer of {args.delay:g} s a call configured")
    print(f"  p50 {statistics.median(capture):.2f} s, p95 {quantile(capture, 0.95):.2f} s over {args.runs} runs "
          f"({statistics.median(capture) / args.messages * 1000:.1f} ms a message); writer calls: {writer.calls}")

    waited = run(["add", str(chat)], {**base, **slow, "HYMEM_HOME": str(work / "waiting")})
    print(f"  for comparison, hymem add (waits for the writer): {waited:.1f} s, {writer.calls} calls")

    replies = work / "replies.jsonl"
    replies.write_text(json.dumps({"operations": []}) + "\n")
    home = {**base, "HYMEM_HOME": str(work / "capture-0")}
    spent = run(["write", "--backend", "scripted", "--model", str(replies)], home)
    print(f"drain: hymem write, scripted writer: {chunks} chunks in {spent:.2f} s = {chunks / spent:.1f} chunks/s "
          "(the queue's own cost: take, commit, finish; one process start included)")

    if args.smollm2:
        home = {**base, "HYMEM_HOME": str(work / "capture-1"), "HYMEM_WRITER_THREADS": "2", "HYMEM_WRITER_MAX_TOKENS": "160"}
        spent = run(["write", "--model", "smollm2", "--protocol", "hymem", "--limit", str(args.smollm2)], home)
        print(f"drain: hymem write, SmolLM2-135M (llama.cpp, 2 threads): {args.smollm2} chunks in {spent:.1f} s = "
              f"{spent / args.smollm2:.1f} s a chunk (model load included)")


if __name__ == "__main__":
    main()
