"""A transcript message: the unit every reader yields and every chunk is made of."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    id: str  # source message id, or "LINE:<n>" / "MSG:<n>" when the input has none
    speaker: str | None
    text: str
    timestamp: str | None = None  # ISO 8601, normalised to UTC ("...Z"), or None
    session: str | None = None
    line: int | None = None  # 1-based line in the source where the message starts
