"""How search ranks: min-max fusion against RRF, the newer-first rule for updates, and what a memory embeds.

Vectors are chosen by hand through a fake embedder (the `Embedder` seam), and stored and searched through
real SQLite, FTS5 and sqlite-vec; the ingest tests run the real write path (chunker, raw processor, bank).
"""

from __future__ import annotations

import math

import pytest

from hymem_cli import config
from hymem_cli._errors import ConfigError
from hymem_cli.bank import open_bank
from hymem_cli.bank.memory_text import MemoryText
from hymem_cli.bank.search import Ranking, _minmax, search
from hymem_cli.domain import Message, Operation
from hymem_cli.ingest.pipeline import ingest
from hymem_cli.ingest.processors import RawProcessor, WriterProcessor
from hymem_cli.ingest.sources import Source
from hymem_cli.screen import Screen
from hymem_cli.writer.scripted import ScriptedBackend

DIM = 8


def unit(*xs: float) -> list[float]:
    v = list(xs) + [0.0] * (DIM - len(xs))
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def at_cosine(c: float) -> list[float]:
    """A unit vector whose cosine to unit(1) is `c`."""
    return unit(c, math.sqrt(1 - c * c))


class FixedEmbedder:
    """Vectors chosen per text; every other text gets a vector far from the query (and records what it was asked)."""

    name, dim = "fixed", DIM

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors, self.seen = vectors, []

    def embed(self, texts):
        self.seen += list(texts)
        return [self.vectors.get(t, unit(0, 0, 1)) for t in texts]


def bank_of(tmp_path, memories: list[tuple[str, list[float], str | None]]):
    """A bank holding `memories` (text, vector, event time), added in order."""
    bank = open_bank(tmp_path / "bank.db")
    bank.bind_embedder(FixedEmbedder({text: vector for text, vector, _ in memories}))
    bank.apply_operations([Operation("add", text=text, event_time=when) for text, _, when in memories], "apply", "test")
    return bank


def texts(hits) -> list[str]:
    return [h["text"] for h in hits]


# -- fusion -----------------------------------------------------------------------------------


def test_minmax_scales_each_list_and_weights_them():
    fused = _minmax([({1: -2.0, 2: -4.0, 3: -6.0}, 0.6), ({2: 0.9, 3: 0.5}, 0.4)])
    assert fused == pytest.approx({1: 0.6, 2: 0.6 * 0.5 + 0.4, 3: 0.0})
    assert _minmax([({7: 1.0}, 0.6), ({}, 0.4)]) == {7: 1.0}  # a list alone takes the whole weight; one result scores 1


def test_a_decisive_word_match_beats_a_flat_vector_list_under_minmax_but_not_rrf(tmp_path):
    # The vector list is nearly flat at the top (five "pottery" notes at 0.60-0.596, the Kyoto note 6th at 0.59;
    # the words are decisive: only the Kyoto note holds both query words.
    memories = [("pottery", at_cosine(0.60), None)]
    memories += [(f"pottery note number {i} of a longer text", at_cosine(0.599 - 0.001 * i), None) for i in range(4)]
    memories += [("Kyoto pottery class on Sundays", at_cosine(0.59), None)]
    memories += [(f"unrelated {i}", at_cosine(0.1), None) for i in range(6)]
    bank = bank_of(tmp_path, memories)
    query = dict(query_vector=unit(1), newer_first=False)
    assert texts(search(bank, "kyoto pottery", 3, fusion="minmax", **query))[0] == "Kyoto pottery class on Sundays"
    assert texts(search(bank, "kyoto pottery", 3, fusion="rrf", vector_weight=0.5, text_weight=1.0, **query))[0] == "pottery"
    scores = [h["score"] for h in search(bank, "kyoto pottery", 12, **query)]
    assert scores == sorted(scores, reverse=True) and 0 <= scores[-1] and scores[0] <= 1  # a weighted mean of 0..1 scales


def test_fusion_and_weights_are_checked_settings(monkeypatch):
    monkeypatch.setenv("HYMEM_SEARCH_FUSION", "borda")
    with pytest.raises(ConfigError, match="search.fusion"):
        config.load()
    monkeypatch.setenv("HYMEM_SEARCH_FUSION", "rrf")
    monkeypatch.setenv("HYMEM_SEARCH_NEWER_FIRST", "no")
    assert Ranking.of(config.load().search) == Ranking(fusion="rrf", newer_first=False)
    assert config.load().search.ranking() == {**Ranking(fusion="rrf", newer_first=False).asdict()} | {"fusion": "rrf"}
    monkeypatch.setenv("HYMEM_SEARCH_MIN_SCORE", "1.5")
    with pytest.raises(ConfigError, match="search.min_score"):
        config.load()
    monkeypatch.delenv("HYMEM_SEARCH_MIN_SCORE")
    monkeypatch.setenv("HYMEM_SEARCH_SPEAKER_WEIGHT", "-0.5")
    with pytest.raises(ConfigError, match="search.speaker_weight"):
        config.load()
    monkeypatch.delenv("HYMEM_SEARCH_SPEAKER_WEIGHT")
    monkeypatch.setenv("HYMEM_EMBED_CONTEXT", "-1")
    with pytest.raises(ConfigError, match="embed.context"):
        config.load()


# -- newer first ------------------------------------------------------------------------------

OLD, NEW = "Alex: I live in Seattle, in Fremont.", "Alex: I live in Sydney now, in Surry Hills."


def test_the_newer_of_two_close_results_sharing_query_words_goes_first(tmp_path):
    bank = bank_of(tmp_path, [(OLD, unit(1, 0.3), "2024-03-02T18:04:00Z"), (NEW, unit(1, 0.9), "2024-06-20T09:16:30Z")])
    q = dict(query_vector=unit(1, 0.2))
    assert texts(search(bank, "where does Alex live", 2, newer_first=False, **q)) == [OLD, NEW]
    assert texts(search(bank, "where does Alex live", 2, **q)) == [NEW, OLD]


def test_newer_is_the_event_time_not_the_order_of_storing(tmp_path):
    bank = bank_of(tmp_path, [(NEW, unit(1, 0.9), "2024-06-20T09:16:30Z"), (OLD, unit(1, 0.3), "2024-03-02T18:04:00Z")])
    assert texts(search(bank, "where does Alex live", 2, query_vector=unit(1, 0.2))) == [NEW, OLD]


@pytest.mark.parametrize("new_vector, query", [
    (unit(0.3, 1), "where does Alex live"),  # far apart in meaning: cosine below 0.5 to the old one at unit(1, -0.6)
    (unit(1, 0.9), "where does Alex stay"),  # one query word in common (alex), not two
])
def test_the_rule_leaves_results_that_are_not_an_update_alone(tmp_path, new_vector, query):
    old = unit(1, -0.6)
    bank = bank_of(tmp_path, [(OLD, old, "2024-03-02T18:04:00Z"), (NEW, new_vector, "2024-06-20T09:16:30Z")])
    assert sum(a * b for a, b in zip(old, new_vector)) < 0.5 or query.endswith("stay")
    q = dict(query_vector=old)  # the old one is nearer the query: first without the rule
    assert texts(search(bank, query, 2, newer_first=False, **q))[0] == OLD
    assert texts(search(bank, query, 2, **q))[0] == OLD


# -- what a memory embeds ---------------------------------------------------------------------


def test_memory_text_puts_the_date_first_and_the_previous_turn_after():
    recipe = MemoryText(context=12, date=True)
    assert recipe.embedded("Bia: Yes, 23A.", "2024-05-18T11:20:00Z", "Ana: Which seats are ours?") == "2024-05-18: Bia: Yes, 23A. (after: Ana: Which s)"
    assert MemoryText(context=0).embedded("Yes", "2024-05-18T11:20:00Z", "Which seats?") == "Yes"


def _messages() -> list[Message]:
    said = [("s1", "Ana", "Which seats did we get on the Lisbon flight?"), ("s1", "Bia", "Yes, 23A and 23B."),
            ("s1", "Ana", "My api key is sk-live-Zq8v7Hc2JdM4nP0xR5tW9yB3 for the booking site"), ("s1", "Bia", "Great, thanks."),
            ("s2", "Ana", "Another day: the cat is fine.")]
    return [Message(f"m{i}", who, text, f"2024-05-18T11:{20 + i}:00Z", session) for i, (session, who, text) in enumerate(said, 1)]


def _ingest(tmp_path, recipe: MemoryText, chunk_tokens: int = 768):
    embedder = FixedEmbedder({})
    bank = open_bank(tmp_path / "bank.db")
    bank.bind_embedder(embedder, recipe)
    ingest(bank, [Source("chat.jsonl", _messages())], RawProcessor(Screen()), chunk_tokens=chunk_tokens)
    return bank, embedder


@pytest.mark.parametrize("chunk_tokens", [768, 16])  # 16: every message a chunk of its own, the previous turn in the one before
def test_raw_memories_embed_their_previous_turn_but_index_only_their_words(tmp_path, chunk_tokens):
    bank, embedder = _ingest(tmp_path, MemoryText(context=300, date=True), chunk_tokens)
    assert embedder.seen[1] == "2024-05-18: Bia: Yes, 23A and 23B. (after: Ana: Which seats did we get on the Lisbon flight?)"
    assert embedder.seen[0].startswith("2024-05-18: Ana: Which seats") and "(after:" not in embedder.seen[0]  # nothing before
    assert "(after:" not in embedder.seen[4]  # a new session: the last turn of another session is not its previous turn
    assert "sk-live" not in embedder.seen[3] and "(after: Ana: My api key is [REDACTED" in embedder.seen[3]
    stored = dict(bank.conn.execute("SELECT text, context FROM versions").fetchall())
    assert stored["Bia: Yes, 23A and 23B."] == "Ana: Which seats did we get on the Lisbon flight?"
    # Words of the previous turn are not the reply's words: only the question itself matches "lisbon".
    assert texts(search(bank, "lisbon", 5, vector_weight=0)) == ["Ana: Which seats did we get on the Lisbon flight?"]


def test_with_the_default_recipe_a_memory_embeds_its_text_alone_and_keeps_its_context(tmp_path):
    bank, embedder = _ingest(tmp_path, MemoryText())
    assert embedder.seen[:2] == ["Ana: Which seats did we get on the Lisbon flight?", "Bia: Yes, 23A and 23B."]
    assert bank.conn.execute("SELECT count(*) FROM versions WHERE context IS NOT NULL").fetchone()[0] == 3


def test_the_retrieval_set_is_well_formed_and_built_from_its_sources(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    from hymem_cli.eval import load_conversations, load_questions, match_questions

    folder = Path(__file__).resolve().parent.parent / "bench" / "data" / "retrieval"
    convs = load_conversations(sorted(str(p) for p in folder.glob("*.jsonl") if p.name not in ("questions.jsonl", "nothing.jsonl")))
    questions = match_questions(load_questions(folder / "questions.jsonl"), convs)  # every cited id exists
    assert len(questions) == 97 and {c.name for c in convs} == {q.conversation for q in questions}
    time_of = {m.id: m.timestamp for c in convs for m in c.messages}
    for q in questions:
        if q.category == "knowledge-update":
            assert max(time_of[i] for i in q.stale) < min(time_of[i] for i in q.updated), q.id
    copy = tmp_path / "retrieval"
    copy.mkdir()
    (copy / "src").mkdir()
    for p in (folder / "src").glob("*.chat"):
        (copy / "src" / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    (copy / "build.py").write_text((folder / "build.py").read_text(encoding="utf-8"), encoding="utf-8")
    subprocess.run([sys.executable, str(copy / "build.py")], check=True, capture_output=True)
    for p in (p for p in folder.glob("*.jsonl") if p.name != "nothing.jsonl"):  # the committed JSONL is what the sources build
        assert [json.loads(line) for line in (copy / p.name).read_text().splitlines()] == [json.loads(line) for line in p.read_text().splitlines()]


def test_without_an_event_time_the_later_stored_memory_counts_as_newer(tmp_path):
    fact = "Alex lives in Sydney, in Surry Hills."  # applied later without a time: not older than the message it rests on
    bank = bank_of(tmp_path, [(NEW, unit(1, 0.2), "2024-06-20T09:16:30Z"), (fact, unit(1, 0.9), None)])
    q = dict(query_vector=unit(1, 0.2))
    assert texts(search(bank, "where does Alex live now", 2, newer_first=False, **q)) == [NEW, fact]
    assert texts(search(bank, "where does Alex live now", 2, **q)) == [fact, NEW]


# -- the same speaker restating what changed ---------------------------------------------------

STALE_JOB = "Raj: Work is hard: I'm a backend engineer at Ledgerly, a payments startup."
NEW_JOB = "Raj: Update: I quit Ledgerly. I accepted a staff engineer role at Northwind Robotics."


def speaker_bank(tmp_path, new_text: str, new_speaker: str | None = "Raj", cosine: float = 0.6, old_speaker: str | None = "Raj"):
    """The old job (by `old_speaker`, nearest the query) and a newer message at `cosine` to it, by `new_speaker`."""
    angle = math.atan(0.2) + math.acos(cosine)
    old_vector, new_vector = unit(1, 0.2), unit(math.cos(angle), math.sin(angle))
    bank = open_bank(tmp_path / "bank.db")
    bank.bind_embedder(FixedEmbedder({STALE_JOB: old_vector, new_text: new_vector}))
    bank.apply_operations([Operation("add", text=STALE_JOB, speaker=old_speaker, event_time="2024-02-03T10:00:00Z"),
                           Operation("add", text=new_text, speaker=new_speaker, event_time="2024-04-20T10:00:00Z")], "apply", "test")
    assert texts(search(bank, "where does Raj work", 2, newer_first=False, query_vector=old_vector)) == [STALE_JOB, new_text]
    return bank


def test_a_newer_restatement_by_the_same_speaker_goes_first_without_the_query_words(tmp_path):
    bank = speaker_bank(tmp_path, NEW_JOB)  # shares "raj" (a name) with the query, not "work"; "ledgerly", "engineer" with the old one
    assert texts(search(bank, "where does Raj work", 2, query_vector=unit(1, 0.2))) == [NEW_JOB, STALE_JOB]
    assert texts(search(bank, "where does Raj work", 2, speaker_updates=False, query_vector=unit(1, 0.2))) == [STALE_JOB, NEW_JOB]


@pytest.mark.parametrize("new_text, speaker, cosine", [
    (NEW_JOB, "Anika", 0.6),  # another speaker
    (NEW_JOB, None, 0.6),  # neither has a speaker (a writer's facts): left to the query-word rule
    (NEW_JOB, "Raj", 0.35),  # too far in meaning
    ("Raj: Ledgerly has a new office downtown.", "Raj", 0.6),  # one word in common besides the name
])
def test_the_same_speaker_rule_needs_the_speaker_closeness_and_two_shared_words(tmp_path, new_text, speaker, cosine):
    bank = speaker_bank(tmp_path, new_text, speaker, cosine, old_speaker="Raj" if speaker else None)
    # speaker_weight=0: the query names Raj, and the rule for a named speaker is tested below
    assert texts(search(bank, "where does Raj work", 2, speaker_weight=0, query_vector=unit(1, 0.2)))[0] == STALE_JOB


@pytest.mark.parametrize("cosine, query, moved", [
    (0.65, "where does Raj work", True),  # the query names who said both: closeness is enough
    (0.55, "where does Raj work", False),  # not close enough
    (0.65, "which job now", False),  # the query names no one: two shared words are still needed
])
def test_when_the_query_names_the_speaker_a_close_newer_message_of_theirs_goes_first(tmp_path, cosine, query, moved):
    newer = "Raj: Ledgerly has a new office downtown."
    bank = speaker_bank(tmp_path, newer, "Raj", cosine)
    q = dict(query_vector=unit(1, 0.2))
    assert texts(search(bank, query, 2, newer_first=False, **q)) == [STALE_JOB, newer]
    assert texts(search(bank, query, 2, **q)) == ([newer, STALE_JOB] if moved else [STALE_JOB, newer])


SCHOOL_THEN = "Kofi: She's in Year 2 at Hollybrook Primary and she loves her teacher."
SCHOOL_NOW = "Kofi: She moved up a group at swimming, and she'll switch schools in September, to St Anne's."


@pytest.mark.parametrize("now, cosine, moved", [
    (SCHOOL_NOW, 0.55, True),  # holds "school", the older holds no query word
    (SCHOOL_NOW, 0.45, False),  # not close enough
    ("Kofi: She moved up a group at swimming, and starts in September.", 0.55, False),  # no more of the query's words
])
def test_a_newer_message_of_the_same_speaker_holding_more_of_the_query_goes_first(tmp_path, now, cosine, moved):
    angle = math.atan(0.2) + math.acos(cosine)
    then_vector, now_vector = unit(1, 0.2), unit(math.cos(angle), math.sin(angle))
    bank = open_bank(tmp_path / "bank.db")
    bank.bind_embedder(FixedEmbedder({SCHOOL_THEN: then_vector, now: now_vector}))
    bank.apply_operations([Operation("add", text=SCHOOL_THEN, speaker="Kofi", event_time="2024-01-20T10:00:00Z"),
                           Operation("add", text=now, speaker="Kofi", event_time="2024-07-13T20:00:00Z")], "apply", "test")
    q = dict(query_vector=then_vector, text_weight=0.1)  # the older is nearer the query, and the words count little
    assert texts(search(bank, "Which school will Ama go to?", 2, newer_first=False, **q)) == [SCHOOL_THEN, now]
    assert texts(search(bank, "Which school will Ama go to?", 2, **q)) == ([now, SCHOOL_THEN] if moved else [SCHOOL_THEN, now])
    if moved:
        assert texts(search(bank, "Which school will Ama go to?", 2, speaker_updates=False, **q)) == [SCHOOL_THEN, now]


# -- a query that names a speaker -------------------------------------------------------------

SHORT = "Nadia: Very good."
MOVED = "Nadia: Still in Delfshaven, but in a bigger flat two streets away."
ASKED = "Tomás: How is the new flat, Nadia?"
LISBON = "Tomás: Alfama is loud in summer, the flat above the tram stop."


def named_bank(tmp_path):
    """Two speakers' messages; the embedder makes the name pull the query toward Nadia's shortest message, as a
    real one does when every message of hers starts with "Nadia:", and the query without the name toward the flats."""
    vectors = {"Where does Nadia live?": unit(1), "Where does live?": unit(0, 1),
               SHORT: unit(1, 0.3), MOVED: unit(0.5, 1), ASKED: unit(0.3, 0.6, 0.6), LISBON: unit(0, 0.9, 0.4)}
    embedder = FixedEmbedder(vectors)
    bank = open_bank(tmp_path / "bank.db")
    bank.bind_embedder(embedder)
    bank.apply_operations([Operation("add", text=text, speaker=text.split(":")[0], event_time=f"2024-05-0{i}T10:00:00Z")
                           for i, text in enumerate([SHORT, MOVED, ASKED, LISBON], 1)], "apply", "test")
    return bank, embedder


def test_a_query_naming_a_speaker_ranks_what_they_said_about_it_not_their_shortest_message(tmp_path):
    bank, embedder = named_bank(tmp_path)
    assert texts(search(bank, "Where does Nadia live?", 4, speaker_weight=0))[0] == SHORT
    assert embedder.seen[-1] == "Where does Nadia live?"
    hits = texts(search(bank, "Where does Nadia live?", 4))
    assert embedder.seen[-1] == "Where does live?"  # the name is left out of the query's vector
    assert hits[0] == MOVED
    about = {h["text"]: h["signals"]["speaker"] for h in search(bank, "Where does Nadia live?", 4, signals=True, min_score=0.0)}
    assert about[ASKED] == 1.0 and about[LISBON] == 0.0  # Tomás's message that names Nadia counts as about her; the other does not
    assert texts(search(bank, "Where does Nadia live?", 4, fusion="rrf"))[0] == MOVED


def test_a_name_alone_is_still_searched_and_a_word_that_is_no_speaker_is_kept(tmp_path):
    from hymem_cli.bank.search import named_speakers, without_names

    bank, embedder = named_bank(tmp_path)
    assert named_speakers(bank.conn, ["where", "nadia", "tomás", "flat", "2024"]) == {"nadia", "tomás"}  # whatever the case
    assert without_names("Where does Nadia live?", {"nadia"}) == "Where does live?"
    assert without_names("Nadia?", {"nadia"}) == "Nadia?"  # nothing but the name: searched as it is
    assert texts(search(bank, "Nadia", 4))[:2] != []
    assert embedder.seen[-1] == "Nadia"


def test_the_speaker_lookup_uses_its_index(tmp_path):
    bank, _ = named_bank(tmp_path)
    plan = " ".join(str(r[-1]) for r in bank.conn.execute(
        "EXPLAIN QUERY PLAN SELECT 1 FROM versions WHERE speaker = ? COLLATE NOCASE LIMIT 1", ("nadia",)))
    assert "versions_speaker" in plan  # not a scan of every memory: a million-memory bank answers in microseconds


# -- a writer's fact ranked by its source messages --------------------------------------------

ADOPTION = [Message("m1", "Maya", "We adopted a retired greyhound from the track last week, his name is Biscuit."),
            Message("m2", "Lin", "Oh how lovely, send photos.")]
FACT = "Maya has a dog named Biscuit."


def fact_bank(tmp_path):
    """A bank holding FACT, written by a scripted writer through the real write path, citing ADOPTION's first message."""
    bank = open_bank(tmp_path / "facts.db")
    bank.bind_embedder(FixedEmbedder({}))
    reply = {"operations": [{"op": "add", "text": FACT, "evidence": "adopted a retired greyhound"}]}
    ingest(bank, [Source("chat", ADOPTION)], WriterProcessor(ScriptedBackend([reply]), Screen()))
    return bank


@pytest.mark.parametrize("vector_weight", [0.0, 0.4])
def test_a_fact_is_found_by_the_words_of_its_source_message_only_with_sources_weight(tmp_path, vector_weight):
    bank = fact_bank(tmp_path)
    [stored] = search(bank, "dog", 5, vector_weight=vector_weight)
    assert stored["source_ids"] == ["m1"] and stored["text"] == FACT
    bank.apply_operations([Operation("add", text="Lin prefers cats to dogs.")], "apply", "test")  # matches by its own words
    assert texts(search(bank, "greyhound", 5, vector_weight=0.0)) == []
    assert texts(search(bank, "greyhound", 5, vector_weight=vector_weight, sources_weight=0.3, min_score=0.0))[0] == FACT
    if vector_weight:  # without the lever the fact ties with the distractor on meaning alone, found by no word
        assert search(bank, "greyhound", 5, vector_weight=vector_weight)[0]["score"] == search(bank, "greyhound", 5, vector_weight=vector_weight)[1]["score"]


def test_raw_messages_are_not_ranked_by_their_context(tmp_path):
    bank = open_bank(tmp_path / "raw.db")
    bank.bind_embedder(FixedEmbedder({}))
    ingest(bank, [Source("chat", ADOPTION)], RawProcessor(Screen()))
    reply = bank.conn.execute("SELECT context FROM versions WHERE source_ids = '[\"m2\"]'").fetchone()[0]
    assert "greyhound" in reply  # the previous turn is stored with the reply ...
    hits = search(bank, "greyhound", 5, vector_weight=0.0, sources_weight=1.0)
    assert [h["source_ids"] for h in hits] == [["m1"]]  # ... but only a writer's fact is ranked by it
    assert bank.conn.execute("SELECT count(*) FROM versions_sources_fts_docsize").fetchone()[0] == 0


def test_sources_weight_is_a_checked_setting(monkeypatch):
    monkeypatch.setenv("HYMEM_SEARCH_SOURCES_WEIGHT", "0.25")
    assert config.load().search.ranking()["sources_weight"] == 0.25
    monkeypatch.setenv("HYMEM_SEARCH_SOURCES_WEIGHT", "-1")
    with pytest.raises(ConfigError, match="search.sources_weight"):
        config.load()
