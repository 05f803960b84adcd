"""A chunk's calls to the writer, counted into its revision's stats, and the revision's record of which writer it was."""

from __future__ import annotations

import time

from hymem_cli.screen import kind_counts
from hymem_cli.writer.backend import WriterBackend, WriterReply


def writer_record(backend: WriterBackend, protocol: dict) -> dict:
    """The revision's `writer` record: the backend and model, what the protocol says of itself, and the backend's settings."""
    info = backend.info()
    return {"backend": info.backend, "model": info.model, "model_hash": info.model_hash, **protocol,
            **({"settings": info.extra} if info.extra else {})}


class WriterCalls:
    """A chunk's writer calls, each counted into the revision's stats: calls, tokens, seconds (and the redactions)."""

    def __init__(self, backend: WriterBackend, redacted: list[str], fence: bool = False):
        self.backend, self.fence = backend, fence
        self.stats = {"writer_calls": 0, "prompt_tokens": 0, "evaluated_tokens": 0, "completion_tokens": 0, "writer_seconds": 0.0,
                      **kind_counts(redacted)}

    def __call__(self, messages: list[dict], schema: dict) -> WriterReply:
        started = time.monotonic()
        reply = self.backend.complete(messages, schema, fence=True) if self.fence else self.backend.complete(messages, schema)
        self.stats["writer_calls"] += 1
        self.stats["prompt_tokens"] += reply.prompt_tokens
        self.stats["evaluated_tokens"] += reply.evaluated_tokens
        self.stats["completion_tokens"] += reply.completion_tokens
        self.stats["writer_seconds"] += round(time.monotonic() - started, 3)
        return reply
