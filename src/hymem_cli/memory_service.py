"""The memory operations an agent calls on one bank (search, add, read, history, update, delete, log, revert), as plain Python.

`hymem mcp` serves these as MCP tools (mcp_server.py); the logic lives here so it is tested without the
protocol and knows nothing of it. Every method returns JSON-able dicts and raises HymemError subclasses.
Nothing is destroyed: update and delete add versions through the bank's apply path, revert adds a revision.

Whatever an agent hands in is screened as any input is: secrets redacted, instructions to the agent refused, and text
that is not a person's own words kept with its origin. An agent's own text (add_memory's `text`, a message without a
speaker or from the assistant, update_memory's text) is stored with origin "agent" and speaker "agent", never as
something the user said. Each call gets a screen of its own, so no call's secrets are remembered into another's.

One service serves one process. It is not thread-safe: the MCP server calls it from one worker thread.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from hymem_cli._errors import InputError, UsageError
from hymem_cli.domain import Message, Operation, memory_id
from hymem_cli.framing import own_words  # noqa: F401 - re-exported, the service's public word
from hymem_cli.screen import Redactor, Screen
from hymem_cli.screen.provenance import AGENT

if TYPE_CHECKING:
    from hymem_cli.bank import Bank
    from hymem_cli.memory import Memory

DEFAULT_SOURCE = "mcp"
MAX_LIMIT = 100  # results per search or log call: an agent's context is the limit, not the bank


class MemoryService:
    """The operations an agent calls, over one `Memory` (its bank kept open, its writer loaded on the first add that
    needs it and kept warm): each checks the agent's arguments, calls the memory and answers JSON-able dicts."""

    def __init__(self, memory: Memory):
        self.memory = memory
        self.settings = memory.settings

    # -- lifetime -----------------------------------------------------------------------------

    def bank(self, *, embed: bool = False) -> Bank:
        """The bank (created on first use); `embed` binds the embedder (writing needs it; searching needs it once the
        bank has vectors), kept warm: this process lives long."""
        bank = self.memory.bank(create=True)
        if bank.embedder is None and (embed or bank.embed_model is not None):
            self.memory.bind_embedder(bank)
            if stay_warm := getattr(bank.embedder, "stay_warm", None):  # the fastest per query
                stay_warm()
        return bank

    def warm(self) -> None:
        """Open the bank and load the embedder now, so the first search is as fast as later ones; a missing bank waits
        for the first call (which creates it)."""
        if self.memory.bank_path.exists():
            self.bank()

    def close(self) -> None:
        self.memory.close()

    @property
    def writer_loaded(self) -> bool:
        return self.memory.writer_loaded

    @property
    def screen(self) -> Screen:
        """The configured screens; each call screens with a copy of its own (call_screen)."""
        return self.memory.screen

    def call_screen(self) -> Screen:
        """A screen for one call: the configured screens, with a redactor that remembers nothing of earlier calls (what
        one conversation redacted must not shape, or be probed through, another's)."""
        return replace(self.memory.screen, redactor=Redactor(), read_kinds=[])

    # -- reading ------------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10, *, as_of: int | None = None, since: str | None = None, until: str | None = None,
               include_retired: bool = False, source: str | None = None) -> list[dict]:
        """Current memories (all versions with `include_retired`) best matching `query`, by words and by meaning; the
        current ones handed over are counted as recalled (a briefing puts the often recalled first)."""
        from hymem_cli.bank.search import SearchFilter

        check_text(query=query, since=since, until=until, source=source)
        if not query.strip():
            raise InputError("the query is empty", hint="give words to search for")
        bank = self.bank()
        flt = SearchFilter(include_retired=include_retired, source=source, since=_time(since, "since"), until=_time(until, "until"))
        if as_of is not None:
            flt.as_of = bank.check_revision(as_of)
        return self.memory.search(query, _bounded(limit, "limit"), flt, ask_server=False, recalled=True)

    def get(self, memory: str) -> dict:
        """One memory version with its provenance, and the current version of its fact (None once deleted)."""
        from hymem_cli.bank.operations import parse_memory_id

        check_text(memory_id=memory)
        bank = self.bank()
        version = bank.version(memory)
        head = bank.head_of(parse_memory_id(version["id"]))
        return {**version, "current": memory_id(head) if head else None}

    def history(self, memory: str) -> dict:
        """Every version of the fact `memory` belongs to, oldest first, with reasons, revisions and sources."""
        check_text(memory_id=memory)
        self.bank()
        versions = self.memory.history(memory)
        current = next((v["id"] for v in versions if v["status"] == "current"), None)
        return {"chain": versions[0]["chain"], "current": current, "versions": versions}

    def log(self, limit: int = 10) -> list[dict]:
        """Revisions, newest first: what each ingest, apply or revert changed and what the writer's guards refused."""
        self.bank()
        entries = self.memory.log(_bounded(limit, "limit"))
        return [{**{k: e[k] for k in ("revision", "time", "command", "source", "state", "counts")},
                 "writer": (e["writer"] or {}).get("model"), "rejections": e["rejections"]} for e in entries]

    # -- writing ------------------------------------------------------------------------------

    def add(self, messages: list[dict] | None = None, text: str | None = None, source: str | None = None, infer: bool = True) -> dict:
        """Store a conversation (or one text) at once: its messages, searchable now, and with `infer` its chunks queued
        for the memory writer (`hymem serve --write` or `hymem write` writes them; nothing here waits for a model);
        without, each message as it is and nothing queued. Returns the messages' ids and the revision's changes; a
        conversation already stored changes nothing."""
        from hymem_cli import server
        from hymem_cli.bank.history import diff
        from hymem_cli.ingest.attribution import Attributed
        from hymem_cli.ingest.sources import Source

        check_text(messages=messages, text=text, source=source)  # before anything is loaded or stored
        screen = self.call_screen()
        given = [replace(m, id=screen.redact(m.id)[0], speaker=m.speaker and screen.redact(m.speaker)[0])  # stored as provenance too
                 for m in _messages(messages, text)]
        bank = self.bank(embed=True)
        name = screen.redact((source or DEFAULT_SOURCE).strip() or DEFAULT_SOURCE)[0]
        if infer:
            done = self.memory.add([Source(name, given)], queue=True, attributed=True, screen=screen)
        else:
            done = self.memory.add([Source(name, given)], processor=Attributed(self.memory.writer(raw=True, screen=screen)))
        report = done.report
        changes = diff(bank, report.revision - 1, report.revision) if report.revision else []
        rejected = bank_rejections(bank, report.revision) if report.revision else []
        writing = server.writing(bank.path)
        return {
            "revision": report.revision,
            "mode": "queued" if infer else "raw",
            "writer": (self.settings.writer.model or self.settings.writer.kind or None) if infer else None,
            "note": _queue_note(infer, done.queued, writing, bool(self.settings.writer.kind)),
            "messages": report.messages,
            "message_ids": [c["after"]["id"] for c in changes if c["after"] and c["after"]["layer"] == "message"],
            "queued_chunks": done.queued,
            "writer_running": writing is not None,
            "chunks": report.chunks,
            "stored": report.stored,
            "skipped": report.skipped,
            "changes": changes,
            "rejected": rejected,
        }

    def status(self) -> dict:
        """The bank's messages and facts, the writer's queue (queued and failed chunks, the pace of recent writes), the
        writer configured and whether a `hymem serve --write` is writing: what `hymem status` shows."""
        check = self.memory.status()
        return {k: check[k] for k in ("bank", "messages", "pending_messages", "facts", "queued_chunks", "failed_chunks", "written_chunks",
                                      "seconds_per_chunk", "eta_seconds", "failures", "writer", "serve_write")}

    def update(self, memory: str, text: str, reason: str) -> dict:
        """A new version of a current memory, with the reason; the old one stays in its history. The agent wrote the new
        text: it is stored with origin and speaker "agent"."""
        check_text(memory_id=memory, text=text, reason=reason)
        screen = self.call_screen()
        clean = self._screened(text, screen)
        why = screen.redact(_required(reason, "reason"))[0]
        return self._apply(Operation("update", target=memory, text=clean, reason=why, event_time=_now(), speaker=AGENT, origin=AGENT),
                           "update_memory")

    def delete(self, memory: str, reason: str) -> dict:
        """Retire a current memory, with the reason; it stays in its history and `revert` can bring it back."""
        check_text(memory_id=memory, reason=reason)
        why = self.call_screen().redact(_required(reason, "reason"))[0]
        return self._apply(Operation("delete", target=memory, reason=why), "delete_memory")

    def revert(self, revision: int) -> dict:
        """Undo a revision as a new revision: what it added is deleted, what it changed comes back."""
        self.bank(embed=True)
        change = self.memory.revert(revision)
        skipped = list(change.plan.skipped) if change.plan else []
        return {"revision": change.revision.id, "reverted": revision, "changes": change.entries, "skipped": skipped}

    def _apply(self, op: Operation, tool: str) -> dict:
        from hymem_cli.bank.history import diff

        bank = self.bank(embed=op.op != "delete")
        draft = bank.apply_operations([op], command=f"mcp {tool}", source=DEFAULT_SOURCE)
        return {"revision": draft.id, "changes": diff(bank, draft.id - 1, draft.id)}

    def _screened(self, text: str, screen: Screen) -> str:
        """Text an agent asks to store: secrets redacted, and no instruction to the agent stored as a fact."""
        text = _required(text, "text")
        if hit := screen.instruction(text):
            raise InputError(f"refused: the text reads as an instruction to the agent ({hit.kind}), not a fact",
                             hint="state a fact about the user or the project, in the third person")
        return screen.redact(text)[0]


def _queue_note(infer: bool, queued: int, writing: int | None, configured: bool) -> str | None:
    """What happens next to what add_memory stored, in a sentence for the agent."""
    if not infer:
        return "stored as they are (infer=false); no writer reads them"
    if not queued:
        return None
    if writing is not None:
        return "queued for the memory writer: a running `hymem serve --write` writes the facts shortly"
    if configured:
        return "queued for the memory writer: the facts are written when `hymem write` or `hymem serve --write` runs"
    return "queued: no memory writer is configured, so the messages stay searchable as they are until one is"


def check_text(**fields: object) -> None:
    """Refuse an argument holding text that cannot be stored (a lone surrogate: not valid UTF-8), naming where it is;
    nested lists and objects (a conversation's messages) are walked."""
    for name, value in fields.items():
        if where := unencodable(value, name):
            raise InputError(f"{where}; the call changed nothing", hint=UTF8_HINT)


UTF8_HINT = "send valid UTF-8 text: a character outside the BMP (an emoji) needs both halves of its surrogate pair"


def unencodable(value: object, path: str) -> str | None:
    """Where in `value` (a string, or lists and objects of them) text cannot be encoded as UTF-8, and why; None if nowhere."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"{path} is not valid Unicode: it holds a lone surrogate (U+{ord(value[exc.start]):04X}) at character {exc.start + 1}"
        return None
    if isinstance(value, dict):
        items = value.items()
        for key, item in items:
            if where := unencodable(key, f"{path} key") if isinstance(key, str) else None:
                return where
            if where := unencodable(item, f"{path}.{key}"):
                return where
    elif isinstance(value, (list, tuple)):
        for n, item in enumerate(value):
            if where := unencodable(item, f"{path}[{n}]"):
                return where
    return None


def bank_rejections(bank: Bank, revision: int) -> list[dict]:
    """What the writer's guards refused in `revision`: the operation and the reason."""
    from hymem_cli.bank.history import revision as revision_record

    return [{"operation": r["operation"], "reason": r["reason"]} for r in revision_record(bank, revision)["rejections"]]


def _messages(messages: list[dict] | None, text: str | None) -> list[Message]:
    """The messages of an add: each {role or speaker, content or text, timestamp?, id?}, or one text. A message without
    a time has the time of the message before it, the first one now: the same conversation added again is then the
    same chunk, and skipped, whenever its times were given."""
    from hymem_cli.ingest.timeutil import normalize_timestamp

    if messages and text:
        raise UsageError("give messages or text, not both")
    if text is not None and not messages:
        messages = [{"content": text}]
    if not messages:
        raise UsageError("nothing to add: give messages (a conversation) or text")
    now = _now()
    out = []
    for n, m in enumerate(messages, 1):
        body = m.get("content") if m.get("content") is not None else m.get("text")
        if not isinstance(body, str) or not body.strip():
            raise InputError(f"message {n} has no text", hint='give each message a "content" string')
        speaker = m.get("speaker") or m.get("name") or m.get("role")
        when = m.get("timestamp")
        stamp = normalize_timestamp(when) if when else (out[-1].timestamp if out else now)  # untimed: as the message before
        if when and stamp is None:
            raise InputError(f"message {n}: cannot read timestamp {when!r}", hint="use ISO 8601, e.g. 2024-05-01T10:00:00Z")
        ident = m.get("id")
        out.append(Message(id=str(ident) if ident not in (None, "") else f"MSG:{n}", speaker=speaker.strip() if isinstance(speaker, str) and speaker.strip() else None,
                           text=body.strip(), timestamp=stamp, line=None))
    return out


def _now() -> str:
    """The time now as event times are stored: ISO 8601 in UTC, to the second ("2024-05-01T10:00:00Z")."""
    from hymem_cli.ingest.timeutil import normalize_timestamp

    return normalize_timestamp(datetime.now(timezone.utc).isoformat())


def _time(value: str | None, name: str) -> str | None:
    from hymem_cli.ingest.timeutil import parse_time_arg

    if not value:
        return None
    try:
        return parse_time_arg(value)
    except ValueError:
        raise UsageError(f"{name} {value!r} is not a date or time", hint="e.g. 2024-05-01 or 2024-05-01T10:00:00Z") from None


def _bounded(limit: int, name: str) -> int:
    if limit < 1:
        raise UsageError(f"{name} must be at least 1")
    return min(limit, MAX_LIMIT)


def _required(value: str | None, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{name} must not be empty", hint=f"give a {name}: it is kept in the memory's history")
    return value.strip()
