"""Capture now, write later: messages stored at once, chunks queued, `hymem write` draining the queue exactly once per chunk,
whatever kills or races it (issue: a writer on a CPU takes a minute a chunk; nothing an agent says may wait for it)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlean
from fakes import FakeServer

HYMEM = [sys.executable, "-m", "hymem_cli"]

# What the fake writer knows: a phrase of a chunk, and the operation it answers for it (hymem's protocol).
KNOWN = {
    "I live in Seattle": {"op": "add", "text": "Alex lives in Seattle.", "evidence": "I live in Seattle"},
    "I moved to Sydney": {"op": "supersede", "target": 1, "text": "Alex lives in Sydney.", "reason": "Alex moved to Sydney.",
                          "evidence": "I moved to Sydney"},
    "My dog is called Rex": {"op": "add", "text": "Alex has a dog called Rex.", "evidence": "My dog is called Rex"},
    "I started learning Portuguese": {"op": "add", "text": "Alex is learning Portuguese.", "evidence": "I started learning Portuguese"},
}
MARKER = re.compile(r"\bzq(\d+)x(\d+)\b")  # "zq3x1": source 3, chunk 1 (a word no fact and no other chunk holds)


def chunk_of(body: dict) -> str:
    """The conversation a writer call carries (the last message), where the chunk's words are."""
    return body["messages"][-1]["content"]


def answer(body: dict) -> str:
    """The fake writer: for each phrase it knows in the chunk, its operation; for each marker, a fact about it."""
    text = chunk_of(body)
    ops = [op for phrase, op in KNOWN.items() if phrase in text]
    ops += [{"op": "add", "text": f"Alex noted topic {a} part {b}.", "evidence": f"zq{a}x{b}"} for a, b in MARKER.findall(text)]
    return json.dumps({"operations": ops})


def writer_env(home: Path, server: FakeServer) -> dict:
    return {**os.environ, "HYMEM_HOME": str(home), "HYMEM_EMBED_MODEL": "hash", "HYMEM_WRITER_BACKEND": "openai",
            "HYMEM_WRITER_BASE_URL": server.base_url, "HYMEM_WRITER_PROTOCOL": "hymem", "HYMEM_WRITER_TIMEOUT": "30"}


def transcript(path: Path, sessions: list[list[str]], source: int = 0) -> Path:
    """A JSONL chat, one session per list (so one chunk each), every message by Alex."""
    with path.open("w", encoding="utf-8") as f:
        for s, texts in enumerate(sessions):
            for m, text in enumerate(texts):
                f.write(json.dumps({"id": f"{source}-{s}-{m}", "session": f"{source}-{s}", "speaker": "Alex",
                                    "timestamp": f"2024-05-{s % 28 + 1:02d}T10:{m % 60:02d}:00Z", "text": text}) + "\n")
    return path


def read(path: Path, sql: str) -> list[tuple]:
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return [tuple(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def facts(path: Path) -> list[tuple]:
    """The facts and their chains as a run leaves them, ids aside: each version's text, how it came to be, whether and
    how it was retired, its successor's text and the reason; and each chain's texts in order."""
    versions = read(path, "SELECT v.text, v.op, r.how, s.text, r.reason FROM versions v LEFT JOIN retirements r ON r.version = v.id "
                          "LEFT JOIN versions s ON s.id = r.successor WHERE v.layer IS NULL ORDER BY v.text, v.op")
    chains = read(path, "SELECT group_concat(text, ' -> ') FROM (SELECT chain, text FROM versions WHERE layer IS NULL ORDER BY chain, id) "
                        "GROUP BY chain ORDER BY 1")
    return versions + chains


@pytest.fixture
def server():
    s = FakeServer()
    s.answer = answer
    s.start()
    yield s
    s.stop()


def test_add_queue_returns_without_the_writer_and_write_drains_it(cli, home, server, monkeypatch, tmp_path):
    """300 messages with a writer that takes seconds a call: `add --queue` calls it not once, the last message is
    found at once, `status` shows the queue; `write` then writes it, and the supersede the writer proposed is history."""
    for key, value in writer_env(home, server).items():
        if key.startswith("HYMEM_"):
            monkeypatch.setenv(key, value)
    sessions = [[f"Note {s}.{m} about the garden beds." for m in range(10)] for s in range(30)]
    sessions[0][3], sessions[20][5], sessions[29][9] = "I live in Seattle.", "I moved to Sydney.", "I bought a kayak named Zephyrine."
    chat = transcript(tmp_path / "chat.jsonl", sessions)
    server.delay = 3.0

    queued = cli("add", "--queue", str(chat))
    assert queued.exit_code == 0, queued.stderr
    assert "300 message(s) stored of 300 read, 30 chunk(s) queued for the writer" in queued.stderr
    assert "hymem write" in queued.stderr and server.requests == []  # nothing waited for the writer
    hit = cli("search", "kayak Zephyrine", "-f", "json").json()[0]
    assert (hit["text"], hit["layer"], hit["pending"]) == ("Alex: I bought a kayak named Zephyrine.", "message", True)
    status = cli("status", "-f", "json").json()
    assert (status["queued_chunks"], status["messages"], status["pending_messages"], status["facts"]) == (30, 300, 300, 0)
    assert status["sources"] == [{"source": str(chat), "chunks": 30, "oldest": status["oldest_queued"]}]

    server.delay = 0.0
    wrote = cli("write")
    assert wrote.exit_code == 0, wrote.stderr
    assert "30 chunk(s) written" in wrote.stderr and "1 superseded" in wrote.stderr and "0 chunk(s) still queued" in wrote.stderr
    assert len(server.requests) == 30
    seattle = cli("search", "where does Alex live", "--all", "--layer", "fact", "-f", "json").json()
    history = cli("history", next(h["id"] for h in seattle if h["text"] == "Alex lives in Seattle."), "-f", "json").json()
    assert [(v["text"], v["status"]) for v in history] == [("Alex lives in Seattle.", "superseded"), ("Alex lives in Sydney.", "current")]
    assert history[0]["retired_reason"] == "Alex moved to Sydney."
    status = cli("status", "-f", "json").json()
    assert (status["queued_chunks"], status["written_chunks"], status["pending_messages"], status["facts"]) == (0, 30, 0, 1)
    assert status["seconds_per_chunk"] is not None
    # the messages a writer has read step back: the fact answers, and each message is still there by --layer message
    assert [h["text"] for h in cli("search", "Sydney", "-f", "json").json()] == ["Alex lives in Sydney."]
    assert cli("search", "Sydney", "--layer", "message", "-f", "json").json()[0]["text"] == "Alex: I moved to Sydney."
    both = {(h["text"], h["layer"]) for h in cli("search", "Sydney", "--layer", "all", "-f", "json").json()}
    assert {("Alex lives in Sydney.", "fact"), ("Alex: I moved to Sydney.", "message")} <= both
    assert cli("search", "Sydney", "--layer", "facts").exit_code == 2  # a usage error names the layers
    assert cli("write").stderr.strip() == "nothing queued"


def test_adding_again_changes_nothing_and_a_second_writer_reads_it_anew(cli, home, server, monkeypatch, tmp_path):
    for key, value in writer_env(home, server).items():
        if key.startswith("HYMEM_"):
            monkeypatch.setenv(key, value)
    chat = transcript(tmp_path / "chat.jsonl", [["I live in Seattle."], ["My dog is called Rex."]])
    assert cli("add", str(chat)).exit_code == 0
    before = read(home / "bank.db", "SELECT id, text FROM versions ORDER BY id")
    again = cli("add", str(chat))
    assert again.exit_code == 0 and "nothing new" in again.stderr, again.stderr
    assert read(home / "bank.db", "SELECT id, text FROM versions ORDER BY id") == before and len(server.requests) == 2
    other = cli("add", "--model", "another-model", str(chat))  # another writer: the chunks are new to it
    assert other.exit_code == 0 and "2 chunk(s)" in other.stderr, other.stderr
    assert len(server.requests) == 4 and read(home / "bank.db", "SELECT count(*) FROM versions WHERE layer = 'message'") == [(2,)]


def _written(bank: Path) -> int:
    try:
        return read(bank, "SELECT count(*) FROM queue WHERE state = 'done'")[0][0]
    except Exception:  # noqa: BLE001 - not made yet, or busy
        return 0


@pytest.mark.slow  # four processes and a writer that takes half a second a chunk (about 15 s)
def test_a_writer_killed_mid_chunk_leaves_what_an_uninterrupted_run_leaves(server, tmp_path):
    sessions = [["I live in Seattle."], ["Nothing new today."], ["I moved to Sydney."], ["My dog is called Rex."],
                ["I started learning Portuguese."], ["zq7x1 came up."]]
    server.delay = 0.5
    results = {}
    for run in ("whole", "killed"):
        home = tmp_path / run
        env = writer_env(home, server)
        chat = transcript(tmp_path / f"{run}.jsonl", sessions)
        assert subprocess.run([*HYMEM, "add", "--queue", str(chat)], env=env, capture_output=True, timeout=120).returncode == 0
        if run == "killed":
            proc = subprocess.Popen([*HYMEM, "write"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 60
            while _written(home / "bank.db") < 3 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            proc.send_signal(signal.SIGKILL)  # during the fourth chunk's writer call (half a second long)
            assert proc.wait(timeout=30) == -signal.SIGKILL
            assert 3 <= _written(home / "bank.db") < 6
            assert read(home / "bank.db", "SELECT count(*) FROM queue WHERE taken_by IS NOT NULL") == [(1,)]  # held by the dead
        done = subprocess.run([*HYMEM, "write"], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        results[run] = (facts(home / "bank.db"), read(home / "bank.db", "SELECT state, taken_by FROM queue ORDER BY id"))
    assert results["killed"] == results["whole"]
    assert ("Alex lives in Seattle.", "add", "superseded", "Alex lives in Sydney.", "Alex moved to Sydney.") in results["whole"][0]
    assert results["whole"][1] == [("done", None)] * 6


@pytest.mark.slow  # three processes, twelve chunks of a writer that takes a fifth of a second (about 10 s)
def test_two_writers_on_one_queue_write_each_chunk_once(server, tmp_path):
    home = tmp_path / "home"
    env = writer_env(home, server)
    chats = [str(transcript(tmp_path / f"source{a}.jsonl", [[f"Today zq{a}x{b} was on my mind."] for b in range(3)], source=a))
             for a in range(4)]
    assert subprocess.run([*HYMEM, "add", "--queue", *chats], env=env, capture_output=True, timeout=120).returncode == 0
    server.delay = 0.2
    writers = [subprocess.Popen([*HYMEM, "write"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for w in writers:
        assert w.wait(timeout=120) == 0, w.stderr.read()
        w.stderr.close()
    asked = sorted(m for r in server.requests for m in MARKER.findall(chunk_of(r["body"])))
    assert asked == sorted((str(a), str(b)) for a in range(4) for b in range(3))  # every chunk once, none twice
    assert read(home / "bank.db", "SELECT count(*) FROM versions WHERE layer IS NULL") == [(12,)]
    # a source's chunks in order: each fact's revision row comes after the one of the chunk before it in its source
    order = read(home / "bank.db", "SELECT source, id, done_at FROM queue ORDER BY source, id")
    for (s1, _, t1), (s2, _, t2) in zip(order, order[1:]):
        assert s1 != s2 or t1 < t2


def test_a_writer_that_is_down_keeps_every_chunk_and_write_exits_6(cli, home, tmp_path):
    chat = transcript(tmp_path / "chat.jsonl", [["I live in Seattle."], ["My dog is called Rex."]])
    assert cli("add", "--queue", str(chat)).exit_code == 0
    down = FakeServer().start()
    url = down.base_url
    down.stop()
    before = read(home / "bank.db", "SELECT id, text FROM versions ORDER BY id")
    run = cli("write", "--backend", "openai", "--base-url", url)
    assert run.exit_code == 6 and "unreachable" in run.stderr and "2 chunk(s) stay queued" in run.stderr, run.stderr
    assert read(home / "bank.db", "SELECT id, text FROM versions ORDER BY id") == before  # no message lost, no fact made
    status = cli("status", "-f", "json").json()
    assert (status["queued_chunks"], status["failed_chunks"]) == (2, 1)  # the first failed; the second waits behind it
    assert "unreachable" in status["failures"][0]["error"]
    assert "failed" in cli("status", "-f", "plain").stdout


def test_doctor_warns_on_failed_chunks_and_on_a_backlog_older_than_a_day(cli, home, tmp_path):
    chat = transcript(tmp_path / "chat.jsonl", [["I live in Seattle."]])
    assert cli("add", "--queue", str(chat)).exit_code == 0
    check = next(r for r in cli("doctor", "-f", "json").json() if r["check"] == "writer queue")
    assert (check["status"], check["detail"]) == ("ok", "1 chunk(s) queued")
    conn = sqlean.connect(str(home / "bank.db"))
    conn.execute("UPDATE queue SET queued_at = '2020-01-01T00:00:00.000000Z'")
    conn.commit()
    check = next(r for r in cli("doctor", "-f", "json").json() if r["check"] == "writer queue")
    assert check["status"] == "warn" and "over a day" in check["detail"] and "hymem write" in check["hint"]
    conn.execute("UPDATE queue SET attempts = 2, last_error = 'writer server unreachable at http://x: connection refused'")
    conn.commit()
    conn.close()
    check = next(r for r in cli("doctor", "-f", "json").json() if r["check"] == "writer queue")
    assert check["status"] == "warn" and "1 queued chunk(s) failed to write" in check["detail"] and "connection refused" in check["detail"]


@pytest.mark.slow  # a warm server and a few whole processes (about 10 s)
def test_serve_write_writes_what_is_queued_as_it_arrives(server, tmp_path):
    home = tmp_path / "home"
    env = writer_env(home, server)
    chat = transcript(tmp_path / "chat.jsonl", [["I live in Seattle."]])
    assert subprocess.run([*HYMEM, "add", "--raw", "-"], input=b"Sam: hello\n", env=env, capture_output=True, timeout=60).returncode == 0
    serving = subprocess.Popen([*HYMEM, "serve", "--write"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        status = {}
        while time.monotonic() < deadline and not status.get("serve_write"):
            status = json.loads(subprocess.run([*HYMEM, "status", "-f", "json"], env=env, capture_output=True, timeout=60).stdout)
            time.sleep(0.2)
        assert status["serve_write"] == serving.pid
        assert subprocess.run([*HYMEM, "add", "--queue", str(chat)], env=env, capture_output=True, timeout=60).returncode == 0
        while time.monotonic() < deadline and read(home / "bank.db", "SELECT count(*) FROM versions WHERE layer IS NULL") == [(0,)]:
            time.sleep(0.2)
        assert read(home / "bank.db", "SELECT text FROM versions WHERE layer IS NULL") == [("Alex lives in Seattle.",)]
        assert read(home / "bank.db", "SELECT state FROM queue") == [("done",)]
    finally:
        serving.send_signal(signal.SIGTERM)
        err = serving.communicate(timeout=30)[1]
    assert serving.returncode == 0, err
    assert "writing its queue" in err and "wrote 1 chunk(s)" in err
    status = json.loads(subprocess.run([*HYMEM, "status", "-f", "json"], env=env, capture_output=True, timeout=60).stdout)
    assert status["serve_write"] is None  # gone with the server


def test_where_no_bar_is_drawn_a_long_write_says_how_it_goes(capsys, monkeypatch):
    """Outside a terminal (a log), progress is a line now and then: done of total, the pace, the time left."""
    from hymem_cli import _output

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert _output.Output(quiet=True).pacer("writing", 30) is None
    tick = _output.Output().pacer("writing", 30, every=0.0)
    time.sleep(0.05)
    tick(10)
    line = capsys.readouterr().err.strip()
    assert re.fullmatch(r"writing: 10/30 chunk\(s\), \d+\.\d s a chunk, about \d+ s left", line), line
    tick(0)  # nothing done yet: nothing to say
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert _output.Output().pacer("writing", 30) is None  # a terminal draws the bar instead
