"""The bank's self-checks: SQLite integrity, migrations, chain invariants, and each derived index in step with the versions.

Every check only reads, so it runs on a read-only connection (`db.open_read_only`): looking at a
bank must never migrate or write it. `Bank.verify()` runs the same checks on an open bank.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from hymem_cli._errors import HymemError
from hymem_cli.bank import codes, db, schema
from hymem_cli.bank.migrations import MIGRATIONS
from hymem_cli.domain import FAIL, OK, WARN, Finding

BANK_HINT = "restore from a backup: hymem export > backup.jsonl; hymem import backup.jsonl --bank new.db"
EDITED_HINT = "the bank was edited outside hymem; " + BANK_HINT
FOREIGN_HINT = ("hymem refuses to open it: SQLite would run these on hymem's reads and writes; restore a backup, "
                "or drop them with the sqlite3 shell if you made them yourself")


# Each invariant: its check name, a query returning the rows that break it, and how to name those rows.
INVARIANTS = [
    (
        "chains: one current version",
        ("SELECT chain, count(*) FROM versions v WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id) "
         "GROUP BY chain HAVING count(*) > 1 ORDER BY chain"),
        lambda rows: "chains with several current versions: " + ", ".join(f"m{c} ({n})" for c, n in rows[:10]),
    ),
    (
        "chains: successors",
        ("SELECT r.version, r.successor FROM retirements r JOIN versions a ON a.id = r.version "
         "LEFT JOIN versions b ON b.id = r.successor WHERE r.successor IS NOT NULL AND (b.id IS NULL OR b.chain != a.chain) ORDER BY r.version"),
        lambda rows: "retirements whose successor is missing or in another chain: " + ", ".join(f"m{v} -> m{s}" for v, s in rows[:10]),
    ),
    (
        "chains: a current version or a deletion",
        ("SELECT v.chain FROM versions v LEFT JOIN retirements r ON r.version = v.id GROUP BY v.chain "
         "HAVING count(*) = count(r.version) AND sum(r.how = 'deleted') = 0 ORDER BY v.chain"),
        lambda rows: "chains whose every version is retired, none by a deletion (no current fact): " + ", ".join(f"m{c}" for c, in rows[:10]),
    ),
    (
        "chains: retirements after their versions",
        ("SELECT r.version, r.revision, v.revision FROM retirements r JOIN versions v ON v.id = r.version "
         "WHERE r.revision < v.revision ORDER BY r.version"),
        lambda rows: "versions retired by a revision older than their own: " + ", ".join(f"m{v} (made in {b}, retired in {a})" for v, a, b in rows[:10]),
    ),
    (
        "chains: successors newer, no cycles",
        # A successor is made after the version it replaces, so following successors always moves forward; a walk
        # that comes back to where it started is a cycle (bounded, so a corrupt bank cannot loop forever).
        ("WITH RECURSIVE walk(start, at, steps) AS ("
         " SELECT version, successor, 1 FROM retirements WHERE successor IS NOT NULL"
         " UNION ALL SELECT w.start, r.successor, w.steps + 1 FROM walk w JOIN retirements r ON r.version = w.at"
         " WHERE r.successor IS NOT NULL AND w.at != w.start AND w.steps < 1000) "
         "SELECT DISTINCT start FROM walk WHERE at = start "
         "UNION SELECT version FROM retirements WHERE successor IS NOT NULL AND successor <= version ORDER BY 1"),
        lambda rows: "retirements whose successors lead back or to an older version: " + ", ".join(f"m{v}" for v, in rows[:10]),
    ),
    (
        "chains: roots",
        "SELECT v.id, v.chain FROM versions v LEFT JOIN versions h ON h.id = v.chain WHERE h.id IS NULL OR h.chain != v.chain ORDER BY v.id",
        lambda rows: "versions whose chain is not a version of that chain: " + ", ".join(f"m{v} (chain {c})" for v, c in rows[:10]),
    ),
]


ALL_VERSIONS = "SELECT id FROM versions"
# Each index derived from the versions: its check name, its table, the ids of its rows, the ids of the versions it must
# hold (one row each, no other), and what that set is. The full-text tables are external-content indexes: their own rows
# are in their docsize tables (a read of the table itself would read the versions). The vector table is checked last,
# since it needs sqlite-vec.
INDEXES = [
    ("index: full-text", "versions_fts_docsize", "SELECT id FROM versions_fts_docsize", ALL_VERSIONS, "one per version"),
    ("index: source messages", "versions_sources_fts_docsize", "SELECT id FROM versions_sources_fts_docsize",
     # Bank.index_sources: a writer's facts with the source messages they were embedded with, and nothing else
     "SELECT v.id FROM versions v JOIN revisions r ON r.id = v.revision WHERE r.writer IS NOT NULL AND v.context != ''{facts}",
     "one per writer's fact with source messages"),
    ("index: vector codes", "versions_codes", "SELECT version FROM versions_codes", ALL_VERSIONS, "one per version"),
    ("index: vector copies", "versions_f16", "SELECT version FROM versions_f16", ALL_VERSIONS, "one per version"),
]


def verify(conn, path: Path) -> list[Finding]:
    """Every check of the bank open on `conn` (read-only is enough), in order."""
    return list(findings(conn, path))


def verify_path(path: Path) -> Iterator[Finding]:
    """The checks of the bank file at `path`, each as soon as it is done; opens it read-only, creates nothing."""
    if not path.exists():
        yield Finding("bank", WARN, f"no bank at {path} yet", "`hymem add` or `hymem apply` creates it")
        return
    conn = None
    try:
        conn = db.open_read_only(path)
        _tables(conn)  # the first read: a file that is not SQLite fails here
    except Exception as exc:  # noqa: BLE001 - any SQLite error here means an unreadable bank
        if conn is not None:
            conn.close()
        if isinstance(exc, HymemError):
            yield Finding("bank", FAIL, exc.message, exc.hint)
        else:
            yield Finding("bank", FAIL, f"cannot read {path}: {exc}", "check the path; " + BANK_HINT)
        return
    try:
        yield from findings(conn, path)
    finally:
        conn.close()


def stored_embed_model(path: Path) -> str | None:
    """The embedder the bank file at `path` holds vectors of, read without opening it for writing; None if unknown."""
    if not path.exists():
        return None
    try:
        conn = db.open_read_only(path)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()
        finally:
            conn.close()
    except Exception:  # noqa: BLE001 - verify_path reports an unreadable bank
        return None
    return row[0] if row else None


def findings(conn, path: Path) -> Iterator[Finding]:
    """Every check of the bank open on `conn`, one at a time (integrity_check can take a while on a large bank)."""
    tables = _tables(conn)
    if "versions" not in tables or "migrations" not in tables:
        yield Finding("bank", FAIL, f"{path} is not a hymem bank (no versions table)", "check --bank / HYMEM_BANK")
        return
    applied = {r[0] for r in conn.execute("SELECT name FROM migrations")}
    unknown = applied - {fn.__name__ for fn in MIGRATIONS}
    versions = conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    revisions = conn.execute("SELECT count(*) FROM revisions").fetchone()[0]
    if unknown:
        yield Finding("bank", FAIL, f"{path} was made by a newer hymem (migrations {', '.join(sorted(unknown))})", "pip install -U hymem")
        return
    yield Finding("bank", OK, f"{path}: {versions} versions, {revisions} revision(s), {path.stat().st_size / 1e6:.1f} MB")
    yield schema_finding(conn)

    problems = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    if problems == ["ok"]:
        yield Finding("bank integrity", OK, "PRAGMA integrity_check: ok")
    else:
        yield Finding("bank integrity", FAIL, "; ".join(problems[:5]), BANK_HINT)

    for name, sql, describe in INVARIANTS:
        rows = [tuple(r) for r in conn.execute(sql)]
        if rows:
            yield Finding(name, FAIL, describe(rows), EDITED_HINT)
        else:
            yield Finding(name, OK, "holds for every chain")

    if "queue" in tables:
        yield queue_finding(conn)

    for name, index, held, expected, what in INDEXES:
        if index in tables:
            # facts only: a bank from before m011 holds no messages beside them (and no layer column to read)
            yield _index_finding(conn, name, held, expected.format(facts=" AND v.layer IS NULL" if "queue" in tables else ""), what)
        elif name == "index: full-text":
            yield Finding(name, FAIL, "the index table is missing", BANK_HINT)
    if "versions_code_blocks" in tables:
        problems = codes.block_problems(conn)
        if problems:
            yield Finding("index: code blocks", FAIL, "; ".join(problems[:3]), EDITED_HINT)
        else:
            yield Finding("index: code blocks", OK, "every block matches its codes")
    if "versions_vec" in tables:
        try:
            conn.execute("SELECT count(*) FROM versions_vec_rowids").fetchone()
        except Exception as exc:  # noqa: BLE001 - sqlite-vec did not load
            yield Finding("index: vectors", FAIL, f"cannot read versions_vec: {exc}", "check sqlite-vec (see the sqlite-vec check)")
            return
        yield _index_finding(conn, "index: vectors", "SELECT rowid FROM versions_vec_rowids", ALL_VERSIONS, "one per version")
    elif versions:
        yield Finding("index: vectors", FAIL, f"{versions} versions but no vector table", BANK_HINT)
    else:
        yield Finding("index: vectors", OK, "no vectors yet (empty bank)")


BACKLOG_DAYS = 1  # a chunk queued longer than this is a writer nobody runs


def queue_finding(conn) -> Finding:
    """The writer's queue: a warning for chunks whose write failed, and for a backlog older than BACKLOG_DAYS (a writer
    that fails or never runs is found here, not weeks later)."""
    from datetime import datetime, timedelta, timezone

    from hymem_cli.bank import queue as chunk_queue

    q = chunk_queue.status(conn)
    if q["failed_chunks"]:
        return Finding("writer queue", WARN, f"{q['failed_chunks']} queued chunk(s) failed to write, the last with: {q['failures'][-1]['error']}",
                       "fix the writer (the writer check above), then `hymem write`; `hymem status` lists them")
    old = chunk_queue.stamp(datetime.now(timezone.utc) - timedelta(days=BACKLOG_DAYS))
    if q["oldest_queued"] is not None and q["oldest_queued"] < old:
        return Finding("writer queue", WARN, f"{q['queued_chunks']} chunk(s) queued, the oldest since {q['oldest_queued']}: no writer has "
                       "run for over a day", "run `hymem write`, or keep `hymem serve --write` running")
    return Finding("writer queue", OK, f"{q['queued_chunks']} chunk(s) queued" if q["queued_chunks"] else "nothing queued")


def schema_finding(conn) -> Finding:
    """Whether the bank's schema holds only what hymem makes (bank/schema.py): no trigger, view or table of anyone else's."""
    try:
        found = schema.foreign_objects(schema.read_master(conn))
    except HymemError as exc:  # sqlite-vec does not load: the reference cannot be built
        return Finding("bank schema", FAIL, f"cannot check the schema: {exc.message}", exc.hint)
    if found:
        return Finding("bank schema", FAIL, f"{len(found)} object(s) hymem did not create: {schema.summary(found, most=10)}", FOREIGN_HINT)
    return Finding("bank schema", OK, "hymem's own tables and indexes only: no trigger, view or other table")


def _tables(conn) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _index_finding(conn, name: str, rows: str, expected: str, what: str) -> Finding:
    """Whether an index holds a row for each version it must hold and for no other, naming the first few that differ."""
    missing = [r[0] for r in conn.execute(f"{expected} EXCEPT {rows} ORDER BY 1 LIMIT 10")]
    extra = [r[0] for r in conn.execute(f"{rows} EXCEPT {expected} ORDER BY 1 LIMIT 10")]
    count = conn.execute(f"SELECT count(*) FROM ({rows})").fetchone()[0]
    if missing or extra:
        wanted = conn.execute(f"SELECT count(*) FROM ({expected})").fetchone()[0]
        parts = [f"{count} index rows for {wanted} versions ({what})"]
        if missing:
            parts.append("missing: " + ", ".join(f"m{v}" for v in missing))
        if extra:
            parts.append("rows it should not hold: " + ", ".join(f"m{v}" for v in extra))
        return Finding(name, FAIL, "; ".join(parts), "rebuild the bank: " + BANK_HINT)
    return Finding(name, OK, f"{count} rows, {what}")
