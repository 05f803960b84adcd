"""The ingest loop: chunks in, one transaction per chunk out, skipping chunks already stored."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from hymem_cli.bank.memory_text import kept
from hymem_cli.bank.store import RevisionDraft
from hymem_cli.domain import CHUNK_TOKENS, EARLIER_MESSAGES, Chunk, ChunkRecord, Message, Proposal, chunk_key
from hymem_cli.ingest.chunker import chunk_messages
from hymem_cli.ingest.sources import Source
from hymem_cli.screen import Screen, kind_counts


class MemoryBank(Protocol):
    """What the write path needs of a bank: related memories to show the writer, and one transaction per chunk."""

    def related(self, texts: list[str], limit: int) -> list[dict]: ...

    def chunk_seen(self, chunk_key: str) -> int | None: ...

    def commit_chunk(self, draft: RevisionDraft, chunk: ChunkRecord, proposal: Proposal, messages: int = 0, *,
                     layer: str | None = None, queue: tuple[Chunk, str, bool] | None = None, written: tuple[int, float] | None = None) -> bool: ...

    def enqueue_stored(self, stored: Callable[[], Chunk], content: str, key: str, requeue: bool = False,
                       agent_words: bool = False) -> None: ...

    def finish(self, draft: RevisionDraft, state: str = "done") -> None: ...


class ChunkProcessor(Protocol):
    mode: str  # part of the chunk hash: a raw ingest does not hide a chunk from the writer
    screen: Screen  # what the chunk's stored text must not keep

    def writer_info(self) -> dict | None: ...

    def process(self, bank: MemoryBank, chunk: Chunk) -> Proposal: ...

    def close(self) -> None: ...


@dataclass
class IngestReport:
    revision: int | None = None
    chunks: int = 0  # chunks seen
    stored: int = 0  # chunks stored now
    skipped: int = 0  # chunks already in the bank
    stored_by: dict[int, int] = field(default_factory=dict)  # revision that stored a skipped chunk -> how many
    messages: int = 0
    counts: dict = field(default_factory=dict)
    proposals: list[tuple[Chunk, Proposal]] = field(default_factory=list)  # dry runs only
    draft: RevisionDraft | None = None  # the run's revision (a write that follows an add goes on in it)


def ingest(
    bank: MemoryBank,
    sources: list[Source],
    processor: ChunkProcessor,
    *,
    chunk_tokens: int = CHUNK_TOKENS,
    dry_run: bool = False,
    again: bool = False,
    jobs: int = 1,
    on_chunk: Callable[[IngestReport], None] | None = None,
    queue: bool = False,
    draft: RevisionDraft | None = None,
) -> IngestReport:
    """Feed every chunk of `sources` through `processor` into `bank`; one revision for the whole run (`draft`, when
    given: the write that follows goes on in it, and it is left open for that).

    `queue` (raw processor only): the messages are stored as the writer's input, and each chunk is queued for a
    writer (bank/queue.py), a chunk stored before too unless its content is queued already.

    A chunk this writer (or raw ingest) stored before is skipped, unless `again`: then it is processed anew; so
    is the stored beginning of a chunk that has grown since (see _unstored_part). With `jobs` > 1, up to that
    many sources are processed side by side (their writer calls overlap; each source's chunks stay in order,
    so its supersede chains come out as from a serial run; bank reads and commits take turns)."""
    keep_open = draft is not None
    draft = draft or RevisionDraft(
        command=processor.screen.label("add --raw" if processor.mode == "raw" else "add"),  # a screen switched off is on record
        source=", ".join(s.name for s in sources),
        writer=processor.writer_info(),
    )
    report = IngestReport(draft=draft)
    writer = processor.writer_info()
    nonce = f"again:{time.time_ns()}" if again else None
    lock = threading.Lock()  # the bank and the report are touched by one source at a time; writer calls overlap
    shared = _Locked(bank, lock)

    def one_source(source: Source) -> None:
        preceding = None  # the message before this chunk, for the previous turn of its first message
        for chunk in chunk_messages(source.messages, source.name, chunk_tokens):
            before = _previous_turns(chunk, preceding)
            preceding = chunk.messages[-1]
            with lock:
                report.chunks += 1
                report.messages += len(chunk.messages)
                chunk, digest, by = _unstored_part(bank, chunk, processor.mode, lambda content: chunk_key(content, writer, nonce), report)
            content = chunk.hash("writer") if queue else None  # the chunk's identity in the queue
            written_by = None  # the writer that follows this add skips a chunk it wrote before, and writes any other
            if content and draft.writer:
                with lock:
                    written_by = bank.chunk_seen(chunk_key(content, draft.writer))
            if by:
                with lock:
                    if content:  # screened only when it is queued now: a log added again at every turn costs no screening
                        bank.enqueue_stored(lambda: _as_stored(chunk, processor.screen)[0], content, digest,
                                            requeue=bool(draft.writer) and not written_by, agent_words=getattr(processor, "agent_words", False))
                    if not (queue and draft.writer) or written_by:
                        report.skipped += 1
                        report.stored_by[written_by or by] = report.stored_by.get(written_by or by, 0) + 1
            elif dry_run:
                proposal = processor.process(shared, chunk)
                with lock:
                    report.proposals.append((chunk, proposal))
            else:
                # queued for a writer, or raw: screened once, as stored, and that chunk is what is stored, kept and queued
                stored, found = _as_stored(chunk, processor.screen, earlier=queue) if processor.mode == "raw" else (chunk, [])
                proposal = processor.process(shared, stored)
                read_kinds = (source.screen or processor.screen).take_read_kinds()  # redacted as lines were read
                for key, n in kind_counts(read_kinds + found).items():
                    if n:
                        proposal.stats[key] = proposal.stats.get(key, 0) + n
                _mark_tool_output(proposal, stored)
                _add_context(proposal, chunk, before, processor.mode, processor.screen)
                first, last = chunk.lines
                start, end = chunk.times
                kept = processor.screen.redact_chunk(stored).render()  # provenance keeps no secret either
                record = ChunkRecord(digest, source.name, [m.id for m in chunk.messages], kept, first, last, start, end)
                waiting = (stored, content, getattr(processor, "agent_words", False)) if queue else None
                with lock:
                    if bank.commit_chunk(draft, record, proposal, len(chunk.messages), layer="message" if processor.mode == "raw" else None,
                                         queue=waiting):
                        report.stored += 1
                    else:
                        report.skipped += 1
            if on_chunk:
                with lock:
                    on_chunk(report)

    try:
        if jobs > 1 and len(sources) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=jobs) as pool:  # each source in order; sources side by side
                for done in [pool.submit(one_source, source) for source in sources]:
                    done.result()
        else:
            for source in sources:
                one_source(source)
    except BaseException:
        if draft.id is not None:
            try:
                bank.finish(draft, state="interrupted")  # what was committed stays, and says so
            except Exception:
                pass
        raise
    if draft.id is not None and not keep_open:
        bank.finish(draft)
    report.revision = draft.id
    report.counts = draft.counts
    return report


class _Locked:
    """The bank as a processor sees it while other sources are processed: its reads take turns."""

    def __init__(self, bank: MemoryBank, lock: threading.Lock):
        self._bank, self._lock = bank, lock

    def related(self, texts: list[str], limit: int) -> list[dict]:
        with self._lock:
            return self._bank.related(texts, limit)


def _unstored_part(bank: MemoryBank, chunk: Chunk, mode: str, key: Callable[[str], str], report: IngestReport) -> tuple[Chunk, str, int | None]:
    """(the part of `chunk` still to process, its key, None), or (chunk, key, the revision that stored it) when it is stored
    whole; `key` makes a chunk's key from its content hash.

    A transcript that grew since it was stored (a session log, appended to) chunks the same up to its old
    end, but its last stored chunk now goes on: that chunk's stored beginning is skipped (counted in
    `report`), and only the messages after it are processed, so appending never stores a message twice."""
    while True:
        beginnings = chunk.prefix_hashes(mode)
        digest = key(beginnings[-1])
        if by := bank.chunk_seen(digest):
            return chunk, digest, by
        for n in range(len(beginnings) - 1, 0, -1):  # the longest stored beginning first
            if by := bank.chunk_seen(key(beginnings[n - 1])):
                report.skipped += 1
                report.stored_by[by] = report.stored_by.get(by, 0) + 1
                stored, rest = chunk.messages[:n], chunk.messages[n:]
                chunk = Chunk(chunk.source, rest, (chunk.earlier + stored)[-EARLIER_MESSAGES:], chunk.owner)
                break
        else:
            return chunk, digest, None


def _as_stored(chunk: Chunk, screen: Screen, earlier: bool = True) -> tuple[Chunk, list[str]]:
    """The chunk as the bank stores it and the queue keeps it for a writer: its messages and the ones before them
    (`earlier`; without, none: raw storage reads no context) with secrets redacted (values redacted earlier in this
    ingest too), marked screened; the kinds redacted in its messages."""
    messages, kinds = screen.redact_messages(chunk.messages, seen=True)
    before = screen.redact_messages(chunk.earlier, seen=True)[0] if earlier else []
    return Chunk(chunk.source, messages, before, chunk.owner, screened=True), kinds


def _previous_turns(chunk: Chunk, last: Message | None) -> dict[str, Message]:
    """Each message's previous turn in its session: the message before it, in this chunk or (`last`) the one before."""
    earlier = [last if last is not None and last.session == chunk.messages[0].session else None, *chunk.messages[:-1]]
    return {m.id: p for p, m in zip(earlier, chunk.messages) if p is not None}


def _add_context(proposal: Proposal, chunk: Chunk, before: dict[str, Message], mode: str, screen: Screen) -> None:
    """What each new version embeds besides its text (bank/memory_text.py), secrets redacted: a raw message's
    previous turn; a writer's fact's source messages."""
    by_id = {m.id: m for m in chunk.messages}
    for op in proposal.operations:
        if op.op == "delete" or op.context is not None:
            continue
        if mode == "raw":
            turns = [before[i] for i in op.source_ids[:1] if i in before]
        else:
            turns = [by_id[i] for i in op.source_ids if i in by_id]
        if turns:
            said = " ".join(f"{m.speaker}: {m.text}" if m.speaker else m.text for m in turns)
            op.context = kept(said if chunk.screened and mode != "raw" else screen.scrub(said))  # a screened chunk's are redacted


def _mark_tool_output(proposal: Proposal, chunk: Chunk) -> None:
    """A memory made from a tool's output alone says so (origin "tool"), whichever processor made it."""
    from hymem_cli.screen.provenance import TOOL_SPEAKERS

    by_id = {m.id: m for m in chunk.messages}
    for op in proposal.operations:
        sources = [by_id[i] for i in op.source_ids if i in by_id]
        if op.origin is None and sources and all((m.speaker or "").strip().casefold() in TOOL_SPEAKERS for m in sources):
            op.origin = "tool"
