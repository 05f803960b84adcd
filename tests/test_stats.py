"""`hymem stats` and `Bank.stats()`: counts checked against a bank of known content, each format, an empty bank, a missing one."""

from __future__ import annotations

import pytest
from conftest import one_error_line

from hymem_cli.bank import open_bank
from hymem_cli.bank.stats import OTHERS, part_of, size_by_part
from hymem_cli.bank.store import RevisionDraft
from hymem_cli.domain import ChunkRecord, Operation, Proposal, Rejection
from hymem_cli.embed import HashEmbedder

WRITER = {"backend": "scripted", "model": "queue", "model_hash": "b2:00", "prompt_version": "1", "protocol": "hymem"}


@pytest.fixture
def known(home):
    """Revision 1 (apply, a.jsonl): four adds, Alex 2, Sam 1, no speaker 1. Revision 2 (apply, b.jsonl): update m1,
    supersede m2, delete m3. Revision 3 (add, chat.jsonl, a writer): one chunk, one add by Sam, three rejections."""
    path = home / "bank.db"
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder())
    bank.apply_operations([
        Operation("add", text="Alex lives in Seattle.", speaker="Alex", event_time="2024-03-01T10:00:00Z"),
        Operation("add", text="Alex has a cat.", speaker="Alex", event_time="2024-01-05T09:00:00Z"),
        Operation("add", text="Sam likes tea.", speaker="Sam"),
        Operation("add", text="The office is on 5th."),
    ], "apply", "a.jsonl")
    bank.apply_operations([
        Operation("update", target="m1", text="Alex lives in Seattle, near the lake.", reason="more precise"),
        Operation("supersede", target="m2", text="Alex has two cats.", reason="a second cat", event_time="2025-06-30T08:00:00Z"),
        Operation("delete", target="m3", reason="not a fact"),
    ], "apply", "b.jsonl")
    draft = RevisionDraft("add", "chat.jsonl", WRITER)
    chunk = ChunkRecord(hash="c1", source="chat.jsonl", message_ids=["1"], text="Sam: I drink coffee now.")
    refused = [Rejection(Operation("add", text="x"), 'evidence "a" does not occur in the chunk'),
               Rejection(Operation("add", text="y"), 'evidence "b" does not occur in the chunk'),
               Rejection(Operation("update", target="m9"), "no memory m9 in this bank")]
    bank.commit_chunk(draft, chunk, Proposal([Operation("add", text="Sam drinks coffee.", speaker="Sam")], refused))
    bank.finish(draft)
    bank.close()
    return path


def test_counts_of_a_known_bank(known):
    bank = open_bank(known, create=False)
    report = bank.stats()
    bank.close()
    assert report["bank"] == str(known)
    # 7 versions: m1..m4 added, m5 (update of m1), m6 (supersede of m2), m7 added; m3 deleted
    assert report["memories"] == {"current": 4, "updated": 1, "superseded": 1, "deleted": 1, "versions": 7}
    # current: m4 (a.jsonl, no speaker), m5 and m6 (b.jsonl; their speaker is not carried over), m7 (chat.jsonl, Sam)
    assert report["sources"] == {"b.jsonl": 2, "a.jsonl": 1, "chat.jsonl": 1}
    assert report["speakers"] == {"(none)": 3, "Sam": 1}
    assert report["revisions"] == {"total": 3, "apply": 2, "add": 1}
    assert report["writers"] == [{"backend": "scripted", "model": "queue", "protocol": "hymem", "revisions": 1}]
    assert report["rejections"] == {"total": 3, "evidence … does not occur in the chunk": 2, "no memory mN in this bank": 1}
    assert report["embedder"] == {"model": "hash", "dim": 384}
    assert report["event_time"] == {"oldest": "2024-01-05T09:00:00Z", "newest": "2025-06-30T08:00:00Z"}


def test_sizes_add_up_to_the_file(known):
    bank = open_bank(known, create=False)
    size = bank.stats()["size"]
    bank.close()
    assert size["by_part"] == "measured"
    parts = {k: v for k, v in size.items() if k not in ("file", "by_part")}
    assert abs(sum(parts.values()) - size["file"]) <= 4 * 4096  # vec0's chunks are counted, not walked
    assert size["vectors"] > size["memories"] > 0 and size["full-text index"] > 0 and size["history"] > 0


def test_parts_by_name():
    assert [part_of(n) for n in ("versions", "versions_chain", "chunks", "versions_fts_data", "versions_vec_rowids",
                                 "versions_vec_vector_chunks00", "versions_codes", "versions_code_blocks", "retirements", "meta")] == [
        "memories", "memories", "transcripts", "full-text index", "vectors", "vectors", "vector codes", "vector codes", "history", "other"]


def test_a_limit_sums_the_rest(known):
    bank = open_bank(known, create=False)
    report = bank.stats(limit=1)
    bank.close()
    assert report["sources"] == {"b.jsonl": 2, OTHERS: 2}
    assert report["rejections"] == {"total": 3, "evidence … does not occur in the chunk": 2, OTHERS: 1}


def test_json_and_jsonl_carry_the_same_report(cli, known):
    as_json = cli("stats", "-f", "json")
    assert as_json.exit_code == 0, as_json.stderr
    report = as_json.json()
    assert report["memories"]["current"] == 4 and report["size"]["file"] > 0
    as_jsonl = cli("stats", "-f", "jsonl")
    assert as_jsonl.exit_code == 0 and len(as_jsonl.stdout.splitlines()) == 1
    assert as_jsonl.jsonl()[0]["memories"] == report["memories"]
    assert as_jsonl.stderr == ""


def test_table_and_plain_rows(cli, known):
    table = cli("stats", "-f", "table")
    assert table.exit_code == 0
    for cell in ("memories", "superseded", "chat.jsonl", "scripted queue (hymem)", "full-text index", "384-d"):
        assert cell in table.stdout
    plain = cli("stats", "-f", "plain", "-n", "1").stdout.splitlines()
    assert "memories\tcurrent\t4" in plain and "sources\tb.jsonl\t2" in plain and f"sources\t{OTHERS}\t2" in plain
    assert "event time\tnewest\t2025-06-30T08:00:00Z" in plain


def test_an_empty_bank(cli, home):
    bank = open_bank(home / "bank.db")
    bank.close()
    report = cli("stats", "-f", "json").json()
    assert report["memories"] == {"current": 0, "updated": 0, "superseded": 0, "deleted": 0, "versions": 0}
    assert report["sources"] == {} and report["speakers"] == {} and report["writers"] == []
    assert report["revisions"] == {"total": 0} and report["rejections"] == {"total": 0}
    assert report["embedder"] == {"model": None, "dim": None}
    assert report["event_time"] == {"oldest": None, "newest": None}
    assert report["size"]["vectors"] == 0
    assert cli("stats", "-f", "table").exit_code == 0


def test_a_missing_bank_is_one_error_line(cli, home):
    one_error_line(cli("stats"), 5, "no bank at")
    assert not (home / "bank.db").exists()


def test_without_dbstat_the_total_is_still_known(known):
    class NoDbstat:
        """A connection whose SQLite lacks the dbstat table."""

        def __init__(self, conn):
            self.conn = conn

        def execute(self, sql, *args):
            if "dbstat" in sql:
                raise RuntimeError("no such table: dbstat")
            return self.conn.execute(sql, *args)

    bank = open_bank(known, create=False)
    size = size_by_part(NoDbstat(bank.conn))
    bank.close()
    assert size["by_part"] == "unavailable (no dbstat)" and size["file"] > 0 and "vectors" not in size


def test_parts_not_walked_agree_with_dbstat(tmp_path):
    from test_vector_codes import make_bank

    bank = make_bank(tmp_path / "bank.db", 2500)
    size = size_by_part(bank.conn)
    walked = dict(bank.conn.execute("SELECT name, sum(pgsize) FROM dbstat WHERE name IN ('versions_f16', 'versions_vec_vector_chunks00') "
                                    "AND aggregate = TRUE GROUP BY name").fetchall())
    bank.close()
    assert abs(size["vector copies"] - walked["versions_f16"]) <= 4 * 4096
    assert size["vectors"] >= walked["versions_vec_vector_chunks00"] and size["vectors"] > 0


def test_lists_hold_ten_entries_unless_told_otherwise(home):
    bank = open_bank(home / "bank.db")
    bank.bind_embedder(HashEmbedder())
    bank.apply_operations([Operation("add", text=f"Fact number {i} about topic{i}.", speaker=f"Person{i:02}") for i in range(12)], "apply",
                          "a.jsonl")
    report = bank.stats()
    bank.close()
    assert len(report["speakers"]) == 11 and report["speakers"][OTHERS] == 2  # ten named, two summed
