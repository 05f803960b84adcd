"""Upgrading a bank: vectors read in bulk from sqlite-vec, float32 copies replaced by float16, progress told as it
goes, an interrupted upgrade rolled back and finished next time, the freed pages given back to the file system."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALEX_JSONL
from test_vector_codes import make_bank

from hymem_cli.bank import codes, db, open_bank
from hymem_cli.bank.search import search


def as_before_m008(path) -> None:
    """The bank as hymem left it before m008: a float32 copy of every vector, no float16 copies."""
    bank = open_bank(path)
    conn = bank.conn
    conn.execute("CREATE TABLE versions_floats (version INTEGER PRIMARY KEY REFERENCES versions(id), embedding BLOB NOT NULL)")
    conn.execute("INSERT INTO versions_floats SELECT rowid, embedding FROM versions_vec")
    conn.execute("DROP TABLE versions_f16")
    conn.execute("DELETE FROM migrations WHERE name = 'm008_half_vectors'")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    bank.close()


def vectors(conn) -> dict[int, bytes]:
    return {r[0]: r[1] for r in conn.execute("SELECT rowid, embedding FROM versions_vec")}


def test_vectors_are_read_in_bulk_as_the_vec0_table_holds_them(tmp_path):
    bank = make_bank(tmp_path / "bank.db", 2100)  # three chunks of sqlite-vec's 1,024, the last one partial
    bank.conn.execute("DELETE FROM versions_vec WHERE rowid IN (5, 1500)")  # a hole in the validity bitmaps
    expected = vectors(bank.conn)
    got = {}
    for ids, matrix in codes.stored_vectors(bank.conn, batch=500):
        got.update(zip(ids, (row.astype("<f4").tobytes() for row in matrix)))
    assert got == expected and len(got) == 2098
    bank.close()


def test_an_unknown_vec0_layout_falls_back_to_a_scan(tmp_path, monkeypatch):
    bank = make_bank(tmp_path / "bank.db", 300)
    expected = vectors(bank.conn)
    bank.conn.execute("UPDATE versions_vec_chunks SET size = 512")  # not the blob sizes sqlite-vec 0.1 writes
    got = {}
    for ids, matrix in codes.stored_vectors(bank.conn, batch=128):
        got.update(zip(ids, (row.tobytes() for row in matrix)))
    assert got == expected
    bank.close()


def test_m008_replaces_float32_copies_with_float16_and_compacts_the_file(tmp_path):
    path = tmp_path / "bank.db"
    make_bank(path, 3000).close()
    as_before_m008(path)
    before = path.stat().st_size
    told = []
    bank = open_bank(path, progress=lambda *args: told.append(args))
    conn = bank.conn
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'versions_floats'").fetchone()
    halves = dict(conn.execute("SELECT version, embedding FROM versions_f16").fetchall())
    assert halves == {vid: codes.half_blob(blob) for vid, blob in vectors(conn).items()}
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0 and path.stat().st_size < 0.75 * before
    assert told[0] == ("m008_half_vectors", "started", 0, None)
    assert ("m008_half_vectors", "vectors", 3000, 3000) in told
    assert told[-1][:2] == ("compact", told[-1][1]) and "free pages" in told[-1][1]
    assert [f.check for f in bank.verify() if f.status != "ok"] == []
    hits = search(bank, "kyoto pottery", 3)
    assert len(hits) == 3
    bank.close()


def test_an_interrupted_upgrade_rolls_back_and_finishes_next_time(tmp_path):
    path = tmp_path / "bank.db"
    make_bank(path, 1500).close()
    as_before_m008(path)

    def interrupt(migration, phase, done, total):
        if phase == "vectors":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        open_bank(path, progress=interrupt)
    conn = db.open_read_only(path)
    assert conn.execute("SELECT count(*) FROM versions_floats").fetchone()[0] == 1500  # as it was
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'versions_f16'").fetchone()
    assert not conn.execute("SELECT 1 FROM migrations WHERE name = 'm008_half_vectors'").fetchone()
    conn.close()
    bank = open_bank(path)
    assert bank.conn.execute("SELECT count(*) FROM versions_f16").fetchone()[0] == 1500
    assert [f.check for f in bank.verify() if f.status != "ok"] == []
    bank.close()


def test_a_new_bank_is_not_upgraded_and_tells_nothing(tmp_path):
    told = []
    bank = open_bank(tmp_path / "bank.db", progress=lambda *args: told.append(args))
    bank.close()
    assert told == []


def test_float16_rescoring_keeps_the_exact_order_of_distinct_neighbours(tmp_path, monkeypatch):
    monkeypatch.setattr(codes, "PREFILTER_FROM", 0)
    monkeypatch.setattr(codes, "CANDIDATES", 10_000)  # every code a candidate: only the rescoring decides
    bank = make_bank(tmp_path / "bank.db", 800)
    from hymem_cli.bank.search import SearchFilter, _exact_knn, _knn
    from hymem_cli.embed import to_blob

    where, args = SearchFilter().sql()
    rng = np.random.default_rng(1)
    for _ in range(10):
        q = rng.standard_normal(384).astype(np.float32)
        assert _knn(bank, q.tolist(), where, args, 10) == _exact_knn(bank, to_blob(q.tolist()), where, args, 10)
    bank.close()


def test_the_cli_tells_each_phase_on_a_pipe(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    as_before_m008(home / "bank.db")
    found = cli("search", "Sydney", "-f", "jsonl")
    assert found.exit_code == 0 and found.jsonl()
    assert "upgrading bank" in found.stderr and "upgrading: m008_half_vectors" in found.stderr
    assert "upgrading: m008_half_vectors: vectors" in found.stderr
    quiet = cli("search", "Sydney", "-f", "jsonl", "-q")
    assert quiet.stderr == ""
