"""What is embedded for a memory: its text, its date in front, and the turn it answers after it.

Only the vector sees this; the full-text index holds the memory's own words. A reply such as "Yes, 23A and
23B" means nothing alone, so its vector can also carry the previous turn of the conversation (for a writer's
fact: the source messages it came from), cut to `context` characters; the context is stored with every new
version either way, so that a bank can be embedded again with another recipe. The full-text index leaves it out: in
chats with long assistant answers the previous turn would flood BM25 with the answer's words
(docs/benchmarks.md measures both). The recipe applies when a memory is embedded, so changing it affects
new memories only.
"""

from __future__ import annotations

from dataclasses import dataclass

CONTEXT_KEPT = 1000  # characters of context stored with a version, so a later recipe may embed more of it


@dataclass(frozen=True)
class MemoryText:
    """The embedding recipe (config embed.context, embed.date)."""

    context: int = 0  # characters of the previous turn embedded after the text; 0: none (the default measured best)
    date: bool = False  # the event's date ("2024-05-18") in front of the text

    def embedded(self, text: str, event_time: str | None = None, context: str | None = None) -> str:
        parts = []
        if self.date and event_time:
            parts.append(event_time[:10] + ":")
        parts.append(text)
        if self.context > 0 and context:
            parts.append("(after: " + context[: self.context] + ")")
        return " ".join(parts)

    def to_json(self) -> dict:
        return {"context": self.context, "date": self.date}


def kept(context: str | None) -> str | None:
    """Context as stored with a version: at most CONTEXT_KEPT characters, None when empty."""
    return context[:CONTEXT_KEPT] if context else None
