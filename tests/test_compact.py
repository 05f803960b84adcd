"""Compacting a bank after an upgrade freed part of it (`db.compact_file`): when it is worth it, what it
says, and that a VACUUM that cannot run leaves the bank as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from hymem_cli.bank import db


class Pragmas:
    """A connection whose page counts are chosen, recording what else runs on it (VACUUM, the checkpoint)."""

    def __init__(self, pages: int, free: int, page_size: int = 4096, fail: Exception | None = None):
        self.values = {"PRAGMA page_count": pages, "PRAGMA freelist_count": free, "PRAGMA page_size": page_size}
        self.fail = fail
        self.ran: list[str] = []

    def execute(self, sql: str):
        if sql in self.values:
            return _Row(self.values[sql])
        if self.fail is not None and sql == "VACUUM":
            raise self.fail
        self.ran.append(sql)
        return _Row(None)


class _Row:
    def __init__(self, value):
        self.value = value

    def fetchone(self):
        return (self.value,)


def compact(conn) -> tuple[bool, list[tuple]]:
    said: list[tuple] = []
    done = db.compact_file(conn, lambda *args: said.append(args))
    return done, said


@pytest.mark.parametrize(("pages", "free", "expected"), [
    (4096, 1024, True),  # a quarter free, and the 1,024 free pages at which it starts
    (4096, 1023, False),  # one page short of that
    (4100, 1024, False),  # 1,024 free, but less than a quarter of the file
    (100_000, 25_000, True),
    (100_000, 24_999, False),
])
def test_a_file_is_rewritten_only_when_a_quarter_of_it_and_at_least_1024_pages_are_free(pages, free, expected):
    conn = Pragmas(pages, free)
    assert compact(conn)[0] is expected
    assert conn.ran == (["VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"] if expected else [])


def test_what_compacting_says_before_it_starts():
    done, said = compact(Pragmas(8192, 4096, page_size=4096))
    assert done and said == [("compact", "rewriting the file without 17 MB of free pages", 0, None)]


def test_a_vacuum_that_cannot_run_leaves_the_free_pages_and_says_so():
    conn = Pragmas(8192, 4096, fail=db.sqlite_module().OperationalError("database is locked"))
    done, said = compact(conn)
    assert done is False and conn.ran == []
    assert said[-1] == ("compact", "left as it is (database is locked); new memories reuse the free pages", 0, None)


def test_without_a_progress_callback_it_runs_silently():
    conn = Pragmas(8192, 4096)
    assert db.compact_file(conn) is True
    assert db.compact_file(Pragmas(8192, 4096, fail=RuntimeError("no room"))) is False


def test_a_real_bank_with_a_dropped_table_gets_smaller(tmp_path: Path):
    path = tmp_path / "bank.db"
    conn = db.connect(path, 30.0)
    conn.execute("CREATE TABLE filler (b BLOB)")
    conn.executemany("INSERT INTO filler VALUES (?)", [(b"x" * 4000,) for _ in range(3000)])
    conn.execute("DROP TABLE filler")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = path.stat().st_size
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] >= 3000
    assert db.compact_file(conn) is True
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert path.stat().st_size < before / 4
    assert {r[0] for r in conn.execute("SELECT name FROM migrations")} == {fn.__name__ for fn in db.MIGRATIONS}
    conn.close()


def test_the_size_it_frees_is_said_in_whole_megabytes_rounded():
    assert compact(Pragmas(4000, 3500, page_size=1000))[1][0][1] == "rewriting the file without 4 MB of free pages"  # 3.5 MB


def test_the_second_connection_waits_as_long_as_the_first(tmp_path: Path):
    from hymem_cli.bank import open_bank

    bank = open_bank(tmp_path / "bank.db", busy_timeout=7.0)
    try:
        assert bank.reader().execute("PRAGMA busy_timeout").fetchone()[0] == 7000
    finally:
        bank.close()
