"""The writer speaking Hy-Memory's own protocol: extraction, related chain heads, reconciliation, then hymem's guards.

The model sees what the Hy-Memory SDK would show it (writer/hy_memory.py). What it answers becomes the same
operations hymem's own protocol yields, through the same guards, rejection log and one transaction per
chunk. Where the SDK is lax, hymem is not: every memory id must be one that was shown (the model sees ids
shaped like the SDK's, mapped back through an alias table), an older chunk cannot supersede a newer fact,
nothing is overwritten (UPDATE makes a new version in the chain), and a reply that does not parse is a
recorded rejection, never "add everything".

The harness has no evidence quote: a memory rests on the chunk's messages that share its words (its source ids,
its origin and speaker, and what is screened for it; "unknown" origin when none does), and the guard that checks
a quote stands aside; the screens and every other guard apply. An instruction in one message refuses only the
memories that rest on it.
"""

from __future__ import annotations

import uuid

from hymem_cli.domain import RELATED_MEMORIES, Chunk, Message, Operation, Proposal, Rejection, Shown
from hymem_cli.ingest.calls import WriterCalls, writer_record
from hymem_cli.ingest.guards import check
from hymem_cli.ingest.pipeline import MemoryBank
from hymem_cli.screen import Screen
from hymem_cli.screen.provenance import ASSISTANT_NAMES, GENERIC_USER_NAMES, session_owner
from hymem_cli.writer import hy_memory
from hymem_cli.writer.backend import WriterBackend, WriterReply

_ID_SPACE = uuid.UUID("6f1c2b1e-5d0a-4b6e-9a43-2f7d9c1e8a55")  # fixed: the same memory shows the same id in every prompt
SDK_OP = {"ADD": "add", "UPDATE": "update", "SUPERSEDE": "supersede", "DELETE": "delete"}


def default_user(messages: list[Message]) -> str | None:
    """Whose "user" a transcript is when writer.user is not set: the first speaker who is neither an assistant nor a tool."""
    return session_owner(messages)


def role_of(speaker: str | None, user: str | None) -> tuple[str, str | None]:
    """(role, name) as the harness expects: the user; an AI assistant; or another named person (assistant + name)."""
    if speaker is None or (user is not None and speaker == user):
        return "user", (speaker if speaker and speaker.strip().lower() not in GENERIC_USER_NAMES else None)
    if speaker.strip().lower() in ASSISTANT_NAMES:
        return "assistant", None
    return "assistant", speaker


def sdk_id(memory_id: str) -> str:
    """A memory id shaped like the SDK's node ids (a UUID), stable for a memory."""
    return str(uuid.uuid5(_ID_SPACE, memory_id))


class NativeWriterProcessor:
    """Hy-Memory's harness protocol, one or two writer calls per chunk, then hymem's guards."""

    mode = "writer"

    def __init__(self, backend: WriterBackend, screen: Screen, *, related: int = RELATED_MEMORIES, user: str | None = None, intentions: bool = True):
        self.prompts = hy_memory.load_prompts()  # a missing SDK fails here, before any bank is opened
        self.backend = backend
        self.screen = screen
        self.related = related
        self.user = user
        self.intentions = intentions

    def close(self) -> None:
        self.backend.close()

    def writer_info(self) -> dict:
        return writer_record(self.backend, {"protocol": hy_memory.PROTOCOL, "sdk": f"hy-memory {self.prompts.version}",
                                            "prompts": self.prompts.digest, **({"user": self.user} if self.user else {})})

    def process(self, bank: MemoryBank, chunk: Chunk) -> Proposal:
        messages, redacted = (chunk.messages, []) if chunk.screened else self.screen.redact_messages(chunk.messages)
        call = WriterCalls(self.backend, redacted, fence=True)
        stats = call.stats

        user = self.user or chunk.owner
        new = [_item(m, user) for m in messages]
        memory_at = Chunk(chunk.source, messages).times[1]
        # The chunk's own earlier messages (from the input, not from what this run processed), redacted as the chunk is.
        earlier = [(_label(_item(m, user)), m.text) for m in (chunk.earlier if chunk.screened else self.screen.redact_messages(chunk.earlier)[0])]
        reply = call(hy_memory.extract_messages(self.prompts, new, earlier, memory_at, intentions=self.intentions), hy_memory.EXTRACTION_SCHEMA)
        extracted = _extracted(hy_memory.fenced_json(reply.text))
        if extracted is None:
            return _unparseable(reply, stats, self.screen, "the extraction")
        if not extracted:
            return Proposal([], stats=stats, proposed=0)

        heads, hits = self._related_heads(bank, extracted)
        if heads:
            existing = [{"memory_id": sdk_id(h.memory_id), "content": h.text, "owner": hits[h.memory_id].get("owner") or "user",
                         "memory_at": h.event_time, "tags": hits[h.memory_id].get("tags") or []}
                        for h in sorted(heads, key=lambda h: h.event_time or "")]
            reply = call(hy_memory.reconcile_messages(self.prompts, extracted, memory_at, existing), hy_memory.RECONCILE_SCHEMA)
            answer = hy_memory.fenced_json(reply.text)
            if not isinstance(answer, list):
                return _unparseable(reply, stats, self.screen, "the reconciliation")
            if not answer:  # nothing extracted is dropped unsaid
                kept = Operation(op="none", text="; ".join(m["content"] for m in extracted)[:500])
                why = f"the reconciliation kept none of the {len(extracted)} extracted memories (an empty list)"
                return Proposal([], [Rejection(self.screen.scrub_operation(kept), why)], proposed=len(extracted), stats=stats)
            proposed = answer
        else:  # nothing related is stored: everything extracted is new, and no second call is made
            proposed = [{"op": "ADD", **m} for m in extracted]
        return self._guarded(proposed, heads, messages, stats, user)

    def _related_heads(self, bank: MemoryBank, extracted: list[dict]) -> tuple[list[Shown], dict[str, dict]]:
        """For each extracted memory, the related current memories (chain heads only), deduplicated, under aliases."""
        seen: dict[str, dict] = {}
        for m in extracted:
            for hit in bank.related([m["content"]], self.related):
                seen.setdefault(hit["id"], hit)
        return [Shown(alias, hit["id"], hit["text"], hit["event_time"]) for alias, hit in enumerate(seen.values(), 1)], seen

    def _guarded(self, proposed: list, heads: list[Shown], messages: list[Message], stats: dict, user: str | None = None) -> Proposal:
        by_alias = {h.alias: h for h in heads}
        alias_of = {sdk_id(h.memory_id): h.alias for h in heads}
        accepted: list[Operation] = []
        rejections: list[Rejection] = []
        targeted: set[int] = set()
        added: set[str] = set()
        for raw in proposed:
            ours = _as_hymem(raw, alias_of)
            op, why = check(ours, by_alias, messages, targeted, added, self.screen, provenance=messages, user=user)
            if op is not None:
                op.tags, op.owner, op.kind, op.valid_until = _kept(raw)
                accepted.append(op)
            else:
                shown = Operation(op=str(ours.get("op")) if isinstance(ours, dict) else "invalid",
                                  text=str(raw)[:500] if not isinstance(raw, dict) else raw.get("content") if isinstance(raw.get("content"), str) else None)
                rejections.append(Rejection(self.screen.scrub_operation(shown), why))
        return Proposal(accepted, rejections, proposed=len(proposed), stats=stats)


def _item(message: Message, user: str | None) -> dict:
    """A message as the SDK's extraction renders it: role, content, and a name for a participant other than the user."""
    role, name = role_of(message.speaker, user)
    return {"role": role, "content": message.text, **({"name": name} if name else {})}


def _label(item: dict) -> str:
    return item.get("name") or item["role"]


def _extracted(doc) -> list[dict] | None:
    """Memories, intentions and the user's profile fields from an extraction reply, as new memories; None if not that shape."""
    if not isinstance(doc, dict) or not isinstance(doc.get("memory", []), list):
        return None
    found = []
    for kind in ("memory", "intentions"):
        for item in doc.get(kind) or []:
            if isinstance(item, dict) and isinstance(item.get("content"), str) and item["content"].strip():
                found.append({"content": item["content"].strip(), "owner": _owner(item) or "user", "tags": _tags(item), "kind": "intention" if kind == "intentions" else "memory",
                              **({"valid_until": item["valid_until"]} if isinstance(item.get("valid_until"), str) else {})})
    profile = doc.get("basic_info")
    if isinstance(profile, dict):
        for field, value in profile.items():
            if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
                found.append({"content": f"The user's {str(field).replace('_', ' ')} is {value}.", "owner": "user",
                              "tags": ["profile", str(field)], "kind": "profile"})
    return found


def _as_hymem(raw, alias_of: dict[str, int]):
    """An SDK operation in hymem's proposal shape (aliases for ids); anything else passes through for the guard to name."""
    if not isinstance(raw, dict):
        return raw
    op = SDK_OP.get(str(raw.get("op", "")).upper(), raw.get("op"))
    ids = raw.get("memory_ids") if isinstance(raw.get("memory_ids"), list) and raw.get("memory_ids") else [raw.get("memory_id")]
    targets = [alias_of.get(i, i) if isinstance(i, str) else i for i in ids]
    ours = {"op": op, "text": raw.get("content"), "reason": raw.get("supersede_reason") or raw.get("reason")}
    if op == "update" and not ours["reason"]:
        ours["reason"] = "refined by the writer"
    if op != "add":
        ours["target"] = targets[-1]  # a fold's successor joins the newest chain listed
        if len(targets) > 1:
            ours["merges"] = targets[:-1]
    return ours


def _kept(raw) -> tuple[list[str], str | None, str | None, str | None]:
    """What a version keeps of an SDK operation besides its text: tags, owner, kind, valid_until."""
    if not isinstance(raw, dict):
        return [], None, None, None
    tags, owner = _tags(raw), _owner(raw)
    kind = raw.get("kind") if raw.get("kind") in ("memory", "intention", "profile") else None
    until = raw.get("valid_until") if isinstance(raw.get("valid_until"), str) else None
    return tags, owner, kind, until


def _tags(item: dict) -> list[str]:
    return [t for t in item["tags"] if isinstance(t, str)] if isinstance(item.get("tags"), list) else []


def _owner(item: dict) -> str | None:
    return item.get("owner") if item.get("owner") in ("user", "agent") else None


def _unparseable(reply: WriterReply, stats: dict, screen: Screen, step: str) -> Proposal:
    """A reply that is not the fenced JSON asked for is recorded as one rejection, never silently dropped."""
    raw = Operation(op="invalid", text=screen.scrub(reply.text or "")[:500])
    return Proposal([], [Rejection(raw, f"the writer's answer to {step} is not the fenced JSON asked for")], proposed=1, stats=stats)
