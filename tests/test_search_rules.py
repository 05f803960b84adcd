"""Search's filters at their edges, each from both sides: --since and --until keep a memory whose event time is the
very time given (the help says "at or after", "at or before") and drop it a second beyond; --source without glob
characters matches any part of a source's path, with them the whole path."""

from __future__ import annotations

import pytest
from conftest import SYDNEY

MOVED = "2024-06-20T09:15:00Z"  # m13's event time in the `bank` fixture (BANK_REVISION_2)


def _ids(cli, *args: str) -> list[str]:
    run = cli("search", "Alex lives in Sydney, in Surry Hills", "-f", "jsonl", "-n", "50", "--min-score", "0", *args)
    assert run.exit_code == 0, run.stderr
    return [hit["id"] for hit in run.jsonl()]


def test_the_bank_holds_the_fact_at_that_time(cli, bank):
    hit = cli("show", "m13", "-f", "json").json()
    assert hit["text"] == SYDNEY and hit["event_time"] == MOVED


@pytest.mark.parametrize("flag, value, kept", [
    ("--since", MOVED, True), ("--since", "2024-06-20T09:15:01Z", False), ("--since", "2024-06-20T09:14:59Z", True),
    ("--until", MOVED, True), ("--until", "2024-06-20T09:14:59Z", False), ("--until", "2024-06-20T09:15:01Z", True),
])
def test_since_and_until_keep_the_very_time_given(cli, bank, flag, value, kept):
    assert ("m13" in _ids(cli, flag, value)) is kept


def test_since_and_until_at_one_time_keep_what_happened_then(cli, bank):
    assert sorted(_ids(cli, "--since", MOVED, "--until", MOVED)) == ["m13", "m7"]  # the fact, and the message it came from


def test_a_source_without_glob_characters_matches_any_part_of_its_path(cli, bank):
    raw = _ids(cli, "--source", "alex")  # examples/alex.jsonl: the raw messages, m1 superseded and m4 deleted left out
    assert raw and all(int(i[1:]) <= 12 for i in raw)
    assert _ids(cli, "--source", "alex.jsonl") == raw
    assert _ids(cli, "--source", "*alex.jsonl") == raw  # a glob: the whole path
    assert _ids(cli, "--source", "alex.jsonl*x") == []
    assert _ids(cli, "--source", "alex*") == []  # a glob that must match from the path's start
