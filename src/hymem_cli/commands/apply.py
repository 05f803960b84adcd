"""`hymem apply`: apply memory operations from JSONL, checked against the bank (ids, retired targets, one operation per target)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli.bank.history import diff
from hymem_cli.bank.operations import parse_lines
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, FormatOpt, QuietOpt
from hymem_cli.commands.diff import render_diff
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
    ops = parse_lines(lines, name)
    # Only adds can apply to a bank that does not exist yet; anything else would leave an empty bank behind.
    target = ctx.open_bank(embed=True, create=all(op.op == "add" for op in ops))
    draft = target.apply_operations(ops, "apply", name)
    c = draft.counts
    ctx.out.info(f"revision {draft.id}: {c['added']} added, {c['updated']} updated, {c['superseded']} superseded, {c['deleted']} deleted")
    render_diff(diff(target, draft.id - 1, draft.id), fmt)
