"""Wallet seed phrases: 12 to 24 words of the BIP-39 English list, a secret when a wallet word stands near them
("seed", "recovery words", "metamask") or when their own checksum holds, however they are written (spaces, commas,
hyphens, one to a line, numbered, capitalised).

The list is read at run time from the `mnemonic` package, which ships it as a data file. Without that package
only runs of short lowercase words after a wallet word are taken.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources

SEED_LENGTHS = (12, 15, 18, 21, 24)

# A run of at least twelve short words, however separated; the words are then checked one by one.
_WORD = r"(?:\d{1,2}[.)][ \t]{0,3})?[A-Za-z]{3,8}(?![A-Za-z])"
# "gravity-machine-...", "legal|winner|...", "legal.winner...", "letter/advice/..." too
_SEP = r"(?:[ \t]{0,3}[,;|/][ \t]{0,3}(?:\r?\n[ \t]{0,3})?|[ \t]{0,12}\r?\n[ \t]{0,3}|[ \t]{1,12}|[-_.])"  # columns: up to 12 spaces
_RUN = re.compile(rf"(?<![A-Za-z0-9]){_WORD}(?:{_SEP}{_WORD}){{11,47}}")
_WALLET_WORDS = re.compile(
    r"\b(?:seed|mnemonic|recovery|wallet|metamask|ledger|trezor|bip-?39|secret[ \t]+phrase|backup[ \t]+(?:phrase|words)"
    r"|(?:12|24|twelve|twenty-four)[ \t-]+words?)\b",
    re.I,
)
_CONTEXT = 120  # characters before a run that are read for a wallet word


@lru_cache(maxsize=1)
def bip39_words() -> dict[str, int] | None:
    """word -> its index in the BIP-39 English list, or None when the list is not installed."""
    try:
        text = resources.files("mnemonic").joinpath("wordlist/english.txt").read_text(encoding="utf-8")
    except (ImportError, OSError):
        return None
    words = text.split()
    return {w: i for i, w in enumerate(words)} if len(words) == 2048 else None


def checksum_holds(indexes: list[int]) -> bool:
    """BIP-39: the last len/3 bits of the words' 11-bit indexes are the first bits of the SHA-256 of the rest."""
    if len(indexes) not in SEED_LENGTHS:
        return False
    bits = "".join(f"{i:011b}" for i in indexes)
    size = len(bits) * 32 // 33
    entropy = int(bits[:size], 2).to_bytes(size // 8, "big")
    digest = hashlib.sha256(entropy).digest()
    want = f"{int.from_bytes(digest, 'big'):0256b}"[: len(bits) - size]
    return bits[size:] == want


def find_seed_phrases(text: str) -> Iterator[tuple[str, int, int]]:
    """("seed-phrase", start, end) of every seed phrase in `text`, first word to last."""
    for run in _RUN.finditer(text):
        words = [(m.start(), m.end(), m.group().lower()) for m in re.finditer(r"[A-Za-z]+", run.group())]
        for part in _listed_parts(words):
            start, end = run.start() + part[0][0], run.start() + part[-1][1]
            if _near_wallet_word(text, start, end) or _checks_alone(part) or _numbered_in_order(run.group()):
                yield ("seed-phrase", start, end)


def _numbered_in_order(run: str) -> bool:
    """Listed words numbered 1, 2, 3 ... up to a seed's length ("1.abandon 2.ability ..."): how a seed is written down."""
    numbers = [int(n) for n in re.findall(r"(?<![\w.])(\d{1,2})[.)]", run)]
    return len(numbers) in SEED_LENGTHS and numbers == list(range(1, len(numbers) + 1))


def _listed_parts(words: list[tuple[int, int, str]]) -> Iterator[list[tuple[int, int, str]]]:
    """Runs of twelve or more words that are all on the list (all short lowercase-able words without it)."""
    listed = bip39_words()
    part: list[tuple[int, int, str]] = []
    for word in [*words, None]:
        if word is not None and (word[2] in listed if listed is not None else 3 <= len(word[2]) <= 8):
            part.append(word)
            continue
        if len(part) >= SEED_LENGTHS[0]:
            yield part
        part = []


def _near_wallet_word(text: str, start: int, end: int) -> bool:
    return _WALLET_WORDS.search(text, max(0, start - _CONTEXT), end) is not None


def _checks_alone(part: list[tuple[int, int, str]]) -> bool:
    """Without a wallet word nearby: the whole run is a seed's length and passes the BIP-39 checksum (1 in 16 runs of
    twelve listed words do by chance; windows of a longer run are not tried, which would make chance hits common)."""
    listed = bip39_words()
    return listed is not None and checksum_holds([listed[w] for _, _, w in part])
