"""How search ranks words on a large bank: BM25 within a budget of scored documents (bank/search.py text_plan)."""

from __future__ import annotations


import pytest

from hymem_cli.bank import open_bank, search as search_module
from hymem_cli.bank.operations import Operation
from hymem_cli.bank.search import query_words, search, text_plan
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
    assert text_plan(bank.conn, ["alex", "kyoto"]) == ('"alex" OR "kyoto"', "bm25")


def test_document_frequencies_follow_fts5_stemming(bank):
    freq = search_module._document_frequencies(bank.conn, ["moved", "alex", "zanzibar", "kyoto"])
    assert freq == {"moved": 300, "alex": 600, "zanzibar": 0, "kyoto": 6}  # "moved" and "moves" are one stem


def test_common_words_are_left_out_while_rare_ones_fit(bank, budget):
    assert text_plan(bank.conn, ["alex", "moved", "coffee", "kyoto", "lisbon"]) == ('"lisbon" OR "kyoto" OR "coffee"', "bm25")


def test_only_common_words_rank_the_documents_holding_all(bank, budget):
    assert text_plan(bank.conn, ["alex", "moved"]) == ('"moved" AND "alex"', "newest")  # ~300 expected > budget
    assert text_plan(bank.conn, ["alex", "moved", "tea"]) == ('"tea" AND "moved" AND "alex"', "bm25")  # ~60 expected
    assert text_plan(bank.conn, ["zanzibar"]) == (None, "bm25")


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
