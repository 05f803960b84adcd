"""`hymem write` (write the queued chunks) and `hymem status` (the bank's layers, the queue and the writer)."""

from __future__ import annotations

import threading
from typing import Annotated, Optional

import typer

from hymem_cli import _output, hooks
from hymem_cli._errors import WriterError
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BackendOpt, BankOpt, BaseUrlOpt, FormatOpt, ProtocolOpt, QuietOpt


def write(
    follow: Annotated[bool, typer.Option("--follow", help="Keep waiting for new chunks (and failed ones' next try) until Ctrl-C.")] = False,
    limit: Annotated[Optional[int], typer.Option("--limit", "-n", min=1, help="Write at most N chunks, then stop.",
                                                 show_default=False)] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Write up to N sources' chunks side by side (a server).")] = 1,
    model: Annotated[Optional[str], typer.Option("--model", "-m", show_default=False,
                                                 help="Writer model: a GGUF path or name (llama), or a served model's name.")] = None,
    backend: BackendOpt = None,
    base_url: BaseUrlOpt = None,
    protocol: ProtocolOpt = None,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Write the queued chunks with the configured writer, then exit (--follow: keep writing as chunks arrive).

    A source's chunks are written in the order they were read, each in one transaction with its facts; two
    `hymem write` at once never take the same chunk, and one killed mid-chunk leaves it queued for the next.
    A writer that fails (model, server, an answer that never parses) leaves its chunk queued with the error
    (`hymem status` shows it); then this exits 6. Exit 0 when every chunk it took was written.

    Examples:

      hymem add --queue chat.jsonl && hymem write

      hymem write --follow &      # writes what agents' hooks queue

      hymem write -n 1 -f json | jq .written
    """
    ctx = Context.start(quiet=quiet, bank=bank, writer__model=model, writer__backend=backend, writer__base_url=base_url,
                        writer__protocol=protocol)
    memory = ctx.memory
    waiting = memory.queue()["queued_chunks"]
    stop = threading.Event()
    total = min(waiting, limit or waiting)
    bar = ctx.out.progress("writing", eta=not follow) if waiting else None
    task = bar.add_task("write", total=total) if bar else None
    tick = ctx.out.pacer("writing", None if follow else total)  # a line now and then where no bar is drawn
    if bar:
        bar.start()

    def moved(r) -> None:
        if bar:
            bar.update(task, completed=r.written + r.skipped)
        if tick:
            tick(r.written + r.skipped)

    try:
        report = memory.write(limit=limit, follow=follow, stop=stop, jobs=jobs, on_chunk=moved)
    except KeyboardInterrupt:
        stop.set()
        raise
    finally:
        if bar:
            bar.stop()
    left = memory.queue()
    memory.close()
    if fmt is not None:
        _output.emit_one({"revision": report.revision, "written": report.written, "skipped": report.skipped, "failed": report.failed,
                          "messages": report.messages, "queued_chunks": left["queued_chunks"], "counts": report.counts,
                          "errors": report.errors}, fmt)
    c = report.counts
    waiting = left["queued_chunks"]
    if report.revision is not None:
        ctx.out.info(f"revision {report.revision}: {report.written} chunk(s) written, {report.messages} message(s), "
                     f"{c.get('added', 0)} added, {c.get('updated', 0)} updated, {c.get('superseded', 0)} superseded, "
                     f"{c.get('deleted', 0)} deleted, "
                     f"{c.get('rejected', 0)} rejected; {waiting} chunk(s) still queued")
    elif report.skipped:
        ctx.out.info(f"{report.skipped} chunk(s) this writer had written before; {waiting} still queued")
    elif not report.errors:
        ctx.out.info("nothing queued" if not waiting else f"{waiting} chunk(s) queued, none a writer may take now "
                     "(another writer has them, or they wait for an earlier chunk of their source)")
    if report.errors:
        raise WriterError(f"the writer failed on {report.failed} chunk(s): {report.errors[-1]}",
                          hint=f"{left['queued_chunks']} chunk(s) stay queued, nothing is lost; `hymem status` shows the errors; "
                               "fix the writer (`hymem doctor`) and run `hymem write` again")


STATUS_COLUMNS = [("what", "what"), ("value", "value")]


def status(bank: BankOpt = None, fmt: FormatOpt = None) -> None:
    """Show the bank in use and why, its messages and facts, the writer's queue and the writer. Changes nothing.

    Queued chunks by source (oldest first), chunks whose writing failed with their last error, the seconds a
    chunk took lately and the time the backlog would take at that pace, whether a `hymem serve --write` is
    writing for this bank, and what went wrong in agents' hooks lately (they never fail the agent's turn, so
    this is where their errors show). JSON keys: bank, why, messages, pending_messages, facts, queued_chunks,
    failed_chunks, written_chunks, seconds_per_chunk, eta_seconds, sources, failures, writer, serve_write,
    hook_errors.

    Examples:

      hymem status

      hymem status -f json | jq .queued_chunks
    """
    report = {**Context.start(bank=bank).memory.status(), "hook_errors": hooks.recent_errors()}
    fmt = _output.resolve(fmt)
    if fmt in (_output.Format.json, _output.Format.jsonl):
        _output.emit_one(report, fmt)
    else:
        _output.emit(status_rows(report), fmt, STATUS_COLUMNS, plain=lambda r: f"{r['what']}\t{r['value']}")


def status_rows(report: dict) -> list[dict]:
    """The status as (what, value) rows, for a table or plain lines."""
    w = report["writer"]
    writer = "none configured (hymem config set writer.model PATH.gguf)" if w is None else " ".join(
        str(x) for x in (w["backend"], w["model"] or w["base_url"]) if x)
    eta = report.get("eta_seconds")
    rows = [
        ("bank", f"{report['bank']} ({report['why']})" + ("" if report["exists"] else "; not made yet")),
        ("facts", report["facts"]),
        ("messages", f"{report['messages']} ({report['pending_messages']} not read by a writer yet)"),
        ("queued chunks", report.get("queued_chunks", 0)),
        ("failed chunks", report.get("failed_chunks", 0)),
        ("written chunks", report.get("written_chunks", 0)),
        ("seconds per chunk", report.get("seconds_per_chunk") or "(no write yet)"),
        ("backlog", f"about {_output.duration(eta)}" if eta else "(not known until a chunk is written)" if report.get("queued_chunks")
         else "none"),
        ("writer", writer),
        ("serve --write", f"running (pid {report['serve_write']})" if report["serve_write"] else "not running"),
    ]
    rows += [("queued from", f"{s['source']}: {s['chunks']} chunk(s) since {s['oldest']}") for s in report.get("sources", [])]
    rows += [("failed", f"{f['source']} chunk {f['chunk']}, {f['attempts']} attempt(s): {f['error']}") for f in report.get("failures", [])]
    hook = report["hook_errors"]
    recent = f"{hook['count']} in the last {hook['days']} days (hooks.log in the data directory)"
    rows.append(("hook errors", recent if hook["count"] else "none"))
    rows += [("hook error", line) for line in hook["latest"]]
    return [{"what": what, "value": value} for what, value in rows]
