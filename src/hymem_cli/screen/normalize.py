"""Text as the instruction screen reads it: one spelling for the many ways of writing the same words.

Screening patterns are written for plain text. The same words can hide behind HTML entities (`&nbsp;`), tags
inside a word (`assis</span><span>tant`), BBCode, a Markdown link's title, YAML front matter, letters of another
script that look Latin (Cyrillic `һ`, Greek `Τ`, small capitals `ᴛʜᴇ`), and characters that show nothing
(zero-width spaces, variation selectors, combining grapheme joiners, Unicode tag characters). `normalize` folds
all of these away. What it returns is only ever screened, never stored.

Every step is a linear pass: bounded regular expressions and character tables.
"""

from __future__ import annotations

import html
import re
import unicodedata

# Characters that show nothing, removed: soft hyphen, Mongolian vowel separator, zero-width and bidi controls,
# word joiners, BOM, combining grapheme joiner, variation selectors, Hangul fillers, combining overlays.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\u20d0-\u20ff\u0335-\u0338\U0001d173-\U0001d17a\U000e0001\U000e007f\U000e0100-\U000e01ef]"
)
# Unicode tag characters mirror ASCII invisibly (U+E0041 is a hidden "A"): read them as the ASCII they mirror.
_TAGS = re.compile("[\U000e0020-\U000e007e]")
# Letters and digits in brackets ("⒩⒪⒯⒠", "⑴"): NFKC would give "(n)(o)(t)(e)"; read them as the bare letters
_PARENTHESIZED = str.maketrans({**{chr(0x249C + i): chr(ord("a") + i) for i in range(26)},
                                **{chr(0x2474 + i): str(i + 1) for i in range(9)}})
# Enclosed capitals with no compatibility form ("🅰🅻🅴🆇", "🅐🅑"): negative squared and negative circled Latin letters
_ENCLOSED = str.maketrans({**{chr(0x1F170 + i): chr(ord("A") + i) for i in range(26)},
                           **{chr(0x1F150 + i): chr(ord("A") + i) for i in range(26)}})
# Letters spaced apart by hair, thin or sixth-of-em spaces ("n\u200ao\u200at\u200ae"), words by plain ones: the letters are one word
_SPACED_BY_HAIR = re.compile("(?<=\\S)[\u2006\u2009\u200a](?=\\S)")
# Morse code, ten letters or more ("[morse] .- .-.. . -..-"): read as the letters it spells, "/" between words
_MORSE_LETTERS = dict(zip(
    ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- .-- -..- -.-- --.. "
    "----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----. .-.-.- --..-- ..--.. .----. ---... -....- -..-. .--.-.".split(),
    "abcdefghijklmnopqrstuvwxyz0123456789.,?':-/@"))
_MORSE = re.compile(r"(?<![.\-\w])[.\-]{1,7}(?:(?:[ \t]{1,3}/?[ \t]{0,3}|[ \t]{0,3}/[ \t]{0,3})[.\-]{1,7}){9,}(?![.\-\w])")


def _read_morse(m: re.Match[str]) -> str:
    words = re.split(r"[ \t]*/[ \t]*|[ \t]{3}", m.group())
    return " ".join("".join(_MORSE_LETTERS.get(code, "?") for code in word.split()) for word in words)


# Braille, letter by letter (grade 1): "⠁⠇⠑⠭" is "alex"; the number sign makes a to j the digits 1 to 0
_BRAILLE_LETTERS = dict(zip("⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵⠂⠲⠒⠄⠦⠖⠤⠀", "abcdefghijklmnopqrstuvwxyz,.:'?!- "))
_BRAILLE = re.compile("[\u2800-\u28ff][\u2800-\u28ff \t]{8,}")


def _read_braille(m: re.Match[str]) -> str:
    out, digits = [], False
    for c in m.group():
        if c == "⠼":
            digits = True
            continue
        letter = _BRAILLE_LETTERS.get(c, "" if c == "⠠" else c)  # a capital's sign is dropped
        if digits and "a" <= letter <= "j":
            out.append("1234567890"["abcdefghij".index(letter)])
            continue
        digits = False
        out.append(letter)
    return "".join(out)


# Text after a right-to-left override is shown reversed: stored backwards, it reads forwards ("\u202emorf ylno" shows "only from")
_REVERSED = re.compile("\u202e([^\u202a-\u202e\n]{1,2000})(?:\u202c|(?=\n)|$)")

# Letters used by no language we screen in, and small capitals: always read as the Latin letter they show.
_LATIN_LOOKALIKES = str.maketrans({
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i", "ᴊ": "j", "ᴋ": "k", "ʟ": "l",
    "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ǫ": "q", "ʀ": "r", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ʏ": "y",
    "ᴢ": "z", "ɑ": "a", "ɡ": "g", "ı": "i", "ȷ": "j", "ɩ": "i", "ʋ": "v", "ℓ": "l", "ꞵ": "b", "ɒ": "o", "ɛ": "e", "ʃ": "s",
    "\u2800": " ",  # the Braille blank, a space that \s does not match
    # Cherokee capitals (and their small forms, U+AB70 on) that look like Latin ones
    **{chr(c): v for k, v in {"Ꭺ": "A", "Ᏼ": "B", "Ꮯ": "C", "Ꭰ": "D", "Ꭼ": "E", "Ꮐ": "G", "Ꮋ": "H", "Ꭻ": "J", "Ꮶ": "K", "Ꮮ": "L",
                              "Ꮇ": "M", "Ꮲ": "P", "Ꮢ": "R", "Ꮪ": "S", "Ꭲ": "T", "Ꮩ": "V", "Ꮃ": "W", "Ꭹ": "Y", "Ꮓ": "Z"}.items()
       for c in (ord(k), ord(k) - 0x13A0 + 0xAB70)},
    # Lisu letters, which are Latin capitals in all but code point
    **dict(zip("ꓮꓐꓚꓓꓰꓝꓖꓧꓲꓙꓗꓡꓟꓠꓳꓑꓣꓢꓔꓴꓦꓪꓫꓬꓜ", "ABCDEFGHIJKLMNOPRSTUVWXYZ")),
})
# Accents over Latin and Greek letters are read away ("desormais" and "désormais" are one word to the screen), and so
# are combining marks left over after NFKC (Zalgo's stacked accents), on the text and on the patterns alike (`unaccent`).
# Cyrillic letters keep theirs: "й" and "и" are two letters, and NFKC has already joined them.
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\ufe20-\ufe2f]")
_UNACCENTED = {c: d[0] for c in map(chr, [*range(0xC0, 0x250), *range(0x370, 0x400), *range(0x1E00, 0x2000)])
               if len(d := unicodedata.normalize("NFD", c)) > 1 and all(_MARKS.match(m) for m in d[1:])}
_UNACCENT = str.maketrans(_UNACCENTED)


def unaccent(text: str) -> str:
    """Text with the accents over Latin and Greek letters taken off (é, ü, ç, ệ, ά as e, u, c, e, α), and stray combining marks."""
    return _MARKS.sub("", text.translate(_UNACCENT))


# Letters of other scripts that look Latin. A word made only of these, or mixing them with Latin letters, is read
# as Latin ("Тhе" with Cyrillic Т and е); a word with any other letter of its script ("всегда") is left alone.
_CONFUSABLE = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x",
    "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "ɡ": "g", "ѵ": "v", "ԍ": "g",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X", "У": "Y",
    "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D", "Һ": "H", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I", "Ү": "Y",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    "γ": "y", "ω": "w", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Armenian
    "ո": "n", "ս": "u", "օ": "o", "հ": "h", "ց": "g", "ք": "q", "ա": "w",
}
_WORD = re.compile(r"[^\W\d_]+")

# Markup: stripped to its text. Inline tags vanish without a trace (so "assis</span><span>tant" is one word);
# block tags become a line break.
_BLOCK_TAGS = r"(?:p|div|br|hr|li|ul|ol|tr|td|th|table|h[1-6]|details|summary|blockquote|section|article|pre|header|footer)"
_TAG_ATTR = re.compile(r"""\b(?:title|alt|aria-label|aria-description|data-[\w-]{1,30}|content|value|placeholder)\s{0,3}=\s{0,3}"""
                       r"""(?:"([^"<>]{1,500})"|'([^'<>]{1,500})')""", re.I)
_BLOCK = re.compile(r"</?" + _BLOCK_TAGS + r"\b[^<>]{0,500}>", re.I)
_TAG = re.compile(r"</?[A-Za-z][\w:-]{0,30}(?:\s[^<>]{0,500})?/?>")
_BBCODE = re.compile(r"\[/?(?:b|i|u|s|quote|code|color|size|font|url|img|spoiler|center|left|right|sub|sup|highlight|noparse|list|\*|h\d|email|tt|small)"
                     r"(?:=[^\]\n]{0,100})?\]", re.I)
_MD_LINK = re.compile(r"!?\[([^\]\n]{0,300})\]\(\s{0,3}<?[^\s()<>]{0,500}>?(?:\s{1,3}(?:\"([^\"\n]{0,300})\"|'([^'\n]{0,300})'|\(([^()\n]{0,300})\)))?\s{0,3}\)")
_MD_REF_TITLE = re.compile(r"(?m)^[ \t]{0,3}\[[^\]\n]{1,100}\]:\s{0,3}\S{1,500}\s{1,3}[\"'(]([^\"'()\n]{1,300})[\"')]")
# front matter, at the top of a file or of a file pasted into a message ("Priya's draft post:\n---\ntitle: ...\n---")
_FRONT_MATTER = re.compile(r"(?:\A|(?<=\n))[ \t]{0,3}(?:---|\+\+\+)[ \t]*\n(?=[ \t]{0,3}[\w.-]{1,60}[ \t]{0,3}[:=])(.{0,5000}?)\n(?:---|\+\+\+|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_YAML_KEY = re.compile(r"(?m)^([ \t]{0,12}-?[ \t]{0,3})([\w.-]{1,60})[ \t]{0,3}[:=][ \t]{0,3}")
_EMPHASIS = re.compile(r"(?<![\w*_~])(?:\*{1,3}|_{1,3}|~~)(?=\S)|(?<=\S)(?:\*{1,3}|_{1,3}|~~)(?![\w*_~])")


def strip_markup(text: str) -> str:
    """The words of text written in HTML, BBCode, Markdown or with YAML front matter, markup gone.

    Hidden places that a reader never sees but a model does are kept as words: attribute values such as a
    link's title, a Markdown link's title, the values of front matter (its keys' underscores read as spaces)."""
    text = _FRONT_MATTER.sub(lambda m: _YAML_KEY.sub(lambda k: k.group(1) + k.group(2).replace("_", " ").replace("-", " ") + ": ", m.group(1)) + "\n", text)
    text = _MD_LINK.sub(lambda m: ". ".join(p for p in (m.group(1), m.group(2) or m.group(3) or m.group(4)) if p) + ". ", text)
    text = _MD_REF_TITLE.sub(lambda m: m.group(0) + "\n" + m.group(1), text)
    text = _TAG.sub(lambda m: " ".join(v.group(1) or v.group(2) for v in _TAG_ATTR.finditer(m.group())), _BLOCK.sub("\n", text))
    text = _BBCODE.sub("", text)
    return _EMPHASIS.sub("", text)


_OTHER_SCRIPT = re.compile("[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f\u0530-\u058f]")
_ASCII_LETTER = re.compile("[A-Za-z]")


def _latin_word(word: str, latin_text: bool) -> str:
    """A word of look-alike letters as Latin: when it mixes them with Latin letters, or when it is made of them
    alone inside mostly Latin text (in Russian text "мне" stays Russian)."""
    if word.isascii():
        return word
    mapped = [_CONFUSABLE.get(c) for c in word]
    if all(c.isascii() or mapped[i] for i, c in enumerate(word)) and (latin_text or _ASCII_LETTER.search(word)):
        return "".join(mapped[i] or c for i, c in enumerate(word))
    return word


def fold_letters(text: str) -> str:
    """NFKC, invisible characters gone, tag characters read as ASCII, accents off, look-alike letters Latin."""
    text = _TAGS.sub(lambda m: chr(ord(m.group()) - 0xE0000), text).translate(_PARENTHESIZED).translate(_ENCLOSED)
    text = _SPACED_BY_HAIR.sub("", text)
    if ".-" in text or "-." in text:
        text = _MORSE.sub(_read_morse, text)
    if "\u202e" in text:
        text = _REVERSED.sub(lambda m: m.group(1)[::-1], text)
    if re.search("[\u2800-\u28ff]", text):
        text = _BRAILLE.sub(_read_braille, text)
    text = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))
    text = unaccent(_INVISIBLE.sub("", text).translate(_LATIN_LOOKALIKES))  # NFKC can make a joiner from a compatibility form
    latin_text = len(_ASCII_LETTER.findall(text)) >= len(_OTHER_SCRIPT.findall(text))
    return _WORD.sub(lambda m: _latin_word(m.group(), latin_text), text)


# A mail's body as it travels, quoted-printable: "Alex=E2=80=99s assis=\ntant pays the =C2=A365 fee"
_QUOTED_PRINTABLE = re.compile(r"=(?:[89A-F][0-9A-F]|\r?\n)")


_ESCAPED = re.compile(r"\\u([0-9a-fA-F]{4})")


def _unquoted(text: str) -> str:
    """Quoted-printable text decoded (its soft line breaks joined, its bytes read as UTF-8), or the text as it was."""
    import quopri

    try:
        return quopri.decodestring(text.encode("utf-8")).decode("utf-8")
    except (UnicodeError, ValueError):
        return text


# a word written a letter at a time with dots between ("a.s.s.i.s.t.a.n.t"); read whole when a text has several
_DOTTED_WORD = re.compile(r"(?<![\w.\u00b7])(?:[^\W\d_][.\u00b7]){1,20}[^\W\d_](?![\w.\u00b7]|\.\w)")


# Text turned upside down ("˙ɯᴉɥ ʞsɐ oʇ pǝǝu oN"): each letter for its turned twin, the line read from its end.
_TURNED_PAIRS = ("aɐ", "bq", "cɔ", "dp", "eǝ", "fɟ", "gƃ", "hɥ", "iᴉ", "jɾ", "kʞ", "mɯ", "nu", "rɹ", "tʇ", "vʌ", "wʍ", "yʎ", "A∀", "CƆ",
                 "Dᗡ", "EƎ", "FℲ", "G⅁", "Jſ", "L˥", "MW", "PԀ", "Rᴚ", "T⊥", "U∩", "VΛ", "Y⅄", "1Ɩ", "2ᄅ", "3Ɛ", "4ㄣ", "5ϛ", "69", "7ㄥ",
                 ".˙", ",'", "?¿", "!¡", "()", "[]", "{}", "<>", "&⅋", "_‾")
_TURNED = {**{p[0]: p[1] for p in _TURNED_PAIRS}, **{p[1]: p[0] for p in _TURNED_PAIRS}}
# letters found only turned (not ɔ, a letter of Twi and Ewe, nor the schwa ə of Azerbaijani)
_ONLY_TURNED = frozenset("ɐǝɥɯɹʇʎʞʍɟƃᴉ∀˙ᄅƖƐㄣϛㄥ⅁Ⅎ⊥∩Λ⅄ԀᴚᗡƎ˥¿¡")


def _turned_back(line: str) -> str:
    turned = [c for c in line if c in _ONLY_TURNED]
    if len(set(turned)) < 3 or len(turned) < 0.2 * sum(c.isalpha() for c in line):
        return line
    return "".join(_TURNED.get(c, c) for c in reversed(line))


def normalize(text: str) -> str:
    """Text as the screen reads it: entities decoded (twice, for `&amp;nbsp;`), quoted-printable and JSON's `\\u` escapes
    decoded, lines written upside down turned back, markup stripped to its words, letters folded (`fold_letters`), words spelt a letter at a time with dots
    between read whole, curly quotes straight, a word hyphenated
    across a line break joined ("pro-\ncessing", as text extracted from a PDF has it), runs of spaces as one (line breaks
    kept)."""
    text = html.unescape(html.unescape(text)) if "&" in text else text
    if "=" in text and len(_QUOTED_PRINTABLE.findall(text)) >= 3:
        text = _unquoted(text)
    if "\\u" in text and len(_ESCAPED.findall(text)) >= 3:  # JSON's "\u0041\u006c...": the letters it escapes
        text = _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), text)
    if any(c in _ONLY_TURNED for c in text):
        text = "\n".join(_turned_back(line) for line in text.split("\n"))
    text = fold_letters(text)
    if "." in text and len(dotted := _DOTTED_WORD.findall(text)) >= 3 and sum(len(w) >= 5 for w in dotted) >= 2:
        text = _DOTTED_WORD.sub(lambda m: re.sub(r"[.\u00b7]", "", m.group()), text)  # "y.o.u.r a.s.s.i.s.t.a.n.t p.a.y.s"
    if "<" in text or "[" in text or "---" in text or "+++" in text or "*" in text or "_" in text or "~~" in text:
        text = strip_markup(text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    if "-\n" in text:
        text = re.sub(r"(?<=[^\W\d_])-[ \t]*\n[ \t]*(?=[^\W\d_A-Z])", "", text)
    return re.sub(r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+", " ", text)


# The agent's name written to slip past a word match: letters apart ("a-s-s-i-s-t-a-n-t", "C l a u d e", "m_o_d_e_l",
# "A I"), or digits and signs for letters ("4ss1st4nt", "ag3nt", "assist@nt").
AGENT_NAMES = frozenset({"assistant", "assistants", "agent", "agents", "model", "models", "ai", "bot", "bots", "chatbot", "llm", "llms",
                         "gpt", "chatgpt", "claude", "copilot", "gemini"})
_LEET = str.maketrans({"4": "a", "@": "a", "3": "e", "1": "i", "!": "i", "|": "l", "0": "o", "5": "s", "$": "s", "7": "t"})
_SPACED_LETTERS = re.compile(r"(?<![^\W_]|[@$])(?:[^\W_]|[@$])(?:[ .\-_*/\u00b7\u2022]{1,2}(?:[^\W_]|[@$])(?![^\W_]|[@$])){1,11}\.?")
_LEET_WORD = re.compile(r"(?<![\w@$])(?=[\w@$!|]{0,9}[\d@$!|])[\w@$!|]{3,10}(?![\w@$])")  # three letters at least: "A1" is a grade


def unmask_names(text: str) -> str:
    """The text with the agent's masked names written plainly (`AGENT_NAMES`); any other spaced letters or digits stay."""
    def plain(m: re.Match, spaced: bool) -> str:
        word = re.sub(r"[ .\-_*/\u00b7\u2022]", "", m.group()) if spaced else m.group()
        if spaced and len(word) == 2 and not word.isupper():  # "a I" in a sentence is two words; "A I" and "A.I." are one
            return m.group()
        name = word.translate(_LEET).casefold()
        return name if name in AGENT_NAMES and name != m.group().casefold() else m.group()
    text = _SPACED_LETTERS.sub(lambda m: plain(m, True), text)
    return _LEET_WORD.sub(lambda m: plain(m, False), text)
