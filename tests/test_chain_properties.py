"""Chains under random histories: adds, updates, supersedes, deletes, reverts and re-adds in any order, with the
bank's rules checked after every step (one current version a chain, history whole, search never calling a retired
version current, `Bank.verify` clean), and export → import → export identical at the end."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hymem_cli._errors import HymemError
from hymem_cli.bank import open_bank
from hymem_cli.bank.history import chain
from hymem_cli.bank.revert import revert
from hymem_cli.bank.search import SearchFilter, search
from hymem_cli.bank.transfer import dumps, export_records, import_export, parse_export
from hymem_cli.domain import Message, Operation, memory_id
from hymem_cli.embed import HashEmbedder
from hymem_cli.ingest.pipeline import ingest
from hymem_cli.ingest.processors import RawProcessor
from hymem_cli.ingest.sources import Source
from hymem_cli.screen import Screen

TEXTS = ["Alex lives in Seattle.", "Alex lives in Sydney.", "Alex has a dog called Rex.", "Alex is learning Portuguese.",
         "Alex works at a bakery.", "Alex quit the bakery.", "Alex runs every morning.", "Alex prefers tea to coffee."]
ACTION = st.one_of(
    st.tuples(st.just("add"), st.integers(0, len(TEXTS) - 1)),
    st.tuples(st.sampled_from(["update", "supersede", "delete"]), st.integers(0, 50), st.integers(0, len(TEXTS) - 1)),
    st.tuples(st.just("revert"), st.integers(0, 50)),
    st.tuples(st.just("again"), st.integers(0, 50)),  # the same operation as an earlier step, again
    st.tuples(st.just("transcript"), st.integers(0, 1)),  # one of two transcripts added raw; a second time adds nothing
)
TRANSCRIPTS = [[Message("t0-1", "Alex", "I live in Seattle.", "2024-03-01T10:00:00Z", "t0"),
                Message("t0-2", "Sam", "Nice, Seattle is lovely.", "2024-03-01T10:01:00Z", "t0")],
               [Message("t1-1", "Alex", "I moved to Sydney.", "2024-05-01T10:00:00Z", "t1")]]


def current_ids(bank) -> list[int]:
    return [r[0] for r in bank.conn.execute(
        "SELECT id FROM versions v WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id) ORDER BY id")]


def check_rules(bank) -> None:
    q = lambda sql: bank.conn.execute(sql).fetchall()  # noqa: E731
    assert q("SELECT chain FROM versions v WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id) "
             "GROUP BY chain HAVING count(*) > 1") == []  # one current version a chain, at most
    # a new version of a fact replaces exactly one old one; only a revert that brings a deleted fact back replaces none
    succeeds = "(SELECT count(*) FROM retirements r WHERE r.successor = v.id)"
    assert q(f"SELECT v.id FROM versions v JOIN revisions rv ON rv.id = v.revision WHERE v.op != 'add' AND {succeeds} != 1 "
             f"AND NOT ({succeeds} = 0 AND rv.command LIKE 'revert %')") == []
    for (head,) in q("SELECT DISTINCT chain FROM versions"):
        versions = chain(bank, memory_id(head))
        stored = [r[0] for r in bank.conn.execute("SELECT id FROM versions WHERE chain = ? ORDER BY id", (head,))]
        assert [int(v["id"][1:]) for v in versions] == stored  # history lists every version of the fact, in order
        assert sum(v["status"] == "current" for v in versions) <= 1
    for text in TEXTS[:4]:
        assert all(h["status"] == "current" for h in search(bank, text, 20, SearchFilter(), min_score=0.0))
    assert [f for f in bank.verify() if f.status == "fail"] == []


def apply(bank, op: Operation, step: int) -> bool:
    """Apply one operation as its own revision; False (and the bank as it was) when the bank's state refuses it."""
    before = bank.latest_revision()
    try:
        bank.apply_operations([op], "apply", f"step-{step}")
    except HymemError:
        assert bank.latest_revision() == before
        return False
    return True


@pytest.mark.slow  # 30 histories of up to 14 steps, each checked after every step (about 10 s)
@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(ACTION, min_size=1, max_size=14))
def test_random_histories_keep_every_chain_rule(tmp_path_factory, actions):
    work = tmp_path_factory.mktemp("chains")
    bank = open_bank(work / "bank.db")
    bank.bind_embedder(HashEmbedder())
    done: list[Operation] = []
    try:
        for step, action in enumerate(actions):
            kind = action[0]
            heads = current_ids(bank)
            if kind == "add":
                op = Operation("add", text=TEXTS[action[1]])
            elif kind in ("update", "supersede", "delete"):
                if not heads:
                    continue
                target = memory_id(heads[action[1] % len(heads)])
                op = Operation(kind, target=target, reason=f"step {step}",
                               text=None if kind == "delete" else TEXTS[action[2]])
            elif kind == "transcript":
                before = bank.conn.execute("SELECT count(*) FROM versions").fetchone()[0]
                report = ingest(bank, [Source(f"chat-{action[1]}.jsonl", list(TRANSCRIPTS[action[1]]))], RawProcessor(Screen()))
                added = bank.conn.execute("SELECT count(*) FROM versions").fetchone()[0] - before
                assert added == (len(TRANSCRIPTS[action[1]]) if report.stored else 0)  # the same input again: nothing new
                assert report.stored or report.skipped
                check_rules(bank)
                continue
            elif kind == "revert":
                revisions = bank.latest_revision()
                if not revisions:
                    continue
                before = revisions
                try:
                    revert(bank, action[1] % revisions + 1, True)
                except HymemError:
                    assert bank.latest_revision() == before  # a refused revert changes nothing
                check_rules(bank)
                continue
            else:  # again: an earlier operation once more; a retired target is refused, an add adds a new fact
                if not done:
                    continue
                op = done[action[1] % len(done)]
            if apply(bank, op, step):
                done.append(op)
            check_rules(bank)

        first = [dumps(r) for r in export_records(bank)]
        copy = open_bank(work / "copy.db")
        copy.bind_embedder(HashEmbedder())
        try:
            import_export(copy, parse_export(first, "export.jsonl"))
            assert [dumps(r) for r in export_records(copy)] == first  # export → import → export: the same records
            check_rules(copy)
        finally:
            copy.close()
    finally:
        bank.close()
