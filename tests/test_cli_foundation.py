"""The foundation end to end through the CLI, with the real embedder and a real SQLite bank."""

from __future__ import annotations

import json

from conftest import ALEX_JSONL, snapshot

from hymem_cli import __version__

ALEX = "Alex: I live in Seattle.\nSam: Nice, I love Seattle.\n"


def test_newcomer_flow(cli, home, tmp_path):
    added = cli("add", "--raw", "-", input=ALEX)
    assert added.exit_code == 0, added.stderr
    assert added.stdout == ""
    assert "revision 1" in added.stderr

    hits = cli("search", "where does Alex live", "--format", "jsonl").jsonl()
    assert hits[0]["text"] == "Alex: I live in Seattle."
    for key in ("id", "text", "score", "status", "revision", "event_time", "source_ids"):
        assert key in hits[0]
    assert hits[0]["source_ids"] == ["LINE:1"] and hits[0]["status"] == "current"

    seattle = hits[0]["id"]
    ops = tmp_path / "ops.jsonl"
    ops.write_text(
        json.dumps({"op": "supersede", "target": seattle, "text": "Alex lives in Sydney.", "reason": "Alex moved to Sydney.",
                    "evidence": "I moved to Sydney", "source_ids": ["chat:7"]}) + "\n"
        + json.dumps({"op": "add", "text": "Alex is pescatarian."}) + "\n"
    )
    applied = cli("apply", str(ops), "--format", "jsonl")
    assert applied.exit_code == 0, applied.stderr
    changes = applied.jsonl()
    assert sorted(c["op"] for c in changes) == ["add", "supersede"]

    chain = cli("history", seattle, "--format", "json").json()
    assert [v["text"] for v in chain] == ["Alex: I live in Seattle.", "Alex lives in Sydney."]
    assert [v["status"] for v in chain] == ["superseded", "current"]
    assert chain[1]["op"] == "supersede" and chain[1]["reason"] == "Alex moved to Sydney."
    assert chain[1]["source_ids"] == ["chat:7"] and chain[1]["revision"] == 2
    # The same chain from the newer version.
    assert cli("history", chain[1]["id"], "--format", "json").json() == chain

    diff = cli("diff", "--format", "json").json()
    sup = next(e for e in diff if e["op"] == "supersede")
    assert sup["before"]["text"] == "Alex: I live in Seattle." and sup["after"]["text"] == "Alex lives in Sydney."
    assert sup["reason"] == "Alex moved to Sydney."

    now = cli("search", "where does Alex live", "--format", "jsonl").jsonl()
    assert "Alex lives in Sydney." in [h["text"] for h in now]
    assert seattle not in [h["id"] for h in now]  # retired versions are hidden by default
    everything = cli("search", "where does Alex live", "--all", "--format", "jsonl").jsonl()
    assert {h["id"]: h["status"] for h in everything}[seattle] == "superseded"
    then = cli("search", "where does Alex live", "--as-of", "1", "--format", "jsonl").jsonl()
    assert {h["id"]: h["status"] for h in then}[seattle] == "current"
    assert all(h["revision"] <= 1 for h in then)


def test_version(cli):
    run = cli("--version")
    assert (run.exit_code, run.stdout) == (0, f"hymem {__version__}\n")


def test_add_is_idempotent_and_keeps_provenance(cli, home):
    src = str(ALEX_JSONL)
    first = cli("add", "--raw", src)
    assert first.exit_code == 0, first.stderr
    before = snapshot(home / "bank.db")
    again = cli("add", "--raw", src)
    assert again.exit_code == 0 and "nothing new" in again.stderr
    assert snapshot(home / "bank.db") == before

    log = cli("log", "--format", "json").json()
    assert len(log) == 1 and log[0]["counts"]["added"] == 12 and log[0]["command"] == "add --raw"
    hit = cli("search", "Surry Hills", "--format", "jsonl", "--limit", "1").jsonl()[0]
    assert hit["source_ids"] == ["s2-3"] and hit["event_time"] == "2024-06-20T09:16:30Z"
    assert hit["source"] == src and hit["speaker"] == "Alex"


def test_search_filters_and_batch(cli, real_embedder):  # which messages a query finds: search quality
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    late = cli("search", "Seattle Sydney", "--since", "2024-06-01", "--format", "jsonl").jsonl()
    assert late and all(h["event_time"] >= "2024-06-01" for h in late)
    early = cli("search", "Seattle Sydney", "--until", "2024-03-31", "--format", "jsonl").jsonl()
    assert early and all(h["event_time"] <= "2024-03-31T23:59:59Z" for h in early)
    none = cli("search", "Seattle", "--source", "other-file", "--format", "jsonl")
    assert none.exit_code == 0 and none.jsonl() == []

    batch = cli("search", "-", "--limit", "2", "--format", "jsonl", input="sister peanuts\nhalf marathon time\n\n")
    by_query: dict[str, list[str]] = {}
    for r in batch.jsonl():
        by_query.setdefault(r["query"], []).append(r["text"])
    assert list(by_query) == ["sister peanuts", "half marathon time"]  # in order; the blank line asks nothing
    assert all(1 <= len(texts) <= 2 for texts in by_query.values())  # --limit per query; the floor may keep fewer
    assert "Priya" in by_query["sister peanuts"][0]
    assert any("1:52" in text for text in by_query["half marathon time"])


def test_formats_plain_and_json(cli, home):
    cli("add", "--raw", "-", input=ALEX)
    plain = cli("search", "Seattle", "--format", "plain", "--limit", "1")
    assert plain.stdout.strip() in ("Alex: I live in Seattle.", "Sam: Nice, I love Seattle.")
    as_json = cli("search", "Seattle", "--format", "json").json()
    assert isinstance(as_json, list) and len(as_json) == 2
    table = cli("search", "Seattle", "--format", "table")
    assert "Seattle" in table.stdout and "m1" in table.stdout


def test_show_and_log_and_diff(cli, home):
    cli("add", "--raw", "-", input=ALEX)
    shown = cli("show", "m1", "--format", "json").json()
    assert shown["text"] == "Alex: I live in Seattle." and shown["rejections"] == []
    cli("apply", "-", input=json.dumps({"op": "delete", "target": "m2", "reason": "small talk"}) + "\n")
    log = cli("log", "--format", "json").json()
    assert [e["revision"] for e in log] == [2, 1]
    assert log[0]["counts"]["deleted"] == 1 and log[0]["command"] == "apply"
    d = cli("diff", "--format", "json").json()
    assert d == [{"op": "delete", "chain": "m2", "reason": "small talk", "before": d[0]["before"], "after": None}]
    assert d[0]["before"]["status"] == "deleted"
    whole = cli("diff", "0", "2", "--format", "json").json()
    assert [e["op"] for e in whole] == ["add"] and whole[0]["after"]["id"] == "m1"
    assert cli("diff", "0", "--exit-code", "--format", "json").exit_code == 1
    assert cli("diff", "2", "2", "--exit-code").exit_code == 0
    plain = cli("diff", "1", "2", "--format", "plain").stdout
    assert plain.startswith("- delete") and "small talk" in plain


def test_apply_all_or_nothing(cli, home):
    cli("add", "--raw", "-", input=ALEX)
    before = snapshot(home / "bank.db")
    ops = [
        {"op": "update", "target": "m1", "text": "Alex lives in Seattle, in Fremont."},
        {"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.", "reason": "moved"},
    ]
    twice = cli("apply", "-", input="\n".join(json.dumps(o) for o in ops) + "\n")
    assert twice.exit_code == 3 and "operation 2" in twice.stderr and "already the target" in twice.stderr
    assert snapshot(home / "bank.db") == before

    cli("apply", "-", input=json.dumps(ops[0]) + "\n")
    retired = cli("apply", "-", input=json.dumps({"op": "delete", "target": "m1", "reason": "x"}) + "\n")
    assert retired.exit_code == 3 and "already updated" in retired.stderr and "m3" in retired.stderr
