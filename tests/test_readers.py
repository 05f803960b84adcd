"""Tests of the transcript readers (hymem_cli.ingest.readers) and timestamp normalisation."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hymem_cli._errors import ConfigError, InputError
from hymem_cli.domain import Message
from hymem_cli.ingest.readers import FORMATS, decode_lines, detect_format, read_messages
from hymem_cli.ingest.timeutil import normalize_timestamp, parse_time_arg
from hymem_cli.screen import Screen


def lines_of(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def read(text: str, fmt: str | None = None, name: str = "chat.txt") -> list[Message]:
    return list(read_messages(lines_of(text), fmt, name=name))


def jsonl(*objects: object) -> str:
    return "".join(json.dumps(obj) + "\n" for obj in objects)


class Boom(Exception):
    """Raised by a line source after its first lines, standing in for a pipe that is still open."""


def then_boom(lines: list[str]):
    yield from lines
    raise Boom


# ---------------------------------------------------------------------------- text


def test_text_one_message_per_non_blank_line():
    messages = read("first line\n\n  second line  \r\n\nthird")
    assert messages == [
        Message(id="LINE:1", speaker=None, text="first line", line=1),
        Message(id="LINE:3", speaker=None, text="second line", line=3),
        Message(id="LINE:5", speaker=None, text="third", line=5),
    ]


def test_text_lines_without_newlines_are_accepted():
    messages = list(read_messages(["a", "", "b"], "text"))
    assert [(m.id, m.text) for m in messages] == [("LINE:1", "a"), ("LINE:3", "b")]


# ---------------------------------------------------------------------------- speaker


def test_speaker_lines_and_continuations():
    text = "Alex: I live in Seattle.\nI moved in 2021.\n\nSam: Nice!\n  Indented continuation.\n"
    messages = read(text, "speaker")
    assert messages == [
        Message(id="LINE:1", speaker="Alex", text="I live in Seattle.\nI moved in 2021.", line=1),
        Message(id="LINE:4", speaker="Sam", text="Nice!\n  Indented continuation.", line=4),
    ]


def test_speaker_blank_line_keeps_paragraphs_inside_message():
    messages = read("Alex: one\n\ntwo\nSam: three\n", "speaker")
    assert messages[0].text == "one\n\ntwo"
    assert messages[1].speaker == "Sam"


def test_speaker_names_with_spaces_and_punctuation():
    messages = read("Dr. Jane O'Neil-Smith: hello\nuser_2: hi\nJosé: hola\n", "speaker")
    assert [m.speaker for m in messages] == ["Dr. Jane O'Neil-Smith", "user_2", "José"]


def test_speaker_prefix_rules():
    # Needs a letter first, a colon and a space; URLs and times are not speakers.
    messages = read("Alex: see https://example.com\n10:30 standup\nhttps://x.org\n", "speaker")
    assert len(messages) == 1
    assert messages[0].text == "see https://example.com\n10:30 standup\nhttps://x.org"


def test_speaker_too_long_name_is_a_continuation():
    long_name = "A" * 41
    messages = read(f"Alex: hi\n{long_name}: there\n", "speaker")
    assert len(messages) == 1
    assert messages[0].text == f"hi\n{long_name}: there"


def test_speaker_text_before_first_speaker_has_no_speaker():
    messages = read("Transcript of the call\nAlex: hi\n", "speaker")
    assert messages[0] == Message(id="LINE:1", speaker=None, text="Transcript of the call", line=1)
    assert messages[1].speaker == "Alex"


def test_speaker_bracketed_timestamps():
    text = "[2024-05-01 10:00] Alex: morning\n[2024-05-01T12:30:00+02:00] Sam: noon\n[10:00] Kim: no date\n"
    messages = read(text)
    assert [(m.speaker, m.text, m.timestamp) for m in messages] == [
        ("Alex", "morning", "2024-05-01T10:00:00Z"),
        ("Sam", "noon", "2024-05-01T10:30:00Z"),
        ("Kim", "no date", None),
    ]


def test_speaker_empty_messages_are_skipped():
    messages = read("Alex: \nSam: hi\n", "speaker")
    assert [(m.speaker, m.text) for m in messages] == [("Sam", "hi")]


# ---------------------------------------------------------------------------- jsonl


def test_jsonl_openai_style():
    text = jsonl(
        {"role": "system", "content": "be nice"},
        {"role": "user", "name": "Alex", "content": "I live in Seattle."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Noted."},
                {"type": "image_url"},
                {"type": "text", "text": "Anything else?"},
            ],
        },
    )
    messages = read(text, name="chat.jsonl")
    assert messages == [
        Message(id="LINE:1", speaker="system", text="be nice", line=1),
        Message(id="LINE:2", speaker="Alex", text="I live in Seattle.", line=2),
        Message(id="LINE:4", speaker="assistant", text="Noted.\nAnything else?", line=4),
    ]


def test_jsonl_rich_form_and_synonyms():
    text = jsonl(
        {"id": "d1-3", "speaker": "Alex", "text": "hi", "timestamp": "2024-05-01T10:00:00Z", "session": "s1"},
        {"id": 42, "role": "user", "content": "numeric id", "time": "2024-05-01T12:00:00+02:00"},
        {"speaker": "Sam", "text": "date only", "date": "2024-05-02"},
        {"speaker": "Sam", "text": "epoch", "created_at": 1714557600},
        {"speaker": "Sam", "text": "epoch ms", "created_at": 1714557600123},
        {"speaker": "Sam", "text": "  "},
    )
    messages = read(text, "jsonl")
    assert messages[0] == Message(
        id="d1-3", speaker="Alex", text="hi", timestamp="2024-05-01T10:00:00Z", session="s1", line=1
    )
    assert (messages[1].id, messages[1].speaker, messages[1].timestamp) == ("42", "user", "2024-05-01T10:00:00Z")
    assert messages[2].timestamp == "2024-05-02T00:00:00Z"
    assert messages[3].timestamp == "2024-05-01T10:00:00Z"
    assert messages[4].timestamp == "2024-05-01T10:00:00Z"
    assert len(messages) == 5  # whitespace-only text is skipped


def test_jsonl_blank_lines_are_skipped_and_line_numbers_kept():
    text = "\n" + json.dumps({"text": "a"}) + "\n\n" + json.dumps({"text": "b"}) + "\n"
    messages = read(text, "jsonl")
    assert [(m.id, m.line) for m in messages] == [("LINE:2", 2), ("LINE:4", 4)]


def test_jsonl_malformed_line_names_the_line():
    text = jsonl({"text": "a"}, {"text": "b"}) + '{"text": "c",\n' + jsonl({"text": "d"})
    with pytest.raises(InputError) as err:
        read(text, name="chat.jsonl")
    assert err.value.message.startswith("chat.jsonl line 3: invalid JSON (")
    assert "\n" not in err.value.message
    assert err.value.hint


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[1, 2]", "expected a message object, got a list"),
        ('"just a string"', "expected a message object, got a string"),
        ('{"role": "user"}', 'no "text" or "content"'),
        ('{"role": "user", "content": 5}', '"content" must be a string or a list of text parts, got a number'),
        ('{"text": "hi", "id": [1]}', '"id" must be a string or a number'),
        ('{"text": "hi", "timestamp": "next tuesday"}', 'cannot read "timestamp" value "next tuesday"'),
    ],
)
def test_jsonl_wrong_shape_names_line_and_expectation(line, expected):
    text = jsonl({"text": "ok"}) + line + "\n"
    with pytest.raises(InputError) as err:
        read(text, "jsonl", name="chat.jsonl")
    assert err.value.message.startswith("chat.jsonl line 2: ")
    assert expected in err.value.message
    assert err.value.hint


def test_jsonl_lone_surrogate_is_replaced():
    messages = read('{"text": "broken \\ud83d emoji"}\n', "jsonl")
    assert messages[0].text == "broken \ufffd emoji"


# ---------------------------------------------------------------------------- json


def test_json_list_of_messages():
    doc = json.dumps(
        [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": None},
            {"id": "m3", "role": "assistant", "content": "hi", "timestamp": "2024-05-01T10:00:00-07:00"},
        ],
        indent=2,
    )
    messages = read(doc, name="chat.json")
    assert messages == [
        Message(id="MSG:1", speaker="user", text="hello"),
        Message(id="m3", speaker="assistant", text="hi", timestamp="2024-05-01T17:00:00Z"),
    ]


def test_json_messages_object_and_conversation_object():
    one = read(json.dumps({"id": "conv-9", "messages": [{"speaker": "Alex", "text": "a"}]}))
    assert one == [Message(id="MSG:1", speaker="Alex", text="a", session="conv-9")]
    two = read(json.dumps({"conversation": [{"role": "user", "content": "b"}]}, indent=1))
    assert two == [Message(id="MSG:1", speaker="user", text="b")]


def test_json_sessions_give_session_ids_and_global_indexes():
    doc = {
        "sessions": [
            {"id": "s1", "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]},
            {
                "session": 2,
                "messages": [{"role": "user", "content": "c"}, {"role": "user", "content": "d", "session": "own"}],
            },
        ]
    }
    messages = read(json.dumps(doc, indent=2))
    assert [(m.id, m.text, m.session) for m in messages] == [
        ("MSG:1", "a", "s1"),
        ("MSG:2", "b", "s1"),
        ("MSG:3", "c", "2"),
        ("MSG:4", "d", "own"),
    ]


def test_json_list_of_conversations():
    doc = [{"id": "s1", "messages": [{"text": "a"}]}, {"id": "s2", "messages": [{"text": "b"}]}]
    assert [(m.id, m.session) for m in read(json.dumps(doc), "json")] == [("MSG:1", "s1"), ("MSG:2", "s2")]


def test_a_conversation_with_a_null_text_is_still_read():
    doc = [{"id": "s1", "text": None, "messages": [{"text": "a"}]}, {"content": None, "conversation": [{"text": "b"}]}]
    assert [(m.text, m.session) for m in read(json.dumps(doc), "json")] == [("a", "s1"), ("b", None)]
    assert [m.text for m in read(json.dumps({"text": None, "messages": [{"text": "c"}]}), "json")] == ["c"]


def test_json_malformed_names_the_line():
    doc = '[\n  {"role": "user", "content": "a"},\n  {"role": "user" "content": "b"}\n]\n'
    with pytest.raises(InputError) as err:
        read(doc, name="chat.json")
    assert err.value.message.startswith("chat.json line 3: invalid JSON (")


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ('{"foo": 1}', 'expected a list of messages or an object with a "messages" list, got an object'),
        ("[1]", "chat.json message 1: expected a message object, got a number"),
        ('[{"text": "a"}, {"speaker": "x"}]', 'chat.json message 2: message has no "text" or "content" field'),
        ('{"sessions": [{"id": "s1"}]}', 'session 1 is not an object with a "messages" list'),
    ],
)
def test_json_wrong_shape(doc, expected):
    with pytest.raises(InputError) as err:
        read(doc, "json", name="chat.json")
    assert expected in err.value.message


def test_json_reads_whole_document_even_without_newline_structure():
    doc = json.dumps({"messages": [{"text": "a"}, {"text": "b"}]})  # one line: still json, not jsonl
    assert detect_format([doc]) == "json"
    assert [m.text for m in read(doc)] == ["a", "b"]


# ---------------------------------------------------------------------------- markdown


def test_markdown_headings_with_title_and_code_fence():
    text = (
        "# Chat with the assistant\n"
        "\n"
        "## User\n"
        "How do I list files?\n"
        "\n"
        "## **Assistant**\n"
        "Use ls:\n"
        "```\n"
        "## not a speaker\n"
        "```\n"
        "### User:\n"
        "thanks\n"
    )
    messages = read(text, name="chat.md")
    assert messages == [
        Message(id="LINE:3", speaker="User", text="How do I list files?", line=3),
        Message(id="LINE:6", speaker="Assistant", text="Use ls:\n```\n## not a speaker\n```", line=6),
        Message(id="LINE:11", speaker="User", text="thanks", line=11),
    ]


def test_markdown_title_with_preamble_keeps_preamble_without_speaker():
    messages = read("# Export\nSaved 2024-05-01\n## User\nhi\n", "markdown")
    assert [(m.speaker, m.text, m.line) for m in messages] == [(None, "Saved 2024-05-01", 1), ("User", "hi", 3)]


def test_markdown_level_one_speaker_headings_are_not_titles():
    messages = read("# Alex\nhello\n# Sam\nhey\n")
    assert [(m.speaker, m.text) for m in messages] == [("Alex", "hello"), ("Sam", "hey")]


def test_markdown_bold_names():
    text = "**Alex:** I live in Seattle.\nSince 2021.\n\n**Sam**: Nice.\n"
    messages = read(text)
    assert messages == [
        Message(id="LINE:1", speaker="Alex", text="I live in Seattle.\nSince 2021.", line=1),
        Message(id="LINE:4", speaker="Sam", text="Nice.", line=4),
    ]


def test_markdown_long_heading_is_content():
    text = "## User\nsee below\n## This heading is far too long to be the name of anyone\nstill user\n"
    messages = read(text)
    assert len(messages) == 1
    assert messages[0].text.endswith("still user")


# ---------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"role": "user", "content": "hi"}]', "json"),
        ('[\n  {\n    "role": "user"', "json"),
        ("[]", "json"),
        ('{"role": "user", "content": "hi"}\n{"role": "assistant"', "jsonl"),
        ('{\n  "messages": []\n}', "json"),
        ('{"messages": [{"text": "a"}]}', "json"),
        ("## User\nhi\n## Assistant\nhello", "markdown"),
        ("**Alex:** hi\n**Sam:** hey", "markdown"),
        ("# Notes\nsome text\nmore text", "text"),
        ("Alex: hi\nSam: hey\nand more", "speaker"),
        ("[2024-05-01 10:00] Alex: hi\n[2024-05-01 10:01] Sam: hey", "speaker"),
        ("Alex: hi\njust\nsome\nprose", "text"),
        ("just some prose\nwith lines", "text"),
        ("\n\n   \nhello", "text"),
        ("\ufeff{\"text\": \"a\"}", "jsonl"),
        ('  {"text": "a"}\n  {"text": "b"}', "jsonl"),  # indented: its first non-blank character decides
        ('\n  [{"text": "a"}]', "json"),
        ('  [\n  {"text": "a"},', "json"),  # an indented start of a list not yet complete
        ("Alex: hi\nprose", "speaker"),  # half the lines name a speaker: enough
        ("Alex: hi\nsome\nprose", "text"),  # a third: not
    ],
)
def test_detect_format(text, expected):
    assert detect_format(lines_of(text)) == expected


def test_detect_format_empty_input():
    with pytest.raises(InputError) as err:
        detect_format(["\n", "   \n"], name="chat.txt")
    assert err.value.message == "chat.txt is empty"
    assert err.value.hint == "give a transcript file or pipe text on stdin"
    with pytest.raises(InputError, match=r"^<stdin> is empty$"):
        detect_format([])  # no name given: standard input


@pytest.mark.parametrize("fmt", [None, *FORMATS])
def test_read_messages_empty_input(fmt):
    with pytest.raises(InputError) as err:
        list(read_messages(["", "  \n"], fmt, name="in.txt"))
    assert (err.value.message, err.value.hint) == ("in.txt is empty", "give a transcript file or pipe text on stdin")


@pytest.mark.parametrize("lines", [["hi\n", b"there\n"], [b"hi\n"]])
def test_read_messages_wants_decoded_lines(lines):
    with pytest.raises(TypeError, match=r"^read_messages wants str lines, got bytes; use decode_lines for bytes$"):
        list(read_messages(lines, "text"))


@pytest.mark.parametrize("fmt", [None, "text"])
def test_no_lines_at_all_is_an_empty_input(fmt):
    with pytest.raises(InputError, match=r"^<stdin> is empty$"):
        list(read_messages([], fmt))


@pytest.mark.parametrize("fmt", [None, "text", "markdown"])
def test_a_byte_order_mark_is_dropped_from_the_first_line_only(fmt):
    got = list(read_messages(["\ufeff## Alex\n", "hi\n", "\ufeff## Sam\n"], fmt))
    assert [(m.speaker, m.text) for m in got] == (
        [("Alex", "hi\n\ufeff## Sam")] if fmt != "text" else [(None, "## Alex"), (None, "hi"), (None, "\ufeff## Sam")])


def test_a_label_on_a_first_line_with_a_byte_order_mark_still_guards_the_next_line():
    got = list(read_messages(["\ufeff## Password\n", "hunter22x\n"], "markdown", redact_line=Screen().redact_line))
    assert [m.text for m in got] == ["[REDACTED:password]"]


def test_read_messages_unknown_format_fails_at_call():
    with pytest.raises(ConfigError) as caught:
        read_messages(["hi"], "yaml")
    assert (caught.value.message, caught.value.hint) == (
        "unknown transcript format 'yaml'", "use one of: text, speaker, json, jsonl, markdown, claude-code, codex")


def test_auto_format_is_detection():
    assert read("Alex: hi\n", "auto") == [Message(id="LINE:1", speaker="Alex", text="hi", line=1)]


# ---------------------------------------------------------------------------- streaming


@pytest.mark.parametrize(
    ("fmt", "lines", "expected"),
    [
        ("text", ["a\n", "b\n", "c\n"], ["a", "b"]),
        ("speaker", ["Alex: a\n", "Sam: b\n", "Alex: c\n"], ["a", "b"]),
        ("jsonl", [json.dumps({"text": t}) + "\n" for t in "abc"], ["a", "b", "c"]),
        ("markdown", ["## A\n", "a\n", "## B\n", "b\n"], ["a"]),
    ],
)
def test_streaming_yields_before_the_input_ends(fmt, lines, expected):
    it = read_messages(then_boom(lines), fmt)
    got = []
    with pytest.raises(Boom):
        for message in it:
            got.append(message.text)
    # Every message complete before the failing read was yielded (the last speaker one may still be open).
    assert got[: len(expected)] == expected


def test_streaming_with_detection_peeks_a_bounded_sample():
    lines = [f"line {i}\n" for i in range(60)]
    got = []
    with pytest.raises(Boom):
        for message in read_messages(then_boom(lines)):
            got.append(message.text)
    assert got[:3] == ["line 0", "line 1", "line 2"]


@pytest.mark.parametrize("start", ["", "\ufeff", "  ", "\t"])
def test_streaming_jsonl_detection_needs_only_the_first_line(start):
    got = []
    with pytest.raises(Boom):
        for message in read_messages(then_boom([start + json.dumps({"text": "first"}) + "\n"])):
            got.append(message.text)
    assert got == ["first"]


def test_detection_reads_fifty_lines_with_content_before_the_first_message():
    taken = []

    def lines():
        for i in range(80):
            taken.append(i)
            yield "\n" if i == 0 else f"line {i}\n"

    assert next(read_messages(lines())).text == "line 1"
    assert len(taken) == 51  # the blank first line is not counted


def test_a_first_line_that_only_looks_like_json_further_in_does_not_end_the_sample():
    got = list(read_messages(['X{"a": 1}\n', "Alex: hi\n", "Sam: hey\n"]))
    assert [m.speaker for m in got][-2:] == ["Alex", "Sam"]


# ---------------------------------------------------------------------------- decode_lines


def test_decode_lines_utf8_bom_and_line_splitting():
    raw = [b"\xef\xbb\xbfAlex: caf\xc3\xa9\n", b"one\r\ntwo\rthree\n", b"last"]
    assert list(decode_lines(raw, name="x")) == ["Alex: café\n", "one\r\n", "two\r", "three\n", "last"]


def test_decode_lines_invalid_utf8_names_the_line():
    raw = [b"ok\n", b"fine\n", b"caf\xe9\n"]
    with pytest.raises(InputError) as err:
        list(decode_lines(raw, name="chat.txt"))
    assert err.value.message == "chat.txt line 3: not valid UTF-8 (byte 0xe9)"
    assert "iconv" in err.value.hint


def test_decode_lines_invalid_utf8_inside_a_multi_line_chunk():
    with pytest.raises(InputError) as err:
        list(decode_lines([b"a\nb\n\xff\n"], name="f"))
    assert err.value.message.startswith("f line 3: ")


def test_decode_lines_nul_byte_is_binary():
    with pytest.raises(InputError) as err:
        list(decode_lines([b"hello\n", b"\x7fELF\x00\x00"], name="a.out"))
    assert (err.value.message, err.value.hint) == (
        "a.out looks like a binary file (NUL byte on line 2)", "give a UTF-8 text transcript (.txt, .md, .json, .jsonl)")


def test_decode_lines_names_the_line_of_the_first_nul_in_a_chunk_of_lines():
    with pytest.raises(InputError, match=r"\(NUL byte on line 3\)$"):
        list(decode_lines([b"one\n", b"two\nthr\x00ee\nfo\x00ur\n"], name="a.out"))


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_decode_lines_utf16_is_named(encoding):
    with pytest.raises(InputError) as err:
        list(decode_lines([("\ufeffhi\n").encode(encoding)], name="w.txt"))
    assert (err.value.message, err.value.hint) == ("w.txt is UTF-16 text, not UTF-8", "convert it first: iconv -f UTF-16 -t UTF-8 w.txt")


def test_decode_lines_looks_at_the_start_of_the_input_only_once():
    """Empty chunks are passed over; a BOM or UTF-16 mark later in the input is not at its start."""
    assert list(decode_lines([b"", b"\xef\xbb\xbfa\n", b"\xef\xbb\xbfb\n"], name="x")) == ["a\n", "\ufeffb\n"]
    with pytest.raises(InputError, match=r"^x line 2: not valid UTF-8 \(byte 0xff\)$"):
        list(decode_lines([b"a\n", b"\xff\xfeb\n"], name="x"))


@pytest.mark.parametrize("name", ["two\nlines.txt", "two\rlines.txt", "two\r\nlines.txt"])
def test_an_error_names_a_file_with_line_breaks_on_one_line(name):
    with pytest.raises(InputError) as err:
        list(decode_lines([b"\x00"], name=name))
    assert err.value.message == "two lines.txt looks like a binary file (NUL byte on line 1)"


def test_decode_then_read_end_to_end():
    raw = [b'{"role": "user", "content": "hi"}\n', b"\n", b'{"role": "user", "content": "yo"}\n']
    messages = list(read_messages(decode_lines(raw, name="c.jsonl"), name="c.jsonl"))
    assert [(m.id, m.text) for m in messages] == [("LINE:1", "hi"), ("LINE:3", "yo")]


# ---------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"),
        ("2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00Z"),
        ("2024-05-01T23:30:00-05:00", "2024-05-02T04:30:00Z"),
        ("2024-05-01T10:00:00.999Z", "2024-05-01T10:00:00Z"),
        ("2024-05-01T10:00:00", "2024-05-01T10:00:00Z"),
        ("2024-05-01", "2024-05-01T00:00:00Z"),
        ("2024-05-01 10:00", "2024-05-01T10:00:00Z"),
        ("2024-05-01 10:00:05", "2024-05-01T10:00:05Z"),
        ("2024-05-01 10:00 UTC", "2024-05-01T10:00:00Z"),
        ("2024/5/1", "2024-05-01T00:00:00Z"),
        ("20240501", "2024-05-01T00:00:00Z"),
        (1714557600, "2024-05-01T10:00:00Z"),
        (1714557600.75, "2024-05-01T10:00:00Z"),
        (1714557600000, "2024-05-01T10:00:00Z"),
        ("1714557600", "2024-05-01T10:00:00Z"),
        (0, "1970-01-01T00:00:00Z"),
    ],
)
def test_normalize_timestamp(value, expected):
    assert normalize_timestamp(value) == expected
    assert parse_time_arg(str(value)) == expected


@pytest.mark.parametrize(
    "value", [None, "", "yesterday", "10:00", "2024-13-01", True, [2024], float("nan"), float("inf"), 10**400]
)
def test_normalize_timestamp_unparseable_is_none(value):
    assert normalize_timestamp(value) is None


def test_parse_time_arg_raises_value_error():
    with pytest.raises(ValueError, match="cannot read 'soon' as a time"):
        parse_time_arg("soon")


# ---------------------------------------------------------------------------- properties

SPEAKER = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,15}", fullmatch=True)
ONE_LINE_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=60)


def expected_pairs(pairs):
    return [(speaker, text.strip()) for speaker, text in pairs if text.strip()]


@given(st.lists(st.tuples(SPEAKER, ONE_LINE_TEXT), max_size=20))
def test_property_jsonl_round_trip(pairs):
    lines = [json.dumps({"speaker": s, "text": t}) + "\n" for s, t in pairs]
    if not lines:
        return
    for fmt in (None, "jsonl"):
        messages = list(read_messages(lines, fmt))
        assert [(m.speaker, m.text) for m in messages] == expected_pairs(pairs)


@given(st.lists(st.tuples(SPEAKER, ONE_LINE_TEXT), min_size=1, max_size=20))
def test_property_speaker_round_trip(pairs):
    lines = [f"{s}: {t}\n" for s, t in pairs]
    messages = list(read_messages(lines, "speaker"))
    assert [(m.speaker, m.text) for m in messages] == expected_pairs(pairs)
    # Speaker lines start no continuation, so each message starts on its own line.
    assert all(m.id == f"LINE:{m.line}" for m in messages)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(max_size=80), max_size=30), st.sampled_from([None, *FORMATS]))
def test_property_any_text_gives_messages_or_input_error(lines, fmt):
    try:
        for message in read_messages(lines, fmt, name="fuzz"):
            assert isinstance(message, Message)
            assert message.text and message.text == message.text.strip()
    except InputError as err:
        assert err.message and "\n" not in err.message


MESSAGE_KEYS = ["text", "content", "role", "name", "id", "time", "messages", "sessions", "session"]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(MESSAGE_KEYS), children, max_size=4),
    max_leaves=8,
)
JSONISH = st.lists(
    st.one_of(
        st.text(alphabet='{}[]":,0123456789.-+eE truefalsnl\\abc', max_size=40),
        st.builds(json.dumps, JSON_VALUES),
    ),
    min_size=1,
    max_size=8,
)


@given(JSONISH, st.sampled_from([None, "json", "jsonl"]))
def test_property_json_like_input_gives_messages_or_input_error(lines, fmt):
    try:
        for message in read_messages(lines, fmt):
            assert isinstance(message, Message)
            assert message.timestamp is None or message.timestamp.endswith("Z")
    except InputError as err:
        assert err.message and "\n" not in err.message


@given(st.lists(st.binary(max_size=40), max_size=10))
def test_property_decode_lines_gives_str_or_input_error(chunks):
    try:
        for line in decode_lines(chunks, name="fuzz"):
            assert isinstance(line, str)
    except InputError as err:
        assert err.message and "\n" not in err.message
