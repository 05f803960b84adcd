"""`hymem export` and `hymem import`: a byte-identical round trip, rebuilt vectors, all-or-nothing imports."""

from __future__ import annotations

import json

import pytest
from conftest import one_error_line, snapshot

from hymem_cli.bank import open_bank

ROWS = ("revisions", "chunks", "versions", "retirements", "rejections")


def _tables(path):
    shot = snapshot(path)
    return {t: shot[t] for t in ROWS}


def test_export_import_export_is_byte_identical(cli, bank, tmp_path):
    first = cli("export")
    assert first.exit_code == 0, first.stderr
    assert "exported 2 revision(s)" in first.stderr
    records = first.jsonl()
    header = records[0]
    assert header == {"type": "hymem-export", "format": 2, "embed_model": "hash", "embed_dim": 384}
    kinds = [r["type"] for r in records[1:]]
    assert kinds == sorted(kinds, key=["revision", "chunk", "version", "retirement", "rejection"].index)
    assert kinds.count("revision") == 2 and kinds.count("version") == 14 and kinds.count("retirement") == 2
    version = next(r for r in records if r["type"] == "version" and r["id"] == "m13")  # ids as every command shows them
    assert version["chain"] == "m1" and version["op"] == "supersede" and version["source_ids"] == ["s2-1"]
    assert set(version) == {"type", "id", "chain", "op", "text", "speaker", "reason", "evidence", "revision", "chunk",
                            "source", "source_ids", "event_time", "created_at"}
    assert {r["version"]: r["how"] for r in records if r["type"] == "retirement"} == {"m1": "superseded", "m4": "deleted"}

    dump = tmp_path / "bank.jsonl"
    dump.write_text(first.stdout, encoding="utf-8")
    other = tmp_path / "other.db"
    imported = cli("import", str(dump), "--bank", str(other))
    assert imported.exit_code == 0, imported.stderr
    assert imported.stdout == "" and "imported 2 revision(s)" in imported.stderr

    again = cli("export", "--bank", str(other))
    assert again.stdout == first.stdout
    assert _tables(other) == _tables(bank)  # the very same rows, ids and JSON text included

    # New writes continue after the imported ids.
    cli("apply", "--bank", str(other), "-", input=json.dumps({"op": "add", "text": "Alex has a cat."}) + "\n")
    assert cli("show", "m15", "--bank", str(other), "-f", "json").json()["revision"] == 3


def test_export_to_a_file_matches_stdout(cli, bank, tmp_path):
    out = tmp_path / "backup.jsonl"
    done = cli("export", "-o", str(out))
    assert done.exit_code == 0 and done.stdout == ""
    assert out.read_text(encoding="utf-8") == cli("export").stdout
    assert not (tmp_path / "backup.jsonl.tmp").exists()


def test_search_and_history_work_after_import(cli, real_embedder, bank, tmp_path, monkeypatch):
    dump = tmp_path / "bank.jsonl"
    cli("export", "-o", str(dump))
    other = tmp_path / "other.db"
    assert cli("import", "-", "--bank", str(other), input=dump.read_bytes()).exit_code == 0  # stdin too

    query = ("search", "where does Alex live", "-f", "jsonl")
    hits = cli(*query, "--bank", str(other)).jsonl()
    assert "Surry Hills" in hits[0]["text"] and "Alex lives in Sydney, in Surry Hills." in [h["text"] for h in hits[:2]]
    assert [h["id"] for h in hits] == [h["id"] for h in cli(*query).jsonl()]
    # Vector search alone finds it too: the vectors were rebuilt, not just the full-text index.
    monkeypatch.setenv("HYMEM_SEARCH_TEXT_WEIGHT", "0")
    by_vector = cli("search", "Which city is Alex's home?", "--bank", str(other), "-f", "jsonl", "-n", "3").jsonl()
    assert "Alex lives in Sydney, in Surry Hills." in [h["text"] for h in by_vector]
    imported = open_bank(other)
    assert imported.conn.execute("SELECT count(*) FROM versions_vec").fetchone()[0] == 14
    assert imported.conn.execute("SELECT count(*) FROM versions_fts WHERE versions_fts MATCH 'Surry'").fetchone()[0] == 2
    imported.conn.close()
    history = cli("history", "m13", "--bank", str(other), "-f", "json").json()
    assert [(v["id"], v["status"]) for v in history] == [("m1", "superseded"), ("m13", "current")]


def test_import_recomputes_vectors_with_the_banks_embedder(cli, real_embedder, bank, tmp_path, monkeypatch):
    dump = tmp_path / "bank.jsonl"
    cli("export", "-o", str(dump))
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    other = tmp_path / "hashed.db"
    done = cli("import", str(dump), "--bank", str(other))
    assert done.exit_code == 0, done.stderr
    assert "recomputed with hash" in done.stderr
    lines = cli("export", "--bank", str(other)).stdout.splitlines()
    assert json.loads(lines[0])["embed_model"] == "hash"
    assert lines[1:] == dump.read_text().splitlines()[1:]
    assert cli("search", "Priya peanuts", "--bank", str(other), "-f", "jsonl").jsonl()[0]["text"].startswith("Alex: My sister Priya")


def test_current_export_imports_without_history(cli, bank, tmp_path):
    current = cli("export", "--current")
    records = current.jsonl()
    versions = [r for r in records if r["type"] == "version"]
    assert len(versions) == 12 and {r["type"] for r in records} == {"hymem-export", "revision", "chunk", "version"}
    assert "m1" not in [v["id"] for v in versions] and "m13" in [v["id"] for v in versions]

    other = tmp_path / "current.db"
    assert cli("import", "-", "--bank", str(other), input=current.stdout).exit_code == 0
    assert cli("export", "--bank", str(other)).stdout == current.stdout
    history = cli("history", "m13", "--bank", str(other), "-f", "json").json()
    assert [v["id"] for v in history] == ["m13"]  # the superseded m1 is gone
    hits = cli("search", "where does Alex live", "--all", "--bank", str(other), "-f", "jsonl").jsonl()
    assert "m13" in [h["id"] for h in hits[:2]] and all(h["status"] == "current" for h in hits)


def test_import_needs_an_empty_bank(cli, bank, tmp_path):
    dump = tmp_path / "bank.jsonl"
    cli("export", "-o", str(dump))
    before = snapshot(bank)
    one_error_line(cli("import", str(dump)), 5, "import needs an empty bank")
    assert snapshot(bank) == before


# A small export written by hand: every record type, a writer, a rejection, unicode and nulls.
HAND_MADE = [
    {"type": "hymem-export", "format": 2, "embed_model": "hash", "embed_dim": 384},
    {"type": "revision", "id": 1, "time": "2024-07-01T10:00:00.000000Z", "command": "add", "source": "chat.jsonl",
     "writer": {"backend": "llama", "model": "qwen.gguf", "prompt_version": 3}, "counts": {"chunks": 1, "added": 2, "seconds": 1.25},
     "state": "done"},
    {"type": "revision", "id": 3, "time": "2024-07-02T10:00:00.000000Z", "command": "apply", "source": "<stdin>",
     "writer": None, "counts": {"updated": 1}, "state": "done"},
    {"type": "chunk", "id": 5, "hash": "b2:abc", "revision": 1, "source": "chat.jsonl", "message_ids": ["c1", "c2"],
     "first_line": 1, "last_line": 2, "start_time": "2024-07-01T09:00:00Z", "end_time": None, "text": "Zoë: Ich wohne in Köln.\nBot: 👍"},
    {"type": "version", "id": "m7", "chain": "m7", "op": "add", "text": "Zoë lives in Köln.", "speaker": "Zoë", "reason": None,
     "evidence": "Ich wohne in Köln", "revision": 1, "chunk": 5, "source": "chat.jsonl", "source_ids": ["c1"],
     "event_time": "2024-07-01T09:00:00Z", "created_at": "2024-07-01T10:00:00.000000Z"},
    {"type": "version", "id": "m8", "chain": "m8", "op": "add", "text": "Zoë likes \"quoted\" things\tand tabs.", "speaker": None,
     "reason": None,
     "evidence": None, "revision": 1, "chunk": 5, "source": "chat.jsonl", "source_ids": [], "event_time": None,
     "created_at": "2024-07-01T10:00:00.000000Z"},
    {"type": "version", "id": "m9", "chain": "m7", "op": "update", "text": "Zoë lives in Köln-Ehrenfeld.", "speaker": "Zoë",
     "reason": "more precise",
     "evidence": None, "revision": 3, "chunk": None, "source": "<stdin>", "source_ids": ["c9"], "event_time": None,
     "created_at": "2024-07-02T10:00:00.000000Z"},
    {"type": "retirement", "version": "m7", "revision": 3, "how": "updated", "successor": "m9", "reason": "more precise"},
    {"type": "rejection", "id": 2, "revision": 1, "chunk": 5, "operation": {"op": "delete", "target": "m99", "reason": "ü"},
     "reason": "no memory m99"},
]


def _jsonl(records) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def test_hand_made_export_round_trips_byte_for_byte(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    text = _jsonl(HAND_MADE)
    done = cli("import", "-", input=text.encode("utf-8"))
    assert done.exit_code == 0, done.stderr
    assert cli("export").stdout == text
    log = cli("log", "-f", "json").json()
    assert [e["revision"] for e in log] == [3, 1] and log[1]["rejections"][0]["reason"] == "no memory m99"
    ids = [h["id"] for h in cli("search", "Köln", "-f", "jsonl").jsonl()]
    assert ids[0] == "m9" and "m7" not in ids  # m7 was updated: retired


def test_a_format_1_export_still_imports(cli, home, monkeypatch):
    """Exports of hymem before format 2: integer memory ids, and writer chunks keyed by their content alone."""
    from hymem_cli.domain import chunk_key

    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    numbers = lambda r: {k: int(v[1:]) if k in ("id", "chain", "version", "successor") and isinstance(v, str) and v[:1] == "m" else v  # noqa: E731
                         for k, v in r.items()}
    old = [{**HAND_MADE[0], "format": 1}] + [numbers(r) if r["type"] in ("version", "retirement") else r for r in HAND_MADE[1:]]
    assert old[4]["id"] == 7 and old[7]["successor"] == 9
    done = cli("import", "-", input=_jsonl(old).encode("utf-8"))
    assert done.exit_code == 0, done.stderr
    exported = cli("export").jsonl()
    rekeyed = chunk_key("b2:abc", HAND_MADE[1]["writer"])  # the chunk a writer stored, keyed by that writer now
    assert exported == [{**r, "hash": rekeyed} if r["type"] == "chunk" else r for r in HAND_MADE]


@pytest.mark.parametrize(
    "line, needles",
    [
        ("{not json", ["line 5", "invalid JSON"]),
        ('{"type": "memory", "id": 1}', ["line 5", "unknown record type", "memory"]),
        ('["a list"]', ["line 5", "JSON object"]),
        ('{"type": "version", "id": 9}', ["line 5", "lacks"]),
        (json.dumps({**HAND_MADE[4], "colour": "red"}), ["line 5", "unknown key", "colour"]),
        (json.dumps({**HAND_MADE[4], "id": 7}), ["line 5", "id must be a memory id such as \"m12\""]),
        (json.dumps({**HAND_MADE[4], "op": "merge"}), ["line 5", "merge"]),
        (json.dumps({**HAND_MADE[4], "revision": 2}), ["line 5", "revision 2", "lacks"]),
        (json.dumps(HAND_MADE[5]), ["line 6", "duplicate version 8"]),
        (json.dumps(HAND_MADE[0]), ["line 5", "second export header"]),
    ],
)
def test_a_bad_line_imports_nothing(cli, home, tmp_path, monkeypatch, line, needles):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    lines = _jsonl(HAND_MADE).splitlines()
    lines[4] = line  # line 5 of the file
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    one_error_line(cli("import", str(bad)), 3, *needles)
    assert snapshot(home / "bank.db") is None  # checked before the bank is even created

    # An existing, empty bank stays as it was too.
    assert cli("import", "--bank", str(tmp_path / "empty.db"), "-", input=_jsonl(HAND_MADE[:1])).exit_code == 0
    before = snapshot(tmp_path / "empty.db")
    one_error_line(cli("import", str(bad), "--bank", str(tmp_path / "empty.db")), 3, *needles)
    assert snapshot(tmp_path / "empty.db") == before


def test_header_is_required_and_checked(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    one_error_line(cli("import", "-", input=_jsonl(HAND_MADE[1:])), 3, "line 1", "header")
    one_error_line(cli("import", "-", input=_jsonl([{**HAND_MADE[0], "format": 3}, *HAND_MADE[1:]])), 3, "format 3", "reads formats 1, 2")
    one_error_line(cli("import", "-", input=""), 3, "empty")
    one_error_line(cli("import", "missing.jsonl"), 3, "no such file")
    assert snapshot(home / "bank.db") is None


def test_chunks_keep_their_lines_and_times_through_ingest_and_export(cli, home, monkeypatch):
    """Each chunk records the source lines its messages start on and its earliest and latest message time."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    lines = [
        {"id": "a1", "session": "s1", "speaker": "Alex", "text": "I live in Seattle.", "timestamp": "2024-05-01T10:05:00Z"},
        None,  # blank lines: line numbers are the file's, not the message count
        {"id": "a2", "session": "s1", "speaker": "Sam", "text": "Nice.", "timestamp": "2024-05-01T10:01:00Z"},
        {"id": "a3", "session": "s1", "speaker": "Alex", "text": "Yes, in Fremont.", "timestamp": "2024-05-01T10:03:00Z"},
        None,
        None,
        {"id": "b1", "session": "s2", "speaker": "Alex", "text": "I moved to Sydney."},
        {"id": "b2", "session": "s2", "speaker": "Sam", "text": "Wow.", "timestamp": "2024-06-01T09:00:00Z"},
        {"id": "c1", "session": "s3", "speaker": "Alex", "text": "No clock here."},
    ]
    text = "".join((json.dumps(m) if m else "") + "\n" for m in lines)
    added = cli("add", "--raw", "-i", "jsonl", "-", input=text)
    assert added.exit_code == 0, added.stderr
    expected = [
        (["a1", "a2", "a3"], 1, 4, "2024-05-01T10:01:00Z", "2024-05-01T10:05:00Z"),
        (["b1", "b2"], 7, 8, "2024-06-01T09:00:00Z", "2024-06-01T09:00:00Z"),
        (["c1"], 9, 9, None, None),
    ]
    stored = snapshot(home / "bank.db")["chunks"]
    b = open_bank(home / "bank.db")
    try:
        rows = [(json.loads(r["message_ids"]), r["first_line"], r["last_line"], r["start_time"], r["end_time"])
                for r in b.conn.execute("SELECT * FROM chunks ORDER BY id")]
    finally:
        b.close()
    assert len(stored) == 3 and rows == expected
    exported = [r for r in cli("export").jsonl() if r["type"] == "chunk"]
    assert [(r["message_ids"], r["first_line"], r["last_line"], r["start_time"], r["end_time"]) for r in exported] == expected


# A hostile export: each breaks a rule every bank holds; import refuses it, naming the line, and writes nothing.
@pytest.mark.parametrize("change, needles", [
    # m9 (the successor of m7) retired with m7 as its successor: a loop, and the fact has no current version
    (lambda recs: recs + [{"type": "retirement", "version": "m9", "revision": 3, "how": "updated", "successor": "m7", "reason": "loop"}],
     ["line 10", "m9", "not newer"]),
    # m8 retired by revision 1 although revision 3 ... made it: retire m9, made in 3, by 1
    (lambda recs: recs + [{"type": "retirement", "version": "m9", "revision": 1, "how": "deleted", "successor": None, "reason": "early"}],
     ["line 10", "m9", "retired by revision 1, before revision 3"]),
    # every version of m7's chain retired, none deleted: no current fact
    (lambda recs: recs + [{"type": "retirement", "version": "m9", "revision": 3, "how": "superseded", "successor": None, "reason": "gone"}],
     ["line 10", "chain m7 has no current version"]),
    # a 50,000-character fact with a NUL in it, from `apply` (not raw ingest)
    (lambda recs: [r if r.get("id") != "m9" else {**r, "text": "x" * 50_000} for r in recs],
     ["line 7", "50000 characters", "limit is 2000"]),
    (lambda recs: [r if r.get("id") != "m8" else {**r, "text": "Zoë\x00likes NULs"} for r in recs], ["line 6", "NUL"]),
    # a later version of m7's chain that says it is an add, and a chain that starts with an update
    (lambda recs: [r if r.get("id") != "m9" else {**r, "op": "add"} for r in recs], ["line 7", "m9", "says op 'add'", "not the first"]),
    (lambda recs: [r if r.get("id") != "m8" else {**r, "op": "update"} for r in recs],
     ["line 6", "m8", "says op 'update'", "starts a chain"]),
])
def test_an_export_breaking_the_chain_rules_imports_nothing(cli, home, monkeypatch, change, needles):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    one_error_line(cli("import", "-", input=_jsonl(change(list(HAND_MADE)))), 3, *needles)
    assert snapshot(home / "bank.db") is None


def test_import_redacts_what_apply_would(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    key = "AKIA" + "QX7MV2LRT5WN8HYP"
    records = [r if r.get("id") not in ("m8", 5) else {**r, "text": f"Zoë's AWS key is {key}"} for r in HAND_MADE]
    done = cli("import", "-", input=_jsonl(records))
    assert done.exit_code == 0, done.stderr
    assert "redacted 2 secret(s)" in done.stderr
    assert key.encode() not in b"".join(p.read_bytes() for p in home.glob("bank.db*"))
    assert "[REDACTED:aws-access-key]" in cli("show", "m8", "-f", "json").json()["text"]
