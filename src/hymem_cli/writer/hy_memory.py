"""Hy-Memory's own harness protocol: its prompts, read at run time from the installed `hy-memory` SDK, rendered
the way the SDK's writer renders them, and its fenced-JSON replies parsed.

Hy-Memory-30B-A3B was trained inside this harness, so hymem sends the model exactly what the SDK would:
an extraction call (a fixed system prompt; the last messages before the new ones, the new messages as a
JSON array, the memory date and today's date) and, when stored memories relate to what was extracted, a
reconciliation call (fixed instructions, the related memories' chain heads and the new memories as JSON).
The prompts are module constants of the SDK, read from its files with `ast` (importing the package would
pull chromadb, kuzu and more); this module holds no prompt text of its own. `pip install --no-deps hy-memory`
installs the files alone.

The SDK's language choice is reproduced for an SDK installed without its dependencies (no `langdetect`):
a CJK character among the first ten letters, or a CJK ratio of 0.3, means Chinese.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

from hymem_cli._errors import WriterError

PROTOCOL = "hy-memory"
DISTRIBUTION = "hy-memory"
INSTALL_HINT = "pip install --no-deps hy-memory (its prompt files are all hymem reads; --no-deps skips its database stack)"
# The constants hymem reads, by the SDK file that defines them.
PROMPT_FILES = {
    "hy_memory/agent/extractor.py": ("EXTRACT_SYSTEM_PROMPT", "EXTRACT_PROMPT", "EXTRACT_PROMPT_NO_INTENTION"),
    "hy_memory/agent/reconciler.py": ("RECONCILE_PROMPT",),
    "hy_memory/agent/prompts_zh.py": ("EXTRACT_SYSTEM_PROMPT_ZH", "EXTRACT_PROMPT_ZH", "EXTRACT_PROMPT_ZH_NO_INTENTION", "RECONCILE_PROMPT_ZH"),
}
HISTORY_MESSAGES = 10  # the SDK's default: the last 5 turns, 2 messages each
HISTORY_CUT = 500  # characters kept of an assistant's (or another person's) earlier message
KNOWN_ROLES = ("user", "assistant", "system", "tool")


@dataclass(frozen=True)
class Prompts:
    """The SDK's prompt constants, and which SDK they came from."""

    version: str
    texts: dict

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
    for rel, names in PROMPT_FILES.items():
        try:
            tree = ast.parse(dist.locate_file(rel).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError) as exc:
            raise WriterError(f"cannot read {rel} of hy-memory {dist.version}: {exc}", hint=INSTALL_HINT) from None
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id in names and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                texts[node.targets[0].id] = node.value.value
        if missing := [n for n in names if n not in texts]:
            raise WriterError(f"hy-memory {dist.version} has no {', '.join(missing)} in {rel}",
                              hint="this hymem reads the prompts of hy-memory 2.0; pip install --no-deps 'hy-memory>=2,<3'")
    return Prompts(dist.version, texts)


def names_hy_memory(info) -> bool:
    """Whether a backend's model is Hy-Memory, by what it tells: a GGUF's name or architecture (hy_v3), its file
    name, or a served model's name. `writer.protocol = auto` speaks the native protocol to it."""
    extra = info.extra or {}
    said = " ".join(str(x) for x in (info.model, extra.get("gguf_name"), extra.get("architecture")) if x).lower().replace("_", "-")
    return "hy-memory" in said or "hymemory" in said or extra.get("architecture") == "hy_v3"


# -- language --------------------------------------------------------------------------------------

_CJK = re.compile("[\u4e00-\u9fff\u3400-\u4dbf\u2e80-\u2eff\uf900-\ufaff\ufe30-\ufe4f\U00020000-\U0002a6df]")
_ROLE_PREFIX = re.compile(r"^\s*(?:\[[^\]\n]{1,32}\]|user|assistant|system|tool)\s*:\s*", re.IGNORECASE)


def is_chinese(text: str) -> bool:
    """The SDK's language test, without langdetect: CJK in the first ten letters, or a CJK ratio of 0.3 (0.1 when mixed)."""
    text = text.strip()
    if not text:
        return False
    leading = "".join(c for c in _ROLE_PREFIX.sub("", text, count=1) if c.isalnum())[:10]
    if _CJK.search(leading):
        return True
    if len(leading) >= 10 and leading.isascii():
        return False
    letters = re.sub(r"\s+", "", text)
    ratio = len(_CJK.findall(letters)) / len(letters) if letters else 0.0
    return ratio >= 0.3 or (0 < ratio and ratio > 0.1)


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
    zh = is_chinese(_detection_text(new_messages))
    p = prompts.texts
    system = p["EXTRACT_SYSTEM_PROMPT_ZH" if zh else "EXTRACT_SYSTEM_PROMPT"]
    if not intentions:
        system = without_intentions(system, zh)
    template = p[("EXTRACT_PROMPT_ZH" if zh else "EXTRACT_PROMPT") + ("" if intentions else "_NO_INTENTION")]
    user = template.format(content=content, current_date=today or date.today().isoformat(), memory_at=day(memory_at),
                           last_messages=history_block(earlier) or "(none)")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def without_intentions(system: str, zh: bool) -> str:
    """The system prompt with its two kinds of memory folded into one, as the SDK does when intentions are off."""
    if zh:
        one = ("# 记忆\n\n你只提取一类记忆：**memory（记忆）**。\n\n## memory（记忆）\n\n"
               "一切值得长期记住的信息都放这里——既包括用户本人的，也包括对话中其他具名真人的：\n\n"
               "* 偏好、观点、态度、价值观\n* 事件、行动、经历\n* 习惯、行为模式\n* 关系、稳定特质\n"
               "* 客观事实、决策、约束条件\n* 正在进行的活动\n"
               "* **未来计划 / 即将发生的安排**（若值得记住，直接写进 `memory`；不要单独开 intentions 桶）\n\n"
               "如果用户隐式表达偏好，也应提取。\n\n不要把\"用户是怎样的人\"和\"发生了什么\"分开。两者都放进 `memory`。\n\n---\n\n")
        system = re.sub(r"# 两类记忆.*?(?=\n# OWNER)", lambda m: one, system, count=1, flags=re.S)
        system = system.replace("每条 memory 和 intention 都必须带 `owner`", "每条 memory 都必须带 `owner`")
        system = system.replace("每条 memory 和 intention 都必须带", "每条 memory 都必须带")
        return system + ("\n\n---\n\n# INTENTION 关闭\n当前配置关闭了 intention 抽取。即使示例里出现 `intentions`，"
                         "也**不要**输出该字段；未来计划写入 `memory`。\n")
    one = ("# MEMORY\n\nYou extract one kind of memory: **memory**.\n\n## memory\n\n"
           "Everything durable and worth remembering about the user — and about any other\n"
           "named person in the conversation — goes here:\n\n"
           "* preferences, opinions, values, attitudes\n* events, actions, experiences\n* habits, behavioral patterns\n"
           "* relationships, traits\n* objective facts, decisions, constraints\n* ongoing activities\n"
           "* **future plans / upcoming actions** that are worth remembering\n"
           "  (put them in `memory`; do NOT invent a separate intentions bucket)\n\n"
           "Implicit preferences MUST be inferred when strongly suggested.\n\n"
           "Do NOT separate \"what kind of person the user is\" from \"what happened\".\nBoth go into `memory`.\n\n---\n\n")
    system = re.sub(r"# TWO KINDS OF MEMORY.*?(?=\n# OWNER\n)", lambda m: one, system, count=1, flags=re.S)
    system = system.replace("Every memory and intention MUST carry an `owner`", "Every memory MUST carry an `owner`")
    return system + ("\n\n---\n\n# INTENTION DISABLED\nIntention extraction is disabled. Even if few-shot examples show "
                     "`intentions`, do **not** emit that key; put future plans in `memory`.\n")


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
    zh = is_chinese("\n".join(m["content"] for m in new))
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
