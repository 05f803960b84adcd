"""Hy-Memory's own harness protocol: its prompts, read at run time from the installed `hy-memory` SDK, rendered
the way the SDK's writer renders them, and its fenced-JSON replies parsed.

Hy-Memory-30B-A3B was trained inside this harness, so hymem sends the model exactly what the SDK would:
an extraction call (a fixed system prompt; the last messages before the new ones, the new messages as a
JSON array, the memory date and today's date) and, when stored memories relate to what was extracted, a
reconciliation call (fixed instructions, the related memories' chain heads and the new memories as JSON).
The prompts are module constants of the SDK, read from its files with `ast` (importing the package would
pull chromadb, kuzu and more); this module holds no prompt text of its own. `pip install --no-deps hy-memory`
installs the files alone.

The SDK's language choice is reproduced, with its own patterns, for an SDK installed without its
dependencies (no `langdetect`): a CJK character among the first ten letters, or a CJK ratio above 0.1.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from typing import Callable

from hymem_cli._errors import WriterError
from hymem_cli.domain import EARLIER_MESSAGES

PROTOCOL = "hy-memory"
DISTRIBUTION = "hy-memory"
INSTALL_HINT = "pip install --no-deps hy-memory (its prompt files are all hymem reads; --no-deps skips its database stack)"
# The constants hymem reads, by the SDK file that defines them.
PROMPT_FILES = {
    "hy_memory/agent/extractor.py": ("EXTRACT_SYSTEM_PROMPT", "EXTRACT_PROMPT", "EXTRACT_PROMPT_NO_INTENTION"),
    "hy_memory/agent/reconciler.py": ("RECONCILE_PROMPT",),
    "hy_memory/agent/prompts_zh.py": ("EXTRACT_SYSTEM_PROMPT_ZH", "EXTRACT_PROMPT_ZH", "EXTRACT_PROMPT_ZH_NO_INTENTION", "RECONCILE_PROMPT_ZH"),
    "hy_memory/utils/lang_detect.py": ("_CJK_RE", "_LEADING_ROLE_PREFIX_RE"),
}
# The SDK's own function that folds the intentions bucket into memory when intentions are off: compiled alone
# from its source (it needs only `re`), so its replacement text is read from the SDK too.
FOLD_FILE, FOLD_FUNCTION = "hy_memory/agent/extractor.py", "_system_prompt_without_intention"
# The SDK's language test reads CJK characters and a leading role prefix with these two patterns.
CJK_PATTERN, ROLE_PREFIX_PATTERN = "_CJK_RE", "_LEADING_ROLE_PREFIX_RE"
HISTORY_MESSAGES = EARLIER_MESSAGES  # the SDK's default: the last 5 turns, 2 messages each
HISTORY_CUT = 500  # characters kept of an assistant's (or another person's) earlier message
KNOWN_ROLES = ("user", "assistant", "system", "tool")


@dataclass(frozen=True)
class Prompts:
    """The SDK's prompt constants, its rewrite of the system prompt without intentions, and which SDK they came from."""

    version: str
    texts: dict  # constant name -> text; FOLD_FUNCTION -> that function's source (so the digest covers it)
    without_intentions: Callable[..., str]

    @property
    def digest(self) -> str:
        """"b2:" + blake2b-128 of the constants as canonical JSON: recorded with every revision the protocol writes."""
        canonical = json.dumps(self.texts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return "b2:" + hashlib.blake2b(canonical.encode("utf-8"), digest_size=16).hexdigest()


@lru_cache(maxsize=1)
def load_prompts() -> Prompts:
    """The prompts of the installed SDK; a missing SDK or a missing constant is a WriterError (exit 6)."""
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise WriterError("the hy-memory protocol needs the Hy-Memory SDK's prompts, and it is not installed", hint=INSTALL_HINT) from None
    texts = {}
    fold = None
    for rel, names in PROMPT_FILES.items():
        try:
            source = dist.locate_file(rel).read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (OSError, SyntaxError, UnicodeDecodeError) as exc:
            raise WriterError(f"cannot read {rel} of hy-memory {dist.version}: {exc}", hint=INSTALL_HINT) from None
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id in names and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                texts[node.targets[0].id] = node.value.value
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                  and node.targets[0].id in names and isinstance(node.value, ast.Call) and node.value.args
                  and isinstance(node.value.args[0], ast.Constant) and isinstance(node.value.args[0].value, str)):
                texts[node.targets[0].id] = node.value.args[0].value  # a re.compile(...) pattern
            elif rel == FOLD_FILE and isinstance(node, ast.FunctionDef) and node.name == FOLD_FUNCTION:
                texts[FOLD_FUNCTION] = ast.get_source_segment(source, node)
                fold = _compiled(node, rel)
        if missing := [n for n in (*names, *((FOLD_FUNCTION,) if rel == FOLD_FILE else ())) if n not in texts]:
            raise WriterError(f"hy-memory {dist.version} has no {', '.join(missing)} in {rel}",
                              hint="this hymem reads the prompts of hy-memory 2.0; pip install --no-deps 'hy-memory>=2,<3'")
    return Prompts(dist.version, texts, fold)


def _compiled(node: ast.FunctionDef, rel: str) -> Callable[..., str]:
    """One SDK function, compiled on its own: it runs with `re` alone and sees nothing else of the SDK."""
    namespace: dict = {"__builtins__": {"__import__": __import__}}
    exec(compile(ast.Module(body=[node], type_ignores=[]), rel, "exec"), namespace)  # noqa: S102 - the SDK's text rewrite
    return namespace[node.name]


def names_hy_memory(info) -> bool:
    """Whether a backend's model is Hy-Memory, by what it tells: a GGUF's name or architecture (hy_v3), its file
    name, or a served model's name. `writer.protocol = auto` speaks the native protocol to it."""
    extra = info.extra or {}
    said = " ".join(str(x) for x in (info.model, extra.get("gguf_name"), extra.get("architecture")) if x).lower().replace("_", "-")
    return "hy-memory" in said or "hymemory" in said or extra.get("architecture") == "hy_v3"


# -- language --------------------------------------------------------------------------------------

def is_chinese(prompts: Prompts, text: str) -> bool:
    """The SDK's language test, without langdetect: CJK in the first ten letters, or a CJK ratio above 0.1."""
    text = text.strip()
    if not text:
        return False
    cjk = re.compile(prompts.texts[CJK_PATTERN])
    role_prefix = re.compile(prompts.texts[ROLE_PREFIX_PATTERN], re.IGNORECASE)
    leading = "".join(c for c in role_prefix.sub("", text, count=1) if c.isalnum())[:10]
    if cjk.search(leading):
        return True
    if len(leading) >= 10 and leading.isascii():
        return False
    letters = re.sub(r"\s+", "", text)
    return bool(letters) and len(cjk.findall(letters)) / len(letters) > 0.1


def _detection_text(new_messages: list[dict]) -> str:
    """What the SDK detects the language of: the last user message, else everything said."""
    said = [m["content"] for m in new_messages if m["role"] == "user" and m["content"].strip()]
    return said[-1] if said else "\n".join(m["content"] for m in new_messages)


# -- the extraction call ---------------------------------------------------------------------------


def history_block(earlier: list[tuple[str, str]]) -> str:
    """The last messages before the new ones, as "[label]: text" lines: a user's in full, others cut at 500 characters."""
    lines = []
    for label, body in earlier[-HISTORY_MESSAGES:]:
        body = body.strip()
        if (label == "assistant" or label not in KNOWN_ROLES) and len(body) > HISTORY_CUT:
            body = body[:HISTORY_CUT] + "..."
        lines.append(f"[{label}]: {body}")
    return "\n".join(lines)


def day(timestamp: str | None) -> str:
    """An ISO timestamp at day precision (today when there is none), as the SDK dates a memory."""
    if timestamp:
        try:
            return datetime.fromisoformat(timestamp).strftime("%Y-%m-%d")
        except ValueError:
            pass
    return date.today().isoformat()


def extract_messages(prompts: Prompts, new_messages: list[dict], earlier: list[tuple[str, str]], memory_at: str | None,
                     *, intentions: bool = True, today: str | None = None) -> list[dict]:
    """The extraction call: system and user messages, byte for byte what the SDK's Extractor sends."""
    content = json.dumps(new_messages, ensure_ascii=False)
    zh = is_chinese(prompts, _detection_text(new_messages))
    p = prompts.texts
    system = p["EXTRACT_SYSTEM_PROMPT_ZH" if zh else "EXTRACT_SYSTEM_PROMPT"]
    if not intentions:
        system = prompts.without_intentions(system, lang="zh" if zh else "en")
    template = p[("EXTRACT_PROMPT_ZH" if zh else "EXTRACT_PROMPT") + ("" if intentions else "_NO_INTENTION")]
    user = template.format(content=content, current_date=today or date.today().isoformat(), memory_at=day(memory_at),
                           last_messages=history_block(earlier) or "(none)")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# -- the reconciliation call -----------------------------------------------------------------------


def minute(timestamp: str | None) -> str | None:
    """An ISO timestamp at minute precision, as the SDK shows `memory_at` to the reconciler."""
    if not timestamp:
        return None
    try:
        return datetime.fromisoformat(timestamp).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return timestamp


def reconcile_messages(prompts: Prompts, new: list[dict], memory_at: str | None, existing: list[dict], *, now: str | None = None) -> list[dict]:
    """The reconciliation call, byte for byte what the SDK's reconciler sends.

    `new`: {content, owner, tags} per extracted memory; `existing`: {memory_id, content, owner, memory_at, tags}
    per related chain head, already in time order (`memory_at` as an ISO timestamp or None).
    """
    new_block = [{"content": m["content"], "owner": m.get("owner") or "user", "memory_at": minute(memory_at), "tags": list(m.get("tags") or [])}
                 for m in new]
    existing_block = []
    for m in existing:
        item = {"memory_id": m["memory_id"], "content": m["content"], "owner": m.get("owner") or "user", "memory_at": minute(m.get("memory_at"))}
        if m.get("tags"):
            item["tags"] = list(m["tags"])
        existing_block.append(item)
    zh = is_chinese(prompts, "\n".join(m["content"] for m in new))
    prompt = prompts.texts["RECONCILE_PROMPT_ZH" if zh else "RECONCILE_PROMPT"].format(
        current_date=now or datetime.now().strftime("%Y-%m-%d %H:%M"),
        new_memories=json.dumps(new_block, ensure_ascii=False, indent=2),
        existing_memories=json.dumps(existing_block, ensure_ascii=False, indent=2),
        few_shot_section="",
    )
    return [{"role": "system", "content": ""}, {"role": "user", "content": prompt}]


# -- replies ----------------------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)(?:\n?```|$)", re.S)


def fenced_json(text: str):
    """The JSON inside the reply's ```json fence (or the bare reply when it has none); None when it does not parse."""
    text = (text or "").strip()
    match = _FENCE.search(text)
    body = match.group(1) if match else text
    try:
        return json.loads(body)
    except (json.JSONDecodeError, RecursionError):
        return None


# What decoding is held to: the trained reply shapes, inside their fence; bounded where the prompt says so
# (1-3 tags), so a small model cannot run on inside the grammar until max_tokens.
TAGS = {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 3}
EXTRACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "memory": {"type": "array", "items": {"type": "object", "properties": {
            "content": {"type": "string", "maxLength": 400}, "tags": TAGS, "owner": {"type": "string", "enum": ["user", "agent"]},
        }, "required": ["content", "tags", "owner"]}},
        "intentions": {"type": "array", "items": {"type": "object", "properties": {
            "content": {"type": "string", "maxLength": 400}, "tags": TAGS,
            "valid_until": {"type": ["string", "null"]}, "owner": {"type": "string", "enum": ["user", "agent"]},
        }, "required": ["content", "tags", "valid_until", "owner"]}},
        "basic_info": {"type": "object", "additionalProperties": {"type": ["string", "number", "null"], "maxLength": 200}},
    },
    "required": ["memory", "intentions", "basic_info"],
}
RECONCILE_SCHEMA = {
    "type": "array",
    "items": {"type": "object", "properties": {
        "op": {"type": "string", "enum": ["ADD", "UPDATE", "SUPERSEDE", "DELETE"]},
        "memory_id": {"type": "string"},
        "memory_ids": {"type": "array", "items": {"type": "string"}},
        "content": {"type": "string", "maxLength": 400},
        "supersede_reason": {"type": "string", "maxLength": 400},
        "owner": {"type": "string", "enum": ["user", "agent"]},
        "tags": TAGS,
    }, "required": ["op"]},
}
