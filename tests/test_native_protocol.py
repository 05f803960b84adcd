"""Hy-Memory's own protocol end to end with a scripted writer: extraction, reconciliation, guards, history, log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hymem_cli.ingest.native import default_user, role_of, sdk_id
from hymem_cli.writer import hy_memory


def write_replies(path: Path, *replies) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in replies), encoding="utf-8")
    return path


def extraction(*contents: str, profile: dict | None = None, intentions=()) -> dict:
    return {"memory": [{"content": c, "tags": ["life"], "owner": "user"} for c in contents],
            "intentions": [{"content": c, "tags": ["plan"], "valid_until": "2024-07-01", "owner": "user"} for c in intentions],
            "basic_info": profile or {}}


@pytest.fixture
def chats(tmp_path):
    first = tmp_path / "first.txt"
    first.write_text("Alex: I live in Seattle, in Fremont.\nAssistant: Fremont is lovely.\n")
    second = tmp_path / "second.txt"
    second.write_text("Alex: I moved to Sydney last month.\n")
    return first, second


def add(cli, replies: Path, chat: Path, *extra: str):
    return cli("add", "--backend", "scripted", "--model", str(replies), "--protocol", "hy-memory", *extra, str(chat))


def test_a_supersede_in_the_native_protocol_shows_in_history(cli, home, monkeypatch, tmp_path, chats):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    first, second = chats
    one = write_replies(tmp_path / "one.jsonl", extraction("The user lives in Seattle, in Fremont.", profile={"name": "Alex"}))
    done = add(cli, one, first)
    assert done.exit_code == 0 and "2 added" in done.stderr, done.stderr  # the memory, and the profile field
    log = cli("log", "-f", "json").json()[0]
    assert log["writer"]["protocol"] == "hy-memory" and log["writer"]["sdk"].startswith("hy-memory 2.")
    assert log["writer"]["prompts"].startswith("b2:") and log["counts"]["writer_calls"] == 1  # nothing related: no second call

    seattle = sdk_id("m3")  # m1 and m2 are the chat's messages
    two = write_replies(tmp_path / "two.jsonl", extraction("The user moved to Sydney."), [
        {"op": "SUPERSEDE", "memory_id": seattle, "content": "The user lives in Sydney.",
         "supersede_reason": "The user moved from Seattle to Sydney.",
         "owner": "user", "tags": ["location"]},
    ])
    done = add(cli, two, second)
    assert done.exit_code == 0 and "1 superseded" in done.stderr, done.stderr
    history = cli("history", "m3", "-f", "json").json()
    assert [v["status"] for v in history] == ["superseded", "current"]
    assert history[0]["retired_reason"] == "The user moved from Seattle to Sydney."
    assert history[1]["text"] == "The user lives in Sydney."
    assert history[1]["source_ids"] == ["LINE:1"] and history[1]["tags"] == ["location"]
    assert history[1]["owner"] == "user" and history[1]["source"] == str(second)
    assert cli("log", "-f", "json").json()[0]["counts"]["writer_calls"] == 2


def test_what_the_model_is_shown(cli, home, monkeypatch, tmp_path, chats):
    """The prompts are the SDK's, with speakers mapped to roles and stored memories shown under SDK-shaped ids."""
    from hymem_cli.ingest.native import NativeWriterProcessor
    from hymem_cli.screen import Screen
    from hymem_cli.writer.scripted import ScriptedBackend

    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    first, second = chats
    assert add(cli, write_replies(tmp_path / "one.jsonl", extraction("The user lives in Seattle.")), first).exit_code == 0

    from hymem_cli.bank import open_bank
    from hymem_cli.embed import HashEmbedder
    from hymem_cli.ingest.pipeline import ingest
    from hymem_cli.ingest.sources import open_sources

    bank = open_bank(home / "bank.db")
    bank.bind_embedder(HashEmbedder())
    backend = ScriptedBackend([extraction("The user moved to Sydney."), []])
    report = ingest(bank, open_sources([str(second)]), NativeWriterProcessor(backend, Screen()))
    bank.close()
    extract, reconcile = backend.requests
    prompts = hy_memory.load_prompts()
    assert extract[0]["content"] == prompts.texts["EXTRACT_SYSTEM_PROMPT"]
    assert '[{"role": "user", "content": "I moved to Sydney last month.", "name": "Alex"}]' in extract[1]["content"]
    assert reconcile[0] == {"role": "system", "content": ""}
    assert f'"memory_id": "{sdk_id("m3")}"' in reconcile[1]["content"] and '"m3"' not in reconcile[1]["content"]
    # An empty reconciliation keeps nothing of what was extracted, and says so.
    assert report.counts["applied"] == 0 and report.counts["rejected"] == 1


def test_bad_native_output_is_recorded_never_dropped(cli, home, monkeypatch, tmp_path, chats):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    first, second = chats
    assert add(cli, write_replies(tmp_path / "one.jsonl", extraction("The user lives in Seattle.", "The user runs every morning.")),
               first).exit_code == 0
    retire = {"op": "supersede", "target": "m4", "text": "The user runs every evening.", "reason": "changed routine"}
    assert cli("apply", "-", input=json.dumps(retire) + "\n").exit_code == 0  # m2 is retired: only chain heads are ever shown
    cases = [
        ("prose", ["Sure! The user moved to Sydney."], "is not the fenced JSON asked for"),
        ("truncated fence", ['```json\n{"memory": [{"content": "The user moved'], "is not the fenced JSON asked for"),
        ("an id not shown",
         [extraction("The user moved to Sydney."), [{"op": "SUPERSEDE", "memory_id": "0b7d8a1e-0000-4000-8000-000000000000",
                                                                       "content": "The user lives in Sydney.",
                                                     "supersede_reason": "moved"}]],
         "must name one of the memories shown"),
        ("a fold naming a retired version", [extraction("The user moved to Sydney."), [
            {"op": "SUPERSEDE", "memory_ids": [sdk_id("m4"), sdk_id("m3")], "content": "The user lives in Sydney.",
             "supersede_reason": "moved"}]],
         "a fold must name memories that were shown"),
        ("prose to the reconciliation", [extraction("The user moved to Sydney."), "I would supersede the Seattle memory."],
         "reconciliation is not the fenced JSON"),
    ]
    for name, replies, reason in cases:
        done = add(cli, write_replies(tmp_path / f"{name}.jsonl", *replies), second, "--again")
        assert done.exit_code == 0, (name, done.stderr)
        entry = cli("log", "-n", "1", "-f", "json").json()[0]
        assert entry["counts"]["applied"] == 0 and any(reason in r["reason"] for r in entry["rejections"]), (name, entry["rejections"])
    assert [v["status"] for v in cli("history", "m3", "-f", "json").json()] == ["current"]  # nothing reached the bank


def test_a_fold_retires_every_listed_head(cli, home, monkeypatch, tmp_path, chats):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    first, second = chats
    one = write_replies(tmp_path / "one.jsonl", extraction("The user lives in Seattle.", "The user lives in Fremont, Seattle."))
    assert add(cli, one, first).exit_code == 0
    fold = write_replies(tmp_path / "fold.jsonl", extraction("The user moved to Sydney."), [
        {"op": "SUPERSEDE", "memory_ids": [sdk_id("m3"), sdk_id("m4")], "content": "The user lives in Sydney.",
         "supersede_reason": "The user moved to Sydney.", "owner": "user", "tags": ["location"]}])
    done = add(cli, fold, second)
    assert done.exit_code == 0 and "1 superseded" in done.stderr, done.stderr
    hits = cli("search", "where does the user live", "-f", "jsonl").jsonl()
    assert [h["text"] for h in hits] == ["The user lives in Sydney."]  # one current state; both old heads retired
    first_chain = cli("history", "m3", "-f", "json").json()
    assert first_chain[0]["status"] == "deleted" and "folded into m6" in first_chain[0]["retired_reason"]
    assert cli("history", "m4", "-f", "json").json()[-1]["status"] == "current"  # the newest chain listed carries the fold on
    assert cli("doctor", "-f", "json").exit_code == 0  # the bank's invariants hold


def test_speakers_become_the_roles_the_harness_expects():
    from hymem_cli.domain import Message

    msgs = [Message("1", "Assistant", "Hi!"), Message("2", "Alex", "I live in Oslo."), Message("3", "Sam", "Me too.")]
    assert default_user(msgs) == "Alex"
    assert role_of("Alex", "Alex") == ("user", "Alex")
    assert role_of("Assistant", "Alex") == ("assistant", None)
    assert role_of("Sam", "Alex") == ("assistant", "Sam")  # another real person: assistant with a name, as the SDK marks them
    assert role_of(None, None) == ("user", None)
    assert role_of("user", "user") == ("user", None)


def test_auto_picks_the_native_protocol_for_a_hy_memory_model():
    from hymem_cli.ingest.processors import protocol_for
    from hymem_cli.writer.backend import WriterInfo

    assert protocol_for("auto", WriterInfo("llama", "Hy-Memory-30B-A3B-Q4_K_M.gguf")) == "hy-memory"
    assert protocol_for("auto", WriterInfo("llama", "model.gguf", extra={"architecture": "hy_v3"})) == "hy-memory"
    assert protocol_for("auto",
                        WriterInfo("llama", "x.gguf", extra={"gguf_name": "Hy Memory 30B A3B", "architecture": "qwen3moe"})) == "hymem"
    assert protocol_for("auto", WriterInfo("openai", "hy-memory")) == "hy-memory"
    assert protocol_for("auto", WriterInfo("llama", "SmolLM2-135M-Instruct.Q4_1.gguf")) == "hymem"
    assert protocol_for("hymem", WriterInfo("openai", "hy-memory")) == "hymem"


def test_a_missing_sdk_is_a_writer_error_with_the_install_line(cli, monkeypatch, tmp_path, chats):
    from importlib import metadata

    from conftest import one_error_line

    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    hy_memory.load_prompts.cache_clear()
    real = metadata.distribution

    def missing(name):
        if name == "hy-memory":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    try:
        one_error_line(add(cli, write_replies(tmp_path / "r.jsonl", extraction("x")), chats[0]), 6, "Hy-Memory SDK",
                       "pip install --no-deps hy-memory")
    finally:
        hy_memory.load_prompts.cache_clear()


@pytest.mark.llama
def test_a_hy_v3_model_speaks_the_native_protocol_without_a_flag(cli, home, monkeypatch, tmp_path, llama_cpp):
    """The synthetic hy_v3 GGUF through `hymem add --model`: recognised as Hy-Memory, loaded by llama.cpp, the template
    told no_think, decoding held to the fenced grammar, and the run recorded (a random model's answer parses or is a rejection)."""
    from hy_v3_gguf import build_hy_v3_gguf

    model = build_hy_v3_gguf(tmp_path / "Hy-Memory-30B-A3B-tiny.gguf")
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    monkeypatch.setenv("HYMEM_WRITER_N_CTX", "16384")  # the tiny vocabulary spends a token per byte of the SDK's 8 KB prompt
    monkeypatch.setenv("HYMEM_WRITER_MAX_TOKENS", "96")
    chat = tmp_path / "chat.txt"
    chat.write_text("Alex: I moved to Sydney last month.\n")
    done = cli("add", "--model", str(model), str(chat))
    assert done.exit_code == 0, done.stderr
    (entry,) = cli("log", "-f", "json").json()
    writer = entry["writer"]
    assert writer["protocol"] == "hy-memory" and writer["settings"]["architecture"] == "hy_v3"
    assert writer["settings"]["chat_template_kwargs"] == {"reasoning_effort": "no_think"} and writer["settings"]["template"] == "gguf"
    c = entry["counts"]
    assert c["writer_calls"] >= 1 and c["proposed"] == c["applied"] + c["rejected"]
    for rejection in entry["rejections"]:
        text = rejection["operation"].get("text") or ""
        assert text.startswith("```json\n") or rejection["operation"]["op"] != "invalid", text  # the grammar held the fence


def test_each_writer_call_asks_for_fenced_json_of_its_schema_and_its_tokens_are_counted(tmp_path, chats):
    from dataclasses import replace

    from hymem_cli.bank import open_bank
    from hymem_cli.embed import HashEmbedder
    from hymem_cli.ingest.native import NativeWriterProcessor
    from hymem_cli.ingest.pipeline import ingest
    from hymem_cli.ingest.sources import open_sources
    from hymem_cli.screen import Screen
    from hymem_cli.writer.scripted import ScriptedBackend

    class MeteredBackend(ScriptedBackend):
        def __init__(self, replies):
            super().__init__(replies)
            self.asked = []

        def complete(self, messages, schema, fence=False):
            self.asked.append((schema, fence))
            reply = super().complete(messages, schema, fence)
            return replace(reply, prompt_tokens=100, evaluated_tokens=40, completion_tokens=7)

    bank = open_bank(tmp_path / "bank.db")
    bank.bind_embedder(HashEmbedder())
    backend = MeteredBackend([extraction("The user lives in Seattle.")])
    try:
        report = ingest(bank, open_sources([str(chats[0])]), NativeWriterProcessor(backend, Screen()))
    finally:
        bank.close()
    assert backend.asked == [(hy_memory.EXTRACTION_SCHEMA, True)]  # nothing related is stored: no reconciliation
    counts = report.counts
    assert (counts["writer_calls"], counts["prompt_tokens"], counts["evaluated_tokens"], counts["completion_tokens"]) == (1, 100, 40, 7)
    assert 0 <= counts["writer_seconds"] < 1  # a scripted answer takes no time to speak of


def test_earlier_history_is_kept_per_transcript(tmp_path, chats):
    """A chunk is shown the turns before it in its own transcript; another file ingested in the same run starts with none."""
    from hymem_cli.bank import open_bank
    from hymem_cli.embed import HashEmbedder
    from hymem_cli.ingest.native import NativeWriterProcessor
    from hymem_cli.ingest.pipeline import ingest
    from hymem_cli.ingest.sources import open_sources
    from hymem_cli.screen import Screen
    from hymem_cli.writer.scripted import ScriptedBackend

    def last_messages(request: list[dict]) -> str:
        user = request[1]["content"]
        return user.split("## Last k Messages\n\n", 1)[1].split("\n\n---", 1)[0]

    first, second = chats
    bank = open_bank(tmp_path / "bank.db")
    bank.bind_embedder(HashEmbedder())
    backend = ScriptedBackend([extraction(), extraction(), extraction()])  # nothing extracted: one call a chunk, nothing stored
    try:
        report = ingest(bank, open_sources([str(first), str(second)]), NativeWriterProcessor(backend, Screen()), chunk_tokens=1)
    finally:
        bank.close()
    assert report.chunks == 3  # a message a chunk: two from the first file, one from the second
    seattle, fremont, sydney = backend.requests
    assert last_messages(seattle) == "(none)"
    assert '"content": "Fremont is lovely."' in fremont[1]["content"]
    assert last_messages(fremont) == "[Alex]: I live in Seattle, in Fremont."  # the same file's earlier turn
    assert '"content": "I moved to Sydney last month."' in sydney[1]["content"]
    assert last_messages(sydney) == "(none)"  # the first file's turns are not the second file's history
    assert "Seattle" not in sydney[1]["content"] and "Fremont" not in sydney[1]["content"]


def test_the_new_part_of_a_grown_transcript_is_not_shown_another_files_turns(tmp_path, chats):
    """Two transcripts grew since they were stored: each new part is processed under its own file, so the second
    is not shown the first one's new turns as its history."""
    from hymem_cli.bank import open_bank
    from hymem_cli.embed import HashEmbedder
    from hymem_cli.ingest.native import NativeWriterProcessor
    from hymem_cli.ingest.pipeline import ingest
    from hymem_cli.ingest.sources import open_sources
    from hymem_cli.screen import Screen
    from hymem_cli.writer.scripted import ScriptedBackend

    first, second = chats
    bank = open_bank(tmp_path / "bank.db")
    bank.bind_embedder(HashEmbedder())
    try:
        ingest(bank, open_sources([str(first), str(second)]), NativeWriterProcessor(ScriptedBackend([extraction()] * 2), Screen()))
        first.write_text(first.read_text() + "Alex: I adopted a cat named Miso.\n")
        second.write_text(second.read_text() + "Alex: I started surfing at Bondi.\n")
        backend = ScriptedBackend([extraction()] * 2)
        report = ingest(bank, open_sources([str(first), str(second)]), NativeWriterProcessor(backend, Screen()))
    finally:
        bank.close()
    assert report.skipped == 2 and len(backend.requests) == 2  # each stored beginning skipped, each new line processed
    cat, surfing = backend.requests
    assert "Miso" in cat[1]["content"] and "Bondi" in surfing[1]["content"] and "Miso" not in surfing[1]["content"]
