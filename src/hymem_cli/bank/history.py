"""Reading the bank's past: a fact's chain, the revision log, and the net diff between revisions."""

from __future__ import annotations

import json

from hymem_cli.bank.operations import parse_memory_id
from hymem_cli.bank.rows import VERSION_SELECT, version_dict
from hymem_cli.bank.store import Bank


def chain(bank: Bank, ref: str) -> list[dict]:
    """Every version of the fact `ref` belongs to, oldest first; the same list from any version in it."""
    vid = parse_memory_id(ref)
    bank.version_row(vid)  # unknown id: NotFoundError
    rows = bank.conn.execute(VERSION_SELECT + " WHERE v.chain = (SELECT chain FROM versions WHERE id = ?) ORDER BY v.id",
                             (vid,)).fetchall()
    return [version_dict(r) for r in rows]


def chunk_rejections(bank: Bank, ref: str) -> list[dict]:
    """Operations the guards refused in the chunk this version came from: what else the writer tried."""
    rows = bank.conn.execute(
        "SELECT j.operation, j.reason FROM rejections j JOIN versions v ON v.chunk = j.chunk WHERE v.id = ? ORDER BY j.id",
        (parse_memory_id(ref),),
    )
    return [{"operation": json.loads(r["operation"]), "reason": r["reason"]} for r in rows]


def revisions(bank: Bank, limit: int | None = None) -> list[dict]:
    """Revisions, newest first, with their counts, writer and rejected operations."""
    rows = bank.conn.execute(
        "SELECT * FROM revisions ORDER BY id DESC" + (" LIMIT ?" if limit else ""), (limit,) if limit else ()
    ).fetchall()
    return [revision_dict(bank, r) for r in rows]


def revision(bank: Bank, rev: int) -> dict:
    bank.check_revision(rev)
    return revision_dict(bank, bank.conn.execute("SELECT * FROM revisions WHERE id = ?", (rev,)).fetchone())


def revision_dict(bank: Bank, row) -> dict:
    rejected = [
        {"operation": json.loads(r["operation"]), "reason": r["reason"], "chunk": r["chunk"]}
        for r in bank.conn.execute("SELECT * FROM rejections WHERE revision = ? ORDER BY id", (row["id"],))
    ]
    return {
        "revision": row["id"],
        "time": row["time"],
        "command": row["command"],
        "source": row["source"],
        "state": row["state"],
        "writer": json.loads(row["writer"]) if row["writer"] else None,
        "counts": json.loads(row["counts"]),
        "rejections": rejected,
    }


def heads_at(bank: Bank, rev: int, chains: set[int] | None = None) -> dict[int, int]:
    """chain -> its current version as of revision `rev` (deleted or unborn chains are absent)."""
    sql = (
        "SELECT v.chain, v.id FROM versions v WHERE v.revision <= ? "
        "AND NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id AND r.revision <= ?)"
    )
    args: list = [rev, rev]
    if chains is not None:
        sql += f" AND v.chain IN ({','.join('?' * len(chains))})"
        args += sorted(chains)
    return {c: v for c, v in bank.conn.execute(sql, args)}


def diff(bank: Bank, rev_a: int, rev_b: int) -> list[dict]:
    """The net change of every fact between revisions a and b (a < b): added, updated, superseded, deleted.

    Net, so diffs compose: diff(a, b) then diff(b, c) describes the same end states as diff(a, c).
    """
    lo, hi = sorted((rev_a, rev_b))
    touched = {
        c
        for (c,) in bank.conn.execute(
            "SELECT v.chain FROM versions v WHERE v.revision > ? AND v.revision <= ? "
            "UNION SELECT v.chain FROM retirements r JOIN versions v ON v.id = r.version WHERE r.revision > ? AND r.revision <= ?",
            (lo, hi, lo, hi),
        )
    }
    if not touched:
        return []
    before, after = heads_at(bank, lo, touched), heads_at(bank, hi, touched)
    entries = []
    for c in sorted(touched):
        b, a = before.get(c), after.get(c)
        if b == a:
            continue  # born and deleted inside the range, or touched and restored: no net change
        old = version_dict(bank.version_row(b), as_of=hi) if b else None
        new = version_dict(bank.version_row(a), as_of=hi) if a else None
        if old is None:
            op = "add"
        elif new is None:
            op = "delete"
        else:
            op = new["op"]  # a later version of a chain: an update or a supersede
        reason = new["reason"] if new else old["retired_reason"]
        entries.append({"op": op, "chain": f"m{c}", "reason": reason, "before": old, "after": new})
    if rev_a > rev_b:  # asked backwards: show the change that would undo it
        for e in entries:
            e["before"], e["after"] = e["after"], e["before"]
            e["op"] = {"add": "delete", "delete": "add"}.get(e["op"], e["op"])
    return entries
