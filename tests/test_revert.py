"""`hymem revert` and `hymem forget`: undoing by adding revisions, with history kept exact."""

from __future__ import annotations

import json

from conftest import ALEX_JSONL, SYDNEY, one_error_line, snapshot

from hymem_cli.bank import open_bank

SEATTLE = "Alex: Hi! I just got back from a run along Lake Union. I live in Seattle, in Fremont."
QUERY = ("search", "where does Alex live", "-f", "jsonl", "-n", "20")


def ops(*items: dict) -> str:
    return "".join(json.dumps(o) + "\n" for o in items)


def _rows(path, sql, *args):
    b = open_bank(path)
    try:
        return [tuple(r) for r in b.conn.execute(sql, args)]
    finally:
        b.conn.close()


def test_revert_restores_the_state_before_the_revision(cli, home, bank, monkeypatch):
    monkeypatch.setenv("HYMEM_SEARCH_LIMIT", "20")
    after_apply = cli(*QUERY).jsonl()
    assert after_apply[0]["text"] == SYDNEY
    current_texts_before = sorted(h["text"] for h in cli(*QUERY, "--as-of", "1").jsonl())

    done = cli("revert", "2", "-f", "json")
    assert done.exit_code == 0, done.stderr
    assert "revision 3: reverted revision 2" in done.stderr
    changes = {e["chain"]: e for e in done.json()}
    assert changes["m1"]["op"] == "update" and changes["m1"]["after"]["text"] == SEATTLE
    assert changes["m4"]["op"] == "add" and changes["m14"]["op"] == "delete"

    # Search finds the old text again, and exactly the texts that were current before revision 2.
    hits = cli(*QUERY).jsonl()
    assert SEATTLE in [h["text"] for h in hits] and SYDNEY not in [h["text"] for h in hits]
    assert sorted(h["text"] for h in hits) == current_texts_before

    chain = cli("history", "m1", "-f", "json").json()
    assert [(v["id"], v["op"], v["status"]) for v in chain] == [
        ("m1", "add", "superseded"), ("m13", "supersede", "updated"), ("m15", "update", "current"),
    ]
    copy = chain[2]
    assert copy["text"] == SEATTLE and copy["reason"] == "revert of revision 2" and copy["revision"] == 3
    assert copy["source_ids"] == ["s1-1"] and copy["speaker"] == "Alex" and copy["event_time"] == "2024-03-02T18:04:00Z"
    assert copy["source"] == str(ALEX_JSONL)  # provenance is the old version's, so --source still finds it
    assert [(v["id"], v["status"]) for v in cli("history", "m4", "-f", "json").json()] == [("m4", "deleted"), ("m16", "current")]
    assert cli("show", "m14", "-f", "json").json()["status"] == "deleted"

    # The originals stay retired by revision 2: history is not rewritten.
    assert _rows(bank, "SELECT version, revision, how FROM retirements ORDER BY version") == [
        (1, 2, "superseded"), (4, 2, "deleted"), (13, 3, "updated"), (14, 3, "deleted"),
    ]
    log = cli("log", "-f", "json", "-n", "1").json()[0]
    assert log["command"] == "revert 2" and log["state"] == "done"
    assert (log["counts"]["updated"], log["counts"]["added"], log["counts"]["deleted"]) == (1, 1, 1)


def test_diff_across_the_revert_shows_no_net_change_in_text(cli, bank):
    assert cli("revert", "2").exit_code == 0
    across = cli("diff", "1", "3", "-f", "json").json()
    assert {e["chain"] for e in across} == {"m1", "m4"}  # m14 was born and died inside: no entry
    for e in across:
        assert e["before"]["text"] == e["after"]["text"]
    # The revert's own diff is revision 2's, backwards.
    forward = {e["chain"]: (e["before"] or {}).get("text") for e in cli("diff", "1", "2", "-f", "json").json()}
    backward = {e["chain"]: (e["after"] or {}).get("text") for e in cli("diff", "2", "3", "-f", "json").json()}
    assert forward == backward


def test_revert_twice_is_refused(cli, home, bank):
    assert cli("revert", "2").exit_code == 0
    before = snapshot(bank)
    one_error_line(cli("revert", "2"), 3, "revision 2 was already reverted by revision 3", "hymem revert 3")
    assert snapshot(bank) == before
    # Reverting the revert brings revision 2's state back; then revision 2 stands again, its revert does not.
    assert cli("revert", "3").exit_code == 0
    assert cli(*QUERY).jsonl()[0]["text"] == SYDNEY
    assert [v["status"] for v in cli("history", "m4", "-f", "json").json()] == ["deleted", "deleted"]
    one_error_line(cli("revert", "3"), 3, "revision 3 was already reverted by revision 4")
    one_error_line(cli("revert", "2"), 3, "cannot revert revision 2: revision 3 later changed")


def test_unknown_revision(cli, bank):
    before = snapshot(bank)
    one_error_line(cli("revert", "9"), 4, "no revision 9")
    one_error_line(cli("revert", "0"), 4, "no revision 0")
    assert snapshot(bank) == before


def test_a_later_change_blocks_the_revert_unless_forced(cli, bank):
    assert cli("apply", "-", input=ops({"op": "update", "target": "m13", "text": "Alex lives in Surry Hills, Sydney."})).exit_code == 0
    before = snapshot(bank)
    one_error_line(cli("revert", "2"), 3, "revision 3 later changed m13", "--force")
    assert snapshot(bank) == before

    forced = cli("revert", "2", "--force", "-f", "json")
    assert forced.exit_code == 0, forced.stderr
    assert "skipped: revision 3 later changed m13" in forced.stderr
    assert {e["chain"] for e in forced.json()} == {"m4", "m14"}
    chain = cli("history", "m1", "-f", "json").json()
    assert chain[-1]["text"] == "Alex lives in Surry Hills, Sydney." and chain[-1]["status"] == "current"


def test_revert_of_a_revision_that_changed_nothing_left(cli, bank):
    assert cli("apply", "-", input=ops({"op": "delete", "target": "m14", "reason": "unsure"})).exit_code == 0
    assert cli("apply", "-", input=ops({"op": "add", "text": "Alex has a dog."})).exit_code == 0
    assert cli("forget", "m15", "--reason", "no dog").exit_code == 0
    one_error_line(cli("revert", "4", "--force"), 3, "nothing left to revert")


def test_forget(cli, home, bank):
    assert cli("search", "Atlassian", "-f", "jsonl").jsonl()[0]["id"] == "m14"
    done = cli("forget", "m14", "--reason", "the user asked", "-f", "json")
    assert done.exit_code == 0, done.stderr
    assert [e["op"] for e in done.json()] == ["delete"]
    assert "m14" not in [h["id"] for h in cli("search", "Atlassian", "-f", "jsonl").jsonl()]
    shown = cli("history", "m14", "-f", "json").json()
    assert [(v["status"], v["retired_reason"], v["retired_revision"]) for v in shown] == [("deleted", "the user asked", 3)]
    assert _rows(bank, "SELECT command, source FROM revisions WHERE id = 3") == [("forget", "m14")]
    # Forgetting is a revision like any other: it can be reverted.
    assert cli("revert", "3").exit_code == 0
    assert cli("search", "Atlassian", "-f", "jsonl").jsonl()[0]["text"] == "Alex works at Atlassian."


def test_forget_needs_a_reason_and_a_current_memory(cli, bank):
    before = snapshot(bank)
    missing = cli("forget", "m3")
    assert missing.exit_code == 2 and "--reason" in missing.stderr
    assert cli("forget", "m3", "--reason", "  ").exit_code == 2
    one_error_line(cli("forget", "m99", "--reason", "x"), 4, "no memory m99")
    one_error_line(cli("forget", "m1", "--reason", "x"), 3, "m1 was already superseded", "m13")
    one_error_line(cli("forget", "m4", "-r", "x"), 3, "already deleted")
    assert snapshot(bank) == before


def test_help_has_examples(cli):
    for name in ("export", "import", "revert", "forget"):
        shown = cli(name, "--help")
        assert shown.exit_code == 0 and "Examples" in shown.stdout


def test_diff_backwards_is_the_change_that_undoes_the_forward_one(cli, monkeypatch):
    """`hymem diff 2 1`: an add shows as a delete, a delete as an add, a supersede or update from new to old."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("apply", "-", input=ops({"op": "add", "text": "Alex lives in Seattle."}, {"op": "add", "text": "Alex has a cat."},
                                       {"op": "add", "text": "Alex works at a bakery."})).exit_code == 0
    assert cli("apply", "-", input=ops(
        {"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.", "reason": "Alex moved."},
        {"op": "delete", "target": "m2", "reason": "the cat was Sam's"},
        {"op": "update", "target": "m3", "text": "Alex works at a bakery in Ballard."},
        {"op": "add", "text": "Alex has a dog named Rex."},
    )).exit_code == 0

    def summary(entries):
        return [(e["op"], e["chain"], (e["before"] or {}).get("id"), (e["after"] or {}).get("id"), e["reason"]) for e in entries]

    forward = cli("diff", "1", "2", "-f", "json").json()
    assert summary(forward) == [
        ("supersede", "m1", "m1", "m4", "Alex moved."),
        ("delete", "m2", "m2", None, "the cat was Sam's"),
        ("update", "m3", "m3", "m5", None),
        ("add", "m6", None, "m6", None),
    ]
    backward = cli("diff", "2", "1", "-f", "json").json()
    assert summary(backward) == [
        ("supersede", "m1", "m4", "m1", "Alex moved."),
        ("add", "m2", None, "m2", "the cat was Sam's"),
        ("update", "m3", "m5", "m3", None),
        ("delete", "m6", "m6", None, None),
    ]
    plain = cli("diff", "2", "1", "-f", "plain").stdout.splitlines()
    assert plain == [
        "> supersede m4 -> m1: Alex lives in Sydney. -> Alex lives in Seattle.  (Alex moved.)",
        "+ add       m2: Alex has a cat.",
        "~ update    m5 -> m3: Alex works at a bakery in Ballard. -> Alex works at a bakery.",
        "- delete    m6: Alex has a dog named Rex.",
    ]
    assert cli("diff", "2", "2", "-f", "json").json() == []


def test_a_diff_shows_each_version_as_it_stood_at_the_later_revision(cli, monkeypatch):
    """m2 replaced m1 in revision 2 and was itself replaced in revision 3: `diff 1 2` shows m1 superseded and m2
    current, as they were at revision 2, not as they are now."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("apply", "-", input=ops({"op": "add", "text": "Alex lives in Seattle."})).exit_code == 0
    for city in ("Sydney", "Lisbon"):
        target = "m1" if city == "Sydney" else "m2"
        assert cli("apply", "-", input=ops({"op": "supersede", "target": target, "text": f"Alex lives in {city}.",
                                            "reason": f"Alex moved to {city}."})).exit_code == 0
    [entry] = cli("diff", "1", "2", "-f", "json").json()
    before, after = entry["before"], entry["after"]
    retirement = ("status", "retired_revision", "retired_reason", "successor")
    assert [before["id"], *(before[k] for k in retirement)] == ["m1", "superseded", 2, "Alex moved to Sydney.", "m2"]
    assert [after["id"], *(after[k] for k in retirement)] == ["m2", "current", None, None, None]
    [backwards] = cli("diff", "2", "1", "-f", "json").json()
    assert (backwards["before"]["id"], backwards["before"]["status"]) == ("m2", "current")


def test_the_copies_a_revert_makes_keep_the_chunk_they_were_written_from(cli, bank):
    """m1 (superseded in revision 2) and m4 (deleted there) came from a chunk of the raw ingest; their copies still do."""
    assert cli("revert", "2").exit_code == 0
    rows = dict(_rows(bank, "SELECT id, chunk FROM versions"))
    copies = dict(_rows(bank, "SELECT chain, id FROM versions WHERE revision = 3 AND op = 'update'"))
    assert rows[1] is not None and rows[4] is not None
    assert (rows[copies[1]], rows[copies[4]]) == (rows[1], rows[4])


def test_the_log_gives_each_revision_its_time_and_source(cli, bank):
    import re

    entries = {e["revision"]: e for e in cli("log", "-f", "json").json()}
    assert entries[1]["source"] == str(ALEX_JSONL) and entries[2]["source"] is not None
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", e["time"]) for e in entries.values())
