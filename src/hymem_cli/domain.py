"""The domain's types: messages, chunks, operations, proposals, rejections. A leaf: it imports nothing of hymem."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field

OPS = ("add", "update", "supersede", "delete")
CHUNK_TOKENS = 768  # a transcript chunk's token budget unless told otherwise (the setting ingest.chunk_tokens)
RELATED_MEMORIES = 8  # current memories shown to the writer per chunk unless told otherwise (the setting writer.related)
EXPERT_PLACEMENTS = ("auto", "gpu", "cpu")  # where a mixture of experts' routed experts go (the setting writer.experts)
EARLIER_MESSAGES = 10  # messages before a chunk that a chunk carries (Hy-Memory's harness shows the writer the last 10)


@dataclass(frozen=True)
class Message:
    """A transcript message: the unit every reader yields and every chunk is made of."""

    id: str  # source message id, or "LINE:<n>" / "MSG:<n>" when the input has none
    speaker: str | None
    text: str
    timestamp: str | None = None  # ISO 8601, normalised to UTC ("...Z"), or None
    session: str | None = None
    line: int | None = None  # 1-based line in the source where the message starts


@dataclass
class Chunk:
    """Consecutive messages of one source, written to the bank in one transaction."""

    source: str
    messages: list[Message]
    # Read from the input alone, never from what a run happened to process, so a resumed, repeated or grown ingest
    # sees each chunk as one uninterrupted run does: the source's messages just before it (at most EARLIER_MESSAGES),
    # and the session's owner (the first speaker of the source who is neither an assistant nor a tool).
    earlier: list[Message] = field(default_factory=list)
    owner: str | None = None
    # Its messages (and the earlier ones) are as stored, secrets redacted already (the writer's queue keeps chunks so):
    # a processor reads them as they are instead of screening a long message once more.
    screened: bool = False

    def render(self) -> str:
        """The chunk as the writer and `show` see it: one turn a line, with time and speaker."""
        lines = []
        for m in self.messages:
            when = f"[{m.timestamp}] " if m.timestamp else ""
            who = f"{m.speaker}: " if m.speaker else ""
            lines.append(f"{when}{who}{m.text}")
        return "\n".join(lines)

    def hash(self, mode: str) -> str:
        """Identity of a chunk for idempotent ingest: "b2:" + blake2b-128 of canonical JSON.

        Contract: the JSON holds the mode and each message's id, speaker, text, timestamp and
        session, with sorted keys. Changing any of this changes every chunk hash, and every bank
        would ingest its transcripts again.
        """
        body = {
            "mode": mode,
            "messages": [
                {"id": m.id, "speaker": m.speaker, "text": m.text, "timestamp": m.timestamp, "session": m.session}
                for m in self.messages
            ],
        }
        canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return "b2:" + hashlib.blake2b(canonical.encode("utf-8"), digest_size=16).hexdigest()

    def prefix_hashes(self, mode: str) -> list[str]:
        """The hash of each beginning of the chunk (its first 1, 2, ... messages) in one pass: the n-th equals
        Chunk(source, messages[:n]).hash(mode). The canonical JSON lists the messages before "mode", so one
        running digest, copied at each message, gives them all without serialising every beginning anew."""
        running = hashlib.blake2b(b'{"messages":[', digest_size=16)
        tail = ('],"mode":' + json.dumps(mode, ensure_ascii=False) + "}").encode("utf-8")
        hashes = []
        for n, m in enumerate(self.messages):
            item = {"id": m.id, "speaker": m.speaker, "text": m.text, "timestamp": m.timestamp, "session": m.session}
            running.update((b"," if n else b"") + json.dumps(item, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
            done = running.copy()
            done.update(tail)
            hashes.append("b2:" + done.hexdigest())
        return hashes

    @property
    def lines(self) -> tuple[int | None, int | None]:
        numbers = [m.line for m in self.messages if m.line is not None]
        return (min(numbers), max(numbers)) if numbers else (None, None)

    @property
    def times(self) -> tuple[str | None, str | None]:
        stamps = sorted(m.timestamp for m in self.messages if m.timestamp)
        return (stamps[0], stamps[-1]) if stamps else (None, None)


def writer_identity(writer: dict | None) -> str | None:
    """Which writer processed a chunk, as "already stored" understands it: the model (its file's hash, else its
    name) and the protocol (protocol, prompt version, pipeline). None for raw ingest and apply."""
    if not writer:
        return None
    keys = ("backend", "prompt_version", "pipeline")
    protocol = writer.get("protocol") if writer.get("protocol") != "hymem" else None  # hymem's own was recorded without a name first
    identity = {k: writer.get(k) for k in keys} | {"model": writer.get("model_hash") or writer.get("model"), "protocol": protocol,
                                                   "prompts": writer.get("prompts")}
    return json.dumps(identity, sort_keys=True, separators=(",", ":"))


def chunk_key(content_hash: str, writer: dict | None = None, again: str | None = None) -> str:
    """The key a stored chunk is known by, so that a re-run skips it: the content hash (Chunk.hash) for raw
    ingest; for a writer, "b2:" + blake2b-128 of the content hash, the writer's identity and `again`, joined by
    NUL. So a chunk one writer processed is new to another model or protocol, and `add --again` (a fresh
    `again` each run) processes it anew. Changing this makes every writer chunk new again; migration m003
    derived the keys of chunks stored before it."""
    identity = writer_identity(writer)
    if identity is None and again is None:
        return content_hash
    joined = "\0".join((content_hash, identity or "", again or ""))
    return "b2:" + hashlib.blake2b(joined.encode("utf-8"), digest_size=16).hexdigest()


@dataclass
class Operation:
    """One change to the bank: the public format that `apply` reads and `add --dry-run` prints."""

    op: str
    target: str | None = None  # memory id ("m12"); None for add
    text: str | None = None
    reason: str | None = None
    evidence: str | None = None
    source_ids: list[str] = field(default_factory=list)
    event_time: str | None = None
    speaker: str | None = None
    merges: list[str] = field(default_factory=list)  # more memory ids this supersede folds into its new version
    tags: list[str] = field(default_factory=list)
    owner: str | None = None  # "user" or "agent": whose fact it is (Hy-Memory's protocol)
    kind: str | None = None  # "memory", "intention" or "profile" (Hy-Memory's protocol)
    valid_until: str | None = None  # an intention's deadline
    origin: str | None = None  # where its evidence sits when not in a participant's own words: quoted, document, comment, code, tool
    context: str | None = None  # embedded with the text, not indexed as words: the turn it answers, or a fact's source messages

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, [])}


def memory_id(n: int) -> str:
    """The public form of a version id: "m12"."""
    return f"m{n}"


@dataclass
class Rejection:
    """An operation that was not applied, and why (recorded in the bank, shown by `log`)."""

    operation: Operation
    reason: str


def reason_kind(reason: str) -> str:
    """A rejection's reason with its particulars (quotes, numbers, lists) blanked, so reasons can be counted."""
    kind = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "…", reason)
    kind = re.sub(r"\([^)]*\)", "(…)", kind)
    return re.sub(r"\d+", "N", kind)


@dataclass
class Proposal:
    """What a chunk processor wants the bank to learn from one chunk."""

    operations: list[Operation]
    rejections: list[Rejection] = field(default_factory=list)
    proposed: int | None = None  # operations the writer proposed, when it differs from accepted + rejected
    stats: dict = field(default_factory=dict)  # writer calls, tokens, seconds, redactions: added to the revision's counts


@dataclass
class ChunkRecord:
    """A transcript chunk about to be stored, with its provenance."""

    hash: str
    source: str
    message_ids: list[str]
    text: str
    first_line: int | None = None
    last_line: int | None = None
    start_time: str | None = None
    end_time: str | None = None


@dataclass
class Shown:
    """A current memory shown to the writer under an alias."""

    alias: int
    memory_id: str
    text: str
    event_time: str | None


OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass(frozen=True)
class Finding:
    """One check's result (`hymem doctor`, `Bank.verify()`): what was checked, ok/warn/fail, what was seen, what to try."""

    check: str
    status: str
    detail: str
    hint: str | None = None
