"""`hymem add` with a writer, through the CLI: scripted, OpenAI-compatible over HTTP, and real llama.cpp."""

from __future__ import annotations

import json

import pytest
from conftest import one_error_line, snapshot
from fakes import FakeServer

CHAT = "Alex: I live in Seattle.\nSam: Nice, I love Seattle.\n"


def test_no_writer_stores_the_messages_and_says_how_to_get_one(cli, home):
    run = cli("add", "-", input=CHAT)
    assert run.exit_code == 0, run.stderr
    assert "2 message(s) stored" in run.stderr and "no writer is configured" in run.stderr and "hymem write" in run.stderr
    assert [h["layer"] for h in cli("search", "Seattle", "-f", "json").json()] == ["message", "message"]


def test_scripted_writer_from_the_cli_and_dry_run(cli, home, tmp_path):
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"operations": [
        {"op": "add", "text": "Alex lives in Seattle.", "evidence": "I live in Seattle"},
        {"op": "add", "text": "Alex lives on Mars.", "evidence": "I live on Mars"},
    ]}) + "\n")
    dry = cli("add", "--backend", "scripted", "--model", str(replies), "--dry-run", "-", input=CHAT)
    assert dry.exit_code == 0, dry.stderr
    assert dry.jsonl() == [{"op": "add", "text": "Alex lives in Seattle.", "evidence": "I live in Seattle",
                            "source_ids": ["LINE:1"], "speaker": "Alex"}]
    assert "rejected add: evidence 'I live on Mars' does not occur" in dry.stderr
    assert not (home / "bank.db").exists()  # a dry run writes nothing, not even an empty bank

    # The dry run's output is the apply format: applying it stores the same memory.
    applied = cli("apply", "-", input=dry.stdout)
    assert applied.exit_code == 0, applied.stderr
    assert cli("search", "where does Alex live", "-f", "jsonl").jsonl()[0]["text"] == "Alex lives in Seattle."


def test_openai_backend_over_http(cli, home, monkeypatch):
    server = FakeServer().start()
    try:
        answer = json.dumps({"operations": [{"op": "add", "text": "Alex lives in Seattle.", "evidence": "I live in Seattle"}]})
        server.behaviours = [("ok", answer, {"prompt_tokens": 300, "completion_tokens": 25})]
        monkeypatch.setenv("HYMEM_API_KEY", "test-key-123")
        run = cli("add", "--backend", "openai", "--base-url", server.base_url, "--protocol", "hymem", "-", input=CHAT)
        assert run.exit_code == 0, run.stderr
        body = server.requests[0]["body"]
        assert body["model"] == "hy-memory" and body["temperature"] == 0
        assert body["chat_template_kwargs"] == {"reasoning_effort": "no_think"}
        assert body["response_format"]["type"] == "json_schema"
        assert body["messages"][0]["role"] == "system" and "I live in Seattle" in body["messages"][1]["content"]
        assert server.requests[0]["headers"]["Authorization"] == "Bearer test-key-123"
        log = cli("log", "-f", "json").json()[0]
        assert log["writer"]["backend"] == "openai" and log["writer"]["model"] == "hy-memory"
        assert log["counts"]["prompt_tokens"] == 300 and log["counts"]["added"] == 1
    finally:
        server.stop()


def test_writer_server_down_loses_nothing_and_says_so(cli, home):
    """A writer that cannot be reached: the messages are stored, the chunk stays queued with the error `status` shows,
    `add` exits 6; once the server is back, `hymem write` writes it."""
    cli("add", "--raw", "-", input="Sam: hello there\n")
    server = FakeServer().start()
    url = server.base_url
    server.stop()  # nothing listens there now
    run = cli("add", "--backend", "openai", "--base-url", url, "-", input=CHAT)
    one_error_line(run, 6, "writer server unreachable", "stay queued", "hymem write")
    status = cli("status", "-f", "json").json()
    assert (status["queued_chunks"], status["failed_chunks"], status["messages"]) == (1, 1, 3)
    assert "unreachable" in status["failures"][0]["error"] and status["failures"][0]["attempts"] == 1
    assert cli("search", "Seattle", "-f", "json").json()[0]["pending"] is True

    server = FakeServer().start()
    try:
        fact = {"op": "add", "text": "Alex lives in Seattle.", "evidence": "I live in Seattle"}
        server.behaviours = [("ok", json.dumps({"operations": [fact]}), {"prompt_tokens": 10, "completion_tokens": 5})]
        done = cli("write", "--backend", "openai", "--base-url", server.base_url, "--protocol", "hymem")
        assert done.exit_code == 0, done.stderr
    finally:
        server.stop()
    status = cli("status", "-f", "json").json()
    assert (status["queued_chunks"], status["failed_chunks"], status["facts"]) == (0, 0, 1)
    # the written messages step back behind the fact
    assert [h["text"] for h in cli("search", "Seattle", "-f", "json").json()] == ["Alex lives in Seattle."]


@pytest.mark.llama
def test_real_llama_pipeline_survives_the_small_model(cli, home, monkeypatch, packaged_gguf):
    """SmolLM2-135M through llama.cpp: loads, renders its template, answers grammar-valid JSON; the
    guards take whatever it says, and nothing malformed lands in the bank."""
    monkeypatch.setenv("HYMEM_WRITER_MAX_TOKENS", "160")
    monkeypatch.setenv("HYMEM_WRITER_N_CTX", "4096")
    monkeypatch.setenv("HYMEM_WRITER_THREADS", "1")
    chat = "Alex: I live in Seattle and I work as a nurse.\nSam: Nice, I love Seattle.\n"
    run = cli("add", "--model", packaged_gguf, "-", input=chat)
    assert run.exit_code == 0, run.stderr
    entry = cli("log", "-f", "json").json()[0]
    writer = entry["writer"]
    assert writer["backend"] == "llama" and writer["settings"]["template"] == "gguf"
    assert writer["model_hash"].startswith("b2:") and writer["prompt_version"]
    c = entry["counts"]
    assert c["writer_calls"] == 1 and c["prompt_tokens"] > 0 and c["evaluated_tokens"] <= c["prompt_tokens"]
    assert c["proposed"] == c["applied"] + c["rejected"]
    for rejection in entry["rejections"]:
        assert rejection["reason"]  # every refusal says why
    # Whatever landed passed the guards: non-empty, bounded, evidence really in the chunk.
    for hit in cli("search", "Alex", "--all", "-f", "jsonl", "--limit", "50").jsonl():
        assert 0 < len(hit["text"]) <= 400
        assert hit["evidence"] and hit["evidence"].casefold().strip() in chat.casefold()
        assert set(hit["source_ids"]) <= {"LINE:1", "LINE:2"}
    # Re-running the same input changes nothing, without calling the model again.
    before = snapshot(home / "bank.db")
    again = cli("add", "--model", packaged_gguf, "-", input=chat)
    assert again.exit_code == 0 and snapshot(home / "bank.db") == before
