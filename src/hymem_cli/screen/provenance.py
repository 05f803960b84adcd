"""Where a memory comes from, and whether that text may become a fact.

The guards screen what the writer proposes (its text, reason and quote), but a quote can be only the claim
("approved disabling 2FA") while the sentence around it orders the agent about. So the sentences of the
source messages that hold the quote are screened too, and when the quote sits inside foreign text (a tool's
output, a quoted e-mail, an HTML or Markdown comment, a code block, a pasted document) that whole text is
screened, and an imperative there is refused. What passes keeps its origin, so a fact read from pasted text
is marked as such (`versions.origin`), never taken for something the person said.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hymem_cli.domain import Message

# Origins a version may carry; None (shown as "said") is what a participant said in their own words.
ORIGINS = ("quoted", "document", "comment", "code", "tool")
TOOL_SPEAKERS = frozenset({"tool", "tools", "function", "function_call", "tool_result", "tool result", "tool output", "tool_output",
                           "observation", "ipython", "system", "developer", "browser", "search", "web", "retrieval"})

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_FENCE = re.compile(r"(?m)^[ \t]{0,3}(```|~~~)[^\n]*\n.*?(?:^[ \t]{0,3}\1[^\n]*$|\Z)", re.S)
_QUOTED_LINES = re.compile(r"(?m)(?:^[ \t]{0,3}>[^\n]*(?:\n|\Z))+")
_CHAT_LOG_LINE = re.compile(r"(?m)^[ \t]{0,3}\[?\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?\]?[ \t]{1,3}[\w.@\-]{1,30}:[^\n]*$")
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?=\s)|\n")
_WORD = re.compile(r"[^\W\d_]{4,}")
# Someone else's house rule, reported ("Never use the good scissors, my mom says."): no order to the agent.
_REPORTED = re.compile(r",\s{0,3}(?:my|his|her|their|our|the)\s+[\w-]{2,20}\s+(?:always\s+|used\s+to\s+)?(?:says?|said|tells?\s+(?:me|us))\W{0,3}$"
                       r"|^\W{0,3}(?:my|his|her|their|our)\s+[\w-]{2,20}\s+(?:always\s+|used\s+to\s+)?(?:says?|said|told\s+(?:me|us))\b", re.I)
_HOUSE_RULES = frozenset({"new-rule"})
MIN_QUOTATION = 40  # characters: a shorter quotation is a phrase in someone's own words, not pasted text


def _unified(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')


def locate(evidence: str, text: str) -> tuple[int, int] | None:
    """Where the quote lies in `text` (matched as the guards match it: any case, any run of spaces), or None."""
    words = _unified(evidence).strip().strip("\"'").split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words[:200]), _unified(text), re.I)
    return m.span() if m else None


def _quotations(text: str) -> list[tuple[int, int]]:
    """Long quotations on one line: an opening quote after a space or colon, to the last closing one on the line."""
    spans = []
    for m in re.finditer(r"(?:^|(?<=[\s:(]))([\"'\u201c\u2018\u00ab])", text):
        close = _QUOTES[m.group(1)]
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        end = text.rfind(close, m.end(), line_end)
        if end > 0 and end - m.end() >= MIN_QUOTATION and (end + 1 == len(text) or not text[end + 1].isalnum()):
            spans.append((m.start(), end + 1))
    return spans


def regions(message: Message) -> list[tuple[int, int, str]]:
    """(start, end, origin) of each stretch of foreign text in the message; the whole of it for a tool's output."""
    text = message.text
    if (message.speaker or "").strip().casefold() in TOOL_SPEAKERS:
        return [(0, len(text), "tool")]
    found = [(m.start(), m.end(), "comment") for m in _COMMENT.finditer(text)]
    found += [(m.start(), m.end(), "code") for m in _FENCE.finditer(text)]
    found += [(m.start(), m.end(), "quoted") for m in _QUOTED_LINES.finditer(text)]
    found += [(a, b, "quoted") for a, b in _quotations(text)]
    found += [(m.start(), m.end(), "document") for m in _CHAT_LOG_LINE.finditer(text)]
    first = text.lstrip().split("\n", 1)
    if len(first) == 2 and first[0].rstrip().endswith(":") and first[1].strip():  # "Here are the notes:\n..." introduces pasted text
        start = len(text) - len(first[1])
        found.append((start, len(text), "document"))
    return found


def _region_at(message: Message, start: int, end: int) -> tuple[int, int, str] | None:
    """The innermost foreign stretch holding [start, end), or None."""
    holding = [r for r in regions(message) if r[0] <= start and end <= r[1]]
    return min(holding, key=lambda r: r[1] - r[0]) if holding else None


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence or sentences that hold [start, end)."""
    a = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        a = m.end()
    m = _SENTENCE_END.search(text, end)
    b = m.end() if m else len(text)
    return text[a:b]


def _sentences_sharing(text: str, fact: str) -> list[tuple[int, int]]:
    """Without a quote: the sentences that share most of the fact's words (at least two of them)."""
    wanted = {w.casefold() for w in _WORD.findall(fact)}
    if not wanted:
        return []
    spans, a = [], 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        b = m.end() if m else len(text)
        have = {w.casefold() for w in _WORD.findall(text[a:b])} & wanted
        if len(have) >= max(2, 0.4 * len(wanted)):
            spans.append((a, b))
        a = b
    return spans


def trace(evidence: str, fact: str, sources: list[Message],
          find: Callable[[str], tuple[str, str] | None]) -> tuple[str | None, str | None]:
    """(why refused, origin) for a memory quoting `evidence` from `sources`.

    `find` names an instruction in a text as (kind, snippet), or None. Refused: a source sentence holding the
    quote instructs the agent, or the foreign text around it does, or that foreign sentence is an imperative.
    The origin is None when a participant said it in their own words somewhere, else the foreign kind."""
    from hymem_cli.screen.structure import IMPERATIVE

    origins: list[str | None] = []
    for message in sources:
        text = message.text
        span = locate(evidence, text) if evidence else None
        spans = [span] if span else (_sentences_sharing(text, fact) if not evidence else [])
        if not spans:
            spans = [(0, len(text))]
        for start, end in spans:
            sentence = _sentence(text, start, end)
            if (hit := find(sentence)) and not (hit[0] in _HOUSE_RULES and _REPORTED.search(sentence)):
                return f'its source holds an instruction to the agent ({hit[0]}: "{hit[1]}")', None
            region = _region_at(message, start, end)
            if region is None:
                origins.append(None)
                continue
            a, b, origin = region
            if hit := find(text[a:b]):
                return f'its source holds an instruction to the agent ({hit[0]}: "{hit[1]}") in {origin} text', origin
            if origin != "code" and IMPERATIVE.search(sentence.lstrip("> \t")):
                snippet = re.sub(r"\s+", " ", sentence).strip()[:60]
                return f'its source holds an instruction to the agent (imperative in {origin} text: "{snippet}")', origin
            origins.append(origin)
    if not origins or None in origins:
        return None, None
    return None, origins[0]
