"""`hymem revert` and `hymem forget`: undo a revision, or delete a memory yourself, as new revisions."""

from __future__ import annotations

from typing import Annotated

import typer

from hymem_cli._errors import UsageError
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
    memory: Annotated[str, typer.Argument(help="The memory id to delete, such as m12 (its current version).", metavar="ID")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why it should be forgotten (required; kept in the history).", show_default=False)],
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Delete a memory yourself, with a reason, as one revision ("forget"); `history` keeps it.

    Examples:

      hymem forget m12 --reason "wrong: Alex never lived in Perth"

      hymem search "Perth" -f jsonl | jq -r .id | xargs -I{} hymem forget {} -r "not true"

      hymem forget m12 -r "asked to forget" && hymem history m12
    """
    ctx = Context.start(quiet=quiet, bank=bank)
    if not reason.strip():
        raise UsageError("forget needs a non-empty --reason", hint='e.g. --reason "asked to forget"')
    change = ctx.memory.forget(memory, reason)
    ctx.out.info(f"revision {change.revision.id}: forgot {change.revision.source}")
    render_diff(change.entries, fmt)
