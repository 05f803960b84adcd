"""Values told in confidence: what a sentence gives as a credential when no stricter form around it says so.

The forms (forms.py) each know one way of stating a secret. This is the loose net under them, read a sentence at a
time: a sentence that names a credential (a password, a login, an unlock, a PIN or a code, in any language the forms
read, inflected too: "jelszavát", "tunnusluku") or that asks for itself to be kept secret ("don't tell anyone", "niet
doorsturen", "tienilo per te") gives away

- any value in it that looks made up: pieces joined by signs, with a digit or a sign a word never has
  ("crumpet-toast-9", "Sparrow^Lake^2019", "Galeb!Mura58"), not an address, a file, a version or an id in capitals;
- with a PIN's or a code's word, or the plea for secrecy, its 4 to 8 digits ("Der Zahlencode fürs Fahrradschloss ist
  3-9-0-4", "mon code de carte bleue c'est 8406"), unless the code is a public one (a postal code, a promo code).

A chat answers on the next line ("did u change the wifi??" / "yep changed it to crumpet-toast-9"): a credential named
on the line before counts for a line that sets or gives a value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources

from hymem_cli.screen.forms import _CJK, _CODE_WORD, _LOGIN_WORD, _NUMBER_WORD, _PASSWORD_WORD, _PIN_FOR_DIGITS, Span, _unlabelled

_CREDENTIAL = re.compile(
    rf"{_PASSWORD_WORD}|{_LOGIN_WORD}|{_CODE_WORD}|(?<![^\W\d_])(?:(?:jelsz|jelszav|lozink|wachtw|kennw|passw|hesl|has(?:ł|l)|salasan"
    r"|tunnuslu|zahlencode|zugangsdat|geheimz|κωδικ|συνθηματ|парол|лозинк|sandi|unlock|passcode|credential|zugang)\w*"
    r"|wi-?fi|wlan|router)(?![^\W\d_])|பின்|கடவுச்சொல்|番号|רמז|סיסמ"
    # "password" written in Telugu, Kannada, Malayalam, Gujarati and Punjabi letters (a zero-width non-joiner optional)
    r"|పాస్\u200c?వర్డ్|ಪಾಸ್\u200c?ವರ್ಡ್|പാസ്\u200c?വേഡ്|પાસવર્ડ|ਪਾਸਵਰਡ"
    # or a value typed in: "then type Foxglove!Ledger58 and hit return"
    r"|(?<![^\W\d_])(?:type|typed|enter|entered|paste|pasted|keyed[ \t]+in|put[ \t]+in|tippe|tape[sz]?|escribe|digita|wpisz"
    r"|введи\w*)[ \t]+(?=[`'\"]?[^\s`'\"]{6,64})"
    # a password word at the end of a compound: "Initialkennwort", "Einmalpasswort", "beheerderswachtwoord"
    r"|[^\W\d_]{2,20}(?:kennw|passw|wachtw)\w*"
    # how a password is typed, or what asked for it: "no caps", "all lower case", "it logged us out", "letter by letter"
    r"|(?<![^\W\d_])(?:no[ \t]+(?:caps|capitals)|all[ \t]+(?:lower|small)[ \t\-]?(?:case|letters)|case[ \t\-]sensitive"
    r"|logged[ \t]+(?:\w+[ \t]+)?out|letter[ \t]+by[ \t]+letter|spel(?:led|t)[ \t]+(?:it[ \t]+)?out"
    r"|let[ \t]+(?:me|her|him|them|us)[ \t]+(?:straight[ \t]+|right[ \t]+)?in|read[ \t]+it[ \t]+out)(?![^\W\d_])",
    re.I,
)


def _lexicon() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """From credential_words.json (a hundred more languages): the words for a password, such a word followed by its
    value ("D'Passwuert ass: X", "ijambobanga ni X"): after one of that list's words for "is", a colon, or a dash; the
    words for "secret" ("nomoro ya sephiri"); the pleas not to tell anyone ("kada ka gaya wa kowa")."""
    data = json.loads(resources.files("hymem_cli.screen").joinpath("credential_words.json").read_text(encoding="utf-8"))
    words: dict[str, tuple[set[str], set[str]]] = {key: (set(), set()) for key in ("password", "secret", "tell_no_one")}
    copulas: set[str] = set()
    for language in data["languages"].values():
        for key, (spaced, unspaced) in words.items():
            for word in language.get(key, []):
                (unspaced if _UNSPACED_SCRIPT.search(word) else spaced).add(r"[ \t\u200c]+".join(map(re.escape, word.split())))
        copulas |= {re.escape(w) for w in language.get("is", []) if w.strip()}
    longest = lambda words: "|".join(sorted(words, key=len, reverse=True)) or "(?!)"  # noqa: E731
    word, secret, plea = (rf"(?<![^\W\d_])(?:{longest(spaced)})(?![^\W\d_])|(?:{longest(unspaced)})"
                          for spaced, unspaced in words.values())
    value = (rf"(?:{word})(?:,?[ \t]+[^\W\d_]{{1,20}}){{0,4}}?[ \t]*(?:(?<![^\W\d_])(?:{longest(copulas)})(?![^\W\d_])[ \t]*[:：]?|[:：=]"
             r"|[ \t][\-\u2014\u2013])[ \t]*[\"'«“„`]?([^\s\"'«»“”„`,;]{4,64})")
    return re.compile(word, re.I), re.compile(value, re.I), re.compile(secret, re.I), re.compile(plea, re.I)


_UNSPACED_SCRIPT = re.compile(r"[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
_LEXICON_WORD, _LEXICON_VALUE, _LEXICON_SECRET, _LEXICON_PLEA = _lexicon()
_DIGITS_CUE = re.compile(
    rf"{_PIN_FOR_DIGITS.pattern}|(?<![^\W\d_])(?:codes?|codi|codul\w{{0,3}}|c(?:ó|o)digo|codice|kod\w{{0,3}}|k(?:ó|o)d\w{{0,3}}|код\w{{0,3}}|κωδικ\w*"
    r"|tunnuslu\w*|koodi\w{0,3}|kood\w{0,3}|khoutu|i?khodi|i?khowudi|zahlencode|combination|combo|passcode|unlock\w*|lockbox|keybox"
    r"|key[ \t]?safe|padlock|keypad|(?-i:PAC)|personal[ \t]+access[ \t]+code"
    r"|dials?(?![ \t]*[\d+(])"  # a lock's dials, not "dial 0207 for London"
    r"|security[ \t]+(?:number|code))"
    r"(?![^\W\d_])|பின்|暗証|番号|رمز|कोड|पिन|ಪಿನ್|పిన్|പിൻ|ਪਿੰਨ|પિન|도어락|비밀번호|번호키|금고|קוד|کد|کوڈ|kóð\w{0,4}",
    re.I,
)
# codes anyone may know: "zip code 10115", "le code postal", "promo code 2024", "error code 5012"
_PUBLIC_CODE = re.compile(
    r"(?<![^\W\d_])(?:(?:zip|postal|post|area|country|dial(?:ling)?|promo\w*|discount|coupon|voucher|referral|gift|error|status|exit"
    r"|return|dress|source|tracking|booking|confirmation|reservation|reference|qr|bar|sort|swift|bic|iata|airport|colou?r|hex|html"
    r"|product|item|article|order|invoice|tax|vat|course|class|exam|activation|verification|flight)[ \t_\-]?codes?|kode[ \t]+pos"
    r"|(?:c(?:ó|o)digo|code|codice|kod|код|κωδικ\w*)[ \t]+(?:[^\W\d_]{1,4}[ \t]+){0,2}(?:pedido|reserva|commande|r(?:é|e)servation|ordine"
    r"|prenotazione|zam(?:ó|o)wienia|rezerwacji|заказа|бронирования|παραγγελ\w*|κράτησ\w*)"
    r"|c(?:ó|o)digo[ \t]+(?:postal|de[ \t]+(?:descuento|reserva|promoci(?:ó|o)n|seguimiento|barras))|code[ \t]+(?:postal|promo)"
    r"|codice[ \t]+(?:postale|fiscale|sconto|promozionale)|kod[ \t]+(?:pocztowy|rabatowy)|postleitzahl|gutscheincode|rabattcode"
    r"|cod(?:ul)?[ \t]+(?:po(?:ș|ş|s)tal|fiscal|de[ \t]+reducere|promo(?:ț|ţ|t)ional|de[ \t]+bare)"
    r"|aktionscode|kortingscode|postcode|postnummer|postinumero)(?![^\W\d_])"
    r"|(?:उत्पाद|प्रोडक्ट|ऑर्डर|आइटम|पोस्टल|डिस्काउंट|कूपन|प्रोमो|ट्रैकिंग|बुकिंग|एरर|एसटीडी|क्यूआर|बार)[ \t]?कोड",
    re.I,
)
# "don't tell anyone", "keep it to yourself", in the languages the forms read and a few more
_KEEP_IT_SECRET = re.compile(
    r"don['’]?t[ \t]+(?:tell|share[ \t]+(?:it|this)|pass[ \t]+(?:it|this)[ \t]+on|forward)|do[ \t]+not[ \t]+(?:tell|share|forward)"
    r"|keep[ \t]+(?:it|this)[ \t]+(?:to[ \t]+yourself|secret|private|between[ \t]+us)|between[ \t]+you[ \t]+and[ \t]+me"
    r"|ne[ \t]+le[ \t]+(?:dis|répète|repete|partage|donne)\w*[ \t]+(?:à|a)[ \t]+personne|garde[ \t\-]+le[ \t]+pour[ \t]+toi"
    r"|no[ \t]+(?:se[ \t]+)?lo[ \t]+(?:digas|cuentes|compartas)|non[ \t]+(?:dirlo|dirglielo|condividerlo)|tienilo[ \t]+per[ \t]+te"
    r"|n(?:ã|a)o[ \t]+(?:contes?|digas?|partilhes|compartilhe)\w*[ \t]+(?:a[ \t]+)?ningu(?:é|e)m|n(?:ã|a)o[ \t]+(?:partilhes|compartilhe)"
    r"|(?:sag|verrat)[ \t]+(?:es|das)[ \t]+niemandem|nicht[ \t]+weiter(?:sagen|geben|leiten)"
    r"|behalte?[ \t]+(?:es|das)[ \t]+f(?:ü|u)r[ \t]+dich"
    r"|niet[ \t]+(?:doorsturen|doorvertellen|delen)|tegen[ \t]+niemand"
    r"|(?:ä|a)l(?:ä|a)[ \t]+kerro[ \t]+kenellek(?:ää|aa)n|(?:ä|a)l(?:ä|a)[ \t]+jaa"
    r"|ber(?:ä|a)tta[ \t]+inte|dela[ \t]+inte|ikke[ \t]+fortell|fort(?:æ|ae)l[ \t]+det[ \t]+ikke"
    r"|nie[ \t]+m(?:ó|o)w[ \t]+nikomu|nikomu[ \t]+(?:to[ \t]+)?ne(?:ř|r)\w*|kimseye[ \t]+s(?:ö|o)yleme|kimseyle[ \t]+payla(?:ş|s)ma"
    r"|никому[ \t]+не[ \t]+\w+|не[ \t]+говори[ \t]+никому|нікому[ \t]+не[ \t]+\w+|μην[ \t]+το[ \t]+(?:πεις|μοιραστείς)"
    r"|ne[ \t]+mondd[ \t]+el[ \t]+senkinek|nu[ \t]+(?:spune|spuneți)[ \t]+nim(?:ă|a)nui"
    r"|jangan[ \t]+(?:kasih[ \t]+tahu|bilang|kasih[ \t]+tau)[ \t]+(?:siapa|orang)\w*|jangan[ \t]+disebar\w*"
    r"|(?:đ|d)(?:ừ|u)ng[ \t]+(?:nói|noi)[ \t]+(?:với|voi)[ \t]+ai|huwag[ \t]+(?:mong[ \t]+)?(?:sabihin|ipagsabi)"
    r"|لا[ \t]+تخبر[ \t]+(?:أحدا|احدا|أحداً)|לא[ \t]+לספר|אל[ \t]+תספר|किसी[ \t]+को[ \t]+(?:मत|ना|न)[ \t]+बता\w*"
    r"|யாரிடமும்[ \t]+சொல்லாதே|ఎవరికీ[ \t]+చెప్పక\w*|别告诉|不要告诉|別告訴|誰にも言わない|아무(?:에게|한테)도[ \t]*말하지",
    re.I,
)
# a line that gives a value: "yep changed it to ...", "it's now ...", "use ...", "pw: ..." (not "Click-here-2" alone)
_GIVES = re.compile(r"(?<![^\W\d_])(?:to|is|it['’]?s|now|use|try|type|enter|went|set|changed|made)(?![^\W\d_])|[:=→]", re.I)
_PIECE = re.compile(r"[^\n]+?(?:[.!?;。！？；](?=\s|$)|$)", re.M)  # a sentence; a sign inside a value does not end it
# (">": an element's text; an apostrophe before a small letter is inside a word: "Ch'uñu.Achacachi_57", not "-p'Teal")
_TOKEN = re.compile(r"(?<![^\s'\"`«»„“”‚‘’(\[:=|>])(?:[^\s'\"`«»„“”‚‘’()<>\[\]{},;|]|(?<=[^\W\d_])['’](?=[^\W\d_A-Z])){6,64}")
# 4 to 8 digits, together or one by one; not a group of a longer number ("meeting number 2641 883 0597")
_DIGITS = re.compile(r"(?<![\w.,/:\-+#€$£*•])(?<![\d*•][ ])(\d{4,8}|\d(?:[ \-]\d){3,7})(?![\w/:\-€$£%]|[.,]\d|[ ]\d)")
_LABELLED = re.compile(r"(?<![^\W\d_])(?:in|at|on|since|until|by|of|from|before|after|year|years|room|rum|zimmer|chambre|camera|quarto"
                       r"|kamer|order|ticket|invoice|flight|page|no|nr|number|tel|phone|fax|ext|apt|unit|floor|bus|line|version|build"
                       r"|ref|case|account|member|port|ttl|timeout|size|max|min|limit|batch)[ \t.:#=\"']{0,4}$", re.I)
_KEYED = re.compile(r"([\w\-]{1,40})[\"']?[ \t]{0,2}[:=][ \t]{0,2}[\"']?$")  # "batch": 5000, ttl = 3600
_FILE_END = re.compile(r"\.(?:pdf|docx?|xlsx?|pptx?|csv|txt|png|jpe?g|gif|webp|zip|gz|json|ya?ml|toml|py|js|ts|md|html?|exe|dmg|apk"
                       r"|mp[34]|mov|log|sh|conf|ini|db|sql)$", re.I)
_DOMAIN = re.compile(r"(?:[\w\-]{1,63}\.){1,8}[^\W\d_]{2,12}")
_ID_OR_UNIT = re.compile(r"\d{1,4}[\-_.]?[^\W\d_]{1,12}")  # "4-digit", "6-character", "2FA"
_SIGNS = frozenset("!@#$%^&*+~=?|")
_STRONG_SIGNS = frozenset("!#$^&*~")
_ANY_SIGN = "[" + re.escape("".join(sorted(_SIGNS))) + "]"
_A_STRONG_SIGN = "[" + re.escape("".join(sorted(_STRONG_SIGNS))) + "]"
# what every value above holds: a digit, a sign between letters, or a sign or a capital said in words
_MAYBE_A_VALUE = re.compile(rf"\d|[^\W\d_]{_ANY_SIGN}[^\W\d_]|(?i:underscore|hash|hyphen|dash|exclamation|capital|letter[ \t]+by"
                            r"|lower|caps|spaces|minuscul|klein|kecil|lahat|hit|press|answer|keypad|may(?:ú|u)scul|majuscul|maiuscol"
                            r"|mai(?:ú|u)scul|gro(?:ß|ss)buchstab|gui(?:ó|o)n|almohadilla|arroba|tiret|unterstrich|trattino"
                            r"|viết[ \t]+(?:liền|thường)|không[ \t]+(?:dấu|cách)|liền[ \t]+nhau)")
_STRONG_SIGN = re.compile(rf"[^\W\d_]{_A_STRONG_SIGN}|{_A_STRONG_SIGN}[^\W_]")  # such a sign beside a letter or digit
_A_PASSPHRASE = re.compile(r"[^\W\d_]{3}[\-._~=^*+!#][^\W\d_]{3}")  # what a passphrase holds: a word, a joiner, a word
_NOT_A_VALUE_SIGN = re.compile(r"[=/?:%\\]|&\w{1,30}=|@[\w\-]+\.|@v?\d")


def strongly_invented(token: str) -> bool:
    """Made up beyond doubt, whatever stands around it: two pieces of three letters or more, a digit, and a sign no
    name or id has between them ("Lupine^Ferris^309", "Zander&Keks!61", "Wz7#Hafen-Kiel"); not "issue#123". Or a
    passphrase as people make them: capitalised words joined by one sign, then digits ("Mercury-Saddle-0417",
    "Guayaba.Tijuana.58", "Amala_Ibadan82")."""
    if _passphrase(token):
        return True
    if not invented(token) or not _STRONG_SIGNS.intersection(token) or not any(c.isdigit() for c in token):
        return False
    if not (any(c.isupper() for c in token) and any(c.islower() for c in token)):
        return False  # both cases, as a password is made: not a router's prompt ("br-rtr-02#show")
    return sum(1 for p in re.split(r"[^\w]|_", token) if sum(c.isalpha() for c in p) >= 3) >= 2


_JOINERS = frozenset("-._~=^*+!#")


def _passphrase(token: str) -> bool:
    """Capitalised words of three letters or more joined by one sign, ending in two to four digits ("Fennec=Tallow=406",
    "Érable~Tadoussac~24", "Amala_Ibadan82"); words joined by "_" with the digits apart are code ("Gemm_Rocblas_1216")."""
    joiners = {c for c in token if not c.isalnum()}
    if len(joiners) == 2 and (m := re.fullmatch(r"([^\W\d_]+(?:([-.~=^*+!#])[^\W\d_]+)+)([-._~=^*+!#])(\d{2,4})", token)) \
            and m.group(2) != m.group(3) and m.group(1).count(m.group(2)) == len(m.group(1)) - sum(c.isalpha() for c in m.group(1)):
        return _passphrase(f"{m.group(1)}{m.group(2)}{m.group(4)}")  # the digits set off by a sign of their own: "Tais.Atauro_2025"
    if len(joiners) != 1 or not joiners <= _JOINERS:
        return False
    joiner = joiners.pop()
    *words, last = token.split(joiner)
    if last.isdigit():
        if joiner == "_" or len(words) < 2:
            return False
    else:
        stem = last.rstrip("0123456789")
        if len(words) != 1 or stem == last:
            return False
        words, last = [*words, stem], last[len(stem):]
    return 2 <= len(last) <= 4 and last.isdigit() and all(
        len(w) >= 3 and w.isalpha() and w[0].isupper() and w[1:].islower() for w in words)


def _made_up_whole(sentence: str) -> bool:
    """A sentence after one that named a credential holds a value made up beyond doubt, in any language: capitals, small
    letters, a digit and a sign ("Issa hi, ehm, Fenkata.Mgarr_57, b'F kapitali ...")."""
    return any(invented(t) and any(c.isupper() for c in t) and any(c.islower() for c in t) and any(c.isdigit() for c in t)
               for t in (m.group().rstrip(".,!?") for m in _TOKEN.finditer(sentence)))


def invented(token: str) -> bool:
    """A value that looks made up: pieces joined by signs with a digit in them ("crumpet-toast-9", "stroopwafel-Delft9"),
    or a sign no word has between letters ("7Fjord!Pine"); not an address, a path, a file, a version or an id in
    capitals."""
    if token.startswith(("-", "~", "$", "#", "[REDACTED")) or _NOT_A_VALUE_SIGN.search(token) or _CJK.search(token):
        return False  # a flag, a setting, a path, a query, "user:password" or "user%password" (the forms read them), an
        # address, "action@v3", percent-encoded text, CJK text
    if re.fullmatch(r"[a-z\d]+(?:[_.][a-z\d]+)+", token):
        return False  # an identifier: "require_2fa", "db.r6g.large"
    if _FILE_END.search(token) or _DOMAIN.fullmatch(token) or _ID_OR_UNIT.fullmatch(token):
        return False
    letters = [c for c in token if c.isalpha()]
    if len(letters) < 3 or all(c.isupper() for c in letters) and not _SIGNS.intersection(token):
        return False  # "COVID-19", "ORD-2024-77": an id
    signs = {c for c in token if not c.isalnum()}
    if not signs:
        return False  # "wombat77" or "Windows11": the forms decide those by what stands around them
    parts = [p for p in re.split(r"[^\w]|_", token) if p]
    if any(c.isdigit() for c in token):
        if len(parts) == 1 and re.fullmatch(r"[^\W\d_]{3,}\d{1,4}[!#$%&*?]{1,3}", token):
            return True  # a word, digits and a sign after them: "bittern17!"
        if len(parts) < 2 or not any(p.isalpha() and len(p) >= 3 for p in parts):
            return False
        # one joiner: "pogácsa-77", "stroopwafel-Delft9", not a page or a place ("Seite-12", "Milano-2")
        return len(parts) > 2 or (parts[0][0].islower() and len(parts[1]) >= 2) or any(_mixed(p) for p in parts)
    cases = any(c.isupper() for c in letters) and any(c.islower() for c in letters)
    return cases and bool(_SIGNS.intersection(token)) and len(parts) >= 2


def _mixed(part: str) -> bool:
    return any(c.isdigit() for c in part) and any(c.isalpha() for c in part)


_KEYS_PRESSED = re.compile(r"(?i:ctrl|control|alt|altgr|shift|cmd|command|option|opt|win|super|fn|meta)(?:\+[\w]{1,12}){1,3}")


_ASKS_BACK = re.compile(r"\s*(?:is|was|are|would|does)\s+(?:that|this|it|these)\b", re.I)


def _may_give_a_value(text: str) -> bool:
    return _MAYBE_A_VALUE.search(text) is not None or _SPELLING_RUN.search(text) is not None


def confided_values(text: str) -> Iterator[Span]:
    """("password-made"|"password-said"|"pin", start, end) of the values sentences about a credential give away, and
    of the same words said again ("… it's marmoset, um, eighty-four, uh, dash, bandstand. … Marmoset eighty-four dash
    bandstand.")."""
    spans = list(_confided_values(text))
    yield from spans
    for value in {text[a:b] for kind, a, b in spans if kind == "password-said"}:
        words = re.findall(r"[^\W_]+", _FILLER.sub(" ", value))
        if len(words) >= 3:
            again = re.compile(r"(?<![^\W_])" + r"[\s,.\-]+".join(map(re.escape, words)) + r"(?![^\W_])", re.I)
            yield from (("password-said", *m.span()) for m in again.finditer(text))


def _confided_values(text: str) -> Iterator[Span]:
    text = _unlabelled(text)  # "[REDACTED:password]" names no password
    before = ""  # the line before, for an answer on the next line
    pos = 0
    for line in text.split("\n"):
        if _may_give_a_value(line):  # most lines do not: no digit, no sign between letters, no letters spelled out
            named_before = len(before) <= 400 and _CREDENTIAL.search(before) is not None and _GIVES.search(line[:400]) is not None
            named = False  # a sentence before, on this line, named one: "I changed the password. The new one: ..."
            pieces = list(_PIECE.finditer(line))
            pleaded = len(line) <= 600 and _pleads_secrecy(line)  # "... hemi 3-7-1-8. ... Yu no talem long eni man, plis"
            for i, piece in enumerate(pieces):
                sentence = piece.group()
                # or the sentence after asks about it by name: "the current one is ilovebiscuit2019!! is that a strong
                # enough password?"
                asked_after = i + 1 < len(pieces) and _ASKS_BACK.match(pieces[i + 1].group()) is not None \
                    and _CREDENTIAL.search(pieces[i + 1].group()) is not None
                if len(sentence) <= 400 and _may_give_a_value(sentence):
                    yield from _in_sentence(sentence, pos + piece.start(), named_before or asked_after or named and (
                        _GIVES.search(sentence) is not None or _made_up_whole(sentence)), pleaded)
                named = named or _CREDENTIAL.search(sentence) is not None or _LEXICON_WORD.search(sentence) is not None
        before = line if line.strip() else before
        pos += len(line) + 1
    yield from (("password", *m.span(1)) for m in _LABELLED_FAR_ABROAD.finditer(text))
    for m in _LEXICON_VALUE.finditer(text):  # a password word of another language, then its value
        if _ASKED_LAST.fullmatch(m.group(1)):
            continue  # a question's last words in lower case, asked, not given: "..., ha mat eo evel-se?" (is it fine so?)
        if not (_LEXICON_WORD.match(text, m.start(1)) or _CREDENTIAL.match(text, m.start(1))):  # not the name of the next one
            yield ("password", *m.span(1))
    for m in _NUMBER_RUN.finditer(text):  # "... είναι δύο, επτά, επτά, ένα", a credential named just before
        since = max(0, m.start() - 120)
        if (_CREDENTIAL.search(text, since, m.start()) or _LEXICON_WORD.search(text, since, m.start())
                or _DIGITS_CUE.search(text, since, m.start()) and not _PUBLIC_CODE.search(text, since, m.start())) \
                and not _A_TIME_SAID.search(text, max(0, m.start() - 14), m.start()) and not _A_TIME_AFTER.match(text, m.end()):
            yield ("password-said", *m.span())
    for m in _SPELLED_BY_NAMES.finditer(text):  # "P maiuscola come Palermo, I come Imola, ...", a credential named before
        since = max(0, m.start() - 400)
        if _CREDENTIAL.search(text, since, m.start()) or _LEXICON_WORD.search(text, since, m.start()):
            yield ("password-said", *m.span())
    if len(text) <= 2000 and (_CREDENTIAL.search(text) or _LEXICON_WORD.search(text)):
        last = [m.span(1) for m in _LAST_PIECE.finditer(text)]  # "Segunda parte: _Tarazona1993", a password named in the same short text
        yield from (("password", *span) for span in last)
        if last:  # and its first piece, a capitalised word that ends an earlier line ("... d'o router ye Moncayo")
            yield from (("password", *m.span(1)) for m in _FIRST_PIECE_AT_LINE_END.finditer(text, 0, last[0][0]))
        yield from (("password", *m.span(1)) for m in _FIRST_PIECE.finditer(text))
    for m in _LONE_VALUE.finditer(text):  # "Here is the new one:\n\n    ravitoto_sy_henakisoa", a credential named just before
        since = max(0, m.start() - 200)
        named_here = _CREDENTIAL.search(text, since, m.end(1)) or _LEXICON_WORD.search(text, since, m.end(1))
        if named_here and not _NOT_A_LONE_VALUE.search(m.group(2)):
            yield ("password", *m.span(2))


# A password word of another language first, a clause, a colon, and capitalised words joined by a sign alone at the
# line's end: "It nije wachtwurd fan de Wi-Fi thús, it earste part: Skutsje.Snits"
_LABELLED_FAR_ABROAD = re.compile(rf"(?:{_LEXICON_WORD.pattern})[^\n.!?:：]{{10,100}}[:：][ \t]{{1,3}}"
                                  r"((?-i:[A-Z][a-z]{2,}(?:[.\-_+&][A-Z][a-z]{2,}){1,3}\d{0,4}[!?#]?))[ \t]*$", re.I | re.M)
_ASKED_LAST = re.compile(r"[^\W\d_A-Z]+(?:-[^\W\d_A-Z]+)?\?")
# the last piece of a password sent in pieces, its joining sign first: a word with a capital, then digits ("_Caacupe82")
_LAST_PIECE = re.compile(r"(?:^|[:：][ \t]*|\n[ \t]*)(?:\[[^\]\n]{1,30}\][ \t]*)?"  # a chat line's head: "[SMS] "
                         r"([_\-.+~][A-Z][^\W\d_]{2,20}[#!*_.\-]?\d{2,4})(?![\w\-])", re.M)
# the first piece of a password sent in pieces, after a label that says which piece: "First half: Trefoil-Quay"
_FIRST_PIECE = re.compile(r"(?im)(?<![^\W\d_])(?:first|1st|second|2nd|last|other)[ \t]+(?:half|part|piece|bit)(?![^\W\d_])"
                          r"[^\n:：]{0,20}[:：][ \t]*((?-i:[A-Z][a-z]{2,}(?:[.\-_+&][A-Z][a-z]{2,}){1,3}\d{0,4}[!?#]?))[ \t]*$")
_FIRST_PIECE_AT_LINE_END = re.compile(r"(?m)(?<=[\s:：])((?-i:[A-Z][a-z]{2,}(?:[.\-_+&]?[A-Z][a-z]{2,}){0,3}\d{0,4}))[ \t]*$")
# a value alone on its line after a line that ends in a colon; not an address, a path or a command
_LONE_VALUE = re.compile(r"(?m)^([^\n]{0,300})[:：][ \t]*\n(?:[ \t]*\n)?[ \t]{0,8}`?([^\s`]{4,128})`?[ \t]*$")
# "secretKeyRef:" is a key; "Title,URL,Username,Password": a CSV file's header; "[general]": an INI file's section
_NOT_A_LONE_VALUE = re.compile(r"://|^www\.|@|^[/~.$]|^#!|\.(?:com|org|net|io)\b|^\[REDACTED|[:=]$|^\[[a-z][\w.\- ]{0,40}\]$"
                               r"|^(?:[^\W\d_]\w{0,30}[,;]){2,}[^\W\d_]\w{0,30}$", re.I)


# A value read out a character at a time, or as words and signs: "capital T, o, u, c, a, n, hash sign, 1, 9, 4, 8",
# "marigold underscore two two five".
_SAID_DIGIT = (r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine"
               # Spanish, French, German, Italian and Portuguese, as a value is read out letter by letter
               r"|cero|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|z(?:é|e)ro|deux|trois|quatre|cinq|sept|huit|neuf"
               r"|null|eins|zwei|drei|vier|f(?:ü|u)nf|sechs|sieben|acht|neun|due|tre|quattro|cinque|sei|sette|otto|nove"
               r"|dois|tr(?:ê|e)s|sete|oito)")
_SAID_SIGN = (r"(?:hash|pound|number|at|dollar|percent|ampersand|and|star|asterisk|plus|equals|exclamation|question|dash|hyphen|minus"
              r"|underscore|dot|full[ \t]+stop|period|comma|slash|backslash|tilde|caret|colon|semicolon"
              r"|gui(?:ó|o)n(?:[ \t]+bajo)?|almohadilla|arroba|asterisco|barra|exclamaci(?:ó|o)n|interrogaci(?:ó|o)n|tiret|di(?:è|e)se"
              r"|arobase|(?:é|e)toile|bindestrich|raute|unterstrich|ausrufezeichen|trattino|cancelletto|chiocciola|h(?:í|i)fen"
              r"|cerquilha|point[ \t]+d['’](?:exclamation|interrogation)|punto[ \t]+esclamativo)"
              r"(?:[ \t]+(?:sign|mark|point|symbol|bajo))?")
# a letter by its Spanish name ("erre", "jota"), or with its case after it ("R mayúscula", "B majuscule", "k klein")
_SAID_LETTER = (r"(?:(?:erre|ele|eme|ene|efe|ese|jota|hache|equis|zeta|uve|[A-Za-z])[ \t]+(?:may(?:ú|u)scula|min(?:ú|u)scula|majuscule"
                r"|minuscule|gro(?:ß|ss)|klein|maiuscola|minuscola|mai(?:ú|u)scula)|erre|ele|eme|ene|efe|ese|jota|hache|equis|zeta|uve)")
# a letter by the spelling alphabet's word for it ("capital Kilo, lowercase echo")
_SPELLING_WORD = (r"(?:alfa|alpha|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliett?|kilo|lima|mike|november|oscar|papa|quebec"
                  r"|romeo|sierra|tango|uniform|victor|whiske?y|x-?ray|yankee|zulu)")
_SAID_CHAR = (rf"(?:(?:capital|upper[ \t\-]?case|big|small|lower[ \t\-]?case)[ \t]+(?:{_SPELLING_WORD}|[A-Za-z])|{_SAID_LETTER}|[A-Za-z0-9]"
              rf"|{_SAID_DIGIT}|(?:the[ \t]+)?{_SAID_SIGN}|the[ \t]+word[ \t]+[a-z]{{2,20}})")
# what joins the pieces read out: a comma, a space, "then", "and then", "followed by"
_SAID_JOIN = r"(?:,[ \t]*|[ \t]+)(?:(?:and[ \t]+)?then,?[ \t]+|followed[ \t]+by[ \t]+)?"
_SPELLED = re.compile(rf"(?<![^\W_]){_SAID_CHAR}(?:{_SAID_JOIN}{_SAID_CHAR}){{5,40}}(?![^\W_])",
                      re.I)
# a value read out in the spelling alphabet's words alone: "Tango, Alpha, Mike, Alpha, Romeo"
_SPELLING_RUN = re.compile(rf"(?<![^\W_]){_SPELLING_WORD}(?:{_SAID_JOIN}{_SPELLING_WORD}){{4,40}}(?![^\W_])", re.I)
_WORDS_AND_SIGNS = re.compile(rf"(?<![^\W\d_])[a-z]{{3,20}}(?:[ \t]+{_SAID_SIGN}[ \t]+"
                              rf"(?:{_SAID_DIGIT}(?:[ \t]+{_SAID_DIGIT})*|[a-z]{{3,20}}))+(?![^\W\d_])", re.I)


# Letters spelled by the names that stand for them on the phone, with the digits after: "P maiuscola come Palermo, I come
# Imola, S come Savona, ..., poi sette e tre", "A wie Anton", "B comme Berthe", "C de Carmen", "D as in David"
_NAMED_LETTER = (r"[A-Z](?:[ \t]+(?:maiuscol[ao]|minuscol[ao]|majuscule|minuscule|gro(?:ß|ss)|klein|may(?:ú|u)scula|min(?:ú|u)scula"
                 r"|capital|small))?[ \t]+(?:come|wie|comme|como|de|as[ \t]+in|for)[ \t]+[A-Z][^\W\d_]{2,20}")
_SPELLED_BY_NAMES = re.compile(rf"{_NAMED_LETTER}(?:[,;]?[ \t]+{_NAMED_LETTER}){{3,40}}"
                               rf"(?:[,;.]?[ \t]+(?:poi|then|dann|puis|luego|depois|e|and|und|et|y)?[ \t]*{_SAID_DIGIT}(?![^\W\d_])"
                               rf"(?:[ \t,]+(?:e|and|und|et|y)?[ \t]*{_SAID_DIGIT}(?![^\W\d_])){{0,8}})?"
                               rf"(?:[,;]?[ \t]+(?:poi|then|dann|puis|luego|depois|e|and|und|et|y)?[ \t]*{_SAID_SIGN}(?![^\W\d_]))?")


# a word, its digits said, then its sign: "bittern, one seven, exclamation mark"
_WORD_DIGITS_SIGN = re.compile(rf"(?<![^\W\d_])[a-z]{{3,20}}(?:,?[ \t]+{_SAID_DIGIT}){{1,6}},?[ \t]+{_SAID_SIGN}(?![^\W\d_])", re.I)
# the answer to a security question: "the security question is his first car, and the answer ... is Hillman Imp 1968"
_ANSWER = re.compile(r"(?:security|secret|memorable)[ \t]+(?:question|word|answer)[^.\n]{0,80}?\banswer\b[^.\n]{0,40}?"
                     r"(?<![^\W\d_])(?:is|was)[ \t]+([^\n,.;:—–()]{3,40}?)(?=[ \t]*(?:[,.;:—–(]|$))", re.I)
_SIGN_AS_A_WORD = re.compile(r"[a-z]+[ \t]+(?:and|at|dot|dash|star|plus|period|comma|colon|equals|minus|question|pound|percent|number"
                             r"|slash|hash|full[ \t]+stop)(?:[ \t]+(?:sign|mark|point|symbol))?[ \t]+[a-z]+", re.I)


_CASE_SAID = re.compile(r"(?<![^\W\d_])(?:capital|upper[ \t\-]?case|lower[ \t\-]?case)(?![^\W\d_])", re.I)


def _spelled(sentence: str) -> Iterator[tuple[int, int]]:
    """Spans of values read out: a run of single characters with a letter and a digit or a sign among them, or a word
    and a named sign followed by a word or digits ("marigold underscore two two five")."""
    for m in _SPELLED.finditer(sentence):
        joins = re.sub(r"(?i)\b(?:and[ \t]+)?then\b,?|\bfollowed[ \t]+by\b|\bthe[ \t]+word\b|\bthe\b", " ", m.group())
        items = re.split(r",[ \t]*|[ \t]+(?=\S)", joins)
        if any(len(i) == 1 and i.isalpha() or i.lower().startswith(("capital", "small", "upper", "lower", "big"))
               or re.fullmatch(_SAID_LETTER, i, re.I) for i in items) and \
                any(i.isdigit() or re.fullmatch(_SAID_DIGIT, i, re.I) or re.fullmatch(_SAID_SIGN, i, re.I) for i in items):
            yield m.span()
    for m in _SPELLING_RUN.finditer(sentence):
        yield m.span()
    for m in _WORD_DIGITS_SIGN.finditer(sentence):
        yield m.span()
    for m in _WORDS_AND_SIGNS.finditer(sentence):
        if not _SIGN_AS_A_WORD.fullmatch(m.group()):
            yield m.span()  # "rock and roll", "length equals twelve" are words; "x underscore two two five" is a value


# Numbers said as words, in the languages people read a password out in: "two six nine", "dos mil dieciocho", "два нуль два
# два", "δύο, επτά, επτά, ένα". Two or more in a row, in a sentence about a credential, and no unit after them.
_NUMBER_WORDS = """zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand double triple
    cero uno una dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis diecisiete dieciocho
    diecinueve veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa cien ciento mil
    zéro deux trois quatre cinq sept huit neuf dix onze douze treize quatorze quinze seize vingt trente quarante cinquante soixante
    mille null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf zwanzig hundert tausend due tre quattro cinque sei
    sette otto nove dieci venti trenta cento dois duas três quatro sete oito nove dez vinte cem
    ноль нуль один одна одно два две дві три четыре чотири пять п'ять шесть шість семь сім восемь вісім девять дев'ять десять
    μηδέν ένα δύο τρία τέσσερα πέντε έξι επτά εφτά οκτώ οχτώ εννέα εννιά δέκα
    jeden dwa trzy cztery pięć sześć siedem osiem dziewięć twee drie vijf zes zeven negen sıfır iki üç dört beş altı yedi sekiz
    dokuz nolla yksi kaksi kolme neljä viisi kuusi seitsemän kahdeksan yhdeksän kymmenen không một hai ba bốn lăm sáu bảy tám
    chín mười nol kosong satu dua tiga empat enam tujuh delapan sembilan sepuluh sifuri moja mbili tatu nne tano sita saba nane tisa
    nula jedna dva tři čtyři pět šest sedm osm devět unu doi trei patru cinci șase şase șapte şapte nouă kettő három négy öt hét
    nyolc kilenc nul fem seks syv sju otte åtte noll två fyra nio isa dalawa tatlo apat anim pito walo siyam
    صفر واحد اثنان ثلاثة أربعة خمسة ستة سبعة ثمانية تسعة אפס אחת אחד שתיים שלוש ארבע חמש שש שבע שמונה תשע
    शून्य एक दो तीन चार पांच पाँच छह सात आठ नौ শূন্য এক দুই তিন চার পাঁচ ছয় সাত আট
    нула један једна четири пет шест седам осам девет едно седем осем jedan četiri sedam osam devet
    nulle viens divi trīs četri pieci seši septiņi astoņi deviņi nulis vienas du trys keturi penki šeši septyni aštuoni devyni
    u un cinc sis vuit nou štyri päť šesť deväť üks kaks kolm neli kuus seitse kaheksa üheksa núll tveir þrír fjórir
    fimm sjö átta níu dau pedwar pump chwech saith wyth naw""".split()
# digits said one syllable each, in Korean (Sino-Korean) and Japanese: four or more in a row, so "이 일" (this job) is none
_SYLLABLE_DIGITS = (r"(?<![\uac00-\ud7af])[공영일이삼사오육칠팔구](?:[ \t,・、]{1,3}[공영일이삼사오육칠팔구]){3,11}(?![\uac00-\ud7af])"
                    r"|(?:ゼロ|れい|いち|に|さん|よん|し|ご|ろく|なな|しち|はち|きゅう|く)"
                    r"(?:[ \t]*[・、][ \t]*(?:ゼロ|れい|いち|に|さん|よん|し|ご|ろく|なな|しち|はち|きゅう|く)){3,11}")
_WORD_FOR_A_NUMBER = r"(?:" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)) + r"|veinti[^\W\d_]{3,8})"
_NUMBER_RUN = re.compile(
    _SYLLABLE_DIGITS + "|"
    rf"(?<![^\W\d_]){_WORD_FOR_A_NUMBER}(?:(?:,[ \t]*|[ \t]+|[ \t]*-[ \t]*){_WORD_FOR_A_NUMBER}){{1,11}}(?![^\W\d_])"
    r"(?![ \t,]*(?:[^\W\d_]+[ \t]+)?(?:times?|days?|weeks?|months?|years?|hours?|minutes?|seconds?|characters?|chars?|letters?|digits?"
    r"|numbers?|tries|attempts?|people|of|or|and|veces|d(?:í|i)as|a(?:ñ|n)os|meses|caracteres|d(?:í|i)gitos|letras|intentos|fois|jours"
    r"|ans|mois|caract(?:è|e)res|chiffres|lettres|essais|mal|tage|jahre|monate|zeichen|ziffern|buchstaben|versuche|volte|giorni|anni"
    r"|mesi|cifre|lettere|vezes|anos|letras|раз\w*|дн\w*|лет|год\w*|месяц\w*|символ\w*|цифр\w*|букв\w*|спроб\w*|попыт\w*"
    r"|φορ\w*|μέρ\w*|χρόν\w*|χαρακτήρ\w*|ψηφί\w*)(?![^\W\d_]))", re.I)


# a time of day said as words: "at five thirty", "a las siete y media", "um halb acht", "five forty pm"
# A value read out as words, numbers and signs, however the voice note's commas and fillers fall: "marmoset, um,
# eighty-four, uh, dash, bandstand", "Marmoset eighty-four dash bandstand". A sign a value holds and a number are in it.
_FILLER = re.compile(r"(?<![^\W\d_])(?:u+m+|u+h+|e+r+m+|h+m+|e+h+m+|ehh+|mm+)(?![^\W\d_]),?", re.I)
_STRONG_SAID_SIGN = r"(?:dash|hyphen|underscore|hash|exclamation(?:[ \t]+(?:mark|point))?|dot|slash|star|asterisk|tilde|caret)"
_READ_AS_WORDS = re.compile(
    rf"(?<![^\W\d_])[^\W\d_]{{3,20}}(?:,?[ \t]+(?:{_WORD_FOR_A_NUMBER}(?:-{_WORD_FOR_A_NUMBER})?|{_STRONG_SAID_SIGN}"
    rf"|[^\W\d_]{{3,20}})){{2,6}}(?![^\W\d_])", re.I)


def _read_as_words(sentence: str) -> Iterator[tuple[int, int]]:
    plain = _FILLER.sub(lambda m: " " * len(m.group()), sentence)  # the same offsets
    for m in _READ_AS_WORDS.finditer(re.sub(r"[ \t]{2,}", lambda m: " " * len(m.group()), plain)):
        words = m.group()
        if re.search(rf"(?<![^\W\d_]){_STRONG_SAID_SIGN}(?![^\W\d_])", words, re.I) \
                and re.search(rf"(?<![^\W\d_]){_WORD_FOR_A_NUMBER}(?![^\W\d_])", words, re.I):
            yield m.span()


_A_TIME_SAID = re.compile(r"(?<![^\W\d_])(?:at|by|until|till|from|around|about|before|after|past|à|a[ \t]+las|a[ \t]+la|um|alle|às|ab"
                          r"|bis)[ \t]+\Z", re.I)
_A_TIME_AFTER = re.compile(r"[ \t]*(?:a\.?m\b|p\.?m\b|o['’]clock|uhr\b|heures?\b|hours\b|de[ \t]+la[ \t]+(?:mañana|tarde|noche))", re.I)


# How a plain word is typed, said of it: "harriet (all lowercase)", "martabak, huruf kecil semua", "with the spaces"
_TYPING_HINT = (r"(?:all[ \t]+)?(?:lower[ \t\-]?case|small[ \t]+letters|no[ \t]+(?:caps|capitals)|with[ \t]+the[ \t]+spaces?"
                r"|capitals?[ \t]+[A-Z](?:[ \t]+and[ \t]+[A-Z])?|(?:one|a|single)[ \t]+space[ \t]+between"
                r"|spaces?[ \t]+included|en[ \t]+minuscules?|en[ \t]+min(?:ú|u)sculas|(?:in[ \t]+)?kleinbuchstaben|kleingeschrieben"
                r"|huruf[ \t]+kecil|lowercase[ \t]+lahat|tutto[ \t]+minuscolo|kleine[ \t]+letters|caps[ \t]+lock[ \t]+(?:is[ \t]+)?off"
                r"|(?:one|a|single)[ \t]+spaces?|hem(?:û|u)[ \t]+t(?:î|i)p(?:ê|e)n[ \t]+bi(?:ç|c)(?:û|u)k|bi[ \t]+valahiyan)"
                r"(?![^\W\d_])")
# the plain word or words such a hint is said of, after "is", "it's", "ay", "sekarang" or at the sentence's start
_PLAIN_BEFORE_HINT = re.compile(
    r"(?:(?<![^\W\d_])(?:is|it['’]s|to|c['’]est|ay|sekarang|adalah|ist|es|just|type|enter|with)|^|[:=(])[ \t]*"
    r"((?:[^\W\d_]{3,20}[ \t]){0,2}[^\W\d_]{3,20}(?:[ \t]?\d{1,4})?)"
    r"(?:[ \t]+(?:lang|btw|only|lol))?[ \t]*[,(\u2014\u2013\-]?[ \t]*(?:btw,?[ \t]*)?(?:with[ \t]+the[ \t]+spaces,?[ \t]*)?"
    + _TYPING_HINT, re.I)
# the words a password is set to, when the sentence says how they are typed somewhere after them: "changed the Hulu
# password to paprika lighthouse after ... - two words, lowercase, one space"
_SET_TO_WORDS = re.compile(
    r"(?<![^\W\d_])(?:password|passcode|passphrase|pin|login|wi-?fi)(?![^\W\d_])[^.;:\n]{0,30}?(?<![^\W\d_])(?:is|to|as|:)[ \t]+"
    r"((?:[^\W\d_]{3,20}[ \t]){0,3}[^\W\d_]{3,20})"
    r"(?=[ \t]*(?:[,.;(\u2014\u2013]|[ \t](?:after|because|since|so|but|for|until|now)(?![^\W\d_])))", re.I)
# Vietnamese words are a syllable each: "mật khẩu ... là hoa sen hồ tây, viết liền không dấu" (written together, no accents)
_SYLLABLES_BEFORE_HINT = re.compile(r"(?<![^\W\d_])là[ \t]+((?:[^\W\d_]{1,7}[ \t]){1,4}[^\W\d_]{1,7})[ \t]*,?[ \t]*"
                                    r"(?:viết[ \t]+liền|viết[ \t]+thường|không[ \t]+dấu|không[ \t]+cách|liền[ \t]+nhau)(?![^\W\d_])", re.I)
_A_TYPING_HINT = re.compile(_TYPING_HINT, re.I)
_NOT_PLAIN = frozenset("now just all the in it set still also always only then and but not no new old my your his her our their "
                       "password passwords wifi login code pin same different case letters".split())
# a value, then a key to press: "type pineapple and hit enter", "punch in 8064 and hit OFF"
_TYPED_THEN_KEY = re.compile(r"(?<![^\W\d_])(?:type|enter|punch[ \t]+in|key[ \t]+in|tap[ \t]+in)[ \t]+([^\s,;]{3,40})[ \t]+(?:and|then)"
                             r"[ \t]+(?:hit|press|tap|click|push)[ \t]+(?:enter|return|ok|off|go|#|the[ \t]+\w+[ \t]+(?:button|key))"
                             r"(?![^\W\d_])", re.I)
# digits that open something: "4410 opens the bike shed", "the laptop unlocks with 2231"
_OPENS = re.compile(r"(?<![\w.,/:\-])(\d{4,8})[ \t]+(?:opens|unlocks|disarms)[ \t]+(?:the|my|our|his|her|their)\b"
                    r"|\b(?:opens|unlocks|disarms)[ \t]+with[ \t]+(\d{4,8})(?![\w.,/:\-])", re.I)


# a login given with its password: "the login is invoices@kestrel-supply.example with halyard7bloom"
_LOGIN_WITH = re.compile(r"(?<![^\W\d_])(?:login|log-?in|sign-?in|user(?:name)?)[ \t]+(?:is|:)[ \t]+\S{2,80}[ \t]+(?:with|and|pw|password)"
                         r"[ \t]+([^\s,;=:]{4,64}?)(?=[.!?]?(?:\s|$)|[,;])", re.I)  # not "with aws_secret_access_key=..."
# three digits a lock is set to ("the padlock on it is set to 2-7-9"); a word typed on a keypad ("the word BEAR on the keypad")
_LOCK_DIGITS = re.compile(r"(?<![^\W\d_])(?:padlock|combination|combo|lock)(?![^\W\d_])[^.\n]{0,40}?(?<![^\W\d_])(?:is|set[ \t]+to|to|:|=)"
                          r"[ \t]+(\d(?:[ \-]\d){2}|\d{3})(?![\d\-])(?![ \t]*(?:min|sec|s\b|%|days?|hours?|degrees?|°))", re.I)
_KEYPAD_WORD = re.compile(r"(?<![^\W\d_])(?:word|letters)[ \t]+([A-Z]{3,12})[ \t]+(?:on|into|in)[ \t]+(?:the[ \t]+)?(?:keypad|keys|dial)")


# digits keyed in, then the key that ends them: "2-6-0-9 then OFF", "4471#", "8812 and ENTER"
_KEYED_DIGITS = re.compile(r"(?<![\w.,/:\-])(\d(?:[ \-]\d){3,7}|\d{4,8})(?:[ \t]*(?:then|and|,)[ \t]*(?:press[ \t]+|hit[ \t]+)?|[ \t]*"
                           # in any language: "sláðu inn 2 0 5 9 og ýttu á OFF", "tapez 5521 puis OFF"
                           r"|[ \t]+(?:[^\W\d_]{1,10}[ \t]+){0,2}(?:press|hit|push|tap|dr(?:ü|u)ck\w{0,3}|appu[iy]\w{0,4}|puls\w{1,3}"
                           r"|prem\w{1,3}|druk\w{0,3}|tryck\w{0,2}|trykk\w{0,2}|tryk\w{0,2}|(?:ý|y)tt?u|paina\w{0,2}|naci(?:ś|s)nij|нажм\w{0,4}|apert\w{1,2}"
                           r"|pritisn\w{0,3}|bas(?:ı|i)n|stiskn\w{0,3})(?:[ \t]+[^\W\d_]{1,6})?[ \t]+)"
                           r"(?:OFF|ENTER|OK|#)(?![\w])"
                           # or a word for "then" of any language and the key alone: "tobetsa 2 9 5 8 ebe OFF"
                           r"|(?<![\w.,/:\-])(\d(?:[ \-]\d){3,7}|\d{4,8})[ \t]+[^\W\d_]{1,6}[ \t]+(?:OFF|ENTER|#)(?![\w])")
# a login and its password joined by a colon, in a sentence about a credential: "credentials for staging: deploy:Rk8vQ2zX9"
_USER_COLON_SECRET = re.compile(r"(?<![\w.@/:\-])[A-Za-z][\w.\-]{1,31}:([^\s:/@,;]{6,64})(?![\w:/@])")


def random_looking(token: str) -> bool:
    """A made-up string as password generators make them: eight characters or more, capitals, small letters and digits
    mixed into pieces too short to be words ("q9XrT2vLk7Wp", "Tq4mZ8wP"); not words with a number ("Windows11",
    "iPhone15Pro")."""
    if not 8 <= len(token) <= 64 or not token.isalnum() or not token.isascii():
        return False
    if not (any(c.isupper() for c in token) and any(c.islower() for c in token) and any(c.isdigit() for c in token)):
        return False
    pieces = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", token)
    return sum(1 for p in pieces if p.isalpha() and len(p) <= 2) >= 3  # "q9XrT2vLk7Wp": q, Xr, T, v, Lk, Wp; "iPhone15Pro": i


_MIXED_RUN = re.compile(r"[A-Za-z0-9]{10,}")
# "is" in words for it the forms do not read (Egyptian Arabic in Latin letters, Hindi in Latin letters ...), then a value
_AFTER_A_COPULA = re.compile(r"(?<![^\W\d_])(?:is|heya|howa|hiya|huwa|hai|hei|hain|ni|ndi|ne|yw|ydy|ay|ang|ialah|adalah|el|la)"
                             r"[ \t]+([^\s,;\u2014\u2013]{6,64}?)(?=[.,;!?]?(?:\s|$))", re.I)
# a network's key or a password label, then a phrase of plain words to the end of its clause
_KEY_PHRASE = re.compile(r"(?<![^\W\d_])(?:key|password|passphrase|pw|wi-?fi)[ \t]*[:=][ \t]*((?:[a-z]{2,12}[ \t]+){1,5}[a-z]{2,12})"
                         r"(?=[ \t]*(?:[.,;!)]|$))")
# what names a public string before it: an address to pay to, a public key, a hash, an id, a reference
_PUBLIC_BEFORE = re.compile(r"(?<![^\W\d_])(?:address|addr|public|pubkey|wallet|to|hash|txid|tx|commit|id|ref|reference|order"
                            r"|booking|ticket|tracking|invoice|serial|sku|isbn|doi|video|channel|playlist|file|build|version|sha|uuid)"
                            r"(?![^\W\d_])\W{0,4}$", re.I)


def _made_up_alone(value: str, before: str) -> bool:
    """A made-up string of ten characters or more that nothing names as public ("use admin and q9XrT2vLk7Wp"): not an
    address ("0x742d..."), nor what follows "address", "id", "hash", "order" or the like."""
    return len(value) >= 10 and random_looking(value) and not re.match(r"0x|[xyzt]pub", value) and not _PUBLIC_BEFORE.search(before[-40:])


def _plain_values(sentence: str) -> Iterator[tuple[int, int]]:
    """Plain words given as a credential, said how they are typed."""
    matches = [*_PLAIN_BEFORE_HINT.finditer(sentence), *_SYLLABLES_BEFORE_HINT.finditer(sentence)]
    if _A_TYPING_HINT.search(sentence):
        matches += _SET_TO_WORDS.finditer(sentence)
    for m in matches:
        words = m.group(1).lower().split()
        if not any(w.rstrip("0123456789") in _NOT_PLAIN for w in words):
            yield m.span(1)


def _pleads_secrecy(text: str) -> bool:
    return _KEEP_IT_SECRET.search(text) is not None or _LEXICON_PLEA.search(text) is not None


def _in_sentence(sentence: str, at: int, named_before: bool, pleaded: bool = False) -> Iterator[Span]:
    """`pleaded`: the short line the sentence is on asks for secrecy."""
    secret = pleaded or _pleads_secrecy(sentence)
    about_one = secret or named_before or _CREDENTIAL.search(sentence) is not None or _LEXICON_WORD.search(sentence) is not None
    if about_one:
        yield from (("password-said", at + a, at + b) for a, b in _spelled(sentence))
        yield from (("password-said", at + a, at + b) for a, b in _plain_values(sentence))
        yield from (("password-said", at + a, at + b) for a, b in _read_as_words(sentence))
    else:  # no credential named, but said how it is typed, and a digit in it: "it's Saoirse2, capital S"
        yield from (("password-said", at + a, at + b) for a, b in _plain_values(sentence) if any(c.isdigit() for c in sentence[a:b]))
        # or read out with the case of its letters: "capital Kilo, lowercase echo, ..., seven, two" is nobody's name
        yield from (("password-said", at + a, at + b) for a, b in _spelled(sentence) if len(_CASE_SAID.findall(sentence[a:b])) >= 2)
    for m in _ANSWER.finditer(sentence):  # the security question names it
        yield ("password-said", at + m.start(1), at + m.end(1))
    for m in _TYPED_THEN_KEY.finditer(sentence):  # a code typed on a keypad needs no credential's name
        if m.group(1).lower() not in _NOT_PLAIN and (about_one or m.group(1).isdigit()):
            yield ("password-said", at + m.start(1), at + m.end(1))
    if about_one:
        for m in _AFTER_A_COPULA.finditer(sentence):  # "el password ... heya koshary_sayeda_29": joined pieces and a digit
            value = m.group(1)
            if any(c.isdigit() for c in value) and any(c in "_.-+" for c in value) and not _NOT_A_LONE_VALUE.search(value) \
                    and not _DOMAIN.fullmatch(value.rstrip(".")) and not _FILE_END.search(value):
                yield ("password-said", at + m.start(1), at + m.end(1))
        for m in _KEY_PHRASE.finditer(sentence):  # "network BT-Hub-22, key: rosehip tea at four"
            if not any(w in _NOT_PLAIN for w in m.group(1).lower().split()[:1]):
                yield ("password-said", at + m.start(1), at + m.end(1))
        for m in _USER_COLON_SECRET.finditer(sentence):
            if not m.group(1).isalpha():
                yield ("password-said", at + m.start(1), at + m.end(1))
    for rx, kind in ((_LOGIN_WITH, "password-said"), (_LOCK_DIGITS, "password-said"), (_KEYPAD_WORD, "password-said"),
                     (_KEYED_DIGITS, "password-said")):
        for m in rx.finditer(sentence):
            g = next(i for i in range(1, rx.groups + 1) if m.group(i) is not None)
            yield (kind, at + m.start(g), at + m.end(g))
    for m in _OPENS.finditer(sentence):
        g = 1 if m.group(1) is not None else 2
        yield ("pin", at + m.start(g), at + m.end(g))
    looked_at = about_one or _STRONG_SIGN.search(sentence) or _A_PASSPHRASE.search(sentence) or _MIXED_RUN.search(sentence)
    for m in _TOKEN.finditer(sentence) if looked_at else ():
        value = m.group()
        if m.end() == len(sentence) or sentence[m.end()].isspace():
            value = value.rstrip(".:?")  # the sentence's own sign; a "!" may be the value's: "Kalyna7775!."
        if _KEYS_PRESSED.fullmatch(value) or _A_PROTOCOL.fullmatch(value):
            continue  # "Alt+Shift", "Ctrl+Alt+Del": keys pressed together; "WPA3-only": a network's security
        if _A_PLAIN_FLAGS_VALUE.search(sentence[max(0, m.start() - 40):m.start()]):
            continue  # "--label ca-hsm-01", "$ pkcs11-tool": a command's name, or what a flag that names no secret is given
        if strongly_invented(value) or about_one and (invented(value) or random_looking(value)) \
                or _made_up_alone(value, sentence[:m.start()]):
            yield ("password-made", at + m.start(), at + m.start() + len(value))
    cue = None if _PUBLIC_CODE.search(sentence) else _DIGITS_CUE.search(sentence) or _LEXICON_SECRET.search(sentence)
    if secret or cue:
        for m in _DIGITS.finditer(sentence):
            if not secret and cue is not None and cue.start() > m.start():
                continue  # a code's digits follow its name: "rum 4312 ..., koden till dörren" is a room
            before = sentence[max(0, m.start() - 44):m.start()]
            keyed = _KEYED.search(before)
            if _LABELLED.search(before) or (keyed and not _DIGITS_CUE.search(before)) or _a_year(m.group()):
                continue
            yield ("pin", at + m.start(), at + m.end())


_A_PROTOCOL = re.compile(r"(?i:wpa[23]?(?:-psk)?|wep|sae|tls(?:1\.?[0-3])?|ssl|ipv[46])(?:-[a-z]{2,10})?")
_A_PLAIN_FLAG_NAME = r"(?![\w\-]*(?:pin|pass|pw|secret|token|key|auth|cred))[a-z][\w\-]{1,30}"  # no secret's word in it
_A_PLAIN_FLAGS_VALUE = re.compile(rf"(?:(?<!\S)--?{_A_PLAIN_FLAG_NAME}(?:[ \t]+|=)[\"']?|(?:^|\n)[ \t]*\$[ \t]+)\Z", re.I)


def _a_year(digits: str) -> bool:
    return len(digits) == 4 and digits.isdigit() and 1950 <= int(digits) <= 2039


# A card's code after its number, by any name ("Cryptogramme : 731", "le code au dos c'est 662", "de code achterop is vier
# nul negen", "Prüfziffer drei acht eins"): three or four digits, or as many spoken, within a few lines of the number.
_CODE_NAME = re.compile(r"(?<![^\W\d_])(?:cvc\d?|cvv\d?|cv2|csc|cid|code\w{0,4}|c(?:ó|o)digo|codice|kod\w{0,3}|k(?:ó|o)d\w{0,3}|код\w{0,3}"
                        r"|κωδικ\w*|crypto\w*|pr(?:ü|ue)f\w*|sicherheits\w*|security|beveiligings\w*|verifica\w*)(?![^\W\d_])"
                        r"|安全码|安全碼|セキュリティコード|보안[ \t]?코드", re.I)
# (a note in brackets after the name may hold a digit: "CID (4 digits, front of card): 3951")
_CODE_VALUE = re.compile(rf"[ \t]*(?:\([^)\n]{{0,40}}\))?[^\d\n]{{0,40}}?(?<![\d/.\-])(\d{{3,4}})(?![\d/\-]|[.,]\d)"
                         rf"|[^\d\n]{{0,40}}?(?<![^\W\d_])((?:{_NUMBER_WORD}[ \t,\-]{{1,3}}){{2,3}}{_NUMBER_WORD})(?![^\W\d_])", re.I)


# or by where it is printed: "227 on the back", "achterop 409", "au dos : 662", "two nine six on the back"
_THREE_OR_FOUR = (rf"(?<![\d/.\-])(\d{{3,4}})(?![\d/\-]|[.,]\d)"
                  rf"|(?<![^\W\d_])((?:{_NUMBER_WORD}[ \t,\-]{{1,3}}){{2,3}}{_NUMBER_WORD})(?![^\W\d_])")
# the card's last four and its code printed together on the signature strip: "AUTHORIZED SIGNATURE   5939 271"
_ON_THE_BACK = re.compile(r"(?<![^\W\d_])signature(?:[ \t]+(?:strip|panel))?(?![^\W\d_])[^\d\n]{0,16}?(\d{4}[ \t]+\d{3})(?![\d/\-])"
                          rf"|(?:{_THREE_OR_FOUR})[ \t]{{1,3}}(?:on|at)[ \t]+the[ \t]+back"
                          r"|(?<![^\W\d_])(?:on[ \t]+the[ \t]+(?:back|front)|the[ \t]+back[ \t]+(?:is|says|reads)"
                          r"|signature(?:[ \t]+(?:strip|panel))?"
                          r"|achterop|au[ \t]+dos|hinten(?:[ \t]+drauf)?|on[ \t]+back|sul[ \t]+retro"
                          rf"|en[ \t]+el[ \t]+reverso|atr(?:á|a)s|no[ \t]+verso)(?![^\W\d_])[^\d\n]{{0,16}}?(?:{_THREE_OR_FOUR})"
                          # Chinese and Japanese: "背面三位是五零三" (read as digits: "背面3位是503"), "裏面の3桁は 503"
                          rf"|(?:背面|背后|背後|裏面|裏の|卡背)[^\n]{{0,3}}?(?:\d[位桁])?[^\d\n]{{0,6}}?(?:{_THREE_OR_FOUR})", re.I)


# the four digits American Express prints above the number, alone on their line, as a scan of the card's front reads
_LINE_ABOVE = re.compile(r"(?m)^[ \t]*(\d{4})[ \t]*\n[ \t]*\Z")


def codes_after_cards(text: str, cards: list[tuple[int, int]]) -> Iterator[Span]:
    """("card-cvv", start, end) of a card's security code named within 200 characters after the card's number, and of
    an American Express card's four digits alone on the line above it."""
    for start, end in cards:
        if re.match(r"3[47]", text[start:start + 2]) and (above := _LINE_ABOVE.search(text, max(0, start - 40), start)):
            yield ("card-cvv", *above.span(1))
        window = text[end:end + 200]
        back = _ON_THE_BACK.search(window)
        if back is not None:
            g = next(i for i in range(1, back.re.groups + 1) if back.group(i) is not None)
            yield ("card-cvv", end + back.start(g), end + back.end(g))
        for name in _CODE_NAME.finditer(window):
            value = _CODE_VALUE.match(window, name.end())
            if value is None:
                continue
            g = 1 if value.group(1) is not None else 2
            yield ("card-cvv", end + value.start(g), end + value.end(g))
            break
