"""What Hy-Memory's writer is shown depends on the conversation alone, never on how the user ran hymem: a resumed,
repeated or grown ingest renders, byte for byte, the prompts one uninterrupted run renders for the same chunks."""

from __future__ import annotations

from pathlib import Path

import pytest

from hymem_cli._errors import WriterError
from hymem_cli.bank import open_bank
from hymem_cli.embed import HashEmbedder
from hymem_cli.ingest.native import NativeWriterProcessor
from hymem_cli.ingest.pipeline import ingest
from hymem_cli.ingest.sources import open_sources
from hymem_cli.screen import Screen
from hymem_cli.writer.scripted import ScriptedBackend

EMPTY = {"memory": [], "intentions": [], "basic_info": {}}  # nothing extracted: one call a chunk, nothing stored
TURNS = [
    "Assistant: Hello! How can I help today?",  # the owner is the first speaker who is not the assistant: Alex
    "Alex: I live in Seattle, in Fremont.",
    "Sam: Alex, you still owe me the ferry tickets.",
    "Assistant: Fremont is lovely in spring.",
    "Alex: My password is hunter2-Zebra-991, don't forget it.",
    "Assistant: I will not store passwords.",
    "Alex: I moved to Sydney last month.",
    "Sam: Sydney suits you.",
    "Alex: We adopted a cat called Miso.",
    "Assistant: Congratulations on Miso!",
    "Alex: I start at the harbour office on Monday.",
    "Sam: Good luck there.",
    "Alex: Miso hates the rain.",
]


def write(path: Path, turns: list[str]) -> Path:
    path.write_text("".join(t + "\n" for t in turns), encoding="utf-8")
    return path


def run(bank_path: Path, chat: Path, *, replies: list | None = None, again: bool = False) -> list[list[dict]]:
    """One `add --protocol hy-memory` of `chat`, a message a chunk; the prompts the writer received."""
    backend = ScriptedBackend(list(replies) if replies is not None else [EMPTY] * 50)
    bank = open_bank(bank_path)
    bank.bind_embedder(HashEmbedder())
    try:
        ingest(bank, open_sources([str(chat)]), NativeWriterProcessor(backend, Screen()), chunk_tokens=1, again=again)
    finally:
        bank.close()
    return backend.requests


@pytest.fixture
def whole(tmp_path) -> list[list[dict]]:
    """The prompts of one uninterrupted run over the whole conversation."""
    prompts = run(tmp_path / "whole.db", write(tmp_path / "chat.txt", TURNS))
    assert len(prompts) == len(TURNS)
    return prompts


def test_a_resumed_ingest_shows_the_writer_what_one_run_shows(tmp_path, whole):
    chat = write(tmp_path / "chat.txt", TURNS)
    bank = tmp_path / "resumed.db"
    with pytest.raises(WriterError):  # the server goes away after five chunks; those five are committed
        run(bank, chat, replies=[EMPTY] * 5 + [WriterError("connection refused")])
    resumed = run(bank, chat)
    assert resumed == whole[5:]


def test_a_repeated_ingest_shows_the_writer_what_the_first_showed(tmp_path, whole):
    chat = write(tmp_path / "chat.txt", TURNS)
    bank = tmp_path / "repeated.db"
    assert run(bank, chat) == whole
    assert run(bank, chat) == []  # every chunk stored: nothing to ask
    assert run(bank, chat, again=True) == whole


def test_a_grown_transcript_shows_the_writer_what_one_run_shows(tmp_path, whole):
    chat = tmp_path / "chat.txt"
    bank = tmp_path / "grown.db"
    assert run(bank, write(chat, TURNS[:7])) == whole[:7]
    assert run(bank, write(chat, TURNS)) == whole[7:]


def test_the_earlier_messages_are_the_conversations_last_ten_redacted(whole):
    last = whole[-1][1]["content"].split("## Last k Messages\n\n", 1)[1].split("\n\n---", 1)[0]
    lines = last.splitlines()
    assert len(lines) == 10
    assert lines[0] == "[Sam]: Alex, you still owe me the ferry tickets." and lines[-1] == "[Sam]: Good luck there."
    assert "Seattle" not in last  # eleven messages back: beyond the ten
    assert not any("hunter2-Zebra-991" in str(p) for p in whole)  # secrets never reach the writer, earlier turns included
