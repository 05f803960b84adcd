"""`hymem revert` and `hymem forget`: undo a revision, or delete a memory yourself, as new revisions."""

from __future__ import annotations

from typing import Annotated

import typer

from hymem_cli._errors import InputError, UsageError
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, FormatOpt, QuietOpt
from hymem_cli.commands.diff import render_diff


def revert(
    rev: Annotated[int, typer.Argument(help="The revision to undo (see `hymem log`).", metavar="REV")],
    force: Annotated[bool, typer.Option("--force", help="Skip facts a later revision changed again, instead of refusing.")] = False,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Undo revision REV by adding a new revision ("revert REV"); nothing is erased.

    What REV added is deleted; what it updated, superseded or deleted comes back as a new version
    of the same fact (op "update", reason "revert of revision REV"), so `history` shows every
    step. If a later revision changed one of those facts again, nothing is done (exit 3) unless
    --force, which skips such facts and says so. Prints the revert's diff.

    Examples:

      hymem log -n 3 && hymem revert 7

      hymem revert 7 -f jsonl | jq -c '{op, after: .after.text}'

      hymem revert 7 --force && hymem diff 6 8
    """
    ctx = Context.start(quiet=quiet, bank=bank)
    change = ctx.memory.revert(rev, force)
    for note in change.plan.skipped if change.plan else ():
        ctx.out.info(f"skipped: {note}")
    c = change.revision.counts
    ctx.out.info(f"revision {change.revision.id}: reverted revision {rev}: {c['deleted']} deleted, {c['updated']} restored, {c['added']} brought back")
    render_diff(change.entries, fmt)


def forget(
    memories: Annotated[list[str], typer.Argument(help="The memory ids to delete, such as m12 (each its current version); - reads ids from stdin, one or more a line.", metavar="ID")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why it should be forgotten (required; kept in the history).", show_default=False)],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Forget several ids without asking (for scripts).")] = False,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Delete memories yourself, with a reason, one revision each ("forget"); `history` keeps them.

    One id on the command line is forgotten at once. Several ids, or ids read from stdin (-), are shown first
    and forgotten only when you answer yes on a terminal, or with --yes; without a terminal to ask and without
    --yes, nothing is forgotten (exit 2). No ids from stdin: nothing to do.

    Examples:

      hymem forget m12 --reason "wrong: Alex never lived in Perth"

      hymem search "Perth" --min-score 0.5 -f jsonl | jq -r .id | hymem forget - -r "not true" --yes   # only strong matches; none: nothing

      hymem forget m12 -r "asked to forget" && hymem history m12
    """
    ctx = Context.start(quiet=quiet, bank=bank)
    if not reason.strip():
        raise UsageError("forget needs a non-empty --reason", hint='e.g. --reason "asked to forget"')
    ids = _ids(memories)
    if not ids:
        ctx.out.info("no memory ids given: nothing forgotten")
        return
    if len(ids) > 1 or "-" in memories:
        _confirm(ctx, ids, yes)
    for memory in ids:
        change = ctx.memory.forget(memory, reason)
        ctx.out.info(f"revision {change.revision.id}: forgot {change.revision.source}")
        render_diff(change.entries, fmt)


def _ids(memories: list[str]) -> list[str]:
    """The ids named, stdin's read in place of -, each once, in order."""
    import sys

    found: list[str] = []
    for memory in memories:
        if memory == "-":
            data = sys.stdin.buffer.read()
            try:
                found += data.decode("utf-8").split()
            except UnicodeDecodeError:
                raise InputError("<stdin>: not valid UTF-8", hint="give memory ids, one or more a line") from None
        else:
            found.append(memory)
    return list(dict.fromkeys(found))


def _confirm(ctx: Context, ids: list[str], yes: bool) -> None:
    """Show what forgetting `ids` retires; go on with --yes, or when a person at a terminal says yes."""
    import sys

    for memory in ids:
        version = ctx.memory.show(memory)  # an unknown id stops here, before anything is forgotten
        sys.stderr.write(f"  {version['id']}  {version['text'][:100]}\n")
    if yes:
        return
    question = f"forget these {len(ids)} memories? [y/N] "
    import os

    try:
        tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)  # stdin may be the pipe the ids came from
    except OSError:
        tty = None
    if tty is None or not sys.stderr.isatty():
        raise UsageError(f"forget of {len(ids)} memories needs --yes when there is no terminal to ask",
                         hint="read the list above, then run again with --yes")
    try:
        os.write(tty, question.encode())
        answer = b""
        while not answer.endswith(b"\n") and (piece := os.read(tty, 64)):
            answer += piece
    finally:
        os.close(tty)
    if answer.decode(errors="replace").strip().lower() not in ("y", "yes"):
        raise UsageError("nothing forgotten", hint="answer y to forget them, or give --yes")
