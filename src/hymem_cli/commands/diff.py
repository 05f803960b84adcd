"""`hymem diff`: what changed between two revisions."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli import _output
from hymem_cli._errors import EXIT_FAILURE
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, FormatOpt

MARK = {"add": "+", "delete": "-", "update": "~", "supersede": ">"}


def render_diff(entries: list[dict], fmt) -> None:
    def plain(e: dict) -> str:
        before = e["before"]["text"] if e["before"] else ""
        after = e["after"]["text"] if e["after"] else ""
        arrow = f"{before} -> {after}" if before and after else before or after
        ids = " -> ".join(v["id"] for v in (e["before"], e["after"]) if v)
        why = f"  ({e['reason']})" if e["reason"] and e["op"] in ("supersede", "delete", "update") else ""
        return f"{MARK[e['op']]} {e['op']:<9} {ids}: {arrow}{why}"

    rows = (
        {
            "op": e["op"],
            "ids": " -> ".join(v["id"] for v in (e["before"], e["after"]) if v),
            "before": e["before"]["text"] if e["before"] else None,
            "after": e["after"]["text"] if e["after"] else None,
            "reason": e["reason"],
        }
        for e in entries
    )
    if _output.resolve(fmt) is _output.Format.table:
        _output.emit(rows, fmt, [("op", "op"), ("ids", "ids"), ("before", "before"), ("after", "after"), ("reason", "reason")])
    else:
        _output.emit(entries, fmt, plain=plain)


def diff(
    rev_a: Annotated[Optional[int], typer.Argument(help="Older revision (default: the one before REV_B; 0 is the empty bank).", show_default=False, min=0)] = None,
    rev_b: Annotated[Optional[int], typer.Argument(help="Newer revision (default: the latest).", show_default=False, min=0)] = None,
    exit_code: Annotated[bool, typer.Option("--exit-code", help="Exit with 1 when there are differences, 0 when none.")] = False,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
) -> None:
    """Show what changed between revisions: added, updated (old -> new), superseded (with reason), deleted.

    The diff is net: a fact added and then superseded inside the range shows as one add of its
    final text. Exit codes: 0 success (and, with --exit-code, no differences); 1 with --exit-code
    when there are differences; 4 unknown revision; 5 no bank.

    Examples:

      hymem add --raw chat.txt && hymem diff

      hymem diff 3 7 -f jsonl | jq -c 'select(.op == "supersede") | {before: .before.text, after: .after.text}'

      hymem diff 0 --exit-code >/dev/null || echo "the bank is not empty"
    """
    ctx = Context.start(bank=bank)
    a, b, entries = ctx.memory.diff(rev_a, rev_b)
    if not entries:
        ctx.out.info(f"no changes between revision {a} and {b}")
    render_diff(entries, fmt)
    if exit_code and entries:
        raise typer.Exit(EXIT_FAILURE)
