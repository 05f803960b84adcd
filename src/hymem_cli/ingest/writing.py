"""Writing the queue: take a chunk (bank/queue.py), let the writer read it, store its facts and finish the chunk in one
transaction; record a failure on the chunk and leave it queued."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from hymem_cli._errors import WriterError
from hymem_cli.bank import db
from hymem_cli.bank import queue as chunk_queue
from hymem_cli.bank.store import Bank, RevisionDraft
from hymem_cli.domain import ChunkRecord, chunk_key
from hymem_cli.ingest.attribution import Attributed
from hymem_cli.ingest.pipeline import ChunkProcessor, MemoryBank, _add_context, _Locked, _mark_tool_output

POLL_S = 1.0  # how often a following writer looks for new chunks


@dataclass
class WriteReport:
    """What one run of the writer over the queue did."""

    revision: int | None = None
    written: int = 0  # chunks whose facts were stored now
    skipped: int = 0  # chunks this writer had written before (finished without a call)
    failed: int = 0  # attempts that failed; their chunks stay queued
    messages: int = 0
    errors: list[str] = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)


def write_queue(
    bank: Bank,
    processor: ChunkProcessor,
    *,
    sources: set[str] | None = None,
    limit: int | None = None,
    follow: bool = False,
    stop: threading.Event | None = None,
    jobs: int = 1,
    draft: RevisionDraft | None = None,
    on_chunk: Callable[[WriteReport], None] | None = None,
) -> WriteReport:
    """Write queued chunks (of `sources` only, when given) with `processor` until the queue has none a writer may take,
    or `limit` chunks were written; one revision for the run, "interrupted" when a writer error ended it (`draft`: go on
    in that one, an add's, and leave it to the add to finish).

    A writer error (a server that cannot be reached or times out, a model that fails) is recorded on its chunk, which
    stays queued, and ends the run, unless `follow`: then the run waits for new chunks and for each failed one's next
    try, until `stop` is set. An answer that does not parse is no writer error: the chunk is written with that answer
    kept as a rejection (never dropped in silence), as any refused operation is. With `jobs` > 1, that many chunks of
    different sources are written side by side (a server backend)."""
    stop = stop or threading.Event()
    report = WriteReport()
    writer = processor.writer_info()
    keep_open = draft is not None
    draft = draft or RevisionDraft(command=processor.screen.label("write"), source="", writer=writer)
    me = chunk_queue.worker()
    lock = threading.Lock()  # the bank and the report are touched by one worker at a time; writer calls overlap
    shared = cast(MemoryBank, _Locked(bank, lock))
    tried: set[int] = set()  # failed in this run: not again in it, unless following (then after its backoff)

    def take():
        with lock, db.transaction(bank.conn):
            return chunk_queue.take(bank.conn, me, sources=sources, skip=set() if follow else tried, wait_backoff=follow)

    def finish(qid: int, call) -> None:
        with lock, db.transaction(bank.conn):
            call(bank.conn, qid)

    def one_worker() -> None:
        while not stop.is_set() and (limit is None or report.written + report.skipped < limit):
            taken = take()
            if taken is None:
                if not follow:
                    return
                stop.wait(POLL_S)
                continue
            try:
                _write_one(bank, shared, processor, taken, writer, draft, report, lock, tried, follow, stop)
            except BaseException:
                finish(taken.id, chunk_queue.give_back)  # an interrupted writer gives its chunk back
                raise
            if on_chunk is not None:
                with lock:
                    on_chunk(report)

    ended = "interrupted"
    try:
        if jobs > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=jobs) as pool:
                for job in [pool.submit(one_worker) for _ in range(jobs)]:
                    job.result()
        else:
            one_worker()
        ended = "interrupted" if report.errors else "done"
    finally:
        if draft.id is not None and not keep_open:
            try:
                bank.finish(draft, ended)
            except Exception:  # noqa: BLE001 - what was committed stays; the error that ended the run is the one to report
                pass
    report.revision = draft.id
    report.counts = draft.counts
    return report


def _write_one(bank: Bank, shared: MemoryBank, processor: ChunkProcessor, taken: chunk_queue.Queued, writer: dict | None,
               draft: RevisionDraft, report: WriteReport, lock: threading.Lock, tried: set[int], follow: bool,
               stop: threading.Event) -> None:
    chunk = taken.chunk
    key = chunk_key(taken.content, writer)
    started = time.monotonic()
    with lock:
        seen = bank.chunk_seen(key)
    if seen:  # this writer wrote it before (an add without the queue, or a run that stopped after its commit)
        with lock, db.transaction(bank.conn):
            chunk_queue.done(bank.conn, taken.id, seen, 0.0)
        report.skipped += 1
        return
    try:
        proposal = (Attributed(processor) if taken.agent_words else processor).process(shared, chunk)
    except WriterError as exc:
        _failed(bank, taken, exc.message, report, lock, tried)
        if not follow:
            stop.set()  # the writer itself is down: the next chunks would fail the same way
        return
    _mark_tool_output(proposal, chunk)
    _add_context(proposal, chunk, {}, processor.mode, processor.screen)
    first, last = chunk.lines
    start, end = chunk.times
    record = ChunkRecord(key, chunk.source, [m.id for m in chunk.messages], chunk.render(), first, last, start, end)
    seconds = time.monotonic() - started
    with lock:
        if chunk.source not in draft.source.split(", "):
            draft.source = ", ".join(s for s in (draft.source, chunk.source) if s)
        stored = bank.commit_chunk(draft, record, proposal, len(chunk.messages), written=(taken.id, seconds))
        if stored:
            report.written += 1
            report.messages += len(chunk.messages)
            report.seconds.append(seconds)
        else:
            report.skipped += 1


def _failed(bank: Bank, taken: chunk_queue.Queued, error: str, report: WriteReport, lock: threading.Lock, tried: set[int]) -> None:
    with lock, db.transaction(bank.conn):
        chunk_queue.failed(bank.conn, taken.id, error, taken.attempts + 1)
    report.failed += 1
    report.errors.append(error)
    tried.add(taken.id)
