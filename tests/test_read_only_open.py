"""Opening a bank for reading only (`db.open_stored`), the path every command takes on read-only storage.

These call it directly, so they hold wherever the suite runs: as root, where file permissions do not
stop a write and only the connection's own read-only mode does, and without the right to mount."""

from __future__ import annotations

import sqlite3  # the standard module, to look at the file from outside hymem
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hymem_cli._errors import BankError, BankLockedError
from hymem_cli.bank import db

OperationalError = db.sqlite_module().OperationalError  # hymem's SQLite build, not necessarily the standard module's


@pytest.fixture
def bank_file(tmp_path: Path) -> Path:
    path = tmp_path / "bank.db"
    db.connect(path, 30.0).close()
    return path


def test_reads_work_and_writes_are_refused_by_the_connection(bank_file: Path):
    conn = db.open_stored(bank_file)
    applied = {row["name"] for row in conn.execute("SELECT name FROM migrations")}  # rows by column name
    assert applied == {fn.__name__ for fn in db.MIGRATIONS}
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")  # sqlite-vec is loaded
    with pytest.raises(OperationalError, match="readonly"):
        conn.execute("CREATE TABLE intruder (x)")
    with pytest.raises(OperationalError, match="readonly"):
        conn.execute("DELETE FROM migrations")
    conn.close()
    assert {row[0] for row in sqlite3.connect(bank_file).execute("SELECT name FROM migrations")} == applied


def test_the_connection_opens_no_transaction_of_its_own_and_loads_nothing_more(bank_file: Path):
    conn = db.open_stored(bank_file)
    assert conn.isolation_level is None  # hymem begins its transactions itself, as on a writable bank
    with pytest.raises(OperationalError, match="not authorized"):
        conn.execute("SELECT load_extension('anything')")  # extension loading is switched off again once sqlite-vec is in


def test_the_connection_can_be_used_from_another_thread(bank_file: Path):
    """`hymem serve` and the MCP server answer on worker threads with a connection opened elsewhere."""
    conn = db.open_stored(bank_file)
    seen: list = []
    worker = threading.Thread(target=lambda: seen.append(conn.execute("SELECT count(*) FROM versions").fetchone()[0]))
    worker.start()
    worker.join()
    assert seen == [0]


@pytest.mark.parametrize("content", [None, b"this is not a database, only some bytes " * 200])
def test_a_missing_or_foreign_file_is_a_bank_error_naming_the_file(tmp_path: Path, content):
    path = tmp_path / "bank.db"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(BankError) as caught:
        db.open_stored(path)
    assert str(path) in str(caught.value)
    reason = "not a valid hymem bank" if content else "unable to open"
    assert reason in str(caught.value)
    assert path.exists() == (content is not None)  # nothing made where there was nothing


def test_a_bank_that_needs_an_upgrade_is_refused_with_the_upgrade_named_and_what_to_do(bank_file: Path):
    last = db.MIGRATIONS[-1].__name__
    with sqlite3.connect(bank_file) as raw:
        raw.execute("DELETE FROM migrations WHERE name = ?", (last,))
    with pytest.raises(BankError) as caught:
        db.open_stored(bank_file)
    message = str(caught.value)
    assert message == f"bank {bank_file} is on read-only storage and needs an upgrade this hymem must write ({last})"
    assert caught.value.hint == f"copy it somewhere writable first: cp {bank_file} /tmp/bank.db && hymem ... --bank /tmp/bank.db"
    with sqlite3.connect(bank_file) as raw:
        assert last not in {row[0] for row in raw.execute("SELECT name FROM migrations")}  # nothing was migrated


def test_two_pending_upgrades_are_both_named(bank_file: Path):
    names = [fn.__name__ for fn in db.MIGRATIONS[-2:]]
    with sqlite3.connect(bank_file) as raw:
        raw.executemany("DELETE FROM migrations WHERE name = ?", [(n,) for n in names])
    with pytest.raises(BankError, match=f"\\({names[0]}, {names[1]}\\)$"):
        db.open_stored(bank_file)


# db.open_read_only: how `hymem doctor` looks at a bank without changing a byte


def test_looking_at_a_bank_reads_it_with_sqlite_vec_and_cannot_write(bank_file: Path):
    conn = db.open_read_only(bank_file)
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")
    with pytest.raises(OperationalError, match="readonly"):
        conn.execute("CREATE TABLE intruder (x)")
    with pytest.raises(OperationalError, match="not authorized"):
        conn.execute("SELECT load_extension('anything')")
    conn.close()


def test_looking_at_a_bank_sees_what_a_writer_has_committed_but_not_yet_checkpointed(tmp_path: Path):
    """On writable storage the bank is read through its WAL, not as an immutable file that would miss it."""
    path = tmp_path / "bank.db"
    writer = db.connect(path, 30.0)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO meta (key, value) VALUES ('probe', 'in the WAL only')")
    assert (tmp_path / "bank.db-wal").stat().st_size > 0
    conn = db.open_read_only(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'probe'").fetchone() == ("in the WAL only",)
    conn.close()
    writer.close()


def test_a_sqlite_vec_that_does_not_load_is_not_an_error_when_looking(bank_file: Path, monkeypatch):
    monkeypatch.setattr(db, "vec_extension", lambda: str(bank_file.parent / "no-such-extension"))
    conn = db.open_read_only(bank_file)
    assert conn.execute("SELECT count(*) FROM migrations").fetchone()[0] == len(db.MIGRATIONS)
    with pytest.raises(OperationalError, match="no such function"):
        conn.execute("SELECT vec_version()")
    conn.close()


def test_looking_at_a_missing_file_creates_nothing(tmp_path: Path):
    with pytest.raises(OperationalError):
        db.open_read_only(tmp_path / "bank.db")
    assert list(tmp_path.iterdir()) == []


# db.translate: SQLite's wording becomes one of hymem's errors


@pytest.mark.parametrize(("sqlite_says", "kind", "message", "hint"), [
    ("database is locked", "BankLockedError", "bank B is locked by another process (waited past the busy timeout)",
     "retry when the other hymem finishes, or raise HYMEM_BANK_BUSY_TIMEOUT"),
    ("database table is busy", "BankLockedError", "bank B is locked by another process (waited past the busy timeout)",
     "retry when the other hymem finishes, or raise HYMEM_BANK_BUSY_TIMEOUT"),
    ("attempt to write a readonly database", "BankError", "bank B is on read-only storage: it can be read, not written",
     "copy it somewhere writable, or fix the permissions of the file and its folder"),
    ("the disk is read-only", "BankError", "bank B is on read-only storage: it can be read, not written",
     "copy it somewhere writable, or fix the permissions of the file and its folder"),
    ("file is not a database", "BankError", "bank B is not a valid hymem bank (file is not a database)",
     "check the path, or restore from `hymem export`"),
    ("database disk image is malformed", "BankError", "bank B is not a valid hymem bank (database disk image is malformed)",
     "check the path, or restore from `hymem export`"),
    ("vtable corrupt", "BankError", "bank B is not a valid hymem bank (vtable corrupt)", "check the path, or restore from `hymem export`"),
    ("disk I/O error", "BankError", "bank B: disk I/O error", None),
])
def test_sqlite_errors_become_hymem_errors_with_what_to_do(sqlite_says, kind, message, hint):
    error = db.translate(OperationalError(sqlite_says), "B")
    assert (type(error).__name__, error.message, error.hint) == (kind, message, hint)


@pytest.mark.parametrize("kind", ["OperationalError", "DatabaseError", "IntegrityError"])
def test_each_kind_of_sqlite_error_inside_the_bank_becomes_a_bank_error(kind):
    from hymem_cli.bank.store import _db_error

    error = _db_error(getattr(db.sqlite_module(), kind)("database disk image is malformed"), "B")
    assert isinstance(error, BankError) and error.message == "bank B is not a valid hymem bank (database disk image is malformed)"
    other = ValueError("not SQLite's")
    assert _db_error(other, "B") is other


def test_a_refused_operation_says_why_and_is_not_unknown_unless_told():
    from hymem_cli.bank.store import OperationRefused

    refused = OperationRefused(2, "m4 is not current")
    assert (str(refused), refused.index, refused.reason, refused.unknown) == ("m4 is not current", 2, "m4 is not current", False)


@pytest.mark.parametrize(("file_ok", "folder_ok"), [(True, False), (False, True)])
def test_a_bank_is_writable_only_with_its_file_and_its_folder(bank_file: Path, monkeypatch, file_ok: bool, folder_ok: bool):
    """SQLite writes its -wal and -shm files beside the bank: a writable file in a read-only folder is read-only."""
    allowed = {bank_file: file_ok, bank_file.parent: folder_ok}
    monkeypatch.setattr(db.os, "access", lambda path, mode: allowed[Path(path)])
    assert db.writable(bank_file) is False
    allowed.update({bank_file: True, bank_file.parent: True})
    assert db.writable(bank_file) is True


def test_a_bank_made_by_a_newer_hymem_is_named_with_what_to_do(bank_file: Path):
    conn = sqlite3.connect(bank_file)
    conn.executemany("INSERT INTO migrations (name, applied_at) VALUES (?, datetime('now'))", [("m999_future",), ("m998_later",)])
    conn.commit()
    conn.close()
    with pytest.raises(BankError) as newer:
        db.connect(bank_file, 30.0).close()
    assert (newer.value.message, newer.value.hint) == (
        "this bank was made by a newer hymem (unknown migrations: m998_later, m999_future)", "upgrade hymem: pip install -U hymem")


def test_a_new_bank_gets_its_folders_and_only_its_owner_may_open_the_last(tmp_path: Path):
    path = tmp_path / "home" / "banks" / "bank.db"
    db.connect(path, 30.0).close()
    assert path.is_file() and (path.parent.stat().st_mode & 0o777, path.stat().st_mode & 0o777) == (0o700, 0o600)


def test_a_bank_is_compacted_after_an_upgrade_only(bank_file: Path):
    """Free pages left by the bank's own use are reused by new memories: opening it does not rewrite the file."""
    conn = sqlite3.connect(bank_file)
    conn.execute("CREATE TABLE junk (b BLOB)")
    conn.executemany("INSERT INTO junk VALUES (zeroblob(4000))", [()] * 2000)
    conn.commit()
    conn.execute("DROP TABLE junk")
    conn.commit()
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    conn.close()
    assert free > 1024
    db.connect(bank_file, 30.0).close()
    conn = sqlite3.connect(bank_file)
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == free
    conn.close()


def test_a_bank_that_cannot_be_created_says_why_and_what_to_do(tmp_path: Path):
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(BankError) as refused:
        db.connect(tmp_path / "file" / "bank.db", 30.0)
    assert (refused.value.message, refused.value.hint) == (
        f"cannot create bank {tmp_path / 'file' / 'bank.db'}: File exists", "give --bank a path in a writable folder, or set HYMEM_HOME")


def test_a_bank_connection_loads_no_extension_after_its_own(bank_file: Path):
    conn = db.connect(bank_file, 30.0)
    try:
        with pytest.raises(OperationalError, match="not authorized"):
            conn.load_extension("/nonexistent/evil")
    finally:
        conn.close()


def test_a_migration_another_process_applied_meanwhile_is_skipped_and_the_later_ones_still_run(tmp_path: Path, monkeypatch):
    """Two processes may open an old bank at once: the second waits for the write lock, then finds part of its work done."""
    ran: list[str] = []

    def m001_first(conn):
        ran.append("m001_first")

    def m002_second(conn):
        ran.append("m002_second")

    def m003_third(conn):
        ran.append("m003_third")

    monkeypatch.setattr(db, "MIGRATIONS", [m001_first, m002_second, m003_third])
    path = tmp_path / "bank.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    conn.execute("INSERT INTO migrations VALUES ('m001_first', datetime('now'))")
    other = sqlite3.connect(path, isolation_level=None)

    def the_other_process_upgrades_first(pending):
        assert pending == ["m002_second", "m003_third"]
        other.execute("INSERT INTO migrations VALUES ('m002_second', datetime('now'))")

    db.migrate(conn, on_upgrade=the_other_process_upgrades_first)
    assert ran == ["m003_third"]
    assert [r[0] for r in other.execute("SELECT name FROM migrations ORDER BY name")] == ["m001_first", "m002_second", "m003_third"]
    conn.close()
    other.close()


# db.connect on a bank in the rollback-journal mode (made by SQLite elsewhere, or restored from a copy) that another
# process is writing: the switch to WAL needs the file to itself for a moment, and SQLite says "locked" at once
# rather than waiting, so connect retries until the busy timeout.


def hold_for_writing(path: Path, seconds: float) -> subprocess.Popen:
    """Another process in the middle of a write transaction on `path`, for `seconds`; returned once it holds the lock."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys, time\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE'); c.execute(\"INSERT INTO meta (key, value) VALUES ('writer', 'done')\")\n"
        "print('holding', flush=True); time.sleep(float(sys.argv[2])); c.execute('COMMIT')\n"), str(path), str(seconds)],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "holding\n"
    return holder


@pytest.fixture
def old_journal_bank(bank_file: Path) -> Path:
    with sqlite3.connect(bank_file) as raw:
        assert raw.execute("PRAGMA journal_mode = DELETE").fetchone() == ("delete",)
    return bank_file


def test_a_bank_being_written_by_another_process_is_switched_to_wal_once_it_finishes(old_journal_bank: Path):
    holder = hold_for_writing(old_journal_bank, 0.5)
    conn = db.connect(old_journal_bank, 30.0)
    holder.wait()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT value FROM meta WHERE key = 'writer'").fetchone()[0] == "done"  # it waited for the write
    conn.close()


def test_a_bank_written_by_another_process_past_the_busy_timeout_is_reported_locked(old_journal_bank: Path):
    holder = hold_for_writing(old_journal_bank, 3.0)
    with pytest.raises(BankLockedError) as locked:  # had it waited for the other process to let go, it would have opened
        db.connect(old_journal_bank, 0.3)
    holder.wait()
    assert str(old_journal_bank) in locked.value.message
    with sqlite3.connect(old_journal_bank) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("delete",)


@pytest.mark.parametrize("found", ["nothing", "a module, not a package"])
def test_a_missing_sqlite_vec_is_named_with_how_to_install_it(monkeypatch, found):
    import importlib.machinery
    import importlib.util

    real = importlib.util.find_spec
    fake = None if found == "nothing" else importlib.machinery.ModuleSpec("sqlite_vec", None)  # no submodule_search_locations
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: fake if name == "sqlite_vec" else real(name, *rest))
    with pytest.raises(BankError) as missing:
        db.vec_extension()
    assert (missing.value.message, missing.value.hint) == ("sqlite-vec is not installed", "pip install sqlite-vec")


def test_without_sqlean_the_standard_sqlite3_serves_when_it_can_load_extensions(monkeypatch):
    import types

    monkeypatch.setitem(sys.modules, "sqlean", None)  # not installed
    able = types.SimpleNamespace(Connection=type("Connection", (), {"enable_load_extension": lambda self, on: None}))
    monkeypatch.setitem(sys.modules, "sqlite3", able)
    assert db.sqlite_module() is able
    unable = types.SimpleNamespace(Connection=type("Connection", (), {}))  # a Python built without loadable extensions
    monkeypatch.setitem(sys.modules, "sqlite3", unable)
    with pytest.raises(BankError) as refused:
        db.sqlite_module()
    assert (refused.value.message, refused.value.hint) == (
        "this Python's sqlite3 cannot load extensions, and sqlean-py is not installed", "pip install sqlean-py")
