"""Instructions to an agent by example: tests/data/instruction_examples.json holds, per kind and per language, text
that is refused whoever says it (an override, a fake turn in markup, a download piped to a shell, data sent away),
rules that only the user may make for their agent in their own words, and text about the same things that is none."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from hymem_cli.screen.instructions import find_instruction

DATA = json.loads((ROOT / "tests" / "data" / "instruction_examples.json").read_text(encoding="utf-8"))


def _label(example: dict) -> str:
    return f"{example.get('kind', 'none')}-{example['lang']}-{example['text'][:30]}"


@pytest.mark.parametrize("example", DATA["always"], ids=_label)
def test_refused_whoever_says_it(example):
    for own in (False, True):  # the user's own words make no difference
        hit = find_instruction(example["text"], own=own)
        assert hit is not None and hit.kind == example["kind"], (own, hit)


@pytest.mark.parametrize("example", DATA["others"], ids=_label)
def test_a_rule_for_the_agent_is_the_users_own_to_make(example):
    hit = find_instruction(example["text"])
    assert hit is not None and hit.kind == example["kind"], hit
    assert find_instruction(example["text"], own=True) is None


@pytest.mark.parametrize("example", DATA["counter_examples"], ids=_label)
def test_talk_about_the_same_things_is_no_instruction(example):
    assert find_instruction(example["text"]) is None
