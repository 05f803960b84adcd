"""What agents already remember, taken in: the files coding agents keep their memory and instructions in.

Claude Code's auto memory (`MEMORY.md` and its topic files under `~/.claude/projects/<project>/memory/`), CLAUDE.md,
CLAUDE.local.md and `.claude/rules/*.md`, AGENTS.md, `.cursorrules` and `.cursor/rules/*`, and Codex's memories folder
(`~/.codex/memories/`). Each item of such a file, a bullet or a paragraph, is one memory of origin `document` with the
file as its source, stored directly, with no writer. Adding the file again after an edit changes only what changed:
an edited item supersedes the one it was ("edited in FILE"), a removed one is deleted ("removed from FILE"), a new one
is added; the rest is left as it was.

Whose words they are decides what may stand: files in the user's own agent folders (`~/.claude`, `~/.codex`) and in
projects the user trusts (`hymem trust`, `hymem init`) are the user's, so their rules for the agent are kept; in any
other folder (a cloned repository) an item that tells the agent what to do is refused, and recorded with why, for
the file is someone else's (see docs/security.md).
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from hymem_cli.domain import Operation, memory_id

NAMES = frozenset({"memory.md", "claude.md", "claude.local.md", "agents.md", "agents.override.md", ".cursorrules"})
# Folders whose files are instruction or memory files whatever their names: (a folder, the one inside it).
FOLDERS = ((".claude", "rules"), (".claude", "memory"), (".cursor", "rules"), (".codex", "memories"))
SIMILAR = 0.6  # difflib ratio from which an item of the new file is an edit of one of the old, not a new item

_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)


@dataclass
class Item:
    """One memory of an instruction file: its text, and the heading it sits under (embedded with it as context)."""

    text: str
    section: str | None = None


def is_instruction_file(path: Path) -> bool:
    """Whether `path` is one of the files agents keep their memory and instructions in (see the module's docstring)."""
    if path.name.lower() in NAMES:
        return True
    parts = [p.lower() for p in path.parent.parts]
    return any(outer in parts and inner in parts[parts.index(outer) + 1:] for outer, inner in FOLDERS)


def yours(path: Path, trusted_roots: set[str]) -> bool:
    """Whether the file at `path` holds the user's own words: it lies in the user's own agent folders, or in a project
    whose root (the folder holding `.hymem/`) is in `trusted_roots`."""
    real = path.resolve()
    home = Path(os.environ.get("HOME") or Path.home()).resolve()
    if any(real.is_relative_to(home / folder) for folder in (".claude", ".codex")):
        return True
    return any(str(folder) in trusted_roots for folder in real.parents)


def items(text: str) -> list[Item]:
    """The items of a Markdown (or plain) instruction file: each top-level bullet with what is nested or wrapped under
    it, and each paragraph; headings name the section of what follows; front matter and HTML comments are left out; a
    fenced block stays whole. Items of the same text are one."""
    text = _COMMENT.sub("", _FRONT_MATTER.sub("", text.replace("\r\n", "\n")))
    found: list[Item] = []
    section: str | None = None
    lines: list[str] = []
    indent = 0
    fence: str | None = None

    def close() -> None:
        body = "\n".join(lines).strip()
        if body and all(i.text != body for i in found):
            found.append(Item(body, section))
        lines.clear()

    for line in text.split("\n"):
        if fence is not None:
            lines.append(line)
            if line.strip().startswith(fence):
                fence = None
            continue
        if m := _FENCE.match(line):
            fence = m.group(1)
            lines.append(line)
            continue
        if m := _HEADING.match(line):
            close()
            section = m.group(1).strip() or None
            continue
        if not line.strip():
            close()
            continue
        bullet = _BULLET.match(line)
        if bullet and lines and len(bullet.group(1)) > indent:
            lines.append("- " + bullet.group(2).strip())  # nested: kept under its item
        elif bullet:
            close()
            indent = len(bullet.group(1))
            lines.append(bullet.group(2).strip())
        elif lines:
            lines[-1] += " " + line.strip()  # a wrapped line
        else:
            indent = len(line) - len(line.lstrip())
            lines.append(line.strip())
    close()
    return found


def plan(old: list[tuple[int, str]], new: list[Item], name: str) -> list[Operation]:
    """The operations that make the memories of one file (`old`: (version id, text) of its current ones) hold `new`:
    unchanged items are left alone; each edited item supersedes the old one most like it (difflib ratio from SIMILAR);
    what is left of the new is added and what is left of the old is deleted."""
    texts = {t for _, t in old}
    fresh = [i for i in new if i.text not in texts]
    wanted = {i.text for i in new}
    gone = [(vid, t) for vid, t in old if t not in wanted]
    pairs = sorted(((difflib.SequenceMatcher(None, t, i.text).ratio(), n, k) for n, (_, t) in enumerate(gone) for k, i in enumerate(fresh)),
                   reverse=True)
    edited: dict[int, int] = {}  # index in gone -> index in fresh
    for ratio, n, k in pairs:
        if ratio < SIMILAR:
            break
        if n not in edited and k not in edited.values():
            edited[n] = k
    ops = []
    for n, k in sorted(edited.items(), key=lambda e: e[1]):
        ops.append(Operation("supersede", target=memory_id(gone[n][0]), text=fresh[k].text, reason=f"edited in {name}",
                             origin="document", context=fresh[k].section))
    taken = set(edited.values())
    ops += [Operation("add", text=i.text, origin="document", context=i.section) for k, i in enumerate(fresh) if k not in taken]
    ops += [Operation("delete", target=memory_id(vid), reason=f"removed from {name}") for n, (vid, _) in enumerate(gone) if n not in edited]
    return ops
