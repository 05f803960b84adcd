"""`hymem history`, `hymem show` and `hymem log`: reading a fact's past and the bank's revisions."""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import typer

from hymem_cli import _output
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, FormatOpt, LimitOpt
from hymem_cli.domain import reason_kind

MemoryArg = Annotated[str, typer.Argument(help="A memory id such as m12 (any version of the fact).", metavar="ID")]


def history(memory: MemoryArg, bank: BankOpt = None, fmt: FormatOpt = None) -> None:
    """Show every version of a fact, first to current: operation, text, reason, revision, sources.

    With -f plain, one line a version: id, op, status, text and reason, separated by tabs.

    Examples:

      hymem history m12

      hymem history m12 -f json | jq -r '.[] | "\\(.op): \\(.text) (\\(.reason // ""))"'

      hymem search "Alex lives" --all -f jsonl | jq -r .id | head -1 | xargs -r hymem history
    """
    versions = Context.start(bank=bank).memory.history(memory)
    columns = [("id", "id"), ("op", "op"), ("status", "status"), ("text", "text"), ("origin", "origin"), ("reason", "reason"),
               ("revision", "rev"), ("time", "time"), ("source_ids", "sources")]
    _output.emit(versions, fmt, columns, plain=lambda v: f"{v['id']}\t{v['op']}\t{v['status']}\t{v['text']}\t{v['reason'] or ''}")


def show(memory: MemoryArg, bank: BankOpt = None, fmt: FormatOpt = None) -> None:
    """Show one memory version with its provenance and status.

    Examples:

      hymem show m12

      hymem show m12 | jq -r .text

      hymem show m12 -f json | jq .source_ids
    """
    version = Context.start(bank=bank).memory.show(memory)
    _output.emit_one(version, fmt)  # a table on a terminal, jsonl in a pipe, as --format's help says


def _rejected(count: int, rejections: list[dict], top: int = 2) -> str:
    """"3: duplicate of a stored memory (2); evidence … does not occur (1)": the count and its most frequent reasons."""
    if not count:
        return "0"
    kinds = Counter(reason_kind(r["reason"]) for r in rejections).most_common()
    shown = "; ".join(f"{kind[:70]} ({n})" for kind, n in kinds[:top])
    more = f"; {len(kinds) - top} more reason(s)" if len(kinds) > top else ""
    return f"{count}: {shown}{more}"


def log(limit: LimitOpt = None, bank: BankOpt = None, fmt: FormatOpt = None) -> None:
    """List revisions, newest first, with their counts and what the writer's guards rejected.

    Examples:

      hymem log -n 5

      hymem log -f json | jq '.[0].counts'

      hymem log -f jsonl | jq -c 'select(.counts.rejected > 0) | .rejections[]'
    """
    entries = Context.start(bank=bank).memory.log(limit)

    def summary(e: dict) -> dict:
        c = e["counts"]
        changes = f"+{c['added']} ~{c['updated']} >{c['superseded']} -{c['deleted']}"
        writer = e["writer"] or {}
        return {**e, "changes": changes, "rejected": _rejected(c["rejected"], e["rejections"]), "chunks": c["chunks"], "model": writer.get("model")}

    columns = [("revision", "rev"), ("time", "time"), ("command", "command"), ("source", "source"), ("chunks", "chunks"),
               ("changes", "changes"), ("rejected", "rejected"), ("model", "writer"), ("state", "state")]
    if _output.resolve(fmt) is _output.Format.table:
        _output.emit((summary(e) for e in entries), fmt, columns, main="command")
    else:
        _output.emit(entries, fmt, plain=lambda e: f"{e['revision']}\t{e['time']}\t{e['command']}\t{e['source']}")
