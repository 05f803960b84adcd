"""The domain types' contracts: a chunk's hash (its value is part of every bank), its key per writer,
how a chunk renders, its lines and times, the operation format, and cutting messages into chunks."""

from __future__ import annotations

import hashlib
import json

import pytest

from hymem_cli.domain import Chunk, Message, Operation, chunk_key, memory_id, reason_kind, writer_identity
from hymem_cli.ingest.chunker import FLUSH, chunk_messages, estimate_tokens

ALEX = Message("LINE:1", "Alex", "I live in Zürich.", "2024-05-01T10:00:00Z", "s1", 1)
PLAIN = Message("LINE:2", None, "ok", None, None, 2)
CHUNK = Chunk("chat.txt", [ALEX, PLAIN])
WRITER = {"backend": "llama", "model": "x.gguf", "model_hash": "b2:abc", "prompt_version": 3, "pipeline": "single"}


def test_the_chunk_hash_is_fixed():
    """These values are in every bank: a change here makes every transcript new again."""
    assert CHUNK.hash("raw") == "b2:025f3265a4a9b087dcdd772c197f7c06"
    assert CHUNK.hash("writer") == "b2:3c17f8da670c4a77fd34b2c905efe73d"
    body = {"mode": "raw", "messages": [
        {"id": m.id, "speaker": m.speaker, "text": m.text, "timestamp": m.timestamp, "session": m.session} for m in CHUNK.messages]}
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    assert CHUNK.hash("raw") == "b2:" + hashlib.blake2b(canonical, digest_size=16).hexdigest()


def test_prefix_hashes_are_the_hashes_of_each_beginning():
    assert CHUNK.prefix_hashes("raw") == ["b2:7e53633d40c689f3d3c43865bc217fd2", CHUNK.hash("raw")]
    longer = Chunk("chat.txt", [ALEX, PLAIN, ALEX])
    for mode in ("raw", "writer", "ünïcode"):
        assert longer.prefix_hashes(mode) == [Chunk("x", longer.messages[:n]).hash(mode) for n in (1, 2, 3)]


def test_chunk_key():
    content = CHUNK.hash("raw")
    assert chunk_key(content) == content
    keyed = chunk_key(content, WRITER)
    assert keyed == "b2:d053aca7a88cc7937950a111826e1c3b"
    assert chunk_key(content, None, "again1") == "b2:fb1c689db41dfd7eb43d6755ec188a9d"
    assert chunk_key(content, WRITER, "again1") not in (keyed, content)
    assert chunk_key(content, WRITER | {"model_hash": "b2:def"}) != keyed  # another model file
    assert chunk_key(content, WRITER | {"prompt_version": 4}) != keyed
    assert chunk_key(content, WRITER | {"pipeline": "two-pass"}) != keyed
    assert chunk_key(content, WRITER | {"n_ctx": 4096}) == keyed  # settings that do not change what is written


def test_writer_identity():
    assert writer_identity(None) is None and writer_identity({}) is None
    assert writer_identity(WRITER | {"protocol": "hymem"}) == (
        '{"backend":"llama","model":"b2:abc","pipeline":"single","prompt_version":3,"prompts":null,"protocol":null}')
    assert writer_identity(WRITER) == writer_identity(WRITER | {"protocol": "hymem"})  # hymem's own protocol, named or not
    other = {"backend": "openai", "model": "hy", "prompt_version": 3, "pipeline": "two-pass", "protocol": "hy-memory", "prompts": "p1"}
    assert writer_identity(other) == (
        '{"backend":"openai","model":"hy","pipeline":"two-pass","prompt_version":3,"prompts":"p1","protocol":"hy-memory"}')


def test_render():
    assert CHUNK.render() == "[2024-05-01T10:00:00Z] Alex: I live in Zürich.\nok"
    assert Chunk("x", []).render() == ""


def test_lines_and_times():
    assert CHUNK.lines == (1, 2) and CHUNK.times == ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z")
    late = Message("b", "Sam", "yes", "2024-05-03T10:00:00Z", line=9)
    early = Message("c", "Sam", "no", "2024-04-03T10:00:00Z", line=4)
    assert Chunk("x", [late, early, PLAIN]).lines == (2, 9)
    assert Chunk("x", [late, early, PLAIN]).times == ("2024-04-03T10:00:00Z", "2024-05-03T10:00:00Z")
    assert Chunk("x", [Message("a", None, "t")]).lines == (None, None)
    assert Chunk("x", [Message("a", None, "t")]).times == (None, None)


def test_operation_json_leaves_out_what_is_empty():
    assert Operation(op="add", text="Alex lives in Zürich.", source_ids=[], speaker=None).to_json() == {
        "op": "add", "text": "Alex lives in Zürich."}
    full = Operation(op="supersede", target="m1", text="t", reason="r", evidence="e", source_ids=["a"], event_time="2024",
                     speaker="Alex", merges=["m2"], tags=["x"], owner="user", kind="memory", valid_until="2025", origin="quoted")
    assert full.to_json() == {k: getattr(full, k) for k in full.to_json()} and len(full.to_json()) == 14


def test_memory_id():
    assert memory_id(12) == "m12"


@pytest.mark.parametrize("reason,kind", [
    ("evidence 'abc 12' does not occur in the chunk", "evidence … does not occur in the chunk"),
    ('an update must name one of the memories shown (1–3); it named 7', "an update must name one of the memories shown (…); it named N"),
    ("text of 401 characters is longer than 400", "text of N characters is longer than N"),
    ('would store an instruction to the agent (override: "ignore it") in its text',
     "would store an instruction to the agent (…) in its text"),
    ("evidence 'it\\'s' is 'x'", "evidence … is …"),
])
def test_reason_kind_blanks_the_particulars(reason, kind):
    assert reason_kind(reason) == kind


# ------------------------------------------------------------------------------------ chunker


def said(n: int, text: str, session: str | None = "s1") -> Message:
    return Message(f"m{n}", "Al", text, session=session, line=n)


def test_estimate_tokens():
    assert [estimate_tokens(t) for t in ("", "abc", "abcd", "a" * 9)] == [4, 4, 5, 6]


def test_chunks_fill_up_to_the_budget_and_never_past_it():
    messages = [said(n, "x" * 12) for n in range(5)]  # each costs 3 + 4 for the text and 4 for "Al": 11

    def sizes(budget: int) -> list[int]:
        return [len(c.messages) for c in chunk_messages(messages, "s", budget)]

    assert sizes(22) == [2, 2, 1]  # exactly the budget fits
    assert sizes(21) == [1, 1, 1, 1, 1]
    assert sizes(33) == [3, 2]
    assert sizes(5) == [1, 1, 1, 1, 1]  # a message over the budget is a chunk of its own
    assert all(c.source == "s" for c in chunk_messages(messages, "s", 22))


def test_a_message_without_a_speaker_costs_its_text_only():
    messages = [Message(f"m{n}", None, "x" * 12, session="s1") for n in range(3)]
    assert [len(c.messages) for c in chunk_messages(messages, "s", 14)] == [2, 1]


def test_a_new_session_starts_a_new_chunk():
    messages = [said(1, "a"), said(2, "b"), said(3, "c", "s2"), said(4, "d", None), said(5, "e", None)]
    assert [[m.id for m in c.messages] for c in chunk_messages(messages, "s", 768)] == [["m1", "m2"], ["m3"], ["m4", "m5"]]


def test_a_flush_closes_the_open_chunk():
    messages = [FLUSH, said(1, "a"), FLUSH, FLUSH, said(2, "b"), said(3, "c"), FLUSH]
    assert [[m.id for m in c.messages] for c in chunk_messages(messages, "s", 768)] == [["m1"], ["m2", "m3"]]
    assert list(chunk_messages([], "s")) == []


def test_the_budget_starts_again_after_a_flush():
    messages = [said(1, "x" * 12), FLUSH, said(2, "x" * 12), said(3, "x" * 12)]
    assert [len(c.messages) for c in chunk_messages(messages, "s", 22)] == [1, 2]


@pytest.mark.parametrize("value,number", [("m12", 12), ("M12", 12), ("12", 12), (" m7 ", 7), ("m" + "9" * 18, 10**18 - 1)])
def test_a_memory_id_is_read_with_or_without_its_m(value, number):
    from hymem_cli.bank.operations import parse_memory_id

    assert parse_memory_id(value) == number


@pytest.mark.parametrize("value", ["", "m", "x12", "mm12", "m-1", "m1.5", "m١٢"])
def test_what_is_not_a_memory_id_is_refused_with_a_hint(value):
    from hymem_cli._errors import NotFoundError
    from hymem_cli.bank.operations import parse_memory_id

    with pytest.raises(NotFoundError) as refused:
        parse_memory_id(value)
    assert refused.value.message == f"{value!r} is not a memory id"
    assert refused.value.hint == "memory ids look like m12; find them with `hymem search`"


@pytest.mark.parametrize("value", ["m" + "9" * 19, "m9223372036854775808"])
def test_an_id_past_sqlites_integers_is_refused_naming_the_last_one(value):
    from hymem_cli._errors import NotFoundError
    from hymem_cli.bank.operations import parse_memory_id

    with pytest.raises(NotFoundError) as refused:
        parse_memory_id(value)
    assert refused.value.message == f"{value} is not a memory id: ids end at m9223372036854775807"
    assert parse_memory_id("m9223372036854775807") == 9223372036854775807
