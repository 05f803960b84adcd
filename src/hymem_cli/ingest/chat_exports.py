"""The chat histories other products export, read as transcripts (`hymem import --from chatgpt|claude FILE`).

- ChatGPT (Settings → Data controls → Export): `conversations.json`, a JSON array of conversations, each a tree of
  messages (`mapping`: node id → {message, parent, children}); an edited prompt or a regenerated answer starts a new
  branch, and `current_node` is the leaf the user last saw. Only that branch is read, root first. Messages of the
  user and the assistant with text are kept; system and tool messages, hidden ones (custom instructions, context the
  product injected) and non-text parts (images, code runs, browsing) are not.
- Claude (Settings → Privacy → Export data): `conversations.json`, a JSON array of conversations, each with its
  `chat_messages` in order (`sender` human or assistant, the text in `content` blocks or `text`).

Each conversation is a session of its own (its id), so no chunk mixes two. The array is read one conversation at a
time (`stream_array`): an export of years of chats is never held in memory whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import BinaryIO

from hymem_cli._errors import InputError
from hymem_cli.domain import Message
from hymem_cli.ingest.timeutil import normalize_timestamp

PRODUCTS = ("chatgpt", "claude")
BLOCK = 1 << 20  # bytes read at a time
_SPEAKERS = {"user": "user", "human": "user", "assistant": "assistant"}


def read_export(stream: BinaryIO, product: str, name: str, block: int = BLOCK) -> Iterator[Message]:
    """The messages of every conversation of a `product` export, conversation by conversation."""
    reader = _chatgpt if product == "chatgpt" else _claude
    for n, conversation in enumerate(stream_array(stream, name, block), 1):
        if not isinstance(conversation, dict):
            raise InputError(f"{name}: conversation {n} is not a JSON object", hint=f"give the conversations.json of a {product} export")
        yield from reader(conversation, name, n)


def stream_array(stream: BinaryIO, name: str, block: int = BLOCK) -> Iterator[object]:
    """The elements of the JSON array in `stream`, decoded one at a time as the bytes arrive."""
    decoder = json.JSONDecoder()
    raw = b""
    text, at, started, done = "", 0, False, False
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if not started and at < len(text):
            if text[at] != "[":
                raise InputError(f"{name} is not a JSON array of conversations", hint="give the conversations.json file of the export")
            started, at = True, at + 1
            continue
        if started and at < len(text) and text[at] == "]":
            return
        if started and at < len(text):
            try:
                value, end = decoder.raw_decode(text, at)
            except json.JSONDecodeError as exc:
                if done and exc.pos >= len(text.rstrip()):
                    raise InputError(f"{name} ends before its array does", hint="the file is cut short: export it again") from None
                if done:
                    raise InputError(f"{name} is not valid JSON ({exc.msg})",
                                     hint="give the conversations.json file of the export, whole") from None
            else:
                yield value
                text, at = text[end:], 0
                continue
        if done:
            if not started:
                raise InputError(f"{name} is empty", hint="give the conversations.json file of the export")
            raise InputError(f"{name} ends before its array does", hint="the file is cut short: export it again")
        data = stream.read(block)
        if not data:
            done = True
            if raw:
                raise InputError(f"{name} is not UTF-8 text", hint="give the conversations.json file of the export")
            continue
        raw += data
        try:
            decoded, raw = raw.decode("utf-8"), b""
        except UnicodeDecodeError as exc:
            if exc.start < len(raw) - 3:  # not a character cut at the block's end
                raise InputError(f"{name} is not UTF-8 text", hint="give the conversations.json file of the export") from None
            decoded, raw = raw[: exc.start].decode("utf-8"), raw[exc.start:]
        if not started:
            decoded = decoded.lstrip("\ufeff")
        text = text[at:] + decoded
        at = 0


def _chatgpt(conversation: dict, name: str, n: int) -> Iterator[Message]:
    mapping = conversation.get("mapping")
    if not isinstance(mapping, dict):
        hint = "this looks like a Claude export: --from claude" if "chat_messages" in conversation else "give ChatGPT's conversations.json"
        raise InputError(f"{name}: conversation {n} has no message tree (mapping)", hint=hint)
    session = str(conversation.get("conversation_id") or conversation.get("id") or f"conversation {n}")
    for node_id in _active_branch(mapping, conversation.get("current_node")):
        message = (mapping.get(node_id) or {}).get("message")
        if not isinstance(message, dict):
            continue
        speaker = _SPEAKERS.get(str((message.get("author") or {}).get("role")))
        metadata = message.get("metadata") or {}
        content = message.get("content") or {}
        if speaker is None or metadata.get("is_visually_hidden_from_conversation") or not isinstance(content, dict):
            continue
        if content.get("content_type") not in ("text", "multimodal_text"):
            continue
        text = "\n".join(p for p in content.get("parts") or [] if isinstance(p, str)).strip()
        if text:
            yield Message(str(message.get("id") or node_id), speaker, text, normalize_timestamp(message.get("create_time")), session)


def _active_branch(mapping: dict, leaf: object) -> list[str]:
    """The node ids from the root to `leaf` (the branch the user last saw); without a known leaf, the branch that keeps
    to the last child at every turn (the latest edit or regeneration)."""
    if not isinstance(leaf, str) or leaf not in mapping:
        roots = [k for k, v in mapping.items() if not isinstance(v, dict) or v.get("parent") not in mapping]
        leaf, seen = (roots[0] if roots else None), set()
        while leaf is not None and leaf not in seen:
            seen.add(leaf)
            children = [c for c in (mapping.get(leaf) or {}).get("children") or [] if c in mapping]
            if not children:
                break
            leaf = children[-1]
    branch: list[str] = []
    while isinstance(leaf, str) and leaf in mapping and leaf not in branch:
        branch.append(leaf)
        node = mapping[leaf]
        leaf = node.get("parent") if isinstance(node, dict) else None
    return branch[::-1]


def _claude(conversation: dict, name: str, n: int) -> Iterator[Message]:
    messages = conversation.get("chat_messages")
    if not isinstance(messages, list):
        hint = "this looks like a ChatGPT export: --from chatgpt" if "mapping" in conversation else "give Claude's conversations.json"
        raise InputError(f"{name}: conversation {n} has no chat_messages", hint=hint)
    session = str(conversation.get("uuid") or f"conversation {n}")
    for i, message in enumerate(messages, 1):
        if not isinstance(message, dict):
            continue
        speaker = _SPEAKERS.get(str(message.get("sender")))
        blocks = message.get("content")
        if isinstance(blocks, list) and blocks:
            text = "\n".join(b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text" and isinstance(b["text"], str))
        else:
            text = message["text"] if isinstance(message.get("text"), str) else ""
        if speaker is None or not text.strip():
            continue
        when = normalize_timestamp(message.get("created_at"))
        yield Message(str(message.get("uuid") or f"{session}:{i}"), speaker, text.strip(), when, session)

