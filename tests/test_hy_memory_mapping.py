"""Hy-Memory's protocol mapping, rule by rule, on the processor itself (a scripted writer and a bank that only answers
`related`): which message decides the prompts' language, which profile fields become memories, the order the stored
memories are shown in, and what a stored version keeps of an extracted intention."""

from __future__ import annotations

import json

import pytest

from hymem_cli.domain import Chunk, Message
from hymem_cli.ingest.native import NativeWriterProcessor, _extracted, sdk_id
from hymem_cli.screen import Screen
from hymem_cli.writer import hy_memory
from hymem_cli.writer.scripted import ScriptedBackend

ZH = "我上个月搬到悉尼了，现在住在萨里山。"
EN = "Congratulations on the move! How is Sydney treating you?"


@pytest.fixture(scope="module")
def prompts():
    return hy_memory.load_prompts()


def _system(prompts, new: list[dict]) -> str:
    return hy_memory.extract_messages(prompts, new, [], None)[0]["content"]


def test_the_prompts_language_is_the_users_last_message(prompts):
    zh, en = prompts.texts["EXTRACT_SYSTEM_PROMPT_ZH"], prompts.texts["EXTRACT_SYSTEM_PROMPT"]
    assert _system(prompts, [{"role": "user", "content": ZH}, {"role": "assistant", "content": EN}]) == zh  # not the reply's
    assert _system(prompts, [{"role": "user", "content": "I moved to Sydney."}, {"role": "assistant", "content": ZH}]) == en
    assert _system(prompts, [{"role": "user", "content": "I moved to Sydney."}, {"role": "user", "content": ZH}]) == zh  # the last
    assert _system(prompts, [{"role": "user", "content": ZH}, {"role": "user", "content": "I moved to Sydney last month."}]) == en
    assert _system(prompts, [{"role": "assistant", "content": ZH}]) == zh  # no user message: everything said


@pytest.mark.parametrize("field, value, kept", [
    ("name", "Alex", "The user's name is Alex."), ("age", 34, "The user's age is 34."),
    ("height_m", 1.82, "The user's height m is 1.82."), ("age", 0, "The user's age is 0."),
    ("married", True, None), ("married", False, None), ("city", None, None), ("city", "", None), ("city", "   ", None),
    ("pets", ["cat"], None), ("home", {"city": "Sydney"}, None),
])
def test_a_profile_field_becomes_a_memory_only_when_it_is_text_or_a_number(field, value, kept):
    found = _extracted({"memory": [], "intentions": [], "basic_info": {field: value}})
    assert [m["content"] for m in found] == ([kept] if kept else [])
    if kept:
        assert found[0]["kind"] == "profile" and found[0]["tags"] == ["profile", field] and found[0]["owner"] == "user"


class Related:
    """A bank that answers `related` with fixed chain heads."""

    def __init__(self, hits: list[dict]):
        self.hits = hits

    def related(self, texts, limit):
        return list(self.hits)


SAID = "I moved to Sydney last month, and I plan to visit Perth before July."
CHAT = Chunk("chat", [Message("c1", "Alex", SAID, "2024-06-20T09:15:00Z")], owner="Alex")


def _process(replies: list, hits: list[dict]):
    backend = ScriptedBackend([json.dumps(r) if not isinstance(r, str) else r for r in replies])
    proposal = NativeWriterProcessor(backend, Screen()).process(Related(hits), CHAT)
    return proposal, backend.requests


def test_the_related_memories_are_shown_oldest_first(prompts):
    hits = [{"id": "m7", "text": "Alex lives in Fremont, Seattle.", "event_time": "2024-03-02T18:04:00Z"},
            {"id": "m2", "text": "Alex lives in Seattle.", "event_time": "2023-01-10T08:00:00Z"},
            {"id": "m9", "text": "Alex runs along Lake Union.", "event_time": "2024-05-01T07:00:00Z"}]
    moved = {"content": "The user moved to Sydney.", "tags": ["home"], "owner": "user"}
    extraction = {"memory": [moved], "intentions": [], "basic_info": {}}
    _, requests = _process([extraction, []], hits)
    shown = requests[1][1]["content"]
    places = [shown.index(sdk_id(i)) for i in ("m2", "m7", "m9")]
    assert places == sorted(places), "the stored memories are shown in the order they happened"


def test_an_intention_keeps_its_kind_tags_owner_and_deadline():
    perth = {"content": "The user plans to visit Perth.", "tags": ["travel"], "valid_until": "2024-07-01", "owner": "user"}
    extraction = {"memory": [], "basic_info": {}, "intentions": [perth]}
    proposal, requests = _process([extraction], [])
    assert len(requests) == 1  # nothing related is stored: everything extracted is added, with no second call
    [op] = proposal.operations
    assert (op.op, op.text, op.kind, op.tags, op.owner, op.valid_until) == (
        "add", "The user plans to visit Perth.", "intention", ["travel"], "user", "2024-07-01")
