"""The ingest loop: chunks in, one transaction per chunk out, skipping chunks already stored."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from hymem_cli.bank.operations import Operation
from hymem_cli.bank.store import Bank, ChunkRecord, Rejection, RevisionDraft
from hymem_cli.ingest.chunker import Chunk, chunk_messages
from hymem_cli.ingest.sources import Source
from hymem_cli.writer.screen import DEFAULT, Screen, kind_counts, redact_chunk


@dataclass
class Proposal:
    """What a chunk processor wants the bank to learn from one chunk."""

    operations: list[Operation]
    rejections: list[Rejection] = field(default_factory=list)
    proposed: int | None = None  # operations the writer proposed, when it differs from accepted + rejected
    stats: dict = field(default_factory=dict)  # writer calls, tokens, seconds, redactions: added to the revision's counts


class ChunkProcessor(Protocol):
    mode: str  # part of the chunk hash: a raw ingest does not hide a chunk from the writer

    def writer_info(self) -> dict | None: ...

    def process(self, bank: Bank, chunk: Chunk) -> Proposal: ...


class RawProcessor:
    """Raw mode: every message is stored as it is, speaker and text, with no model involved.

    Secrets are redacted first (unless `screen.secrets` is off); the revision counts how many, and of
    which kinds ("redacted", "redacted.api-key", ...), so `hymem log` shows what was withheld.
    Instructions are not screened here: a raw memory is quoted speech with its speaker, not a fact.
    """

    mode = "raw"

    def __init__(self, screen: Screen = DEFAULT):
        self.screen = screen

    def writer_info(self) -> dict | None:
        return None

    def process(self, bank: Bank, chunk: Chunk) -> Proposal:
        ops, redacted = [], []
        for m in chunk.messages:
            text, kinds = self.screen.redact(m.text)  # secrets are never stored, raw or not
            redacted += kinds
            ops.append(
                Operation(
                    op="add",
                    text=f"{m.speaker}: {text}" if m.speaker else text,
                    speaker=m.speaker,
                    source_ids=[m.id],
                    event_time=m.timestamp,
                )
            )
        return Proposal(ops, stats=kind_counts(redacted))


@dataclass
class IngestReport:
    revision: int | None = None
    chunks: int = 0  # chunks seen
    stored: int = 0  # chunks stored now
    skipped: int = 0  # chunks already in the bank
    messages: int = 0
    counts: dict = field(default_factory=dict)
    proposals: list[tuple[Chunk, Proposal]] = field(default_factory=list)  # dry runs only


def ingest(
    bank: Bank,
    sources: list[Source],
    processor: ChunkProcessor,
    *,
    chunk_tokens: int = 768,
    dry_run: bool = False,
    on_chunk: Callable[[IngestReport], None] | None = None,
) -> IngestReport:
    """Feed every chunk of `sources` through `processor` into `bank`; one revision for the whole run."""
    draft = RevisionDraft(
        command="add --raw" if processor.mode == "raw" else "add",
        source=", ".join(s.name for s in sources),
        writer=processor.writer_info(),
    )
    report = IngestReport()
    try:
        for source in sources:
            for chunk in chunk_messages(source.messages, source.name, chunk_tokens):
                report.chunks += 1
                report.messages += len(chunk.messages)
                digest = chunk.hash(processor.mode)
                if bank.chunk_seen(digest):
                    report.skipped += 1
                elif dry_run:
                    report.proposals.append((chunk, processor.process(bank, chunk)))
                else:
                    proposal = processor.process(bank, chunk)
                    first, last = chunk.lines
                    start, end = chunk.times
                    kept = redact_chunk(chunk, getattr(processor, "screen", None)).render()  # provenance keeps no secret either
                    record = ChunkRecord(digest, source.name, [m.id for m in chunk.messages], kept, first, last, start, end)
                    if bank.commit_chunk(draft, record, proposal, len(chunk.messages)):
                        report.stored += 1
                    else:
                        report.skipped += 1
                if on_chunk:
                    on_chunk(report)
    except BaseException:
        if draft.id is not None:
            try:
                bank.finish(draft, state="interrupted")  # what was committed stays, and says so
            except Exception:
                pass
        raise
    if draft.id is not None:
        bank.finish(draft)
    report.revision = draft.id
    report.counts = draft.counts
    return report
