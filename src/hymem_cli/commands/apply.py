"""`hymem apply`: apply memory operations from JSONL, checked against the bank (ids, retired targets, one operation per target)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

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
    change = ctx.memory.apply(parse_lines(lines, name), name)
    c = change.revision.counts
    if change.redacted:
        ctx.out.info(f"redacted {len(change.redacted)} secret(s) ({', '.join(sorted(set(change.redacted)))}) before storing")
    ctx.out.info(f"revision {change.revision.id}: {c['added']} added, {c['updated']} updated, {c['superseded']} superseded, {c['deleted']} deleted")
    render_diff(change.entries, fmt)

