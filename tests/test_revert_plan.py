"""Reverting through the library, case by case: what a revert refuses and why (with its hint), what it
puts back (every field of the old version, its vector or a new one), and forget's refusals."""

from __future__ import annotations

import json

import pytest

from hymem_cli._errors import BankError, InputError, NotFoundError
from hymem_cli.bank import db, open_bank
from hymem_cli.bank.revert import forget, plan_revert, revert
from hymem_cli.bank.store import RevisionDraft
from hymem_cli.domain import Operation
from hymem_cli.embed import HashEmbedder, to_blob


@pytest.fixture
def bank(tmp_path):
    """Revision 1: m1 (Alex lives in Seattle), m2 (Alex has a cat), m3 (Alex works at a bakery), with provenance."""
    b = open_bank(tmp_path / "bank.db")
    b.bind_embedder(HashEmbedder())
    b.apply_operations([
        Operation("add", text="Alex lives in Seattle.", speaker="Alex", evidence="I live in Seattle", source_ids=["s1-1"],
                  event_time="2024-05-01T10:00:00Z", tags=["home"], owner="user", kind="memory", valid_until="2030-01-01",
                  origin="quoted"),
        Operation("add", text="Alex has a cat."),
        Operation("add", text="Alex works at a bakery."),
    ], "apply", "facts.jsonl")
    yield b
    b.close()


def apply(bank, *ops: Operation) -> int:
    return bank.apply_operations(list(ops), "apply", "more.jsonl").id


def versions(bank, *columns: str) -> list[tuple]:
    return [tuple(r) for r in bank.conn.execute(f"SELECT {', '.join(columns)} FROM versions ORDER BY id")]


def error(exc_info) -> tuple[str, str | None]:
    return exc_info.value.message, exc_info.value.hint


@pytest.mark.parametrize("rev", [0, 9])
def test_an_unknown_revision(bank, rev):
    with pytest.raises(NotFoundError) as missing:
        plan_revert(bank, rev)
    assert error(missing) == (f"no revision {rev} in this bank", "list revisions with `hymem log`")


def test_the_first_revision_can_be_reverted(bank):
    draft, plan = revert(bank, 1)
    assert [u.action for u in plan.undo] == ["delete"] * 3
    assert draft.counts["deleted"] == 3 and bank.conn.execute("SELECT count(*) FROM retirements").fetchone()[0] == 3


def test_a_revert_twice_names_the_revert(bank):
    revert(bank, 1)
    with pytest.raises(InputError) as again:
        plan_revert(bank, 1)
    assert error(again) == ("revision 1 was already reverted by revision 2", "to undo that revert, run `hymem revert 2`")


def test_later_changes_block_a_revert_and_say_how_many(bank):
    rev = apply(bank, Operation("update", target="m1", text="Alex lives in Sydney."),
                Operation("update", target="m2", text="Alex has two cats."),
                Operation("update", target="m3", text="Alex works at a bakery in Ballard."),
                Operation("add", text="Alex has a dog."))
    apply(bank, Operation("update", target="m4", text="Alex lives in Surry Hills, Sydney."))
    with pytest.raises(InputError) as one:
        plan_revert(bank, rev)
    assert error(one) == (f"cannot revert revision {rev}: revision 3 later changed m4",
                          "revert the later revision first, or pass --force to skip the facts changed since")
    apply(bank, Operation("delete", target="m5", reason="no cats"))
    with pytest.raises(InputError) as two:
        plan_revert(bank, rev)
    assert error(two)[0] == f"cannot revert revision {rev}: revision 3 later changed m4 (and 1 more)"
    apply(bank, Operation("delete", target="m6", reason="closed"))
    with pytest.raises(InputError) as three:
        plan_revert(bank, rev)
    assert error(three)[0] == f"cannot revert revision {rev}: revision 3 later changed m4 (and 2 more)"
    forced = plan_revert(bank, rev, force=True)
    assert [(u.chain, u.action) for u in forced.undo] == [(7, "delete")]
    assert forced.skipped == ["revision 3 later changed m4", "revision 4 later changed m5", "revision 5 later changed m6"]


def test_nothing_left_to_revert(bank):
    rev = apply(bank, Operation("update", target="m1", text="Alex lives in Sydney."))
    apply(bank, Operation("update", target="m4", text="Alex lives in Perth."))
    with pytest.raises(InputError) as nothing:
        revert(bank, rev, force=True)
    assert error(nothing) == (f"nothing left to revert in revision {rev}: every fact it changed was changed again later", None)


def test_a_fact_born_and_deleted_in_the_revision_is_passed_over(bank):
    rev = apply(bank, Operation("add", text="Alex has a parrot."), Operation("delete", target="m4", reason="a joke"),
                Operation("add", text="Alex has a dog."))
    plan = plan_revert(bank, rev)
    assert [(u.chain, u.action) for u in plan.undo] == [(5, "delete")]


def test_a_revision_that_changed_no_memory(bank):
    draft = RevisionDraft("add", "empty.txt")
    with db.transaction(bank.conn):
        bank._open_revision(draft)
        bank._finish(draft)
    with pytest.raises(InputError) as empty:
        plan_revert(bank, draft.id)
    assert error(empty) == (f"revision {draft.id} changed no memories; nothing to revert", "see what it did with `hymem diff`")


def manual_version(bank, chain: int, text: str, retire: list[int] = ()) -> int:
    """A revision written by hand: a version in `chain`, and retirements: states no command makes."""
    draft = RevisionDraft("manual", "test")
    with db.transaction(bank.conn):
        bank._open_revision(draft)
        bank.insert_version(chain, "update", text, to_blob(HashEmbedder().embed([text])[0]), revision=draft.id)
        for vid in retire:
            bank.conn.execute("INSERT INTO retirements (version, revision, how) VALUES (?, ?, 'updated')", (vid, draft.id))
        bank._finish(draft)
    return draft.id


def test_a_fact_with_two_current_versions_is_refused(bank):
    rev = apply(bank, Operation("update", target="m1", text="Alex lives in Sydney."))
    bank.insert_version(1, "update", "Alex lives in Perth.", to_blob(HashEmbedder().embed(["Perth"])[0]), revision=rev)
    with pytest.raises(BankError) as several:
        plan_revert(bank, rev)
    assert error(several) == (f"fact m1 had several current versions around revision {rev}", "check it with `hymem history`")


def test_a_fact_with_two_versions_retired_at_once_is_refused(bank):
    bank.insert_version(1, "add", "Alex lives in Perth.", to_blob(HashEmbedder().embed(["Perth"])[0]), revision=1)
    rev = manual_version(bank, 1, "Alex lives in Oslo.", retire=[1, 4])
    with pytest.raises(BankError) as several:
        plan_revert(bank, rev)
    assert error(several)[0] == f"fact m1 had several current versions around revision {rev}"


def test_a_fact_brought_back_since_blocks_undoing_its_delete(bank):
    rev = apply(bank, Operation("delete", target="m2", reason="no cat"), Operation("delete", target="m3", reason="closed"))
    later = manual_version(bank, 2, "Alex has a cat again.")
    with pytest.raises(InputError) as back:
        plan_revert(bank, rev)
    assert error(back)[0] == f"cannot revert revision {rev}: revision {later} later brought back m2 as m4"
    forced = plan_revert(bank, rev, force=True)
    assert forced.skipped == [f"revision {later} later brought back m2 as m4"] and [u.chain for u in forced.undo] == [3]


def test_undoing_a_delete_restores_every_field_and_the_vector(bank):
    columns = ("chain", "text", "speaker", "evidence", "chunk", "source", "source_ids", "event_time", "tags", "owner", "kind",
               "valid_until", "origin")
    rev = apply(bank, Operation("delete", target="m1", reason="moved"), Operation("delete", target="m2", reason="no cat"))
    draft, plan = revert(bank, rev)
    assert [u.action for u in plan.undo] == ["restore", "restore"]
    (m1, m2, _, m4, m5) = versions(bank, *columns)
    assert m4 == m1 and m5 == m2
    assert versions(bank, "op", "reason", "revision")[3:] == [("update", f"revert of revision {rev}", draft.id)] * 2
    assert (draft.counts["applied"], draft.counts["added"]) == (2, 2)
    vec = {r[0]: r[1] for r in bank.conn.execute("SELECT rowid, embedding FROM versions_vec")}
    assert vec[4] == vec[1] and vec[5] == vec[2]
    assert json.loads(m4[6]) == ["s1-1"]


def test_a_missing_vector_is_made_again_or_named(bank, tmp_path):
    rev = apply(bank, Operation("delete", target="m1", reason="moved"))
    bank.conn.execute("DELETE FROM versions_vec WHERE rowid = 1")
    plain = open_bank(tmp_path / "bank.db")  # no embedder bound
    try:
        with pytest.raises(BankError) as missing:
            revert(plain, rev)
        assert error(missing) == ("the vector of m1 is missing", "rebuild the bank: hymem export | hymem import - --bank new.db")
    finally:
        plain.close()
    revert(bank, rev)
    vec = bank.conn.execute("SELECT embedding FROM versions_vec WHERE rowid = 4").fetchone()[0]
    assert vec == to_blob(HashEmbedder().embed(["Alex lives in Seattle."])[0])


def test_forget_refuses_a_version_that_is_not_current(bank):
    apply(bank, Operation("supersede", target="m1", text="Alex lives in Sydney.", reason="moved"))
    with pytest.raises(InputError) as superseded:
        forget(bank, "m1", "wrong")
    assert error(superseded) == ("m1 was already superseded; the current version is m4", "hymem forget m4 --reason ...")
    forget(bank, "m4", "the user asked")
    with pytest.raises(InputError) as deleted:
        forget(bank, "m4", "again")
    assert error(deleted) == ("m4 was already deleted", "see it with `hymem history`")
    with pytest.raises(InputError) as gone:
        forget(bank, "m1", "again")
    assert error(gone) == ("m1 was already superseded", "see it with `hymem history`")


COPIED = ("chain", "text", "speaker", "evidence", "source", "source_ids", "event_time", "tags", "owner", "kind", "valid_until", "origin")


def test_undoing_an_update_puts_back_every_field_of_the_old_version_and_its_vector(bank):
    rev = apply(bank, Operation("update", target="m1", text="Alex lives in Sydney.", speaker="Sam", evidence="moved", source_ids=["s2-4"],
                                event_time="2025-01-01T00:00:00Z", tags=["moves"], owner="Sam", kind="event", valid_until="2025-12-31",
                                origin="document"))
    draft, plan = revert(bank, rev)
    assert [u.action for u in plan.undo] == ["update"]
    rows = versions(bank, *COPIED)
    assert rows[-1] == rows[0]  # m5, the copy, is m1 again: text, provenance, tags, owner, kind, validity and origin
    assert versions(bank, "op", "reason", "revision")[-1] == ("update", f"revert of revision {rev}", draft.id)
    vec = {r[0]: r[1] for r in bank.conn.execute("SELECT rowid, embedding FROM versions_vec")}
    assert vec[5] == vec[1]


def test_a_revert_is_a_revision_of_its_own_that_names_what_it_undid(bank):
    rev = apply(bank, Operation("add", text="Alex has a dog."))
    draft, _ = revert(bank, rev)
    assert tuple(bank.conn.execute("SELECT command, source, state FROM revisions WHERE id = ?", (draft.id,)).fetchone()) == (
        f"revert {rev}", f"revision {rev}", "done")
    assert tuple(bank.conn.execute("SELECT version, how, reason FROM retirements WHERE revision = ?", (draft.id,)).fetchone()) == (
        4, "deleted", f"revert of revision {rev}")


def test_revert_refuses_a_fact_changed_since_unless_forced(bank):
    rev = apply(bank, Operation("update", target="m1", text="Alex lives in Sydney."), Operation("add", text="Alex has a dog."))
    apply(bank, Operation("update", target="m4", text="Alex lives in Perth."))
    before = versions(bank, "id")
    with pytest.raises(InputError, match="later changed m4"):
        revert(bank, rev)
    assert versions(bank, "id") == before
    _, plan = revert(bank, rev, force=True)
    assert [u.action for u in plan.undo] == ["delete"] and plan.skipped == ["revision 3 later changed m4"]


def test_a_write_between_planning_and_reverting_stops_the_revert(bank, monkeypatch, tmp_path):
    """Another process changes a fact after the plan was made: the revert replans inside its transaction and stops."""
    from hymem_cli.bank import revert as revert_module

    rev = apply(bank, Operation("update", target="m1", text="Alex lives in Sydney."), Operation("add", text="Alex has a dog."))
    planned = revert_module.plan_revert
    calls = []

    def plan_then_someone_writes(b, r, force=False):
        plan = planned(b, r, force)
        if not calls:
            other = open_bank(tmp_path / "bank.db")
            other.bind_embedder(HashEmbedder())
            other.apply_operations([Operation("update", target="m5", text="Alex has two dogs.")], "apply", "elsewhere")
            other.close()
        calls.append(r)
        return plan

    monkeypatch.setattr(revert_module, "plan_revert", plan_then_someone_writes)
    before = versions(bank, "id")
    with pytest.raises(BankError) as changed:
        revert_module.revert(bank, rev, force=True)
    assert error(changed) == (f"the bank changed while reverting revision {rev}", "run the revert again")
    assert versions(bank, "id") == before + [(6,)]  # the other process's version, and nothing of the revert
    assert bank.conn.execute("SELECT count(*) FROM revisions WHERE command LIKE 'revert%'").fetchone()[0] == 0


def test_a_refusal_inside_the_revert_is_an_input_error_and_changes_nothing(bank, monkeypatch):
    """The plan is checked again inside the transaction, so the bank should never refuse; if it does, nothing is kept."""
    from hymem_cli.bank.store import Bank, OperationRefused

    rev = apply(bank, Operation("update", target="m1", text="Alex lives in Sydney."))
    before = versions(bank, "id")

    def refuse(self, *args, **kwargs):
        raise OperationRefused(0, "m4 is not current")

    monkeypatch.setattr(Bank, "_apply", refuse)
    with pytest.raises(InputError) as refused:
        revert(bank, rev)
    assert error(refused) == (f"cannot revert revision {rev}: m4 is not current", "nothing was changed")
    assert versions(bank, "id") == before
    assert bank.conn.execute("SELECT count(*) FROM revisions").fetchone()[0] == 2


def test_a_storage_error_inside_the_revert_names_the_bank(bank, monkeypatch):
    from hymem_cli.bank.store import Bank

    rev = apply(bank, Operation("add", text="Alex has a dog."))

    def disk_fails(self, *args, **kwargs):
        raise db.sqlite_module().OperationalError("disk I/O error")

    monkeypatch.setattr(Bank, "_apply", disk_fails)
    with pytest.raises(BankError) as failed:
        revert(bank, rev)
    assert error(failed) == (f"bank {bank.path}: disk I/O error", None)
    assert bank.conn.execute("SELECT count(*) FROM revisions").fetchone()[0] == 2
