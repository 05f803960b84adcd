"""`hymem add`: ingest transcripts into the bank, raw or through the memory writer."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer

from hymem_cli import _output, config
from hymem_cli._errors import UsageError
from hymem_cli.commands._context import bank_for
from hymem_cli.commands._options import BankOpt, FormatOpt, QuietOpt
from hymem_cli.ingest.readers import FORMATS



def add(
    files: Annotated[Optional[list[str]], typer.Argument(help="Transcript files; - or none reads stdin.", show_default=False)] = None,
    raw: Annotated[bool, typer.Option("--raw", help="Store each message as it is; no writer model.")] = False,
    input_format: Annotated[
        Optional[str], typer.Option("--input-format", "-i", help=f"Force the transcript format: {', '.join(FORMATS)}.", show_default=False)
    ] = None,
    chunk_tokens: Annotated[Optional[int], typer.Option("--chunk-tokens", min=16, help="Token budget of one chunk.", show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the operations that would be applied; write nothing.")] = False,
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Writer model: a GGUF path or name (llama), or a served model name (openai).", show_default=False)] = None,
    backend: Annotated[Optional[str], typer.Option("--backend", help="Writer backend: llama, openai (or scripted, for tests).", show_default=False)] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8000/v1.", show_default=False)] = None,
    pipeline: Annotated[Optional[str], typer.Option("--pipeline", help="single (one writer call per chunk) or two-pass (extract, then reconcile).", show_default=False)] = None,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Add transcripts to the bank. Already-stored chunks are skipped, so re-running resumes.

    Formats are detected: plain text, `Speaker: text` lines, JSON or JSONL chat messages
    (OpenAI {role, content} or {id, speaker, text, timestamp, session}), Markdown chat exports.

    Examples:

      printf 'Alex: I live in Seattle.\\n' | hymem add --raw -

      hymem add --raw chats/*.jsonl && hymem log -n 1

      hymem add --dry-run chat.jsonl | jq -c 'select(.op == "supersede")'
    """
    _output.QUIET = _output.QUIET or quiet
    if input_format is not None and input_format not in FORMATS:
        raise UsageError(f"--input-format {input_format!r} is not one of {', '.join(FORMATS)}", hint="or leave it out to detect the format")
    settings = config.load(
        {"ingest.chunk_tokens": chunk_tokens, "writer.model": model, "writer.backend": backend,
         "writer.base_url": base_url, "writer.pipeline": pipeline}
    )
    # Imported here: the ingest and writer machinery is not needed to start every other command.
    from hymem_cli.ingest.pipeline import RawProcessor, ingest
    from hymem_cli.ingest.sources import open_sources
    from hymem_cli.writer.factory import make_backend
    from hymem_cli.writer.pipeline import PIPELINES, WriterProcessor
    from hymem_cli.writer.screen import Screen

    if str(settings["writer.pipeline"]) not in PIPELINES:
        raise UsageError(f"pipeline {settings['writer.pipeline']!r} is not one of {', '.join(PIPELINES)}", hint="use --pipeline single or two-pass")
    sources = open_sources(files or [], input_format)
    screen = Screen.from_settings(settings)
    if raw:
        processor = RawProcessor(screen)
    else:  # the model loads once, before the bank is touched: a writer that fails changes nothing
        processor = WriterProcessor(
            make_backend(settings), pipeline=str(settings["writer.pipeline"]), related=int(settings["writer.related"]), screen=screen
        )
    scratch = None
    if dry_run and not config.bank_path(bank).exists():  # a dry run leaves no bank behind
        scratch = tempfile.TemporaryDirectory()
        bank = str(Path(scratch.name) / "bank.db")
    target = bank_for(bank, embed=True, create=True)
    bar = _output.progress(None, "ingesting")
    task = bar.add_task("ingest", total=None) if bar else None
    if bar:
        bar.start()
    try:
        report = ingest(
            target,
            sources,
            processor,
            chunk_tokens=int(settings["ingest.chunk_tokens"]),
            dry_run=dry_run,
            on_chunk=(lambda r: bar.update(task, completed=r.chunks)) if bar else None,
        )
    finally:
        if bar:
            bar.stop()
        if not raw:
            processor.backend.close()
        if scratch is not None:
            target.conn.close()
            scratch.cleanup()
    if dry_run:
        ops = [op.to_json() for _, proposal in report.proposals for op in proposal.operations]
        refused = [r for _, proposal in report.proposals for r in proposal.rejections]
        _output.emit(ops, fmt or _output.Format.jsonl)
        for r in refused:
            _output.info(f"rejected {r.operation.op}: {r.reason}")
        _output.info(f"dry run: {len(ops)} operation(s), {len(refused)} rejected, from {len(report.proposals)} new chunk(s); nothing written")
        return
    c = report.counts
    if report.revision is None:
        _output.info(f"nothing new: {report.chunks} chunk(s) already in {target.path}")
    else:
        _output.info(
            f"revision {report.revision}: {report.stored} chunk(s), {report.messages} message(s) read, "
            f"{c['added']} added, {c['updated']} updated, {c['superseded']} superseded, {c['deleted']} deleted, "
            f"{c['rejected']} rejected; {report.skipped} chunk(s) already stored"
        )
