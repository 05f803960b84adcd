"""Undoing a revision by adding a new one (`revert`), and the user's own delete (`forget`).

Nothing is destroyed: a revert retires what the revision made current and puts back copies of
what it retired, so `history` and `diff` still show every step.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hymem_cli._errors import BankError, InputError, NotFoundError
from hymem_cli.bank import db
from hymem_cli.bank.operations import id_problem, parse_memory_id
from hymem_cli.bank.store import Bank, OperationRefused, RevisionDraft, _db_error
from hymem_cli.domain import Operation, memory_id


def revert_reason(rev: int) -> str:
    return f"revert of revision {rev}"


@dataclass
class ChainUndo:
    """What undoing a revision does to one fact (chain).

    `made` is the version the revision left current (None: it deleted the fact); `replaced` is
    the version it retired that existed before it (None: it created the fact).
    """

    chain: int
    made: dict | None
    replaced: dict | None

    @property
    def action(self) -> str:
        if self.replaced is None:
            return "delete"  # retire what it added
        return "restore" if self.made is None else "update"  # put the old text back


@dataclass
class RevertPlan:
    rev: int
    undo: list[ChainUndo] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # with --force: facts changed again since


def _rows(bank: Bank, sql: str, args) -> list[dict]:
    return [dict(r) for r in bank.conn.execute(sql, args)]


def plan_revert(bank: Bank, rev: int, force: bool = False) -> RevertPlan:
    """Work out, per fact, how to undo revision `rev`; refuse (InputError) if a later revision changed one."""
    if id_problem(rev, "revision") or not bank.conn.execute("SELECT 1 FROM revisions WHERE id = ?", (rev,)).fetchone():
        raise NotFoundError(f"no revision {rev} in this bank", hint="list revisions with `hymem log`")
    if (by := reverted_by(bank, rev)) is not None:
        raise InputError(f"revision {rev} was already reverted by revision {by}", hint=f"to undo that revert, run `hymem revert {by}`")
    # Every version the revision created or retired, with its retirement (by whichever revision).
    select = (
        "SELECT v.id, v.chain, v.text, v.speaker, v.evidence, v.revision, v.chunk, v.source, v.source_ids, v.event_time, "
        "v.tags, v.owner, v.kind, v.valid_until, v.origin, "
        "r.revision AS retired_by FROM versions v LEFT JOIN retirements r ON r.version = v.id "
    )
    created = _rows(bank, select + "WHERE v.revision = ? ORDER BY v.id", (rev,))
    retired = _rows(bank, select + "WHERE r.revision = ? ORDER BY v.id", (rev,))
    plan = RevertPlan(rev)
    conflicts: list[str] = []
    for chain in sorted({v["chain"] for v in created + retired}):
        made = [v for v in created if v["chain"] == chain and v["retired_by"] != rev]
        replaced = [v for v in retired if v["chain"] == chain and v["revision"] != rev]
        if len(made) > 1 or len(replaced) > 1:
            raise BankError(f"fact {memory_id(chain)} had several current versions around revision {rev}", hint="check it with `hymem history`")
        undo = ChainUndo(chain, made[0] if made else None, replaced[0] if replaced else None)
        if undo.made is None and undo.replaced is None:
            continue  # born and deleted inside the revision: nothing to undo
        if (why := _changed_since(bank, undo)) is not None:
            (plan.skipped if force else conflicts).append(why)
            continue
        plan.undo.append(undo)
    if conflicts:
        more = f" (and {len(conflicts) - 1} more)" if len(conflicts) > 1 else ""
        raise InputError(
            f"cannot revert revision {rev}: {conflicts[0]}{more}",
            hint="revert the later revision first, or pass --force to skip the facts changed since",
        )
    if not plan.undo:
        if plan.skipped:
            raise InputError(f"nothing left to revert in revision {rev}: every fact it changed was changed again later")
        raise InputError(f"revision {rev} changed no memories; nothing to revert", hint="see what it did with `hymem diff`")
    return plan


def reverted_by(bank: Bank, rev: int) -> int | None:
    """The revision that reverted `rev` and still stands (was not reverted itself), or None."""
    by = bank.conn.execute("SELECT max(id) FROM revisions WHERE command = ?", (f"revert {rev}",)).fetchone()[0]
    if by is None or reverted_by(bank, by) is not None:
        return None
    return by


def _changed_since(bank: Bank, undo: ChainUndo) -> str | None:
    """Why a later revision stands in the way of undoing this fact, or None if none does."""
    if undo.made is not None:
        if undo.made["retired_by"] is None:
            return None
        return f"revision {undo.made['retired_by']} later changed {memory_id(undo.made['id'])}"
    head = bank.conn.execute(
        "SELECT v.id, v.revision FROM versions v WHERE v.chain = ? AND NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id)",
        (undo.chain,),
    ).fetchone()
    if head is None:
        return None
    return f"revision {head['revision']} later brought back {memory_id(undo.chain)} as {memory_id(head['id'])}"


def revert(bank: Bank, rev: int, force: bool = False) -> tuple[RevisionDraft, RevertPlan]:
    """Add one revision ("revert REV") that undoes revision `rev`'s net effect on every fact.

    A fact it added is deleted; a fact it updated or superseded gets its old text back as a new
    version in the same chain (op "update"), and one it deleted is put back the same way. Copies
    keep the old version's speaker, evidence, sources, event time and chunk, and reuse its vector.
    """
    plan = plan_revert(bank, rev, force)
    draft = RevisionDraft(command=f"revert {rev}", source=f"revision {rev}")
    blobs = {u.replaced["id"]: _vector(bank, u.replaced["id"]) for u in plan.undo if u.replaced is not None}
    try:
        with db.transaction(bank.conn):
            if plan_revert(bank, rev, force) != plan:  # another process wrote since we planned
                raise BankError(f"the bank changed while reverting revision {rev}", hint="run the revert again")
            bank._open_revision(draft)
            reason = revert_reason(rev)
            for undo in plan.undo:
                old = undo.replaced
                if undo.action == "delete":
                    bank._apply(draft, None, [Operation("delete", target=memory_id(undo.made["id"]), reason=reason)], [], strict=True)
                elif undo.action == "update":
                    copy = Operation("update", target=memory_id(undo.made["id"]), text=old["text"], reason=reason,
                                     evidence=old["evidence"], source_ids=_ids(old), event_time=old["event_time"], speaker=old["speaker"],
                                     tags=json.loads(old["tags"]) if old["tags"] else [], owner=old["owner"], kind=old["kind"],
                                     valid_until=old["valid_until"], origin=old["origin"])
                    # A draft that shares the revision and its counts but carries the old version's
                    # source, so the copy keeps its provenance (Bank._apply stamps draft.source).
                    view = RevisionDraft(draft.command, old["source"], id=draft.id, counts=draft.counts)
                    bank._apply(view, old["chunk"], [copy], [blobs[old["id"]]], strict=True)
                else:
                    _restore(bank, draft, old, reason, blobs[old["id"]])
            bank._finish(draft)
    except OperationRefused as exc:
        raise InputError(f"cannot revert revision {rev}: {exc.reason}", hint="nothing was changed") from None
    except Exception as exc:
        raise _db_error(exc, bank.path) from None
    return draft, plan


def _ids(row: dict) -> list[str]:
    return json.loads(row["source_ids"])


def _vector(bank: Bank, vid: int) -> bytes:
    """The stored vector of a version: a copy of its text needs no embedder."""
    row = bank.conn.execute("SELECT embedding FROM versions_vec WHERE rowid = ?", (vid,)).fetchone()
    if row is not None:
        return row[0]
    if bank.embedder is not None:
        text = bank.conn.execute("SELECT text FROM versions WHERE id = ?", (vid,)).fetchone()[0]
        return bank.embed_texts([text])[0]
    raise BankError(f"the vector of {memory_id(vid)} is missing", hint="rebuild the bank: hymem export | hymem import - --bank new.db")


def _restore(bank: Bank, draft: RevisionDraft, old: dict, reason: str, blob: bytes) -> None:
    """Put a deleted fact back: a copy of `old` as a new current version of its chain.

    Bank._apply cannot express this (it only retires current versions): no retirement goes with it.
    """
    bank.insert_version(
        old["chain"], "update", old["text"], blob, revision=draft.id, speaker=old["speaker"], reason=reason,
        evidence=old["evidence"], chunk=old["chunk"], source=old["source"], source_ids=_ids(old), event_time=old["event_time"],
        details=old,
    )
    draft.counts["applied"] += 1
    draft.counts["added"] += 1  # the fact is back: `diff` shows it as an add too


def forget(bank: Bank, ref: str, reason: str) -> RevisionDraft:
    """The user's own delete: one revision ("forget") retiring the current version `ref` with `reason`."""
    version = bank.version(ref)
    if version["status"] != "current":
        head = bank.head_of(parse_memory_id(version["id"]))
        now_is = f"; the current version is {memory_id(head)}" if head else ""
        raise InputError(f"{version['id']} was already {version['status']}{now_is}",
                         hint=f"hymem forget {memory_id(head)} --reason ..." if head else "see it with `hymem history`")
    delete = Operation("delete", target=version["id"], reason=reason.strip())
    return bank.apply_operations([delete], "forget", version["id"])
