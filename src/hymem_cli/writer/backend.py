"""The seam every writer backend plugs into: chat messages and a JSON schema in, JSON text out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class WriterReply:
    text: str  # the model's raw answer (expected to be JSON matching the schema)
    prompt_tokens: int = 0  # tokens in the rendered prompt
    evaluated_tokens: int = 0  # prompt tokens actually evaluated (after KV prefix reuse)
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass
class WriterInfo:
    backend: str  # "llama", "openai", "scripted"
    model: str  # file name or served model name
    model_hash: str | None = None  # "b2:..." of the GGUF file head, None for remote models
    extra: dict = field(default_factory=dict)


class WriterBackend(Protocol):
    def info(self) -> WriterInfo: ...

    def complete(self, messages: list[dict], schema: dict, fence: bool = False) -> WriterReply:
        """Answer the chat `messages` ([{role, content}]) with JSON constrained by `schema` (inside a ```json fence with `fence`)."""
        ...

    def close(self) -> None: ...
