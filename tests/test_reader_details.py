"""The readers' small rules, each pinned: which keys name a session, what a log line that is not a turn
is, where each message starts, and how a value quoted in an error is shortened."""

from __future__ import annotations

import json

import pytest

from hymem_cli._errors import InputError
from hymem_cli.ingest.readers import read_messages


def read(objects: list, fmt: str, name: str = "log.jsonl") -> list:
    return list(read_messages([json.dumps(o) + "\n" for o in objects], fmt, name=name))


# JSON conversations: the session's id


@pytest.mark.parametrize(("keys", "expected"), [
    ({"session": "s-a", "session_id": "s-b", "id": "s-c"}, "s-a"),
    ({"session_id": "s-b", "id": "s-c"}, "s-b"),
    ({"id": "s-c"}, "s-c"),
    ({"session_id": 7}, "7"),
])
def test_a_conversation_names_its_session_by_session_then_session_id_then_id(keys, expected):
    doc = {**keys, "messages": [{"role": "user", "content": "I moved to Lisbon."}]}
    [message] = read_messages([json.dumps(doc)], "json", name="chat.json")
    assert message.session == expected


# A value quoted in an error: JSON, as written, cut to 40 characters


def bad_time_error(value: str) -> str:
    with pytest.raises(InputError) as caught:
        list(read_messages([json.dumps({"role": "user", "content": "hi", "timestamp": value}) + "\n"], "jsonl", name="t.jsonl"))
    return str(caught.value)


def test_a_quoted_value_of_forty_characters_is_shown_whole():
    value = "x" * 38  # 40 with its quotes
    assert f'"timestamp" value "{value}" as a time' in bad_time_error(value)


def test_a_longer_quoted_value_is_cut_to_forty_characters_with_an_ellipsis():
    value = "y" * 39  # 41 with its quotes
    message = bad_time_error(value)
    assert f'"timestamp" value "{"y" * 36}... as a time' in message  # 37 characters and "..."


def test_a_quoted_value_keeps_its_own_letters():
    assert '"timestamp" value "übermorgen früh" as a time' in bad_time_error("übermorgen früh")


# Claude Code


def claude(kind: str = "user", text: str = "We deploy on Fly.io.", **extra) -> dict:
    return {"type": kind, "message": {"role": kind, "content": text}, "uuid": f"u-{text[:8]}", **extra}


def test_claude_code_a_line_that_is_not_an_object_names_the_file_and_line():
    with pytest.raises(InputError, match=r"^session\.jsonl line 2: expected a JSON object, got a list"):
        read([claude(), [1, 2]], "claude-code", name="session.jsonl")


def test_claude_code_a_turn_whose_message_is_not_an_object_is_left_out():
    assert [m.text for m in read([{"type": "user", "message": "not an object"}, claude()], "claude-code")] == ["We deploy on Fly.io."]


@pytest.mark.parametrize("flag", ["isSidechain", "isMeta", "isCompactSummary", "isApiErrorMessage"])
def test_claude_code_each_kind_of_turn_that_is_not_the_users_words_is_left_out_on_its_own(flag):
    got = read([claude(text="Not said by anyone here.", **{flag: True}), claude(text="Said by the user.")], "claude-code")
    assert [m.text for m in got] == ["Said by the user."]


# Codex


def codex_turn(role: str, text: str, block: str = "input_text", kind: str = "response_item") -> dict:
    return {"type": kind, "timestamp": "2026-11-02T10:00:00Z",
            "payload": {"type": "message", "role": role, "content": [{"type": block, "text": text}]}}


def test_codex_a_line_that_is_not_an_object_names_the_file_and_line():
    with pytest.raises(InputError, match=r"^rollout\.jsonl line 1: expected a JSON object"):
        read(["just a string"], "codex", name="rollout.jsonl")


def test_codex_turns_before_the_session_line_have_no_session_and_later_ones_have_it():
    got = read([codex_turn("user", "First."),
                {"type": "session_meta", "payload": {"id": "rollout-1"}},
                codex_turn("user", "Second.")], "codex")
    assert [(m.text, m.session) for m in got] == [("First.", None), ("Second.", "rollout-1")]


def test_codex_a_line_without_a_payload_object_is_passed_over_not_the_end():
    got = read([{"type": "response_item", "payload": "odd"}, {"type": "event_msg"}, codex_turn("user", "Still read.")], "codex")
    assert [m.text for m in got] == ["Still read."]


def test_codex_a_message_shaped_payload_outside_a_response_item_is_not_a_turn():
    got = read([codex_turn("user", "An echo of the turn.", kind="event_msg"), codex_turn("user", "The turn.")], "codex")
    assert [m.text for m in got] == ["The turn."]


@pytest.mark.parametrize("block", ["input_text", "output_text", "text"])
def test_codex_reads_each_kind_of_text_block(block):
    assert [m.text for m in read([codex_turn("assistant", "Done.", block=block)], "codex")] == ["Done."]


def test_codex_messages_carry_the_line_they_start_on():
    got = read([{"type": "session_meta", "payload": {"id": "r"}}, codex_turn("user", "One."), {"type": "event_msg", "payload": {}},
                codex_turn("assistant", "Two.")], "codex")
    assert [(m.id, m.line) for m in got] == [("LINE:2", 2), ("LINE:4", 4)]


# Content given as parts


def test_content_parts_keep_strings_and_text_parts_in_order_and_nothing_else():
    parts = [{"type": "text", "text": "One."}, "Two.", {"type": "image_url", "image_url": {"url": "x.png"}},
             {"text": "Three."}, {"type": "input_text", "text": "Four."}, {"type": "output_text", "text": "Five."},
             {"type": "tool_use", "text": "not said"}, {"type": "text", "text": 6}]
    [message] = read([{"role": "user", "content": parts}], "jsonl")
    assert message.text == "One.\nTwo.\nThree.\nFour.\nFive."


# Session logs: what a line that is not a turn is


@pytest.mark.parametrize(("line", "kind"), [("null", "null"), ("true", "true"), ("false", "false"), ("3", "a number"),
                                            ('"hi"', "a string"), ("[]", "a list")])
def test_a_session_log_line_that_is_not_an_object_says_what_it_is(line, kind):
    with pytest.raises(InputError) as caught:
        list(read_messages([json.dumps(claude()) + "\n", line + "\n"], "claude-code", name="session.jsonl"))
    assert str(caught.value) == f"session.jsonl line 2: expected a JSON object, got {kind}"
    assert caught.value.hint == "a session log has one JSON object a line; force another format with --input-format"


def test_a_session_log_line_that_is_not_json_names_the_file():
    with pytest.raises(InputError, match=r"^session\.jsonl line 2: invalid JSON"):
        list(read_messages([json.dumps(claude()) + "\n", "{oops\n"], "claude-code", name="session.jsonl"))


def test_blank_lines_in_a_session_log_are_passed_over():
    lines = [json.dumps(claude(text="Before.")) + "\n", "\n", "   \n", json.dumps(claude(text="After.")) + "\n"]
    assert [(m.text, m.line) for m in read_messages(lines, "claude-code")] == [("Before.", 1), ("After.", 4)]


def test_session_log_content_that_is_neither_text_nor_blocks_says_nothing():
    got = read([{"type": "user", "message": {"role": "user", "content": 5}}, claude(text="Said.")], "claude-code")
    assert [m.text for m in got] == ["Said."]


def test_blocks_of_other_kinds_are_left_out_even_when_they_carry_text():
    turn = codex_turn("assistant", "Done.")
    turn["payload"]["content"].insert(0, {"type": "reasoning", "text": "Thinking it over."})
    assert [m.text for m in read([turn], "codex")] == ["Done."]


def test_every_reminder_block_is_cut_out_and_the_words_between_them_kept():
    text = "Move the API.<system-reminder>a</system-reminder> Use Fly.io<system-reminder>b</system-reminder>, not Heroku."
    assert [m.text for m in read([claude(text=text)], "claude-code")] == ["Move the API. Use Fly.io, not Heroku."]


# JSON documents: the errors name the file and say how to write it


def test_a_session_that_is_not_a_conversation_is_named_with_how_to_write_it():
    with pytest.raises(InputError) as caught:
        list(read_messages([json.dumps({"sessions": [{"messages": []}, 5]})], "json", name="chat.json"))
    assert str(caught.value) == 'chat.json: session 2 is not an object with a "messages" list'
    assert caught.value.hint == 'write sessions as {"sessions": [{"id": "s1", "messages": [...]}]}'


def test_a_document_that_holds_no_messages_is_named_with_how_to_write_it():
    with pytest.raises(InputError) as caught:
        list(read_messages(['"just words"'], "json", name="chat.json"))
    assert str(caught.value) == 'chat.json: expected a list of messages or an object with a "messages" list, got a string'
    assert caught.value.hint == 'write [{"role": "user", "content": "hi"}, ...] or {"messages": [...]}'


# Markdown: text before the first speaker, and when a top heading is a title


def md(doc: str) -> list[tuple]:
    return [(m.speaker, m.text, m.line) for m in read_messages(doc.splitlines(True), "markdown", name="x.md")]


def test_markdown_text_before_the_first_speaker_is_a_message_of_its_own_with_its_line():
    assert md("Notes from the call\n\n## Alex\nHi there\n") == [(None, "Notes from the call", 1), ("Alex", "Hi there", 3)]


def test_markdown_a_top_heading_after_some_text_is_a_speaker_not_the_title():
    assert md("Some intro\n# Alex\nhello\n## Sam\nhi\n") == [(None, "Some intro", 1), ("Alex", "hello", 2), ("Sam", "hi", 4)]


def test_markdown_a_top_heading_after_the_first_speaker_is_a_speaker_not_the_title():
    assert md("## Alex\nhi\n# Sam\nhello\n## Alex\nbye\n") == [("Alex", "hi", 1), ("Sam", "hello", 3), ("Alex", "bye", 5)]


def test_markdown_a_top_heading_on_the_first_line_is_the_documents_title():
    assert md("# Chat export\n## Alex\nhi\n") == [("Alex", "hi", 2)]


def test_markdown_a_top_heading_right_after_an_empty_speaker_heading_is_a_speaker():
    assert md("## Alex\n# Sam\nhello\n## Alex\nbye\n") == [("Sam", "hello", 2), ("Alex", "bye", 4)]
