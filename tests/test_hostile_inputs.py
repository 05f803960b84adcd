"""Hostile input that tests/test_errors.py does not cover: huge lines, broken models, a writer that hangs
or talks nonsense, odd JSON and Unicode, and text built to make the screens' regular expressions slow.

Decisions, as tested here:
- A 10 MB single line is one message: raw mode stores it whole (secrets redacted), the writer path
  hands it to the writer like any other chunk (the scripted writer here; a real model whose context
  it overflows fails with exit 6 and stores nothing, see the llama backend). No screen is quadratic.
- A model file that is not a GGUF, is truncated, or has an architecture llama.cpp cannot load is a
  writer error (exit 6): one line on stderr, nothing on stdout, the bank untouched.
- A writer server that does not answer in writer.timeout is exit 6 with the bank as it was
  (chunks committed before the failure stay, whole, and a re-run resumes).
- A writer that answers garbage, invents aliases or targets retired memories gets each proposal
  recorded as a rejection with its reason; nothing malformed is stored.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlean
from conftest import one_error_line, snapshot
from fakes import FakeServer, find_test_gguf
from test_backends import build_gguf

from hymem_cli import screen
from hymem_cli.bank import open_bank
from hymem_cli.bank.history import revisions
from hymem_cli.embed import HashEmbedder
from hymem_cli.ingest.pipeline import ingest
from hymem_cli.ingest.processors import WriterProcessor
from hymem_cli.ingest.sources import open_sources
from hymem_cli.screen import Screen
from hymem_cli.writer.schema import MAX_FACT_CHARS
from hymem_cli.writer.scripted import ScriptedBackend

MB = 1 << 20


@pytest.fixture(autouse=True)
def quiet_env(home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    for var in ("HYMEM_WRITER_BACKEND", "HYMEM_WRITER_MODEL", "HYMEM_WRITER_BASE_URL", "HYMEM_WRITER_PIPELINE",
                "HYMEM_WRITER_TIMEOUT", "HYMEM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def unchanged(cli, bank: Path, code: int, *args: str, needles=(), input=None):
    before = snapshot(bank)
    run = cli(*args, input=input)
    one_error_line(run, code, *needles)
    assert snapshot(bank) == before
    return run


def rows(path: Path, sql: str) -> list:
    conn = sqlean.connect(str(path))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# ------------------------------------------------------------------------------ 10 MB lines


def hostile_text(size: int) -> str:
    """`size` characters that exercise every screen: runs built against each pattern, words, non-Latin text."""
    runs = ["a-", "sk-", "1 ", "4111 ", "Bearer x", "password: x ", "ignore all previous ", "eyJ", "AKIA", "a/", "DE89 ",
            "SYSTEM: ", "é€😀 ", "the ai must ", "from now on ", "x://u:"]
    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(20000)]
    piece = size // (len(runs) + 4)
    parts = [(r * (piece // len(r) + 1))[:piece] for r in runs]
    prose, n = [], 0
    while n < size - sum(map(len, parts)):
        w = rng.choice(words)
        prose.append(w)
        n += len(w) + 1
    parts.append(" ".join(prose))
    return " | ".join(parts)[:size]


# Runs its arguments as its only child and reports that child's peak RSS: this process's own RUSAGE_CHILDREN would
# report the largest of every child the test session ever waited for (a model loaded by another test, say).
_PEAK_OF_ONE_CHILD = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
                      "sys.stderr.write('\\nPEAK_KIB=%d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
                      "sys.exit(done.returncode)")


def run_measured(args: list[str], env: dict, timeout: float) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run hymem in a child; (result, seconds, that child's peak RSS in MiB)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _PEAK_OF_ONE_CHILD, sys.executable, "-m", "hymem_cli", *args], env=env,
                          capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - started
    stderr, _, peak = done.stderr.rpartition("\nPEAK_KIB=")
    done.stderr = stderr
    return done, seconds, int(peak.strip()) / 1024


@pytest.mark.slow
def test_10mb_jsonl_line_is_one_raw_message(tmp_path, home):
    text = hostile_text(10 * MB)
    path = tmp_path / "huge.jsonl"
    path.write_text(json.dumps({"id": "big-1", "speaker": "Alex", "text": text}, ensure_ascii=False) + "\n", encoding="utf-8")
    env = {**os.environ, "HYMEM_HOME": str(home), "HYMEM_EMBED_MODEL": "hash"}
    done, seconds, peak_mib = run_measured(["add", "--raw", str(path)], env, timeout=400)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 message(s) read, 1 added" in done.stderr
    (stored,) = rows(home / "bank.db", "SELECT text, source_ids FROM versions")
    assert json.loads(stored[1]) == ["big-1"] and stored[0].startswith("Alex: a-a-a-")
    assert len(stored[0]) > 9 * MB  # one message, whole (a few redactions aside)
    assert seconds < 400 and peak_mib < 1500, (seconds, peak_mib)  # a runaway guard, not a speed figure


@pytest.mark.slow
def test_10mb_text_line_through_the_writer(tmp_path, home):
    rng = random.Random(9)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(50000)]
    body = " ".join(rng.choice(words) for _ in range(10 * MB // 6))[: 10 * MB]
    path = tmp_path / "huge.txt"
    path.write_text(f"Alex: {body}\n", encoding="utf-8")
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"operations": [{"op": "add", "text": "Alex sent a very long message.", "evidence": body[:40]}]}) + "\n")
    env = {**os.environ, "HYMEM_HOME": str(home), "HYMEM_EMBED_MODEL": "hash"}
    done, seconds, peak_mib = run_measured(["add", "--backend", "scripted", "--model", str(replies), str(path)], env, timeout=720)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 added" in done.stderr
    assert rows(home / "bank.db", "SELECT text FROM versions WHERE layer IS NULL") == [("Alex sent a very long message.",)]
    assert rows(home / "bank.db", "SELECT count(*) FROM versions WHERE layer = 'message'") == [(1,)]  # the message, stored first
    # A guard against runaway (quadratic) work, not a speed figure: 386 s on a two-core machine alone (quadratic work on
    # 10 MB would take hours).
    assert seconds < 600 and peak_mib < 1500, (seconds, peak_mib)


PATHOLOGICAL = ["a-", "a/", "sk-", "sk-ant-", "eyJ", "ghp_", "xoxb-", "AKIA", "aB3", "a1-", "1 ", "1-", "4111 ", "4 ", "DE89 ",
                "Bearer ", "basic ", "password ", "password is ", "token: ", "pin ", "x://u:", "-----BEGIN PRIVATE KEY-----",
                "12345678:AA", "SG.", "M" * 24 + ".", "\n", " ", "ignore ", "ignore all ", "system ", "SYSTEM:", " from now on ",
                "you must ", "the ai ", "send the conversation ", "curl x ", "@copilot ", "[ADMIN] ", "whenever someone asks, ",
                "Passphrase: ", "ssn ", "123-45-", "wallet seed " + "q" * 200 + " "]  # a word longer than a seed's letters


def _screen_seconds(text: str) -> float:
    started = time.monotonic()
    screen.Screen().redact(text)
    screen.find_instruction(text[: len(text) // 4])
    return time.monotonic() - started


@pytest.mark.slow  # 50 KB and 200 KB of each pathological run through every screen (about 40 s)
def test_screens_are_linear_on_pathological_text():
    """Four times the text may take about four times as long, never sixteen (the first version of the token
    patterns took 18 s on 40 KB of "a-"). A ratio, so a loaded machine does not fail it; a run too quick to
    time well is left out of the ratio."""
    superlinear = {}
    for token in PATHOLOGICAL:
        small, large = (token * (size // len(token)) for size in (50_000, 200_000))
        small_s, large_s = _screen_seconds(small), _screen_seconds(large)
        if large_s > 0.5 and large_s / max(small_s, 0.05) > 9:
            superlinear[token] = (round(small_s, 2), round(large_s, 2))
    assert superlinear == {}


def test_screen_time_grows_linearly():
    small, large = "a-sk-1 4111 " * 4_000, "a-sk-1 4111 " * 40_000
    t0 = time.monotonic()
    screen.Screen().redact(small)
    t1 = time.monotonic()
    screen.Screen().redact(large)
    t2 = time.monotonic()
    assert (t2 - t1) < 40 * max(t1 - t0, 0.005)  # 10x the text, far less than 100x the time


# ------------------------------------------------------------------------------ broken models


def test_model_that_is_not_a_gguf(cli, seeded_bank, tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"PK\x03\x04 a zip file, not a model\n" * 100)
    unchanged(cli, seeded_bank, 6, "add", "--model", str(fake), "-", input="Sam: hi\n", needles=("model.gguf", "not a GGUF"))


def test_truncated_gguf(cli, seeded_bank, tmp_path):
    real = find_test_gguf()
    data = Path(real).read_bytes()[: 3 * MB] if real else build_gguf(
        [("general.architecture", 8, "llama")], tensors=[("w", [64, 64], 0, 0)], data=b"\0" * 16384)[:-4096]
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data)
    # The meaning, not a sentence: whether hymem's own check or llama.cpp notices first (and llama.cpp's
    # wording differs between builds), a cut model is a writer error that names the file.
    unchanged(cli, seeded_bank, 6, "add", "--model", str(cut), "-", input="Sam: hi\n", needles=("cut.gguf",))


def test_empty_model_file(cli, seeded_bank, tmp_path):
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    unchanged(cli, seeded_bank, 6, "add", "--model", str(empty), "-", input="Sam: hi\n", needles=("empty.gguf",))


@pytest.mark.parametrize("kvs,needle", [
    ([("general.architecture", 8, "fancyarch9000"), ("general.name", 8, "toy")], "unknown model architecture"),
    ([("general.architecture", 8, "llama"), ("general.name", 8, "hollow")], "failed to load"),  # known, but no tensors it needs
], ids=["unknown-architecture", "llama-without-tensors"])
def test_architecture_llama_cpp_cannot_load(cli, seeded_bank, tmp_path, kvs, needle, llama_cpp):
    path = tmp_path / "odd.gguf"
    path.write_bytes(build_gguf(kvs, tensors=[("w", [4, 4], 0, 0)], data=b"\0" * 64))
    unchanged(cli, seeded_bank, 6, "add", "--model", str(path), "-", input="Sam: hi\n", needles=("odd.gguf", needle))


# ------------------------------------------------------------------------------ writer server


def test_writer_server_times_out(cli, seeded_bank, monkeypatch):
    """HYMEM_WRITER_TIMEOUT=0.5 and a server that sleeps: exit 6 naming the timeout, no fact changed, the message kept
    and its chunk queued. (A server that is down: tests/test_writer_cli.py::test_writer_server_down_loses_nothing_and_says_so.)"""
    server = FakeServer().start()
    try:
        server.behaviours = [("sleep", 2.0)] * 6
        monkeypatch.setenv("HYMEM_WRITER_TIMEOUT", "0.5")
        before = rows(seeded_bank, "SELECT id, text FROM versions")
        started = time.monotonic()
        run = cli("add", "--backend", "openai", "--base-url", server.base_url, "-", input="Sam: I moved to Oslo.\n")
        one_error_line(run, 6, "timed out")
        assert time.monotonic() - started < 15
        assert 1 <= len(server.requests) <= 3  # retried, then given up
        assert rows(seeded_bank, "SELECT id, text FROM versions") == [*before, (len(before) + 1, "Sam: I moved to Oslo.")]
        assert rows(seeded_bank, "SELECT state, attempts FROM queue") == [("queued", 1)]
    finally:
        server.stop()


def test_writer_server_times_out_mid_ingest_keeps_whole_chunks(cli, home, monkeypatch, tmp_path):
    chat = tmp_path / "chat.jsonl"
    chat.write_text("".join(json.dumps({"id": f"c{i}", "session": f"s{i}", "speaker": "Sam", "text": f"I adopted cat number {i}."}) + "\n"
                            for i in range(3)))

    def ok(i):
        return "ok", json.dumps({"operations": [{"op": "add", "text": f"Sam adopted cat number {i}.", "evidence": f"cat number {i}"}]})

    server = FakeServer().start()
    try:
        monkeypatch.setenv("HYMEM_WRITER_TIMEOUT", "0.5")
        server.behaviours = [ok(0), ("sleep", 2.0), ("sleep", 2.0), ("sleep", 2.0)]
        run = cli("add", "--backend", "openai", "--base-url", server.base_url, "--protocol", "hymem", str(chat))
        one_error_line(run, 6, "timed out")
        assert rows(home / "bank.db", "SELECT text FROM versions WHERE layer IS NULL") == [("Sam adopted cat number 0.",)]
        assert revisions(open_bank(home / "bank.db", create=False))[0]["state"] == "interrupted"
        server.behaviours = [ok(1), ok(2)]
        again = cli("add", "--backend", "openai", "--base-url", server.base_url, "--protocol", "hymem", str(chat))
        assert again.exit_code == 0, again.stderr
        assert sorted(r[0] for r in rows(home / "bank.db", "SELECT text FROM versions WHERE layer IS NULL")) == [
            f"Sam adopted cat number {i}." for i in range(3)]
    finally:
        server.stop()


# ------------------------------------------------------------------------------ garbage writers

GARBAGE_TRANSCRIPT = "".join(
    json.dumps({"id": f"g{i}", "session": f"s{i}", "speaker": "Alex", "timestamp": f"2024-03-0{i + 1}T10:00:00Z", "text": text}) + "\n"
    for i, text in enumerate([
        "I live in Seattle and I work at a bakery.",
        "I moved to Sydney last month.",
        "My dog is called Rex.",
        "I started learning Portuguese.",
        "I quit the bakery job.",
        "I ran a marathon in Sydney.",
    ])
)

GARBAGE_REPLIES = [
    json.dumps({"operations": [{"op": "add", "text": "Alex lives in Seattle.", "evidence": "I live in Seattle"}]}),
    "Sure! Alex moved to Sydney, that's what I'd store.",  # not JSON
    json.dumps({"operations": "add Rex"}),  # wrong shape
    json.dumps([{"op": "add", "text": "Alex learns Portuguese.", "evidence": "learning Portuguese"}]),  # not an object
    json.dumps({"operations": [
        42, None, "add", [], {"op": "merge", "text": "x", "evidence": "bakery"},
        {"op": "supersede", "target": 99, "text": "Alex is unemployed.", "reason": "quit", "evidence": "quit the bakery"},
        {"op": "supersede", "target": "1", "text": "Alex is unemployed.", "reason": "quit", "evidence": "quit the bakery"},
        {"op": "delete", "target": True, "reason": "quit", "evidence": "quit the bakery"},
        {"op": "update", "target": 1.0, "text": "Alex is unemployed.", "evidence": "quit the bakery"},
        {"op": "add", "text": "", "evidence": "quit the bakery"},
        {"op": "add", "text": "x" * (MAX_FACT_CHARS + 1), "evidence": "quit the bakery"},
        {"op": "add", "text": "Alex owns a yacht.", "evidence": "I bought a yacht"},
        {"op": "add", "text": "Alex quit the bakery job.", "evidence": "quit the bakery", "confidence": 0.3},
        {"op": "add", "text": "Alex quit the bakery job.", "evidence": "I quit"},
        {"op": "add", "text": "bad \ud800 surrogate", "evidence": "quit the bakery"},
    ]}),
    "[" * 50000 + "]" * 50000,  # nested too deeply for the JSON parser
]


def test_garbage_writer_is_recorded_and_nothing_malformed_is_stored(cli, home, tmp_path):
    chat = tmp_path / "chat.jsonl"
    chat.write_text(GARBAGE_TRANSCRIPT)
    replies = tmp_path / "replies.jsonl"
    replies.write_text("\n".join(GARBAGE_REPLIES) + "\n")
    run = cli("add", "--backend", "scripted", "--model", str(replies), str(chat))
    assert run.exit_code == 0, run.stderr
    entry = cli("log", "-f", "json").json()[0]
    c = entry["counts"]
    assert c["chunks"] == 6 and c["applied"] == 2, c  # Seattle, and one "quit the bakery" (the second is a duplicate)
    assert c["proposed"] == c["applied"] + c["rejected"]
    reasons = [r["reason"] for r in entry["rejections"]]
    assert reasons.count("writer answer is not the JSON object asked for") == 4  # prose, wrong shape, a list, too deep
    for needle in ("not an object: the writer sent a number", "unknown operation 'merge'",
                   "must name one of the memories shown (1); it named 99",
                   "it named '1'", "it named True", "it named 1.0", "an add needs the text to store; it gave none", "longer than 400",
                   "does not occur in the chunk", "duplicate", "not valid Unicode"):
        assert any(needle in why for why in reasons), (needle, reasons)
    chunk_text = "\n".join(r[0] for r in rows(home / "bank.db", "SELECT text FROM chunks"))
    for text, evidence, source_ids in rows(home / "bank.db", "SELECT text, evidence, source_ids FROM versions WHERE layer IS NULL"):
        assert 0 < len(text) <= MAX_FACT_CHARS and text == text.strip()
        assert evidence.casefold() in chunk_text.casefold() and json.loads(source_ids)
    for r in entry["rejections"]:
        json.dumps(r, ensure_ascii=False).encode("utf-8")  # every record is printable, valid Unicode


def test_operation_on_a_memory_retired_meanwhile(tmp_path):
    """The writer is shown m1; before its answer lands another process supersedes m1. The refusal is recorded."""
    path = tmp_path / "bank.db"
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder())
    (tmp_path / "a.txt").write_text("Alex: I live in Seattle.\n")
    ingest(bank, open_sources([str(tmp_path / "a.txt")]), WriterProcessor(ScriptedBackend([
        {"operations": [{"op": "add", "text": "Alex lives in Seattle.", "evidence": "I live in Seattle"}]}]), Screen()))

    def meanwhile(messages):
        other = open_bank(path)  # a second connection, as another hymem process would have
        other.bind_embedder(HashEmbedder())
        from hymem_cli.domain import Operation

        other.apply_operations([Operation(op="supersede", target="m1", text="Alex lives in Portland.", reason="moved")], "apply", "other")
        other.conn.close()
        return {"operations": [
            {"op": "supersede", "target": 1, "text": "Alex lives in Sydney.", "reason": "moved", "evidence": "I moved to Sydney"},
            {"op": "add", "text": "Alex moved to Sydney.", "evidence": "I moved to Sydney"}]}

    (tmp_path / "b.txt").write_text("Alex: I moved to Sydney.\n")
    report = ingest(bank, open_sources([str(tmp_path / "b.txt")]), WriterProcessor(ScriptedBackend([meanwhile]), Screen()))
    assert report.counts["applied"] == 1 and report.counts["rejected"] == 1
    (rejection,) = revisions(bank)[0]["rejections"]
    assert "m1 was already superseded; the current version is m2" in rejection["reason"]
    heads = [r[0] for r in bank.conn.execute(
        "SELECT text FROM versions v WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id) ORDER BY id")]
    assert heads == ["Alex lives in Portland.", "Alex moved to Sydney."]  # no chain has two heads
    bank.conn.close()


# ------------------------------------------------------------------------------ odd JSON and Unicode


def test_apply_lone_surrogate_is_an_input_error(cli, seeded_bank):
    unchanged(cli, seeded_bank, 3, "apply", "-", input='{"op": "add", "text": "bad \\ud800 text"}\n',
              needles=("line 1", "not valid Unicode"))


def test_apply_nested_too_deeply_is_an_input_error(cli, seeded_bank):
    unchanged(cli, seeded_bank, 3, "apply", "-", input="[" * 100000 + "]" * 100000 + "\n", needles=("line 1", "nested too deeply"))


def test_import_nested_too_deeply_is_an_input_error(cli, seeded_bank, tmp_path):
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100000 + "]" * 100000 + "\n")
    unchanged(cli, seeded_bank, 3, "import", str(deep), needles=("line 1", "nested too deeply"))


def test_error_line_stays_one_line_with_newlines_in_names(cli, seeded_bank, tmp_path):
    unchanged(cli, seeded_bank, 3, "apply", "-", input=json.dumps({"op": "add", "text": "x", "bad\nkey\r\n": 1}) + "\n",
              needles=("unknown key",))
    unchanged(cli, seeded_bank, 3, "add", "--raw", str(tmp_path / "two\nlines.txt"), needles=("no such file",))


def test_transcript_with_lone_surrogates_and_nul_is_stored_cleanly(cli, home, tmp_path):
    chat = tmp_path / "odd.jsonl"
    chat.write_text('{"speaker": "Alex", "text": "bad \\ud800 half pair"}\n{"speaker": "Sam", "text": "nul \\u0000 inside"}\n')
    run = cli("add", "--raw", str(chat))
    assert run.exit_code == 0, run.stderr
    texts = [r[0] for r in rows(home / "bank.db", "SELECT text FROM versions ORDER BY id")]
    assert texts[0] == "Alex: bad \ufffd half pair" and len(texts) == 2
    for t in texts:
        t.encode("utf-8")
    hits = cli("search", "half pair", "-f", "jsonl")
    assert hits.exit_code == 0 and hits.jsonl()
