"""Calibrated relevance: a search result's score from its own text and vector alone, the same in any bank.

A score is read as the chance that the memory is one the query asks for. Three signals per candidate, each fixed
in scale (nothing is scaled over what else the query found):

- meaning: the cosine similarity of the query's vector and the memory's, as it is;
- words: the share of the query's words the memory holds, each word weighted by how few memories hold it
  (`word_weight`: a count of memories, not a share of the bank, so adding unrelated memories changes nothing);
- a named speaker (bank/search.py): 1 when the memory was said by, or names, a speaker the query names.

A writer's fact can add a fourth, BM25 over its source messages through the fixed saturating x / (x + SOURCES_SAT).
They are added by weight (search.*_weight, divided by the sum of the weights of meaning and words at hand) and
turned into a probability by a logistic curve whose scale and bias were fitted on the development set's questions
(bench/fit_scores.py): every candidate of every question, labelled relevant when it is one of the question's
evidence messages. On that set 4 in 10 results scoring 0.3-0.5 were evidence and about 2 in 3 of those scoring 0.5
or more; below 0.1, 1 in 100 (docs/benchmarks.md has the reliability table).
"""

from __future__ import annotations

import math
import re

# The logistic curve: score = 1 / (1 + exp(-(BIAS + SCALE * (vector_weight * cosine + text_weight * words
# + speaker_weight * speaker + sources_weight * sources)))). Fitted by bench/fit_scores.py; see the module docstring.
SCALE = 11.19
BIAS = -7.40
DF_NONE = 2000  # a word held by this many memories or more weighs WORD_FLOOR: it tells memories apart no more
WORD_FLOOR = 0.05
SOURCES_SAT = 5.0  # BM25 (positive) at which the sources signal is one half


def word_weight(held_by: int) -> float:
    """How much a query word counts, from how many memories hold it: 1 for one memory, falling with the log of the
    count to WORD_FLOOR at DF_NONE. A word no memory holds counts fully: the query asks for something absent."""
    if held_by <= 1:
        return 1.0
    return max(WORD_FLOOR, 1.0 - math.log(held_by) / math.log(DF_NONE))


def stem(word: str) -> str:
    """A crude stem, enough to see that "moved" and "move" or "lives" and "live" are one word."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"\w+", text.lower())}


def words_held(weights: dict[str, float], text: str) -> float:
    """The weighted share of the query's words (stem -> weight) that `text` holds, 0..1."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    held = stems(text)
    return sum(w for s, w in weights.items() if s in held) / total


def saturated(bm25: float) -> float:
    """A BM25 score (FTS5's, lower is better) as 0..1 through a fixed saturating curve."""
    x = max(0.0, -bm25)
    return x / (x + SOURCES_SAT)


def probability(evidence: float) -> float:
    """The weighted sum of a memory's signals as a score in 0..1 (the fitted logistic curve)."""
    z = BIAS + SCALE * evidence
    return 1.0 / (1.0 + math.exp(-z)) if z > -60 else 0.0
