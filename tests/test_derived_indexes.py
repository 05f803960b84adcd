"""Every index derived from the versions survives export and import as it was, and `Bank.verify` notices one out of step.

The rows export writes are compared by test_transfer.py; here it is what import rebuilds: both full-text indexes (their
terms, read through fts5vocab, and their documents' sizes), the vectors, their sign-bit codes, blocks and float16 copies.
"""

from __future__ import annotations

import json

import pytest
from conftest import ALEX_JSONL, ops_text, raw_sql

from hymem_cli.bank import open_bank

# Every table derived from the versions: a virtual table, or one named versions_*. A new one fails
# test_every_derived_index_is_compared until it is compared here.
DERIVED = {"versions_fts", "versions_sources_fts", "versions_vec", "versions_codes", "versions_f16", "versions_code_blocks"}
FULL_TEXT = ("versions_fts", "versions_sources_fts")

CHAT = [
    {"id": "c1", "session": "c", "timestamp": "2024-07-01T10:00:00Z", "speaker": "Maya",
     "text": "We adopted a retired greyhound from the track last week, his name is Biscuit."},
    {"id": "c2", "session": "c", "timestamp": "2024-07-01T10:01:00Z", "speaker": "Lin", "text": "Oh how lovely, send photos."},
    {"id": "c3", "session": "c", "timestamp": "2024-07-01T10:02:00Z", "speaker": "Maya",
     "text": "I also started pottery classes on Thursdays at the community kiln."},
]
FACTS = {"Maya has a dog named Biscuit.": "adopted a retired greyhound",
         "Maya takes pottery classes on Thursdays.": "started pottery classes"}


@pytest.fixture
def writer_bank(cli, home, tmp_path):
    """home/bank.db: examples/alex.jsonl added raw (m1..m12, each with its previous turn as context), an apply, and a chat
    through `hymem add` with a scripted writer: its three messages, and two writer's facts with their source messages."""
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    assert cli("apply", "-", input=ops_text({"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.",
                                             "reason": "Alex moved."},
                                            {"op": "delete", "target": "m4", "reason": "not a fact"})).exit_code == 0
    chat = tmp_path / "chat.jsonl"
    chat.write_text("".join(json.dumps(m) + "\n" for m in CHAT), encoding="utf-8")
    replies = tmp_path / "replies.jsonl"
    reply = {"operations": [{"op": "add", "text": text, "evidence": evidence} for text, evidence in FACTS.items()]}
    replies.write_text(json.dumps(reply) + "\n", encoding="utf-8")
    added = cli("add", "--backend", "scripted", "--model", str(replies), str(chat))
    assert added.exit_code == 0, added.stderr
    path = home / "bank.db"
    bank = open_bank(path, create=False)
    try:
        facts = bank.conn.execute("SELECT v.text, v.context FROM versions v JOIN revisions r ON r.id = v.revision "
                                  "WHERE r.writer IS NOT NULL AND v.layer IS NULL ORDER BY v.id").fetchall()
    finally:
        bank.close()
    assert [text for text, _ in facts] == list(FACTS)
    assert "greyhound" in facts[0][1] and "kiln" in facts[1][1]  # each fact holds the messages it came from
    return path


def _tables(conn) -> dict[str, str]:
    return {name: sql or "" for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'")}


def derived(path) -> dict[str, list]:
    """What each derived index holds, read as its contents rather than its pages (an index built in one transaction
    is laid out unlike one built over several, yet holds the same): a full-text index's every (term, document,
    column, offset) and each document's size; every other table's rows in key order."""
    bank = open_bank(path, create=False)
    conn = bank.conn
    try:
        found: dict[str, list] = {}
        for fts in FULL_TEXT:
            conn.execute(f"CREATE VIRTUAL TABLE temp.{fts}_terms USING fts5vocab(main, {fts}, 'instance')")
            found[fts] = conn.execute(f"SELECT term, doc, col, offset FROM temp.{fts}_terms ORDER BY doc, col, offset, term").fetchall()
            found[f"{fts} sizes"] = conn.execute(f"SELECT id, sz FROM {fts}_docsize ORDER BY id").fetchall()
        found["versions_vec"] = conn.execute("SELECT rowid, embedding FROM versions_vec ORDER BY rowid").fetchall()
        found["versions_codes"] = conn.execute("SELECT version, bits FROM versions_codes ORDER BY version").fetchall()
        found["versions_f16"] = conn.execute("SELECT version, embedding FROM versions_f16 ORDER BY version").fetchall()
        found["versions_code_blocks"] = conn.execute("SELECT last, ids, bits FROM versions_code_blocks ORDER BY last").fetchall()
        found["embedder"] = conn.execute("SELECT key, value FROM meta WHERE key IN ('embed_model', 'embed_dim') ORDER BY key").fetchall()
        return found
    finally:
        bank.close()


def _imported(cli, path, tmp_path):
    dump = tmp_path / "backup.jsonl"
    exported = cli("export", "--bank", str(path), "-o", str(dump))
    assert exported.exit_code == 0, exported.stderr
    other = tmp_path / "restored.db"
    imported = cli("import", str(dump), "--bank", str(other))
    assert imported.exit_code == 0, imported.stderr
    return other


def test_every_derived_index_is_compared(writer_bank):
    bank = open_bank(writer_bank, create=False)
    try:
        tables = _tables(bank.conn)
    finally:
        bank.close()
    virtual = {name for name, sql in tables.items() if sql.upper().startswith("CREATE VIRTUAL TABLE")}
    shadows = {name for name in tables if any(name.startswith(v + "_") for v in virtual)}
    assert {name for name in tables if name in virtual or name.startswith("versions_")} - shadows == DERIVED
    assert set(derived(writer_bank)) >= DERIVED


def test_export_then_import_rebuilds_every_derived_index_as_it_was(cli, writer_bank, tmp_path):
    before = derived(writer_bank)
    assert len(before["versions_sources_fts sizes"]) == len(FACTS)  # the facts, not the raw messages with their contexts
    assert len(before["versions_fts sizes"]) == len(before["versions_vec"]) == 18  # 15 memories, and the chat's 3 messages
    other = _imported(cli, writer_bank, tmp_path)
    after = derived(other)
    assert {name: len(rows) for name, rows in after.items()} == {name: len(rows) for name, rows in before.items()}
    assert after == before
    for path in (writer_bank, other):
        bank = open_bank(path, create=False)
        try:
            failed = [(f.check, f.detail) for f in bank.verify() if f.status != "ok"]
        finally:
            bank.close()
        assert failed == []


def test_a_restored_bank_finds_a_fact_by_its_source_messages_words(cli, writer_bank, tmp_path, monkeypatch):
    other = _imported(cli, writer_bank, tmp_path)
    monkeypatch.setenv("HYMEM_SEARCH_VECTOR_WEIGHT", "0")
    monkeypatch.setenv("HYMEM_SEARCH_MIN_SCORE", "0")  # a match by its sources alone scores below the default floor
    for path in (writer_bank, other):
        query = ("search", "greyhound", "--bank", str(path), "-f", "jsonl")
        assert "Maya has a dog named Biscuit." not in [h["text"] for h in cli(*query).jsonl()]  # not by its own words
        monkeypatch.setenv("HYMEM_SEARCH_SOURCES_WEIGHT", "0.5")
        hits = cli(*query).jsonl()
        monkeypatch.delenv("HYMEM_SEARCH_SOURCES_WEIGHT")
        assert hits and hits[0]["text"] == "Maya has a dog named Biscuit.", (path, hits)


def _verify_failures(path) -> dict[str, str]:
    bank = open_bank(path, create=False)
    try:
        return {f.check: f.detail for f in bank.verify() if f.status != "ok"}
    finally:
        bank.close()


def test_verify_names_a_fact_missing_from_the_source_messages_index(writer_bank):
    fact = 18  # the second writer's fact: m1..m12 raw, m13 the supersede, m14..m16 the chat's messages, m17 and m18 the facts
    raw_sql(writer_bank, "INSERT INTO versions_sources_fts (versions_sources_fts, rowid, context) "
                          f"SELECT 'delete', id, context FROM versions WHERE id = {fact}")
    assert _verify_failures(writer_bank) == {
        "index: source messages": f"1 index rows for 2 versions (one per writer's fact with source messages); missing: m{fact}"}


def test_verify_names_a_raw_message_in_the_source_messages_index(writer_bank):
    raw_sql(writer_bank, "INSERT INTO versions_sources_fts (rowid, context) SELECT id, context FROM versions WHERE id = 2")
    assert _verify_failures(writer_bank) == {
        "index: source messages": "3 index rows for 2 versions (one per writer's fact with source messages); rows it should not hold: m2"}


@pytest.mark.parametrize("table, column", [("versions_codes", "version"), ("versions_f16", "version"), ("versions_vec", "rowid")])
def test_verify_names_a_version_missing_from_a_vector_index(writer_bank, table, column):
    statements = [f"DELETE FROM {table} WHERE {column} = 7"]
    if table == "versions_codes":  # its block too, else the block check is what fails
        statements.append("DELETE FROM versions_code_blocks")
    raw_sql(writer_bank, *statements)
    name = {"versions_codes": "index: vector codes", "versions_f16": "index: vector copies", "versions_vec": "index: vectors"}[table]
    assert _verify_failures(writer_bank) == {name: "17 index rows for 18 versions (one per version); missing: m7"}
