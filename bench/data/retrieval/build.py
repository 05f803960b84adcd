"""Build the retrieval development set from its readable sources: src/*.chat -> <name>.jsonl and questions.jsonl.

A .chat file is a conversation: `## <session> <ISO start time>` opens a session, then one `Speaker: text` line per
message (90 s apart); a `{tag}` at the end of a line names that message for the questions. Question lines read
`?? category | question | evidence tags | stale: tags | updated: tags` (the last two for knowledge updates only).
Run from anywhere: python bench/data/retrieval/build.py
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEP = timedelta(seconds=90)
# Conversations written for checking, never for tuning: their questions carry "split": "held-out".
HELD_OUT = {"wren", "dani-lu"}


def build(path: Path) -> tuple[list[dict], list[dict]]:
    name = path.stem
    messages, questions, tags = [], [], {}
    session, at, n = None, None, 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("# "):
            continue
        if line.startswith("## "):
            session, start = line[3:].split()
            at, n = datetime.fromisoformat(start.replace("Z", "+00:00")), 0
            continue
        if line.startswith("?? "):
            parts = [p.strip() for p in line[3:].split("|")]
            category, question, evidence = parts[:3]
            q = {"id": f"{name}-q{len(questions) + 1:02d}", "conversation": f"{name}.jsonl", "question": question,
                 "category": category, "evidence": evidence.split()}
            if name in HELD_OUT:
                q["split"] = "held-out"
            for extra in parts[3:]:
                key, _, value = extra.partition(":")
                q[key.strip()] = value.split()
            questions.append(q)
            continue
        speaker, _, text = line.partition(": ")
        tag = re.search(r"\s*\{([\w-]+)\}$", text)
        if tag:
            text = text[: tag.start()]
        n += 1
        mid = f"{name}-{session}-{n:02d}"
        if tag:
            if tag.group(1) in tags:
                raise SystemExit(f"{path}: tag {tag.group(1)} used twice")
            tags[tag.group(1)] = mid
        messages.append({"id": mid, "session": f"{name}-{session}", "speaker": speaker, "timestamp": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "text": text})
        at += STEP
    for q in questions:
        for key in ("evidence", "stale", "updated"):
            if key in q:
                try:
                    q[key] = [tags[t] for t in q[key]]
                except KeyError as exc:
                    raise SystemExit(f"{path}: question {q['id']} names unknown tag {exc}") from None
    return messages, questions


def main() -> None:
    questions = []
    for path in sorted((HERE / "src").glob("*.chat")):
        messages, asked = build(path)
        (HERE / f"{path.stem}.jsonl").write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages), encoding="utf-8")
        questions += asked
        print(f"{path.stem}: {len(messages)} messages, {len(asked)} questions")
    (HERE / "questions.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")


if __name__ == "__main__":
    main()
