"""Wallet seed phrases: 12 to 24 words of one BIP-39 list (English, Spanish, French, Italian, Portuguese, Czech,
Turkish, Russian, Japanese, Korean, Chinese), a secret when a wallet word stands near them ("seed", "recovery words",
"frase semilla", "助记词") or when their own checksum holds, however they are written (spaces, commas, hyphens, one to a
line, numbered, capitalised, accents left off).

The lists are read at run time from the `mnemonic` package, which ships them as data files. Without that package
only runs of short lowercase words after a wallet word are taken.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources

SEED_LENGTHS = (12, 15, 18, 21, 24)
LANGUAGES = ("english", "spanish", "french", "italian", "portuguese", "czech", "turkish", "russian", "japanese", "korean",
             "chinese_simplified", "chinese_traditional")

# A run of at least twelve words, however separated; the words are then checked one by one, list by list.
# a word's letters, with the combining marks of decomposed text ("さ" and U+3099 for "ざ", as a list copied raw is written)
_LETTERS = r"(?:[^\W\d_][\u0300-\u036f\u3099\u309a]?)"
_QUOTE = "[\"'‘’“”`]?"  # a list in code: ['beyond', 'special', ...]
_WORD = rf"(?:\(?\d{{1,2}}(?:[.):\-,;][ \t]{{0,3}}|[ \t]{{1,3}}))?{_QUOTE}{_LETTERS}{{1,12}}{_QUOTE}(?![^\W\d_])"  # "1,illness" in a CSV
# "gravity-machine-...", "legal|winner|...", "legal.winner...", "letter/advice/..." too; Japanese lists use U+3000; two
# columns ("1. legal      13. winner", " 1 legal    9 winner", "1-legal   13-winner") are up to 24 spaces apart ("..., act and bind")
_SEP = (r"(?:[ \t\u3000]{0,3}[,;|/、，][ \t\u3000]{0,3}(?:\r?\n[ \t]{0,3})?|[ \t]{0,24}\r?\n[ \t]{0,12}|[ \t\u3000]{1,24}|[-_.]"
        # strings of code joined across lines: "orbit rival sketch humble"\n    " canal velvet ..."
        r"|[\"'][ \t]{0,3}\+?[ \t]{0,3}\r?\n[ \t]{0,12}\+?[ \t]{0,3}[\"'][ \t]{0,2})")
_RUN = re.compile(rf"(?<![^\W_]){_WORD}(?:{_SEP}{_WORD}){{11,199}}")  # a seed after prose runs on: not cut at 48 words
_WALLET_WORDS = re.compile(
    # (also inside an identifier: "Account.from_mnemonic(...)", "seed_words")
    r"(?<![^\W_])(?:seed|mnemonic|recovery|wallet|metamask|ledger|trezor|bip-?39|secret[ \t]+phrase|backup[ \t]+(?:phrase|words)"
    # wallets by name
    r"|sparrow|electrum|exodus|phantom|coldcard|bitbox\d?|keystone|seedsigner|wasabi|samourai|coinomi|keplr|rabby|zengo|tangem"
    r"|bluewallet|muun|nunchuk|specter|trust[ \t]+wallet|atomic[ \t]+wallet|coinbase[ \t]+wallet"
    r"|(?:12|24|twelve|twenty-four)[ \t-]+words?|hd-?wallet"
    # other languages: a seed, a recovery phrase, a wallet
    r"|semilla|semente|graine|seme|mnemo\w*|mnemónic\w*|frases?[ \t]+(?:secreta|de[ \t]+recupera\w+|di[ \t]+recupero)"
    r"|palabras[ \t]+de[ \t]+recuperación|palavras[ \t]+de[ \t]+recupera\w+|phrase[ \t]+(?:secrète|de[ \t]+récupération)"
    r"|mots[ \t]+de[ \t]+récupération|parole[ \t]+di[ \t]+recupero|billetera|cartera|portefeuille|portafoglio|carteira"
    r"|obnovovací|peněženk\w*|kurtarma|cüzdan\w*|Wiederherstellungs\w*|herstelzin|кошел[её]к\w*|сид|фраз\w+|мнемони\w*"
    r"|시드|니모닉|복구|지갑)(?![^\W_])"
    r"|助记词|助記詞|钱包|錢包|种子|種子|ウォレット|復元|ニーモニック"  # no word boundary between kana and kanji
    r"|(?<=[a-z])(?-i:Mnemonic|Seed|Wallet)(?![a-z])",  # inside a name in camel case: "hdwallet.NewFromMnemonic(...)"
    re.I,
)
_CONTEXT = 160  # characters before a run that are read for a wallet word


def _key(word: str) -> str:
    return word.lower() if word.isascii() else unicodedata.normalize("NFC", word).casefold()


def _bare(word: str) -> str:
    """The word without its accents: "abaco" for "ábaco", as seeds are often typed."""
    if word.isascii():
        return word.casefold()
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c)).casefold()


@lru_cache(maxsize=1)
def word_lists() -> dict[str, dict[str, int]]:
    """language -> (word -> its index in that BIP-39 list), each word also without its accents; {} without the lists."""
    lists: dict[str, dict[str, int]] = {}
    for language in LANGUAGES:
        try:
            words = resources.files("mnemonic").joinpath(f"wordlist/{language}.txt").read_text(encoding="utf-8").split()
        except (ImportError, OSError):
            continue
        if len(words) == 2048:
            index = {_bare(w): i for i, w in enumerate(words)}
            index.update({_key(w): i for i, w in enumerate(words)})
            lists[language] = index
    return lists


@lru_cache(maxsize=1)
def _any_list() -> frozenset[str]:
    return frozenset(word for index in word_lists().values() for word in index)


def bip39_words() -> dict[str, int] | None:
    """word -> its index in the BIP-39 English list, or None when the list is not installed."""
    return word_lists().get("english")


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
    """("seed-phrase", start, end) of every seed phrase in `text`, first word to last, and of every SeedQR's digits."""
    yield from find_seedqr_digits(text)
    yield from _run_together(text)
    yield from _bit_rows(text)
    yield from _cut_short(text)
    yield from _other_lists_seeds(text)
    found = list(_listed_runs(text))
    yield from found
    if _WALLET_WORDS.search(text) and (plain := _words_only(text)) != text:  # "legal(1) winner(2) ...", "legal • winner • ..."
        yield from (span for span in _listed_runs(plain) if span not in found)


# signs and digits set between a seed's words, read as spaces (the same length, so the spans stay where they are)
_BETWEEN_WORDS = re.compile(r"[\d•·∙‧+#()\[\]{}<>«»\"“”‘’*~^.]")
_CYRILLIC_AS_LATIN = str.maketrans("аеорсухікАЕОРСХІК", "aeopcyxikAEOPCXIK")


def _words_only(text: str) -> str:
    """`text` with the signs and digits between words as spaces, and a Latin word's Cyrillic look-alike letters as Latin
    ("legаl" with a Cyrillic "а")."""
    plain = _BETWEEN_WORDS.sub(" ", text)
    return re.sub(r"\w+", lambda m: m.group().translate(_CYRILLIC_AS_LATIN)
                  if re.search(r"[a-zA-Z]", m.group()) and re.search(r"[\u0400-\u04ff]", m.group()) else m.group(), plain)


def _listed_runs(text: str) -> Iterator[tuple[str, int, int]]:
    if "|" in text:  # a table's bars read as spaces, the same length: "| 1 | glimpse |" is "1 glimpse"
        text = text.replace("|", " ")
    if _RANGE_LABEL.search(text):  # " 7–12  hello zoo ...": a line's range of word numbers read as spaces
        text = _RANGE_LABEL.sub(lambda m: " " * len(m.group()), text)
    for run in _RUN.finditer(text):
        words = [(m.start(), m.end(), _key(m.group())) for m in re.finditer(rf"{_LETTERS}+", run.group())]
        if len(words) > 2 and words[-2][2] == "and":  # "..., act and bind": the last word follows "and"
            del words[-2]
        found: set[int] = set()  # a run on two lists (Spanish and Portuguese share words) is one seed
        for part, index in _listed_parts(words):
            start, end = run.start() + part[0][0], run.start() + part[-1][1]
            if start in found:
                continue
            if _the_list_itself(part, index) and _NAMES_THE_LIST.search(text, max(0, start - 120), start):
                continue  # "the English list starts with: abandon, ability, able ...": the list itself, not anyone's seed
            if max(Counter(w for _, _, w in part).values()) * 2 > len(part) \
                    and _A_TEST_VECTOR.search(text, max(0, start - 200), min(len(text), end + 200)):
                continue  # "the spec's test vector ... abandon abandon ... about": nobody's wallet
            if _near_wallet_word(text, start, end) or _checks_alone(part, index) or _numbered_in_order(run.group()) \
                    or _count_stated(text, start, len(part)):
                found.add(start)
                number = _FIRST_NUMBER.search(text, max(0, start - 8), start)  # " 1. elder ...": its number goes too
                yield ("seed-phrase", number.start() if number else start, end)


_A_TEST_VECTOR = re.compile(r"\btest(?:[ \t\-]?vectors?|ing|s)?\b|\bexamples?\b|\bsample\b|\bdummy\b|\bspec(?:ification)?\b", re.I)
_FIRST_NUMBER = re.compile(r"(?<![\w.])[(#]?\d{1,2}[.):]?[ \t]{1,8}\Z")
_RANGE_LABEL = re.compile(r"(?m)^[ \t]*\d{1,2}[ \t]*[\-\u2013\u2014][ \t]*\d{1,2}[ \t]*[:.)]?[ \t]+(?=[^\W\d_])")
_NAMES_THE_LIST = re.compile(r"\b(?:word\s?list|list|english\.txt|alphabetical|dictionary)\b", re.I)


def _the_list_itself(part: list[Word], index: dict[str, int] | None) -> bool:
    """Whether the words are a stretch of the word list in its own order, each the next word of the list."""
    numbers = [index.get(word[2], -2) for word in part] if index else []
    return len(numbers) > 1 and all(b == a + 1 for a, b in zip(numbers, numbers[1:]))


# A Standard SeedQR written out: each word's index in the English list as four digits, 12 or 24 words. Every group of
# four is below 2048, which 48 digits by chance are about once in 200 million.
_SEEDQR = re.compile(r"(?<!\d)(?:\d{96}|\d{48})(?!\d)")


# or the words' numbers in groups of four, as stamped on a steel plate: "1131 1333 1577 1125 / 0782 ..." (1-based or not),
# the lines perhaps labelled: "Plate A (front):  0417  1893 ..."
_WORD_NUMBERS = re.compile(r"(?<![\d\-.,/:])\d{4}(?:(?:[ \t]{1,3}|[ \t]*\n(?:[^\n\d:]{1,30}:)?[ \t]*)\d{4}){11,23}(?![\d\-/:]|[.,]\d)")
_NUMBERS_ON_A_LINE = re.compile(r"\d{4}(?:[ \t]{1,3}\d{4})*")


def find_seedqr_digits(text: str) -> Iterator[tuple[str, int, int]]:
    """("seed-phrase", start, end) of every SeedQR digit string in `text`, and of a seed's word numbers in groups."""
    for m in _SEEDQR.finditer(text):
        digits = m.group()
        if all(int(digits[i:i + 4]) < 2048 for i in range(0, len(digits), 4)):
            yield ("seed-phrase", m.start(), m.end())
    for m in _WORD_NUMBERS.finditer(text):
        numbers = [int(n) for n in re.findall(r"\d{4}", m.group())]
        if len(numbers) in SEED_LENGTHS and max(numbers) <= 2048 and min(numbers) < 1900:  # not a run of years
            yield from (("seed-phrase", m.start() + n.start(), m.start() + n.end()) for n in _NUMBERS_ON_A_LINE.finditer(m.group()))


# Seeds from lists other than BIP-39's, where the text names them: a Shamir share (SLIP-39: 20 or 33 words, "Share 1 of
# 3:"), Monero's 25 words (or 13, or Polyseed's 16), lnd's aezeed (24); any lowercase words, as the lists are not read
_OTHER_SEED = re.compile(r"(?i:shamir|slip-?39|\bshares?\s+\d+\s+of\s+\d+|monero|polyseed|aezeed|\b(?:13|16|20|25|33)\s+words\b)")
_OTHER_SEED_LENGTHS = (13, 16, 20, 24, 25, 33)
_LOWER_RUN = re.compile(r"(?<![A-Za-z])[a-z]{3,12}(?:(?:[ \t]+|[ \t]*\n[ \t]*)[a-z]{3,12}){12,32}(?![A-Za-z])")


def _other_lists_seeds(text: str) -> Iterator[tuple[str, int, int]]:
    if _OTHER_SEED.search(text):
        yield from (("seed-phrase", *m.span()) for m in _LOWER_RUN.finditer(text) if len(m.group().split()) in _OTHER_SEED_LENGTHS)


# The words run together, each capitalised, to look like junk: "BitterRippleShoulderPermit..."
_CAMEL_RUN = re.compile(r"(?<![A-Za-z])(?:[A-Z][a-z]{2,7}){12,24}(?![A-Za-z])")


def _run_together(text: str) -> Iterator[tuple[str, int, int]]:
    english = bip39_words() or {}
    for m in _CAMEL_RUN.finditer(text) if english else ():
        words = [w.lower() for w in re.findall(r"[A-Z][a-z]+", m.group())]
        if len(words) in SEED_LENGTHS and all(w in english for w in words):
            yield ("seed-phrase", m.start(), m.end())


# Each word cut to its first four letters, which is all BIP-39 needs, as stamped into steel: "GARD TIGE OCEA RABB ..."
# (numbered "7. LUMB" or " 7 LUMB", in two columns too)
_SHORT_RUN = re.compile(r"(?<![A-Za-z])[A-Za-z]{3,4}(?:(?:[ \t,]+|[ \t,]*\n[ \t]*)(?:\d{1,2}(?:[.):][ \t]*|[ \t]+))?[A-Za-z]{3,4}){11,40}"
                        r"(?![A-Za-z])")


@lru_cache(maxsize=1)
def _english_prefixes() -> frozenset[str]:
    return frozenset(word[:4] for word in bip39_words() or {} if word.isascii())


def _cut_short(text: str) -> Iterator[tuple[str, int, int]]:
    prefixes = _english_prefixes()
    for m in _SHORT_RUN.finditer(text) if prefixes else ():
        words = [w for w in re.finditer(r"[A-Za-z]+", m.group()) if w.group().lower() in prefixes]
        runs: list[list[re.Match[str]]] = []
        for w in words:  # the longest runs of such words, nothing else between: "... PION\nDid I" ends at PION
            if runs and not re.search(r"[A-Za-z]", m.group()[runs[-1][-1].end():w.start()]):
                runs[-1].append(w)
            else:
                runs.append([w])
        for run in runs:
            if len(run) in SEED_LENGTHS and sum(len(w.group()) == 4 for w in run) * 4 >= len(run) * 3:
                start, end = m.start() + run[0].start(), m.start() + run[-1].end()
                if _near_wallet_word(text, start, end):
                    yield ("seed-phrase", start, end)


# Each word as its 11 bits, a row a word, as punched on a steel plate ("01  10100011111"); the checksum decides.
_BIT_ROW = re.compile(r"(?m)^[ \t]*(?:\d{1,2}[.):]?[ \t]+)?([01]{11})[ \t]*$")


def _bit_rows(text: str) -> Iterator[tuple[str, int, int]]:
    rows: list[re.Match[str]] = []
    for m in [*_BIT_ROW.finditer(text), None]:
        if m is not None and (not rows or text.count("\n", rows[-1].end(), m.start()) <= 1):
            rows.append(m)
            continue
        if len(rows) in SEED_LENGTHS and checksum_holds([int(r.group(1), 2) for r in rows]):
            yield ("seed-phrase", rows[0].start(1), rows[-1].end(1))
        rows = [m] if m is not None else []


def _numbered_in_order(run: str) -> bool:
    """Listed words numbered 1, 2, 3 ... up to a seed's length ("1.abandon 2.ability ...", "(1) abandon", or in two
    columns, 1 beside 13): how a seed is written down."""
    numbers = [int(n) for n in re.findall(r"(?<![\w.])\(?(\d{1,2})(?:[.):\-,;]|[ \t](?=[ \t]{0,2}[^\W\d_]))", run)]
    return len(numbers) in SEED_LENGTHS and sorted(numbers) == list(range(1, len(numbers) + 1))


Word = tuple[int, int, str]


def _listed_parts(words: list[Word]) -> Iterator[tuple[list[Word], dict[str, int] | None]]:
    """Runs of twelve or more words all on one list, with that list (without the lists: short words, and no list)."""
    lists = word_lists()
    if not lists:
        yield from ((part, None) for part in _parts(words, None))
    for run in _parts(words, _any_list()):  # most text has no twelve listed words in a row: one pass decides
        for index in lists.values():
            yield from ((part, index) for part in _parts(run, index))


def _parts(words: list[Word], index: dict[str, int] | frozenset[str] | None) -> Iterator[list[Word]]:
    part: list[Word] = []
    for word in [*words, None]:
        if word is not None and (_listed(word[2], index) if index is not None else 3 <= len(word[2]) <= 8):
            part.append(word)
            continue
        if len(part) >= SEED_LENGTHS[0]:
            yield part
        part = []


def _listed(word: str, index: dict[str, int] | frozenset[str]) -> bool:
    return word in index or (not word.isascii() and _bare(word) in index)  # an ASCII word is its own bare form


def _near_wallet_word(text: str, start: int, end: int) -> bool:
    return _WALLET_WORDS.search(text, max(0, start - _CONTEXT), end + _CONTEXT) is not None  # "... - is this a wallet seed?"


def _count_stated(text: str, start: int, count: int) -> bool:
    """The run is a seed's length and that very number stands just before it, in any language ("սա իմ ... 12 բառն է")."""
    return count in SEED_LENGTHS and re.search(rf"(?<![\d.,:/]){count}(?![\d.,:/])", text[max(0, start - _CONTEXT):start]) is not None


def _checks_alone(part: list[Word], index: dict[str, int] | None) -> bool:
    """Without a wallet word nearby: the whole run is a seed's length and passes its list's BIP-39 checksum (1 in 16
    runs of twelve listed words do by chance; windows of a longer run are not tried, which would make chance hits
    common)."""
    return index is not None and checksum_holds([index.get(w, index.get(_bare(w), 0)) for _, _, w in part])
