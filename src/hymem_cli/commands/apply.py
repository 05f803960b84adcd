"""`hymem apply`: apply memory operations from JSONL, checked against the bank (ids, retired targets, one operation per target)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli._errors import InputError
from hymem_cli.bank.history import diff
from hymem_cli.bank.operations import parse_lines
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, FormatOpt, QuietOpt
from hymem_cli.commands.diff import render_diff
from hymem_cli.domain import Operation
from hymem_cli.screen import Screen
from hymem_cli.ingest.sources import read_lines


def apply(
    ops_file: Annotated[Optional[str], typer.Argument(help="JSONL file of operations; - or none reads stdin.", show_default=False)] = None,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Apply operations, one JSON object a line, as one revision: all of them or none.

    Each line: {"op": "add"|"update"|"supersede"|"delete", "target": "m12" (not for add),
    "text": "...", "reason": "..." (required for supersede and delete), "evidence": "...",
    "source_ids": ["..."], "event_time": "..."}. Unknown keys are an error naming the line.

    Examples:

      echo '{"op": "add", "text": "Alex is pescatarian."}' | hymem apply

      hymem add --dry-run chat.jsonl > ops.jsonl && hymem apply ops.jsonl

      hymem apply ops.jsonl -f jsonl | jq -c '{op, after: .after.text}'
    """
    ctx = Context.start(quiet=quiet, bank=bank)
    name, lines = read_lines(ops_file, "a JSONL file of operations")
    ops, redacted = screened(parse_lines(lines, name), name, ctx.screen)
    # Only adds can apply to a bank that does not exist yet; anything else would leave an empty bank behind.
    target = ctx.open_bank(embed=True, create=all(op.op == "add" for op in ops))
    draft = target.apply_operations(ops, ctx.screen.label("apply"), name)
    c = draft.counts
    if redacted:
        ctx.out.info(f"redacted {len(redacted)} secret(s) ({', '.join(sorted(set(redacted)))}) before storing")
    ctx.out.info(f"revision {draft.id}: {c['added']} added, {c['updated']} updated, {c['superseded']} superseded, {c['deleted']} deleted")
    render_diff(diff(target, draft.id - 1, draft.id), fmt)


def screened(ops: list[Operation], name: str, screen: Screen) -> tuple[list[Operation], list[str]]:
    """The operations with their secrets redacted, and the kinds redacted; an instruction to the agent stops them all."""
    out, kinds = [], []
    for i, op in enumerate(ops, 1):
        clean, found, why = screen.screen_operation(op)
        if why:
            raise InputError(f"{name} operation {i}: {why}",
                             hint="nothing was applied; a memory is a fact, not an order for the agent (screen.instructions = false applies it, on record)")
        out.append(clean)
        kinds += found
    return out, kinds
