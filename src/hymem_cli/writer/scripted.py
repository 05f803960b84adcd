"""A writer backend that replays prepared answers: for tests and scripted demos, through the real seam."""

from __future__ import annotations

import json
from pathlib import Path

from hymem_cli._errors import WriterError
from hymem_cli.writer.backend import WriterInfo, WriterReply


class ScriptedBackend:
    """Answers each call with the next queued reply; an empty operation list once the queue runs dry."""

    def __init__(self, replies: list[object], name: str = "scripted"):
        # A reply is text, a JSON-able object, or a function of the prompt messages returning either.
        self.replies = list(replies)
        self.requests: list[list[dict]] = []  # every prompt received, for tests to inspect
        self.name = name

    @classmethod
    def from_file(cls, path: str) -> "ScriptedBackend":
        """One reply a line (JSON, or any text to simulate a model that answers garbage)."""
        p = Path(path)
        if not p.is_file():
            raise WriterError(f"scripted writer file {path} not found", hint="give a JSONL file of replies as writer.model")
        return cls([line for line in p.read_text(encoding="utf-8").splitlines() if line.strip()], name=p.name)

    def info(self) -> WriterInfo:
        return WriterInfo(backend="scripted", model=self.name)

    def complete(self, messages: list[dict], schema: dict, fence: bool = False) -> WriterReply:
        self.requests.append(messages)
        reply = self.replies.pop(0) if self.replies else ([] if fence and schema.get("type") == "array" else {"operations": []})
        if callable(reply):
            reply = reply(messages)
        if isinstance(reply, BaseException):
            raise reply
        text = reply if isinstance(reply, str) else json.dumps(reply)
        if fence and not isinstance(reply, str):  # a reply given as JSON comes back as the model would write it
            text = f"```json\n{text}\n```"
        return WriterReply(text=text, prompt_tokens=sum(len(m["content"]) // 4 for m in messages))

    def close(self) -> None:
        pass
