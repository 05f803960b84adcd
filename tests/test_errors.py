"""The error contract, case by case: exit code, one `hymem: error:` line, empty stdout, bank untouched.

Every failing command here runs against a bank seeded with one raw message, and the test compares
a snapshot of every table before and after. Where it is reasonable, the same failure on a fresh
HYMEM_HOME must not leave a bank file behind.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlean
from conftest import SEED, as_if_typed, one_error_line, raw_sql, snapshot

NEW = "Sam: I work at a bakery in Ballard.\n"  # text the seed does not have, so a stored chunk shows


def ops_text(*ops: dict) -> str:
    return "".join(json.dumps(op) + "\n" for op in ops)


@pytest.fixture(autouse=True)
def quiet_env(home, monkeypatch):
    """The fast test embedder (the embedder plays no part in these errors; test_embedder_mismatch uses the
    real one), and no writer or tuning from the environment: `add` without --raw must find none configured."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    for var in ("HYMEM_WRITER_BACKEND", "HYMEM_WRITER_MODEL", "HYMEM_WRITER_BASE_URL", "HYMEM_WRITER_PIPELINE",
                "HYMEM_SEARCH_LIMIT", "HYMEM_BANK_BUSY_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)


def fails(cli, bank: Path, code: int, *args: str, needles=(), input=None):
    """Run a command that must fail with `code`, one error line naming `needles`, and change nothing."""
    before = snapshot(bank)
    run = cli(*args, input=input)
    one_error_line(run, code, *needles)
    assert snapshot(bank) == before
    return run


# ------------------------------------------------------------------------------------------ add


def _write(tmp_path: Path, name: str, content: bytes | None) -> Path:
    path = tmp_path / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    return path


BAD_TRANSCRIPTS = [
    # id, file name, content (None: a directory), needles of the error line
    ("directory", "chats", None, ("chats", "is a directory")),
    ("empty", "empty.txt", b"", ("empty.txt", "empty")),
    ("whitespace-only", "blank.txt", b"  \n\t\n   \r\n\n", ("blank.txt", "empty")),
    ("binary", "blob.txt", b"Alex: hi\n\x00\x01\x02\xff\xfe\n", ("blob.txt", "binary")),
    ("invalid-utf8", "latin1.txt", b"Alex: hi there\nSam: caf\xe9 au lait\n", ("latin1.txt", "line 2", "utf-8")),
    (
        "malformed-jsonl",
        "chat.jsonl",
        b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n{"role": "user", "content": \n'
        b'{"role": "user", "content": "bye"}\n',
        ("chat.jsonl", "line 3", "invalid json"),
    ),
    ("json-object-no-text", "shape.json", b'{"foo": 1}\n', ("shape.json", "text", "content")),
    ("json-array-of-numbers", "numbers.json", b"[1, 2, 3]\n", ("numbers.json", "message object")),
    (
        "jsonl-content-not-string",
        "typed.jsonl",
        b'{"role": "user", "content": "hi"}\n{"role": "user", "content": 5}\n',
        ("typed.jsonl", "line 2", "content"),
    ),
]


@pytest.mark.parametrize("name,content,needles", [c[1:] for c in BAD_TRANSCRIPTS], ids=[c[0] for c in BAD_TRANSCRIPTS])
def test_add_bad_transcript(cli, seeded_bank, tmp_path, name, content, needles):
    path = _write(tmp_path, name, content)
    fails(cli, seeded_bank, 3, "add", "--raw", str(path), needles=needles)


def test_add_missing_file(cli, seeded_bank, tmp_path):
    fails(cli, seeded_bank, 3, "add", "--raw", str(tmp_path / "nope.txt"), needles=("nope.txt", "no such file"))


@pytest.mark.parametrize("name,content,needles", [c[1:] for c in BAD_TRANSCRIPTS], ids=[c[0] for c in BAD_TRANSCRIPTS])
def test_add_bad_transcript_on_fresh_home_creates_no_bank(cli, home, tmp_path, name, content, needles):
    path = _write(tmp_path, name, content)
    one_error_line(cli("add", "--raw", str(path)), 3, *needles)
    assert not (home / "bank.db").exists()


def test_add_missing_file_on_fresh_home_creates_no_bank(cli, home, tmp_path):
    one_error_line(cli("add", "--raw", str(tmp_path / "nope.txt")), 3, "no such file")
    assert not (home / "bank.db").exists()


def test_add_bad_stdin(cli, seeded_bank):
    fails(cli, seeded_bank, 3, "add", "--raw", "-", input=b"Alex: ok\nSam: \xff\xfe broken\n", needles=("<stdin>", "line 2", "utf-8"))
    fails(cli, seeded_bank, 3, "add", "--raw", "-", input="", needles=("<stdin>", "empty"))
    fails(cli, seeded_bank, 3, "add", "--raw", "-", "-", input=SEED, needles=("more than once",))


@pytest.mark.parametrize("second", ["missing", "malformed"])
def test_add_good_file_plus_bad_file_stores_nothing(cli, seeded_bank, tmp_path, second):
    good = tmp_path / "good.txt"
    good.write_text(NEW)
    bad = tmp_path / "bad.jsonl"
    if second == "malformed":
        bad.write_text('{"role": "user", "content": "hi"}\n{oops\n')
    fails(cli, seeded_bank, 3, "add", "--raw", str(good), str(bad), needles=("bad.jsonl",))
    # The good file on its own is stored: the failure above really did hold something back.
    alone = cli("add", "--raw", str(good))
    assert alone.exit_code == 0, alone.stderr
    assert "1 added" in alone.stderr


def test_add_unknown_input_format(cli, seeded_bank):
    before = snapshot(seeded_bank)
    run = cli("add", "--raw", "--input-format", "bogus", "-", input=SEED)
    assert run.exit_code == 2, run.stderr
    assert run.stdout == ""
    assert "bogus" in run.stderr and "--input-format" in run.stderr
    assert snapshot(seeded_bank) == before


def test_add_unknown_input_format_is_one_error_line(cli, seeded_bank):
    fails(cli, seeded_bank, 2, "add", "--raw", "--input-format", "bogus", "-", input=SEED, needles=("bogus",))


def test_add_unknown_input_format_on_fresh_home_creates_no_bank(cli, home):
    run = cli("add", "--raw", "--input-format", "bogus", "-", input=SEED)
    assert run.exit_code == 2 and run.stdout == ""
    assert not (home / "bank.db").exists()


def test_add_without_writer_stores_the_messages_and_queues_them(cli, seeded_bank):
    """No writer configured is no error: the messages are stored and searchable at once, their chunk waits for one."""
    done = cli("add", "-", input=NEW)
    assert done.exit_code == 0, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "1 message(s) stored" in line and "1 chunk(s) queued" in line
    assert "no writer is configured" in line and "hymem write" in line
    hits = json.loads(cli("search", "bakery Ballard", "-f", "json").stdout)
    assert [(h["text"], h["layer"], h["pending"]) for h in hits][:1] == [("Sam: I work at a bakery in Ballard.", "message", True)]


def test_add_without_writer_on_fresh_home_makes_the_bank(cli, home):
    assert cli("add", "-", input=NEW).exit_code == 0
    assert json.loads(cli("status", "-f", "json").stdout)["queued_chunks"] == 1


# ---------------------------------------------------------------------------------------- apply


def test_apply_missing_file(cli, seeded_bank, tmp_path):
    fails(cli, seeded_bank, 3, "apply", str(tmp_path / "ops.jsonl"), needles=("ops.jsonl", "no such file"))


def test_apply_directory(cli, seeded_bank, tmp_path):
    fails(cli, seeded_bank, 3, "apply", str(tmp_path), needles=("is a directory",))


def test_apply_malformed_json_names_the_line_the_parser_error_and_the_format(cli, seeded_bank, tmp_path):
    ops = tmp_path / "ops.jsonl"
    ops.write_text(ops_text({"op": "add", "text": "Alex likes tea."}) + "\n" + '{"op": "add", "text": \n')
    fails(cli, seeded_bank, 3, "apply", str(ops),
          needles=("ops.jsonl line 3: invalid json (expecting value)", "(hint: each line must be one json object)"))


def test_apply_unknown_key_names_the_line(cli, seeded_bank):
    fails(
        cli, seeded_bank, 3, "apply", "-",
        input=ops_text({"op": "add", "text": "Alex likes tea."}, {"op": "add", "text": "Alex likes red.", "colour": "red"}),
        needles=("line 2", "unknown key", "colour"),
    )


def test_apply_not_an_object_names_the_line(cli, seeded_bank):
    fails(cli, seeded_bank, 3, "apply", "-", input='["add", "Alex likes tea."]\n', needles=("line 1", "json object"))


def test_apply_unknown_op(cli, seeded_bank):
    fails(cli, seeded_bank, 3, "apply", "-", input=ops_text({"op": "merge", "target": "m1", "text": "x"}), needles=("line 1", "merge"))


def test_apply_unknown_memory_id(cli, seeded_bank):
    # One rule for every command: an id that names no memory of the bank exits 4, as `show` does.
    fails(
        cli, seeded_bank, 4, "apply", "-",
        input=ops_text({"op": "add", "text": "Alex likes tea."}, {"op": "update", "target": "m99", "text": "Alex lives in Oslo."}),
        needles=("operation 2", "no memory m99", "nothing was applied"),
    )


@pytest.mark.parametrize("op", [
    {"op": "update", "target": "m1", "text": "Alex lives in Fremont."},
    {"op": "supersede", "target": "m1", "text": "Alex lives in Oslo.", "reason": "moved"},
    {"op": "delete", "target": "m1", "reason": "wrong"},
])
def test_apply_target_retired(cli, seeded_bank, op):
    moved = cli("apply", "-", input=ops_text({"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.", "reason": "moved"}))
    assert moved.exit_code == 0, moved.stderr
    fails(cli, seeded_bank, 3, "apply", "-", input=ops_text(op),
          needles=("operation 1", "m1 was already superseded", "current version is m2"))


def test_apply_target_deleted(cli, seeded_bank):
    gone = cli("apply", "-", input=ops_text({"op": "delete", "target": "m1", "reason": "small talk"}))
    assert gone.exit_code == 0, gone.stderr
    fails(cli, seeded_bank, 3, "apply", "-", input=ops_text({"op": "update", "target": "m1", "text": "x"}),
          needles=("m1 was already deleted",))


@pytest.mark.parametrize("op", [
    {"op": "supersede", "target": "m1", "text": "Alex lives in Oslo."},
    {"op": "supersede", "target": "m1", "text": "Alex lives in Oslo.", "reason": "   "},
    {"op": "delete", "target": "m1"},
])
def test_apply_supersede_or_delete_without_reason(cli, seeded_bank, op):
    fails(cli, seeded_bank, 3, "apply", "-", input=ops_text(op), needles=("line 1", "needs a reason"))


@pytest.mark.parametrize("content", ["", "\n\n   \n"], ids=["empty", "blank-lines"])
def test_apply_no_operations(cli, seeded_bank, tmp_path, content):
    run = fails(cli, seeded_bank, 3, "apply", "-", input=content)
    assert run.stderr == "hymem: error: <stdin> has no operations (hint: give one JSON object per line)\n"
    ops = tmp_path / "ops.jsonl"
    ops.write_text(content)
    run = fails(cli, seeded_bank, 3, "apply", str(ops))
    assert run.stderr == f"hymem: error: {ops} has no operations (hint: give one JSON object per line)\n"


FORMAT_HINT = "(hint: see `hymem apply --help` for the format)"
ADD = {"op": "add", "text": "Alex likes tea."}
MALFORMED_OPERATIONS = [
    # id, the second line of the input, the error after "<stdin> line 2: "
    ("not-an-object", '["add", "Alex likes tea."]', f"expected a JSON object with an 'op' key {FORMAT_HINT}"),
    ("unknown-keys", json.dumps({**ADD, "size": 2, "colour": "red"}),
     "unknown key(s) colour, size (hint: known keys: event_time, evidence, op, reason, source_ids, speaker, target, text)"),
    *((f"{key}-not-a-string", json.dumps({**ADD, key: 5}), f"{key} must be a string")
      for key in ("op", "text", "reason", "evidence", "event_time", "speaker")),
    ("target-a-list", json.dumps({"op": "update", "target": [1], "text": "Alex lives in Oslo."}),
     'target must be a memory id such as "m12"'),
    ("source-ids-not-a-list", json.dumps({**ADD, "source_ids": "chat:1"}), "source_ids must be a list of strings"),
    ("no-op", json.dumps({"text": "Alex likes tea."}), f"unknown op '' (expected one of add, update, supersede, delete) {FORMAT_HINT}"),
    ("add-with-target", json.dumps({**ADD, "target": "m1"}), f"add takes no target {FORMAT_HINT}"),
    ("lone-surrogate", '{"op": "add", "text": "Alex likes \\ud800 tea."}',
     f"text is not valid Unicode (it holds a lone surrogate) {FORMAT_HINT}"),
    ("nested-too-deeply", "[" * 100_000, "invalid JSON (nested too deeply) (hint: each line must be one JSON object)"),
]


@pytest.mark.parametrize("line,error", [c[1:] for c in MALFORMED_OPERATIONS], ids=[c[0] for c in MALFORMED_OPERATIONS])
def test_apply_names_the_bad_line_the_problem_and_the_format(cli, seeded_bank, line, error):
    run = fails(cli, seeded_bank, 3, "apply", "-", input=ops_text(ADD) + line + "\n")
    assert run.stderr == f"hymem: error: <stdin> line 2: {error}\n"


def test_apply_invalid_utf8_on_stdin_names_stdin_and_the_line(cli, seeded_bank):
    run = fails(cli, seeded_bank, 3, "apply", "-", input=ops_text(ADD).encode() + b'{"op": "add", "text": "caf\xe9"}\n')
    assert run.stderr == ("hymem: error: <stdin> line 2: not valid UTF-8 (byte 0xe9)"
                          " (hint: convert it to UTF-8, e.g. iconv -f LATIN1 -t UTF-8 <stdin>)\n")


@pytest.mark.parametrize("args,input,needles", [
    (("apply", "MISSING"), None, ("no such file",)),
    (("apply", "-"), '{"op": "add", "text": \n', ("line 1", "invalid json")),
    (("apply", "-"), "", ("no operations",)),
    (("apply", "-"), ops_text({"op": "supersede", "target": "m1", "text": "x"}), ("needs a reason",)),
], ids=["missing", "malformed", "empty", "no-reason"])
def test_apply_bad_input_on_fresh_home_creates_no_bank(cli, home, tmp_path, args, input, needles):
    args = tuple(str(tmp_path / "ops.jsonl") if a == "MISSING" else a for a in args)
    one_error_line(cli(*args, input=input), 3, *needles)
    assert not (home / "bank.db").exists()


def test_apply_refused_on_fresh_home_creates_no_bank(cli, home):
    run = cli("apply", "-", input=ops_text({"op": "update", "target": "m1", "text": "Alex lives in Oslo."}))
    one_error_line(run, 5, "no bank")
    assert not (home / "bank.db").exists()


# ---------------------------------------------------------------------- unknown ids and revisions


@pytest.mark.parametrize("command", ["history", "show"])
@pytest.mark.parametrize("ref,needle", [("m99", "no memory m99"), ("99", "no memory m99"), ("xyz", "not a memory id"),
                                        ("m", "not a memory id"), ("m-1", "not a memory id"), ("", "not a memory id")])
def test_unknown_or_garbage_memory_id(cli, seeded_bank, command, ref, needle):
    fails(cli, seeded_bank, 4, command, ref, needles=(needle,))


@pytest.mark.parametrize("command", ["history", "show"])
def test_superscript_digit_memory_id(cli, seeded_bank, command):
    fails(cli, seeded_bank, 4, command, "m²", needles=("not a memory id",))


@pytest.mark.parametrize("command", ["history", "show"])
def test_huge_memory_id(cli, seeded_bank, command):
    fails(cli, seeded_bank, 4, command, "m99999999999999999999", needles=("m99999999999999999999",))


@pytest.mark.parametrize("target", ["m²", "m99999999999999999999"])
def test_apply_unparseable_target(cli, seeded_bank, target):
    fails(cli, seeded_bank, 4, "apply", "-", input=ops_text({"op": "update", "target": target, "text": "Alex lives in Oslo."}),
          needles=("operation 1",))


@pytest.mark.parametrize("args", [
    ("diff", "1", "99"),
    ("diff", "99"),
    ("diff", "99", "1"),
    ("search", "Seattle", "--as-of", "99"),
], ids=["diff-b", "diff-a-default-b", "diff-a", "search-as-of"])
def test_unknown_revision(cli, seeded_bank, args):
    fails(cli, seeded_bank, 4, *args, needles=("no revision 99",))


@pytest.mark.parametrize("args", [("diff", "1", "99999999999999999999"), ("search", "Seattle", "--as-of", "99999999999999999999")])
def test_huge_revision(cli, seeded_bank, args):
    fails(cli, seeded_bank, 4, *args, needles=("no revision",))


@pytest.mark.parametrize("args", [
    ("search", "Seattle"), ("search", "-"), ("history", "m1"), ("show", "m1"), ("log",), ("diff",), ("diff", "0", "1"),
])
def test_no_bank(cli, home, args):
    one_error_line(cli(*args, input="Seattle\n"), 5, "no bank", str(home / "bank.db"))
    assert not (home / "bank.db").exists()


# -------------------------------------------------------------------------------- locked bank


@pytest.fixture
def locked(seeded_bank, monkeypatch):
    """Another process holds the bank's write lock (BEGIN EXCLUSIVE) until the test releases it."""
    monkeypatch.setenv("HYMEM_BANK_BUSY_TIMEOUT", "0.3")
    conn = sqlean.connect(str(seeded_bank), isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    holder = {"conn": conn}

    def release():
        if holder["conn"] is not None:
            holder["conn"].execute("ROLLBACK")
            holder["conn"].close()
            holder["conn"] = None

    yield release
    release()


LOCKED_CASES = [
    (("add", "--raw", "-"), NEW),
    (("apply", "-"), ops_text({"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.", "reason": "moved"})),
]


@pytest.mark.parametrize("args,input", LOCKED_CASES, ids=["add", "apply"])
def test_locked_bank(cli, seeded_bank, locked, args, input):
    before = snapshot(seeded_bank)
    one_error_line(cli(*args, input=input), 5, "locked")
    locked()
    assert snapshot(seeded_bank) == before
    retry = cli(*args, input=input)
    assert retry.exit_code == 0, retry.stderr
    assert snapshot(seeded_bank) != before


def test_locked_bank_message_names_the_bank(cli, seeded_bank, locked):
    one_error_line(cli("add", "--raw", "-", input=NEW), 5, "locked", str(seeded_bank))


def test_locked_bank_still_readable(cli, seeded_bank, locked):
    hits = cli("search", "Seattle", "--format", "jsonl")
    assert hits.exit_code == 0, hits.stderr
    assert [h["id"] for h in hits.jsonl()] == ["m1"]


# ---------------------------------------------------------------------- newer, corrupt, mismatch


@pytest.mark.parametrize("args,input", [
    (("search", "Seattle"), None),
    (("add", "--raw", "-"), NEW),
    (("apply", "-"), ops_text({"op": "add", "text": "Alex likes tea."})),
    (("history", "m1"), None),
    (("show", "m1"), None),
    (("log",), None),
    (("diff",), None),
], ids=["search", "add", "apply", "history", "show", "log", "diff"])
def test_bank_from_newer_hymem(cli, seeded_bank, args, input):
    conn = sqlean.connect(str(seeded_bank), isolation_level=None)
    conn.execute("INSERT INTO migrations (name, applied_at) VALUES ('m999_future', datetime('now'))")
    conn.close()
    fails(cli, seeded_bank, 5, *args, input=input, needles=("newer hymem", "m999_future"))


@pytest.mark.parametrize("args,input", [
    (("search", "Seattle"), None),
    (("add", "--raw", "-"), NEW),
    (("apply", "-"), ops_text({"op": "add", "text": "Alex likes tea."})),
    (("history", "m1"), None),
    (("log",), None),
], ids=["search", "add", "apply", "history", "log"])
def test_corrupt_bank(cli, home, tmp_path, args, input):
    path = tmp_path / "corrupt.db"
    noise = random.Random(1234).randbytes(4096)
    path.write_bytes(noise)
    one_error_line(cli(*args, "--bank", str(path), input=input), 5, str(path), "not a valid hymem bank")
    assert path.read_bytes() == noise
    assert not (home / "bank.db").exists()


def test_bank_path_is_a_directory(cli, home, tmp_path):
    one_error_line(cli("add", "--raw", "-", "--bank", str(tmp_path), input=NEW), 5, "is a directory")


@pytest.mark.slow
@pytest.mark.parametrize("args,input", [
    (("add", "--raw", "-"), NEW),
    (("apply", "-"), ops_text({"op": "add", "text": "Alex likes tea."})),
    (("search", "Seattle"), None),
], ids=["add", "apply", "search"])
def test_embedder_mismatch(cli, home, monkeypatch, tmp_path, args, input):
    """A bank made with a model folder is used only with embed.model naming that folder (a packaged model the bank
    names is used whatever embed.model says: test_reembed.py)."""
    seeded = cli("add", "--raw", "-", input=SEED)  # HYMEM_EMBED_MODEL=hash, from quiet_env
    assert seeded.exit_code == 0, seeded.stderr
    folder = tmp_path / "their-model"
    raw_sql(home / "bank.db", f"UPDATE meta SET value = '{folder}' WHERE key = 'embed_model'")
    monkeypatch.delenv("HYMEM_EMBED_MODEL")  # back to the default, all-MiniLM-L6-v2
    fails(cli, home / "bank.db", 5, *args, input=input, needles=("their-model", "all-MiniLM-L6-v2"))


# ------------------------------------------------------------------------ config and queries


@pytest.mark.parametrize("args,input", [
    (("search", "Seattle"), None),
    (("add", "--raw", "-"), NEW),
    (("apply", "-"), ops_text({"op": "add", "text": "Alex likes tea."})),
    (("log",), None),
], ids=["search", "add", "apply", "log"])
def test_bad_config_value(cli, seeded_bank, monkeypatch, args, input):
    monkeypatch.setenv("HYMEM_SEARCH_LIMIT", "abc")
    fails(cli, seeded_bank, 2, *args, input=input, needles=("search.limit", "abc"))


def test_bad_config_value_on_fresh_home_creates_no_bank(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_SEARCH_LIMIT", "abc")
    one_error_line(cli("add", "--raw", "-", input=NEW), 2, "search.limit")
    assert not (home / "bank.db").exists()


@pytest.mark.parametrize("content,needles", [
    ("[search\nlimit = 3\n", ("config.toml", "not valid toml")),
    ("[search]\nlimmit = 3\n", ("config.toml", "search.limmit")),
], ids=["invalid-toml", "unknown-key"])
def test_bad_config_file(cli, seeded_bank, home, content, needles):
    (home / "config.toml").write_text(content)
    fails(cli, seeded_bank, 2, "search", "Seattle", needles=needles)


@pytest.mark.parametrize("query", ["", "   "])
def test_empty_query(cli, seeded_bank, query):
    fails(cli, seeded_bank, 3, "search", query, needles=("query is empty",))


def test_batch_query_invalid_utf8(cli, seeded_bank):
    fails(cli, seeded_bank, 3, "search", "-", input=b"\xff\xfeSeattle\n", needles=("<stdin> line 1", "utf-8"))


# ------------------------------------------------------------------------------------------ Ctrl-C

INTERRUPTED = "hymem: interrupted; chunks already committed are kept (re-run to resume)"


def test_ctrl_c_exits_130_with_its_one_line():
    """Whatever a command was doing, Ctrl-C ends it with the documented code and one line on stderr."""
    import typer
    from typer.testing import CliRunner

    from hymem_cli.app import guarded

    def stopped() -> None:
        raise KeyboardInterrupt

    app = typer.Typer()
    app.command()(guarded(stopped))
    run = CliRunner().invoke(app, [], catch_exceptions=False)
    assert run.exit_code == 130
    assert run.stderr.splitlines() == [INTERRUPTED] and run.stdout == ""


@pytest.mark.slow
def test_ctrl_c_on_a_pipe_keeps_what_was_committed(tmp_path):
    """A real process reading a pipe that stays open, stopped with SIGINT after its first chunk was stored."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYMEM_") or k == "HYMEM_CACHE"}
    env.update(HYMEM_HOME=str(home), HYMEM_EMBED_MODEL="hash")
    add = subprocess.Popen([sys.executable, "-m", "hymem_cli", "add", "--raw", "-i", "jsonl", "-"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=as_if_typed)
    try:
        add.stdin.write(json.dumps({"speaker": "Sam", "text": "I work at a bakery in Ballard."}).encode() + b"\n")
        add.stdin.flush()  # the input goes quiet: the open chunk is stored after the idle flush
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _stored(home / "bank.db"):
            time.sleep(0.1)
        add.send_signal(signal.SIGINT)
        out, err = add.communicate(timeout=30)
    finally:
        add.kill()
    assert add.returncode == 130, err.decode()
    assert err.decode().splitlines() == [INTERRUPTED] and out == b""
    assert _stored(home / "bank.db") == 1


def _stored(path: Path) -> int:
    if not path.exists():
        return 0
    conn = sqlean.connect(str(path))
    try:
        return conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    except sqlean.OperationalError:
        return 0
    finally:
        conn.close()


def test_an_error_reads_as_its_message_when_printed(tmp_path):
    """A library caller who prints or logs the exception sees hymem's message, as the command line shows it."""
    from hymem_cli._errors import HymemError
    from hymem_cli.bank import open_bank

    with pytest.raises(HymemError) as raised:
        open_bank(tmp_path / "missing.db", create=False)
    assert str(raised.value) == raised.value.message and "missing.db" in str(raised.value)
