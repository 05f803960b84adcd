"""Invariants of the bank's core API under random sequences of operation batches (hypothesis).

Each example opens a fresh bank (HashEmbedder: fast, deterministic) and applies 1-12 batches of 1-3
operations drawn against the bank's current state: adds, and updates, supersedes and deletes of
current, retired or nonexistent versions. A plain-Python model predicts whether each batch is
accepted and what every chain's head is after every revision; after every batch the test checks:

1. every chain has exactly one current version, or none when its last operation was a delete;
2. no version is lost and none changes: `versions` (and `retirements`) rows only ever grow;
3. chain(bank, v) is the same list for every version v of a chain;
4. a refused batch changes nothing; an accepted one creates exactly one revision;
5. diffs compose: heads(a) + diff(a, b) + diff(b, c) == heads(c) == heads(a) + diff(a, c); diff(a, a) == [];
6. search never returns a retired version by default, and never one from after r with as_of=r.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from conftest import snapshot
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from hymem_cli._errors import InputError, NotFoundError
from hymem_cli.bank import open_bank
from hymem_cli.bank.history import chain, diff, heads_at
from hymem_cli.bank.search import SearchFilter, search
from hymem_cli.domain import Operation
from hymem_cli.embed import HashEmbedder

WORDS = ["alex", "sam", "priya", "seattle", "sydney", "tea", "coffee", "bakery", "marathon", "peanuts", "guitar", "moved"]
REASONS = ["moved", "was wrong", "changed jobs", "small talk"]
TEXT = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
SEARCH_LIMIT = 1000  # more than any example stores: every admitted match is returned


class Model:
    """What the bank should hold: versions, their chains and texts, retirements, heads per revision."""

    def __init__(self) -> None:
        self.chain_of: dict[int, int] = {}  # version id -> chain id
        self.text: dict[int, str] = {}
        self.retired: set[int] = set()
        self.deleted: set[int] = set()  # chains whose last operation was a delete
        self.heads: list[dict[int, int]] = [{}]  # heads[r]: chain -> current version after revision r

    def next_id(self) -> int:
        return max(self.chain_of, default=0) + 1

    def current(self) -> set[int]:
        return set(self.chain_of) - self.retired

    def apply(self, ops: list[Operation]) -> bool:
        """Apply `ops` all or nothing, as the bank should; False (and no change) when one is refused."""
        chain_of, text, retired, deleted = dict(self.chain_of), dict(self.text), set(self.retired), set(self.deleted)
        new_id = self.next_id()
        for op in ops:
            if op.op == "add":
                chain_of[new_id], text[new_id] = new_id, op.text.strip()
                new_id += 1
                continue
            target = int(op.target[1:])
            if target not in chain_of or target in retired:  # unknown, retired, or already targeted here
                return False
            retired.add(target)
            if op.op == "delete":
                deleted.add(chain_of[target])
            else:
                chain_of[new_id], text[new_id] = chain_of[target], op.text.strip()
                new_id += 1
        self.chain_of, self.text, self.retired, self.deleted = chain_of, text, retired, deleted
        self.heads.append({chain_of[v]: v for v in self.current()})
        return True


def draw_batch(data, model: Model) -> list[Operation]:
    ops = []
    for _ in range(data.draw(st.integers(1, 3), label="batch size")):
        # Mostly adds while the bank is empty (a change of nothing is always refused), then a mix.
        kinds = ["add", "add", "update", "supersede", "delete"] if model.current() else ["add"] * 6 + ["update", "supersede", "delete"]
        kind = data.draw(st.sampled_from(kinds), label="op")
        if kind == "add":
            ops.append(Operation("add", text=data.draw(TEXT, label="text")))
            continue
        # Targets: mostly current versions, sometimes retired ones, sometimes ids that do not exist
        # (m0, or ids at and past the next free one, which an add earlier in the batch may create).
        nxt = model.next_id()
        pools = {
            "current": sorted(model.current()),
            "retired": sorted(model.retired),
            "missing": [0, nxt, nxt + 1, nxt + 7],
        }
        which = data.draw(st.sampled_from([k for k in ("current", "current", "current", "retired", "missing") if pools[k]]), label="pool")
        target = f"m{data.draw(st.sampled_from(pools[which]), label='target')}"
        if kind == "delete":
            ops.append(Operation("delete", target=target, reason=data.draw(st.sampled_from(REASONS), label="reason")))
        else:
            reason = data.draw(st.sampled_from(REASONS) if kind == "supersede" else st.none() | st.sampled_from(REASONS), label="reason")
            ops.append(Operation(kind, target=target, text=data.draw(TEXT, label="text"), reason=reason))
    return ops


def full_snapshot(bank) -> dict:
    """Every row of every plain table, plus which rows the vector and full-text indexes hold."""
    snap = snapshot(bank.path)
    snap["versions_vec"] = [r[0] for r in bank.conn.execute("SELECT rowid FROM versions_vec ORDER BY rowid")]
    snap["versions_fts"] = [r[0] for r in bank.conn.execute("SELECT id FROM versions_fts_docsize ORDER BY id")]
    for table in ("versions_codes", "versions_f16"):
        snap[table] = [r[0] for r in bank.conn.execute(f"SELECT version FROM {table} ORDER BY version")]
    return snap


def apply_diff(heads: dict[int, int], entries: list[dict]) -> dict[int, int]:
    out = dict(heads)
    for e in entries:
        c = int(e["chain"][1:])
        if e["after"] is None:
            out.pop(c, None)
        else:
            out[c] = int(e["after"]["id"][1:])
    return out


def check_chains(bank, model: Model) -> None:
    """1 and 3: one current version per chain (none after a delete); chain() is the same from any member."""
    rows = bank.conn.execute(
        "SELECT v.chain, v.id, r.how FROM versions v LEFT JOIN retirements r ON r.version = v.id ORDER BY v.id"
    ).fetchall()
    members: dict[int, list[int]] = {}
    current: dict[int, list[int]] = {}
    deleted: set[int] = set()
    for c, vid, how in rows:
        members.setdefault(c, []).append(vid)
        current.setdefault(c, [])
        if how is None:
            current[c].append(vid)
        elif how == "deleted":
            deleted.add(c)
    for c in members:
        assert len(current[c]) == (0 if c in deleted else 1), (c, current[c], c in deleted)
    assert deleted == model.deleted
    assert {v for vs in current.values() for v in vs} == model.current()
    assert {v: c for c, vs in members.items() for v in vs} == model.chain_of

    for c, vids in members.items():
        first = chain(bank, f"m{vids[0]}")
        assert [v["id"] for v in first] == [f"m{v}" for v in vids]
        statuses = [v["status"] for v in first]
        assert statuses.count("current") == (0 if c in deleted else 1)
        for vid in vids[1:]:
            assert chain(bank, f"m{vid}") == first


def check_immutable(bank, model: Model, seen: dict) -> None:
    """2: rows of versions and retirements are never lost or changed; texts are the model's."""
    for table, key in (("versions", "id"), ("retirements", "version")):
        rows = {r[key]: tuple(r) for r in bank.conn.execute(f"SELECT * FROM {table}")}
        for k, row in seen[table].items():
            assert rows.get(k) == row, (table, k)
        seen[table] = rows
    texts = {vid: text for vid, text in bank.conn.execute("SELECT id, text FROM versions")}
    assert texts == model.text


def check_history(bank, model: Model) -> None:
    """5: heads per revision match the model; diffs apply, compose, and diff(a, a) is empty."""
    latest = bank.latest_revision()
    assert latest == len(model.heads) - 1
    heads = [heads_at(bank, r) for r in range(latest + 1)]
    assert heads == model.heads
    for a in range(latest + 1):
        assert diff(bank, a, a) == []
        d_ac = diff(bank, a, latest)
        for e in d_ac:
            assert (e["before"] or {}).get("id") != (e["after"] or {}).get("id"), e  # net: no entry without a change
            assert (e["op"] == "add") == (e["before"] is None)
            assert (e["op"] == "delete") == (e["after"] is None)
        assert apply_diff(heads[a], d_ac) == heads[latest]
        for b in range(a, latest + 1):
            d_ab = diff(bank, a, b)
            assert apply_diff(heads[a], d_ab) == heads[b]
            assert apply_diff(apply_diff(heads[a], d_ab), diff(bank, b, latest)) == apply_diff(heads[a], d_ac)


def check_search(bank, model: Model, query: str) -> None:
    """6: default search shows current versions only; as_of=r shows only the heads at r."""
    current = model.current()
    hits = search(bank, query, SEARCH_LIMIT)
    assert all(h["status"] == "current" and int(h["id"][1:]) in current for h in hits), hits
    # Recall: every current version containing the (single) query word is found.
    if " " not in query:
        want = {v for v in current if query in model.text[v].split()}
        assert want <= {int(h["id"][1:]) for h in hits}
    for r in range(bank.latest_revision() + 1):
        then = search(bank, query, SEARCH_LIMIT, SearchFilter(as_of=r))
        heads = set(model.heads[r].values())
        for h in then:
            assert h["revision"] <= r and h["status"] == "current" and int(h["id"][1:]) in heads, (r, h)
        for h in search(bank, query, SEARCH_LIMIT, SearchFilter(as_of=r, include_retired=True)):
            assert h["revision"] <= r, (r, h)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_bank_invariants(data):
    check_invariants(data)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_bank_invariants_through_the_binary_prefilter(data):
    """The same invariants when every vector search goes through bank/codes.py with a tiny candidate pool."""
    from unittest import mock

    from hymem_cli.bank import codes

    with mock.patch.object(codes, "PREFILTER_FROM", 0), mock.patch.object(codes, "CANDIDATES", 2), \
            mock.patch.object(codes, "OVERSAMPLE", 0), mock.patch.object(codes, "RESCORE_MAX", 8):
        check_invariants(data)


def check_invariants(data) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bank = open_bank(Path(tmp) / "bank.db", busy_timeout=5.0)
        try:
            bank.bind_embedder(HashEmbedder())
            model = Model()
            seen: dict = {"versions": {}, "retirements": {}}
            steps = data.draw(st.integers(1, 12), label="steps")
            event(f"steps: {'1-4' if steps <= 4 else '5-8' if steps <= 8 else '9-12'}")
            accepted = 0
            for _ in range(steps):
                ops = draw_batch(data, model)
                before, revisions_before = full_snapshot(bank), bank.latest_revision()
                expected = model.apply(ops)
                accepted += expected
                try:
                    draft = bank.apply_operations(ops, "apply", "test")
                except (InputError, NotFoundError) as exc:
                    assert not expected, f"refused a valid batch: {exc.message}"
                    assert "operation" in exc.message
                    assert full_snapshot(bank) == before  # 4: refused, so nothing changed
                else:
                    assert expected, f"accepted a batch the model refuses: {ops}"
                    # 4: exactly one new revision, holding this batch's changes.
                    assert draft.id == revisions_before + 1 == bank.latest_revision()
                    assert len(full_snapshot(bank)["revisions"]) == len(before["revisions"]) + 1
                    c = draft.counts
                    assert c["applied"] == len(ops) == c["added"] + c["updated"] + c["superseded"] + c["deleted"]
                check_chains(bank, model)
                check_immutable(bank, model, seen)
                check_history(bank, model)
                check_search(bank, model, data.draw(st.sampled_from(WORDS) | TEXT, label="query"))
            event(f"accepted batches: {'0' if not accepted else '1-3' if accepted <= 3 else '4+'}")
            event(f"chains deleted: {'some' if model.deleted else 'none'}; versions retired: {'some' if model.retired else 'none'}")
        finally:
            bank.conn.close()


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_refused_batch_names_the_first_refused_operation(data):
    """A batch with one bad operation after good ones is refused whole, and the error names that operation."""
    with tempfile.TemporaryDirectory() as tmp:
        bank = open_bank(Path(tmp) / "bank.db", busy_timeout=5.0)
        try:
            bank.bind_embedder(HashEmbedder())
            bank.apply_operations([Operation("add", text="alex lives in seattle")], "apply", "test")
            good = [Operation("add", text=data.draw(TEXT)) for _ in range(data.draw(st.integers(0, 3)))]
            bad = data.draw(st.sampled_from([
                Operation("update", target="m99", text="x"),
                Operation("delete", target="m0", reason="gone"),
                Operation("supersede", target="nonsense", text="x", reason="r"),
            ]))
            before = full_snapshot(bank)
            try:
                bank.apply_operations([*good, bad], "apply", "test")
            except (InputError, NotFoundError) as exc:  # an unknown target is a 4, a retired one a 3
                assert f"operation {len(good) + 1}:" in exc.message
            else:
                raise AssertionError("a batch with an unknown target was accepted")
            assert full_snapshot(bank) == before
        finally:
            bank.conn.close()
