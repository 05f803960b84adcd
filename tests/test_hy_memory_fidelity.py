"""hymem sends Hy-Memory what the SDK itself would: the SDK's own Extractor and reconcile-prompt builder, driven
with a fake LLM that records its messages, against hymem's rendering of the same chunk and memories, byte for byte.

The SDK's modules are loaded one by one from the installed distribution (its package __init__ imports a database
stack that `pip install --no-deps hy-memory` leaves out). The reconcile call's two JSON blocks are built inside the
SDK's `MemoryReconciler.reconcile`, which needs a vector store; the test builds them as that method does (key order,
minute-precision dates, two-space indent) and compares the SDK's `build_reconcile_prompt` around them.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import types
from datetime import date, datetime
from importlib import metadata

import pytest

from hymem_cli.writer import hy_memory

SDK_MODULES = ["hy_memory.config", "hy_memory.utils.model_call_context", "hy_memory.core.workload", "hy_memory.agent.llm_provider",
               "hy_memory.utils.lang_detect", "hy_memory.agent.extractor", "hy_memory.agent.reconciler"]


@pytest.fixture(scope="module")
def sdk():
    dist = metadata.distribution("hy-memory")
    root = dist.locate_file("hy_memory")
    saved = {k: v for k, v in sys.modules.items() if k == "hy_memory" or k.startswith("hy_memory.")}
    for name in ("hy_memory", "hy_memory.agent", "hy_memory.utils", "hy_memory.core", "hy_memory.models", "hy_memory.pipelines"):
        package = types.ModuleType(name)
        package.__path__ = [str(root.joinpath(*name.split(".")[1:]))]
        sys.modules[name] = package
    loaded = {}
    try:
        for name in SDK_MODULES:
            spec = importlib.util.spec_from_file_location(name, dist.locate_file(name.replace(".", "/") + ".py"))
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            loaded[name.rsplit(".", 1)[1]] = module
        yield loaded
    finally:
        for name in [k for k in sys.modules if k == "hy_memory" or k.startswith("hy_memory.")]:
            del sys.modules[name]
        sys.modules.update(saved)


class Recorder:
    """A stand-in LLM provider: records what it is asked and answers nothing useful."""

    def __init__(self):
        self.calls: list[list[dict]] = []

    async def complete_messages(self, messages, **kwargs):
        self.calls.append([dict(m) for m in messages])
        raise RuntimeError("recorded")


def sdk_extract(sdk, new_messages: list[dict], history: str, memory_at: str | None, intentions: bool = True) -> list[dict]:
    recorder = Recorder()
    config = sdk["config"].LLMConfig(enable_intention=intentions, few_shot_enabled=False, structure_metadata_enabled=False)
    extractor = sdk["extractor"].Extractor(recorder, config)
    current = datetime.fromisoformat(memory_at).isoformat(timespec="seconds") if memory_at else ""
    asyncio.run(extractor.extract(json.dumps(new_messages, ensure_ascii=False), current_time=current, history_context=history))
    (messages,) = recorder.calls
    return messages


CHUNKS = {
    "english": [{"role": "user", "content": "I moved to Sydney last month for a job at Atlassian.", "name": "Alex"},
                {"role": "assistant", "content": "Congratulations! How is the new place?"}],
    "chinese": [{"role": "user", "content": "我上个月搬到了悉尼，在一家软件公司工作。"},
                {"role": "assistant", "content": "恭喜！新家怎么样？"}],
    "another person": [{"role": "user", "content": "Sam and I went climbing on Saturday.", "name": "Alex"},
                       {"role": "assistant", "content": "I'm a nurse in Berlin, by the way.", "name": "Sam"}],
}
LONG = "It depends on many things. " * 40  # an assistant turn longer than the 500-character cut
EARLIER = [("user", "I live in Seattle, in Fremont."), ("assistant", LONG), ("Sam", "Fremont is lovely."), ("user", "It is!")]


@pytest.mark.parametrize("chunk", list(CHUNKS))
@pytest.mark.parametrize("intentions", [True, False], ids=["intentions", "no-intentions"])
@pytest.mark.parametrize("earlier", [[], EARLIER], ids=["first-chunk", "with-history"])
def test_extraction_call_is_byte_identical(sdk, chunk, intentions, earlier):
    new = CHUNKS[chunk]
    memory_at = "2024-06-20T09:15:00Z"
    ours = hy_memory.extract_messages(hy_memory.load_prompts(), new, earlier, memory_at, intentions=intentions)
    theirs = sdk_extract(sdk, new, hy_memory.history_block(earlier), memory_at, intentions)
    assert ours == theirs


def test_history_lines_follow_the_sdk_rules():
    block = hy_memory.history_block(EARLIER).splitlines()
    assert block[0] == "[user]: I live in Seattle, in Fremont."
    assert block[1] == "[assistant]: " + LONG.strip()[:500] + "..."  # assistants (and other people) are cut, users never
    assert block[2] == "[Sam]: Fremont is lovely."
    many = [("user", f"message {i}") for i in range(14)]
    assert hy_memory.history_block(many).splitlines()[0] == "[user]: message 4"  # the last 5 turns: 10 messages


def _sdk_blocks(new: list[dict], memory_at: str | None, existing: list[dict]) -> tuple[str, str]:
    """The two JSON blocks as MemoryReconciler.reconcile builds them (new_memories_with_meta given; tags only when set)."""
    minute = lambda v: datetime.fromisoformat(v).strftime("%Y-%m-%d %H:%M") if v else None  # noqa: E731
    new_block = [{"content": m["content"], "owner": m.get("owner") or "user", "memory_at": minute(memory_at),
                  "tags": list(m.get("tags") or [])}
                 for m in new]
    existing_block = []
    for m in existing:
        item = {"memory_id": m["memory_id"], "content": m["content"], "owner": m.get("owner") or "user",
                "memory_at": minute(m.get("memory_at"))}
        if m.get("tags"):
            item["tags"] = m["tags"]
        existing_block.append(item)
    return json.dumps(new_block, ensure_ascii=False, indent=2), json.dumps(existing_block, ensure_ascii=False, indent=2)


RECONCILES = {
    "several versions, head only": (
        [{"content": "The user lives in Sydney.", "owner": "user", "tags": ["location"]}],
        [{"memory_id": "9b2f6c1a-0000-5000-8000-00000000000a", "content": "The user lives in Seattle, in Fremont.",
          "memory_at": "2024-03-02T18:04:00Z"},
         {"memory_id": "9b2f6c1a-0000-5000-8000-00000000000b", "content": "The user runs along Lake Union.", "memory_at": None,
          "tags": ["running"]}],
    ),
    "chinese": ([{"content": "用户搬到了悉尼。", "owner": "user", "tags": ["居住地"]}],
                [{"memory_id": "9b2f6c1a-0000-5000-8000-00000000000c", "content": "用户住在西雅图。",
                  "memory_at": "2024-03-02T18:04:00Z"}]),
}


@pytest.mark.parametrize("case", list(RECONCILES))
def test_reconciliation_call_is_byte_identical(sdk, case):
    new, existing = RECONCILES[case]
    memory_at, now = "2024-06-20T09:15:00Z", "2026-12-01 10:00"
    ours = hy_memory.reconcile_messages(hy_memory.load_prompts(), new, memory_at, existing, now=now)
    new_block, existing_block = _sdk_blocks(new, memory_at, existing)
    prompt = sdk["reconciler"].build_reconcile_prompt(new_memories=[m["content"] for m in new], new_memories_block=new_block,
                                                      existing_memories_block=existing_block, current_date=now)
    # LLMProvider.complete sends a single prompt as an empty system message and the prompt as the user's.
    assert ours == [{"role": "system", "content": ""}, {"role": "user", "content": prompt}]


def test_the_dates_are_the_sdk_dates():
    assert hy_memory.day("2024-06-20T09:15:00Z") == "2024-06-20" and hy_memory.day(None) == date.today().isoformat()
    assert hy_memory.minute("2024-06-20T09:15:00Z") == "2024-06-20 09:15" and hy_memory.minute(None) is None
