"""The binary prefilter of large banks (bank/codes.py): codes kept with every vector, exact rescoring, fallbacks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import ALEX_JSONL

from hymem_cli.bank import codes, open_bank
from hymem_cli.bank.search import SearchFilter, _exact_knn, _knn, search
from hymem_cli.domain import Operation
from hymem_cli.embed import HashEmbedder, to_blob

WORDS = ("alex sam priya jordan mei seattle sydney lisbon kyoto tea coffee bakery marathon peanuts guitar pottery "
         "moved started learning visited allergic bought loves plans trip dog cat job school rent flight dentist").split()


def make_bank(path: Path, count: int, seed: int = 3, source: str = "test"):
    rng = random.Random(seed)
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder())
    texts = [" ".join(rng.sample(WORDS, rng.randint(2, 6))) + f" n{i}" for i in range(count)]
    bank.apply_operations([Operation("add", text=t) for t in texts], "apply", source)
    return bank


@pytest.fixture
def prefilter_always(monkeypatch):
    monkeypatch.setattr(codes, "PREFILTER_FROM", 0)


@pytest.fixture(scope="module")
def big_bank(tmp_path_factory):
    bank = make_bank(tmp_path_factory.mktemp("codes") / "bank.db", 3000)
    yield bank
    bank.conn.close()


def queries(n: int, seed: int = 9) -> list[list[float]]:
    rng = random.Random(seed)
    return HashEmbedder().embed([" ".join(rng.sample(WORDS, 3)) for _ in range(n)])


def distances(bank, q, ids: list[int]) -> list[float]:
    sql = "SELECT vec_distance_cosine(embedding, ?) FROM versions_vec WHERE rowid = ?"
    return [bank.conn.execute(sql, (to_blob(q), v)).fetchone()[0] for v in ids]


def test_every_version_gets_its_code_and_vector(big_bank):
    rows = big_bank.conn.execute(
        "SELECT c.version, c.bits = vec_quantize_binary(v.embedding), f.embedding, v.embedding, length(c.bits) "
        "FROM versions_codes c JOIN versions_f16 f USING (version) JOIN versions_vec v ON v.rowid = c.version"
    ).fetchall()
    assert len(rows) == 3000 == big_bank.conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    assert all(r[1] == 1 and r[2] == codes.half_blob(r[3]) and len(r[2]) == 384 * 2 and r[4] == 384 // 8 for r in rows)


def test_prefilter_with_every_code_as_candidate_is_exact(big_bank, prefilter_always, monkeypatch):
    monkeypatch.setattr(codes, "CANDIDATES", 10_000)
    where, args = SearchFilter().sql()
    for q in queries(20):
        got, exact = _knn(big_bank, q, where, args, 10), _exact_knn(big_bank, to_blob(q), where, args, 10)
        assert distances(big_bank, q, got) == pytest.approx(distances(big_bank, q, exact), abs=1e-6)  # equal up to ties


def test_prefilter_recall_against_exact_knn(big_bank, prefilter_always, monkeypatch):
    """A pool of 10% of the bank still finds nearly all of the exact top 10, ordered by exact distance."""
    monkeypatch.setattr(codes, "CANDIDATES", 300)
    monkeypatch.setattr(codes, "OVERSAMPLE", 0)
    where, args = SearchFilter().sql()
    found = 0
    for q in queries(30):
        got = _knn(big_bank, q, where, args, 10)
        exact = _exact_knn(big_bank, to_blob(q), where, args, 10)
        mine, tenth = distances(big_bank, q, got), distances(big_bank, q, exact)[-1]
        assert all(a <= b + 1e-6 for a, b in zip(mine, mine[1:]))  # nearest first
        found += sum(d <= tenth + 1e-6 for d in mine)  # one of the exact top 10, up to ties
    assert found / 300 >= 0.9


def test_filters_hold_through_the_prefilter(tmp_path, prefilter_always, monkeypatch):
    monkeypatch.setattr(codes, "CANDIDATES", 50)
    monkeypatch.setattr(codes, "OVERSAMPLE", 0)
    bank = make_bank(tmp_path / "bank.db", 500)
    heads = [r[0] for r in bank.conn.execute("SELECT id FROM versions ORDER BY id LIMIT 200")]
    bank.apply_operations([Operation("delete", target=f"m{v}", reason="retracted") for v in heads], "apply", "test")
    seen_then = set()
    for q in queries(10):
        hits = search(bank, "", 20, query_vector=q, min_score=0.0)  # no words: vectors alone
        assert len(hits) == 20 and all(int(h["id"][1:]) > 200 and h["status"] == "current" for h in hits)
        then = search(bank, "", 20, SearchFilter(as_of=1), query_vector=q, min_score=0.0)
        assert len(then) == 20 and all(h["status"] == "current" and h["revision"] == 1 for h in then)
        seen_then |= {int(h["id"][1:]) for h in then}
    assert min(seen_then) <= 200  # as of revision 1 the since-deleted versions were current, and are found
    bank.conn.close()


def test_a_selective_filter_falls_back_to_exact_knn(tmp_path, prefilter_always, monkeypatch):
    monkeypatch.setattr(codes, "CANDIDATES", 20)
    monkeypatch.setattr(codes, "OVERSAMPLE", 0)
    monkeypatch.setattr(codes, "RESCORE_MAX", 80)
    bank = make_bank(tmp_path / "bank.db", 400)
    bank.apply_operations([Operation("add", text=f"priya bakery rare {i}") for i in range(3)], "apply", "elsewhere.jsonl")
    for q in queries(5):
        hits = search(bank, "", 10, SearchFilter(source="elsewhere"), query_vector=q, min_score=0.0)
        assert sorted(h["text"] for h in hits) == [f"priya bakery rare {i}" for i in range(3)]
    bank.conn.close()


def test_versions_added_later_or_elsewhere_are_found(tmp_path, prefilter_always):
    path = tmp_path / "bank.db"
    reader = make_bank(path, 100)
    q = HashEmbedder().embed(["kyoto pottery dentist"])[0]
    assert all(h["text"] != "kyoto pottery dentist" for h in search(reader, "", 5, query_vector=q, text_weight=0))
    assert reader.codes is not None and len(reader.codes.ids) == 100
    writer = open_bank(path)  # another connection, as another process would be
    writer.bind_embedder(HashEmbedder())
    writer.apply_operations([Operation("add", text="kyoto pottery dentist")], "apply", "test")
    writer.conn.close()
    hits = search(reader, "", 5, query_vector=q, text_weight=0)
    assert hits[0]["text"] == "kyoto pottery dentist" and len(reader.codes.ids) == 101
    reader.conn.close()


def test_small_banks_use_exact_knn(tmp_path):
    bank = make_bank(tmp_path / "bank.db", 50)
    search(bank, "alex", 5)
    assert bank.codes is None  # below PREFILTER_FROM nothing is loaded
    bank.conn.close()


def test_a_bank_from_before_the_codes_gets_them(tmp_path):
    path = tmp_path / "bank.db"
    bank = make_bank(path, 40)
    expected = bank.conn.execute("SELECT * FROM versions_codes JOIN versions_f16 USING (version) ORDER BY version").fetchall()
    for table in ("versions_codes", "versions_f16", "versions_code_blocks"):
        bank.conn.execute(f"DROP TABLE {table}")
    bank.conn.execute("DELETE FROM migrations WHERE name IN ('m002_vector_codes', 'm008_half_vectors')")
    bank.conn.close()
    again = open_bank(path)
    rows = again.conn.execute("SELECT * FROM versions_codes JOIN versions_f16 USING (version) ORDER BY version")
    assert [tuple(r) for r in rows] == [tuple(r) for r in expected]
    assert not again.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'versions_floats'").fetchone()
    again.conn.close()


def loaded_codes(bank) -> list[tuple[int, bytes]]:
    import numpy as np

    c = codes.BinaryCodes()
    c.refresh(bank.conn)
    bits = np.ascontiguousarray(c.words.T).tobytes()
    size = len(bits) // len(c.ids)
    return [(int(v), bits[i * size:(i + 1) * size]) for i, v in enumerate(c.ids)]


def test_codes_load_from_blocks_and_the_newest_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(codes, "BLOCK", 100)
    bank = make_bank(tmp_path / "bank.db", 530)
    blocks = bank.conn.execute("SELECT last FROM versions_code_blocks ORDER BY last").fetchall()
    assert [r[0] for r in blocks] == [100, 200, 300, 400, 500]  # compacted at every 256th version, all full blocks
    stored = [tuple(r) for r in bank.conn.execute("SELECT version, bits FROM versions_codes ORDER BY version")]
    assert loaded_codes(bank) == stored
    # A process that loaded earlier tops up across new blocks without loading anything twice.
    early = codes.BinaryCodes()
    early.refresh(bank.conn)
    bank.apply_operations([Operation("add", text=f"later {i}") for i in range(300)], "apply", "test")
    early.refresh(bank.conn)
    assert early.ids.tolist() == list(range(1, 831)) and early.words.shape == (6, 830)
    assert loaded_codes(bank) == [tuple(r) for r in bank.conn.execute("SELECT version, bits FROM versions_codes ORDER BY version")]
    bank.conn.close()


def test_a_block_that_disagrees_with_its_codes_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(codes, "BLOCK", 100)
    bank = make_bank(tmp_path / "bank.db", 300)
    assert codes.block_problems(bank.conn) == []
    bank.conn.execute("UPDATE versions_codes SET bits = zeroblob(48) WHERE version = 150")
    assert codes.block_problems(bank.conn) == ["block ending at m200 does not match its codes"]
    bank.conn.close()


def test_large_banks_rank_words_on_a_second_connection_alongside_vectors(big_bank, prefilter_always, monkeypatch):
    import hymem_cli.bank.search as search_module

    calls = []
    real = search_module.text_ranked

    def recording(conn, *args):
        calls.append((conn, real(conn, *args)))
        return calls[-1][1]

    monkeypatch.setattr(search_module, "text_ranked", recording)
    hits = search(big_bank, "kyoto pottery dentist", 5)
    assert len(hits) == 5 and len(calls) == 1
    conn, ranked = calls[0]
    assert conn is big_bank.reader() and conn is not big_bank.conn
    assert ranked == real(big_bank.conn, ["kyoto", "pottery", "dentist"], *SearchFilter().sql(), 100, True)
    assert {int(h["id"][1:]) for h in hits} & {vid for vid, _ in ranked}  # the words counted in the fused result


def test_an_upgraded_bank_says_so_once(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    first = cli("add", "--raw", str(ALEX_JSONL))
    assert first.exit_code == 0 and "upgrading" not in first.stderr  # a new bank is made, not upgraded
    bank = open_bank(home / "bank.db")
    for table in ("versions_codes", "versions_f16", "versions_code_blocks"):
        bank.conn.execute(f"DROP TABLE {table}")
    bank.conn.execute("DELETE FROM migrations WHERE name IN ('m002_vector_codes', 'm008_half_vectors')")
    bank.conn.close()
    found = cli("search", "Sydney", "-f", "jsonl")
    assert found.exit_code == 0 and found.jsonl()
    assert "upgrading bank" in found.stderr and "m002_vector_codes" in found.stderr
    assert "upgrading" not in cli("search", "Sydney", "-f", "jsonl").stderr


@pytest.mark.parametrize(("limit", "asked"), [(5, 1000), (20, 1000), (60, 1200)])
def test_the_prefilter_sizes_its_candidates_for_the_results_shown_not_the_fusion_pool(big_bank, prefilter_always, monkeypatch,
                                                                                      limit, asked):
    """Search fuses a pool of 100 vectors however few results it shows; rescoring 2,000 candidates for that pool
    doubled a large bank's search time. The candidates are 20 per result shown, and never fewer than 1,000."""
    index = big_bank.code_index()
    counts = []
    real = index.nearest_codes
    monkeypatch.setattr(index, "nearest_codes", lambda query, count: counts.append(count) or real(query, count))
    hits = search(big_bank, "kyoto pottery dentist", limit)
    assert len(hits) == limit and counts[0] == asked
    counts.clear()
    codes.knn(big_bank, index, queries(1)[0], "1", [], 100)  # without a count of results shown: sized for all it returns
    assert counts[0] == 2000
