"""Cutting a message stream into chunks of whole turns within a token budget."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Iterable, Iterator

from hymem_cli.ingest.message import Message


def estimate_tokens(text: str) -> int:
    """About four characters a token for English; good enough to size chunks, never used for billing."""
    return len(text) // 4 + 4


@dataclass
class Chunk:
    source: str
    messages: list[Message]

    def render(self) -> str:
        """The chunk as the writer and `show` see it: one turn a line, with time and speaker."""
        lines = []
        for m in self.messages:
            when = f"[{m.timestamp}] " if m.timestamp else ""
            who = f"{m.speaker}: " if m.speaker else ""
            lines.append(f"{when}{who}{m.text}")
        return "\n".join(lines)

    def hash(self, mode: str) -> str:
        """Identity of a chunk for idempotent ingest: "b2:" + blake2b-128 of canonical JSON.

        Contract: the JSON holds the mode and each message's id, speaker, text, timestamp and
        session, with sorted keys. Changing any of this changes every chunk hash, and every bank
        would ingest its transcripts again.
        """
        body = {
            "mode": mode,
            "messages": [
                {"id": m.id, "speaker": m.speaker, "text": m.text, "timestamp": m.timestamp, "session": m.session}
                for m in self.messages
            ],
        }
        canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return "b2:" + hashlib.blake2b(canonical.encode("utf-8"), digest_size=16).hexdigest()

    @property
    def lines(self) -> tuple[int | None, int | None]:
        numbers = [m.line for m in self.messages if m.line is not None]
        return (min(numbers), max(numbers)) if numbers else (None, None)

    @property
    def times(self) -> tuple[str | None, str | None]:
        stamps = sorted(m.timestamp for m in self.messages if m.timestamp)
        return (stamps[0], stamps[-1]) if stamps else (None, None)


FLUSH = None  # in a message stream: "input went quiet, close the chunk now" (see sources.idle_flush)


def chunk_messages(messages: Iterable[Message | None], source: str, budget_tokens: int = 768) -> Iterator[Chunk]:
    """Group consecutive messages of one session until the next would pass the budget.

    A message longer than the budget becomes a chunk of its own; a message is never split.
    """
    batch: list[Message] = []
    used = 0
    for m in messages:
        if m is FLUSH:
            if batch:
                yield Chunk(source, batch)
                batch, used = [], 0
            continue
        cost = estimate_tokens(m.text) + (estimate_tokens(m.speaker) if m.speaker else 0)
        if batch and (used + cost > budget_tokens or m.session != batch[-1].session):
            yield Chunk(source, batch)
            batch, used = [], 0
        batch.append(m)
        used += cost
    if batch:
        yield Chunk(source, batch)
