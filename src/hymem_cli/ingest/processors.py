"""The chunk processors of the write path: raw (every message as it is) and the writer (related memories -> writer -> guards -> proposal)."""

from __future__ import annotations

import json

from hymem_cli.config import Settings
from hymem_cli.domain import RELATED_MEMORIES, Chunk, Operation, Proposal, Rejection, Shown
from hymem_cli.ingest.calls import WriterCalls, writer_record
from hymem_cli.ingest.guards import check
from hymem_cli.ingest.pipeline import ChunkProcessor, MemoryBank
from hymem_cli.screen import Screen, kind_counts
from hymem_cli.writer import prompt
from hymem_cli.writer.backend import WriterBackend, WriterReply
from hymem_cli.writer.schema import FACTS_SCHEMA, OPERATIONS_SCHEMA


class RawProcessor:
    """Raw mode: every message is stored as it is, speaker and text, with no model involved.

    Secrets are redacted first (unless `screen.secrets` is off); the revision counts how many, and of
    which kinds ("redacted", "redacted.api-key", ...), so `hymem log` shows what was withheld.
    Instructions are not screened here: a raw memory is quoted speech with its speaker, not a fact.
    """

    mode = "raw"

    def __init__(self, screen: Screen):
        self.screen = screen

    def writer_info(self) -> dict | None:
        return None

    def close(self) -> None:
        pass

    def process(self, bank: MemoryBank, chunk: Chunk) -> Proposal:
        ops, redacted = [], []
        for m in chunk.messages:
            # secrets are never stored, raw or not; nor a value said to be one earlier in this ingest (seen)
            text, kinds = (m.text, []) if chunk.screened else self.screen.redact(m.text, seen=True)
            redacted += kinds
            ops.append(
                Operation(
                    op="add",
                    text=f"{m.speaker}: {text}" if m.speaker else text,
                    speaker=m.speaker,
                    source_ids=[m.id],
                    event_time=m.timestamp,
                )
            )
        return Proposal(ops, stats=kind_counts(redacted))


def related_memories(bank: MemoryBank, chunk: Chunk, limit: int) -> list[Shown]:
    """Current memories closest to any message of the chunk, each under an alias (1, 2, 3 ...)."""
    hits = bank.related([m.text for m in chunk.messages], limit) if limit > 0 else []
    return [Shown(alias, hit["id"], hit["text"], hit["event_time"]) for alias, hit in enumerate(hits, 1)]


def parse_reply(reply: WriterReply, key: str) -> list | None:
    """The list under `key` in the writer's JSON answer, or None when the answer is not that shape."""
    try:
        doc = json.loads(reply.text)
    except (json.JSONDecodeError, TypeError, RecursionError):  # RecursionError: "[[[[..." nested too deeply
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get(key), list):
        return None
    return doc[key]


class WriterProcessor:
    """One writer call per chunk (or two, extract then reconcile), then the guards."""

    mode = "writer"

    def __init__(self, backend: WriterBackend, screen: Screen, *, pipeline: str = "single", related: int = RELATED_MEMORIES, user: str | None = None):
        self.backend = backend
        self.pipeline = pipeline
        self.related = related
        self.screen = screen  # config screen.*: which content never becomes a memory
        self.user = user  # writer.user: whose own words may make a rule for the agent (else each source's owner)

    def close(self) -> None:
        self.backend.close()

    def writer_info(self) -> dict:
        return writer_record(self.backend, {"protocol": "hymem", "prompt_version": prompt.PROMPT_VERSION, "pipeline": self.pipeline})

    def process(self, bank: MemoryBank, chunk: Chunk) -> Proposal:
        # Secrets never reach the writer: it cannot store what it never saw.
        messages, redacted = (chunk.messages, []) if chunk.screened else self.screen.redact_messages(chunk.messages)
        chunk = Chunk(chunk.source, messages, chunk.earlier, chunk.owner, screened=True)
        shown = related_memories(bank, chunk, self.related)
        listing = [(s.alias, s.text, s.event_time) for s in shown]
        conversation = chunk.render()
        call = WriterCalls(self.backend, redacted)
        stats = call.stats

        if self.pipeline == "two-pass":
            first = call(prompt.extract_pass(conversation), FACTS_SCHEMA)
            facts = parse_reply(first, "facts")
            if facts is None:
                return _unparseable(first, stats, self.screen)
            facts = [f for f in facts if isinstance(f, dict) and isinstance(f.get("text"), str) and isinstance(f.get("evidence"), str)]
            if not facts:
                return Proposal([], stats=stats, proposed=0)
            reply = call(prompt.reconcile_pass(listing, facts, conversation), OPERATIONS_SCHEMA)
        else:
            reply = call(prompt.single_pass(listing, conversation), OPERATIONS_SCHEMA)
        proposed = parse_reply(reply, "operations")
        if proposed is None:
            return _unparseable(reply, stats, self.screen)

        accepted: list[Operation] = []
        rejections: list[Rejection] = []
        by_alias = {s.alias: s for s in shown}
        targeted: set[int] = set()
        added: set[str] = set()
        user = self.user or chunk.owner
        for raw in proposed:
            op, why = check(raw, by_alias, messages, targeted, added, self.screen, user=user)
            if op is not None:
                accepted.append(op)
            else:  # no secret kept in the record
                rejections.append(Rejection(self.screen.scrub_operation(_as_operation(raw, by_alias)), why))
        return Proposal(accepted, rejections, proposed=len(proposed), stats=stats)


def _as_operation(raw: object, shown: dict[int, Shown]) -> Operation:
    """A refused proposal, kept as close to what the writer said as the operation format allows."""
    if not isinstance(raw, dict):
        return Operation(op="invalid", text=json.dumps(raw)[:500])
    alias = raw.get("target")
    target = shown[alias].memory_id if isinstance(alias, int) and alias in shown else (None if alias is None else f"alias:{alias}")
    text = lambda k: raw.get(k) if isinstance(raw.get(k), str) else None  # noqa: E731
    return Operation(op=str(raw.get("op")), target=target, text=text("text"), reason=text("reason"), evidence=text("evidence"))


def _unparseable(reply: WriterReply, stats: dict, screen: Screen) -> Proposal:
    """A reply that is not the JSON asked for is recorded as one rejection, never silently dropped."""
    raw = Operation(op="invalid", text=screen.scrub(reply.text or "")[:500])
    return Proposal([], [Rejection(raw, "writer answer is not the JSON object asked for")], proposed=1, stats=stats)


def build_processor(settings: Settings, *, raw: bool = False, screen: Screen | None = None) -> ChunkProcessor:
    """The chunk processor the settings ask for: the one place add, eval and every later command get a writer.

    The writer model loads here, before any bank is touched: a writer that fails changes nothing.
    """
    screen = screen or Screen.from_settings(settings)
    if raw:
        return RawProcessor(screen)
    from hymem_cli.writer.factory import build_backend

    w = settings.writer
    backend = build_backend(w)
    if protocol_for(w.protocol, backend.info()) == "hy-memory":
        from hymem_cli.ingest.native import NativeWriterProcessor

        try:
            return NativeWriterProcessor(backend, screen, related=w.related, user=w.user or None, intentions=w.intentions)
        except BaseException:
            backend.close()
            raise
    return WriterProcessor(backend, screen, pipeline=w.pipeline, related=w.related, user=w.user or None)


def protocol_for(setting: str, info) -> str:
    """The protocol a writer speaks: the setting, or for "auto" Hy-Memory's own when the model is Hy-Memory."""
    from hymem_cli.writer.hy_memory import names_hy_memory

    if setting != "auto":
        return setting
    return "hy-memory" if names_hy_memory(info) else "hymem"
