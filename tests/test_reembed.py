"""`hymem reembed` and `Bank.reembed`: every vector rebuilt with another model, history untouched, an interrupted
run resumed, the refusals; and all-mpnet-base-v2 where its packages are installed."""

from __future__ import annotations

import pytest
from conftest import one_error_line, raw_sql, snapshot

from hymem_cli._errors import BankError
from hymem_cli.bank import codes, open_bank
from hymem_cli.bank.memory_text import MemoryText
from hymem_cli.bank.reembed import SHADOW, reembed, unfinished
from hymem_cli.bank.search import search
from hymem_cli.domain import FAIL, Operation
from hymem_cli.embed import HashEmbedder, canonical_model
from hymem_cli.embed_parts import INSTALL
from hymem_cli.embed_parts import installed as mpnet_installed

HISTORY = ("versions", "revisions", "retirements", "chunks", "rejections")  # the tables a re-embed must not change
OPS = (
    '{"op": "add", "text": "Alex lives in Seattle.", "event_time": "2024-03-01T10:00:00Z"}\n'
    '{"op": "add", "text": "Priya is allergic to peanuts."}\n'
    '{"op": "add", "text": "Sam drinks coffee every morning."}\n'
)


class Wide(HashEmbedder):
    """Another model of another width, counting what it embeds; `fail_on` makes that call raise (a crash mid-way)."""

    def __init__(self, dim: int = 200, name: str = "wide", fail_on: int | None = None):
        super().__init__(dim)
        self.name, self.calls, self.texts, self.fail_on = name, 0, [], fail_on

    def embed(self, texts):
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError("the embedder died")
        self.texts += list(texts)
        return super().embed(texts)


def history(path) -> dict:
    rows = snapshot(path)
    return {table: rows[table] for table in HISTORY}


def hash_bank(path, count: int = 9, dim: int = 384):
    """A bank of `count` memories embedded by the hash embedder, the first superseded, the second deleted."""
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder(dim))
    bank.apply_operations([Operation("add", text=f"Memory {i} about topic{i}.", context=f"asked about topic{i}") for i in range(count - 1)],
                          "apply", "a.jsonl")
    bank.apply_operations([Operation("supersede", target="m1", text="Memory 0 about topic0, revised.", reason="more"),
                           Operation("delete", target="m2", reason="wrong")], "apply", "b.jsonl")
    return bank


def test_a_bank_moves_to_a_wider_model_and_keeps_its_history(tmp_path):
    path = tmp_path / "bank.db"
    bank = hash_bank(path)
    before = history(path)
    wide = Wide()
    done = bank.reembed(wide, MemoryText(context=40))
    assert (done.previous_model, done.previous_dim, done.model, done.dim, done.versions, done.resumed) == ("hash", 384, "wide", 200, 9, 0)
    assert history(path) == before  # vectors are an index: not a version, revision or retirement changed
    # Every version, retired ones too, embedded from its text and, as the recipe says, its context.
    assert "Memory 3 about topic3. (after: asked about topic3)" in wide.texts and len(wide.texts) == 9
    bank.close()

    again = open_bank(path, create=False)
    assert (again.meta("embed_model"), again.meta("embed_dim")) == ("wide", "200")
    with pytest.raises(BankError):
        again.bind_embedder(HashEmbedder())  # the old model is refused now
    again.bind_embedder(Wide())
    assert search(again, "topic5", 1, vector_weight=1.0, text_weight=0.0)[0]["text"] == "Memory 5 about topic5."
    widths = again.conn.execute("SELECT min(length(bits)), max(length(bits)) FROM versions_codes").fetchone()
    halves = again.conn.execute("SELECT min(length(embedding)), max(length(embedding)) FROM versions_f16").fetchone()
    assert tuple(widths) == (200 // 8, 200 // 8) and tuple(halves) == (400, 400)
    assert not [f for f in again.verify() if f.status == FAIL]
    tables = {r[0] for r in again.conn.execute("SELECT name FROM sqlite_master")}
    assert not tables & set(SHADOW) and unfinished(again.conn) is None
    again.close()


def test_codes_and_their_blocks_are_rebuilt_for_the_large_bank_path(tmp_path):
    path = tmp_path / "bank.db"
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder(64))
    count = codes.BLOCK + 10
    bank.apply_operations([Operation("add", text=f"note {i} word{i}") for i in range(count)], "apply", "many.jsonl")
    bank.reembed(Wide(128), MemoryText())
    assert not [f for f in bank.verify() if f.status == FAIL]  # the blocks match the codes (doctor's check)
    assert bank.conn.execute("SELECT count(*) FROM versions_code_blocks").fetchone()[0] == 1
    index = codes.BinaryCodes()
    query = Wide(128).embed(["note 77 word77"])[0]
    assert codes.knn(bank, index, query, "1", [], 1) == [78]  # sign-bit prefilter, then float16 rescoring, at the new width
    assert index.words.shape == (2, count)  # 128 bits: two words a code
    bank.close()


def test_an_interrupted_reembed_leaves_the_bank_usable_and_resumes(tmp_path):
    path = tmp_path / "bank.db"
    bank = hash_bank(path)
    before = history(path)
    with pytest.raises(RuntimeError):
        reembed(bank, Wide(fail_on=3), MemoryText(), batch=2)  # two batches stored, the third fails
    assert unfinished(bank.conn) == {"model": "wide", "dim": 200, "text": {"context": 0, "date": False}}
    assert bank.meta("embed_model") == "hash" and history(path) == before
    # The bank still answers and takes new memories with its old vectors.
    assert search(bank, "topic4", 1)[0]["text"] == "Memory 4 about topic4."
    bank.apply_operations([Operation("add", text="Written while half re-embedded.")], "apply", "c.jsonl")
    assert not [f for f in bank.verify() if f.status == FAIL]

    wide = Wide()
    done = reembed(bank, wide, MemoryText(), batch=2)
    assert (done.versions, done.resumed) == (10, 4)
    assert len(wide.texts) == 6 and "Written while half re-embedded." in wide.texts  # only what the first run had not stored
    assert bank.meta("embed_model") == "wide"
    assert [h["text"] for h in search(bank, "Written while half", 1)] == ["Written while half re-embedded."]
    assert not [f for f in bank.verify() if f.status == FAIL]
    bank.close()


def test_an_interrupted_reembed_to_another_model_is_started_over(tmp_path):
    bank = hash_bank(tmp_path / "bank.db")
    with pytest.raises(RuntimeError):
        reembed(bank, Wide(fail_on=2), MemoryText(), batch=3)
    other = Wide(96, name="other")
    done = reembed(bank, other, MemoryText(), batch=3)
    assert (done.versions, done.resumed, len(other.texts)) == (9, 0, 9)
    assert (bank.meta("embed_model"), bank.meta("embed_dim")) == ("other", "96")
    bank.close()


def test_a_writer_still_holding_the_old_model_is_refused(tmp_path):
    path = tmp_path / "bank.db"
    stale = hash_bank(path)
    mover = open_bank(path, create=False)
    mover.reembed(Wide(), MemoryText())
    with pytest.raises(BankError, match="now holds wide vectors") as refused:
        stale.apply_operations([Operation("add", text="embedded by the old model")], "apply", "late.jsonl")
    assert refused.value.hint == "it was re-embedded while this command ran; run it again with the bank's model"
    assert mover.conn.execute("SELECT count(*) FROM versions").fetchone()[0] == 9
    stale.close()
    mover.close()


def test_model_aliases():
    assert canonical_model("mpnet") == canonical_model("sentence-transformers/all-mpnet-base-v2") == "all-mpnet-base-v2"
    assert canonical_model("MiniLM") == canonical_model("all-minilm-l6-v2") == "all-MiniLM-L6-v2"
    assert canonical_model("./my-model") == "./my-model"


# -- the command, with the real all-MiniLM-L6-v2 --------------------------------------------------------------------------


def test_hash_bank_reembedded_to_minilm_then_searched(cli, real_embedder, home, monkeypatch):
    path = home / "bank.db"
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("apply", "-", input=OPS).exit_code == 0
    assert cli("apply", "-",
               input='{"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.", "reason": "moved"}\n').exit_code == 0
    shown = cli("history", "m1", "-f", "jsonl").stdout, cli("diff", "0", "2", "-f", "jsonl").stdout, cli("log", "-f", "jsonl").stdout
    before = history(path)
    monkeypatch.delenv("HYMEM_EMBED_MODEL")
    # A bank knows its embedder: embed.model (MiniLM) does not stop a search of a hash bank, which runs with hash.
    by_words = cli("search", "peanuts", "-f", "jsonl")
    assert by_words.exit_code == 0 and by_words.jsonl()[0]["text"] == "Priya is allergic to peanuts."

    run = cli("reembed", "-f", "json")
    assert run.exit_code == 0, run.stderr
    assert run.json() == {"previous_model": "hash", "previous_dim": 384, "model": "all-MiniLM-L6-v2", "dim": 384, "versions": 4,
                          "resumed": 0}
    assert "re-embedded 4 versions: hash (384-d) -> all-MiniLM-L6-v2 (384-d)" in run.stderr
    assert history(path) == before
    assert (cli("history", "m1", "-f", "jsonl").stdout, cli("diff", "0", "2", "-f", "jsonl").stdout,
            cli("log", "-f", "jsonl").stdout) == shown
    hits = cli("search", "nut allergy", "-f", "jsonl")
    assert hits.exit_code == 0 and hits.jsonl()[0]["text"] == "Priya is allergic to peanuts."  # no shared word: the vectors found it
    assert "note:" not in run.stderr  # nothing to set: the bank names its model
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")  # embed.model now names the old model: the bank's new one still serves
    assert cli("search", "nut allergy", "-f", "jsonl").jsonl()[0]["text"] == "Priya is allergic to peanuts."
    added = cli("apply", "-", input='{"op": "add", "text": "Priya drinks her coffee black."}\n')
    assert added.exit_code == 0, added.stderr
    assert cli("search", "how does Priya take her coffee", "-f", "jsonl").jsonl()[0]["text"] == "Priya drinks her coffee black."


def test_a_bank_made_with_a_model_folder_needs_it_set(cli, home, monkeypatch, tmp_path):
    """Only a packaged model is taken from the bank itself: a folder it names (which a bank from elsewhere could point
    anywhere) is used only when embed.model names it too."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    cli("apply", "-", input=OPS)
    folder = tmp_path / "planted-model"
    raw_sql(home / "bank.db", f"UPDATE meta SET value = '{folder}' WHERE key = 'embed_model'")
    before = snapshot(home / "bank.db")
    one_error_line(cli("search", "coffee"), 5, "planted-model vectors", "set embed.model to")
    assert snapshot(home / "bank.db") == before


def test_the_model_in_use_is_left_alone(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    cli("apply", "-", input=OPS)
    before = snapshot(home / "bank.db")
    run = cli("reembed", "-f", "json")
    assert (run.exit_code, run.stdout) == (0, "")
    assert "already holds hash vectors; nothing to do (--force rebuilds them)" in run.stderr
    assert cli("reembed", "--quiet").stderr == ""
    assert snapshot(home / "bank.db") == before
    forced = cli("reembed", "--force", "-f", "json")
    assert forced.exit_code == 0 and forced.json()["versions"] == 3


def test_a_model_that_cannot_load_changes_nothing(cli, home, monkeypatch, tmp_path):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    cli("apply", "-", input=OPS)
    before = snapshot(home / "bank.db")
    one_error_line(cli("reembed", "--model", str(tmp_path / "no-such-model")), 1, "cannot load embedding model")
    assert snapshot(home / "bank.db") == before


def test_no_bank(cli, home):
    one_error_line(cli("reembed", "--model", "hash"), 5, "no bank at")
    assert not (home / "bank.db").exists()


@pytest.mark.skipif(mpnet_installed(), reason="all-mpnet-base-v2 is installed here")
def test_mpnet_not_installed_says_how_to_install_it(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    cli("apply", "-", input=OPS)
    before = snapshot(home / "bank.db")
    one_error_line(cli("reembed", "--model", "mpnet"), 1, "all-mpnet-base-v2 is not installed", INSTALL)
    assert snapshot(home / "bank.db") == before


@pytest.mark.slow
@pytest.mark.skipif(not mpnet_installed(), reason="all-mpnet-base-v2 is optional: " + INSTALL)
def test_mpnet_reembed_and_search(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    cli("apply", "-", input=OPS)
    run = cli("reembed", "--model", "mpnet", "-f", "json")
    assert run.exit_code == 0, run.stderr
    assert (run.json()["model"], run.json()["dim"]) == ("all-mpnet-base-v2", 768)
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "mpnet")  # the short name matches the full name the bank records
    hits = cli("search", "nut allergy", "-f", "jsonl")
    assert hits.exit_code == 0 and hits.jsonl()[0]["text"] == "Priya is allergic to peanuts."


def test_bank_reembed_tells_its_progress(tmp_path):
    bank = hash_bank(tmp_path / "bank.db")
    told = []
    bank.reembed(Wide(), MemoryText(), progress=lambda phase, done, total: told.append((phase, done, total)))
    bank.close()
    assert ("embedding", 9, 9) in told and told[-1][0] != "embedding"  # every version counted, then the swap and the rest
