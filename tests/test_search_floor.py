"""Scores that mean the same in any bank, the relevance floor, and forget that asks before retiring several memories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import one_error_line

from hymem_cli.bank import open_bank
from hymem_cli.bank.search import Ranking, search
from hymem_cli.domain import Operation
from hymem_cli.embed import HashEmbedder

HOUSEHOLD = ["Alex lives in Sydney, in Surry Hills.", "Alex is training for the Vancouver half marathon.",
             "Priya is allergic to peanuts.", "The dog Biscuit needs his vaccination in May.",
             "Alex started eating chicken again and is no longer pescatarian."]
OTHERS = [f"Note {i}: the {w} meeting moved to room {i} on floor {i % 7}." for i, w in
          enumerate(["budget", "design", "hiring", "roadmap", "security", "offsite", "pricing"] * 30)]


def bank_of(path: Path, texts: list[str]):
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder())
    bank.apply_operations([Operation("add", text=t) for t in texts], "apply", "test")
    return bank


def test_a_query_about_nothing_returns_nothing(tmp_path):
    bank = bank_of(tmp_path / "b.db", HOUSEHOLD)
    for query in ("Perth", "what is the capital of Mongolia", "quantum chromodynamics"):
        assert search(bank, query, 10) == [], query
        assert search(bank, query, 10, min_score=0.0) != []  # there was something to leave out


def test_a_query_about_one_memory_returns_it_first(tmp_path):
    bank = bank_of(tmp_path / "b.db", HOUSEHOLD + OTHERS)
    for text, query in [(HOUSEHOLD[2], "Priya allergic peanuts"), (HOUSEHOLD[3], "when does Biscuit need his vaccination")]:
        hits = search(bank, query, 5)
        assert hits and hits[0]["text"] == text, query


def test_a_memory_scores_the_same_in_a_small_bank_and_in_a_larger_one(tmp_path):
    small = bank_of(tmp_path / "small.db", HOUSEHOLD)
    large = bank_of(tmp_path / "large.db", HOUSEHOLD + OTHERS)
    best = 0.0
    for query in ("where does Alex live", "Priya allergic peanuts", "Biscuit vaccination May", "marathon training"):
        a = {h["text"]: h["score"] for h in search(small, query, 50, min_score=0.0)}
        b = {h["text"]: h["score"] for h in search(large, query, 50, min_score=0.0)}
        for text in set(a) & set(b) & set(HOUSEHOLD):
            assert abs(a[text] - b[text]) <= 0.05, (query, text, a[text], b[text])
        best = max(best, *a.values())
    assert best > 0.5  # scores high enough to move: a query matches a memory well


def test_the_floor_is_part_of_the_ranking_every_caller_passes():
    ranking = Ranking(min_score=0.2)
    assert ranking.changed({"min_score": 0.5, "query": "ignored", "limit": 3}).min_score == 0.5
    assert Ranking.of(ranking) == ranking


def test_search_says_no_memory_matches_and_json_stays_empty(cli, bank):
    done = cli("search", "quantum chromodynamics", "-f", "json")
    assert done.exit_code == 0 and done.stdout.strip() == "[]" and "no memory matches" in done.stderr
    assert cli("search", "quantum chromodynamics", "--min-score", "0", "-f", "jsonl").jsonl() != []
    assert cli("search", "Atlassian", "--min-score", "0.01", "-f", "jsonl").jsonl()[0]["id"] == "m14"
    one_error_line(cli("search", "Atlassian", "--min-score", "2"), 2, "--min-score")


README_FORGET = 'hymem search "Perth" --min-score 0.5 -f jsonl | jq -r .id | hymem forget - -r "not true" --yes'


def test_the_readme_forget_example_forgets_nothing_when_nothing_matches(cli, bank, home):
    assert README_FORGET in (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "HYMEM_SEARCH_SERVER": "false"}
    before = cli("log", "-f", "json").json()
    done = subprocess.run(["bash", "-o", "pipefail", "-c", README_FORGET], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    assert cli("log", "-f", "json").json() == before  # no revision: nothing forgotten
    # The same pipeline for a word the bank holds forgets what matched it.
    matched = subprocess.run(["bash", "-o", "pipefail", "-c", README_FORGET.replace("Perth", "Atlassian").replace("0.5", "0.3")], env=env,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert matched.returncode == 0, matched.stderr
    assert cli("show", "m14", "-f", "json").json()["status"] == "deleted"


def test_forget_of_several_ids_without_a_terminal_needs_yes(cli, bank):
    refused = cli("forget", "m2", "m3", "-r", "x")
    assert refused.exit_code == 2 and "needs --yes" in refused.stderr and "m3  Alex: About 8 km" in refused.stderr
    assert cli("show", "m2", "-f", "json").json()["status"] == "current"
    piped = cli("forget", "-", "-r", "x", input="m2\n")
    assert piped.exit_code == 2 and "--yes" in piped.stderr  # ids from a pipe: asked for too, even one
    done = cli("forget", "m2", "m3", "-r", "x", "--yes")
    assert done.exit_code == 0, done.stderr
    assert "m2" in done.stderr and "m3" in done.stderr  # shown before they go
    assert {cli("show", m, "-f", "json").json()["status"] for m in ("m2", "m3")} == {"deleted"}
    assert cli("forget", "m5", "-r", "one id, no question").exit_code == 0  # one id on the command line: as before


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("answer, status", [(b"y\n", "deleted"), (b"n\n", "current")])
def test_forget_asks_on_a_terminal(cli, bank, home, answer, status):
    import pty
    import select

    env = {**os.environ, "HYMEM_SEARCH_SERVER": "false"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: hymem with the pseudo-terminal as its terminal
        os.execve(sys.executable, [sys.executable, "-m", "hymem_cli", "forget", "m2", "m3", "-r", "asked"], env)
    seen = b""
    while b"[y/N]" not in seen:
        ready, _, _ = select.select([fd], [], [], 60)
        assert ready, seen
        try:
            seen += os.read(fd, 1024)
        except OSError:  # the child is gone
            pytest.fail(seen.decode(errors="replace"))
    assert b"m2" in seen and b"m3" in seen
    os.write(fd, answer)
    while True:
        try:
            if not os.read(fd, 1024):
                break
        except OSError:
            break
    os.waitpid(pid, 0)
    assert {cli("show", m, "-f", "json").json()["status"] for m in ("m2", "m3")} == {status}
