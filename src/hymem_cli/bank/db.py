"""Opening a bank file: a SQLite build that can load sqlite-vec, pragmas, locking, migrations."""

from __future__ import annotations

import functools
import inspect
import os
import time
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Iterator

from hymem_cli._errors import BankError, BankLockedError
from hymem_cli.bank import schema
from hymem_cli.bank.migrations import MIGRATIONS
from hymem_cli.bank.sqlite import MIGRATIONS_TABLE, sqlite_module, vec_extension  # noqa: F401 - the names callers know db by


def check_path(path: Path) -> None:
    """Refuse what is no place for a bank, before SQLite touches it (or creates files beside it)."""
    if path.is_symlink() and not path.exists():
        raise BankError(f"bank {path} is a link to {os.readlink(path)}, which does not exist",
                        hint="fix or remove the link, or give --bank the bank file itself")
    if path.is_dir():
        raise BankError(f"bank path {path} is a directory", hint="give --bank a file path")
    if path.exists() and not path.is_file():
        raise BankError(f"bank {path} is not a regular file (a device, pipe or socket)", hint="give --bank a file path, e.g. --bank ./bank.db")


def writable(path: Path) -> bool:
    """Whether the bank at `path` can be written: the file and its folder (SQLite writes its -wal and -shm there)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def connect(path: Path, busy_timeout: float, on_upgrade=None, progress=None):
    """Open (creating if needed) the bank at `path` with sqlite-vec loaded and migrations applied.

    A bank on storage this process cannot write is opened read-only (see `open_stored`): reading works,
    and the first write says why it cannot."""
    sqlite = sqlite_module()
    check_path(path)
    new = not path.exists()
    if new:
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)  # private from the first byte
        except OSError as exc:
            raise BankError(f"cannot create bank {path}: {exc.strerror}",
                            hint="give --bank a path in a writable folder, or set HYMEM_HOME") from None
        os.close(fd)
    elif not writable(path):
        return open_stored(path)
    # isolation_level=None: hymem opens its transactions itself (BEGIN IMMEDIATE for writers).
    conn = sqlite.connect(str(path), timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite.Row
    try:
        conn.enable_load_extension(True)
        conn.load_extension(vec_extension())
        conn.enable_load_extension(False)
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        refuse_foreign(conn, path)  # before anything is written: a planted trigger would fire on the first write
        conn.execute("PRAGMA foreign_keys = ON")
        _set_wal(conn, busy_timeout)
        migrate(conn, on_upgrade, progress)
    except sqlite.DatabaseError as exc:
        conn.close()
        raise translate(exc, path) from None
    except BankError:
        conn.close()
        raise
    return conn


def refuse_foreign(conn, path: Path) -> None:
    """Refuse a bank whose schema holds what hymem did not make (bank/schema.py): one read of sqlite_master."""
    master = schema.read_master(conn)
    found = schema.foreign_objects(master)
    if found:
        if ("table", "migrations") in {(row[0], row[1]) for row in master}:
            newer(conn)  # a newer hymem's objects are no forgery: say what to upgrade instead
        raise BankError(f"bank {path} holds what hymem did not create: {schema.summary(found)}",
                        hint=f"hymem opens only banks of its own schema; `hymem doctor --bank {path}` lists it all. "
                             "Restore a backup, or drop those objects with the sqlite3 shell if you made them")


def open_stored(path: Path):
    """A bank on read-only storage (a read-only mount, a file or folder without write permission), for reading.

    Nothing can be migrated there: a bank this hymem would have to upgrade first is refused, with what to do."""
    sqlite = sqlite_module()
    conn = None
    for mode in ("mode=ro", "mode=ro&immutable=1"):  # immutable: no -shm can be made beside it, and nothing will change it
        try:
            conn = sqlite.connect(f"{path.resolve().as_uri()}?{mode}", uri=True, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite.Row
            conn.enable_load_extension(True)
            conn.load_extension(vec_extension())
            conn.enable_load_extension(False)
            applied = {row[0] for row in conn.execute("SELECT name FROM migrations")}
            break
        except sqlite.DatabaseError as exc:
            if conn is not None:
                conn.close()
            conn = None
            if "immutable" in mode:
                raise translate(exc, path) from None
    try:
        refuse_foreign(conn, path)
    except BankError:
        conn.close()
        raise
    pending = [fn.__name__ for fn in MIGRATIONS if fn.__name__ not in applied]
    if pending:
        conn.close()
        raise BankError(f"bank {path} is on read-only storage and needs an upgrade this hymem must write ({', '.join(pending)})",
                        hint=f"copy it somewhere writable first: cp {path} /tmp/bank.db && hymem ... --bank /tmp/bank.db")
    return conn


def open_read_only(path: Path):
    """The bank at `path` as it is: no migration, no write, not even a WAL switch; sqlite-vec loaded when it can be.

    For looking at a bank (`hymem doctor`) without changing a byte of it. A sqlite-vec that does not
    load is not an error here: the vector table then cannot be read, and whoever reads it says so.
    """
    sqlite = sqlite_module()
    # On read-only storage a WAL bank cannot be opened even read-only (its -shm cannot be made): read it as immutable.
    conn = sqlite.connect(f"{path.resolve().as_uri()}?{'mode=ro' if writable(path) else 'mode=ro&immutable=1'}", uri=True)
    conn.enable_load_extension(True)
    with suppress(Exception):  # see the docstring
        conn.load_extension(vec_extension())
    conn.enable_load_extension(False)
    return conn


def _set_wal(conn, busy_timeout: float) -> None:
    # Switching to WAL needs a moment of exclusive access; retry while another process holds the bank.
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            return
        except Exception as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def translate(exc: Exception, path: Path | str) -> Exception:
    """Map SQLite's errors to hymem's: locked and corrupt banks get their own messages."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return BankLockedError(
            f"bank {path} is locked by another process (waited past the busy timeout)",
            hint="retry when the other hymem finishes, or raise HYMEM_BANK_BUSY_TIMEOUT",
        )
    if "readonly" in text or "read-only" in text:
        return BankError(f"bank {path} is on read-only storage: it can be read, not written",
                         hint="copy it somewhere writable, or fix the permissions of the file and its folder")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return BankError(f"bank {path} is not a valid hymem bank ({text})", hint="check the path, or restore from `hymem export`")
    return BankError(f"bank {path}: {text}")


@contextmanager
def transaction(conn) -> Iterator[None]:
    """BEGIN IMMEDIATE … COMMIT: take the write lock up front so two writers never deadlock."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except Exception as exc:
        raise translate(exc, conn.execute("PRAGMA database_list").fetchone()[2]) from None
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def newer(conn) -> set[str]:
    """The migrations recorded in the bank; refuses one made by a newer hymem (migrations this one does not know)."""
    applied = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    unknown = applied - {fn.__name__ for fn in MIGRATIONS}
    if unknown:
        raise BankError(
            f"this bank was made by a newer hymem (unknown migrations: {', '.join(sorted(unknown))})",
            hint="upgrade hymem: pip install -U hymem",
        )
    return applied


def migrate(conn, on_upgrade=None, progress=None) -> None:
    """Apply the migrations this bank lacks, each in the same transaction as its record.

    `on_upgrade(names)` is told first when a bank that already had migrations gets new ones, and
    `progress(migration, phase, done, total)` (total None: unknown) as long ones go on. An interrupted
    upgrade keeps the migrations already recorded; the one that was running rolls back and runs again
    next time. Other processes keep reading the bank while it runs (WAL); one that opens it meanwhile
    waits for it, up to the busy timeout.
    """
    conn.execute(MIGRATIONS_TABLE)
    applied = newer(conn)
    pending = [fn.__name__ for fn in MIGRATIONS if fn.__name__ not in applied]
    if pending and applied and on_upgrade is not None:
        on_upgrade(pending)
    ran = False
    for fn in MIGRATIONS:
        if fn.__name__ in applied:
            continue
        with transaction(conn):
            # Another process may have migrated while we waited for the lock.
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (fn.__name__,)).fetchone():
                continue
            if progress is not None and applied:
                progress(fn.__name__, "started", 0, None)
            if "progress" in inspect.signature(fn).parameters:
                fn(conn, progress=functools.partial(progress, fn.__name__) if progress is not None and applied else None)
            else:
                fn(conn)
            conn.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (fn.__name__,))
            ran = bool(applied)
    if ran:
        compact_file(conn, progress)


COMPACT_FROM = 0.25  # share of the file's pages that are free after an upgrade before it is worth rewriting


def compact_file(conn, progress=None) -> bool:
    """Rewrite the bank without its free pages (VACUUM) when an upgrade freed a good part of it.

    SQLite keeps freed pages in the file for reuse; a migration that drops a copy of every vector would
    otherwise leave the file its old size. VACUUM needs about the bank's size again on disk for a while,
    and another process reading at that moment makes it wait or give up: then the pages stay free, and
    new memories reuse them. Returns whether the file was rewritten."""
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    if free < 1024 or free < COMPACT_FROM * pages:
        return False
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    if progress is not None:
        progress("compact", f"rewriting the file without {free * page / 1e6:,.0f} MB of free pages", 0, None)
    try:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except Exception as exc:  # noqa: BLE001 - the bank is whole either way; only its size differs
        if progress is not None:
            progress("compact", f"left as it is ({exc}); new memories reuse the free pages", 0, None)
        return False
    return True
