"""Deterministic checks every writer operation passes before it may touch the bank."""

from __future__ import annotations

import re

from hymem_cli.domain import OPS, Message, Operation, Shown
from hymem_cli.screen import Screen
from hymem_cli.writer.schema import MAX_FACT_CHARS

MIN_EVIDENCE_CHARS = 3
MAX_EVIDENCE_GUARD = 2000  # a "short exact quote" longer than this is a runaway (the grammar stops at 200)


def normalize(text: str) -> str:
    """Case-folded, with runs of whitespace as one space and quotes unified: how evidence is matched."""
    text = text.casefold().replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip().strip("\"'")


def evidence_messages(evidence: str, messages: list[Message]) -> list[Message]:
    needle = normalize(evidence)
    if len(needle) < MIN_EVIDENCE_CHARS:
        return []
    return [m for m in messages if needle in normalize(m.text)]


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800") from JSON: SQLite cannot store it
        return False
    return True


def screen_fields(fields: dict[str, str | None], screen: Screen, sources: list[Message] = (), *, user: str | None = None,
                  context: list[Message] | None = None) -> str | None:
    """Why these fields (text, reason, evidence), or the source messages they come from, must not be stored, or None.
    Only `user`'s own words may make a rule for the agent. Never repeats a secret."""
    return screen.refusal(fields, sources, user=user, context=context)


def check(
    raw: object,
    shown: dict[int, Shown],
    messages: list[Message],
    targeted: set[int],
    added: set[str],
    screen: Screen,
    provenance: list[Message] | None = None,
    user: str | None = None,
) -> tuple[Operation | None, str | None]:
    """Turn one proposed operation into a bank operation with real ids, or say why it is refused.

    `targeted` and `added` carry state across the operations of one chunk (one op per target,
    no duplicate adds). `screen` says which content screens are on (config screen.*). A protocol
    without evidence quotes gives `provenance` instead: the messages an operation may come from; each
    operation rests on those that share its words (`provenance.rests_on`), so its origin, speaker and screening
    are its own, not the whole chunk's. `user` is whose own words may make a rule for the agent.
    Never raises: anything the writer can send is either an operation or a reason. A reason is
    stored with the rejection, so it is short, one line, and holds no secret the screen knows.
    """
    op, why = _check(raw, shown, messages, targeted, added, screen, provenance, user)
    if why is not None:
        why = screen.scrub(why).replace("\n", " ").replace("\r", " ")
        why = why if len(why) <= 300 else why[:297] + "..."
    return op, why


ARTICLE = {"add": "an add", "update": "an update", "supersede": "a supersede", "delete": "a delete"}
JSON_KIND = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number", bool: "true or false", type(None): "null"}


def _aliases(shown: dict) -> str:
    """The aliases shown, as "1–8" when they run without gaps."""
    aliases = sorted(shown)
    if len(aliases) > 2 and aliases == list(range(aliases[0], aliases[-1] + 1)):
        return f"{aliases[0]}–{aliases[-1]}"
    return ", ".join(map(str, aliases))


def _check(raw, shown, messages, targeted, added, screen, provenance=None, user=None):
    if not isinstance(raw, dict):
        return None, f"not an object: the writer sent {JSON_KIND.get(type(raw), 'something else')} where an operation belongs"
    op_name = raw.get("op")
    if op_name not in OPS:
        return None, f"unknown operation {op_name!r:.60}: expected add, update, supersede or delete"
    text = raw.get("text") if isinstance(raw.get("text"), str) else None
    reason = raw.get("reason") if isinstance(raw.get("reason"), str) else None
    evidence = raw.get("evidence") if isinstance(raw.get("evidence"), str) else ""
    target = None
    if op_name != "add":
        alias = raw.get("target")
        if not isinstance(alias, int) or isinstance(alias, bool) or alias not in shown:
            named = "none" if alias is None else f"{alias!r:.60}"
            if not shown:
                return None, f"{ARTICLE[op_name]} must name one of the memories shown, but none were shown; it named {named}"
            return None, f"{ARTICLE[op_name]} must name one of the memories shown ({_aliases(shown)}); it named {named}"
        if alias in targeted:
            return None, f"memory {alias} is already the target of another operation in this chunk"
        target = shown[alias]
    merged = raw.get("merges") if op_name == "supersede" and isinstance(raw.get("merges"), list) else []
    for alias in merged:
        if not isinstance(alias, int) or isinstance(alias, bool) or alias not in shown:
            return None, f"a fold must name memories that were shown ({_aliases(shown)}); it named {alias!r:.60}"
        if alias in targeted or alias == raw.get("target") or merged.count(alias) > 1:
            return None, f"memory {alias} is already the target of another operation in this chunk"
    if op_name != "delete":
        if not text or not text.strip():
            return None, f"{ARTICLE[op_name]} needs the text to store; it gave none"
        if len(text) > MAX_FACT_CHARS:
            return None, f"text of {len(text)} characters is longer than {MAX_FACT_CHARS}"
    if op_name in ("supersede", "delete") and not (reason and reason.strip()):
        return None, f"{ARTICLE[op_name]} needs a reason; it gave none"
    if not all(_encodable(f) for f in (text or "", reason or "", evidence)):
        return None, "text, reason or evidence is not valid Unicode (a lone surrogate)"
    if len(evidence) > MAX_EVIDENCE_GUARD:
        return None, f"evidence of {len(evidence)} characters is longer than {MAX_EVIDENCE_GUARD}"
    from hymem_cli.screen.provenance import rests_on, session_owner

    user = user if user is not None else session_owner(messages)  # no writer.user: the chunk's owner
    if provenance is not None:

        sources = rests_on(text or reason or "", provenance)
    else:
        sources = evidence_messages(evidence, messages)
    if why := screen_fields({"text": text, "reason": reason, "evidence": evidence}, screen, sources, user=user, context=messages):
        return None, why
    if not sources and provenance is None:
        shown_evidence = screen.redact(evidence)[0]  # the reason is stored: no secret in it
        return None, f"evidence {shown_evidence[:80]!r} does not occur in the chunk"
    times = sorted(m.timestamp for m in sources if m.timestamp)
    event_time = times[-1] if times else None
    if op_name in ("update", "supersede") and target.event_time and event_time and event_time < target.event_time:
        return None, f"evidence from {event_time} is older than memory {target.alias} ({target.event_time})"
    if op_name == "add":
        key = normalize(text)
        if key in added or any(normalize(s.text) == key for s in shown.values()):
            return None, "duplicate of a stored memory or of another add in this chunk"
        added.add(key)
    if op_name in ("update", "supersede") and normalize(text) == normalize(target.text):
        return None, f"{op_name} leaves memory {target.alias} unchanged"
    if target:
        targeted.add(target.alias)
    targeted.update(merged)
    speakers = {m.speaker for m in sources if m.speaker}
    return (
        Operation(
            op=op_name,
            target=target.memory_id if target else None,
            text=text.strip() if text else None,
            reason=reason.strip() if reason else None,
            evidence=evidence or None,
            source_ids=[m.id for m in sources],
            event_time=event_time,
            speaker=speakers.pop() if len(speakers) == 1 else None,
            merges=[shown[a].memory_id for a in merged],
            origin=screen.origin(evidence, text or reason, sources),
        ),
        None,
    )
