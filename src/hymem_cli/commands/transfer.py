"""`hymem export` and `hymem import`: the whole bank as JSON Lines, and back into an empty bank."""

from __future__ import annotations

import contextlib
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from hymem_cli import _output
from hymem_cli._errors import InputError, UsageError
from hymem_cli.bank.transfer import dumps, parse_export
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, QuietOpt
from hymem_cli.ingest.sources import read_lines


class ExportView(str, Enum):
    jsonl = "jsonl"
    markdown = "markdown"


def export(
    current: Annotated[bool, typer.Option("--current", help="Only current memories: no retired versions, retirements or rejections (history is lost).")] = False,
    view: Annotated[ExportView, typer.Option("--format", help=(
        "jsonl: every record, for hymem import; markdown: the current memories grouped by kind and source, each with "
        "its id and last change, for people and for an agent's instruction file to point at."))] = ExportView.jsonl,
    output: Annotated[Optional[str], typer.Option("--output", "-o", help="Write to FILE instead of stdout.", metavar="FILE", show_default=False)] = None,
    as_of: Annotated[Optional[int], typer.Option("--as-of", min=0, metavar="REV", help=(
        "With --format markdown: the memories as they stood just after revision REV (see hymem log)."), show_default=False)] = None,
    bank: BankOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Export the bank as JSON Lines: a header, then every revision, chunk, version, retirement and rejection.

    Ids are kept, so `hymem import` rebuilds the same bank, history and all; vectors are not
    exported but recomputed on import, which also moves a bank to another embed.model.
    With --current only the current memories are written (with the revisions and chunks they
    came from): such a file imports, but the facts' earlier versions are gone.

    Examples:

      hymem export -o backup.jsonl && hymem import backup.jsonl --bank restored.db

      hymem export | jq -c 'select(.type == "version") | {id, text}'

      hymem export --current | hymem import - --bank small.db

      hymem export --format markdown -o MEMORIES.md && grep -c "^- " MEMORIES.md

      hymem export --format markdown --as-of 1 -o then.md && grep -c "^- " then.md
    """
    if as_of is not None and view is not ExportView.markdown:
        raise UsageError("--as-of goes with --format markdown", hint="a JSON Lines export is the whole bank, history and all: "
                         "hymem export --format markdown --as-of REV")
    ctx = Context.start(quiet=quiet, bank=bank)
    if view is ExportView.markdown:
        _export_markdown(ctx, output, as_of)
        return
    counts: dict[str, int] = {}
    if output is None:
        for record in ctx.memory.export(current):
            counts[record["type"]] = counts.get(record["type"], 0) + 1
            sys.stdout.write(_output.safe_json(dumps(record)) + "\n")  # the same records, nothing a terminal acts on
    else:
        target = Path(output)
        if target.is_dir():
            raise InputError(f"{output} is a directory", hint="give -o a file path")
        tmp = target.with_name(target.name + ".tmp")  # a failed export never leaves half a file behind
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                for record in ctx.memory.export(current):
                    counts[record["type"]] = counts.get(record["type"], 0) + 1
                    f.write(dumps(record) + "\n")
            os.replace(tmp, target)
        except OSError as exc:
            raise InputError(f"cannot write {output}: {exc.strerror}", hint="check the directory exists and is writable") from None
        finally:
            tmp.unlink(missing_ok=True)
    sys.stdout.flush()
    what = ", ".join(f"{counts.get(kind, 0)} {kind}(s)" for kind in ("revision", "chunk", "version", "retirement", "rejection"))
    ctx.out.info(f"exported {what} from {ctx.memory.bank_path}" + (" (current memories only)" if current else ""))


def _export_markdown(ctx: Context, output: str | None, as_of: int | None) -> None:
    """The current memories (`as_of`: after that revision) as Markdown, on stdout or written whole to `output`."""
    text = _output.visible(ctx.memory.markdown(as_of))  # nothing hidden or acted on, in a terminal or in a file an agent reads
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        target = Path(output)
        if target.is_dir():
            raise InputError(f"{output} is a directory", hint="give -o a file path")
        tmp = target.with_name(target.name + ".tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, target)
        except OSError as exc:
            raise InputError(f"cannot write {output}: {exc.strerror}", hint="check the directory exists and is writable") from None
        finally:
            tmp.unlink(missing_ok=True)
    when = f" as of revision {as_of}" if as_of is not None else ""
    ctx.out.info(f"exported the current memories of {ctx.memory.bank_path}{when} as Markdown")


class ChatProduct(str, Enum):
    chatgpt = "chatgpt"
    claude = "claude"


def import_(
    file: Annotated[Optional[str], typer.Argument(help="An export file; - or none reads stdin.", show_default=False)] = None,
    trusted: Annotated[bool, typer.Option("--trusted", help="The file is your own backup: store its texts as they are, without "
                                           "redacting secrets or refusing instructions. Records that break the rules are still refused.")] = False,
    from_: Annotated[Optional[ChatProduct], typer.Option("--from", help=(
        "The file is another product's chat export (its conversations.json): chatgpt or claude. Its conversations are "
        "added to this bank as messages and queued for the writer, as hymem add --queue does."), show_default=False)] = None,
    bank: BankOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Import an export into an EMPTY bank, keeping every id, in one transaction: all of it or nothing.

    Every line is checked before anything is written: ids, times (ISO 8601, none in the future), the
    chain rules, and that each record is one its revision's command writes (no forged origin, writer
    or command). An export may come from anywhere, so it is screened as new input is: secrets are
    redacted from every text, and a fact that is an instruction to the agent refuses the whole file,
    naming its line. --trusted skips the screens, to restore your own backup byte for byte.
    Vectors are recomputed from the text with the configured embed.model, whatever the header says.

    Examples:

      hymem import backup.jsonl --bank restored.db

      hymem export --bank old.db | hymem import - --bank new.db

      hymem export -o mine.jsonl && hymem import mine.jsonl --trusted --bank copy.db

      hymem import --from chatgpt conversations.json && hymem search --layer message "my sister's wedding"

    With --from, the file is ChatGPT's or Claude's export of your chats (conversations.json), read one
    conversation at a time: the messages you and the assistant wrote are added to this bank (any bank,
    not only an empty one) and queued for the writer; ChatGPT's edited and regenerated turns are read
    along the branch you last saw. Adding the same export again adds only what is new.
    """
    if from_ is not None:
        if trusted:
            raise UsageError("--trusted goes with a hymem export, not --from", hint=f"hymem import --from {from_.value} FILE")
        _import_chats(file, from_.value, bank, quiet)
        return
    ctx = Context.start(quiet=quiet, bank=bank)
    name, lines = read_lines(file, "a file written by `hymem export`")
    parsed = parse_export(lines, name)
    total = len(parsed.records["version"])
    bar = ctx.out.progress("embedding", eta=True) if total else None
    task = bar.add_task("embed", total=total) if bar else None
    if bar:
        bar.start()
    try:
        done = ctx.memory.import_(parsed, name, trusted=trusted, on_progress=(lambda n, _: bar.update(task, completed=n)) if bar else None)
    finally:
        if bar:
            bar.stop()
    if parsed.header.get("embed_model") not in (None, done.embed_model):
        ctx.out.info(f"note: vectors recomputed with {done.embed_model} (the export came from {parsed.header['embed_model']})")
    what = ", ".join(f"{done.counts[kind]} {kind}(s)" for kind in done.counts)
    ctx.out.info(f"imported {what} into {ctx.memory.bank_path}" + (f"; redacted {len(done.redacted)} secret(s)" if done.redacted else ""))


def _import_chats(file: str | None, product: str, bank: str | None, quiet: bool) -> None:
    """Another product's chat export, added as messages and queued for the writer (Memory.add with queue)."""
    from hymem_cli.ingest.chat_exports import read_export
    from hymem_cli.ingest.sources import Source

    ctx = Context.start(quiet=quiet, bank=bank)
    name = file if file and file != "-" else "<stdin>"
    if name != "<stdin>":  # read once whole first: a file that turns out broken at its end leaves the bank as it was
        path = Path(name)
        if not path.is_file():
            raise InputError(f"{name}: no such file" if not path.exists() else f"{name} is not a file",
                             hint=f"give the conversations.json of a {product} export")
        with open(name, "rb") as stream:
            for _ in read_export(stream, product, name):
                pass
    with open(name, "rb") if name != "<stdin>" else contextlib.nullcontext(sys.stdin.buffer) as stream:
        try:
            done = ctx.memory.add([Source(name, read_export(stream, product, name))], queue=True)
        finally:
            ctx.memory.close()
    report = done.report
    stored = report.counts.get("messages_stored", 0)
    head = f"revision {report.revision}: " if report.revision is not None else "nothing new: "
    ctx.out.info(f"{head}{stored} message(s) stored of {report.messages} read from {name}, {done.queued} chunk(s) queued for the writer"
                 " (`hymem write`, or a running `hymem serve --write`, writes them)")
