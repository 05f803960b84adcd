"""The one output sink: records to stdout as table, json, jsonl or plain; messages to stderr."""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from typing import Callable, Iterable, Sequence


class Format(str, Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    plain = "plain"


def resolve(fmt: Format | None) -> Format:
    """A terminal gets a table; a pipe gets JSON Lines."""
    if fmt is not None:
        return fmt
    return Format.table if sys.stdout.isatty() else Format.jsonl


def _console(stderr: bool):
    from rich.console import Console

    plain = bool(os.environ.get("NO_COLOR"))  # no colour and no bold either: no escape sequences at all
    return Console(stderr=stderr, color_system=None if plain else "auto", no_color=plain, highlight=False, soft_wrap=True)


NO_WRAP = {"time", "event_time", "id", "status", "revision", "score"}  # short values that read badly split over two lines


def _text(value: object):
    """A cell as literal text: memory text is never read as Rich markup ("[/INST]", "[link=...]")."""
    from rich.text import Text

    return Text(_cell(value))


def emit(
    records: Iterable[dict],
    fmt: Format | None,
    columns: Sequence[tuple[str, str]] = (),
    plain: Callable[[dict], str] | None = None,
    title: str | None = None,
) -> int:
    """Write records; returns how many. jsonl streams, so `| head` and `| jq` see results at once."""
    fmt = resolve(fmt)
    count = 0
    if fmt is Format.jsonl:
        for r in records:
            sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")
            sys.stdout.flush()
            count += 1
    elif fmt is Format.json:
        items = list(records)
        sys.stdout.write(json.dumps(items, ensure_ascii=False, indent=2) + "\n")
        count = len(items)
    elif fmt is Format.plain:
        for r in records:
            sys.stdout.write((plain(r) if plain else str(r.get("text", r))) + "\n")
            count += 1
    else:
        from rich.table import Table

        table = Table(title=title, show_lines=False, header_style="bold")
        for key, header in columns:
            table.add_column(header, overflow="fold", no_wrap=key in NO_WRAP)
        for r in records:
            table.add_row(*(_text(r.get(key)) for key, _ in columns))
            count += 1
        _console(stderr=False).print(table)
    return count


def emit_one(record: dict, fmt: Format | None, fields: Sequence[tuple[str, str]] = ()) -> None:
    """A single object: JSON as an object, a table as field/value rows."""
    fmt = resolve(fmt)
    if fmt in (Format.json, Format.jsonl):
        indent = 2 if fmt is Format.json else None
        sys.stdout.write(json.dumps(record, ensure_ascii=False, indent=indent) + "\n")
    elif fmt is Format.plain:
        for key, _ in fields or [(k, k) for k in record]:
            sys.stdout.write(f"{key}: {_cell(record.get(key))}\n")
    else:
        from rich.table import Table

        table = Table(show_header=False, box=None)
        table.add_column(style="bold")
        table.add_column(overflow="fold")
        for key, label in fields or [(k, k) for k in record]:
            table.add_row(label, _text(record.get(key)))
        _console(stderr=False).print(table)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def error(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Output:
    """One command's messages and progress on stderr; `quiet` (--quiet) drops messages, never records or errors."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet

    def info(self, text: str) -> None:
        """A message for the person at the terminal: stderr, dropped by --quiet."""
        if not self.quiet:
            _console(stderr=True).print(text, markup=False)

    def progress(self, label: str, eta: bool = False):
        """A progress bar on stderr when stderr is a terminal and not quiet; otherwise None. `eta`: the total is known."""
        if self.quiet or not sys.stderr.isatty():
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        columns = [TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()] + ([TimeRemainingColumn()] if eta else [])
        return Progress(*columns, console=_console(stderr=True), transient=True)
