"""`hymem search`: find memories by meaning and by words."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from hymem_cli import _output
from hymem_cli._errors import InputError, UsageError
from hymem_cli.bank.search import SearchFilter
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, FormatOpt, LimitOpt, QuietOpt
from hymem_cli.ingest.timeutil import parse_time_arg
from hymem_cli.screen.provenance import ALL_ORIGINS as ORIGINS

COLUMNS = [("id", "id"), ("score", "score"), ("status", "status"), ("text", "text"), ("origin", "origin"), ("event_time", "event time"),
           ("source_ids", "sources")]


def _time(value: str | None, flag: str) -> str | None:
    if value is None:
        return None
    try:
        return parse_time_arg(value)
    except ValueError:
        raise UsageError(f"{flag} {value!r} is not a date or time", hint="e.g. 2024-05-01 or 2024-05-01T10:00:00Z") from None


def search(
    query: Annotated[str, typer.Argument(help="What to look for; - reads one query per line from stdin.")],
    limit: LimitOpt = None,
    all_versions: Annotated[bool, typer.Option("--all", help="Include retired versions, marked by status.")] = False,
    as_of: Annotated[Optional[int], typer.Option("--as-of", min=0, help="Search the bank as it was after revision REV.", metavar="REV", show_default=False)] = None,
    source: Annotated[Optional[str], typer.Option("--source", help="Only memories from sources matching this glob or substring.", show_default=False)] = None,
    since: Annotated[Optional[str], typer.Option("--since", help="Only memories whose event time is at or after this.", show_default=False)] = None,
    until: Annotated[Optional[str], typer.Option("--until", help="Only memories whose event time is at or before this.", show_default=False)] = None,
    min_score: Annotated[Optional[float], typer.Option("--min-score", min=0.0, max=1.0, help="Leave out results scoring below this (default: search.min_score). A score is the chance, fitted on the development set, that a memory is what the query asks for; 0 shows every result.", show_default=False)] = None,
    layer: Annotated[Optional[str], typer.Option("--layer", help="fact: only facts (what a writer or apply stored); message: only messages "
                                                 "(as they were said); all: both, messages a writer has read too. Default: facts, and the "
                                                 "messages no writer has read yet (marked pending).", show_default=False)] = None,
    origin: Annotated[Optional[list[str]], typer.Option("--origin", help="Only memories from this origin (repeatable): said (a participant's own words), quoted, document, comment, code, tool, unknown (no source message holds it), agent (an agent wrote it).", show_default=False)] = None,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Search memories by meaning and by words. Current memories only by default.

    A query about nothing the bank holds returns nothing: results scoring below search.min_score (--min-score)
    are left out, and "no memory matches" goes to stderr (JSON output stays empty; the exit status is 0).

    Examples:

      hymem search "where does Alex live" --format jsonl | jq -r .text

      hymem search "diet" --all --since 2024-01-01

      hymem search "deploy policy" --origin said   # leave out what came from pasted text and tool output

      hymem search "Perth" --min-score 0.5 -f jsonl | jq -r .id   # only strong matches

      printf 'Alex city\\nSam job\\n' | hymem search - -f jsonl | jq -c '{query, id, text}'
    """
    if not query.strip():
        raise InputError("the query is empty", hint="give words to search for, or - to read queries from stdin")
    ctx = Context.start(quiet=quiet, bank=bank, search__limit=limit, search__min_score=min_score)
    memory = ctx.memory
    if layer not in (None, "fact", "message", "all"):
        raise UsageError(f"--layer {layer!r} is not a layer", hint="use fact, message or all")
    if origin and (unknown := [o for o in origin if o not in ORIGINS]):
        raise UsageError(f"--origin {unknown[0]!r} is not an origin", hint=f"use one of: {', '.join(ORIGINS)}")
    flt = SearchFilter(include_retired=all_versions, source=source, since=_time(since, "--since"), until=_time(until, "--until"),
                       origin=list(origin) if origin else None, layer=layer)
    if as_of is not None:
        flt.as_of = memory.check_revision(as_of)

    if query == "-":
        queries = (line.strip() for line in _stdin_lines())

        def batch():
            for q in queries:
                if q:
                    for hit in memory.search(q, flt=flt):
                        yield {"query": q, **hit}

        columns = [("query", "query"), *COLUMNS]
        _output.emit(batch(), fmt, columns, plain=lambda r: f"{r['query']}\t{r['id']}\t{r['text']}")
        return
    hits = memory.search(query, flt=flt)
    if not hits:
        ctx.out.info("no memory matches")
    _output.emit(hits, fmt, COLUMNS, plain=_output.plain_hit)


def _stdin_lines():
    data = sys.stdin.buffer
    for n, raw in enumerate(iter(data.readline, b""), 1):
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"<stdin> line {n}: not valid UTF-8", hint="queries must be UTF-8 text") from None
