"""What a new user trips over in the first hour: each case as the user meets it, in a real process or terminal."""

from __future__ import annotations

import json
import re
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import as_if_typed
from test_errors import _stored

HYMEM = [sys.executable, "-m", "hymem_cli"]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYMEM_") or k == "HYMEM_CACHE"}
    return {**env, "HYMEM_HOME": str(home), "HYMEM_EMBED_MODEL": "hash", **extra}


def _wait_for(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_ctrl_c_on_a_tail_f_pipe_exits_130_with_one_line(tmp_path):
    """The README's `tail -f chat.jsonl | hymem add -i jsonl -`, stopped with Ctrl-C after a burst was stored."""
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"speaker": "Alex", "text": "I live in Seattle."}) + "\n")
    home = tmp_path / "home"
    tail = subprocess.Popen(["tail", "-f", str(chat)], stdout=subprocess.PIPE)
    try:
        add = subprocess.Popen([*HYMEM, "add", "--raw", "-i", "jsonl", "-"], stdin=tail.stdout, stderr=subprocess.PIPE,
                               stdout=subprocess.PIPE, env=_env(home), preexec_fn=as_if_typed)
        tail.stdout.close()
        assert _wait_for(lambda: (home / "bank.db").exists() and _stored(home / "bank.db") == 1), "the first burst was never stored"
        add.send_signal(signal.SIGINT)
        _, err = add.communicate(timeout=30)
    finally:
        tail.kill()
    assert add.returncode == 130, err.decode()
    assert err.decode().strip().splitlines()[-1] == "hymem: interrupted; chunks already committed are kept (re-run to resume)"
    assert b"Fatal Python error" not in err
    assert _stored(home / "bank.db") == 1  # the committed chunk survived


def run_on_terminal(args: list[str], env: dict[str, str], columns: int = 110, stdin: bytes | None = None, typed: bytes = b"") -> bytes:
    """Run hymem with stdout and stderr on a pseudo-terminal of `columns` columns; returns every byte it wrote.

    Without `stdin`, stdin is the terminal too, and `typed` is typed on it (b"\x04" is Ctrl-D)."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    proc = subprocess.Popen([*HYMEM, *args], stdin=subprocess.PIPE if stdin is not None else follower, stdout=follower, stderr=follower,
                            env={**env, "COLUMNS": str(columns), "TERM": "xterm-256color"}, close_fds=True)
    os.close(follower)
    if stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.close()
    out = b""
    if typed:
        time.sleep(1.5)  # let it start reading
        os.write(leader, typed)
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not data:
            break
        out += data
    proc.wait(timeout=60)
    os.close(leader)
    return out


@pytest.fixture
def small_bank(tmp_path):
    home = tmp_path / "home"
    env = _env(home)
    chat = "Alex: I keep [/INST] and [bold red]markup[/] in my notes.\nSam: Noted, see [link=https://example.com]this[/link].\n"
    done = subprocess.run([*HYMEM, "add", "--raw", "-"], input=chat.encode(), env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    return env


@pytest.mark.slow
def test_tables_show_memory_text_literally_and_honour_no_color(small_bank):
    small_bank = {**small_bank, "HYMEM_SEARCH_MIN_SCORE": "0"}  # both memories listed: the test embedder's scores are low
    shown = run_on_terminal(["search", "notes markup"], small_bank)
    assert b"[/INST]" in shown and b"[bold red]markup[/]" in shown and b"[link=https://example.com]" in shown, shown
    assert b"Traceback" not in shown
    assert b"\x1b[" in shown  # a terminal gets styles (the bold header) ...
    plain = run_on_terminal(["search", "notes markup"], {**small_bank, "NO_COLOR": "1"})
    assert b"[/INST]" in plain and b"\x1b[" not in plain  # ... and none at all with NO_COLOR


@pytest.mark.slow
def test_the_time_column_stays_on_one_line(small_bank, tmp_path):
    chat = tmp_path / "transcripts-from-the-support-desk-exported-in-november" / "conversation-with-alex-about-moving.txt"
    chat.parent.mkdir()
    chat.write_text("Alex: I moved to Sydney.\n")
    assert subprocess.run([*HYMEM, "add", "--raw", str(chat)], env=small_bank, capture_output=True).returncode == 0
    shown = run_on_terminal(["log"], {**small_bank, "NO_COLOR": "1"}, columns=110).decode()
    stamp = next(line for line in shown.splitlines() if "add --raw" in line)
    assert re.search(r"│ (just now|\d+ min ago|\d+ h ago) +│", stamp), shown  # short, and whole on the row's line


@pytest.mark.slow
def test_a_search_on_a_fresh_cache_makes_the_fast_copy_once_and_says_so(tmp_path):
    """A bank copied from another machine, a cleared cache, a new home: the first search makes the copy, not every search torch."""
    env = {k: v for k, v in _env(tmp_path / "home").items() if k != "HYMEM_EMBED_MODEL"}  # the real embedder
    done = subprocess.run([*HYMEM, "add", "--raw", "-"], input=b"Alex: I live in Seattle.\n", env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    fresh = {**env, "HYMEM_CACHE": str(tmp_path / "fresh-cache"), "HYMEM_SEARCH_SERVER": "false"}
    first = subprocess.run([*HYMEM, "search", "where does Alex live", "-f", "jsonl"], env=fresh, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert "preparing a torch-free copy" in first.stderr and "once" in first.stderr
    assert json.loads(first.stdout.splitlines()[0])["text"] == "Alex: I live in Seattle."
    again = subprocess.run([*HYMEM, "search", "where does Alex live", "-f", "jsonl"], env=fresh, capture_output=True, text=True)
    assert again.returncode == 0 and again.stderr == "" and again.stdout == first.stdout


def test_add_prints_its_summary_in_the_format_asked(cli, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    done = cli("add", "--raw", "-", "-f", "json", input="Alex: I live in Seattle.\nSam: I live in Oslo.\n")
    assert done.exit_code == 0, done.stderr
    summary = done.json()
    assert summary["revision"] == 1 and summary["stored"] == 1 and summary["messages"] == 2 and summary["counts"]["added"] == 2
    again = cli("add", "--raw", "-", "-f", "jsonl", input="Alex: I live in Seattle.\nSam: I live in Oslo.\n").jsonl()
    assert len(again) == 1 and again[0]["revision"] is None and (again[0]["stored"], again[0]["skipped"]) == (0, 1)
    assert again[0]["counts"]["added"] == 0
    assert cli("add", "--raw", "-", input="Alex: I moved to Sydney.\n").stdout == ""  # no format asked: stdout stays clean


COMMANDS = [["add"], ["search"], ["serve"], ["apply"], ["history"], ["show"], ["log"], ["diff"], ["export"], ["import"], ["revert"],
            ["forget"], ["doctor"], ["eval"], ["config", "get"], ["config", "set"], ["config", "list"], ["model", "info"], ["model", "pull"],
            ["model", "rm"], ["model", "list"], ["config"], ["model"], []]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "hymem")
def test_help_reads_like_hymem_not_like_its_framework(cli, command):
    shown = cli(*command, "--help")
    assert shown.exit_code == 0, shown.stderr
    for leftover in ("<str>", "<int", "<float>", "<list[", "[x>=", "x>=", "{query}", "{conversations}", "<table|"):
        assert leftover not in shown.stdout, (leftover, shown.stdout)


@pytest.mark.parametrize("args,needles", [
    (["search", "x", "-f", "xml"], ["--format: 'xml' is not one of table, json, jsonl, plain", "hymem search --help"]),
    (["search", "x", "-n", "0"], ["--limit must be ≥ 1"]),
    (["search", "x", "-n", "many"], ["--limit must be a whole number"]),
    (["add", "--chunk-tokens", "3", "-"], ["--chunk-tokens must be ≥ 16"]),
    (["serch", "x"], ["unknown command 'serch'; did you mean search or serve?", "hymem --help"]),
    (["search", "--limt", "3", "x"], ["unknown option --limt; did you mean --limit?"]),
    (["search"], ["missing argument QUERY"]),
    (["eval", "chat.jsonl"], ["missing option --questions"]),
    (["config", "get", "writer.modle"], ["unknown config key 'writer.modle'", "did you mean writer.model?"]),
])
def test_usage_errors_are_one_hymem_line(cli, args, needles):
    from conftest import one_error_line

    done = cli(*args)
    one_error_line(done, 2, *needles)
    for framework in ("Usage:", "Try '", "Value error", "Input should be", "Invalid value for"):
        assert framework not in done.stderr


@pytest.mark.slow
def test_progress_on_a_file_has_a_real_total(tmp_path):
    chat = tmp_path / "chat.txt"
    chat.write_text("".join(f"Alex: fact number {i} about the move.\n" for i in range(40)))
    shown = run_on_terminal(["add", "--raw", "--chunk-tokens", "16", str(chat)], _env(tmp_path / "home"))
    assert b"/40" in shown and b"/?" not in shown, shown


@pytest.mark.slow
def test_a_terminal_on_stdin_is_told_how_to_end(tmp_path):
    shown = run_on_terminal(["add", "--raw"], _env(tmp_path / "home"), typed=b"Alex: I live in Seattle.\n\x04")
    assert b"reading stdin (Ctrl-D to end)" in shown and b"1 added" in shown, shown


def test_the_log_table_names_the_top_rejection_reasons(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    chat = tmp_path / "chat.txt"
    chat.write_text("Alex: I live in Seattle.\n")
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"operations": [
        {"op": "add", "text": "Alex owns a yacht.", "evidence": "I bought a yacht"},
        {"op": "add", "text": "Alex owns a plane.", "evidence": "I bought a plane"},
        {"op": "update", "target": 4, "text": "Alex lives in Oslo.", "evidence": "I live in Seattle"},
    ]}) + "\n")
    assert cli("add", "--backend", "scripted", "--model", str(replies), str(chat)).exit_code == 0
    monkeypatch.setenv("COLUMNS", "300")
    table = cli("log", "-f", "table").stdout
    assert "3: evidence … does not occur in the chunk (2)" in " ".join(table.split()), table


def test_trying_a_small_writer_first_does_not_use_the_file_up(cli, home, monkeypatch, tmp_path):
    """smollm2 first (everything rejected), then the real writer: the file is new to the second writer."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    chat = tmp_path / "notes.txt"
    chat.write_text("Alex: I live in Seattle.\n")
    junk, good = tmp_path / "small.jsonl", tmp_path / "real.jsonl"
    junk.write_text(json.dumps({"operations": [{"op": "add", "text": "Alex owns a yacht.", "evidence": "yacht"}]}) + "\n")
    good.write_text(json.dumps({"operations": [{"op": "add", "text": "Alex lives in Seattle.", "evidence": "I live in Seattle"}]}) + "\n")

    first = cli("add", "--backend", "scripted", "--model", str(junk), str(chat))
    assert first.exit_code == 0 and "0 added, 0 updated, 0 superseded, 0 deleted, 1 rejected" in first.stderr, first.stderr
    same = cli("add", "--backend", "scripted", "--model", str(junk), str(chat))
    assert same.exit_code == 0 and "nothing new: 1 chunk(s) already stored by this writer (small.jsonl" in same.stderr, same.stderr
    assert "in revision 1; --again processes them anew" in same.stderr
    other_pipeline = cli("add", "--backend", "scripted", "--model", str(junk), "--pipeline", "two-pass", "--dry-run", str(chat))
    assert "from 1 new chunk(s)" in other_pipeline.stderr, other_pipeline.stderr  # another protocol is another writer

    second = cli("add", "--backend", "scripted", "--model", str(good), str(chat))
    assert second.exit_code == 0 and "1 added" in second.stderr, second.stderr
    assert [r["text"] for r in cli("search", "Alex lives", "-f", "jsonl").jsonl()] == ["Alex lives in Seattle."]

    again = cli("add", "--backend", "scripted", "--model", str(junk), "--again", str(chat))
    assert again.exit_code == 0 and "revision 3: 1 chunk(s)" in again.stderr, again.stderr
    raw = cli("add", "--raw", str(chat))  # the first add stored the messages
    assert "nothing new: 1 chunk(s) already stored by raw ingest in revision 1" in raw.stderr


def test_banks_from_before_writer_keys_keep_their_writer_chunks(tmp_path):
    """Migration m003: a chunk a writer stored under the old content-only key is still 'already stored' for that writer."""
    from hymem_cli.bank import open_bank
    from hymem_cli.domain import Chunk, Message, chunk_key

    path = tmp_path / "bank.db"
    bank = open_bank(path)
    writer = {"backend": "llama", "model": "w.gguf", "model_hash": "b2:abc", "prompt_version": "hymem-writer-1", "pipeline": "single"}
    content = Chunk("chat.txt", [Message("LINE:1", "Alex", "I live in Seattle.", line=1)]).hash("writer")
    with bank.conn:
        bank.conn.execute("INSERT INTO revisions (time, command, source, writer, counts, state) VALUES ('t', 'add', 'chat.txt', ?, '{}', 'done')",
                          (json.dumps(writer),))
        bank.conn.execute("INSERT INTO chunks (hash, revision, source, message_ids, text) VALUES (?, 1, 'chat.txt', '[]', 'x')", (content,))
        bank.conn.execute("DELETE FROM migrations WHERE name = 'm003_writer_chunk_keys'")
    bank.close()
    upgraded = open_bank(path)  # applies m003 again, as on a bank made before it
    assert upgraded.chunk_seen(chunk_key(content, writer)) == 1
    assert upgraded.chunk_seen(content) is None
    upgraded.close()


def test_writer_rejections_say_what_was_wrong_in_words():
    from hymem_cli.domain import Message, Shown
    from hymem_cli.ingest.guards import check
    from hymem_cli.screen import Screen

    shown = {a: Shown(a, f"m{a}", f"fact {a}", None) for a in (1, 2, 3)}
    msg = [Message("1", "Alex", "I moved to Sydney.")]

    def why(raw, seen=shown):
        return check(raw, seen, msg, set(), set(), Screen())[1]

    assert why({"op": "update", "text": "Alex lives in Sydney.", "evidence": "moved to Sydney"}) == \
        "an update must name one of the memories shown (1–3); it named none"
    assert why({"op": "supersede", "target": 9, "text": "x", "reason": "r", "evidence": "Sydney"}, {}) == \
        "a supersede must name one of the memories shown, but none were shown; it named 9"
    assert why({"op": "add", "evidence": "Sydney"}) == "an add needs the text to store; it gave none"
    assert why({"op": "delete", "target": 1, "evidence": "Sydney"}) == "a delete needs a reason; it gave none"
    assert why("add Sydney") == "not an object: the writer sent a string where an operation belongs"


@pytest.mark.slow
def test_ctrl_c_with_a_terminal_on_stdin_exits_130(tmp_path):
    """`hymem add --raw` waiting on a terminal, interrupted: the documented code and line, no interpreter abort."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen([*HYMEM, "add", "--raw"], stdin=follower, stdout=follower, stderr=follower, env=_env(tmp_path / "home"),
                            close_fds=True, preexec_fn=as_if_typed)
    os.close(follower)
    out = b""
    deadline = time.monotonic() + 30
    while b"Ctrl-D to end" not in out and time.monotonic() < deadline:
        out += os.read(leader, 4096)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 130
    try:
        while data := os.read(leader, 4096):
            out += data
    except OSError:
        pass
    os.close(leader)
    assert b"hymem: interrupted; chunks already committed are kept" in out and b"Fatal Python error" not in out, out


def test_no_writer_names_the_ways_to_get_one(cli, monkeypatch):
    from conftest import one_error_line

    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    one_error_line(cli("write"), 6, "no memory writer is configured", "--raw", "hymem model list", "--model smollm2",
                   "hymem model pull", "--backend openai")
    queued = cli("add", "-", input="Alex: hi\n")  # an add keeps the messages, and says the same ways
    assert queued.exit_code == 0 and all(way in queued.stderr for way in ("hymem model list", "--model smollm2", "hymem model pull",
                                                                          "--backend openai", "hymem write"))


def test_one_variable_names_the_bank(cli, home, monkeypatch, tmp_path):
    from hymem_cli import config

    assert config.env_name("bank.path") == "HYMEM_BANK"
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    monkeypatch.setenv("HYMEM_BANK", str(tmp_path / "elsewhere.db"))
    assert cli("add", "--raw", "-", input="Alex: hi\n").exit_code == 0
    assert (tmp_path / "elsewhere.db").exists() and not (home / "bank.db").exists()
    assert cli("config", "get", "bank.path").stdout.strip() == str(tmp_path / "elsewhere.db")
    root = Path(__file__).resolve().parents[1]
    for doc in ("README.md", "man/hymem.1"):
        assert "HYMEM_BANK_PATH" not in (root / doc).read_text(encoding="utf-8"), doc


def test_the_readme_has_one_command_reference_heading():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert readme.count("## Command reference") == 1
