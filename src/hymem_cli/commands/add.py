"""`hymem add`: ingest transcripts into the bank, raw or through the memory writer."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer

from hymem_cli import _output
from hymem_cli._errors import WriterError
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import (
    BackendOpt,
    BankOpt,
    BaseUrlOpt,
    ChunkTokensOpt,
    FormatOpt,
    InputFormatOpt,
    PipelineOpt,
    ProtocolOpt,
    QuietOpt,
    UserOpt,
    check_input_format,
)
from hymem_cli.domain import reason_kind
from hymem_cli.ingest.instruction_files import is_instruction_file
from hymem_cli.writer.factory import NO_WRITER_HINT


def add(
    files: Annotated[Optional[list[str]], typer.Argument(help="Transcript files; - or none reads stdin.", show_default=False)] = None,
    raw: Annotated[bool, typer.Option("--raw", help="Store each message as it is; no writer model, nothing queued.")] = False,
    queue: Annotated[bool, typer.Option("--queue", help="Store the messages and queue their chunks for the writer, then return: "
                                        "hymem write, or a running hymem serve --write, writes them.")] = False,
    input_format: InputFormatOpt = None,
    chunk_tokens: ChunkTokensOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the operations that would be applied; write nothing.")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Process up to N files side by side (writer calls overlap; each file's chunks stay in order). For a server backend.")] = 1,
    again: Annotated[bool, typer.Option("--again", help="Process chunks this writer already processed once more (another writer never skips them).")] = False,
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Writer model: a GGUF path or name (llama), or a served model name (openai).", show_default=False)] = None,
    backend: BackendOpt = None,
    base_url: BaseUrlOpt = None,
    pipeline: PipelineOpt = None,
    protocol: ProtocolOpt = None,
    user: UserOpt = None,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Add transcripts to the bank. Already-stored chunks are skipped, so re-running resumes.

    Every message is stored at once (searchable as "layer": "message") and its chunk queued for the
    writer, which then writes the facts (with a progress bar; Ctrl-C leaves the rest queued, not
    lost). With --queue, or with no writer configured, the chunks stay queued for `hymem write` or
    `hymem serve --write`; a writer that fails leaves them queued with the error (`hymem status`).

    Formats are detected: plain text, `Speaker: text` lines, JSON or JSONL chat messages
    (OpenAI {role, content} or {id, speaker, text, timestamp, session}), Markdown chat exports,
    and coding-agent session logs (Claude Code's ~/.claude/projects/*/*.jsonl, Codex CLI's
    ~/.codex/sessions/**/rollout-*.jsonl), of which only what the user and the assistant said is
    kept (no tool calls or tool output). A log that grew since it was added adds only its new messages.

    What agents already remember is taken in directly, with no writer: MEMORY.md and Claude Code's
    memory folder, CLAUDE.md, CLAUDE.local.md, .claude/rules/*.md, AGENTS.md, .cursorrules and Codex's
    ~/.codex/memories/ store each bullet or paragraph as a memory of origin document with the file as
    source; adding the file again after an edit supersedes what changed and deletes what was removed.
    In a folder you have not trusted (a cloned repository), an item that tells the agent what to do is
    refused. --input-format reads such a file as a transcript instead.

    Examples:

      printf 'Alex: I live in Seattle.\\n' | hymem add --raw -

      hymem add --queue chat.jsonl && hymem write

      hymem add --raw chats/*.jsonl && hymem log -n 1

      hymem add --dry-run chat.jsonl | jq -c 'select(.op == "supersede")'

      hymem add ~/.claude/CLAUDE.md ~/.claude/projects/*/memory/*.md

    A chunk is skipped when this writer (the same model and protocol) or raw ingest stored it before;
    another writer processes it, and --again makes the same writer process it once more.

    With --format, the run's summary is printed as a record (revision, chunks, stored, skipped,
    messages, counts); with --dry-run, the proposed operations are.
    """
    check_input_format(input_format)
    ctx = Context.start(quiet=quiet, bank=bank, ingest__chunk_tokens=chunk_tokens, writer__model=model, writer__backend=backend,
                        writer__base_url=base_url, writer__pipeline=pipeline, writer__protocol=protocol, writer__user=user)
    documents = [] if input_format else [Path(f) for f in files or [] if f != "-" and is_instruction_file(Path(f)) and Path(f).is_file()]
    if documents:
        _take_in(ctx, documents, dry_run, fmt)
        files = [f for f in files or [] if Path(f) not in documents]
        if not files:
            ctx.memory.close()
            return
    sources = ctx.memory.open_sources(files or [], input_format)
    # Files are read whole, so their size in messages is known; a stream's is not.
    total = sum(len(src.messages) for src in sources) if all(isinstance(src.messages, list) for src in sources) else None
    bar = ctx.out.progress("ingesting", total is not None)
    task = bar.add_task("ingest", total=total) if bar else None

    def ready() -> None:
        if bar:
            bar.start()
        if total is None and sys.stdin.isatty():  # said once everything is loaded: a Ctrl-C from here on ends with 130
            ctx.out.info("reading stdin (Ctrl-D to end)")

    direct = raw or dry_run or again
    tick = ctx.out.pacer("writing") if not (direct or queue) else None  # a line now and then where no bar is drawn

    def written(r) -> None:
        if bar:
            bar.update(task, completed=r.messages)
        if tick:
            tick(r.written + r.skipped)

    try:
        done = ctx.memory.add(sources, raw=raw, dry_run=dry_run, again=again, jobs=jobs, queue=queue, on_ready=ready,
                              on_chunk=(lambda r: bar.update(task, completed=r.messages)) if bar and direct else None,
                              on_write=written)
    finally:
        if bar:
            bar.stop()
        ctx.memory.close()
    if done.written is not None and done.written.errors:  # the error line says it all (what was stored, what waits)
        stored = done.report.counts.get("messages_stored", 0)
        raise WriterError(f"the writer failed: {done.written.errors[-1]}",
                          hint=f"{stored} message(s) stored, {done.written.written} chunk(s) written, {done.queued} chunk(s) stay queued; "
                               "`hymem status` shows why, `hymem write` writes them once the writer works")
    if dry_run:
        _say_dry_run(ctx, done.report, done.writer, fmt)
    elif direct or done.written is not None:
        _say_run(ctx, done.report, done.writer, fmt, done.written, done.queued)
    else:
        _say_queued(ctx, done, fmt)


def _take_in(ctx: Context, paths: list[Path], dry_run: bool, fmt) -> None:
    """Agents' instruction and memory files: their items stored directly as memories (Memory.take_in), a line each."""
    for path in paths:
        done = ctx.memory.take_in(path, dry_run)
        counts = Counter(op.op for op in done.operations)
        if done.refused:  # one reason for them all: whose file it is
            ctx.out.info(f"refused {len(done.refused)} item(s): {done.refused[0].reason}")
        what = (f"{counts['add']} added, {counts['supersede']} superseded (edited), {counts['delete']} deleted (removed from the file), "
                f"{len(done.refused)} refused" + (f", secrets redacted: {', '.join(sorted(set(done.redacted)))}" if done.redacted else ""))
        whose = "your own words" if done.yours else "a file of a folder you have not trusted"
        if dry_run:
            _output.emit([{**op.to_json(), "source": done.source} for op in done.operations], fmt or _output.Format.jsonl)
            ctx.out.info(f"dry run: {path} ({whose}): {what}; nothing written")
            continue
        if fmt is not None:
            _output.emit_one({"source": done.source, "revision": done.revision, "yours": done.yours, "added": counts["add"],
                              "superseded": counts["supersede"], "deleted": counts["delete"], "refused": len(done.refused),
                              "redacted": done.redacted}, fmt)
        head = f"revision {done.revision}: " if done.revision is not None else "nothing new: "
        ctx.out.info(f"{head}{path} ({whose}): {what}")


def _say_dry_run(ctx: Context, report, writer: dict | None, fmt) -> None:
    """The proposed operations on stdout (the apply format); what was refused, and a summary, on stderr."""
    ops = [op.to_json() for _, proposal in report.proposals for op in proposal.operations]
    refused = [r for _, proposal in report.proposals for r in proposal.rejections]
    _output.emit(ops, fmt or _output.Format.jsonl)
    if len(refused) <= SHOWN_REJECTIONS:
        for r in refused:
            ctx.out.info(f"rejected {r.operation.op}: {r.reason}")
    ctx.out.info(f"dry run: {len(ops)} operation(s), {len(refused)} rejected, from {len(report.proposals)} new chunk(s); nothing written"
                 + (f"; {_stored_before(report, writer)}" if report.skipped else ""))
    if len(refused) > SHOWN_REJECTIONS:
        ctx.out.info(_why_rejected(refused))


SHOWN_REJECTIONS = 5  # more than this are summed up by reason in one line


def _why_rejected(refused) -> str:
    """"the guards rejected 24 operation(s), why: 19× a delete must name one of the memories shown …": many rejections
    in one line, by their most frequent reasons (a small writer's answers fail the same way again and again)."""
    kinds = Counter(reason_kind(r.reason) for r in refused).most_common()
    shown = " · ".join(f"{n}× {kind}" for kind, n in kinds[:3])
    more = f" · {sum(n for _, n in kinds[3:])}× other reasons" if len(kinds) > 3 else ""
    return f"the guards rejected {len(refused)} operation(s), why: {shown}{more}"


def _say_queued(ctx: Context, done, fmt) -> None:
    """An add that stored the messages and queued their chunks, with no writer run: what is queued and what writes it."""
    report = done.report
    stored = report.counts.get("messages_stored", 0)
    if fmt is not None:
        _output.emit_one({"revision": report.revision, "messages": report.messages, "messages_stored": stored, "queued_chunks": done.queued,
                          "skipped": report.skipped, "counts": report.counts}, fmt)
    head = f"revision {report.revision}: " if report.revision is not None else ""
    line = f"{head}{stored} message(s) stored of {report.messages} read, {done.queued} chunk(s) queued for the writer"
    if not ctx.memory.settings.writer.kind:
        line += f"; no writer is configured: `hymem write` writes them once one is ({NO_WRITER_HINT.split('; ', 1)[1]})"
    elif done.queued:
        line += "; `hymem write` (or a running `hymem serve --write`) writes them"
    ctx.out.info(line)


def _say_run(ctx: Context, report, writer: dict | None, fmt, written=None, queued: int = 0) -> None:
    """The run's summary: a record on stdout when a format is asked for, a line on stderr always."""
    c = report.counts
    if written is not None:  # stored, queued and written: the chunks are the writer's
        report.stored, report.chunks = written.written, max(report.chunks, written.written + written.skipped)
    if fmt is not None:
        summary = {"revision": report.revision, "chunks": report.chunks, "stored": report.stored, "skipped": report.skipped,
                   "messages": report.messages, "counts": c}
        _output.emit_one(summary, fmt)
    skipped = _stored_before(report, writer)
    if report.revision is None:
        ctx.out.info(f"nothing new: {skipped}" if report.skipped else f"nothing new: {report.chunks} chunk(s) read")
    else:
        ctx.out.info(
            f"revision {report.revision}: {report.stored} chunk(s), {report.messages} message(s) read, "
            f"{c['added']} added, {c['updated']} updated, {c['superseded']} superseded, {c['deleted']} deleted, "
            f"{c['rejected']} rejected" + (f"; {skipped}" if report.skipped else "")
            + (f"; {queued} chunk(s) still queued (`hymem write`)" if queued else "")
        )


def _stored_before(report, writer: dict | None) -> str:
    """"2 chunk(s) already stored by this writer (smollm2.gguf, hymem protocol, single) in revision 1; --again ..."."""
    who = "raw ingest"
    if writer:
        how = ", ".join(str(x) for x in (writer.get("protocol", "hymem") + " protocol", writer.get("pipeline")) if x)
        who = f"this writer ({writer.get('model')}, {how})"
    revisions = ", ".join(str(r) for r in sorted(report.stored_by))
    again = "; --again processes them anew" if writer else ""
    return f"{report.skipped} chunk(s) already stored by {who} in revision {revisions}{again}"
