"""`hymem eval`: compare memory writers on an evaluation set (evidence recall, knowledge updates, cost)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from hymem_cli import _output
from hymem_cli._errors import UsageError
from hymem_cli._output import Format, Output
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import (
    BackendOpt,
    BaseUrlOpt,
    ChunkTokensOpt,
    FormatOpt,
    InputFormatOpt,
    PipelineOpt,
    QuietOpt,
    UserOpt,
    check_input_format,
)
from hymem_cli.eval import CATEGORIES, DEFAULT_KS, Progress, evaluate_writer, load_conversations, load_questions, match_questions
from hymem_cli.memory import Memory


def parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        ks = []
    if not ks or ks[0] < 1:
        raise UsageError(f"--k {text!r} is not a list of positive whole numbers", hint="e.g. --k 5,10,20")
    return ks


def _label(model: str, taken: set[str]) -> str:
    base = Path(model).name if ("/" in model or model.endswith(".gguf")) else model
    label, n = base, 1
    while label in taken:
        n += 1
        label = f"{base}#{n}"
    taken.add(label)
    return label


def eval_(
    conversations: Annotated[list[str], typer.Argument(help="Conversation transcripts (rich JSONL: id, session, speaker, timestamp, text).", show_default=False)],
    questions: Annotated[str, typer.Option("--questions", help="Questions JSONL: id, conversation, question, category, evidence (+ stale, updated).", show_default=False)],
    raw: Annotated[bool, typer.Option("--raw", help="Evaluate raw mode (every message stored as it is).")] = False,
    model: Annotated[Optional[list[str]], typer.Option("--model", "-m", help="A writer model to evaluate; repeat to compare several side by side.", show_default=False)] = None,
    backend: BackendOpt = None,
    base_url: BaseUrlOpt = None,
    pipeline: PipelineOpt = None,
    protocol: Annotated[Optional[list[str]], typer.Option("--protocol", help="Writer protocol for every --model: hy-memory, hymem or auto; repeat to compare protocols on the same writer.",
                                                          show_default=False)] = None,
    user: UserOpt = None,
    k: Annotated[str, typer.Option("--k", help="Result depths for recall@k, comma-separated.")] = ",".join(map(str, DEFAULT_KS)),
    limit_conversations: Annotated[Optional[int], typer.Option("--limit-conversations", min=1, help="Evaluate only the first N conversations.", show_default=False)] = None,
    chunk_tokens: ChunkTokensOpt = None,
    input_format: InputFormatOpt = None,
    details: Annotated[bool, typer.Option("--details", help="Add per-question ranks to JSON output.")] = False,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Evaluate writers: each conversation goes into a fresh temporary bank, then every question is searched
    (current memories, same retrieval for all writers) and scored.

    Figures per writer: evidence recall@k ("all": every gold message is a source of the top k; "any": at
    least one), at message and session level, overall and per category; for knowledge updates, whether
    the new value is in the top 5, ranks above the old one, and whether the old value is still current;
    cost: memories per message, writer calls and prompt tokens per chunk, rejected operations, seconds.
    JSON keys: writer, mode, writer_info, embed_model, embedder, conversations, messages, questions, ks, recall,
    by_category, knowledge_update, cost (and per_question with --details).

    A writer model runs on every chunk of every conversation: on the bundled set, --raw takes
    seconds and --model smollm2 several minutes on a 2-core CPU.

    Examples:

      hymem eval bench/data/eval/*.jsonl --questions bench/data/eval/questions.jsonl --raw --model smollm2

      hymem eval chats/*.jsonl --questions q.jsonl --raw -f json | jq '.[0].recall.message.any'

      hymem eval chats/*.jsonl --questions q.jsonl --backend openai --base-url http://localhost:8000/v1 --model hy-memory
    """
    ks = parse_ks(k)
    check_input_format(input_format)
    ctx = Context.start(quiet=quiet, ingest__chunk_tokens=chunk_tokens, writer__backend=backend, writer__base_url=base_url, writer__pipeline=pipeline,
                        writer__user=user)
    # The question file lies beside the conversations in a shell glob: leave it out rather than read it as a chat.
    qpath = Path(questions).resolve()
    paths = [p for p in conversations if p == "-" or Path(p).resolve() != qpath]
    convs = load_conversations(paths, input_format)
    if limit_conversations is not None:
        convs = convs[:limit_conversations]
    asked = match_questions(load_questions(questions), convs)

    settings = ctx.memory.settings
    models = list(model or [])
    if not raw and not models:
        if not settings.writer.kind:
            raise UsageError("nothing to evaluate", hint="give --raw and/or --model MODEL (repeat --model to compare writers)")
        models = [settings.writer.model]  # the configured writer
    options = {"ks": ks, "per_question": details, "on_progress": lambda p: _report(ctx.out, p)}
    ctx.out.info(f"evaluating {len(convs)} conversation(s), {len(asked)} question(s), writers: "
                 + ", ".join((["raw"] if raw else []) + models))
    embedder = ctx.memory.embedder()
    records = []
    if raw:
        records.append(evaluate_writer("raw", ctx.memory, True, convs, asked, **options))
    taken = {"raw"}
    protocols = list(protocol or [settings.writer.protocol])
    for m in models:
        for proto in protocols:
            writer_settings = settings.replace(**{"writer.model": m or None, "writer.protocol": proto})
            memory = Memory(writer_settings, say=ctx.out.info, embedder=embedder)
            label = m or writer_settings.writer.kind
            try:
                spoken = memory.writer().writer_info().get("protocol", "hymem")  # loads the model once for every conversation
                records.append(evaluate_writer(_label(f"{label} ({spoken})" if len(protocols) > 1 else label, taken), memory, False, convs,
                                               asked, **options))
            finally:
                memory.close()
    render(records, fmt)


def _report(out: Output, p: Progress) -> None:
    out.info(f"{p.writer}: {p.conversation}: {p.messages} messages -> {p.memories} memories in {p.ingest_seconds:.1f} s; "
                 f"{p.questions} questions in {p.query_seconds:.2f} s")


def _fmt(value, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table_groups(records: list[dict]) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """The figures as (title, [(metric, [one cell per writer])]) groups: what a terminal is shown."""
    ks = records[0]["ks"]
    pair = lambda table, k: f"{_fmt(table['all'][str(k)])} / {_fmt(table['any'][str(k)])}"  # noqa: E731
    recall = [(f"{level} @{k}", [pair(r["recall"][level], k) for r in records]) for level in ("message", "session") for k in ks]
    by_cat = []
    for cat in CATEGORIES:
        present = [r["by_category"].get(cat) for r in records]
        if not any(present):
            continue
        n = next(p["questions"] for p in present if p)
        for k in ks:
            by_cat.append((f"{cat} ({n}) @{k}", [pair(p["message"], k) if p else "-" for p in present]))
    ku = records[0]["knowledge_update"]["questions"]
    updates = [
        ("updated in top 5", [_fmt(r["knowledge_update"]["updated_in_top5"]) for r in records]),
        ("updated above stale", [_fmt(r["knowledge_update"]["updated_above_stale"]) for r in records]),
        ("stale still current", [_fmt(r["knowledge_update"]["stale_current"]) for r in records]),
    ]
    cost_rows = [("memories per message", "memories_per_message", 3), ("chunks", "chunks", 0),
                 ("writer calls per chunk", "writer_calls_per_chunk", 2), ("prompt tokens per chunk", "prompt_tokens_per_chunk", 1),
                 ("evaluated tokens per chunk", "evaluated_tokens_per_chunk", 1), ("operations proposed", "proposed", 0),
                 ("operations rejected", "rejected", 0), ("ingest seconds", "ingest_seconds", 1), ("query seconds", "query_seconds", 1)]
    cost = [(label, [_fmt(r["cost"][key], digits) for r in records]) for label, key, digits in cost_rows]
    kinds = sorted({kind for r in records for kind in r["cost"]["rejected_by_reason"]})
    reasons = [(kind, [str(r["cost"]["rejected_by_reason"].get(kind, 0)) for r in records]) for kind in kinds]
    n = records[0]["questions"]
    groups = [
        (f"evidence recall, all / any ({n} questions)", recall),
        ("evidence recall by category, message level, all / any", by_cat),
        (f"knowledge updates ({ku} questions)", updates),
        (f"cost ({records[0]['messages']} messages)", cost),
    ]
    return groups + ([("rejected operations by reason", reasons)] if reasons else [])


def render(records: list[dict], fmt: Format | None) -> None:
    fmt = _output.resolve(fmt)
    if fmt in (Format.json, Format.jsonl):
        _output.emit(records, fmt)
        return
    writers = [r["writer"] for r in records]
    columns = [("metric", "metric")] + [(f"w{i}", w) for i, w in enumerate(writers)]
    for title, rows in table_groups(records):
        items = [{"metric": metric, **{f"w{i}": cell for i, cell in enumerate(cells)}} for metric, cells in rows]
        plain = lambda item, title=title: "\t".join([title, *(item[key] for key, _ in columns)])  # noqa: E731
        _output.emit(items, fmt, columns, plain=plain, title=title)
