"""How fast the secret screen reads ordinary chat: 1 MB of the eval and retrieval conversations as one text (best of
three), and each message on its own. Point PYTHONPATH at another checkout's src to compare two versions on one machine:

    PYTHONPATH=src python bench/screen_speed.py
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from hymem_cli.screen.secrets import Redactor

DATA = Path(__file__).resolve().parent / "data"


def messages() -> list[str]:
    texts = []
    for path in sorted([*DATA.glob("eval/*.jsonl"), *DATA.glob("retrieval/*.jsonl")]):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "text" in record:
                texts.append(record["text"])
    return texts


def main() -> None:
    texts = messages()
    blob = "\n".join(texts)
    doc = (blob * (1_000_000 // len(blob) + 1))[:1_000_000]
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        Redactor().redact(doc)
        runs.append(time.perf_counter() - start)
    start = time.perf_counter()
    for text in texts * 3:
        Redactor().redact(text)
    per_message = (time.perf_counter() - start) / (3 * len(texts)) * 1000
    print(f"1 MB of chat as one text: {min(runs):.2f} s; one message: {per_message:.2f} ms ({3 * len(texts)} messages)")


if __name__ == "__main__":
    main()
