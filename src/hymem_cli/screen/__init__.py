"""Screening text for what must never become a memory: instructions to the agent, and secrets.

Two screens, each switchable (config keys `screen.instructions` and `screen.secrets`, both on by
default), each hit named by a kind so every withheld piece of text can say why:

- Secrets (API keys, tokens, passwords, card numbers, IBANs, private keys) are *redacted* where
  text enters hymem: a raw message before it is stored, a chunk before the writer sees it and
  before its text is kept for provenance. An operation that would still store one is refused.
- Instructions addressed to the agent ("ignore previous instructions", a fake `SYSTEM:` turn, "note
  for the AI: from now on always ...") are refused as facts by the guards. The policy is about
  *form*: a memory is a fact about people in the third person ("Alex wants short answers."), never
  an imperative for the agent ("Always answer briefly."), a claim to come from the system, or text
  addressed to an AI. Raw mode stores messages verbatim, speaker first, so such text stays quoted
  speech there.

Every pattern runs in linear time on any input, however long or hostile: repeats are bounded or
anchored at the start of a run (a look-behind), never nested, and looser candidates are checked in
Python (Luhn, mod 97, how random a token looks) instead of by look-ahead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from hymem_cli.domain import Chunk, Message, Operation
from hymem_cli.screen.instructions import INSTRUCTION_PATTERNS, Hit, find_instruction, fold
from hymem_cli.screen.provenance import (
    ORIGINS,
    no_finder,
    own_agent_addressed,
    someone_elses_agent,
    speakers_own_agent,
    trace,
)
from hymem_cli.screen.secrets import SECRET_PATTERNS, Redactor, find_secrets

if TYPE_CHECKING:
    from hymem_cli.config import Settings

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class Screen:
    """Which screens are on (config keys screen.instructions and screen.secrets), and the secrets seen so far.

    One screen serves one command (or one conversation): the values it redacted are remembered only there.
    """

    instructions: bool = True
    secrets: bool = True
    redactor: Redactor = field(default_factory=Redactor, repr=False, compare=False)
    read_kinds: list[str] = field(default_factory=list, repr=False, compare=False)  # redacted from raw lines, not yet counted

    @classmethod
    def from_settings(cls, settings: Settings) -> Screen:
        return cls(instructions=settings.screen.instructions, secrets=settings.screen.secrets)

    def redact(self, text: str, seen: bool = False) -> tuple[str, list[str]]:
        return self.redactor.redact(text, seen) if self.secrets else (text, [])

    def switched_off(self) -> list[str]:
        """The screens turned off (config screen.secrets / screen.instructions = false)."""
        return [name for name in ("secrets", "instructions") if not getattr(self, name)]

    def label(self, command: str) -> str:
        """A revision's command, saying which screens were off while it ran: "add (unscreened: secrets)"."""
        off = self.switched_off()
        return f"{command} (unscreened: {', '.join(off)})" if off else command

    def screen_operation(self, op: Operation) -> tuple[Operation, list[str], str | None]:
        """An operation given whole (apply): its secrets redacted from every text field, the kinds redacted, and
        why its text must not be stored (an instruction to the agent), or None."""
        fields: dict[str, Any] = {}
        kinds: list[str] = []
        for name in ("text", "reason", "evidence", "speaker", "event_time"):
            value = getattr(op, name)
            if isinstance(value, str):
                fields[name], found = self.redact(value)
                kinds += found
        ids = [self.redact(s)[0] for s in op.source_ids]
        clean = replace(op, **fields, source_ids=ids)
        try:
            hit = self.instruction(clean.text) if clean.text else None
        except Exception as exc:  # noqa: BLE001 - fail closed
            return clean, kinds, f"the screens failed on it ({type(exc).__name__})"
        return clean, kinds, (f'would store an instruction to the agent ({hit.kind}: "{hit.snippet}")' if hit else None)

    def redact_line(self, line: str) -> str:
        """A raw transcript line with its secrets redacted, before any reader splits it; the kinds wait in
        `read_kinds` until the chunk that holds them is counted (`take_read_kinds`)."""
        clean, kinds = self.redact(line)
        self.read_kinds += kinds
        return clean

    def take_read_kinds(self) -> list[str]:
        kinds, self.read_kinds = self.read_kinds, []
        return kinds

    def secret_kind(self, text: str, seen: bool = True) -> str | None:
        return self.redactor.secret_kind(text, seen) if self.secrets else None

    def instruction(self, text: str, own: bool = False) -> Hit | None:
        """An instruction to the agent in `text`; `own`: the text is the user's own words (see `find_instruction`)."""
        return find_instruction(text, own) if self.instructions else None

    def refusal(self, fields: dict[str, str | None], sources: Sequence[Message] = (), *, user: str | None = None,
                context: list[Message] | None = None) -> str | None:
        """Why an operation whose `fields` (text, reason, evidence) come from `sources` must not be stored, or None.

        Secrets first; then the source sentences that hold the quote (or share the fact's words) and the foreign
        text around them (`provenance.trace`), which also says whose voice the fact is in; then instructions in the
        fields. Only the user's own words (`user`: writer.user or the session's owner) may make a rule for the
        agent; from anyone else, or from quoted, pasted or tool text, any directive is refused. `context`: the
        chunk's messages, so an instruction split over two messages is read whole.
        Fails closed: a screen that breaks refuses. Never repeats a secret."""
        try:
            for name, value in fields.items():
                if value and (kind := self.secret_kind(value)):
                    return f"would store a secret ({kind}) in its {name}"
            why: str | None = None
            own: tuple[str, ...] = ()
            if self.instructions and sources:
                why, _, own = trace(fields.get("evidence") or "", fields.get("text") or "", list(sources), self._finder(user), user, context)
            for name, value in fields.items():
                if not value or (hit := self.instruction(value)) is None or (own and self._users_rule(value, own, user)):
                    continue
                if someone_elses_agent(value, user) or (sources and not own and speakers_own_agent(value, user)):
                    continue  # another person's own agent, in anyone's words: no rule for the user's
                return f"would store an instruction to the agent ({hit.kind}: \"{hit.snippet}\") in its {name}"
            return why
        except Exception as exc:  # noqa: BLE001 - whatever broke, nothing unscreened is stored
            return f"the screens failed on it ({type(exc).__name__}); refused rather than stored unscreened"
        return None

    def origin(self, evidence: str | None, text: str | None, sources: list[Message]) -> str | None:
        """Where the fact sits in its sources: None for a participant's own words, else quoted, document, comment,
        code, tool, or unknown when no source holds it (see `provenance.ORIGINS`)."""
        try:
            return trace(evidence or "", text or "", list(sources), no_finder)[1]
        except Exception:  # noqa: BLE001 - unknown is not trusted
            return "unknown"

    def _users_rule(self, value: str, own: tuple[str, ...], user: str | None = None) -> bool:
        """Whether the rule in `value` may stand as the user's: allowed in their own words, and stated by one of the
        user's sentences it rests on (`own`), not borrowed from something else they said: one of those sentences holds
        `value` word for word and is allowed whole ("Could you always cc my work address ...?", quoted from "always cc"),
        or the rule is allowed in the user's words and one of those sentences states a rule itself, or speaks to the agent
        in another language ("Du darfst meine Zahnarzttermine verschieben": the English finders read no rule there)."""
        find = self._finder(user)
        if someone_elses_agent(value, user):
            return True  # another person's own agent, in the user's words: no rule for theirs
        words = fold(value).strip(" .!?").casefold()
        if words and any(words in fold(sentence).casefold() and find(sentence, True) is None for sentence in own):
            return True  # a piece of a sentence the user may say whole ("Sam told me to always cc legal when I send contracts out")
        from hymem_cli.screen.meaning import states_a_rule
        from hymem_cli.screen.structure import SPOKEN_TO_ABROAD

        return find(value, True) is None and any(self._find(sentence, False) or SPOKEN_TO_ABROAD.search(fold(sentence))
                                                 # a redaction's label ("[REDACTED:openai-key]") is no word of theirs
                                                 or states_a_rule(re.sub(r"\[REDACTED:[\w-]{1,40}\]", "[REDACTED]", sentence))
                                                 for sentence in own)

    def _finder(self, user: str | None) -> Callable[[str, bool], tuple[str, str] | None]:
        """`_find`, except that the user's own words about another person's own agent ("my colleague Bogumiła's AI
        assistant books her trains") set no rule for theirs, nor do another person's words about their own ("my AI
        assistant renews my swim pass"), and a note the user addresses to their own agent is read as the rule it carries."""
        def find(text: str, own: bool = False) -> tuple[str, str] | None:
            if someone_elses_agent(text, user) if own else speakers_own_agent(text, user):
                return None
            hit = self._find(text, own)
            if own and hit and hit[0] in ("ai-address", "agent-header") and (rest := own_agent_addressed(text, user)) is not None:
                return self._find(rest, True)  # "Note to my AI, from me: never accept ...": the user's rule, read as one
            return hit

        return find

    def _find(self, text: str, own: bool = False) -> tuple[str, str] | None:
        hit = find_instruction(text, own)
        return (hit.kind, hit.snippet) if hit else None

    def redact_messages(self, messages: list[Message], seen: bool = False) -> tuple[list[Message], list[str]]:
        """Messages with secrets redacted (unchanged ones are the same objects), and the kinds redacted; `seen`: values
        redacted earlier in this use too."""
        out, kinds = [], []
        for m in messages:
            clean, found = self.redact(m.text, seen)
            kinds += found
            out.append(replace(m, text=clean) if found else m)
        return out, kinds

    def redact_chunk(self, chunk: Chunk) -> Chunk:
        """The chunk with its messages' secrets redacted: what the writer sees and what the bank keeps as provenance."""
        return chunk if chunk.screened else replace(chunk, messages=self.redact_messages(chunk.messages)[0])

    def scrub(self, text: str) -> str:
        """Text safe to keep in a rejection record: no secret (when that screen is on), no lone surrogate
        (which SQLite cannot store). The record keeps what was refused, minus what must never be kept."""
        return _SURROGATE.sub("\ufffd", self.redact(text, seen=True)[0])

    def scrub_operation(self, op: Operation) -> Operation:
        """An Operation with every text field scrubbed (see `scrub`)."""
        fields: dict[str, Any] = {k: self.scrub(v) for k in ("op", "target", "text", "reason", "evidence", "event_time", "speaker")
                                  if isinstance(v := getattr(op, k), str)}
        return replace(op, **fields, source_ids=[self.scrub(s) for s in op.source_ids])


def kind_counts(kinds: list[str]) -> dict[str, int]:
    """{"redacted": n, "redacted.api-key": 1, ...}: redaction counters for a revision's counts."""
    counts = {"redacted": len(kinds)}
    for kind in kinds:
        counts[f"redacted.{kind}"] = counts.get(f"redacted.{kind}", 0) + 1
    return counts


__all__ = ["INSTRUCTION_PATTERNS", "ORIGINS", "SECRET_PATTERNS", "Hit", "Redactor", "Screen", "find_instruction", "find_secrets", "fold", "kind_counts"]
