"""The one output sink: records to stdout as table, json, jsonl or plain; messages to stderr."""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from enum import Enum
from typing import Callable, Iterable, Sequence

# What must never reach a terminal as it is: C0 controls (ESC starts every escape sequence, CR overwrites a
# line), DEL, C1 controls (U+009B is a one-character CSI), lone surrogates, and invisible formatting
# characters that change what text seems to say (bidi overrides, zero-width characters, tag characters).
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
                     "\ufeff\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]")
_HIDDEN_WITH_BREAKS = re.compile(_HIDDEN.pattern[:-1] + "\\n\\t]")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str, breaks: bool = True) -> str:
    """Text safe to write to a terminal, read literally: control characters and escape sequences shown as
    `\\x1b`, bidi overrides and zero-width characters as `\\u202e`. With `breaks`, newlines and tabs stay;
    without, they are shown as `\\x0a` and `\\x09` too (one record per line)."""
    pattern = _HIDDEN if breaks else _HIDDEN_WITH_BREAKS
    text = pattern.sub(lambda m: _escape(m.group()), text)
    if not text.isprintable():  # anything else unprintable the table above missed (a new Cf character)
        text = "".join(_escape(c) if unicodedata.category(c) in ("Cc", "Cf", "Cs") and c not in "\n\t" else c for c in text)
    return text


def _visible_record(value, breaks: bool):
    """A record with every string in it made visible (see `visible`); keys and structure unchanged."""
    if isinstance(value, str):
        return visible(value, breaks)
    if isinstance(value, dict):
        return {k: _visible_record(v, breaks) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_visible_record(v, breaks) for v in value]
    return value


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
                          "\ud800-\udfff\U000e0000-\U000e007f]")


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xd800 + (code >> 10):04x}\\u{0xdc00 + (code & 0x3ff):04x}"


def safe_json(text: str) -> str:
    """JSON text with the characters a terminal would act on, or that hide text, written as \\u escapes:
    json.loads gives back exactly the same value."""
    return _JSON_UNSAFE.sub(lambda m: _json_escape(m.group()), text)


def dumps(value, indent: int | None = None) -> str:
    """JSON as exact as the value, and safe on a terminal (see `safe_json`)."""
    return safe_json(json.dumps(value, ensure_ascii=False, indent=indent))


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

    return Text(visible(_cell(value)))


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
            sys.stdout.write(dumps(r) + "\n")
            sys.stdout.flush()
            count += 1
    elif fmt is Format.json:
        items = list(records)
        sys.stdout.write(dumps(items, indent=2) + "\n")
        count = len(items)
    elif fmt is Format.plain:
        for r in records:
            r = _visible_record(r, breaks=False)  # one record per line, and nothing a terminal would act on
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
        sys.stdout.write(dumps(record, indent=indent) + "\n")
    elif fmt is Format.plain:
        for key, _ in fields or [(k, k) for k in record]:
            sys.stdout.write(f"{key}: {visible(_cell(record.get(key)), breaks=False)}\n")
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
    sys.stderr.write(visible(text, breaks=False) + "\n")
    sys.stderr.flush()


class Output:
    """One command's messages and progress on stderr; `quiet` (--quiet) drops messages, never records or errors."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet

    def info(self, text: str) -> None:
        """A message for the person at the terminal: stderr, dropped by --quiet."""
        if not self.quiet:
            _console(stderr=True).print(visible(text), markup=False)

    def warn(self, text: str) -> None:
        """A warning that matters for trust or data: stderr, one line, even with --quiet."""
        error(f"warning: {text}")

    def progress(self, label: str, eta: bool = False):
        """A progress bar on stderr when stderr is a terminal and not quiet; otherwise None. `eta`: the total is known."""
        if self.quiet or not sys.stderr.isatty():
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        columns = [TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()] + ([TimeRemainingColumn()] if eta else [])
        return Progress(*columns, console=_console(stderr=True), transient=True)


class UpgradeProgress:
    """Told how a bank upgrade goes (bank/db.migrate's `progress`): a bar per phase when stderr is a terminal,
    else one line per phase; nothing with --quiet. The core never sees rich: it calls this with plain values."""

    def __init__(self, out: Output, verb: str = "upgrading"):
        self.out = out
        self.verb = verb  # what a line says is going on when stderr is no terminal: "upgrading: m008_half_vectors: vectors"
        self.phase: tuple[str, str] | None = None
        self.bar = None
        self.task = None

    def __call__(self, migration: str, phase: str, done: int, total: int | None) -> None:
        if self.out.quiet:
            return
        if (migration, phase) != self.phase:
            self.close()
            self.phase = (migration, phase)
            if phase == "started":
                return self.out.info(f"{self.verb}: {migration}")
            self.bar = self.out.progress(f"{migration}: {phase}", eta=total is not None)
            if self.bar is None:
                self.out.info(f"{self.verb}: {migration}: {phase}" + (f" ({total:,})" if total else ""))
            else:
                self.bar.start()
                self.task = self.bar.add_task(phase, total=total)
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
        self.bar = self.task = None
