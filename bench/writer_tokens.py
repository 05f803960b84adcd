"""Writer cost per chunk with a real GGUF: calls, prompt tokens (total vs evaluated after KV prefix
reuse), seconds, and what the guards did with the model's operations.

Usage: python bench/writer_tokens.py [--model smollm2] [--chunks 20] [--threads 1] [--max-tokens 192] [--state-dir DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import tempfile
import time
from pathlib import Path

PEOPLE = ["Alex", "Priya", "Sam", "Jordan"]
FACTS = [
    "I live in {city} now.", "I work as a {job}.", "My dog is called {pet}.", "I'm allergic to {food}.",
    "I started learning {lang} this month.", "My sister moved to {city} last week.",
]
FILL = {"city": ["Seattle", "Sydney", "Lisbon", "Osaka"], "job": ["nurse", "data engineer", "baker"],
        "pet": ["Rex", "Miso", "Biscuit"], "food": ["peanuts", "shellfish"], "lang": ["Portuguese", "Japanese"]}


def transcript(chunks: int, path: Path) -> None:
    """One session per chunk, so the chunk count is exact: a fact, a reply, a follow-up."""
    with path.open("w") as f:
        n = 0
        for c in range(chunks):
            who = PEOPLE[c % len(PEOPLE)]
            fact = FACTS[c % len(FACTS)]
            key = fact[fact.index("{") + 1: fact.index("}")]
            text = fact.format(**{key: FILL[key][c % len(FILL[key])]})
            for speaker, said in [(who, text), ("Assistant", "Thanks for telling me."), (who, "That's all for today.")]:
                n += 1
                f.write(json.dumps({"id": f"c{c}-{n}", "session": f"s{c}", "speaker": speaker, "text": said,
                                    "timestamp": f"2024-05-{1 + c % 28:02d}T10:00:{n % 60:02d}Z"}) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--chunks", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=192)
    ap.add_argument("--state-dir", help="keep the instructions' KV state here (run twice to see a later process reuse it)")
    args = ap.parse_args()

    from hymem_cli.bank import open_bank
    from hymem_cli.embed import get_embedder
    from hymem_cli.ingest.pipeline import ingest
    from hymem_cli.ingest.processors import WriterProcessor
    from hymem_cli.ingest.sources import open_sources
    from hymem_cli.screen import Screen
    from hymem_cli.writer.backend import WriterReply
    from hymem_cli.writer.factory import model_path
    from hymem_cli.writer.llama_backend import LlamaBackend

    replies: list[WriterReply] = []

    class Recording(LlamaBackend):
        def complete(self, messages, schema):
            reply = super().complete(messages, schema)
            replies.append(reply)
            return reply

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "chat.jsonl"
        transcript(args.chunks, data)
        bank = open_bank(Path(tmp) / "bank.db")
        bank.bind_embedder(get_embedder())
        started = time.perf_counter()
        backend = Recording(str(model_path(args.model)), n_ctx=4096, n_threads=args.threads, max_tokens=args.max_tokens,
                            state_dir=args.state_dir)
        load = time.perf_counter() - started
        report = ingest(bank, open_sources([str(data)]), WriterProcessor(backend, Screen()))
        backend.close()
        rejections = bank.conn.execute("SELECT reason FROM rejections").fetchall()
        ops = collections.Counter(r[0] for r in bank.conn.execute("SELECT op FROM versions"))

    c = report.counts
    print(f"model {args.model}, {report.stored} chunks, {args.threads} thread(s), max_tokens {args.max_tokens}, load {load:.1f} s")
    print(f"writer calls per chunk: {c['writer_calls'] / report.stored:.2f}")
    print(f"prompt tokens per chunk: {c['prompt_tokens'] / report.stored:.0f} total, {c['evaluated_tokens'] / report.stored:.0f} evaluated "
          f"({1 - c['evaluated_tokens'] / c['prompt_tokens']:.0%} reused from the KV cache)")
    first, rest = replies[0], replies[1:]
    print(f"first chunk evaluated {first.evaluated_tokens}/{first.prompt_tokens}; later chunks median "
          f"{statistics.median(r.evaluated_tokens for r in rest):.0f}/{statistics.median(r.prompt_tokens for r in rest):.0f}")
    print(f"seconds per chunk: median {statistics.median(r.seconds for r in replies):.1f}, "
          f"completion tokens per chunk: median {statistics.median(r.completion_tokens for r in replies):.0f}")
    print(f"operations proposed {c['proposed']}, applied {c['applied']} ({dict(ops)}), rejected {c['rejected']}")
    for reason, n in collections.Counter(_kind(r[0]) for r in rejections).most_common():
        print(f"  rejected {n:3d}: {reason}")


def _kind(reason: str) -> str:
    """Group rejection reasons by their fixed part (drop quoted values)."""
    import re

    return re.sub(r"'[^']*'|\d+", "…", reason)[:90]


if __name__ == "__main__":
    main()
