"""Coding-agent session logs as input: Claude Code and Codex CLI JSONL, read, detected, ingested, and grown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import snapshot

from hymem_cli.bank import open_bank
from hymem_cli.embed import get_embedder
from hymem_cli.ingest.pipeline import ingest
from hymem_cli.ingest.processors import RawProcessor, WriterProcessor
from hymem_cli.ingest.readers import detect_format, read_messages
from hymem_cli.ingest.sources import open_sources
from hymem_cli.screen import Screen
from hymem_cli.writer.scripted import ScriptedBackend

DATA = Path(__file__).parent / "data"
CLAUDE = DATA / "claude-code-session.jsonl"
CODEX = DATA / "codex-rollout.jsonl"
# Words that occur only in tool output, tool calls, thinking, injected context or a subagent's turn.
NOT_SAID = ("Jordan", "Lisbon", "MySQL", "cat README", "unittest.", "AGENTS.md", "environment_context", "routes.py has been",
            "sandboxing", "Checking the migration", "/model", "Caveat", "system-reminder", "opened the file")


def messages(path: Path) -> list:
    return list(read_messages(path.read_text().splitlines(keepends=True), name=str(path)))


def test_claude_code_session_keeps_what_user_and_assistant_said():
    got = messages(CLAUDE)
    assert [(m.speaker, m.text) for m in got] == [
        ("user", "We deploy the shop API on Fly.io, not Heroku. Please add a health check endpoint at /healthz."),
        ("assistant", "I'll add the endpoint. Let me look at the routes first."),
        ("assistant", 'Added GET /healthz, which answers 200 with {"status": "ok"}.'),
        ("user", "Thanks. I'm Alex, by the way: I prefer pytest over unittest in this repo."),
        ("assistant", "Noted, Alex: new tests will use pytest."),
    ]
    first = got[0]
    assert first.id == "a0000000-0000-4000-8000-000000000001" and first.line == 2
    assert first.timestamp == "2025-06-02T09:14:03Z" and first.session == "7c1f2e9a-4b3d-4e8f-9a21-5d6c7b8e9f01"
    assert not [m for m in got for word in NOT_SAID if word in m.text]


def test_codex_rollout_keeps_what_user_and_assistant_said():
    got = messages(CODEX)
    assert [(m.speaker, m.text) for m in got] == [
        ("user", "Our staging database is Postgres 16 on port 5433. The migration test fails, can you fix it?"),
        ("assistant", "The test connected to port 5432; I changed the staging settings to port 5433 and it passes now."),
        ("user", "Thanks. Sam left the team, so I'm the only maintainer now."),
        ("assistant", "Understood: you are the sole maintainer."),
    ]
    assert got[0].id == "LINE:4" and got[0].timestamp == "2025-07-14T16:02:30Z"
    assert {m.session for m in got} == {"0197a3c2-5e4f-7d10-8b2a-3c4d5e6f7a8b"}
    assert not [m for m in got for word in NOT_SAID if word in m.text]


@pytest.mark.parametrize("first, expected", [
    ('{"type":"summary","summary":"Shop API","leafUuid":"a0000000-0000-4000-8000-000000000008"}', "claude-code"),
    ('{"type":"file-history-snapshot","messageId":"x","snapshot":{},"isSnapshotUpdate":false}', "claude-code"),
    ('{"type":"queue-operation","operation":"enqueue","timestamp":"2025-06-02T09:14:03Z","sessionId":"s","content":"hi"}', "claude-code"),
    ('{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"},"uuid":"u"}', "claude-code"),
    ('{"timestamp":"2025-07-14T16:02:11Z","type":"session_meta","payload":{"id":"x"}}', "codex"),
    ('{"timestamp":"2025-07-14T16:02:11Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}', "codex"),
    ('{"role": "user", "content": "hi", "session_id": "s"}', "jsonl"),
    ('{"type": "message", "role": "user", "content": "hi"}', "jsonl"),
])
def test_session_logs_are_detected_from_their_first_line(first, expected):
    assert detect_format([first + "\n"]) == expected


def test_each_session_log_line_is_checked(tmp_path):
    from hymem_cli._errors import InputError

    bad = tmp_path / "s.jsonl"
    bad.write_text(CLAUDE.read_text() + "[1, 2]\n")
    with pytest.raises(InputError, match="line 16: expected a JSON object"):
        messages(bad)


def test_reminders_are_dropped_in_linear_time():
    from hymem_cli.ingest.readers import _drop_reminders

    assert _drop_reminders("a<system-reminder>x</system-reminder>b<system-reminder>y") == "ab"
    hostile = "<system-reminder>" * 20000
    assert _drop_reminders(hostile) == ""


@pytest.fixture
def bank(tmp_path):
    b = open_bank(tmp_path / "bank.db")
    b.bind_embedder(get_embedder("hash"))
    yield b
    b.close()


def raw_add(bank, path: Path, chunk_tokens: int = 768):
    return ingest(bank, open_sources([str(path)]), RawProcessor(Screen()), chunk_tokens=chunk_tokens)


def stored_ids(bank) -> list[str]:
    return [i for (ids,) in bank.conn.execute("SELECT source_ids FROM versions ORDER BY id") for i in json.loads(ids)]


@pytest.mark.parametrize("log", [CLAUDE, CODEX], ids=["claude-code", "codex"])
@pytest.mark.parametrize("budget", [16, 60, 768])
def test_a_growing_session_log_stores_each_message_once(bank, tmp_path, log, budget):
    """The log is added after every line appended: chunks already stored are never stored again, whatever the budget."""
    lines = log.read_text().splitlines(keepends=True)
    growing = tmp_path / log.name
    growing.write_text("")
    for line in lines:
        with growing.open("a") as f:
            f.write(line)
        if any(m for m in messages(growing)):
            raw_add(bank, growing, budget)
    expected = [m.id for m in messages(log)]
    assert stored_ids(bank) == expected  # each message once, in order
    again = raw_add(bank, growing, budget)
    assert again.revision is None and again.stored == 0


def test_a_grown_chunk_skips_its_stored_beginning(bank, tmp_path):
    lines = CLAUDE.read_text().splitlines(keepends=True)
    log = tmp_path / "s.jsonl"
    log.write_text("".join(lines[:4]))
    first = raw_add(bank, log)
    assert (first.stored, first.skipped) == (1, 0)
    log.write_text("".join(lines[:12]))
    grown = raw_add(bank, log)
    assert (grown.chunks, grown.skipped, grown.stored) == (1, 1, 1)
    assert grown.stored_by == {first.revision: 1}
    log.write_text("".join(lines))
    third = raw_add(bank, log)  # two stored beginnings, then one new message
    assert (third.skipped, third.stored) == (2, 1)
    assert stored_ids(bank) == [m.id for m in messages(CLAUDE)]


def test_the_writer_sees_only_what_is_new_in_a_grown_session(bank, tmp_path):
    lines = CODEX.read_text().splitlines(keepends=True)
    log = tmp_path / "rollout.jsonl"
    log.write_text("".join(lines[:13]))
    backend = ScriptedBackend([{"operations": [
        {"op": "add", "text": "The staging database is Postgres 16 on port 5433.", "evidence": "Postgres 16 on port 5433"}]}])
    ingest(bank, open_sources([str(log)]), WriterProcessor(backend, Screen()))
    log.write_text("".join(lines))
    ingest(bank, open_sources([str(log)]), WriterProcessor(backend, Screen()))
    assert len(backend.requests) == 2
    second = backend.requests[1][-1]["content"]
    assert "Sam left the team" in second and "port 5433. The migration" not in second


@pytest.mark.parametrize("log, fact, evidence, stored_from", [
    (CLAUDE, "Alex prefers pytest over unittest.", "I prefer pytest over unittest", "a0000000-0000-4000-8000-00000000000b"),
    (CODEX, "The staging database is Postgres 16 on port 5433.", "Postgres 16 on port 5433", "LINE:4"),
], ids=["claude-code", "codex"])
def test_session_logs_become_memories_with_provenance_and_no_tool_output(cli, home, tmp_path, monkeypatch, log, fact, evidence,
                                                                         stored_from):
    """Through `hymem add` and a scripted writer: the fact said by the user is stored with its message id, time and
    session file; a fact quoted from tool output is refused, since its evidence is not in what the writer was shown."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    copy = tmp_path / log.name
    shutil.copy(log, copy)
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"operations": [
        {"op": "add", "text": fact, "evidence": evidence},
        {"op": "add", "text": "Jordan lives in Lisbon.", "evidence": "I live in Lisbon"},
        {"op": "add", "text": "Jordan lives in Lisbon.", "evidence": "Jordan, who lives in Lisbon"},
    ]}) + "\n")
    run = cli("add", "--backend", "scripted", "--model", str(replies), str(copy))
    assert run.exit_code == 0, run.stderr
    hits = cli("search", fact, "-f", "jsonl").jsonl()
    assert [h["text"] for h in hits] == [fact]
    assert hits[0]["source_ids"] == [stored_from] and hits[0]["source"] == str(copy) and hits[0]["event_time"].startswith("2025-")
    rows = snapshot(home / "bank.db")
    assert not [r for r in rows["versions"] if "Lisbon" in str(r)]
    assert len(rows["rejections"]) == 2
    chunk_text = " ".join(str(r) for r in rows["chunks"])
    assert not [word for word in NOT_SAID if word in chunk_text]  # provenance keeps only what was said


def test_raw_session_log_keeps_speakers_and_no_tool_output(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("add", "--raw", str(CLAUDE), str(CODEX)).exit_code == 0
    rows = snapshot(home / "bank.db")["versions"]
    texts = [r[3] for r in rows]
    assert len(texts) == 9 and all(t.startswith(("user: ", "assistant: ")) for t in texts)
    assert not [t for t in texts for word in NOT_SAID if word in t]


def test_prefix_hashes_equal_the_hash_of_each_beginning():
    from hymem_cli.domain import Chunk, Message

    messages = [Message("1", "Alex", "I live in Zürich \"quoted\"", "2025-01-01T00:00:00Z", "s1", 1),
                Message("LINE:2", None, "ünïcödé ✓ \u2028"),
                Message("u3", "assistant", "", None, None, 3)]
    chunk = Chunk("a.jsonl", messages)
    for mode in ("raw", "writer"):
        assert chunk.prefix_hashes(mode) == [Chunk("a.jsonl", messages[:n]).hash(mode) for n in range(1, len(messages) + 1)]
