"""How search ranks words on a large bank: BM25 within a budget of scored documents (bank/search.py text_plan)."""

from __future__ import annotations

import pytest

from hymem_cli.bank import open_bank
from hymem_cli.bank import search as search_module
from hymem_cli.bank.search import query_words, search, text_plan
from hymem_cli.domain import Operation
from hymem_cli.embed import HashEmbedder


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    """600 memories: "alex" in all, "moved"/"moves" in 300, "coffee" in 60, "tea" in 120, "kyoto" in 6, "lisbon" in 3."""
    texts = []
    for i in range(600):
        words = ["Alex", "moved to" if i % 4 == 0 else "moves" if i % 4 == 1 else "likes"]
        words += ["coffee"] if i % 10 == 0 else []
        words += ["tea"] if i % 5 == 1 else []
        words += ["Kyoto"] if i % 100 == 0 else []
        words += ["Lisbon"] if i in (7, 8, 9) else []
        texts.append(" ".join(words) + f" note{i}")
    bank = open_bank(tmp_path_factory.mktemp("plan") / "bank.db")
    bank.bind_embedder(HashEmbedder())
    bank.apply_operations([Operation("add", text=t) for t in texts], "apply", "test")
    yield bank
    bank.conn.close()


@pytest.fixture
def budget(monkeypatch):
    monkeypatch.setattr(search_module, "TEXT_BUDGET", 100)


def test_small_banks_rank_every_word(bank):
    assert text_plan(bank.conn, ["alex", "kyoto"]) == [('"alex" OR "kyoto"', "bm25")]


def test_counting_follows_fts5_stemming_and_stops_at_the_cap(bank):
    assert search_module._count(bank.conn, '"moved"', 1000) == 300  # "moved" and "moves" are one stem
    assert search_module._count(bank.conn, '"alex"', 100) == 101
    assert search_module._count(bank.conn, '"zanzibar"', 100) == 0


def test_rare_words_choose_the_documents_and_every_word_scores_them(bank, budget):
    assert text_plan(bank.conn, ["alex", "moved", "coffee", "kyoto", "lisbon"]) == [
        ('("lisbon" OR "kyoto" OR "coffee") AND ("moved" OR "alex")', "bm25"),
        ('("lisbon" OR "kyoto" OR "coffee") NOT ("moved" OR "alex")', "bm25"),
        ('"lisbon"', "newest"),
    ]
    assert text_plan(bank.conn, ["lisbon", "kyoto"]) == [('"lisbon" OR "kyoto"', "bm25"), ('"lisbon"', "newest")]


def test_without_rare_words_the_fewest_common_ones_that_fit_choose(bank, budget):
    assert text_plan(bank.conn, ["alex", "moved", "tea"]) == [  # tea and move: ~60 memories
        ('("tea" AND "moved") AND ("alex")', "bm25"),
        ('("tea" AND "moved") NOT ("alex")', "bm25"),
        ('"tea"', "newest"),
    ]
    assert text_plan(bank.conn, ["alex", "moved"]) == [('"moved" AND "alex"', "newest")]  # 300 hold both: over the budget
    assert text_plan(bank.conn, ["zanzibar"]) == []


def test_search_under_the_budget_still_finds_the_rare_word_first(bank, budget):
    hits = search(bank, "where did Alex move, Lisbon?", 5, vector_weight=0)
    assert {h["text"] for h in hits[:3]} == {"Alex moves Lisbon note9", "Alex moved to Lisbon note8", "Alex likes Lisbon note7"}


def test_newest_first_when_every_word_is_common(bank, budget):
    hits = search(bank, "Alex moved", 3, vector_weight=0)
    assert [h["text"] for h in hits] == ["Alex moves note597", "Alex moved to tea note596", "Alex moves note593"]


def test_query_words_drop_stopwords_unless_nothing_is_left():
    assert query_words("Where did Alex move to?") == ["alex", "move"]
    assert query_words("who was it") == ["who", "was", "it"]
    assert len(query_words(" ".join(f"w{i}" for i in range(500)))) == 64


def test_planned_ranking_scores_like_plain_bm25(bank, budget):
    """Under the budget, every hit scores (by plain BM25 over all words) at least as well as the k-th best of plain BM25,
    while documents holding a rare word are enough to fill the k."""
    for text in ("Alex moved to Lisbon", "coffee in Kyoto", "Alex likes tea and coffee", "moves Kyoto Lisbon tea"):
        words = query_words(text)
        full = " OR ".join(f'"{w}"' for w in words)
        best = [r[0] for r in bank.conn.execute("SELECT bm25(versions_fts) FROM versions_fts WHERE versions_fts MATCH ? ORDER BY 1 LIMIT 3",
                                                (full,))]
        hits = [int(h["id"][1:]) for h in search(bank, text, 3, vector_weight=0)]
        score = dict(bank.conn.execute(
            "SELECT rowid, bm25(versions_fts) FROM versions_fts WHERE versions_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
            (full, str(hits))).fetchall())
        assert len(hits) == 3 and all(score[h] <= best[-1] + 1e-9 for h in hits), text
