"""Evaluating memory writers: each conversation into a fresh bank, then questions scored on evidence recall,
knowledge updates and cost. The same retrieval for every writer, so the figures compare what they stored.

A writer is a chunk processor (RawProcessor, or WriterProcessor around any backend), so tests drive this
module with a scripted backend through the same seam as `hymem eval --model`.

One record per writer (the public JSON of `hymem eval`, keys in RECORD_KEYS):

    writer, mode, writer_info, embed_model, embedder, conversations, messages, questions, ks,
    recall:           {"message"|"session": {"all"|"any": {"5": rate, "10": rate, ...}}}
    by_category:      {category: {"questions": n, "message": {...}, "session": {...}}}
    knowledge_update: {"questions", "updated_in_top5", "updated_above_stale", "stale_current"}
    cost:             {"chunks", "memories", "memories_per_message", "writer_calls", "writer_calls_per_chunk",
                       "prompt_tokens", "prompt_tokens_per_chunk", "evaluated_tokens",
                       "evaluated_tokens_per_chunk", "proposed", "applied", "rejected", "rejected_by_reason",
                       "ingest_seconds", "query_seconds"}
    per_question:     [...]  (when asked for: ranks of the first evidence hit, of full coverage, ...)

Rates are fractions of questions, rounded to 4 places. Everything but the seconds is deterministic
for a deterministic writer and embedder.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hymem_cli._errors import InputError
from hymem_cli.bank.memory_text import MemoryText
from hymem_cli.domain import CHUNK_TOKENS, Message, reason_kind
from hymem_cli.embed import Embedder
from hymem_cli.ingest.sources import Source, open_sources

if TYPE_CHECKING:
    from hymem_cli.ingest.pipeline import ChunkProcessor
    from hymem_cli.memory import Memory

CATEGORIES = ("single-hop", "multi-hop", "temporal", "knowledge-update", "preference")
DEFAULT_KS = (5, 10, 20)
UPDATE_TOP = 5  # "the updated fact is in the top 5" is fixed, whatever --k says
LEVELS = ("message", "session")
RECORD_KEYS = ("writer", "mode", "writer_info", "embed_model", "embedder", "conversations", "messages", "questions", "ks",
               "recall", "by_category", "knowledge_update", "cost")
COST_KEYS = ("chunks", "memories", "memories_per_message", "writer_calls", "writer_calls_per_chunk", "prompt_tokens",
             "prompt_tokens_per_chunk", "evaluated_tokens", "evaluated_tokens_per_chunk", "proposed", "applied",
             "rejected", "rejected_by_reason", "ingest_seconds", "query_seconds")


@dataclass
class Conversation:
    """One transcript of the evaluation set; questions name it by `name`, its file name."""

    name: str
    messages: list[Message]

    def session_of(self) -> dict[str, str | None]:
        return {m.id: m.session for m in self.messages}


@dataclass
class Question:
    id: str
    conversation: str
    question: str
    category: str
    evidence: list[str]
    stale: list[str] = field(default_factory=list)  # knowledge updates: messages with the old value
    updated: list[str] = field(default_factory=list)  # ... and with the new value
    stale_value: str | None = None
    updated_value: str | None = None


@dataclass
class Scored:
    """One question against one writer's bank: 1-based ranks, None when not reached within the results."""

    question: Question
    any_rank: dict[str, int | None]  # level -> rank of the first result touching the evidence
    all_rank: dict[str, int | None]  # level -> rank by which the results cover all the evidence
    updated_rank: int | None = None
    stale_rank: int | None = None
    stale_current: bool | None = None

    def to_json(self) -> dict:
        out = {"id": self.question.id, "conversation": self.question.conversation, "category": self.question.category,
               "any_rank": self.any_rank, "all_rank": self.all_rank}
        if self.question.category == "knowledge-update":
            out.update(updated_rank=self.updated_rank, stale_rank=self.stale_rank, stale_current=self.stale_current)
        return out


# -- reading the set -------------------------------------------------------------------------


def load_conversations(paths: Sequence[str], input_format: str | None = None) -> list[Conversation]:
    """Conversations read with hymem's own transcript readers (so `add` and `eval` see the same messages)."""
    if not paths:
        raise InputError("no conversations to evaluate", hint="give transcript files, e.g. bench/data/eval/*.jsonl")
    if "-" in paths:
        raise InputError("eval reads conversations from files, not stdin", hint="give the transcript files by path")
    conversations, seen = [], set()
    for source in open_sources(list(paths), input_format):
        name = Path(source.name).name
        if name in seen:
            raise InputError(f"two conversations are named {name}", hint="questions refer to conversations by file name; rename one")
        seen.add(name)
        conversations.append(Conversation(name, list(source.messages)))
    return conversations


def load_questions(path: str | Path) -> list[Question]:
    """Questions from JSONL, one object a line; every malformed line is an InputError naming it."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file", hint="give the questions file, e.g. --questions bench/data/eval/questions.jsonl")
    questions, ids = [], set()
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{p} line {n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not JSON ({exc.msg})", hint="one question object per line") from None
        if not isinstance(obj, dict):
            raise InputError(f"{where}: not an object", hint="one question object per line")
        for key in ("id", "conversation", "question", "category"):
            if not isinstance(obj.get(key), str) or not obj[key].strip():
                raise InputError(f'{where}: "{key}" must be a non-empty string', hint=_QUESTION_HINT)
        if obj["category"] not in CATEGORIES:
            raise InputError(f'{where}: unknown category {obj["category"]!r}', hint=f"use one of {', '.join(CATEGORIES)}")
        if obj["id"] in ids:
            raise InputError(f'{where}: question id {obj["id"]!r} appears twice', hint="question ids must be unique")
        ids.add(obj["id"])
        lists = {}
        for key in ("evidence", "stale", "updated"):
            value = obj.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InputError(f'{where}: "{key}" must be a list of message ids', hint=_QUESTION_HINT)
            lists[key] = value
        if not lists["evidence"]:
            raise InputError(f'{where}: "evidence" is empty', hint="list the message ids that contain the answer")
        if obj["category"] == "knowledge-update" and not (lists["stale"] and lists["updated"]):
            raise InputError(f'{where}: a knowledge-update question needs "stale" and "updated" message ids', hint=_QUESTION_HINT)
        questions.append(Question(obj["id"], obj["conversation"], obj["question"], obj["category"], lists["evidence"],
                                  lists["stale"], lists["updated"], obj.get("stale_value"), obj.get("updated_value")))
    if not questions:
        raise InputError(f"{p} holds no questions", hint="one question object per line")
    return questions


_QUESTION_HINT = ('each line: {"id", "conversation", "question", "category", "evidence": [message ids]}, '
                  'plus "stale" and "updated" for knowledge-update questions')


def match_questions(questions: Sequence[Question], conversations: Sequence[Conversation]) -> list[Question]:
    """The questions about the given conversations, with every message id they cite checked to exist."""
    by_name = {c.name: set(c.session_of()) for c in conversations}
    for q in questions:
        if q.conversation not in by_name:
            continue
        known = by_name[q.conversation]
        for key in ("evidence", "stale", "updated"):
            missing = [i for i in getattr(q, key) if i not in known]
            if missing:
                raise InputError(f"question {q.id}: {key} id {missing[0]!r} is not a message of {q.conversation}",
                                 hint="fix the id in the questions file")
    kept = [q for q in questions if q.conversation in by_name]
    if not kept:
        raise InputError("no question refers to the given conversations",
                         hint="questions name conversations by file name, e.g. \"conversation\": \"maya.jsonl\"")
    return kept


# -- scoring ----------------------------------------------------------------------------------


def _rank_any(hits: list[set[str]], gold: set[str]) -> int | None:
    for rank, got in enumerate(hits, 1):
        if got & gold:
            return rank
    return None


def _rank_all(hits: list[set[str]], gold: set[str]) -> int | None:
    covered: set[str] = set()
    for rank, got in enumerate(hits, 1):
        covered |= got
        if gold <= covered:
            return rank
    return None


def score_question(q: Question, hits: list[dict], session_of: dict[str, str | None], current_sources: list[set[str]]) -> Scored:
    """Ranks for one question from its search results (best first) and the bank's current versions."""
    by_message = [set(h["source_ids"]) for h in hits]
    by_session = [{session_of[i] for i in ids if i in session_of} for ids in by_message]
    gold = set(q.evidence)
    gold_sessions = {session_of[i] for i in gold}
    scored = Scored(
        q,
        any_rank={"message": _rank_any(by_message, gold), "session": _rank_any(by_session, gold_sessions)},
        all_rank={"message": _rank_all(by_message, gold), "session": _rank_all(by_session, gold_sessions)},
    )
    if q.category == "knowledge-update":
        stale = set(q.stale)
        scored.updated_rank = _rank_any(by_message, set(q.updated))
        scored.stale_rank = _rank_any(by_message, stale)
        # A current version resting only on the old messages still states the old value.
        scored.stale_current = any(ids and ids <= stale for ids in current_sources)
    return scored


def _rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _within(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def recall_table(scored: Sequence[Scored], ks: Sequence[int]) -> dict:
    """{"message"|"session": {"all"|"any": {"k": rate}}} over `scored`."""
    return {
        level: {
            "all": {str(k): _rate([_within(s.all_rank[level], k) for s in scored]) for k in ks},
            "any": {str(k): _rate([_within(s.any_rank[level], k) for s in scored]) for k in ks},
        }
        for level in LEVELS
    }


def update_table(scored: Sequence[Scored]) -> dict:
    """Knowledge-update figures. "Above stale": the first result touching the new value comes no later than
    the first touching the old one (one memory touching both counts); only stale found is a failure."""
    ku = [s for s in scored if s.question.category == "knowledge-update"]
    return {
        "questions": len(ku),
        "updated_in_top5": _rate([_within(s.updated_rank, UPDATE_TOP) for s in ku]),
        "updated_above_stale": _rate([s.updated_rank is not None and (s.stale_rank is None or s.updated_rank <= s.stale_rank) for s in ku]),
        "stale_current": _rate([bool(s.stale_current) for s in ku]),
    }


# -- running ----------------------------------------------------------------------------------


@dataclass
class Progress:
    """What `on_progress` receives after each conversation."""

    writer: str
    conversation: str
    messages: int
    memories: int
    questions: int
    ingest_seconds: float
    query_seconds: float


def evaluate_writer(
    label: str,
    memory: Memory,
    raw: bool,
    conversations: Sequence[Conversation],
    questions: Sequence[Question],
    *,
    ks: Sequence[int] = DEFAULT_KS,
    per_question: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
) -> dict:
    """Ingest each conversation with `memory`'s writer (or raw) into a fresh temporary bank, ask its questions, score.

    Chunking, what a vector embeds and how search ranks (its floor included) are `memory.settings`', as for any user."""
    ks = sorted(set(ks))
    limit = max(max(ks), UPDATE_TOP)
    scored: list[Scored] = []
    counts: dict[str, float] = {}
    reasons: dict[str, int] = {}
    processor = memory.writer(raw)
    embedder = memory.embedder()

    memories = messages = 0
    ingest_seconds = query_seconds = 0.0
    for conv in conversations:
        asked = [q for q in questions if q.conversation == conv.name]
        with tempfile.TemporaryDirectory(prefix="hymem-eval-") as tmp:
            scratch = memory.on_bank(Path(tmp) / "bank.db")  # a screen of its own: no secrets carried over
            try:
                started = time.perf_counter()
                report = scratch.add([Source(conv.name, conv.messages)], raw=raw).report
                took_ingest = time.perf_counter() - started
                for key, value in report.counts.items():
                    counts[key] = counts.get(key, 0) + value
                bank = scratch.bank()
                current = [set(ids) for ids in bank.current_source_ids()]
                for kind in map(reason_kind, bank.rejection_reasons()):
                    reasons[kind] = reasons.get(kind, 0) + 1
                session_of = conv.session_of()
                started = time.perf_counter()
                for q in asked:
                    hits = scratch.search(q.question, limit, ask_server=False)
                    scored.append(score_question(q, hits, session_of, current))
                took_query = time.perf_counter() - started
            finally:
                scratch.close()
        memories += len(current)
        messages += len(conv.messages)
        ingest_seconds += took_ingest
        query_seconds += took_query
        if on_progress:
            on_progress(Progress(label, conv.name, len(conv.messages), len(current), len(asked), took_ingest, took_query))

    chunks = int(counts.get("chunks", 0))

    def per_chunk(key: str) -> float | None:
        return round(counts.get(key, 0) / chunks, 2) if chunks else None

    record = {
        "writer": label,
        "mode": processor.mode,
        "writer_info": processor.writer_info(),
        "embed_model": embedder.name,
        "embedder": type(embedder).__name__,  # the ONNX copy and the torch model give slightly different vectors
        "conversations": len(conversations),
        "messages": messages,
        "questions": len(scored),
        "ks": ks,
        "recall": recall_table(scored, ks),
        "by_category": {
            cat: {"questions": len(group), **recall_table(group, ks)}
            for cat in CATEGORIES
            if (group := [s for s in scored if s.question.category == cat])
        },
        "knowledge_update": update_table(scored),
        "cost": {
            "chunks": chunks,
            "memories": memories,
            "memories_per_message": round(memories / messages, 4) if messages else None,
            "writer_calls": int(counts.get("writer_calls", 0)),
            "writer_calls_per_chunk": per_chunk("writer_calls"),
            "prompt_tokens": int(counts.get("prompt_tokens", 0)),
            "prompt_tokens_per_chunk": per_chunk("prompt_tokens"),
            "evaluated_tokens": int(counts.get("evaluated_tokens", 0)),
            "evaluated_tokens_per_chunk": per_chunk("evaluated_tokens"),
            "proposed": int(counts.get("proposed", 0)),
            "applied": int(counts.get("applied", 0)),
            "rejected": int(counts.get("rejected", 0)),
            "rejected_by_reason": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            "ingest_seconds": round(ingest_seconds, 2),
            "query_seconds": round(query_seconds, 2),
        },
    }
    if per_question:
        record["per_question"] = [s.to_json() for s in scored]
    return record


def evaluate(
    writers: Sequence[tuple[str, ChunkProcessor]],
    conversations: Sequence[Conversation],
    questions: Sequence[Question],
    embedder: Embedder,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    per_question: bool = False,
    chunk_tokens: int = CHUNK_TOKENS,
    memory_text: MemoryText | None = None,
    **ranking,
) -> list[dict]:
    """One record per (label, processor), in order, as a library call: settings are the defaults but for
    `chunk_tokens`, `memory_text` and the search.* names in `ranking` (vector_weight=0.0, fusion="rrf", ...)."""
    from hymem_cli import config
    from hymem_cli.memory import Memory

    text = memory_text or MemoryText()
    settings = config.defaults().replace(**{"embed.model": embedder.name, "ingest.chunk_tokens": chunk_tokens, "embed.context": text.context,
                                            "embed.date": text.date, **{f"search.{k}": v for k, v in ranking.items()}})
    questions = match_questions(questions, conversations)
    records = []
    for label, processor in writers:
        raw = processor.mode == "raw"
        memory = Memory(settings, embedder=embedder, writers={raw: processor})
        records.append(evaluate_writer(label, memory, raw, conversations, questions, ks=ks, per_question=per_question))
    return records


def deterministic(record: dict) -> dict:
    """The record without its wall-clock figures: equal for equal inputs (tests compare these)."""
    out = json.loads(json.dumps(record))
    for key in ("ingest_seconds", "query_seconds"):
        out["cost"].pop(key, None)
    return out
