"""Screening text for what must never become a memory: instructions to the agent, and secrets."""

from __future__ import annotations

import re

# Each pattern has a name, so a rejection can say exactly why text was withheld.
INSTRUCTION_PATTERNS = {
    "override": re.compile(r"\b(ignore|disregard|forget|override)\b[^.]{0,40}\b(instructions?|rules?|prompts?|guidelines?|context)\b", re.I),
    "system-claim": re.compile(r"(^|\s|\[)(system|developer)\s*(prompt|message|note|instruction)?\s*[:\]]", re.I),
    "new-rule": re.compile(r"\b(from now on|new (rule|instruction|directive)s?|always (respond|reply|answer|say|obey)|you (must|should|shall|will) (always|never|now))\b", re.I),
    "to-assistant": re.compile(r"\b(the |this )?(assistant|ai|model|agent|chatbot)\b[^.]{0,30}\b(must|should|shall|has to|is required to|will)\b", re.I),
    "exfiltrate": re.compile(r"\b(send|forward|upload|post|email)\b[^.]{0,40}\b(to|at)\b[^.]{0,40}(https?://|@|\bserver\b)", re.I),
}

SECRET_PATTERNS = {
    "api-key": re.compile(r"\b(sk|pk|rk)[-_](live[-_]|test[-_]|proj[-_])?[A-Za-z0-9_\-]{16,}\b"),
    "aws-key": re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    "github-token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),
    "slack-token": re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    "jwt": re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    "bearer": re.compile(r"\bbearer\s+[A-Za-z0-9._~+/-]{16,}", re.I),
    "private-key": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    "password": re.compile(r"\b(password|passwd|passcode|pwd|pin( code)?|secret|api[ _-]?key|token)\b\s*(is|was|=|:)\s*\S{3,}", re.I),
    "long-token": re.compile(r"\b(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Za-z])[A-Za-z0-9+/_-]{32,}\b"),
}

_CARD = re.compile(r"\b(?:\d[ -]?){13,19}\b")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every secret-looking span in `text`."""
    found = [(name, m.start(), m.end()) for name, rx in SECRET_PATTERNS.items() for m in rx.finditer(text)]
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if 13 <= len(digits) <= 19 and _luhn(digits):
            found.append(("card-number", m.start(), m.end()))
    return found


def secret_kind(text: str) -> str | None:
    hits = find_secrets(text)
    return hits[0][0] if hits else None


def instruction_kind(text: str) -> str | None:
    for name, rx in INSTRUCTION_PATTERNS.items():
        if rx.search(text):
            return name
    return None


def redact(text: str) -> tuple[str, list[str]]:
    """Replace secret spans with [REDACTED:kind]; returns the new text and the kinds replaced."""
    spans = sorted(find_secrets(text), key=lambda s: (s[1], -s[2]))
    out, kinds, pos = [], [], 0
    for kind, start, end in spans:
        if start < pos:
            continue  # overlaps a span already redacted
        out.append(text[pos:start])
        out.append(f"[REDACTED:{kind}]")
        kinds.append(kind)
        pos = end
    out.append(text[pos:])
    return "".join(out), kinds
