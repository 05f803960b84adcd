"""Cutting a message stream into chunks of whole turns within a token budget."""

from __future__ import annotations

from collections import deque
from typing import Iterable, Iterator

from hymem_cli.domain import CHUNK_TOKENS, EARLIER_MESSAGES, Chunk, Message
from hymem_cli.screen.provenance import session_owner


def estimate_tokens(text: str) -> int:
    """About four characters a token for English; good enough to size chunks, never used for billing."""
    return len(text) // 4 + 4


FLUSH = None  # in a message stream: "input went quiet, close the chunk now" (see sources.idle_flush)


def chunk_messages(messages: Iterable[Message | None], source: str, budget_tokens: int = CHUNK_TOKENS) -> Iterator[Chunk]:
    """Group consecutive messages of one session until the next would pass the budget.

    A message longer than the budget becomes a chunk of its own; a message is never split. Each chunk carries the
    messages before it in the source (Chunk.earlier) and the source's owner (Chunk.owner), from the input alone.
    """
    batch: list[Message] = []
    used = 0
    earlier: deque[Message] = deque(maxlen=EARLIER_MESSAGES)
    owner: str | None = None

    def closed() -> Chunk:
        nonlocal owner
        owner = owner or session_owner(batch)
        chunk = Chunk(source, batch, list(earlier), owner)
        earlier.extend(batch)
        return chunk

    for m in messages:
        if m is FLUSH:
            if batch:
                yield closed()
                batch, used = [], 0
            continue
        cost = estimate_tokens(m.text) + (estimate_tokens(m.speaker) if m.speaker else 0)
        if batch and (used + cost > budget_tokens or m.session != batch[-1].session):
            yield closed()
            batch, used = [], 0
        batch.append(m)
        used += cost
    if batch:
        yield closed()
