"""The readers' small rules, each pinned: which keys name a session, what a log line that is not a turn
is, where each message starts (code fences included), which lines are redacted before a speaker is split
off, how a value quoted in an error is shortened, how JSON that cannot be read is
reported, and which fields give a message its id, session and time."""

from __future__ import annotations

import json

import pytest

from hymem_cli._errors import InputError
from hymem_cli.ingest.readers import detect_format, read_messages
from hymem_cli.screen import Screen


def read(objects: list, fmt: str, name: str = "log.jsonl") -> list:
    return list(read_messages([json.dumps(o) + "\n" for o in objects], fmt, name=name))


# JSON conversations: the session's id


@pytest.mark.parametrize(("keys", "expected"), [
    ({"session": "s-a", "session_id": "s-b", "id": "s-c"}, "s-a"),
    ({"session_id": "s-b", "id": "s-c"}, "s-b"),
    ({"id": "s-c"}, "s-c"),
    ({"session_id": 7}, "7"),
    ({"session": " ", "session_id": "", "id": "s-c"}, "s-c"),  # blank names none
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


def test_markdown_a_bold_name_on_the_first_line_is_a_speaker_not_the_title():
    assert md("**Alex:** I live in Seattle.\n## Sam\nNice.\n") == [("Alex", "I live in Seattle.", 1), ("Sam", "Nice.", 2)]


def test_detection_a_bold_name_on_the_first_line_is_evidence_of_markdown():
    assert detect_format(["**Alex:** I live in Seattle.\n", "Since 2021.\n"]) == "markdown"


# Markdown: code fences


@pytest.mark.parametrize("fence", ["```", "~~~", "  ```"])
def test_markdown_a_heading_inside_a_code_fence_is_content(fence):
    doc = f"## Alex\nUse this:\n{fence}\n## not a speaker\n{fence}\n## Sam\nThanks.\n"
    assert md(doc) == [("Alex", f"Use this:\n{fence}\n## not a speaker\n{fence}", 1), ("Sam", "Thanks.", 6)]


@pytest.mark.parametrize("line", ["\t```", "X ```y```"])
def test_markdown_backticks_after_a_tab_or_other_text_open_no_code_fence(line):
    assert md(f"## Alex\n{line}\n## Sam\nThanks.\n") == [("Alex", line.strip(), 1), ("Sam", "Thanks.", 3)]


def test_detection_a_speaker_heading_inside_a_code_fence_is_no_evidence_of_markdown():
    assert detect_format(["Some notes\n", "```\n", "code\n", "## User\n", "```\n", "more notes\n"]) == "text"


# Redaction while reading: "Password: hunter2" is one secret, not a speaker saying "hunter2"


def redacted(doc: str, fmt: str) -> list[tuple]:
    messages = read_messages(doc.splitlines(True), fmt, name="x", redact_line=Screen().redact_line)
    return [(m.speaker, m.text, m.line) for m in messages]


@pytest.mark.parametrize(("fmt", "doc"), [
    ("speaker", "Password: tr0ub4dor&3\n"),
    ("markdown", "**Password:** tr0ub4dor&3\n"),
])
def test_a_secret_on_the_line_of_its_label_is_redacted(fmt, doc):
    assert redacted(doc, fmt) == [("Password", "[REDACTED:password]", 1)]


@pytest.mark.parametrize("doc", ["## Password\ntr0ub4dor&3\n", "## Password\n\ntr0ub4dor&3\n", "**Password:**\ntr0ub4dor&3\n"])
def test_markdown_a_secret_on_the_line_under_an_empty_label_is_redacted(doc):
    assert redacted(doc, "markdown") == [("Password", "[REDACTED:password]", 1)]


def test_speaker_a_secret_on_the_line_under_a_bare_label_is_redacted():
    texts = [text for _, text, _ in redacted("Password:\ntr0ub4dor&3\n", "speaker")]
    assert "[REDACTED:password]" in "".join(texts)
    assert "tr0ub4dor&3" not in "".join(texts)


def recording_redactor(seen: list[str]):
    def redact(line: str) -> str:
        seen.append(line)
        return line
    return redact


def test_speaker_the_redactor_gets_each_line_that_opens_a_message_and_no_other():
    seen = []
    doc = "Notes first\nAlex: hi\nmore from Alex\nSam: bye\n"
    messages = list(read_messages(doc.splitlines(True), "speaker", name="x", redact_line=recording_redactor(seen)))
    assert seen == ["Alex: hi\n", "Sam: bye\n"]
    assert [(m.speaker, m.text) for m in messages] == [(None, "Notes first"), ("Alex", "hi\nmore from Alex"), ("Sam", "bye")]


def test_markdown_the_redactor_gets_the_first_line_under_an_empty_label_as_if_it_followed_the_label():
    seen = []
    doc = "Notes first\n## Alex\nhi\nmore from Alex\n**Sam:** hello\nmore from Sam\n## Password\n\ntr0ub4dor&3\nafter it\n"
    messages = list(read_messages(doc.splitlines(True), "markdown", name="x", redact_line=recording_redactor(seen)))
    assert seen == ["## Alex\n", "Alex: hi\n", "**Sam:** hello\n", "## Password\n", "Password: tr0ub4dor&3\n"]
    assert [(m.speaker, m.text, m.line) for m in messages] == [
        (None, "Notes first", 1), ("Alex", "hi\nmore from Alex", 2), ("Sam", "hello\nmore from Sam", 5),
        ("Password", "tr0ub4dor&3\nafter it", 7)]


# JSON that cannot be read: the file, the line, what is wrong, and what to do


def jsonl_error(lines: list[str], name: str = "chat.jsonl") -> InputError:
    with pytest.raises(InputError) as caught:
        list(read_messages([line + "\n" for line in lines], "jsonl", name=name))
    return caught.value


def test_a_line_that_is_not_json_names_the_line_and_column_and_says_how_to_go_on():
    error = jsonl_error(['{"role": "user", "content": "hi"}', "{oops"])
    assert str(error) == "chat.jsonl line 2: invalid JSON (Expecting property name enclosed in double quotes at column 2)"
    assert error.hint == "fix or remove that line, or force another format with --input-format"


def test_json_nested_too_deeply_to_read_names_the_line():
    error = jsonl_error(['{"role": "user", "content": "hi"}', "", "[" * 100_000 + "]" * 100_000])
    assert str(error) == "chat.jsonl line 3: unreadable JSON (nested too deeply)"
    assert error.hint == "fix or remove that line"


def test_a_number_too_long_to_read_names_the_line_and_says_why():
    error = jsonl_error(['{"role": "user", "content": "hi"}', '{"role": "user", "content": "hi", "n": ' + "1" * 5000 + "}"])
    assert str(error).startswith("chat.jsonl line 2: unreadable JSON (Exceeds the limit (4300 digits) for integer string conversion")
    assert "value has 5000 digits" in str(error)
    assert error.hint == "fix or remove that line"


# JSON messages: what is a message, its id, its session, its time


@pytest.mark.parametrize("key", ["text", "content"])
def test_a_message_that_also_carries_a_messages_list_is_a_message_not_a_conversation(key):
    doc = [{"role": "user", key: "I moved to Lisbon.", "messages": [{"role": "user", "content": "Quoted, not said."}]}]
    assert [m.text for m in read_messages([json.dumps(doc)], "json", name="chat.json")] == ["I moved to Lisbon."]


@pytest.mark.parametrize("call", [{"tool_calls": [{"id": "c1", "function": {"name": "f"}}]}, {"function_call": {"name": "f"}}])
def test_a_tool_call_without_text_is_passed_over(call):
    got = read([{"role": "assistant", **call}, {"role": "user", "content": "Thanks."}], "jsonl")
    assert [(m.text, m.line) for m in got] == [("Thanks.", 2)]


@pytest.mark.parametrize(("value", "expected"), [(3, "3"), (3.0, "3"), (2.5, "2.5"), ("m-1", "m-1"), ("", "LINE:1"), (" \t", "LINE:1")])
def test_a_message_id_is_its_string_or_number_and_an_empty_one_falls_back_to_the_line(value, expected):
    [message] = read([{"id": value, "role": "user", "content": "hi"}], "jsonl")
    assert message.id == expected


@pytest.mark.parametrize(("value", "kind"), [(True, "true"), ([1], "a list"), ({"n": 1}, "an object")])
def test_a_message_id_that_is_neither_string_nor_number_is_an_error_saying_what_it_is(value, kind):
    with pytest.raises(InputError) as caught:
        read([{"role": "user", "content": "hi"}, {"id": value, "role": "user", "content": "hi"}], "jsonl", name="chat.jsonl")
    assert str(caught.value) == f'chat.jsonl line 2: "id" must be a string or a number, got {kind}'
    assert caught.value.hint.startswith('each message must be an object with a "text" or "content" string')


@pytest.mark.parametrize(("keys", "expected"), [
    ({"session_id": "s-2"}, "s-2"),
    ({"session": "s-1", "session_id": "s-2"}, "s-1"),
    ({"session": "", "session_id": "s-2"}, "s-2"),
    ({"session": True, "session_id": "s-2"}, "s-2"),
    ({"session_id": 4.0}, "4"),
    ({"session_id": 4.5}, "4.5"),
])
def test_a_message_names_its_session_by_session_then_session_id(keys, expected):
    [message] = read([{**keys, "role": "user", "content": "hi"}], "jsonl")
    assert message.session == expected


def test_a_conversation_with_an_empty_session_is_named_by_its_id():
    doc = {"session": "", "id": "c-1", "messages": [{"role": "user", "content": "I moved to Lisbon."}]}
    [message] = read_messages([json.dumps(doc)], "json", name="chat.json")
    assert message.session == "c-1"


def test_an_empty_time_field_is_passed_over_for_the_next_one():
    [message] = read([{"role": "user", "content": "hi", "timestamp": "", "time": "2024-05-01T10:00:00Z"}], "jsonl")
    assert message.timestamp == "2024-05-01T10:00:00Z"


# Detection: JSON lines with a "type" field are not taken for an agent's session log


@pytest.mark.parametrize("extra", [
    {"type": "message", "payload": {"source": "app"}},
    {"type": "message", "sessionId": "s-1"},
    {"type": "user"},
])
def test_json_lines_with_a_type_field_are_read_as_messages_not_as_a_session_log(extra):
    lines = [json.dumps({**extra, "role": "user", "content": "I moved to Lisbon."}) + "\n"]
    assert detect_format(lines) == "jsonl"
    assert [m.text for m in read_messages(lines, name="chat.jsonl")] == ["I moved to Lisbon."]
