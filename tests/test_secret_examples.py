"""Secrets by example: tests/data/secret_examples.json holds, per kind and per language, secrets as people write them
(each provider's token prefixes, a password in every tense and in several languages, each card network's numbers
without a card word, IBANs of several countries) and text about the same things that holds none.

Each example must be found as its kind, covering the whole secret, and never reach the bank in clear; each
counter-example must be left as it is."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from hymem_cli.screen import Screen, find_secrets
from hymem_cli.screen.secrets import _luhn

DATA = json.loads((ROOT / "tests" / "data" / "secret_examples.json").read_text(encoding="utf-8"))


def _label(example: dict) -> str:
    return f"{example['kind']}-{example['lang']}-{example.get('brand') or example['text'][:30]}"


@pytest.mark.parametrize("example", DATA["examples"], ids=_label)
def test_each_example_is_found_as_its_kind_and_redacted(example):
    text, secret = example["text"], example["secret"]
    start = text.index(secret)
    end = start + len(secret)
    found = find_secrets(text)
    assert any(kind == example["kind"] and a <= start and b >= end for kind, a, b in found), found
    redacted = Screen().redact(text)[0]
    assert secret not in redacted and f"[REDACTED:{example['kind']}]" in redacted, redacted


@pytest.mark.parametrize("example", DATA["counter_examples"], ids=lambda e: f"{e['kind']}-{e['lang']}-{e['text'][:30]}")
def test_each_counter_example_is_left_as_it_is(example):
    assert find_secrets(example["text"]) == []
    assert Screen().redact(example["text"])[0] == example["text"]


def test_the_card_examples_are_valid_numbers_of_every_network():
    cards = [e for e in DATA["examples"] if e["kind"] == "card-number"]
    assert all(_luhn(e["secret"].replace(" ", "")) for e in cards)
    assert {e["secret"][:1] for e in cards} >= {"2", "3", "4", "5", "6"}  # Mastercard's 2-series, Amex/Diners/JCB, Visa, Mastercard, 6s
    assert {e["secret"][:2] for e in cards if e["secret"].startswith("6")} == {"60", "62", "67"}  # Discover, UnionPay, Maestro


def test_every_slack_token_prefix_is_covered():
    prefixes = {e["secret"][:4] for e in DATA["examples"] if e["kind"] == "slack-token"}
    assert prefixes == {"xoxa", "xoxb", "xoxo", "xoxp", "xoxr", "xoxs"}
