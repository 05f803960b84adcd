"""Replays a hand-written script of facts through the scripted writer backend, so they take the real write path.

A script is JSONL, one fact a line: {"id", "cites", "text"}, and for a change {"op": "supersede" or "update",
"target": the id of the earlier fact}. `cites` is the message the fact comes from: the reply quotes it as the
fact's evidence (hymem's writer protocol cites by one quote, so a fact cites one message). Each writer call
answers with the facts whose cited message is in the chunk it shows; a change names its target by the alias
under which the prompt shows the earlier fact, and becomes an add when the prompt does not show it (counted in
`unshown`), as a writer that cannot see the old fact would do.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from hymem_cli.ingest.guards import normalize
from hymem_cli.writer.scripted import ScriptedBackend

EVIDENCE_CHARS = 150  # a prefix of the cited message: unique within a chunk, and under the protocol's 200


def load_facts(path: str | Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


class FactScript:
    """The writer replies for one conversation's facts; `texts` maps message ids to their text."""

    def __init__(self, facts: list[dict], texts: dict[str, str]):
        self.facts = [f for f in facts if f["cites"] in texts]
        self.texts = texts
        self.written: set[str] = set()
        self.unshown: list[str] = []  # changes whose target the prompt did not show

    def backend(self) -> ScriptedBackend:
        return ScriptedBackend([self.reply] * (len(self.texts) + 1), name="facts")

    def reply(self, messages: list[dict]) -> dict:
        prompt = messages[-1]["content"]
        stored, _, conversation = prompt.partition("CONVERSATION:\n")
        shown = {m.group(2).strip(): int(m.group(1)) for m in re.finditer(r"^(\d+)\. (.*?)(?: \(as of [^)]*\))?$", stored, re.M)}
        by_id = {f["id"]: f for f in self.facts}
        seen = normalize(conversation)
        operations = []
        for fact in self.facts:
            if fact["id"] in self.written or normalize(self.texts[fact["cites"]]) not in seen:
                continue
            self.written.add(fact["id"])
            op = {"op": fact.get("op", "add"), "text": fact["text"], "evidence": self.texts[fact["cites"]][:EVIDENCE_CHARS]}
            if op["op"] != "add":
                alias = shown.get(by_id[fact["target"]]["text"])
                if alias is None:
                    self.unshown.append(fact["id"])
                    op["op"] = "add"
                else:
                    op["target"] = alias
                    op["reason"] = "changed in the conversation"
            operations.append(op)
        return {"operations": operations}
