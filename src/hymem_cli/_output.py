"""The one output sink: records to stdout as table, json, jsonl or plain; messages to stderr."""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from enum import Enum

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


# Columns whose values are short and read badly split over two lines; a long one folds below the row instead.
NO_WRAP = {"time", "event_time", "id", "ids", "status", "revision", "score", "op", "rev", "changes", "chunks", "state", "origin", "exists"}
# The column a table is for, when a command does not name it: the first of these it has gets the width.
MAIN_COLUMNS = ("text", "after", "command", "detail", "doc", "why", "project", "name", "value")
MAIN_MIN, MAIN_SHARE, OTHER_MIN, LONG_WORD = 20, 0.4, 12, 24  # the main column gets at least 40% of the width (20 cells on a narrow one)


def _text(value: object):
    """A cell as literal text: memory text is never read as Rich markup ("[/INST]", "[link=...]")."""
    from rich.text import Text

    return Text(visible(_cell(value)))


def short_time(value: str, now=None) -> str:
    """A stored time as a person reads it in a table: "just now", "12 min ago", "5 h ago", else its date."""
    from datetime import UTC, datetime

    try:
        when = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return value
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    if 0 <= seconds < 60:
        return "just now"
    if 0 <= seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if 0 <= seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return when.date().isoformat()


def _table_cell(key: str, value: object) -> str:
    """What a table shows of a value: times shortened, scores to two decimals; the exact value is in json."""
    if value is None:
        return ""
    if key == "score" and isinstance(value, float):
        return f"{value:.2f}"
    if key == "time" and isinstance(value, str):
        return short_time(value)
    if key in ("event_time", "valid_until") and isinstance(value, str) and re.match(r"\d{4}-\d\d-\d\d[T ]", value):
        return value[:10]
    return visible(_cell(value))


def _widest(texts: Iterable[str]) -> int:
    from rich.cells import cell_len

    return max((cell_len(line) for t in texts for line in (t.splitlines() or [""])), default=0)


def layout(columns: Sequence[tuple[str, str]], rows: list[dict[str, str]], width: int, main: str | None = None):
    """Which columns fit side by side in `width` cells, and how wide each is; the rest fold below the row.

    Empty columns are left out. The main column (the memory's text) always stays and gets the room a table
    has left, at least MAIN_SHARE of it; the other columns stay in their order while they fit at their own
    width (a long one wraps at OTHER_MIN cells or more). Returns (inline [(key, header, width, wraps)], folded
    [(key, header)], the main column's key)."""
    present = [(k, h) for k, h in columns if any(r[k] for r in rows)]
    if main is None or main not in dict(present):
        main = next((k for k in MAIN_COLUMNS if k in dict(present)), present[0][0] if present else None)
    natural = {k: max(_widest([h]) if k != main else 0, _widest(r[k] for r in rows)) for k, h in present}
    header = {k: _widest([h]) for k, h in present}
    wraps = {k: k == main or (k not in NO_WRAP and natural[k] > OTHER_MIN) for k, _ in present}
    words = {k: _widest(w for r in rows for w in r[k].split()) for k, _ in present}
    # A column that wraps is never narrower than its longest word (a key, a path's name, up to LONG_WORD cells).
    need = {k: max(header[k], min(natural[k], max(OTHER_MIN, min(words[k], LONG_WORD)))) if wraps[k] else natural[k] for k, _ in present}
    room = width - 1  # the table's left edge
    if main is not None:
        cap = max(MAIN_MIN, int(width * MAIN_SHARE))
        fits = sum(max(natural[k], header[k]) + 3 for k, _ in present) <= room
        # When something must fold, the main cell is where it goes: keep it wide enough to read.
        need[main] = max(natural[main], header[main]) if fits else max(min(max(natural[main], header[main]), cap), min(cap, 24))
        room -= need[main] + 3
    inline = []
    for k, _ in present:
        if k == main:
            inline.append(k)
        elif need[k] + 3 <= room:
            inline.append(k)
            room -= need[k] + 3
    folded = [(k, h) for k, h in present if k not in inline]
    if main is not None and folded:  # the lines below the text want room too
        natural[main] = max(natural[main], _widest(line for r in rows for line in _folded_lines(r, folded)))
    widths = {k: need[k] for k in inline}
    # What is left goes to the wrapping columns, the main one first, each up to its natural width.
    for k in sorted((k for k in inline if wraps[k]), key=lambda k: k != main):
        extra = min(max(room, 0), max(natural[k], header[k]) - widths[k])
        widths[k] += extra
        room -= extra
    shown = [(k, h, widths[k], wraps[k]) for k, h in present if k in inline]
    return shown, folded, main


def _folded_lines(row: dict[str, str], folded: Sequence[tuple[str, str]], width: int | None = None) -> list[str]:
    """Columns that did not fit, as lines below the row's main cell: a long value a line of its own, short ones
    side by side in lines of at most `width` cells (a pair is never split)."""
    from rich.cells import cell_len

    pairs = [(f"{h}: {row[k]}", k in NO_WRAP or cell_len(row[k]) <= OTHER_MIN) for k, h in folded if row[k]]
    lines = [text for text, short in pairs if not short]
    packed = ""
    for text, _ in (p for p in pairs if p[1]):
        if packed and width is not None and cell_len(packed) + 2 + cell_len(text) > width:
            lines.append(packed)
            packed = ""
        packed = f"{packed}  {text}" if packed else text
    return lines + ([packed] if packed else [])


def _table(records: Iterable[dict], columns: Sequence[tuple[str, str]], title: str | None, main: str | None) -> int:
    from rich.table import Table
    from rich.text import Text

    console = _console(stderr=False)
    rows = [{k: _table_cell(k, r.get(k)) for k, _ in columns} for r in records]
    shown, folded, main = layout(columns, rows, console.width, main)
    into = main  # the main cell carries what did not fit
    width_of = {key: width for key, _, width, _ in shown}
    table = Table(title=title, show_lines=bool(folded) and len(rows) > 1, header_style="bold")
    for key, header, width, wraps in shown:
        table.add_column(header, width=width, overflow="fold", no_wrap=not wraps)
    for row in rows:
        cells = []
        for key, *_ in shown:
            cell = Text(row[key])
            if key == into and folded and (lines := _folded_lines(row, folded, width_of[key])):
                cell.append(("\n" if row[key] else "") + "\n".join(lines), style="dim")
            cells.append(cell)
        table.add_row(*cells)
    console.print(table)
    return len(rows)


def emit(
    records: Iterable[dict],
    fmt: Format | None,
    columns: Sequence[tuple[str, str]] = (),
    plain: Callable[[dict], str] | None = None,
    title: str | None = None,
    main: str | None = None,
) -> int:
    """Write records; returns how many. jsonl streams, so `| head` and `| jq` see results at once.

    A table fits the terminal: `main` (default: the text, see MAIN_COLUMNS) gets the width, and columns that do
    not fit are shown below each row's main cell rather than dropped."""
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
        count = _table(records, columns, title, main)
    return count


def plain_hit(hit: dict) -> str:
    """A search result as a plain line: its text, and after a tab its status when it is no longer current."""
    status = hit.get("status")
    return hit["text"] if status in (None, "current") else f"{hit['text']}\t[{status}]"


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


    def pacer(self, label: str, total: int | None = None, every: float = 30.0):
        """Progress where no bar can be drawn (stderr is no terminal, a log of a long run): a callable `tick(done)` that
        prints "writing: 12/30 chunk(s), 8.1 s a chunk, about 2 min left" at most every `every` seconds; None on a
        terminal (the bar shows it) or with --quiet."""
        if self.quiet or sys.stderr.isatty():
            return None
        import time

        started = last = time.monotonic()

        def tick(done: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last < every or done <= 0:
                return
            last = now
            pace = (now - started) / done
            left = f", about {duration(pace * (total - done))} left" if total is not None and total > done else ""
            self.info(f"{label}: {done}{f'/{total}' if total is not None else ''} chunk(s), {pace:.1f} s a chunk{left}")

        return tick


def duration(seconds: float) -> str:
    """A time to wait, as a person reads it: 40 s, 12 min, 1.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


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
