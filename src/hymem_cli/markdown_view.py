"""The bank's current memories as Markdown (`hymem export --format markdown`): something a person reads, diffs in git, or
points an agent's instruction file at.

Grouped by kind (memory, profile, intention; raw messages have none), then by source, each memory on one line with its
id, who said it and its last change (how, in which revision, when, and why). A memory's text is folded onto its line, so
nothing stored can pose as a heading of this file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from hymem_cli.framing import NOTICE, own_words

NO_KIND = "message"  # raw ingest stores messages, which the writer never classified


def render(memories: Iterable[dict], *, bank: str, revision: int) -> str:
    groups: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    count = 0
    for memory in memories:
        groups[memory.get("kind") or NO_KIND][_one_line(memory.get("source") or "(no source)")].append(memory)
        count += 1
    out = ["# hymem memories", "",
           f"{count} current memories of `{bank}` as of revision {revision}. {NOTICE}", ""]
    for kind in sorted(groups, key=lambda k: (k != "profile", k)):
        out += [f"## {kind}", ""]
        for source in sorted(groups[kind]):
            out += [f"### {source}", ""]
            for memory in sorted(groups[kind][source], key=lambda m: int(m["id"][1:])):
                out.append(_line(memory))
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _line(memory: dict) -> str:
    speaker = memory.get("speaker") or "unknown"
    who = f"{speaker}, {memory.get('origin') or 'said'}" + (", own words" if own_words(memory) else "")
    when = (memory.get("time") or "")[:10]
    change = f"{memory.get('op')} in revision {memory.get('revision')}" + (f", {when}" if when else "")
    if memory.get("reason"):
        change += f": {_one_line(memory['reason'])}"
    return f"- **{memory['id']}** {_one_line(memory.get('text') or '')} ({who}; {change})"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
