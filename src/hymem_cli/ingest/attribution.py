"""Whose words a memory rests on when they are not a person's: a chunk processor that says so, for what an agent hands
in (MCP add_memory) and for the writer that later writes such a queued chunk."""

from __future__ import annotations

from dataclasses import replace

from hymem_cli.domain import Chunk, Message, Proposal, Rejection
from hymem_cli.framing import voice
from hymem_cli.ingest.pipeline import ChunkProcessor, MemoryBank


class Attributed:
    """A chunk processor as add_memory uses it: what it proposes from words that are not a person's own (the agent's,
    a tool's) carries that origin and speaker; and in raw mode, where no guard reads the text, such a message that
    reads as an instruction to the agent is refused (recorded as a rejection) instead of stored."""

    agent_words = True  # a chunk it queues is written through it too (bank/queue.py)

    def __init__(self, inner: ChunkProcessor):
        self.inner = inner
        self.mode = inner.mode  # part of the chunk hash: the same as the processor's own
        self.screen = inner.screen

    def writer_info(self) -> dict | None:
        return self.inner.writer_info()

    def close(self) -> None:  # the inner processor outlives the call
        pass

    def process(self, bank: MemoryBank, chunk: Chunk) -> Proposal:
        proposal = self.inner.process(bank, chunk)
        by_id = {m.id: m for m in chunk.messages}
        kept, refused = [], list(proposal.rejections)
        for op in proposal.operations:
            sources = [by_id[i] for i in op.source_ids if i in by_id]
            voices = {voice(m.speaker) for m in sources}
            if op.origin is None and len(voices) == 1 and (origin := voices.pop()) is not None:
                op.origin = origin
                op.speaker = op.speaker or origin
            if self.mode == "raw" and op.origin is not None and (why := self._instruction(sources)):
                refused.append(Rejection(self.screen.scrub_operation(op), why))
                continue
            kept.append(op)
        return replace(proposal, operations=kept, rejections=refused)

    def _instruction(self, sources: list[Message]) -> str | None:
        """Why the words of `sources` must not be stored as they are (raw mode: the message is the memory), or None."""
        try:
            hit = next(filter(None, (self.screen.instruction(self.screen.redact(m.text)[0]) for m in sources)), None)
        except Exception as exc:  # noqa: BLE001 - fail closed: what the screen could not read is not stored
            return f"the screens failed on it ({type(exc).__name__}); refused rather than stored unscreened"
        return f'would store an instruction to the agent ({hit.kind}: "{hit.snippet}") that is not a person\'s own words' if hit else None
