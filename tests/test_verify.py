"""`Bank.verify()` and bank/verify.py: the bank's self-checks, asked of the bank itself rather than through doctor."""

from __future__ import annotations

import pytest
from conftest import raw_sql

from hymem_cli.bank import open_bank
from hymem_cli.bank.db import open_read_only
from hymem_cli.bank.verify import Finding, stored_embed_model, verify, verify_path


def _verified(path) -> dict[str, Finding]:
    bank = open_bank(path, create=False)
    try:
        findings = bank.verify()
    finally:
        bank.close()
    assert all(isinstance(f, Finding) and f.status in ("ok", "warn", "fail") for f in findings)
    return {f.check: f for f in findings}


def _failed(path) -> dict[str, Finding]:
    return {name: f for name, f in _verified(path).items() if f.status != "ok"}


def test_a_healthy_bank_verifies_clean(bank):
    checks = _verified(bank)
    assert _failed(bank) == {}
    assert list(checks) == ["bank", "bank schema", "bank integrity", "chains: one current version", "chains: successors",
                            "chains: a current version or a deletion", "chains: retirements after their versions",
                            "chains: successors newer, no cycles", "chains: roots", "writer queue",
                            "index: full-text", "index: source messages", "index: vector codes", "index: vector copies",
                            "index: code blocks", "index: vectors"]
    assert "14 versions, 2 revision(s)" in checks["bank"].detail
    assert checks["index: full-text"].detail == "14 rows, one per version"
    assert all(f.hint is None for f in checks.values())


def test_two_current_versions_in_a_chain_are_named(bank):
    raw_sql(bank, "DELETE FROM retirements WHERE version = 1")  # m1 was superseded by m13
    failed = _failed(bank)
    assert list(failed) == ["chains: one current version"]
    assert "m1 (2)" in failed["chains: one current version"].detail
    assert "hymem export" in failed["chains: one current version"].hint


def test_a_dangling_successor_is_named(bank):
    raw_sql(bank, "PRAGMA foreign_keys = OFF", "UPDATE retirements SET successor = 999 WHERE version = 1")
    failed = _failed(bank)
    assert list(failed) == ["chains: successors"]
    assert "m1 -> m999" in failed["chains: successors"].detail


def test_a_retirement_cycle_leaves_a_headless_chain_and_is_named(bank):
    """m1 was superseded by m13; retiring m13 with m1 as its successor closes a loop and leaves the fact without a head."""
    raw_sql(bank, "INSERT INTO retirements (version, revision, how, successor, reason) VALUES (13, 2, 'superseded', 1, 'loop')")
    failed = _failed(bank)
    assert list(failed) == ["chains: a current version or a deletion", "chains: successors newer, no cycles"]
    assert "m1" in failed["chains: a current version or a deletion"].detail
    assert "m1" in failed["chains: successors newer, no cycles"].detail and "m13" in failed["chains: successors newer, no cycles"].detail


def test_a_retirement_older_than_its_version_is_named(bank):
    raw_sql(bank, "INSERT INTO retirements (version, revision, how, successor, reason) VALUES (14, 1, 'deleted', NULL, 'early')")
    failed = _failed(bank)
    assert list(failed) == ["chains: retirements after their versions"]
    assert "m14 (made in 2, retired in 1)" in failed["chains: retirements after their versions"].detail


def test_a_missing_full_text_row_is_named(bank):
    raw_sql(bank, "INSERT INTO versions_fts (versions_fts, rowid, text) SELECT 'delete', id, text FROM versions WHERE id = 5")
    failed = _failed(bank)
    assert list(failed) == ["index: full-text"]
    assert failed["index: full-text"].detail == "13 index rows for 14 versions (one per version); missing: m5"


def test_verify_on_a_read_only_connection_changes_nothing(bank):
    before = bank.read_bytes()
    conn = open_read_only(bank)
    try:
        findings = verify(conn, bank)
        with pytest.raises(Exception, match="readonly"):
            conn.execute("DELETE FROM retirements")
    finally:
        conn.close()
    assert [f.status for f in findings] == ["ok"] * len(findings)
    assert bank.read_bytes() == before
    assert stored_embed_model(bank) == "hash"


def test_no_bank_is_a_warning_and_nothing_is_created(tmp_path):
    path = tmp_path / "none.db"
    assert [(f.check, f.status) for f in verify_path(path)] == [("bank", "warn")]
    assert stored_embed_model(path) is None
    assert not path.exists()


def test_a_file_that_is_not_sqlite_fails(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    (finding,) = verify_path(junk)
    assert finding.check == "bank" and finding.status == "fail" and "cannot read" in finding.detail
