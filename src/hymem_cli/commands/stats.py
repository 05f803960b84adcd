"""`hymem stats`: how many memories a bank holds, where they came from, and what it costs on disk."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli import _output
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, FormatOpt

TopOpt = Annotated[Optional[int], typer.Option("--limit", "-n", min=1, max=10_000,
                                               help="Sources, speakers and rejection reasons to list; the rest are summed as (others).",
                                               show_default=False)]
COLUMNS = [("section", "section"), ("name", "name"), ("value", "value")]


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f} MB" if size >= 100_000 else f"{size / 1e3:,.1f} kB"


def rows(report: dict) -> list[dict]:
    """The report as (section, name, value) rows, for a table or plain lines."""
    out = [{"section": "bank", "name": "path", "value": report["bank"]}]
    for section in ("memories", "sources", "speakers", "revisions", "rejections"):
        out += [{"section": section, "name": name, "value": value} for name, value in report[section].items()]
    for w in report["writers"]:
        name = " ".join(str(part) for part in (w["backend"], w["model"], w["protocol"] and f"({w['protocol']})") if part)
        out.append({"section": "writers", "name": name, "value": f"{w['revisions']} revision(s)"})
    embedder = report["embedder"]
    out.append({"section": "embedder", "name": embedder["model"] or "(none yet)", "value": f"{embedder['dim']}-d" if embedder["dim"] else ""})
    out += [{"section": "event time", "name": name, "value": value or ""} for name, value in report["event_time"].items()]
    size = report["size"]
    out += [{"section": "size", "name": name, "value": _megabytes(value)} for name, value in size.items() if isinstance(value, int)]
    if size["by_part"] != "measured":
        out.append({"section": "size", "name": "by part", "value": size["by_part"]})
    return out


def stats(limit: TopOpt = None, bank: BankOpt = None, fmt: FormatOpt = None) -> None:
    """Show what the bank holds and what it costs on disk. Changes nothing.

    Memories by status (current, updated, superseded, deleted), current memories by source and by speaker,
    revisions and the writers used, rejections by reason, the embedder, the oldest and newest event time, and
    the file's size by part (memories, transcripts, full-text index, vectors, vector codes and copies, history,
    free pages); sizes are bytes in json and jsonl. Fast on large banks: well under a second for a million.
    On a small bank the size is mostly sqlite-vec's fixed overhead (about 1.6 MB of vector tables allocated
    ahead), so bytes per memory mean something only from some thousands of memories.

    Examples:

      hymem stats

      hymem stats -f json | jq .memories.current

      hymem stats -f json | jq '.size.file / .memories.versions | floor'    # bytes per memory version
    """
    report = Context.start(bank=bank).memory.stats(limit or 10)
    fmt = _output.resolve(fmt)
    if fmt in (_output.Format.json, _output.Format.jsonl):
        _output.emit_one(report, fmt)
    else:
        _output.emit(rows(report), fmt, COLUMNS, plain=lambda r: f"{r['section']}\t{r['name']}\t{r['value']}")
