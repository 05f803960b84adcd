"""Secrets known by where they stand, not by their shape: `.pgpass` and `.netrc` lines, `curl -u`, a table's password
column, the codes under a recovery-codes heading, a password stated in a sentence (in English or another language),
card numbers written with odd separators or in spoken digits.

Each finder gives (kind, start, end) of a candidate value only; `secrets.find_secrets` judges the value (a mask, a
placeholder or a plain word such as "required" is no secret) and drops what another rule found already. Patterns keep
to bounded repeats, as in `secrets`, so each runs in linear time on any input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import partial
from itertools import pairwise

Span = tuple[str, int, int]
Cells = Callable[[str], list[tuple[int, int]]]  # a row -> the spans of its cells

# The word for a password in the languages people write to us in; Latin-script words stand between word boundaries.
_PASSWORD_WORDS_LATIN = (
    r"pass(?:word|wort|wd|code|phrase)s?|pa?s{1,3}(?:w[o0]?r?d|owrd|wrod)s?|pwd|pw|kennwort|"  # "pasword", "passwrd", "pswd"
    # what banks ask for beside a password: "passnumber 57318", "her memorable data is 'Tenby harbour'"
    r"pass[ \t]?number|memorable[ \t]+(?:data|word|information|answer)|(?:security|secret)[ \t]+answers?|"
    r"mot[ \t]+de[ \t]+passe|contrase(?:ñ|n)a|senha|palavra-passe|"
    r"wachtwoord|has(?:ł|l)o|heslo|jelsz(?:ó|o)|l(?:ö|o)senord(?:et)?|adgangskode(?:n)?|passord(?:et)?|salasana|"
    r"(?:ş|s)ifre(?:si|m)?|парол(?:ь|я|ем)|kata[ \t]+sandi|m(?:ậ|a)t[ \t]+kh(?:ẩ|a)u|"
    # Romanian, Hungarian (possessed forms), Danish and Norwegian, Catalan, Malay, Swahili, Greek, Hebrew (with its glued
    # article or preposition), Arabic, Hindi: letters of these scripts are word characters, so the boundaries hold
    r"parol(?:a|ă|ele)|jelszav(?:a|am|unk|ad)|kodeord(?:et)?|contrasenya|kata[ \t]+laluan|nenosiri|neno[ \t]+la[ \t]+siri|"
    r"κωδικ(?:ός|ό|ού|οί)(?:[ \t]+πρόσβασης)?|συνθηματικό|[הולבש]{0,2}סיסמ(?:ה|א|ת|אות|ות)"
    r"|[وفبل]?(?:ال)?كلمة[ \t]+(?:ال)?(?:مرور|سر)|पासवर्ड|"
    # Estonian, Lithuanian, Latvian, Welsh, Croatian, Serbian and Bosnian, Slovenian, Bulgarian, Macedonian, Albanian,
    # Icelandic, Basque, Galician, Afrikaans, Esperanto, Irish, Zulu, Kazakh, Mongolian, Georgian, Armenian, Persian, Urdu
    r"parool\w{0,4}|slapta(?:ž|z)od\w{0,4}|parole\w{0,2}|cyfrinair|lozink\w{0,2}|geslo\w{0,2}|парол(?:а|ата|и)|лозинк\w{0,2}|"
    r"fjal(?:ë|e)kalim\w{0,3}|lykilor(?:ð|d)\w{0,4}|pasahitz\w{0,2}|contrasinal|wagwoord|pasvort\w{0,2}|pasfhocal|iphasiwedi|"
    r"құпия[ \t]+сөз|нууц[ \t]+үг|პაროლ\w{0,3}|գաղտնաբառ\w{0,3}|رمز[ \t]+عبور|گذرواژه|پاس[ \t]+ورڈ|"
    r"şifrə\w{0,3}|maxfiy[ \t]+so['ʻ‘’]z|teny[ \t]+miafina"  # Malagasy
)
# Scripts written without spaces between words (Chinese, Japanese, Thai): no boundaries around the word.
_PASSWORD_WORDS_CJK = (r"密码|密碼|口令|パスワード|パスコード|暗証番号|비밀번호"
                       r"|비번|암호|รหัสผ่าน|கடவுச்சொல்|মুরপদ|මුරපද|পাসওয়ার্ড|ពាក្យសម្ងាត់|የይለፍ[ \t]ቃል"
                       # Lao, Burmese, and "password" written in Gujarati, Punjabi, Malayalam, Kannada and Telugu letters
                       r"|ລະຫັດຜ່ານ|စကားဝှက်|પાસવર્ડ|ਪਾਸਵਰਡ|പാസ്\u200c?വേഡ്|ಪಾಸ್\u200c?ವರ್ಡ್|పాస్\u200c?వర్డ్")
# A network's key in any of these languages: "WLAN-Schlüssel", "code wifi", "la clave del wifi", "wifi key".
_NETWORK = r"(?:wi-?fi|wlan|wpa2?|router|network|réseau|reseau|netzwerk|netwerk|sieci|сети)"
_KEY = r"(?:clave|clé|cle|chave|schlüssel|schluessel|sleutel|klucz|ключ|code|kod|key)"
_NETWORK_KEY = (  # Spanish and Portuguese "red"/"rede" only after the key word: "red key" is English
    rf"{_NETWORK}[ \t\-]{{0,3}}{_KEY}"
    rf"|{_KEY}(?:[ \t]{{1,3}}(?:de|del|du|da|do|des|für|van|od|от|of|for)(?:[ \t]{{1,3}}(?:la|el|le|the|das|den|o|a))?)?"
    rf"[ \t]{{1,3}}(?:{_NETWORK}|red|rede)"
)
_PASSWORD_WORD = rf"(?:(?<![^\W\d_])(?:{_PASSWORD_WORDS_LATIN}|{_NETWORK_KEY})(?![^\W\d_])|{_PASSWORD_WORDS_CJK})"
# "new" or "current" after the noun, where Romance languages, Indonesian and Vietnamese put it: "la contraseña nueva es X".
_AFTER_NOUN = (
    r"(?:[ \t]{1,3}(?:nuev[ao]|nov[ao]|nouveau|nouvelle|nuov[ao]|actual|atual|actuel(?:le)?|attuale|temporal|tempor(?:á|a)ria|"
    r"temporaire|provisoire|provis(?:ó|o)ria|baru|m(?:ớ|o)i|"
    # "my" after the noun: Norwegian and Danish "passordet mitt", Romanian "parola mea", Greek "ο κωδικός μου", Hebrew
    # "הסיסמה שלי", Filipino "password ko", Swahili "nenosiri langu"
    r"mitt|mine|vårt|ditt|mea|ta|noastră|μου|σου|μας|שלי|שלך|שלנו|ko|mo|namin|langu|lako|letu)(?![^\W\d_]))?"
    r"(?:[ \t]{0,2}\([^()\n]{1,30}\))?"  # a note in brackets: "Password (temporary): X", "Mot de passe (provisoire) : X"
)

# What the password is for: "for the shared drive", "du wifi", "del router", "für den Server", "do banco", "от почты".
# An Italian or French preposition may be elided onto its noun: "la password dell'email", "le code d'accès".
_FOR_WHAT = (
    r"(?:[ \t]{1,3}(?:for|of|on|at|du|de|des|del|della|dello|da|do|dos|das|für|fur|vom|von|zum|zur|van|voor|för|till|til|od|"
    r"от|до|для|від|na|al|à|au|zu|per|på|pour|para|dla|pro|k|ke|ku|untuk|cho|của|"
    r"για|του|της|των|στο|στην|של|ng|para[ \t]{1,3}sa|la|ya|wa|cha)(?:[ \t]{1,3}[^\s:=,;.!?\"'“”`：\[]{1,30}){1,4}?"
    # Hebrew and Arabic glue "for" to the noun: "לוויפי" (for the wifi), "للراوتر" (for the router)
    r"|[ \t]{1,3}(?:ל|ل)[^\s:=,;.!?\"'“”`：\[]{1,30}"
    r"|[ \t]{1,3}(?:dell|dall|all|nell|sull|d)['’][^\s:=,;.!?\"'“”`：\[]{1,30}(?:[ \t]{1,3}[^\s:=,;.!?\"'“”`：\[]{1,30}){0,2}?)?"
    r"(?:[ \t]{0,2},[^,\n.:;!?\"]{1,30},)?"  # an aside between commas: "the passcode for the safe, if you need it, is X"
)
# Quotes of every style, each with its own closing mark: « » and » « (French, German, Danish), „ “ and „ ” (German,
# Polish, Czech), ‚ ‘, ‘ ’, ” ” (Swedish, Finnish), ‹ ›, 「 」, 『 』, 《 》; French puts a space inside its quotes.
_QUOTE_PAIRS = (("«", "»"), ("»", "«"), ("„", "“"), ("„", "”"), ("‚", "‘"), ("‚", "’"), ("‘", "’"), ("”", "”"), ("‹", "›"),
                ("›", "‹"), ("『", "』"), ("《", "》"))
OPENING_QUOTES = "\"'“`「" + "".join(dict.fromkeys(o for o, _ in _QUOTE_PAIRS))
_OTHER_QUOTED = "|".join(rf"{o}[^{c}\n]{{1,130}}{c}" for o, c in _QUOTE_PAIRS)
_QUOTED = r"\"[^\"\n]{3,128}\"|'[^'\n]{3,128}'|“[^”\n]{3,128}”|" + _OTHER_QUOTED
_VALUE = (r"(" + _QUOTED + r"|`[^`\n]{3,128}`|「[^」\n]{1,128}」|[^\s\"'“”`，。、「」«»„‚‹›『』《》]{3,128})")

# "now" before "is": "la contrasenya ara és X", "das Passwort ist jetzt X" reads "ist" first
_NOW = (r"(?:(?:now|ara|ahora|agora|maintenant|jetzt|nun|adesso|ora|nu|nå|teraz|teď|sasa|sekarang|şimdi|τώρα|сейчас|теперь|acum)"
        r"[ \t]{1,3})?")
# "the wifi password is X", "mot de passe : X", "Das Kennwort lautet X", "密码是 X", "パスワードは X", "비밀번호는 X",
# "password, it's now X"; Polish "hasło ... to X" ("to" is an English word too: after "hasło" only).
_STATED = re.compile(
    _PASSWORD_WORD + _AFTER_NOUN + _FOR_WHAT
    + r"(?:[ \t]{1,3}" + _NOW + r"(?:is[ \t]{1,3}now|is[ \t]{1,3}still|is|was|will[ \t]{1,3}be"
      r"|(?:has[ \t]{1,3}been|is|was|got)?[ \t]{0,3}(?:changed|set|switched|updated|reset)[ \t]{1,3}to|becomes|became"
      r"|est|es|era|será|sera|sarà|ist|lautet|hei(?:ß|ss)t|war|wird|è|é|jest|brzmi|je|это|är|blev|er"
      r"|είναι|ήταν|היא|הוא|هي|هو|है)(?![^\W\d_])[ \t]{1,3}"  # Greek, Hebrew, Arabic, Hindi "is"
      r"|[ \t]{0,3}(?:[:=：]|—|–|->|=>|→|⇒|➜|⟶|-(?=[ \t]))[ \t]{0,3}"
      r"|[ \t]{0,2}(?:是|为|為|は|는|은|คือ)[ \t]{0,2}"
      r"|[ \t]{0,3}[,?][ \t]{0,3}it(?:'s|’s|[ \t]{1,3}is)(?:[ \t]{1,3}now)?[ \t]{1,3}"  # "password, it's now X", "password? It's X"
      r"|[ \t]{1,3}c(?:'|’)est[ \t]{1,3})"
    + r"(?:(?:just|simply|literally|only)[ \t]{1,3}(?=[^\W\d_]))?"  # "the password is just marmalade sandwich"
    + _VALUE
    + r"|(?<![^\W\d_])has(?:ł|l)o" + _FOR_WHAT + r"[ \t]{1,3}to[ \t]{1,3}" + _VALUE
    # words for "is" that are other words elsewhere, read after the one language's word for a password: Catalan
    # "contrasenya ... és", Swahili "nenosiri ... ni", Romanian "parola ... este"
    + r"|(?<![^\W\d_])(?:contrasenya|nenosiri|neno[ \t]+la[ \t]+siri|parol(?:a|ă)|parool\w{0,4}|slapta(?:ž|z)od\w{0,4}|parole\w{0,2}"
    + r"|cyfrinair|geslo\w{0,2}|lozink\w{0,2}|парол(?:а|ата)|лозинк\w{0,2}|fjal(?:ë|e)kalim\w{0,3}|პაროლ\w{0,3})"
    + _AFTER_NOUN + _FOR_WHAT + r"[ \t]{1,3}" + _NOW
    + r"(?:és|ni|este|on|yra|ir|yw|ydy|е|je|(?:ë|e)sht(?:ë|e)|არის)(?![^\W\d_])[ \t]{1,3}" + _VALUE
    # a relative clause between the word and "is", then a quoted value: "La contraseña que uso en todas partes es "X""
    + r"|" + _PASSWORD_WORD + r"[ \t]{1,3}(?:que|qui|che|die|das|dat|som|which|that|который|которым|który|które|kterou)"
      r"(?![^\W\d_])[^\n\"'“”`.!?:=]{1,40}?[ \t](?:is|es|est|ist|è|é|är|er|jest|je|это|era|war|was)[ \t]{1,3}"
      r"(" + _QUOTED + r")",
    re.I,
)

# A whole sentence as the password, given after a colon: "the password is the whole sentence, full stop included:
# Harbour lights at 9. — yes with the spaces"
_WHOLE_SENTENCE = re.compile(
    _PASSWORD_WORD + r"[^\n:]{0,20}?(?:is|are)[ \t]+(?:the[ \t]+|a[ \t]+)?(?:whole|entire)[ \t]+(?:sentence|phrase|line)"
    r"[^\n:]{0,40}:[ \t]*([^\n—–]{3,80}?)[ \t]*(?=[—–]|\n|$)",
    re.I,
)

# The value given a sentence later, the password named by a pronoun: "… nach der LUKS-Passphrase … Ich bin mir sicher, sie
# lautet „Sonnenblume Treppenhaus Kiesel 9“", "my old password? I'm sure it was "Tulip Gravel 88"". Quoted values only.
_STATED_AFTER = re.compile(
    _PASSWORD_WORD + r"[^\n]{0,160}?[.!?,;:—][ \t]{1,3}(?:[^\n.!?\"'“”„«]{0,40}?[ \t,])?"
    r"(?:it|sie|er|es|elle|il|ella|él|lei|ze|het|den|det)[ \t]{1,3}"
    r"(?:is|was|lautet|lautete|ist|war|est|était|es|era|è|é|är|var|er|was)[ \t]{1,3}(" + _QUOTED + r")",
    re.I,
)

# The password's word first on a line, a clause about it, a colon, and the value alone at the line's end: "Password
# mupiamupia wa Wi-Fi wa ku nzubu, tshitupa tshia kumpala: Ngondo.Kasai" (what it is for, in any language)
_LABELLED_AT_LENGTH = re.compile(r"(?m)" + _PASSWORD_WORD + r"[^\n.!?:：]{20,100}[:：][ \t]{1,3}([^\s\"'“”`]{4,64})[ \t]*$", re.I)

# The value set off by commas after its word: "I've set a temporary password, Vx7#pQ2m!Lr9, which you'll change"
_SET_OFF = re.compile(_PASSWORD_WORD + r"[ \t]*,[ \t]*([^\s,\"'“”`]{6,64})[ \t]*,", re.I)

_A_RULE_OF_LENGTH = re.compile(r"(?<![^\W\d_])(?:characters?|chars?|digits?|letters?|symbols?|least|minimum|maximum|long|zeichen"
                               r"|stellen|mindestens|caract(?:è|e)res?|chiffres|caracteres|d(?:í|i)gitos|caratteri)(?![^\W\d_])", re.I)

# Connectors that also join a password word to talk about it ("would be nice", "wordt morgen gewijzigd", "salasana on
# liian lyhyt", "kata sandi saya adalah rahasia"): the value after them must look made up ("password-made").
_STATED_LOOSELY = re.compile(
    _PASSWORD_WORD + _AFTER_NOUN + _FOR_WHAT
    + r"[ \t]{1,3}(?:(?:would|is[ \t]{1,3}going[ \t]{1,3}to)[ \t]{1,3}be|ended[ \t]{1,3}up(?:[ \t]{1,3}(?:being|as))?"
      r"|turned[ \t]{1,3}out[ \t]{1,3}to[ \t]{1,3}be|wordt|werd|ficou|fica|adalah|ialah|là"
      # "is" words that are also other words: Romanian and Spanish "este" (this), Catalan and Hungarian "és" (and),
      # Filipino "ay", Swahili and Spanish "ni"
      r"|este|és|ay|ni)(?![^\W\d_])[ \t]{1,3}"
    + _VALUE
    # "password's X" reads as "password is X", and as the possessive before a noun ("the password's length")
    + r"|" + _PASSWORD_WORD + r"['’]s(?:[ \t]{1,3}(?:now|still))?[ \t]{1,3}" + _VALUE
    + r"|(?<![^\W\d_])(?:salasana(?:si|ni|mme)?" + _FOR_WHAT + r"[ \t]{1,3}on"
    # Indonesian, Malay and Vietnamese name what it is for after the noun, with no preposition: "kata sandi wifi rumah adalah X"
    + r"|(?:kata[ \t]+sandi|kata[ \t]+laluan|m(?:ậ|a)t[ \t]+kh(?:ẩ|a)u)(?:[ \t]{1,3}[^\s:=,;.!?\"'“”`]{1,20}){0,3}?[ \t]{1,3}"
    + r"(?:adalah|ialah|là))[ \t]{1,3}"
    + _VALUE
    # Thai names it the same way, words often unspaced: "รหัสผ่าน wifi คือ X"
    + r"|รหัสผ่าน(?:[ \t]{0,3}[^\s:=,;.!?\"'“”`]{1,20}?){0,2}?[ \t]{0,3}คือ[ \t]{0,3}" + _VALUE
    # Hindi puts "is" last: "वाईफाई का पासवर्ड X है"
    + r"|पासवर्ड(?:[ \t]{1,3}(?:अब|अभी))?[ \t]{1,3}" + _VALUE + r"(?=[ \t]{1,3}है)"
    # a clause with no opening word between the word and "is": "The password I use everywhere is sunflower1987"
    + r"|" + _PASSWORD_WORD + r"(?:[ \t]{1,3}[^\W\d_]{1,20}){1,5}?"
    + r"[ \t]{1,3}(?:is|es|est|ist|è|é|är|er|jest|je|это|era|war|was|είναι|היא|הוא|هي|هو)(?![^\W\d_])[ \t]{1,3}" + _VALUE,
    re.I,
)

# "I set my password to X", "changed the wifi password over to X", "I'll change the router password to X".
_SET_TO = re.compile(
    r"\b(?:set|sets|setting|change|changed|changes|changing|reset|update|updated|switch|switched|switching)\b"
    r"[^\n.!?]{0,40}?" + _PASSWORD_WORD + r"(?:[ \t]{1,3}(?:over|back))?[ \t]{1,3}(?:to|as|into)[ \t]{1,3}" + _VALUE,
    re.I,
)

# The same in other languages, where the preposition for "to" differs and the verb may come last: "Cambié mi contraseña
# a X", "Mudei minha senha para X", "Ich habe mein Passwort auf X geändert", "Zmieniłem hasło na X", "Jag bytte lösenordet
# till X"; Turkish "Şifremi X olarak değiştirdim", Japanese "パスワードを X に変えました", Korean "비밀번호를 X로 바꿨다",
# Chinese "把密码改成 X". A verb of changing or setting must stand near (`_CHANGE_VERB`), the value must look made up.
_SET_TO_ABROAD = re.compile(
    _PASSWORD_WORD + r"(?:m?i|mı|nı|ni)?" + _AFTER_NOUN + _FOR_WHAT
    + r"(?:[ \t]{1,3}[^\W\d_]{4,20})?"  # the verb between: "wachtwoord gewijzigd naar X"
    + r"[ \t]{1,3}(?:a|para|pra|em|en|in|naar|op|auf|zu|in|till|til|na|на|в|σε|ke|kepada|thành|sang)(?![^\W\d_])[ \t]{1,3}"
    + _VALUE
    + r"|(?<![^\W\d_])(?:ş|s)ifre(?:m|n|miz)?(?:i|ı|yi)[ \t]{1,3}" + _VALUE + r"[ \t]{1,3}olarak(?![^\W\d_])"
    + r"|(?:パスワード|暗証番号)を[ \t]{0,2}" + _VALUE + r"[ \t]{0,2}に"
    + r"|(?:비밀번호|비번|암호)를[ \t]{0,2}" + _VALUE
    + r"|(?:密码|密碼|口令)[ \t]{0,2}(?:改成了?|改为|改為|换成了?|換成了?|设为|設為|设置为|設置為|设成|設成)[ \t]{0,2}" + _VALUE,
    re.I,
)
_CHANGE_VERB = re.compile(
    r"cambi|mud|troqu|alter|defin|zmieni|ustawi|поменя|измени|смени|установ|змін|änder|geändert|gesetzt|setz|chang|modifi"
    r"|impost|verander|wijzig|ingesteld|byt|ändr|ændr|endr|vaihd|değiştir|ayarla|ganti|atur|đổi|άλλαξ|schimb|megváltoztat"
    r"|変え|変更|設定|바꿨|바꾸|변경|설정|改|换|換|设|設",
    re.I,
)

# "Use X as the password for the staging box": the value first, named a password after "as".
_USE_AS = re.compile(
    r"\b(?:use|using|try|enter|type|put[ \t]{1,3}in)[ \t]{1,3}" + _VALUE + r"[ \t]{1,3}as[ \t]{1,3}"
    r"(?:(?:the|my|your|our|his|her|their|a|an)[ \t]{1,3})?(?:[\w\-]{1,20}[ \t]{1,3}){0,2}?" + _PASSWORD_WORD,
    re.I,
)

# A PIN or a keypad code stated in any of the languages above: "Die PIN für die EC-Karte lautet 6029", "le code PIN de ma
# carte est le 2847", "пин-код: 4417", "the code for the gate is 4 8 1 5". The value is 4 to 8 digits, together or one
# by one, so the connectors may be broader than for a password (Polish "to", an article before the digits).
_DIGIT_WORDS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                "seven": "7", "eight": "8", "nine": "9"}
# Spanish, French, German, Italian, Portuguese, Dutch, Lithuanian, Scandinavian, Polish, Czech, Turkish and Indonesian
# digits, for a card or a PIN spoken digit by digit
for _digit, _words in enumerate(("cero zéro zero null nul nulis noll nula sıfır nol",
                                 "uno una un une eins eine um uma een één vienas ett en jeden jedna bir satu",
                                 "dos deux zwei due dois duas twee du två to dwa dva iki dua",
                                 "tres trois drei tre três trys tři trzy üç tiga",
                                 "cuatro quatre vier quattro quatro keturi fyra fire cztery čtyři dört empat",
                                 "cinco cinq fünf cinque vijf penki fem pięć pět beş lima",
                                 "seis six sechs sei zes šeši sex seks sześć šest altı enam",
                                 "siete sept sieben sette sete zeven septyni sju syv siedem sedm yedi tujuh",
                                 "ocho huit acht otto oito aštuoni åtta åtte otte osiem osm sekiz delapan",
                                 "nueve neuf neun nove negen devyni nio ni dziewięć devět dokuz sembilan")):
    for _word in _words.split():
        _DIGIT_WORDS.setdefault(_word, str(_digit))
# Korean, the Sino-Korean digits a card or a PIN is read out in ("육 공 일 일, 공 공 칠 사, ...")
for _syllable, _value in zip("영 공 일 이 삼 사 오 육 륙 칠 팔 구".split(), "001234566789"):
    _DIGIT_WORDS.setdefault(_syllable, _value)
# digits as a transcript mishears them: "for oh three five, one to two for", "five ate nine five"
for _heard, _value in (("for", "4"), ("fore", "4"), ("ate", "8"), ("won", "1"), ("too", "2")):
    _DIGIT_WORDS.setdefault(_heard, _value)
_DIGIT_WORD = "(?:" + "|".join(sorted(_DIGIT_WORDS, key=len, reverse=True)) + ")"
# English numbers said in pairs, as a PIN often is: "nineteen seventy-three", "twenty twenty", "double four", "oh seven"
_TEENS = {w: str(10 + i) for i, w in enumerate("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: str(2 + i) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_REPEATS = {"double": 2, "triple": 3}
_NUMBER_WORDS = frozenset([*_DIGIT_WORDS, *_TEENS, *_TENS, *_REPEATS])
_NUMBER_WORD = "(?:" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"

# Words that name a PIN and nothing else (no "code"): the digits may follow them with no connector ("пин-код от карты 4417").
_PIN_ONLY = (
    r"(?:(?<![^\W\d_])(?:(?:[tm]-?|upi[ \t]+)?pin(?:[ \t\-]?(?:code|kod|kode|koodi|number|nummer|nr|no))?|pincode"
    r"|(?:code|c(?:ó|o)digo|codice|kod)[ \t]+pin|"
    r"пин(?:[ \t\-]?код)?|пін(?:[ \t\-]?код)?|पिन|(?:ال)?رقم[ \t]+(?:ال)?سري|קוד[ \t]+סודי)(?![^\W\d_])|暗証番号)"
)
_PIN_WORD = (
    r"(?:" + _PIN_ONLY + r"|(?<![^\W\d_])(?:pass[ \t]?code|combination|combo|screen[ \t]?lock|lock[ \t]?screen"
    r"|clave[ \t]+(?:del[ \t]+cajero|de[ \t]+(?:la[ \t]+|mi[ \t]+)?tarjeta|de[ \t]+(?:firma|operaciones|acceso))"
    r"|unlock(?:[ \t]+(?:my|the|your)[ \t]+(?:phone|ipad|tablet|laptop))?|"
    r"(?:(?<!zip[ _\-])(?<!sort[ _\-])(?<!postal[ _\-])(?<!area[ _\-])(?<!error[ _\-])(?<!status[ _\-])(?<!country[ _\-])"
    r"(?<!exit[ _\-])(?<!return[ _\-])(?<!dress[ _\-])(?<!source[ _\-])(?<!promo[ _\-])(?<!discount[ _\-])"
    r"(?<!coupon[ _\-])(?<!tracking[ _\-])(?<!verification[ _\-])"
    r"(?<!commodity[ _\-])(?<!tariff[ _\-])(?<!customs[ _\-])(?<!product[ _\-])(?<!hs[ _\-])code))"
    r"(?![^\W\d_])|비밀번호)"
)


def _pin_value(group: int) -> str:
    """4 to 10 digits together (a smart lock's PIN has 9), 4 to 8 one by one, in pairs, or spoken ("four seven seven one"),
    and no unit after them; the value is group `group` of the pattern, its separators the next two."""
    return (
        rf"(\d{{4,10}}|\d(?:([ \-])\d)(?:\{group + 1}\d){{2,6}}|\d\d(?:([ \-])\d\d)(?:\{group + 2}\d\d){{0,2}}"
        r"|(?<![^\W\d_])" + _NUMBER_WORD + r"(?:[ \t,\-]{1,3}" + _NUMBER_WORD + r"){1,7})(?![\w.\-]?\d)(?![^\W\d_])"
        r"(?![ \t]{1,3}(?:lines?|editions?|words?|pages?|characters?|chars?|digits?|bytes?|times?|days?|weeks?|months?|years?|hours?"
        r"|minutes?|seconds?|people|users?|items?|points?|errors?|tests?|steps?|rows?|km|kg|mb|gb|%)(?![^\W\d_]))"
    )


_PIN_STATED = re.compile(
    _PIN_WORD + _FOR_WHAT
    + r"(?:[ \t]{1,3}(?:is|was|(?:will|would)[ \t]{1,3}be|est|es|ist|lautet|è|é|jest|to|je|это|är|er|on|adalah|là"
      r"|este|és|e|ay|ni|είναι|ήταν|היא|הוא|هي|هو|है)(?![^\W\d_])"
      r"(?:[ \t]{1,3}(?:now|le|el|la|der|die))?[ \t]{1,3}"
      r"|[ \t]{0,3}(?:[:=：]|—|–|->|=>|→|-(?=[ \t]))[ \t]{0,3}|[ \t]{0,3}#[ \t]{0,3}(?:[:=][ \t]{0,3})?"  # "PIN# 8812"
      r"|[ \t]{0,2}(?:は|는|은|คือ)[ \t]{0,2}"
      r"|[ \t]{0,3}[,?][ \t]{0,3}it(?:'s|’s|[ \t]{1,3}is)[ \t]{1,3})"  # "the card PIN? it's 4417"
    + _pin_value(1)
    # a word that names only a PIN needs no connector after what it is for: "пин-код от карты 4417", "ПІН-код картки: 3904"
    # (a year after such words is a date: "PIN valid until 2027")
    + r"|" + _PIN_ONLY + r"(?:[ \t]{1,3}[^\W\d_]{2,20}){1,3}?(?:[ \t]{0,3}[:=：#])?[ \t]{1,3}(?!(?:19|20)\d\d(?!\d))" + _pin_value(4)
    # a lock's combination needs no connector: "locker 118, combination 27-04-11"
    + r"|(?<![^\W\d_])(?:combination|combo|kombination|combinaison|combinaci(?:ó|o)n|combinazione)[ \t]{1,3}"
    + r"(?!(?:19|20)\d\d(?!\d))" + _pin_value(7)
    # Thai writes what the code opens straight after its word: "รหัสเข้าห้องเซิร์ฟเวอร์ชั้น 3 คือ 4 4 1 7"
    + r"|รหัส[^\n:：]{0,40}?คือ[ \t]{0,2}" + _pin_value(10)
    # Hindi puts "is" last: "मेरा एटीएम पिन 3391 है", "ताले का कोड 60-14-33 है"
    + r"|(?:पिन(?:[ \t\-]?(?:कोड|नंबर))?"
      r"|(?:ताले|ताला|दरवाज़े|दरवाजे|अलार्म|लॉकर|तिजोरी|गेट|सेफ|फ़ोन|फोन|एटीएम|कार्ड)"
      r"[ \t]{1,3}(?:का|की|के)[ \t]{1,3}कोड)[ \t]{1,3}" + _pin_value(13) + r"(?=[ \t]{1,3}है)",
    re.I,
)

# "make the laptop password X": no connector at all, so the value must look made up (checked as "password-made").
_MADE = re.compile(r"\b(?:make|made|making)\b[^\n.!?]{0,30}?" + _PASSWORD_WORD + r"[ \t]{1,3}" + _VALUE, re.I)

# "pass" alone is a common word ("bus pass", "pass the salt"): a value after it must look made up ("password-made"),
# and one without a connector must open a clause ("ssh root@host, pass X").
_PASS = re.compile(
    r"(?<![^\W\d_])pass" + _FOR_WHAT + r"(?:[ \t]{1,3}(?:is|was)[ \t]{1,3}|[ \t]{0,3}[:=][ \t]{0,3})" + _VALUE
    + r"|(?:^|[,;(])[ \t]{0,3}pass[ \t]{1,3}" + _VALUE,
    re.I | re.M,
)

# The value first, then the word that ends the phrase: "changed it to X (the wifi password)", "X is the router password."
# ("Version2 is the password manager" goes on past the word; "Tuesday2 is the day my password expires" has a clause.)
_VALUE_FIRST = re.compile(
    r"(?<!\S)([^\s\"'“”`()]{4,128})(?:[ \t]{0,2}\([ \t]{0,2}|[ \t]{1,3}(?:is|was)[ \t]{1,3})"
    r"(?:(?:the|my|our|his|her|their)[ \t]{1,3})?"
    r"(?:(?!(?:the|my|our|your|his|her|their|a|an|of|and|to|when|if)\b)[\w\-]{1,20}[ \t]{1,3}){0,2}"
    + _PASSWORD_WORD + r"(?=[ \t]{0,2}(?:[).,;:!?\n]|$))",
    re.I,
)

# A .pgpass line: host:port:database:user:password, each field but the password possibly "*".
_PGPASS = re.compile(
    r"(?<![^\s\"'])(\*|[A-Za-z0-9][\w.\-]{0,252}|/[\w.\-/]{1,252}):(?:\*|\d{1,5}):(?:\*|[^\s:\"']{1,63}):(?:\*|[^\s:\"']{1,63}):"
    r"((?:\\.|[^\s:\\]){1,256}?)(?:(?<=[^\"'])\"|(?<=[^\"'])'|)(?!\S)"  # a line in quotes too: line: "host:5432:db:user:X"
)

# A .netrc entry: machine NAME [login USER] [account A] password VALUE, on one line or several.
_NETRC = re.compile(
    r"\b(?:machine[ \t\r\n]{1,8}\S{1,253}|default)(?:[ \t\r\n]{1,8}(?:login|account|port)[ \t\r\n]{1,8}\S{1,128}){0,3}"
    r"[ \t\r\n]{1,8}password[ \t\r\n]{1,8}(\S{1,256})"
)
# the same lines written with "\n" escapes inside a string: printf 'machine h\nlogin u\npassword X\n' > ~/.netrc
_NETRC_ESCAPED = re.compile(r"\bmachine(?:[ \t]|\\n){1,4}[^\s\\'\"]{1,253}"
                            r"(?:(?:[ \t]|\\n){1,4}(?:login|account|port)(?:[ \t]|\\n){1,4}[^\s\\'\"]{1,128}){0,3}"
                            r"(?:[ \t]|\\n){1,4}password(?:[ \t]|\\n){1,4}([^\s\\'\"]{1,256})")

# A user:password given to an HTTP client: curl -u, --user, -sSfu; httpie -a; wget --http-password=.
_CLIENT_LOGIN = re.compile(
    r"\b(?:curl|http|https|xh|xhs|httpie|wget|aria2c)\b[^\n]{0,200}?"
    r"(?:[ \t](?:-[A-Za-z]{0,8}u|--user|--proxy-user|-a|--auth|-U)(?:[ \t]{1,3}|=)[\"']?[^\s:\"']{0,64}:([^\s\"']{1,128})"
    r"|[ \t]--(?:http-|ftp-|proxy-)pass(?:word|wd)?(?:[ \t]{1,3}|=)[\"']?([^\s\"']{1,128}))"
)

# A password given to a tool by its own flag: redis-cli -a X, htpasswd -b FILE USER X (-nb USER X).
_FLAG_VALUE = r"(\"[^\"\n]{1,128}\"|'[^'\n]{1,128}'|[^\s\"'\-][^\s\"']{2,127})"
_REDIS_AUTH = re.compile(r"\bredis-cli\b[^\n]{0,160}?[ \t](?:-a|--pass)[ \t]{1,3}" + _FLAG_VALUE)
_HTPASSWD = re.compile(r"\bhtpasswd((?:[ \t]{1,3}-[A-Za-z]{1,8}){1,4})((?:[ \t]{1,3}[^\s\-<>|;&][^\s<>|;&]{0,255}){2,3})")

# Other tools' documented password options. Each command line (up to a pipe, ';' or '&') is read for its tool's flags,
# so a line that gives two ("ssh-keygen -p -P OLD -N NEW") loses both.
_COMMAND = r"[^\n|;&]{0,300}"
_QUOTED_OR_WORD = r"(\"[^\"\n]{1,128}\"|'[^'\n]{1,128}'|[^\s\"']{1,128})"
_TOOL_FLAGS: tuple[tuple[re.Pattern, re.Pattern], ...] = tuple(
    (re.compile(r"(?<![\w\-./])(?:" + tool + r")(?![\w\-])" + _COMMAND), re.compile(flag))
    for tool, flag in (
        # Samba's user%password: smbclient -U alex%X, rpcclient -U 'admin%X'
        (r"smbclient|rpcclient|smbmap|smbcacls|smbget|smbtree|net",
         r"[ \t](?:-U|--user(?:name)?)(?:[ \t]{1,3}|=)[\"']?[^\s%\"']{1,64}%([^\s\"']{1,128})"),
        (r"ldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop|url)", r"[ \t]-w[ \t]{1,3}" + _FLAG_VALUE),
        (r"lftp", r"[ \t]-u[ \t]{1,3}[\"']?[^\s,\"']{1,64},([^\s\"']{1,128})"),  # user,password
        (r"ssh-keygen", r"[ \t]-[NP][ \t]{1,3}" + _FLAG_VALUE),
        (r"openssl", r"[ \t](?:-pass(?:in|out)?|-password)[ \t]{1,3}[\"']?pass:([^\s\"']{1,128})|[ \t]-k[ \t]{1,3}" + _FLAG_VALUE),
        (r"zip|unzip|zipcloak", r"[ \t](?:-P|--password)[ \t]{1,3}" + _FLAG_VALUE),
        (r"7z|7za|7zz|7zr", r"[ \t]-p(\"[^\"\n]{1,128}\"|'[^'\n]{1,128}'|[^\s\"'\-][^\s\"']{2,127})"),  # glued: -pSECRET
        (r"keytool|jarsigner", r"[ \t]-(?:src|dest)?(?:store|key)pass[ \t]{1,3}" + _FLAG_VALUE),
        (r"apksigner", r"[ \t]--(?:ks|key)-pass[ \t]{1,3}[\"']?pass:([^\s\"']{1,128})"),
        (r"gpg2?", r"[ \t]--passphrase(?:[ \t]{1,3}|=)" + _FLAG_VALUE),
        (r"sqlcmd|bcp|osql|isql|ipmitool", r"[ \t]-P[ \t]{1,3}" + _FLAG_VALUE),
        (r"xfreerdp|wlfreerdp|sdl-freerdp", r"[ \t]/p:" + _QUOTED_OR_WORD),
        (r"rdesktop", r"[ \t]-p[ \t]{1,3}" + _FLAG_VALUE),
        (r"snmp(?:walk|get|set|bulkwalk|bulkget|trap)", r"[ \t]-[AX][ \t]{1,3}" + _FLAG_VALUE),
        # net use Z: \\server\share PASSWORD /user:DOMAIN\name
        (r"net[ \t]{1,3}use", r"\\\\[^\s]{1,160}[ \t]{1,3}(?![/*])" + _FLAG_VALUE),
        (r"wpa_passphrase", r"(?<=wpa_passphrase)[ \t]{1,3}[^\s\"']{1,64}[ \t]{1,3}" + _QUOTED_OR_WORD),  # wpa_passphrase SSID PASSPHRASE
        # MinIO's client: mc alias set NAME URL ACCESS_KEY SECRET_KEY (mc config host add, of old)
        (r"mc[ \t]{1,3}(?:alias[ \t]{1,3}set|config[ \t]{1,3}host[ \t]{1,3}add)",
         r"(?<=[ \t])(?:https?://)\S{1,200}[ \t]{1,3}[^\s\-][^\s]{0,127}[ \t]{1,3}" + _QUOTED_OR_WORD),
    )
)
_ANY_TOOL = re.compile(r"smb|rpcclient|net|ldap|lftp|ssh-keygen|openssl|zip|7z|keytool|jarsigner|apksigner|gpg|sqlcmd|bcp|osql"
                       r"|isql|ipmitool|rdp|rdesktop|snmp|wpa_passphrase|mc[ \t]")

# A name that says secret, in a config file: db.password, ApiSecret, api-token, DB_PASS (not password_policy, token_ttl)
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SECRET_PARTS = frozenset("password passwd pass pwd passphrase secret token apikey credential credentials usercode passcode pincode"
                          .split())
_SECRET_PAIRS = frozenset({("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key"), ("signing", "key"),
                           ("revocation", "code"), ("recovery", "code"), ("backup", "code")})


def _names_a_secret(name: str) -> bool:
    """The name ends in a secret's word: "db.password", "ApiSecret", "signingKey" (not "passwordPolicy", "tokenEndpoint")."""
    parts = [p.lower() for p in _NAME_PART.findall(name)]
    return bool(parts) and (parts[-1] in _SECRET_PARTS or tuple(parts[-2:]) in _SECRET_PAIRS)


# <property name="db.password" value="X"/>, <add key="ApiSecret" value="X"/>: the value of an element named like a secret
_XML_NAMED_VALUE = re.compile(
    r"<[\w:.\-]{1,40}[^<>\n]{0,120}?[ \t](?:name|key|id|property)[ \t]{0,2}=[ \t]{0,2}([\"'])([^\"'<>\n]{1,80})\1"
    r"[^<>\n]{0,120}?[ \t]value[ \t]{0,2}=[ \t]{0,2}(?:\"([^\"\n]{1,256})\"|'([^'\n]{1,256})')"
)
# <password>X</password>, <db.secret>X</db.secret>
_XML_ELEMENT = re.compile(r"<([\w:.\-]{1,60})(?:[ \t][^<>\n]{0,120})?>([^<>\n]{1,256})</\1>")  # <Pass encoding="base64">X</Pass>
# a property list: <key>SYNC_PASSWORD</key> <string>X</string>
_PLIST_PAIR = re.compile(r"<key>([^<>\n]{1,60})</key>[ \t\r\n]{0,40}<(?:string|data)>([^<>]{1,1024})</(?:string|data)>")
# Terraform: variable "db_password" { ... default = "X" }
_TF_DEFAULT = re.compile(
    r"\bvariable[ \t]{1,3}\"([\w\-]{1,64})\"[ \t]{0,3}\{[^{}]{0,400}?\bdefault[ \t]{0,3}=[ \t]{0,3}\"([^\"\n]{1,256})\""
)
# A Wi-Fi network's QR string: WIFI:T:WPA;S:HomeNet;P:secret;; (';' and ':' inside a value are escaped with '\')
_WIFI_QR = re.compile(r"\bWIFI:(?:(?:\\.|[^;\\\n]){0,80};){0,8}?P:(\"(?:\\.|[^\"\\\n]){1,128}\"|(?:\\.|[^;\\\n\"]){1,128})")

# An authenticator's seed: "TOTP seed: JBSWY3DPEHPK3PXP", "2FA secret for the VPN = ...", "Authenticator setup key: ..."
_OTP_SEED = re.compile(
    r"(?<![^\W\d_])(?:totp|hotp|otp|2fa|mfa|two[ \t\-]factor|authenticator)(?:[ \t\-]{1,3}(?:app|auth|authenticator|setup))?"
    r"[ \t\-]{1,3}(?:seed|secret|key|setup[ \t]+key|secret[ \t]+key)(?![^\W\d_])"
    r"(?:[ \t]{1,3}(?:for|of|on|du|de|für|para)(?:[ \t]{1,3}[^\s:=,;.!?\"'`]{1,30}){1,3}?)?"
    r"(?:[ \t]{0,3}[:=][ \t]{0,3}|[ \t]{1,3}(?:is|was)[ \t]{1,3})"
    r"([A-Za-z2-7]{4}(?:[ \t][A-Za-z2-7]{4}){3,15}={0,6}|[A-Za-z2-7]{16,128}={0,6})(?![\w=])",  # spaced in fours, or not at all
    re.I,
)

# A seed in groups of four with no OTP word: "Enter this key in your app: 5x2q j7kd m3pa r6wz", "setup key manually: JBSW ..."
_GROUPED_SEED = re.compile(
    r"(?<![^\W\d_])(?:key|code|secret|seed)(?![^\W\d_])[^\n:]{0,60}:[ \t]{0,3}"
    r"([A-Za-z2-7]{4}(?:[ \t][A-Za-z2-7]{4}){3,7})(?![\w=])",
    re.I,
)

# A value on the line after its label: "Password:\nX", "Wi-Fi password\n\nX" (the line holds the value alone)
# (every word for a secret the screen reads works so: a PIN's, whose value is then 4 to 8 digits, and "secret" abroad,
# whose value must look made up: "New PIN:\n7305", "Secreto:\nTortuga-Mar-6")
_SECRET_WORD = (
    r"(?<![^\W\d_])(?:secret|secreto|secreta|segreto|segredo|secrète|sekret|hemlighet(?:en)?|hemmelighed(?:en)?"
    r"|hemmelighet(?:en)?|salaisuus|titok|секрет|μυστικό|rahasia)(?![^\W\d_])|秘密|シークレット"
)
_NEXT_LINE = re.compile(
    r"^[ \t]{0,4}(?:[#*>\-][#*>\- \t]{0,4})?(?:[^\W\d_][\w\-]{0,20}[ \t]{1,3}){0,2}"
    r"(?:" + _PASSWORD_WORD + r"|(?P<pin>" + _PIN_ONLY + r"|(?<![^\W\d_])(?:combination|combo)(?![^\W\d_]))"
    + r"|(?P<secret>" + _SECRET_WORD + r"))"
    + r"(?:[ \t]{0,2}\([^()\n]{1,30}\))?[ \t]{0,2}[:：]?[*_]{0,2}[ \t]{0,2}\r?\n(?:[ \t]{0,8}\r?\n)?[ \t]{0,8}`?"
    r"(?P<value>[^\s`]{4,128})`?[ \t]{0,4}$",
    re.I | re.M,
)

# A user and a password with no login word before them: "For the staging DB use app / Stg-Db-Pass-3", "as ops / X"
_USE_PAIR = re.compile(
    r"(?<![^\W\d_])(?:use|using|as|with|via)[ \t]{1,3}[A-Za-z_][\w.@\-]{1,31}[ \t]{1,3}/[ \t]{1,3}([^\s/\"'`]{6,64})"
)

# A card's code by its name in other languages, on a line that speaks of a card: "carte ..., cryptogramme 482"
_CARD_WORD = (
    r"(?:(?<![^\W\d_])(?:card|karte|kreditkarte|carte|tarjeta|carta|cart(?:ã|a)o|kaart|karta|карт[аыиу]|kort|kortti|kártya|"
    r"kartu|kad|kadi|kaati|kāri|kart[ıi]|κάρτα[ςσ]?|כרטיס|thẻ|visa|master[ \t]?card|amex|maestro|girocard|ec-karte|rupay"
    r"|unionpay)(?![^\W\d_])|بطاق|カード|卡号|卡號|信用卡|카드|कार्ड|บัตร)"
)
_CARD_CODE_ABROAD = re.compile(
    _CARD_WORD + r"[^\n]{0,100}?(?<![^\W\d_])"
    r"(?:cryptogramme(?:[ \t]+visuel)?|c(?:ó|o)digo[ \t]+de[ \t]+segur(?:idad|an(?:ç|c)a)|(?:karten)?pr(?:ü|ue)f(?:nummer|ziffer|code)"
    r"|sicherheits(?:code|nummer)|codice[ \t]+di[ \t]+sicurezza|beveiligingscode|kod[ \t]+zabezpieczaj(?:ą|a)cy"
    r"|код[ \t]+безопасности|s(?:ä|a)kerhetskod(?:en)?|sikkerhe(?:d|t)skode(?:n)?|turvakoodi|biztons(?:á|a)gi[ \t]+k(?:ó|o)d"
    r"|cod(?:ul)?[ \t]+de[ \t]+securitate|κωδικός[ \t]+ασφαλείας|verification[ \t]+(?:code|value))(?![^\W\d_])"
    r"[^\w\n]{0,3}(?:(?:is|est|es|ist|è|é|era|was)[ \t]{1,3}(?:le[ \t]{1,3})?)?(\d{3,4})(?![\d/.\-])",
    re.I,
)
# A card's number, then its expiry, then a bare three or four digits: its code ("4111 1111 1111 1111 12/28 123")
_CARD_EXPIRY_CODE = re.compile(
    r"(?<![\d.\-/])(\d{4}(?:[ \-]?\d{4}){3}(?:[ \-]?\d{3})?|3\d{3}[ \-]?\d{6}[ \-]?\d{5})"
    r"(?:[ \t]{0,2}[,;/|]?[ \t]{1,3}(?:[^\W\d_]{2,10}\.?:?[ \t]{0,2})?(?:0[1-9]|1[0-2])[ \t]?[/\-.][ \t]?(?:20)?\d\d"
    r"[ \t]{0,2}[,;/|]?[ \t]{1,3}(?:[^\W\d_]{2,6}\.?:?[ \t]{0,2})?"
    r"|([|;:,])(?:0[1-9]|1[0-2])\2(?:20)?\d\d\2)"  # a dump's fields: "4111111111111111|12|2027|123"
    r"(\d{3,4})(?![\d/.\-])"
    r"(?![ \t]{0,2}(?:[€$£¥%]|(?:EUR|USD|GBP|CHF|JPY|CAD|AUD|euros?|dollars?|pounds?)(?![^\W\d_])))"  # a price after the expiry
)

# Cards with separators the digit-group rule does not take: dots, slashes, underscores, no-break and thin spaces, and any
# mix of these with spaces and hyphens ("6011-1111.1111 1117"); the checksum decides (`_is_card` in secrets.py).
_ODD = (r"(?:[ \t\u00a0]?[\-.\/_,\u00b7\u2022\u2219\u22c5\u2010-\u2014\u30fb\uff65|][ \t\u00a0]?"  # dashes, commas, "・", " · "
        r"|[ \t\u00a0\u2002-\u200d\u202f\u2060\ufeff\u3000])")  # spaces of every width, none at all (a zero-width one)
_ODD_CARD = re.compile(
    rf"(?<![\d.,/_])(?:\d{{4}}{_ODD}\d{{4}}{_ODD}\d{{4}}{_ODD}\d{{4}}(?:{_ODD}\d{{3}})?|3\d{{3}}{_ODD}\d{{6}}{_ODD}\d{{5}})(?![\d])"
)

# After a card word or a network's name, digits in any grouping of two to eight, one separator throughout: "Discover
# 60114731 22371084", "Amex 3714.496353.98431".
_CARD_WORD_THEN_GROUPS = re.compile(r"(?:" + _CARD_WORD + r"|\bdiscover\b)[^\n\d]{0,40}?(?<!\d)"
                                    r"(\d{2,8}(" + _ODD + r")\d{2,8}(?:\2\d{2,8}){0,8})(?![\d])", re.I)
# American Express calls its four-digit code the CID
_AMEX_CID = re.compile(r"(?:\bamex\b|american[ \t]+express|\bcard\b)[^\n]{0,80}?\bCID\b[^\w\n]{0,3}(\d{4})(?!\d)", re.I)
# A card's digits one by one, each pair apart by the same space, hyphen or dot: "4 0 0 0 0 5 6 6 ...".
_DIGIT_BY_DIGIT = re.compile(r"(?<![\d.\-])(?<!\d )\d([ .\-])\d(?:\1\d){11,17}(?![ .\-]?\d)")
_SPOKEN_NUMBER = re.compile(rf"\b{_DIGIT_WORD}(?:[ \t,\-]{{1,3}}{_DIGIT_WORD}\b){{12,18}}", re.I)
# or read out in pairs: "forty-five thirty-nine, zero zero twenty-eight, ..." (the card's check decides)
_SPOKEN_PAIRS = re.compile(rf"\b{_NUMBER_WORD}(?:[ \t,\-]{{1,3}}{_NUMBER_WORD}\b){{5,18}}", re.I)

# A table column whose header says secret: every cell under it is one.
_PASSWORD_HEADERS = frozenset(
    """password passwords passwort kennwort passwd pwd pw passcode passphrase secret secrets contraseña contrasena senha
    wachtwoord hasło haslo пароль 密码 密碼 パスワード 비밀번호 lösenord heslo clave claves şifre sifre salasana passord
    adgangskode jelszó 비번 암호 口令""".split()
)
_PASSWORD_HEADER_PHRASES = frozenset({"mot de passe", "kata sandi", "mật khẩu", "palavra-passe", "magic word", "secret word",
                                       "code word", "pass phrase", "login code", "access code", "log-in code", "sign-in code"})
# "secret" in the languages the screen reads: a column so headed holds secrets too ("| app | usuario | secreto |") when
# its cells look made up
_SECRET_HEADERS = frozenset(
    """secreto secretos secreta secretas segreto segreti segredo segredos secrète sekret sekrety sekretet
    hemlighet hemmelighed hemmelighet salaisuus titok секрет секрети μυστικό סוד سر सीक्रेट ความลับ 秘密 シークレット 비밀 rahasia""".split()
)
# any word for a password the sentences are read for (forms above), in a header of up to four words: "Parolă", "Κωδικός"
_PASSWORD_IN_HEADER = re.compile(_PASSWORD_WORD, re.I)
# "pass" alone heads a password column, or a test's pass/fail column: its cells decide (see `_column_values`).
_PASS_HEADERS = frozenset({"pass"})
# letters with a digit or a sign, not a quantity ("3-day"): "Vault-Key-9"
_MADE_UP = re.compile(r"(?!\d{1,4}[ \-]?[^\W\d_]{1,12}$)(?=\S{0,63}[^\W\d_])(?=\S{0,63}[\d\W])\S{6,64}")
_NOT_A_PASSWORD_CELL = re.compile(r"(?i:pass(?:ed)?|fail(?:ed)?|skip(?:ped)?|ok|yes|no|y|n|true|false|n/a|-|—|✓|✗|✔|✘|x|\d+(?:[.,]\d+)?%?)")
_TOKEN_HEADERS = frozenset("token apikey".split())  # "token(s)" also counts a model's text: its cells must look random
# A column of logins: its cells are "user / password", "user:password" or one made-up value ("SSO" or "in 1Password" is none)
_CREDENTIAL_HEADERS = frozenset(
    "credential credentials creds zugangsdaten anmeldedaten identifiants credenciales credenciais credenziali inloggegevens".split()
)
_USER_AND_SECRET = re.compile(r"[^\s/:]{1,64}[ \t]{0,2}[/:][ \t]{0,2}(\S{3,128})")
_PIN_HEADERS = frozenset("pin pins combo combination combinations kombination combinaison combinación combinazione"
                         .split())  # "pin" is also a connector's pin: its cells must be 4-8 digits
_HEADER_NOT_SECRET = frozenset(
    """changed set updated reset expires expiry expired length policy age last date hint hints strength required status
    manager rotated rotation type count field column name names id ids set? changed? rules location where stored vault kept""".split()
)
_CODES_HEADING = re.compile(
    r"(?:\b(?:recovery|backup|2fa|mfa|one[ -]time|otp|scratch|emergency|verification)[ \t_\-]+(?:verification[ \t]+)?codes?\b"
    r"|\b(?:codes?|c(?:ó|o)digos?|codici)[ \t]+(?:de|di)[ \t]+(?:r(?:é|e)cup(?:é|e)ration|secours|sauvegarde|recuperaci(?:ó|o)n|"
    r"recupera(?:ç|c)(?:ã|a)o|respaldo|seguran(?:ç|c)a|backup|recupero|emergencia|emerg(?:ê|e)ncia)\b"
    r"|\b(?:wiederherstellungs|backup-?|sicherungs|notfall|herstel|reserve)codes?\b"
    r"|\bkody[ \t]+(?:zapasowe|odzyskiwania|jednorazowe)\b|\bjednorazowe[ \t]+kody\b|\bрезервные[ \t]+коды\b|\bкоды[ \t]+восстановления\b"
    r"|恢复码|恢復碼|恢复代码|恢復代碼|备用码|備用碼|备份码|備份碼|救援码|復原碼"
    r"|復元コード|バックアップコード|リカバリー?[ \t・]?(?:コード|キー)"
    r"|回復コード|予備コード|복구[ \t]?코드|백업[ \t]?코드|복구[ \t]?키"
    # Catalan, Hebrew, Arabic, Hindi, Thai, Swahili; Dutch "back-upcodes" (Filipino says "mga recovery code")
    r"|\bcodis[ \t]+de[ \t]+(?:recuperació|recuperacio|seguretat|còpia|copia|reserva)\b|\bback-?up-?codes?\b"
    r"|קודי[ \t]+(?:שחזור|גיבוי)|(?:رموز|أكواد)[ \t]+(?:الاسترداد|الاسترجاع|احتياطية|الاحتياط|النسخ[ \t]+الاحتياطي)"
    r"|(?:रिकवरी|बैकअप|पुनर्प्राप्ति)[ \t]+कोड|รหัส(?:สำรอง|กู้คืน)"
    r"|\b(?:misimbo|nambari)[ \t]+ya[ \t]+(?:kurejesha|akiba|dharura)\b"
    # keys as well as codes: "Recovery key:", "BitLocker recovery key", "Backup keys", "Chaves de recuperação"
    r"|\b(?:recovery|backup|2fa|mfa|emergency|rescue)[ \t]+keys?\b"
    r"|\b(?:chaves?|claves?|cl(?:é|e)s?|chiavi|chiave)[ \t]+(?:de|di)[ \t]+(?:recupera(?:ç|c)(?:ã|a)o|recuperaci(?:ó|o)n|"
    r"r(?:é|e)cup(?:é|e)ration|recupero|secours|respaldo|backup)\b"
    r"|\bwiederherstellungs-?schl(?:ü|ue)ssel\b|\bherstelsleutels?\b|\bключ(?:и)?[ \t]+восстановления\b"
    # codes in more languages: Scandinavian, Czech and Slovak, Turkish, Ukrainian, Hungarian, Greek, Romanian, Finnish,
    # Indonesian and Malay, Vietnamese
    r"|\b(?:reserv|reserve|gendannelses|gjenopprettings|(?:å|a)terst(?:ä|a)llnings|sikkerheds|sikkerhets)-?kod(?:e|er|erne|ene|ar|arna)?\b"
    r"|\b(?:z(?:á|a)lo(?:ž|z)n(?:í|é)|z(?:á|a)lohovac(?:í|i)|obnovovac(?:í|i))[ \t]+k(?:ó|o)dy\b"
    r"|\bk(?:ó|o)dy[ \t]+(?:pro|k)[ \t]+obnoven(?:í|i)\b"
    r"|\b(?:yedek|kurtarma)[ \t]+(?:kodlar(?:ı|i)?|anahtar(?:ı|i)?)|\bрезервні[ \t]+коди\b|\bкоди[ \t]+відновлення\b"
    r"|\b(?:helyre(?:á|a)ll(?:í|i)t(?:á|a)si|tartal(?:é|e)k)[ \t]+k(?:ó|o)d\w{0,3}|κωδικοί[ \t]+ανάκτησης|εφεδρικοί[ \t]+κωδικοί"
    r"|\bcoduri(?:le)?[ \t]+de[ \t]+(?:rezerv(?:ă|a)|recuperare)\b|\b(?:vara|palautus)koodit\b"
    r"|\bkod[e]?[ \t]+(?:cadangan|pemulihan|sandaran)\b|\bm(?:ã|a)[ \t]+(?:d(?:ự|u)[ \t]+ph(?:ò|o)ng|kh(?:ô|o)i[ \t]+ph(?:ụ|u)c)\b)"
    r"[^\n]{0,80}$",
    re.I | re.M,
)
# a code: a run with a digit, or groups joined by hyphens ("kx7m-2pqa", "abcde-12345"), or digit groups ("4827 1934")
_CODE_PIECE = re.compile(
    r"(?<![\w\-])(?:\d{3,10}(?: \d{3,10}){1,3}|(?=[A-Za-z0-9\-]{0,90}\d)[A-Za-z0-9]{3,40}(?:-[A-Za-z0-9]{2,10}){0,7}"
    r"|[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){1,3})(?![\w\-])"
)
_ANY_CODES_WORD = re.compile(
    r"c(?:o|ó)d|kod|kód|kood|код|коди|κωδικ|码|碼|コード|キー|코드|키|key|chave|clave|cl[ée]|chiav|schl(?:ü|ue)ssel|sleutel|ключ|anahtar"
    r"|m[ãa] |קוד|رموز|أكواد|कोड|รหัส|misimbo|nambari", re.I
)
_BULLETS = r"\s|#*•>+\-.):▸▹►▻▪▫◦‣⁃·∙●○■□◆◇→–—~"  # "~~4182 9035~~": a code crossed out is a code
# A line that introduces one-time codes without naming them: "each works once", "if you lose your phone", "single-use".
_CODES_INTRO = re.compile(
    r"(?:\b(?:each|every)[ \t]+(?:one[ \t]+|code[ \t]+)?(?:works|can[ \t]+be[ \t]+used|is[ \t]+(?:valid|good))"
    r"[ \t]+(?:only[ \t]+)?once\b"
    r"|\b(?:single|one)[ \t\-]use\b|\bif[ \t]+you[ \t]+(?:lose|lost|can't[ \t]+get[ \t]+to|no[ \t]+longer[ \t]+have)[ \t]+"
    r"(?:access[ \t]+to[ \t]+)?(?:your[ \t]+)?(?:phone|device|authenticator|security[ \t]+key|2fa))[^\n]{0,120}:[ \t]*$",
    re.I | re.M,
)
_ANY_ONCE_WORD = re.compile(r"once|use|lose|lost|access|longer", re.I)
_CODE_LINE_REST = re.compile(rf"[{_BULLETS}]*(?:(?:\d{{1,2}}|[\u2460-\u2473\u2776-\u277f])[\s|.):]*)?[{_BULLETS}]*")  # "1.", "①", "▸"
_CHECKBOX = re.compile(r"\[[ xX✓✔]?\]")
_INLINE_NUMBER = re.compile(r"(?<=\s)(?:\d{1,2}|[\u2460-\u2473])[.)](?=\s)")
_CJK = re.compile(r"[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]")

# Words that follow "the password is" in other languages when talk is about the password, not its value:
# "le mot de passe est obligatoire", "la contraseña es incorrecta", "das Passwort ist falsch", "пароль: неверный".
NOT_A_VALUE_ABROAD = frozenset(
    """obligatoire incorrect incorrecte invalide faux fausse expiré expirée oublié oubliée trop très requis requise nouveau
    nouvelle ancien ancienne le la les un une mon ma mes ton ta son sa notre votre leur dans sur pas bien mauvais correct
    correcte différent différente identique sécurisé faible fort forte court courte long longue vide changé changée
    obligatorio obligatoria incorrecta incorrecto inválida inválido errónea erróneo caducada caducado olvidada muy demasiado
    nueva nuevo vieja viejo el los las mi tu su en igual débil fuerte corta corto larga largo vacía segura seguro requerida
    falsch richtig ungültig abgelaufen vergessen zu sehr neu alt erforderlich leer sicher unsicher schwach stark kurz lang
    der die das ein eine mein dein sein ihr unser nicht noch gleich geändert
    obbligatoria errata sbagliata scaduta dimenticata troppo molto nuova vecchia il lo mia tua sua non corretta debole
    obrigatória incorreta inválida errada expirada esquecida muito velha um uma minha não fraca curta longa
    onjuist fout ongeldig verlopen vergeten te erg nieuw oud verplicht veilig zwak sterk kort het een mijn niet
    nieprawidłowe błędne wymagane nowe stare za bardzo moje jest
    неверный неверен неправильный обязателен обязательный новый старый слишком мой не
    fel ogiltigt nytt gammalt för inte mitt expire expires default automatic temporary
    voir cf siehe vgl ver véase vedi veja zie zobacz viz см bkz lihat xem
    más menos mais plus moins più meno mehr weniger meer minder
    steht liegt findet befindet
    ask frag fragen fragt pregúntale pregúntele pregunta pregunte preguntar pergunte pergunta perguntar demande demandez
    demander chiedi chiedere chieda vraag vraagt vragen zapytaj spytaj спроси спросите запитай spør spørg fråga kysy
    udløbet udløber forkert glemt ny nyt gammel gamle kort lang sikker svag stærk påkrævet ugyldig tom ændret
    utløpt feil nytt gamle sterk svak påkrevd endret
    greșită gresita incorectă incorecta expirată expirata prea scurtă scurta lungă lunga nouă noua veche obligatorie
    necesară uitată schimbată
    incorrecta obligatòria massa nova antiga curta llarga caducada oblidada
    túl rossz hibás lejárt új régi rövid hosszú kötelező érvénytelen
    salah lama terlalu pendek panjang wajib tamat lupa
    mali mahaba maikli bago luma
    si fupi ndefu mpya
    λάθος λανθασμένος λανθασμένη λανθασμένο νέος νέα παλιός παλιά πολύ μικρός μεγάλος υποχρεωτικός
    """.split()  # "see": "mot de passe : voir le coffre"; "steht": "Passwort: steht im Tresor"
)
_CLAUSE_GOES_ON = re.compile(
    r"[ \t]{1,3}(?!(?:for|now|today|yesterday|tomorrow|again|so|and|but|because|since|until|last|this|then|ok|okay)\b)[A-Za-z]"
)
_ANY_PIN_WORD = re.compile(r"pin|code|c(?:ó|o)digo|codice|kod|combo|combina|combinación|пин|пін|暗証|비밀|पिन|कोड|سري|סודי|รหัส"
                           r"|lock|clave", re.I)
# A cheap look before the patterns above: plain substrings of the lower-cased text (one fast scan each), not a regex
# alternation, which tries every word at every position.
_PASSWORD_HINTS = tuple("""pass pasw pssw psw pw wort contrase senha wacht has heslo jelsz senord kode passord salasana ifre парол 密 口令
    パスワード 暗証 비밀 비번 암호 sandi khẩu khau parol kodeord contrasenya laluan nenosiri siri κωδικ συνθηματ סיסמ كلمة पासवर्ड รหัสผ่าน
    slapta cyfrinair lozink geslo лозинк fjal lykilor pasahitz contrasinal wagwoord pasvort pasfhocal phasiwedi құпия нууц პაროლ
    գաղտնաբառ رمز گذرواژه پاس கடவுச்சொல் মুরপদ මුරපද পাসওয়ার্ড ពាក្យសម្ងាត់ የይለፍ
    wifi wi-fi wlan wpa router network réseau reseau red rede netz netwerk sieci сети パスコード""".split())


def _names_a_password_somewhere(text: str) -> bool:
    low = text.lower()
    return any(hint in low for hint in _PASSWORD_HINTS)


def unwritten_script(word: str) -> bool:
    """A value of Chinese, Japanese or Korean letters alone: "密码是错误的" says the password is wrong; CJK passwords are
    rare, and ones with a digit or a Latin letter in them are still taken."""
    return all(_CJK.match(c) for c in word)


def find_forms(text: str) -> list[Span]:
    """(kind, start, end) of every candidate secret value found by the form around it."""
    return [
        *_stated_passwords(text), *_stated_pins(text), *_pgpass_lines(text), *_netrc_entries(text), *_client_logins(text),
        *_tool_passwords(text), *_table_columns(text), *_codes_under_heading(text), *_odd_cards(text), *_spoken_cards(text),
        *_split_cards(text),
        *_config_values(text), *_otp_seeds(text), *_next_line_values(text), *_user_password_pairs(text), *_card_codes(text),
        *_handed_over(text), *_in_a_password_sentence(text), *_sent_in_pieces(text), *_written_exactly(text),
        *_given_to_a_tool(text), *_security_answers(text), *_secrets_file_lines(text), *_numbered_codes(text),
        *_shell_defaults(text), *_key_bytes(text), *_tool_keys(text), *_coded_runs(text),
    ]


# A key written as its bytes, under a name that says key: "network_key: [41, 7, 199, ...]" (Zigbee2MQTT), 16 to 64 of them
_KEY_BYTES = re.compile(r"(?i:(?<![\w\-])([\w\-]{0,30}key)[\"']?[ \t]*[:=][ \t]*)(\[[ \t]*(?:(?:0x)?[\da-fA-F]{1,3}[ \t]*,[ \t]*){15,63}"
                        r"(?:0x)?[\da-fA-F]{1,3}[ \t]*,?[ \t]*\])")


def _key_bytes(text: str) -> Iterator[Span]:
    if "[" in text:
        yield from (("secret-field", *m.span(2)) for m in _KEY_BYTES.finditer(text) if "public" not in m.group(1).lower())


# Asterisk's voicemail.conf: "201 => 730415,Reception,reception@example" (a mailbox, its PIN, its owner)
_VOICEMAIL_BOX = re.compile(r"(?m)^[ \t]*\d{1,10}[ \t]*=>[ \t]*-?(\d{3,12})[ \t]*(?:,|$)")
# A stream key, the last part of an RTMP address: "rtmp://a.rtmp.youtube.com/live2/1cps-1304-dcmx-ockc-oj4b"
_STREAM_KEY = re.compile(r"\brtmps?://[^\s/]{3,120}/(?:[^\s/]{1,60}/){1,3}([A-Za-z0-9][\w\-.?=&]{11,255})(?![\w\-.?=&/])")


# A form's fields dumped a name and a value to a line each (pdftk): "FieldName: CardCID" / "FieldValue: 4145"
_FIELD_PAIR = re.compile(r"(?im)^[ \t]*(?:field[ \t]?)?name[ \t]*:[ \t]*([\w.\-]{1,60})[ \t]*\r?\n"
                         r"(?:[ \t]*[\w]{1,20}[ \t]*:[^\n]*\n){0,2}?[ \t]*(?:field[ \t]?)?value[ \t]*:[ \t]*([^\s][^\n]{0,255}?)[ \t]*$")
_CARD_CODE_NAME = re.compile(r"(?i:cid|cvv2?|cvc2?|csc|security[_\-]?code|pin)$")
# Signal's backup passphrase: thirty digits in six groups of five, where the text speaks of a backup or Signal
_SIGNAL_PASSPHRASE = re.compile(r"(?<![\d ])\d{5}(?: \d{5}){5}(?![ ]?\d)")
# an auditd EXECVE record of mysql, its password as an argument: "a0=mysql a1=-u a2=backup_admin a3=-pGuillemot^Sorrel^63"
_AUDIT_MYSQL_PASSWORD = re.compile(r"\ba0=\"?mysql\w{0,6}\"?(?:[ \t]+a\d{1,2}=[^\s]*)*?[ \t]+a\d{1,2}=\"?-p([^\s\"\-][^\s\"]{2,127})")


# a code that registers or activates an app or a device for someone's account, as a bank's letter gives it:
# "Registrierungscode: 8K2F-7QTA-MX4D" (S-pushTAN), "Aktivierungscode", "Freischaltcode", "registration code"
_REGISTRATION_CODE = re.compile(r"(?i:registrierungs|aktivierungs|freischalt|registration[ \t]|activation[ \t])"
                                r"(?i:code|schl(?:ü|ue)ssel|key)[ \t]*[:=][ \t]*"
                                r"((?=[A-Z0-9\-]*\d)(?=[A-Z0-9\-]*[A-Z])[A-Z0-9]{3,6}(?:-[A-Z0-9]{3,6}){1,5})(?![\w\-])")


# A key in five to ten groups of four to six capitals and digits, one sign between them throughout, after a word for a
# key, a code or a recovery in one of many languages: "FileVault recovery key: K7QP-2MXD-9TWR-4HVN-8BJC-3LZF",
# "Ключ восстановления: ...", "復旧キー: ...", "restore key for the NAS: 7HQ2K-M9XPT-..."
_KEY_WORD_ABROAD = re.compile(r"(?i:(?<![^\W\d_])(?:key|keys|code|codes|cl(?:é|e)|schl(?:ü|ue)ssel\w*|\w*schl(?:ü|ue)ssel"
                              r"|clave|chave|chiave|sleutel|nyckel(?:n)?|n(?:ø|o)gle(?:n)?|n(?:ø|o)kkel(?:en)?|avain|klucz|kl(?:í|i)(?:č|c)|ключ\w*|anahtar\w*"
                              r"|kunci|kod|код\w*|c(?:ó|o)digo|codice|recovery|restore|r(?:é|e)cup(?:é|e)ration|recupera\w*|pemulihan"
                              r"|восстановлени\w*)(?![^\W\d_])|キー|코드|키|密钥|密鑰|恢复|復元|復旧)")
_GROUPED_KEY = re.compile(r"(?<![A-Za-z0-9\-])([A-Z0-9]{4,6}([\- ])[A-Z0-9]{4,6}(?:\2[A-Z0-9]{4,6}){3,8})(?![A-Za-z0-9\-])")


def _grouped_keys(text: str) -> Iterator[Span]:
    for m in _GROUPED_KEY.finditer(text):
        groups = re.split(r"[\- ]", m.group(1))
        mixed = sum(any(c.isdigit() for c in g) for g in groups) >= 3 and sum(any(c.isalpha() for c in g) for g in groups) >= 3
        if not mixed or all(re.fullmatch(r"[0-9A-F]+", g) for g in groups):
            continue  # a fingerprint's hex ("72C4 9F1B ..."), a number
        if _KEY_WORD_ABROAD.search(text, max(0, m.start() - 60), m.start()) \
                and not _PUBLIC_KEY_NOTE.search(text, max(0, m.start() - 80), m.start()):
            yield ("recovery-key", *m.span(1))


_PUBLIC_KEY_NOTE = re.compile(r"(?i:public|example|sample|placeholder|generic|dummy|\bkms\b|\btest)")


# A spreadsheet's LET naming a key that a web address is then built with: LET(k, "b71f0c9e...", ... "https://..."&k&"/...")
_LET_NAME = re.compile(r"\bLET\((?:[^()\n]*?,)?[ \t]*([A-Za-z_]\w{0,20})[ \t]*,[ \t]*\"([A-Za-z0-9_\-]{16,128})\"", re.I)


def _tool_keys(text: str) -> Iterator[Span]:
    yield from _grouped_keys(text)
    if "LET(" in text.upper() and "http" in text:
        for m in _LET_NAME.finditer(text):
            if re.search(rf"\"&[ \t]*{re.escape(m.group(1))}[ \t]*&", text) and any(c.isdigit() for c in m.group(2)):
                yield ("secret-field", *m.span(2))
    yield from (("backup-code", *m.span(1)) for m in _REGISTRATION_CODE.finditer(text))
    if "voicemail" in text:
        yield from (("pin", *m.span(1)) for m in _VOICEMAIL_BOX.finditer(text))
    if "rtmp" in text:
        yield from (("secret-field", *m.span(1)) for m in _STREAM_KEY.finditer(text) if re.search(r"\d", m.group(1)))
    if "alue" in text:
        for m in _FIELD_PAIR.finditer(text):
            name, value = m.group(1), m.group(2)
            if _CARD_CODE_NAME.search(name) and re.fullmatch(r"\d{3,8}", value):
                yield ("pin", *m.span(2))
            elif _names_a_secret(name):
                yield ("password-field", *m.span(2))
    if re.search(r"(?i:signal|backup|passphrase)", text):
        yield from (("recovery-key", *m.span()) for m in _SIGNAL_PASSPHRASE.finditer(text))
    if "a0=" in text:
        yield from (("password-flag", *m.span(1)) for m in _AUDIT_MYSQL_PASSWORD.finditer(text))


# Lines that each give a label and a PIN ("Engineer code: 3719 (alarm company only)"): where two of a run name a code or a
# PIN, every line of the run gives one ("Cleaner (user 3, part-set only): 1857")
_LABEL_THEN_DIGITS = re.compile(r"^[ \t]*(?:[-*•][ \t]+)?([^\n:]{2,60}):[ \t]*(\d{4,8})(?:[ \t]+\([^()\n]{1,60}\))?[ \t]*$")
_NAMES_A_CODE = re.compile(r"(?i:(?<![^\W\d_])(?:code|pin|passcode|combination)(?![^\W\d_]))")


def _coded_runs(text: str) -> Iterator[Span]:
    run: list[tuple[int, re.Match[str]]] = []
    pos = 0
    for line in [*text.split("\n"), ""]:
        if m := _LABEL_THEN_DIGITS.match(line):
            run.append((pos, m))
        else:
            if len(run) >= 3 and sum(bool(_NAMES_A_CODE.search(r.group(1))) for _, r in run) >= 2:
                yield from (("pin", at + r.start(2), at + r.end(2)) for at, r in run)
            run = []
        pos += len(line) + 1


# A shell's default for a variable named as a secret: "${DB_PASS:-Teal&Brick29}"
_SHELL_DEFAULT = re.compile(r"\$\{([A-Za-z_]\w{0,60}):?[-=]([^}\s]{3,120})\}")


def _shell_defaults(text: str) -> Iterator[Span]:
    if "${" in text:
        yield from (("password-field", *m.span(2)) for m in _SHELL_DEFAULT.finditer(text) if _names_a_secret(m.group(1)))


# A bank's list of numbered codes, each used once (a "Streichliste", a TAN list), and the lines under its name that give
# a number and its code: "Nr. 31: 48 27 19"
_CODE_LIST_NAME = re.compile(r"(?i:streichliste|(?<![^\W\d_])i?tan[ \t\-]?lis(?:te|ta|t)(?![^\W\d_])|indexliste|code-?liste"
                             r"|code[ \t]+list|lista[ \t]+(?:de[ \t]+c(?:ó|o)digos|tan)|liste[ \t]+de[ \t]+codes)")
_NUMBERED_CODE = re.compile(r"(?m)^[ \t]*(?:(?i:nr|no|n°|#)\.?[ \t]*)?\d{1,3}[ \t]*[:=.)\-][ \t]*(\d{2}(?:[ \t]\d{2}){2,3}|\d{4,8})[ \t]*$")
# or several to a line, in columns: "01 483920   06 719204   11 305918"
_NUMBERED_CODE_ROW = re.compile(r"(?m)^[ \t]*(\d{1,3}[ \t]*[:=.)\-]?[ \t]+\d{4,8}"
                                r"(?:[ \t]{2,}\d{1,3}[ \t]*[:=.)\-]?[ \t]+\d{4,8}){1,5})[ \t]*$")


def _numbered_codes(text: str) -> Iterator[Span]:
    if name := _CODE_LIST_NAME.search(text):
        yield from (("pin", *m.span(1)) for m in _NUMBERED_CODE.finditer(text, name.end()))
        yield from (("backup-code", *m.span(1)) for m in _NUMBERED_CODE_ROW.finditer(text, name.end()))  # the row whole


# A value in the place a tool or a file format keeps a secret: Dovecot's "{PLAIN}" scheme, an SNMP community string,
# "gh secret set NAME --body VALUE"
_GIVEN_TO_A_TOOL = re.compile(
    r"\{(?:PLAIN|CLEAR|CLEARTEXT|PLAIN-TRUNC)\}([^:\n]{1,64})"
    r"|(?i:\bsnmp\w*\b[^\n]{0,60}?\bcommunity(?:[ \t]+string)?[ \t]*(?:[:=][ \t]*|[ \t]+(?:is[ \t]+)?)[\"']?([^\s\"';,]{3,64}))"
    r"|(?i:\bsnmp\w*[ \t][^\n]{0,40}?[ \t]-c[ \t]?[\"']?([^\s\"'-][^\s\"']{2,63}))"
    r"|(?i:\bsecrets?[ \t]+set[ \t]+[\w\-]+[ \t]+(?:--body|-b)(?:[ \t]+|=)[\"']?([^\s\"']{4,256}))")
_DEFAULT_COMMUNITY = frozenset({"public", "private", "string", "authorization", "ro", "rw"})


def _given_to_a_tool(text: str) -> Iterator[Span]:
    for m in _GIVEN_TO_A_TOOL.finditer(text):
        g = next(i for i in range(1, 5) if m.group(i) is not None)
        if m.group(g).lower() not in _DEFAULT_COMMUNITY:
            yield ("config-secret", *m.span(g))


# A file of secrets printed by a command ("$ sudo cat /etc/rsyncd.secrets" / "famback:Lantern.Sorrel.Bay.12"): the value of
# each "name:value" line under it, up to the next prompt or a blank line
_SECRETS_FILE_SHOWN = re.compile(r"(?im)^[^\n]{0,40}?\b(?:cat|less|more|head|tail|bat|type|get-content|gc)[ \t]+[^\n]{0,80}?"
                                 r"(?:secret|passw|htpasswd|credential|\.pass\b|token)[^\n]{0,40}\n")
_SECRETS_FILE_LINE = re.compile(r"[ \t]*[^\s:#$][^\s:]{0,63}:([^\s:][^\s]{2,127})[ \t]*")


def _secrets_file_lines(text: str) -> Iterator[Span]:
    for shown in _SECRETS_FILE_SHOWN.finditer(text):
        pos = shown.end()
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            line = _SECRETS_FILE_LINE.fullmatch(text, pos, end)
            if line is None:
                break
            yield ("config-secret", *line.span(1))
            pos = end + 1


# The answers to a bank's security questions, when the text speaks of them: "mother's maiden name – Pengelly; name of
# first school – St Austell Board School"
_SECURITY_QUESTIONS = re.compile(r"\b(?:security|secret|memorable|verification)[ \t]+(?:questions?|answers?|data|word|information)\b", re.I)
_SECURITY_ANSWER = re.compile(
    r"\b(?:mother'?s[ \t]+maiden[ \t]+name"
    r"|(?:name[ \t]+of[ \t]+(?:\w+[ \t]+)?|\w+'s[ \t]+)?first[ \t]+(?:pet|school|teacher|car|street)(?:'s)?(?:[ \t]+name)?"
    r"|favou?rite[ \t]+(?:film|movie|book|teacher|food|colou?r|band|song|place)|(?:city|town|place)[ \t]+of[ \t]+birth"
    r"|birth[ \t]?place|childhood[ \t]+(?:nickname|friend|street)|street[ \t]+(?:\w+[ \t]+)?grew[ \t]+up[ \t]+(?:on|in))"
    r"[ \t]*(?:[–—:=\-]|\bis\b|\bwas\b)[ \t]*[\"'“‘]?([^;,.\n\"'”’()]{2,40}?)[\"'”’]?[ \t]*(?=[;,.\n]|$)", re.I)


def _security_answers(text: str) -> Iterator[Span]:
    if _SECURITY_QUESTIONS.search(text):
        for m in _SECURITY_ANSWER.finditer(text):
            yield ("config-secret", *m.span(1))


# A value given "written exactly like this" after talk of signing in: "sign in again, it's the usual family email and
# then our first street plus the flat number, written exactly like this: Harcourt Terrace 14b"
_EXACTLY_LIKE_THIS = re.compile(r"(?<![^\W\d_])(?:written|typed|spelt|spelled|entered)[ \t]+exactly[ \t]+(?:like[ \t]+this|as[ \t]+follows)"
                                r"[ \t]*:[ \t]*([^\n]{3,60}?)[ \t]*(?=[.!?]?[ \t]*(?:\n|$))", re.I)
_SIGNING_IN = re.compile(r"(?<![^\W\d_])(?:sign(?:s|ing)?[ \t\-]?in|log(?:s|ging)?[ \t\-]?in|login|unlock)(?![^\W\d_])|"
                         + _PASSWORD_WORD, re.I)


def _written_exactly(text: str) -> Iterator[Span]:
    for m in _EXACTLY_LIKE_THIS.finditer(text):
        if _SIGNING_IN.search(text, max(0, m.start() - 200), m.start()):
            yield ("password", *m.span(1))


# A password sent a chat message at a time: "Sigrid: passordet til Netflix er" / "Sigrid: Fjellrev" / "Sigrid: og så
# Trolltunga" / "Sigrid: og tallene 5906 helt til slutt". A line of a speaker that names a password and gives nothing
# after it; then, from the same speaker, a word alone after a joining word, and any run of digits.
_CHAT_LINE = re.compile(r"(?m)^[ \t]*(?:\[[^\]\n]{1,40}\][ \t]*|[\d/.,: \t]{6,24}(?:[AaPp]\.?[Mm]\.?)?[ \t]*[\-–][ \t]*)?"
                        r"([^\W\d_][^\n:\[\]]{0,38}?)[ \t]*:[ \t]*([^\n]*)$")
_ONLY_TALK = re.compile(r"(?:[ \t]*[,;]?[ \t]+[a-z']{1,15}){1,12}[ \t]*[.!…]?[ \t]*\Z")  # ", splitting it bc discord keeps hiding it lol"
_NOTHING_GIVEN = re.compile(r"(?:[ \t]+[^\W\d_]{1,15}){0,5}[ \t]*(?:[:=：\-–—…]|\.{2,3})?[ \t]*\Z")
_JOINING_WORD = re.compile(r"(?i)(?:(?:the[ \t]+)?(?:first|next|last|second|third)[ \t]+(?:bit|part|piece|word)(?:[ \t]+is)?"
                           r"|(?:chữ|phần)[ \t]+(?:đầu|tiếp|cuối)[ \t]+là"
                           r"|and[ \t]+then|then|and|first|followed[ \t]+by|og[ \t]+s(?:å|a)|og|s(?:å|a)|och[ \t]+sen|sen|dann|und"
                           r"|puis|et|luego|despu(?:é|e)s|y|depois|e|poi|potem|i|a[ \t]+pak|pak|sitten|ja|sonra|ve|rồi|sau[ \t]+đó"
                           r"|पहले|फिर|और|然后|그리고|그다음|それから|次に)(?![^\W\d_])[ \t]*")
_A_WORD_ALONE = re.compile(r"[ \t]*([^\s,.;:!?\"'“”]{3,40})(?:,?[ \t]+(?:with[ \t]+a[ \t]+)?(?:capital|big|small)[ \t]+[A-Za-z]"
                           r"|,?[ \t]+(?:all[ \t]+)?lower[ \t\-]?case|,?[ \t]+no[ \t]+spaces?)?[ \t]*[.!]?[ \t]*\Z")
_A_DIGIT_RUN = re.compile(r"(?<![\w.,/:\-])\d{3,12}(?![\w/:\-]|[.,]\d)")


def _sent_in_pieces(text: str) -> Iterator[Span]:
    if text.count(":") < 3 or not _names_a_password_somewhere(text):
        return
    lines = list(_CHAT_LINE.finditer(text))
    for i, line in enumerate(lines):
        said = line.group(2).replace("\u200c", "\u0640")  # a zero-width non-joiner inside a word ("وای‌فای") keeps it one word
        words = list(re.finditer(_PIECES_NAMED, said))
        if not words or len(said) > 120 or not (_NOTHING_GIVEN.match(said, words[-1].end()) or _ONLY_TALK.match(said, words[-1].end())):
            continue
        pieces: list[str] = []
        for piece in lines[i + 1:i + 6]:
            if pieces and piece.group(1) != line.group(1):  # the whole said back: "Golnar.Tajrish1368?"
                for m in re.finditer(r"[^\s?؟,،]{6,64}", piece.group(2)):
                    whole = m.group().rstrip("!.")
                    if sum(p in whole for p in pieces) >= 2:
                        yield ("password", piece.start(2) + m.start(), piece.start(2) + m.start() + len(whole))
                continue
            if piece.group(1) != line.group(1):
                break  # someone else speaks: the pieces, if any, are over
            at = piece.start(2)
            rest = piece.group(2)
            if len(rest) > 60:
                break
            rest = re.sub(r"`([^`\n]{1,40})`", r" \1 ", rest)  # a piece in a code span: "`Gossamer`"
            joined = _JOINING_WORD.match(rest)
            alone = _A_WORD_ALONE.fullmatch(rest, joined.end() if joined else 0)
            if alone and (joined or any(c.isupper() or c.isdigit() for c in alone.group(1))) \
                    and alone.group(1).casefold() not in NOT_A_VALUE_ABROAD:
                pieces.append(alone.group(1))
                yield ("password", at + alone.start(1), at + alone.end(1))
            elif not alone and _only_another_script(_LATIN_WORD.sub(" ", rest)):  # a Latin word among another script's: "اولش Golnar"
                for m in _LATIN_WORD.finditer(rest):
                    if any(c.isupper() or c.isdigit() for c in m.group(1)) and m.group(1).casefold() not in NOT_A_VALUE_ABROAD:
                        pieces.append(m.group(1))
                        yield ("password", at + m.start(1), at + m.end(1))
            for m in _A_DIGIT_RUN.finditer(rest):
                pieces.append(m.group())
                yield ("password", at + m.start(), at + m.end())


# what names a password sent in pieces: the password words, and Persian's "رمز" (a code, a password) before what it opens
_PIECES_NAMED = re.compile(_PASSWORD_WORD + r"|(?<![^\W\d_])رمز(?![^\W\d_])", re.I)


# Values handed over in shapes of their own: piped into a login ("echo 'X' | docker login --password-stdin"), an
# Oracle login ("scott/tiger@//host", "sqlplus scott/tiger@db"), a session cookie, a wallet's private key in hex near
# the wallet, a safe's combination, "log in with `root` and `X`", a network's password stated in prose ("el wifi es X").
_PIPED = re.compile(r"\b(?:echo|printf)[ \t]+(?:-n[ \t]+)?([\"']?)([^\s\"'|]{3,128})\1[ \t]*\|[^\n|]{0,120}?--?password-stdin\b")
_ORACLE = re.compile(r"(?:\bthin:@?|\b(?:sqlplus|sqlldr|expdp|impdp|rman)[ \t]+(?:-s[ \t]+)?|\bconnect[ \t]+)"
                     r"[\w$#.-]{1,30}/([^@\s/\"']{3,64})@")
# a code that gives an account back, as a setting: "revocation_code":"R48217", recovery_code = 7731-0042
_CODE_FIELD = re.compile(r"(?<![\w])[\"']?(?:revocation|recovery|backup|rescue|emergency)[_\-]?codes?[\"']?[ \t]{0,3}[:=][ \t]{0,3}"
                         r"[\"']?([A-Za-z0-9][A-Za-z0-9\-]{4,40})(?![\w\-])", re.I)
# a SIP address with its password: "sip:2042:X@pbx.example" (no "//" after the scheme, so no URL's userinfo)
_SIP_USERINFO = re.compile(r"(?<![\w.+-])sips?:[^:@\s/;]{1,64}:([^@\s;]{1,128})@[\w.\-]{1,253}", re.I)
# any cookie named for a session, or with a browser's own prefix, whose value mixes letters and digits
_ANY_SESSION_COOKIE = re.compile(r"(?<![\w.-])(?:__(?:Host|Secure)-[\w.\-]{1,40}|[\w.\-]{0,20}(?i:sess)(?:ion)?(?!s)[\w\-]{0,20}"
                                 r"|\.ASPXAUTH|\.AspNetCore\.[\w.]{1,40})="  # ASP.NET's: "ASP.NET_SessionId", ".ASPXAUTH"
                                 r"((?=[^;\s,]{0,200}[A-Za-z])(?=[^;\s,]{0,200}\d)[^;\s,]{16,})")
# SQL that sets a user's password: "ALTER USER 'wp'@'localhost' IDENTIFIED BY 'X'", "CREATE USER ... WITH PASSWORD 'X'"
_SQL_PASSWORD = re.compile(r"\b(?:IDENTIFIED[ \t]+(?:WITH[ \t]+\w{1,40}[ \t]+)?BY|WITH[ \t]+(?:ENCRYPTED[ \t]+)?PASSWORD)[ \t]+"
                           r"'([^'\n]{1,128})'", re.I)
# a mail app password: four groups of four letters, after an address or a password word on its line ("user@gmail.com:wkqz
# bnhe tlrp sxau", "password hvtr lkbe opsd")
_APP_PASSWORD = re.compile(r"(?:@[\w.\-]{1,253}[:\s]|pass\w{0,6}[ \t:=]{1,3})[ \t]{0,4}([a-z]{4}(?: [a-z]{4}){3})(?![\w])", re.I)
_SESSION_COOKIE = re.compile(r"(?<![\w.-])(?:sessionid|session_id|sessid|phpsessid|jsessionid|connect\.sid|laravel_session|_session_id|"
                             r"_?[a-z]{2,20}_session|sid|auth_token|remember_token|remember_user_token)=([^;\s,]{12,})", re.I)
_HEX_KEY_NEAR_WALLET = re.compile(r"\b(?:metamask|private[ \t]+key|privkey|wallet|imported?)\b[^\n]{0,100}?"
                                  r"(?<![0-9a-fA-Fx])((?:0x)?[0-9a-fA-F]{64})(?![0-9a-fA-F])", re.I)
_COMBINATION = re.compile(r"\bcombination\b[^:\n]{0,40}?:[ \t]{0,3}([^\n]{3,60}?\d[^\n]{0,40}?)(?=[ \t]*(?:$|\n|\.[ \t]|\.$))", re.I | re.M)
# "set the hotel safe to 061193", "I've changed the gate keypad to 4471": a lock given its digits
_LOCK_SET_TO = re.compile(r"\b(?:set|changed?|reset|programm?ed?|switched)\b[^\n.!?]{0,30}?\b(?:(?:safe|padlock|keypad|lockbox"
                          r"|key[ \t]?safe"
                          r"|key[ \t]?box)(?:[ \t]+(?:code|combination|pin))?|(?:lock|alarm)[ \t]+(?:code|combination|pin))"
                          r"[ \t]+(?:over[ \t]+)?to[ \t]+(\d{4,8})(?![\d:/]|[.,]\d)", re.I)
_SECRET_DIRECTIVE = re.compile(r"(?m)^[ \t]{0,8}(requirepass|masterauth|masterpass|auth_pass|rpcpassword|wpa_passphrase|psk|secret|"
                               r"password|passwd|passphrase|sasl_password|bind_pw|bindpw|rootpw|auth-user-pass|pre-shared-key)"
                               r"[ \t]{1,8}(\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'#;]{3,256})[ \t]*(?:[#;][^\n]*)?$", re.I)
# an ini or keyfile line whose value runs to the line's end, spaces and all ("psk=Pivo s medom 77" in a NetworkManager file)
_INI_SPACED_VALUE = re.compile(r"(?m)^[ \t]{0,8}(?:psk|password|passwd|passphrase|wpa_passphrase|secret|pre-shared-key)="
                               r"([^\s\"'#;=][^\n\"'#;=]{0,62}?[ \t][^\n\"'#;=]{0,62}?[^\s\"'#;=])[ \t]*$", re.I)
# a key written as digits in groups of four, twelve groups or more (WhatsApp's 64-digit backup key)
_DIGIT_KEY = re.compile(r"(?<![\d\-.,/:])\d{4}(?:(?:[ \t]|[ \t]*\n[ \t]*)\d{4}){11,}(?![\d\-/:]|[.,]\d)")
# a key written as letters and digits in groups of four, eight groups or more (a Matrix client's security key)
_MIXED_KEY = re.compile(r"(?<![\w\-.,/:])[A-Za-z0-9]{4}(?:[ \t][A-Za-z0-9]{4}){7,}(?![\w\-/:])")
# keys written as dash-joined groups, a line each, two lines or more ("XUMH-WDM2-MP7R-DKDO-UYPU"): a backup's key, not an id
_GROUP_KEY_LINE = re.compile(r"(?m)^[ \t]*((?=[A-Z0-9\-]{0,40}\d)[A-Z0-9]{4,5}(?:-[A-Z0-9]{4,5}){3,7})[ \t]*$")
# one code that restores an account: "restore code 7BUTRYGMJJ", "recovery key: 4F2K-9QXM-..."
_ONE_RESTORE_CODE = re.compile(r"(?i:\b(?:restore|recovery|backup|rescue|emergency|unlock|revocation)[ \t]+(?:code|key))"
                               r"[ \t]{0,3}(?:is[ \t]+|[:=][ \t]{0,3})?"
                               r"(?=[A-Z0-9\-]{0,60}\d)(?=[A-Z0-9\-]{0,60}[A-Z])([A-Z0-9]{4,40}(?:-[A-Z0-9]{2,10}){0,9})(?![\w\-])")
# a keypair as a JSON array of its 64 bytes (Solana's id.json)
_KEYPAIR_BYTES = re.compile(r"\[[ \t\n]*(?:\d{1,3}[ \t\n]*,[ \t\n]*){63}\d{1,3}[ \t\n]*\]")
_LOGIN_WITH = re.compile(r"\blog[ \t\-]?(?:in|on)[ \t]+(?:with|as|using)[ \t]+([`'\"]?)[^\s`'\"]{1,64}\1[ \t]+(?:and|with|/|,)[ \t]+"
                         r"(?:password[ \t]+)?"
                         r"([`'\"]?)([^\s`'\"]{3,128}?)\2(?=[\s,.;!?)]|$)", re.I)
_NETWORK_STATED = re.compile(rf"(?<![^\W\d_]){_NETWORK}[ \t]{{1,3}}(?:is|es|ist|est|è|é|er|är|on|jest|je)[ \t]{{1,3}}"
                             rf"([^\s,;]{{6,64}})", re.I)


# (not the command that changes one: "a0=passwd a1=backup_admin", "sudo passwd backup_admin")
_PASSWORD_THEN_VALUE = re.compile(rf"(?<![=/])(?<!sudo )(?<!\$ ){_PASSWORD_WORD}[ \t]{{1,3}}([^\s,;]{{6,64}})", re.I)
_WRAPPED = re.compile(r"\n[ \t]{0,3}([^\s]{2,64})[ \t]*(?=\n|$)")
_PIN_LABEL = re.compile(r"(?<![\w\-])(?:\w{1,20}-){0,4}PIN[ \t]{0,2}[:=][ \t]{0,3}([^\s]{4,64})")


_ARCHIVE_FLAG = re.compile(r"\b(?:unrar|rar|7z|7za|7zr)\b[^\n]*?[ \t]-p([^\s\-][^\s]{2,127})|\bzip\b[^\n]*?[ \t]-P[ \t]+([^\s]{3,128})")
# A value shaped like a made-up password (words or pieces joined by signs, with a digit: "Brezel-Kater-39",
# "Glacier_Moth_51", "Olivo#Sol-82"; not an address, "backup@10.20.0.4") in the sentence of a password or login
# word, in any language: "Ich hab's auf Brezel-Kater-39 geändert ... Kennwort", "Giriş için 'Lale-Boğaz-77' kullan".
_LOGIN_WORD = (r"(?:(?<![^\W\d_])(?:log[ \t\-]?in|log[ \t]+on|sign[ \t\-]?in|giri(?:ş|s)|anmeld\w*|connexion|"
               r"iniciar[ \t]+sesi(?:ó|o)n|accesso|"
               r"entrar|inloggen|logowani\w*|zaloguj|p(?:ř|r)ihl(?:á|a)\w*|вход\w*|войти|кіруге|passwordnya|sandinya|đăng[ \t]+nhập|masuk|"
               r"belépés|kirjaudu|σύνδεση|התחבר\w*)(?![^\W\d_])|تسجيل[ \t]+الدخول|لتسجيل[ \t]+الدخول|ログイン|登录|登入|로그인|लॉगिन)")
_SHAPED_PART = r"[^\W_][^\s'\"`,;:()<>/=?\-_#!@$%&*+\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{0,30}"
# two joiners at least ("Seite-12" is a page)
_SHAPED = (r"(?![^\s'\"`,;:()]{0,80}@[\w-]+\.[\w.-]+)(?![^\s'\"`,;:()<>]{0,80}%[0-9A-Fa-f]{2})"
           r"(?=[^\s'\"`,;:()<>]{0,80}\d)(?=[^\s'\"`,;:()<>]{0,80}[^\W\d_])"
           + _SHAPED_PART + r"(?:[-_#!@$%&*+]" + _SHAPED_PART + r"){2,6}")
_SHAPED_NEAR_WORD = re.compile(rf"(?:{_PASSWORD_WORD}|{_LOGIN_WORD})[^.!?\n]{{0,80}}?['\"`„“«]?({_SHAPED})"
                               rf"|['\"`„“«]?({_SHAPED})['\"`“”»]?[^.!?\n]{{0,80}}?(?:{_PASSWORD_WORD}|{_LOGIN_WORD})", re.I)
_PASSWORD_OR_LOGIN = re.compile(rf"{_PASSWORD_WORD}|{_LOGIN_WORD}", re.I)
# the answer a few lines after the question: "Q: did you change the NAS admin login?" ... "A: went with periwinkle-abacus-52"
_SHAPED_LINES_AFTER = re.compile(rf"(?:{_PASSWORD_WORD}|{_LOGIN_WORD})[^\n]{{0,80}}(?:\n[^\n]{{0,80}}){{1,3}}?[ \t'\"`]({_SHAPED})", re.I)
_PASSPHRASE_WORDS = re.compile(r"\bpass[ \t\-]?phrase\b[^\n:]{0,40}?\bwords?[ \t]{0,2}:[ \t]{0,3}"
                               r"((?:[^\W\d_]{2,20}[ \t,]{1,3}){2,11}[^\W\d_]{2,20})", re.I)
_HTML_ROW = re.compile(r"<tr[^>]*>(.*?)</tr>", re.I | re.S)
_HTML_CELL = re.compile(r"<t([hd])[^>]*>(.*?)</t[hd]>", re.I | re.S)
_CARD_LABEL_LINES = re.compile(_CARD_WORD + r"[^\n\d]{0,20}\n?((?:[ \t]*\d{4,6}(?:[ \t]\d{3,6}){0,3}[ \t]*\n){1,3}"
                               r"[ \t]*\d{3,6}(?:[ \t]\d{3,6}){0,3})", re.I)


# ---------------------------------------------------------------------------------- a sentence about a password
# A short sentence that names a password, a PIN or a code, in any of the languages above, and holds a value in some
# shape of its own: digits ("kartın şifresi 4705", "a bankkártya PIN-kódja 6194", "আমার এটিএম পিন ৫২৮৩"), a quoted
# value ("la cambié a 'luna llena 7'"), letters with digits ("I changed it to wombat77"), a Latin word in a sentence
# of another script ("लैपटॉप का पासवर्ड मैंने jalebi रख दिया है"), a word given "as the password" ("gebruik kroket als
# wachtwoord"), a Turkish password word followed by its value ("bilgisayarın şifresi lokum"), or the one word on the
# line after a question for it ("what's the password for the family gmail?\nhazelnut").
_CODE_WORD = (r"(?:(?<![^\W\d_])(?:pin|pins|puk|pin-?k(?:ó|o)d\w*|\w{2,12}kod(?:en|u|a)?|\w{2,12}koden|kod\w{0,3}|k(?:ó|o)d\w{0,3}|"
              r"code|codes|c(?:ó|o)digo|codice|codul|clave|parol\w*|şifre\w*|sifre\w*|namba[ \t]+ya[ \t]+siri"
              r"|nambari[ \t]+ya[ \t]+siri|mdp|"
              r"пін\w*|пин\w*|код\w*)(?![^\W\d_])|密碼|密码|暗証番号|비밀번호|비번|پین|رمز|পিন|পাসওয়ার্ড|पिन|รหัส"
              r"|ಪಿನ್|పిన్|പിൻ|ਪਿੰਨ|પિન)")
_PASSWORD_OR_CODE = re.compile(rf"{_PASSWORD_WORD}|{_CODE_WORD}", re.I)
# what a bare number beside it is the value of: a PIN, a door's or an alarm's code, a password (not "code" alone, "κωδικός
# της παραγγελίας" or "código" of an order)
_PIN_FOR_DIGITS = re.compile(r"(?:(?<![^\W\d_])(?:pin|pins|puk|mpin|pin-?k(?:ó|o)d\w*|\w{2,12}kod(?:en)?|şifre\w*|sifre\w*|"
                             r"namba[ \t]+ya[ \t]+siri|keypad|alarm[ \t]+(?:panel|keypad|system)"
                             r"|geheimzahl|geheimnummer|pass(?:word|wort|code)s?|pass[ \t]?number|mot[ \t]+de[ \t]+passe"
                             r"|contrase(?:ñ|n)a|senha|"
                             r"wachtwoord|has(?:ł|l)o|heslo|l(?:ö|o)senord\w*|"
                             r"парол\w*|пин-?код\w*|пін-?код\w*)(?![^\W\d_])|密碼|密码|暗証番号|비밀번호|পিন|पिन|পাসওয়ার্ড)", re.I)
_SENTENCE_PIECE = re.compile(r"[^.!?;\n。！？；]+")
# or "code" with what it opens: "door code 7734#", "el código de la alarma es 4412", "Torcode", "门禁", "домофон"
_A_CODE = re.compile(r"(?<![^\W\d_])(?:codes?|c(?:ó|o)digo|codice|codul|kod\w{0,3}|k(?:ó|o)d\w{0,3}|код\w{0,3}|κωδικ\w*|combination|combo|"
                     r"\w{2,12}code)(?![^\W\d_])|コード|密码|密碼|번호", re.I)
_WHAT_IT_OPENS = re.compile(r"(?<![^\W\d_])(?:door|front\s+door|gate|alarm\w*|garage|locker|lock|padlock|safe|building|entry|entrance|"
                            r"unlock|voicemail|sim|keypad|intercom|buzzer|tür\w*|porte|portail|puerta|portal|porta|portão|portone|cancello|"
                            r"allarme|garaje|garagem|candado|cadenas|lucchetto|cadeado|drzwi|domofon\w*|dveř\w*|"
                            r"key\s?box|key\s?safe|lockbox|cutia\s+cu\s+chei|u(?:ș|s)(?:ă|a|ii)|lac(?:ă|a)t\w{0,3}|interfon\w{0,3}|"
                            r"bo(?:î|i)te\s+(?:à|a)\s+cl(?:é|e)s|caja\s+de\s+llaves|schl(?:ü|ue)ssel(?:kasten|box|safe)|"
                            r"двер\w*|домофон\w*|сигнализац\w*|kapı\w*|deur|poort|dörr|port|låset|lås|ovi|dør)(?![^\W\d_])"
                            r"|門|门|ドア|玄関|문|도어|금고", re.I)
# 4 to 8 digits, not a year or a time after "in", "at", "since" ..., not a quantity
_DIGITS_VALUE = re.compile(r"(?<![\w.,/:\-])(?<![\w\-]\[)"  # not a process's id: "sshd[51207]"
                           r"(?<!\bin )(?<!\bat )(?<!\bthe )(?<!since )(?<!until )(?<!\bby )(?<!\bof )(?<!from )"
                           r"(?<!before )(?<!after )(?<!year )(?<!years )(?<!\d )"  # not a group of a longer number
                           r"(\d{4,8})(?:[#*])?(?![\w./:\-]|,\d| \d|[ \t]?(?:%|€|\$|kg|km|mb|gb|px|am|pm|h\b|hours?|years?|times))")
# a number that something else labels: "error code 5012", "flight code BA 2490", "room 4412", "order #55210"
# the year of a date written out: "on 3 July 2025", "March 14, 2026", "le 3 juillet 2025"
_YEAR_OF_A_DATE = re.compile(r"(?<![^\W\d_])(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
                             r"|janv|f(?:é|e)vr|avr|juil|ao(?:û|u)t|d(?:é|e)c"
                             r"|ene|abr|ago|dic|m(?:ä|a)r|mai|okt|dez|gen|giu|lug|ott|dic|set|out)[^\W\d_]{0,7}\.?[ \t]+"
                             r"(?:\d{1,2}(?:st|nd|rd|th)?,?[ \t]+)?(?:de[ \t]+)?(?:19[5-9]\d|20[0-3]\d)\Z", re.I)
_LABELLED_NUMBER = re.compile(r"(?<![^\W\d_])(?:error|status|exit|return|flight|room|order|ticket|invoice|case|ref|reference|tracking"
                              r"|zip|postal|port"
                              r"|post|area|"
                              r"gate|seat|platform|bus|train|line|page|version|build|issue|bug|pr|model|product|item|account|customer"
                              r"|member|"
                              r"phone|extension|ext|apartment|apt|suite|unit|floor|km|mile"
                              r"|ttl|timeout|expiry|length|max|min|seconds|secs|minutes|mins|hours|days|rounds|cost|limit)(?![^\W\d_])[^\d\n]{0,12}$",
                              re.I)
# a quoted value, not from the "'" of "l'ho"
_QUOTED_VALUE = re.compile(r"(?:\b(?:to|is|a|en|în|in|messa|messo|mis|mise|gesetzt|auf|op|på|na|ke|es|est|ist|é|è|=|set)|[:=])[ \t]{0,3}"
                           r"['\"„“«‚‘][ \t\u00a0\u202f]*([^'\"„“”«»‚‘’\n]{2,40}?)[ \t\u00a0\u202f]*['\"“”»‘’]",
                           re.I)  # given as the value: "la cambié a 'luna llena 7'"
_COLON_VALUE = re.compile(r"(?<!REDACTED)[:：][ \t]{0,3}([^\s,;.!?:：/'\"`«»„“”‘’]{3,40})[ \t]*$")  # not a URL's "://" nor a path
_RUNS_ON = re.compile(r"(?:\.[^\W\d_][^\s.,;!?]*)+")  # a value's dot and the rest after it: ".Rourou"
_LABEL_THEN_COLON = re.compile(rf"(?:{_PASSWORD_WORD}|{_CODE_WORD})(?:(?!\b(?:is|es|est|ist|är|er|è|é)\b)[^:：\n\d]){{0,50}}[:：][^:：]*$",
                               re.I)  # "كلمة السر للواي فاي: ياسمين", not "the password is X Alex: hi"
# letters with digits, six or more, two of each at least, given as the value: "changed it to wombat77", "спробуй вишня2005"
# (not "for my iPhone15", "6-digit", "5G" or a path)
_VALUE_BEFORE = (r"(?:\b(?:to|is|was|try|use|type|enter|set|as|es|ist|est|är|er|je|jest|é|è|là|adalah|ni|prova|essaie|versuch|"
                 r"prueba|probeer|spróbuj|dene|coba|thử)|спробуй|попробуй|это|це|[:=—–])[ \t]{1,3}")
_LETTERS_AND_DIGITS = re.compile(_VALUE_BEFORE + r"(?!\d{1,4}[\- ]?[^\W\d_]{1,12}(?![\w/]))(?=(?:[^\s,;:'\"()/]*\d){2})"
                                 r"(?=(?:[^\s,;:'\"()/]*[^\W\d_]){2})([^\W_][^\s,;:'\"()/]{5,40})(?<![.\-])(?![\w/])", re.I)
_LATIN_WORD = re.compile(r"(?<![\w@/.\-\[:])([a-zA-Z][a-zA-Z0-9]{3,30})(?![\w@/\-\]:])")  # not a placeholder's words
_NOT_A_LATIN_VALUE = frozenset("wifi wi-fi wlan pass password passwort pin puk code admin email gmail router laptop login user username "
                               "netflix windows mac iphone android google apple atm ok okay pc reset change update forgot forget logout "
                               "share save send enter type wrong incorrect expired expire strong weak new old same default manager "
                               "protected hint recovery otp sms link app account online bank card please sorry thanks help "
                               "shift alt ctrl caps lock tab esc".split())
_AS_PASSWORD = re.compile(rf"([^\W\d_][\w\-]{{2,30}})[ \t]{{1,3}}(?:as|als|som|como|come|comme|jako|kao|ως)[ \t]{{1,3}}"
                          rf"(?:(?:the|het|de|il|la|le|el|o|a)[ \t]+)?{_PASSWORD_WORD}"
                          rf"|\b(?:skriv[ \t]+in|type|enter|masukkan|digita|tippe|tape[sz]?|escribe|wpisz|введи|введите|yaz|pon|poné|mete"
                          rf"|mets|"
                          rf"gib|metti|coloca|coloque|digite|put)[ \t]{{1,3}}"
                          rf"([^\W\d_][\w\-]{{2,30}})[ \t]{{1,3}}(?:när|when|bila|quando|wenn|quand|cuando|gdy|когда|zaman|if|si|se"
                          rf"|falls)\b"
                          rf"[^.!?\n]{{0,40}}?"
                          rf"{_PASSWORD_WORD}", re.I)
# "the code? 7724"; "pw lemoncurd"; "so I typed brass lantern,"; and the value before its word ("walrus sandwich is the
# password for ...", "bacalhau é a palavra-passe do portátil"; a plain word after it, "es difícil", is no value)
_ASKED_THEN_DIGITS = re.compile(r"\b(?:code|pin|passcode|password|combo|combination)[ \t]{0,2}\?[ \t]{0,3}(\d{4,8})(?![\w.,/:\-])", re.I)
_PW_LABEL_WORD = re.compile(r"(?<![^\W\d_])(?:pw|pwd)[ \t]+([^\W\d_][\w\-]{2,30})(?=[ \t]*(?:[,.;!]|$))", re.I | re.M)
_TYPED = re.compile(r"\b(?:typed|entered|put[ \t]+in|keyed[ \t]+in|tecle(?:é|e)|tapé|eingegeben|digitei|ho[ \t]+scritto)[ \t]+"
                    r"((?:[^\W\d_][\w\-]{1,30}[ \t]){0,2}[^\W\d_][\w\-]{1,30})(?=[ \t]*(?:[,.;!]|$))", re.I)
_VALUE_THEN_WORD = re.compile(rf"^[ \t]*((?:[^\W\d_][\w\-]{{1,30}}[ \t]){{0,2}}[^\W\d_][\w\-]{{1,30}})[ \t]+"
                              rf"(?:is|é|es|est|ist|è|är|er|on)[ \t]+"
                              rf"(?:(?:the|a|an|my|o|la|le|el|il|das|die|der|het|de|mein|mon|mi|il[ \t]+mio)[ \t]+)?{_PASSWORD_WORD}"
                              r"(?![ \t-]*(?:manager|policy|field|reset|hint|prompt|requirement|rule|strength|generator|vault|app|box|"
                              r"screen|page|form|change|expir))(?![ \t]*[:=])", re.I)  # "Version2 is the password manager" names no value;
# "Alex on Passphrase: ..." labels what follows
# How a password is typed, said right after it: "gooseberry, all lowercase", "apfelstrudel, alles klein", "hoasen, không
# viết hoa", "«castanyes calentes», amb l'espai al mig". Only a value is spelt out, so the word before the note is one.
_TYPING_NOTE = (
    r"(?:all[ \t]+)?(?:in[ \t]+)?(?:lower|upper)[ \t\-]?case|all[ \t]+caps|no[ \t]+caps|no[ \t]+spaces?"
    r"|with(?:out)?[ \t]+(?:a[ \t]+|the[ \t]+)?spaces?"
    r"|case[ \t\-]sensitive|with[ \t]+a[ \t]+capital|capital[ \t]+[A-Za-z]\b|(?:all[ \t]+)?one[ \t]+word|small[ \t]+letters"
    r"|alles[ \t]+(?:klein|gro(?:ß|ss))\w*|(?:klein|gro(?:ß|ss))geschrieben|(?:ohne|mit)[ \t]+leerzeichen"
    r"|(?:tout[ \t]+)?en[ \t]+(?:minuscules?|majuscules?)|(?:sans|avec)[ \t]+(?:un[ \t]+|les[ \t]+)?espaces?"
    r"|(?:todo[ \t]+)?en[ \t]+(?:minúsculas?|minusculas?|mayúsculas?)|(?:sin|con)[ \t]+(?:un[ \t]+|el[ \t]+)?espacios?|todo[ \t]+junto"
    r"|(?:tutto[ \t]+)?(?:in[ \t]+)?(?:minuscolo|maiuscolo)|senza[ \t]+spazi|tutto[ \t]+attaccato"
    r"|(?:tudo[ \t]+)?(?:em[ \t]+)?min(?:ú|u)sculas?|sem[ \t]+espa(?:ç|c)os?|tudo[ \t]+junto"
    r"|kleine[ \t]+letters|zonder[ \t]+spaties|tot[ \t]+en[ \t]+min(?:ú|u)scules|sense[ \t]+espais|amb[ \t]+l['’]espai"
    r"|(?:všechno[ \t]+)?malými(?:[ \t]+písmeny)?|bez[ \t]+mezer|(?:wszystko[ \t]+)?małymi(?:[ \t]+literami)?|bez[ \t]+spacji"
    r"|(?:allt?[ \t]+)?med[ \t]+små[ \t]+bokst(?:ä|a)ver|små[ \t]+bogstaver|utan[ \t]+mellanslag|uten[ \t]+mellomrom"
    r"|pienillä(?:[ \t]+kirjaimilla)?|küçük[ \t]+harf\w*|hepsi[ \t]+küçük|boşluksuz|(?:вс[её][ \t]+)?маленькими(?:[ \t]+буквами)?|строчными"
    r"|без[ \t]+пробелов|(?:semua[ \t]+)?huruf[ \t]+kecil(?:[ \t]+semua)?|tanpa[ \t]+spasi|herufi[ \t]+ndogo|bila[ \t]+nafasi"
    r"|maliliit[ \t]+na[ \t]+letra|maliit[ \t]+na[ \t]+titik|walang[ \t]+espasyo|không[ \t]+viết[ \t]+hoa|viết[ \t]+thường|chữ[ \t]+thường"
    r"|không[ \t]+(?:có[ \t]+)?dấu[ \t]+cách|csupa[ \t]+kisbetű\w*|kisbetűvel|szóköz[ \t]+nélkül|(?:tot[ \t]+)?cu[ \t]+litere[ \t]+mici"
    r"|fără[ \t]+spații|με[ \t]+μικρά|πεζά|全部小写|小写|小文字|소문자"
)
_TYPED_AS_NOTED = re.compile(r"(?:^|(?<=[\s:=]))(" + _QUOTED + r"|[^\s,;:()\"'“”«»„‚‘’]{3,64})[ \t]{0,2}(?:[,(—–]|[ \t]-)[ \t]{0,3}(?:"
                             + _TYPING_NOTE + r")(?![^\W\d_])", re.I)
# the note on how it is typed, then the value: "es todo junto: mariposa", "all lowercase: hedgehog"
_NOTE_THEN_VALUE = re.compile(r"(?:" + _TYPING_NOTE + r")[ \t]*[:：][ \t]*([^\W\d_][^\s,;.!?]{2,40})", re.I)
# plain words said to be typed as one: "the password is, um, hockey sticks forever, all one word"
_SAID_AS_ONE_WORD = re.compile(r"(?<![^\W\d_])(?:is|was|it's|it’s)[, \t]+(?:(?:um+|uh+|er+|erm|like|so|ok(?:ay)?)[, \t]+)*"
                               r"((?:[^\W\d_]{2,20}[ \t]+){1,4}[^\W\d_]{2,20})[ \t]*,?[ \t]+(?:all[ \t]+)?"
                               r"(?:one[ \t]+word|no[ \t]+spaces|joined[ \t]+(?:up|together))(?![^\W\d_])", re.I)
# a password described, then given after "so", "i.e.", "o sea", "c'est-à-dire" ...: letters and digits, or a sign
_NAMELY_VALUE = re.compile(r"(?<![^\W\d_])(?:so|i\.e\.|ie|that[ \t]+is|namely|o[ \t]+sea|es[ \t]+decir|c'est-(?:à|a)-dire|donc|also"
                           r"|d\.[ \t]?h\.|cio(?:è|e)|ossia|ou[ \t]+seja|czyli|dus|yani|tức[ \t]+là)[,:]?[ \t]+"
                           r"((?=[^\s,;]{0,39}\d)(?=[^\s,;]{0,39}[^\W\d_])[^\s,;.!?]{4,40})(?![^\s,;.!?])", re.I)
# words of a note on how a value is typed ("no capitals, with the space"), not a value
_HOW_TYPED = frozenset("capitals capital caps lowercase uppercase spaces space letters digits".split())
# words that begin a clause about a password, not a value: "this is the password", "the old one is the password"
_FUNCTION_WORDS = frozenset("""this that these those it what which who whose there here mine yours his hers ours theirs the a an my
    your our their one same new old default current wrong correct right real actual only main usual other another no not never
    also just still esto eso ce cela ça das dies questo quello isso isto dit dat det это то""".split())
_TURKISH_VALUE = re.compile(r"(?<![^\W\d_])(?:şifre|sifre|parola)(?:si|sı|m|n)[ \t]{1,3}([^\W\d_][\w\-]{2,30})(?=[ \t]*(?:[,.;!]|$))",
                            re.I | re.M)
_ASKED_FOR = re.compile(rf"(?=[^\n]{{0,300}}?(?:\bwhat|\bwhich|\bqu(?:al|el|elle|e)\b|\bcu(?:á|a)l|\bc'est[ \t]+quoi|"
                        rf"\bwie[ \t]+(?:lautet|ist|hei(?:ß|ss)t)|\bwelk|"
                        rf"\bco[ \t]+to|\bjaki|\bvad|\bhva|\bmik|\bnedir|\bne\b|\bl(?:à|a)[ \t]+g(?:ì|i)|\bapa|\bkaka|"
                        rf"\bкакой|\bкакое|\bщо|什么|什麼|何|뭐|무엇|क्या|ما\b))"
                        rf"[^\n]{{0,300}}?(?:{_PASSWORD_WORD}|\bmdp\b|\bpass\b)[^\n]{{0,300}}?"
                        rf"(?:\?|\bl(?:à|a)[ \t]+g(?:ì|i)\b[^\n]{{0,60}})[ \t]*\n"
                        rf"[ \t]*(?:[\-—–][ \t]*)?([^\s]{{3,40}})[ \t]*(?=\n|$)",
                        re.I)


def _in_another_script(sentence: str) -> bool:
    """Mostly letters of a script other than Latin (Devanagari, Thai, Han, Arabic, Cyrillic ...)."""
    other = sum(1 for c in sentence if c.isalpha() and ord(c) > 0x24F)
    latin = sum(1 for c in sentence if c.isalpha() and ord(c) <= 0x24F)
    return other >= 4 and other >= latin


def _only_another_script(text: str) -> bool:
    """Letters of a script other than Latin, two or more, and no Latin letter."""
    return sum(1 for c in text if c.isalpha() and ord(c) > 0x24F) >= 2 and not any(c.isalpha() and ord(c) <= 0x24F for c in text)


def _names_a_secret_word(text: str) -> bool:
    return _PASSWORD_OR_CODE.search(text) is not None or _PIN_FOR_DIGITS.search(text) is not None


_PLACEHOLDER = re.compile(r"\[REDACTED:[\w-]{1,40}\]")


def _unlabelled(text: str) -> str:
    """The text with each redaction placeholder masked, at the same offsets: "[REDACTED:password]" names no password."""
    return _PLACEHOLDER.sub(lambda m: "x" * len(m.group()), text) if "[REDACTED:" in text else text


# a quoted value given to a setting that names no secret: user="app", host='db.internal'
_NAMED_NOT_SECRET = re.compile(r"(?<![\w-])(?:user|username|user_name|login|host|hostname|server|email|name|db|dbname|database|port|schema"
                               r"|region|path|url)[ \t]*[=:][ \t]*\Z", re.I)


# a JSON key that describes an item: '"title":"Cabin"' is the note's title, not its password
_DESCRIPTIVE_KEY = re.compile(r"[\"'](?:title|name|label|description|desc|colou?r|type|kind|category|status|state|lang|language|locale"
                              r"|icon|theme|mode|created|updated|date|time)[\"'][ \t]*[:=][ \t]*\Z", re.I)


# a chat line's speaker: "[12/11/25, 9:14 PM] Rohit Bhaiya: ऑफिस वाले वाई-फाई का पासवर्ड" names Rohit, not his password
_BEFORE_A_SPEAKER = re.compile(r"(?:\[[^\]\n]{1,40}\][ \t]*|[\d/.,:\- \t]{1,30}(?:[AaPp]\.?[Mm]\.?)?[ \t]*[\-–][ \t]*)?\Z")
_AFTER_A_SPEAKER = re.compile(r"(?:[ \t]+[^\W\d_][\w.\-]*){0,2}[ \t]*:")


def _a_speakers_name(sentence: str, start: int, end: int) -> bool:
    line_start = sentence.rfind("\n", 0, start) + 1
    return bool(_BEFORE_A_SPEAKER.match(sentence, line_start, start) and _AFTER_A_SPEAKER.match(sentence, end))


def _in_a_password_sentence(text: str) -> Iterator[Span]:
    text = _unlabelled(text)
    if "\n" in text:
        pos = 0
        for line in text.split("\n"):  # a question for a password, then the one word on the next line
            if len(line) <= 300 and (m := _ASKED_FOR.match(text, pos)):
                yield ("password", *m.span(1))
            pos += len(line) + 1
    if not _names_a_secret_word(text):
        return
    for m in _ASKED_THEN_DIGITS.finditer(text):
        yield ("pin", *m.span(1))
    for m in _SAID_AS_ONE_WORD.finditer(text):  # however long the sentence a voice note runs on in
        words = m.group(1).lower().split()
        if _PASSWORD_OR_CODE.search(text, max(0, m.start() - 40), m.start()) and not _FUNCTION_WORDS.intersection(words):
            yield ("password", *m.span(1))
    for piece in _SENTENCE_PIECE.finditer(text):
        sentence = piece.group()
        if len(sentence) > 200 or not _names_a_secret_word(sentence):
            continue
        at = piece.start()
        if _PIN_FOR_DIGITS.search(sentence) or (_A_CODE.search(sentence) and _WHAT_IT_OPENS.search(sentence)):
            for m in _DIGITS_VALUE.finditer(sentence):
                if not _LABELLED_NUMBER.search(sentence, max(0, m.start(1) - 20), m.start(1)) \
                        and not _YEAR_OF_A_DATE.search(sentence, max(0, m.start(1) - 24), m.end(1)):
                    yield ("pin", at + m.start(1), at + m.end(1))
        for m in _QUOTED_VALUE.finditer(sentence):
            if sentence.rfind("<", 0, m.start(1)) > sentence.rfind(">", 0, m.start(1)):
                continue  # an attribute inside a tag: '<w:t xml:space="preserve">'
            if not _PASSWORD_OR_CODE.search(m.group(1)) and not re.search(r"[{}$<>]", m.group(1)) \
                    and not _NAMED_NOT_SECRET.search(sentence, 0, max(0, m.start(1) - 1)) \
                    and not _DESCRIPTIVE_KEY.search(sentence, 0, max(0, m.start(1) - 1)):
                yield ("password", at + m.start(1), at + m.end(1))
        for m in _LETTERS_AND_DIGITS.finditer(sentence):
            yield ("password-made", at + m.start(1), at + m.end(1))
        if _in_another_script(sentence):
            named_at = _PASSWORD_OR_CODE.search(sentence)
            for m in _LATIN_WORD.finditer(sentence):
                if m.group(1).isalpha() and named_at and m.end(1) <= named_at.start() and not sentence[:m.start(1)].strip():
                    continue  # the sentence's subject, before any password word: "Kaspi ешқашан ... құпиясөзді сұрамайды"
                if m.group(1).lower() not in _NOT_A_LATIN_VALUE and not _PASSWORD_OR_CODE.fullmatch(m.group(1)) \
                        and not _a_speakers_name(sentence, m.start(1), m.end(1)):
                    yield ("password", at + m.start(1), at + m.end(1))
        for m in _AS_PASSWORD.finditer(sentence):
            g = 1 if m.group(1) is not None else 2
            yield ("config-secret", at + m.start(g), at + m.end(g))  # not "password": "kroket als wachtwoord" compares nothing
        colon = _COLON_VALUE.search(sentence)
        if (colon and not colon.group(1).isdigit() and not _PASSWORD_OR_CODE.fullmatch(colon.group(1))
                and _LABEL_THEN_COLON.search(sentence)):
            # the sentence was cut at a dot inside the value: "tiki: Dalo.Rourou" runs on to its end
            on = _RUNS_ON.match(text, at + colon.end(1))
            yield ("password", at + colon.start(1), on.end() if on else at + colon.end(1))
        for m in _TYPED_AS_NOTED.finditer(sentence):
            if m.group(1).lower() not in _FUNCTION_WORDS | _HOW_TYPED and not _PASSWORD_OR_CODE.fullmatch(m.group(1).strip("'\"“”«»„‚‘’")):
                start, end = m.span(1)
                if m.group(1)[:1] in "'\"“”«»„‚‘’":  # a quoted value: what the quotes hold
                    start, end = start + 1, end - 1
                yield ("password", at + start, at + end)
        for rx in (_PW_LABEL_WORD, _TYPED, _VALUE_THEN_WORD, _NOTE_THEN_VALUE):
            for m in rx.finditer(sentence):
                if not _FUNCTION_WORDS.intersection(m.group(1).lower().split()):
                    yield ("password", at + m.start(1), at + m.end(1))
        for m in _TURKISH_VALUE.finditer(sentence):
            yield ("password", at + m.start(1), at + m.end(1))
        for m in _NAMELY_VALUE.finditer(sentence):  # "our street name and the house number, so Larkspur27"
            if _PASSWORD_OR_CODE.search(sentence, 0, m.start()):
                yield ("password", at + m.start(1), at + m.end(1))


def _html_table_values(text: str) -> Iterator[Span]:
    """The cells under a password column of an HTML table ("<th>Contraseña</th>" ... "<td>Naranja-Mar-47</td>")."""
    columns: dict[int, str] = {}
    for row in _HTML_ROW.finditer(text):
        cells = list(_HTML_CELL.finditer(row.group(1)))
        if cells and all(c.group(1).lower() == "h" for c in cells):
            columns = {n: kind for n, c in enumerate(cells) if (kind := _column_kind(re.sub(r"<[^>]+>", "", c.group(2))))}
            continue
        for n, kind in columns.items():
            if n < len(cells) and kind in ("password-column", "secret-column", "pass-column", "key-column"):
                start = row.start(1) + cells[n].start(2)
                value = cells[n].group(2)
                if value.strip() and "<" not in value:
                    yield ("password-column", start, start + len(value))


def _is_card_digits(digits: str) -> bool:
    return 13 <= len(digits) <= 19 and luhn(digits)


def _handed_over(text: str) -> Iterator[Span]:
    if "password-stdin" in text:
        for m in _PIPED.finditer(text):
            yield ("password-flag", *m.span(2))
    if "/" in text and "@" in text:
        for m in _ORACLE.finditer(text):
            yield ("password-flag", *m.span(1))
    if "sip" in text and "@" in text:
        for m in _SIP_USERINFO.finditer(text):
            yield ("password-flag", *m.span(1))
    for m in _CODE_FIELD.finditer(text):
        yield ("config-secret", *m.span(1))
    if "=" in text:
        for rx in (_SESSION_COOKIE, _ANY_SESSION_COOKIE):
            yield from (("config-secret", *m.span(1)) for m in rx.finditer(text))
    for m in _SQL_PASSWORD.finditer(text):
        yield ("password-flag", *m.span(1))
    for m in _APP_PASSWORD.finditer(text):
        if sum(c in "aeiou" for c in m.group(1).lower()) <= 5:  # random letters, not four words of prose
            yield ("password-flag", *m.span(1))
    for m in _HEX_KEY_NEAR_WALLET.finditer(text):
        yield ("config-secret", *m.span(1))
    for m in _COMBINATION.finditer(text):
        yield ("config-secret", *m.span(1))
    for m in _LOCK_SET_TO.finditer(text):
        yield ("pin", *m.span(1))
    for m in _SECRET_DIRECTIVE.finditer(text):
        yield ("password-flag", *m.span(2))  # its check (`_field_value`) keeps "password yes", "secret none", "${VAR}"
    keys = list(_GROUP_KEY_LINE.finditer(text)) if "-" in text else []
    for a, b in zip(keys, keys[1:]):
        if text.count("\n", a.end(), b.start()) == 1:  # two such lines in a row
            yield ("backup-code", *a.span(1))
            yield ("backup-code", *b.span(1))
    for m in _DIGIT_KEY.finditer(text):
        if min(int(n) for n in m.group().split()) < 1900:  # not a run of years
            yield ("backup-code", *m.span())
    for m in _MIXED_KEY.finditer(text):
        groups = m.group().split()
        if sum(any(c.isdigit() for c in g) for g in groups) >= len(groups) // 2 and re.search(r"[a-z]", m.group()) \
                and re.search(r"[A-Z]", m.group()):
            yield ("backup-code", *m.span())
    for m in _ONE_RESTORE_CODE.finditer(text):
        if len(m.group(1).replace("-", "")) >= 6:  # Steam's revocation code: "R73905"
            yield ("config-secret", *m.span(1))
    for m in _KEYPAIR_BYTES.finditer(text):
        if all(int(n) <= 255 for n in re.findall(r"\d+", m.group())):
            yield ("config-secret", *m.span())
    for m in _INI_SPACED_VALUE.finditer(text):
        yield ("password-flag", *m.span(1))
    for m in _LOGIN_WITH.finditer(text):
        yield ("login-pair", *m.span(3))
    for m in _PASSWORD_THEN_VALUE.finditer(text):
        yield ("login-pair", *m.span(1))  # no connector: "Modemin şifresi Simit-Çay-28", "password Hunter-22!" (made up only)
    for m in _ARCHIVE_FLAG.finditer(text):
        yield ("password-flag", *m.span(1 if m.group(1) is not None else 2))
    for piece in _SENTENCE_PIECE.finditer(_unlabelled(text)):  # a sentence at a time, one that names a password or a login
        if len(piece.group()) <= 300 and _PASSWORD_OR_LOGIN.search(piece.group()):
            for m in _SHAPED_NEAR_WORD.finditer(piece.group()):
                g = 1 if m.group(1) is not None else 2
                yield ("login-pair", piece.start() + m.start(g), piece.start() + m.end(g))
    if "\n" in text:
        for m in _SHAPED_LINES_AFTER.finditer(text):
            if len(re.findall(r"[^\W\d_]{3,}", m.group(1))) >= 2:  # words joined, as made-up passwords are; not "v2-2024-01"
                yield ("password-made", *m.span(1))
    for m in _PASSPHRASE_WORDS.finditer(text):
        yield ("config-secret", *m.span(1))
    if "<t" in text.lower():
        yield from _html_table_values(text)
    for m in _CARD_LABEL_LINES.finditer(text):
        if _is_card_digits(re.sub(r"\D", "", m.group(1))):
            yield ("card-number", *m.span(1))
    for m in _PIN_LABEL.finditer(text):
        yield ("login-pair", *m.span(1))  # a PIN made of letters and signs too ("Online-Banking-PIN: Sparschwein#77")
    for m in _NETWORK_STATED.finditer(text):
        yield ("login-pair", *m.span(1))  # only a made-up value counts (its check): "the wifi is down" is kept


def _value_span(m: re.Match, text: str) -> tuple[int, int]:
    """Where the value of the group that matched lies: inside its quotes; an ASCII value glued to CJK text ends there."""
    g = next(i for i in range(1, (m.re.groups or 0) + 1) if m.group(i) is not None)
    start, end = m.span(g)
    if text[start] in OPENING_QUOTES:
        start, end = start + 1, end - 1
        if text[start - 1] not in "\"'“`「":  # « Lune Bleue 42 »: the spaces inside the quotes are not the value's
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
        return start, end
    if text[start].isascii() and (cjk := _CJK.search(text, start, end)):
        end = cjk.start()
    return start, end


# More words of a passphrase after its first: "Copper Kettle Rain 19", "orchid harbor 41" (the same case each, a number last
# or three Title-case words or more), up to the end of the clause
_MORE_WORDS = re.compile(
    r"((?:[ \t][A-Z][a-z]{1,15}){1,5}(?:[ \t]\d{1,6})?|(?:[ \t][^\W\d_A-Z]{2,15}){1,4}(?:[ \t]\d{1,6})?)(?=[ \t]{0,2}(?:[.,;:!?()\]»]|$))",
    re.M,
)


def words_after(text: str, start: int, end: int) -> int:
    """Where a passphrase of several words ends, when the value found is its first word; else `end`."""
    first = text[start:end]
    if not re.fullmatch(r"[A-Z]?[a-z]{1,15}", first):
        return end
    m = _MORE_WORDS.match(text, end)
    if m is None:
        return end
    more = m.group(1).split()
    titled = first[0].isupper() and all(w[0].isupper() for w in more if not w.isdigit())
    lowered = first.islower() and all(w.islower() for w in more if not w.isdigit())
    if (titled or lowered) and (more[-1].isdigit() or (titled and len(more) >= 2)):
        return m.end()
    if lowered and not first.endswith(("ed", "ing", "ly")) and _WITH_SPACES.search(text, m.end(), m.end() + 80):
        return m.end()  # "marmalade sandwich, with the space": the words are the passphrase
    return end


# a passphrase said to hold spaces: "with the space", "spaces included", "(litere mici, cu spații)"
_WITH_SPACES = re.compile(r"(?<![^\W\d_])(?:with[ \t]+(?:the[ \t]+|a[ \t]+)?spaces?|spaces?[ \t]+included"
                          r"|including[ \t]+the[ \t]+spaces?|cu[ \t]+spa(?:ț|t)ii|con[ \t]+(?:los[ \t]+)?espacios?"
                          r"|avec[ \t]+(?:les[ \t]+)?espaces?|mit[ \t]+leerzeichen"
                          r"|com[ \t]+(?:os[ \t]+)?espa(?:ç|c)os?|con[ \t]+gli[ \t]+spazi|met[ \t]+spaties?|ze[ \t]+spacjami"
                          r"|s[ \t]+mezerami)"
                          r"(?![^\W\d_])", re.I)


_MENU_STEP = re.compile(r"(?:→|›|»|>|⇒|➜|->)[ \t]*\Z")
_GREEK_CODE = re.compile(r"κωδικ(?:ός|ό|ού|οί)(?![ \t]+πρόσβασης)", re.I)


def _stated_passwords(text: str) -> Iterator[Span]:
    if not _names_a_password_somewhere(text):
        return
    for rx, kind in ((_STATED, "password"), (_STATED_LOOSELY, "password-made"), (_SET_TO, "password"), (_MADE, "password-made"),
                     (_PASS, "password-made"), (_VALUE_FIRST, "password-made"), (_USE_AS, "password-made"),
                     (_SET_TO_ABROAD, "password-made"), (_STATED_AFTER, "password-made"), (_LABELLED_AT_LENGTH, "password-made"),
                     (_SET_OFF, "password-made"),
                     (_WHOLE_SENTENCE, "password")):
        for m in rx.finditer(text):
            start, end = _value_span(m, text)
            if rx is _SET_TO_ABROAD:
                a, b = max(0, m.start() - 60), min(len(text), m.end() + 40)  # on the same line, near the match
                a = max(a, text.rfind("\n", a, m.start()) + 1)
                b = nl if (nl := text.find("\n", m.end(), b)) >= 0 else b
                if not _CHANGE_VERB.search(text, a, b):
                    continue  # "la password a 12 caratteri": no change of it near
            end = words_after(text, start, end)
            if rx is _SET_TO and re.fullmatch(r"[a-z]+", text[start:end]) and _CLAUSE_GOES_ON.match(text, end):
                continue  # "reset my password to access the portal": a purpose, not a new password
            if rx is _STATED_AFTER and _A_RULE_OF_LENGTH.search(text, start, end):
                continue  # "the policy changed, it is "at least 12 characters" now": what it must be, not what it is
            if rx is _PASS and (end - start < 6 or text[start:end].isdigit()):
                continue  # "the ski pass is 3-day", "pass: 2024"
            if rx is _STATED and _MENU_STEP.search(text, max(0, m.start() - 4), m.start()):
                continue  # "Settings → Passwords → Export": a menu's path, not a password
            if text[start:end].isdigit() and _GREEK_CODE.match(text, m.start()):
                continue  # Greek "κωδικός" alone is any code: "ο κωδικός της παραγγελίας είναι 48213" names an order
            if start > 0 and text[start - 1] in "\"'“`「" and (text[start].isspace() or text[end - 1].isspace()):
                continue  # "`pass=` in a URL, `PIN`": between two code spans, not inside quotes
            if rx is _LABELLED_AT_LENGTH and _JOINED_WORDS.fullmatch(text, start, end):
                yield ("password", start, end)  # capitalised words joined by a sign, as passwords are made: "Ngondo.Kasai"
                continue
            yield (kind, start, end)


_JOINED_WORDS = re.compile(r"[A-Z][a-z]{2,}(?:[.\-_+&][A-Z][a-z]{2,}){1,3}\d{0,4}[!?#]?")


def _stated_pins(text: str) -> Iterator[Span]:
    if not _ANY_PIN_WORD.search(text):
        return
    for m in _PIN_STATED.finditer(text):
        yield ("pin", *m.span(next(g for g in (1, 4, 7, 10, 13) if m.group(g) is not None)))


def _pgpass_lines(text: str) -> Iterator[Span]:
    if text.count(":") < 4:
        return
    for m in _PGPASS.finditer(text):
        host = m.group(1)
        if host == "*" or re.search(r"[A-Za-z.]", host):  # "10:22:31:..." is a time, not a host
            yield ("pgpass", *m.span(2))


def _netrc_entries(text: str) -> Iterator[Span]:
    if "password" in text and ("machine" in text or "default" in text):
        for rx in (_NETRC, _NETRC_ESCAPED):
            yield from (("netrc", *m.span(1)) for m in rx.finditer(text))


def _client_logins(text: str) -> Iterator[Span]:
    if re.search(r"curl|http|xh|wget|aria2c", text):
        for m in _CLIENT_LOGIN.finditer(text):
            yield ("password-flag", *_value_span(m, text))


def _tool_passwords(text: str) -> Iterator[Span]:
    if "redis-cli" in text:
        for m in _REDIS_AUTH.finditer(text):
            yield ("password-flag", *_value_span(m, text))
    if "htpasswd" in text:
        for m in _HTPASSWD.finditer(text):
            if "b" not in m.group(1):
                continue  # without -b the password is asked for, not given
            args = list(re.finditer(r"\S+", m.group(2)))
            where = 1 if "n" in m.group(1) else 2  # -n prints the entry: no file argument before the user
            if len(args) > where:
                start = m.start(2) + args[where].start()
                yield ("password-flag", start, start + len(args[where].group()))
    if _ANY_TOOL.search(text):
        for command, flag in _TOOL_FLAGS:
            for line in command.finditer(text):
                for m in flag.finditer(text, line.start(), line.end()):
                    yield ("password-flag", *_value_span(m, text))


def _config_values(text: str) -> Iterator[Span]:
    """Values of config keys named like a secret where the name and the value stand apart: an XML element's name or
    key attribute and its value attribute, an XML element's text, a Terraform variable's default, a Wi-Fi QR's P: field."""
    if "<" in text and ">" in text:
        for m in _XML_NAMED_VALUE.finditer(text):
            if _names_a_secret(m.group(2)):
                g = 3 if m.group(3) is not None else 4
                yield ("config-secret", *m.span(g))
        if "</" in text:
            for m in _XML_ELEMENT.finditer(text):
                if _names_a_secret(m.group(1)):
                    yield ("config-secret", *m.span(2))
        if "<key>" in text:
            for m in _PLIST_PAIR.finditer(text):
                if _names_a_secret(m.group(1)):
                    yield ("config-secret", *m.span(2))
    if "variable" in text:
        for m in _TF_DEFAULT.finditer(text):
            if _names_a_secret(m.group(1)):
                yield ("config-secret", *m.span(2))
    if "WIFI:" in text:
        for m in _WIFI_QR.finditer(text):
            start, end = m.span(1)
            if text[start] == '"':
                start, end = start + 1, end - 1
            yield ("config-secret", start, end)


# an authenticator's export ("otpauth-migration://offline?data=..."): every account's seed, encoded
_OTP_EXPORT = re.compile(r"otpauth-migration://offline\?data=([A-Za-z0-9%+/_\-]{16,8192}={0,6})")


def _otp_seeds(text: str) -> Iterator[Span]:
    if "otpauth-migration" in text:
        yield from (("otp-seed", *m.span(1)) for m in _OTP_EXPORT.finditer(text))
    for m in _OTP_SEED.finditer(text):
        value = m.group(1).rstrip("=")
        letters = value.replace(" ", "").replace("\t", "")
        if re.search(r"[2-7]", letters) or letters.isupper():  # not a plain lower-case word
            yield ("otp-seed", *m.span(1))


    if ":" in text:
        for m in _GROUPED_SEED.finditer(text):
            groups = m.group(1).split()
            if sum(bool(re.search(r"[2-7]", g)) for g in groups) * 2 >= len(groups):  # digits in half the groups: not words
                yield ("otp-seed", *m.span(1))


def _next_line_values(text: str) -> Iterator[Span]:
    if "\n" in text:
        for m in _NEXT_LINE.finditer(text):
            if m.group("pin") is not None:
                yield ("pin", *m.span("value"))  # "New PIN:\n7305": its digits alone (the check in secrets.py)
                continue
            # after "Password:" a plain word is the value ("Password:\nbluebird"); after a bare label or "secret" it must
            # look made up
            label = text[m.start():m.start("value")]
            plain = re.fullmatch(r"[^\W\d_]+", m.group("value")) is not None
            colon = ":" in label or "：" in label
            kind = "password" if plain and colon and m.group("secret") is None else "password-made"
            start, end = m.span("value")
            if (more := _WRAPPED.match(text, end)) and text[end - 1] in "-_":  # "Long-Correct-Horse-\nBattery-Staple-2"
                end = more.end(1)
            yield (kind, start, end)


def _user_password_pairs(text: str) -> Iterator[Span]:
    if " / " in text:
        for m in _USE_PAIR.finditer(text):
            yield ("login-pair", *m.span(1))


# the digits "on the back", shortly after a card's expiry: "expiry 10/28, di three numbers pon di back a 5 1 9"
_CODE_ON_THE_BACK = re.compile(r"(?<![^\W\d_])back(?![^\W\d_])[^\n\d]{0,20}?(?<![\d/.\-])(\d(?:[ \t]?\d){2,3})(?![\d/.\-])", re.I)
_EXPIRY = re.compile(r"(?<![\d/])(?:0[1-9]|1[0-2])[ \t]?/[ \t]?(?:20)?\d\d(?![\d/])")
# or spelt in words of any language, after a card's number and its expiry, where the sentence names numbers or a code:
# "Ko e tolu e numera he tua he kaati: fitu, tolu, valu."
_WORDS_AFTER_A_COLON = re.compile(
    r"(?i:num|nom|digit|chiff|cifr|ziff|c(?:o|ó)d|kod|cv[vc]|csc)[^\n.!?:]{0,60}[:：][ \t]{0,3}"
    r"([^\W\d_]{2,8}(?:[ \t]{0,2}[,،、][ \t]{0,2}[^\W\d_]{2,8}){2,3})(?=[ \t]*(?:[.!\n]|\Z))")
_CARD_DIGITS = re.compile(r"(?<!\d)\d(?:[ \t\-]?\d){12,18}(?!\d)")


def _card_codes(text: str) -> Iterator[Span]:
    for m in _CARD_CODE_ABROAD.finditer(text):
        yield ("card-cvv", *m.span(1))
    for m in _CODE_ON_THE_BACK.finditer(text):
        if _EXPIRY.search(text, max(0, m.start() - 120), m.start()):
            yield ("card-cvv", *m.span(1))
    for m in _WORDS_AFTER_A_COLON.finditer(text):
        if (expiry := _EXPIRY.search(text, max(0, m.start() - 160), m.start())) \
                and _CARD_DIGITS.search(text, max(0, expiry.start() - 80), expiry.start()):
            yield ("card-cvv", *m.span(1))
    for m in _CARD_EXPIRY_CODE.finditer(text):
        if luhn(re.sub(r"\D", "", m.group(1))):
            yield ("card-cvv", *m.span(3))


def luhn(digits: str) -> bool:
    """The Luhn checksum of a card number's digits."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _odd_cards(text: str) -> Iterator[Span]:
    for m in _ODD_CARD.finditer(text):
        yield ("card-number", *m.span())
    for m in _CARD_WORD_THEN_GROUPS.finditer(text):
        start, end = m.span(1)
        last = re.search(r"\d+\Z", m.group(1))
        if last and len(last.group()) <= 2 and luhn(re.sub(r"\D", "", m.group(1)[:last.start()])):
            end = start + len(m.group(1)[:last.start()].rstrip(" \t.-/\u00a0"))  # "card 4000 0000 0000 0002 91": no card ends in two
        yield ("card-number", start, end)  # the check of "card-number" (Luhn, a network's length) decides
    for m in _AMEX_CID.finditer(text):
        yield ("card-cvv", *m.span(1))
    for m in _DIGIT_BY_DIGIT.finditer(text):
        yield ("card-number", *m.span())


# A card number sent in two messages ("[14:02] Jo: 4289 8314" / "[14:03] Jo: 3628 4238 — 10/29", or "First half: 4716
# 7883" / "... next message" / "4261 4853, expiry 10/28"): digit groups that end a line, then digit groups first on one
# of the next three lines, a card's length and checksum together.
_CHAT_PREFIX = r"[ \t]*(?:\[[^\]\n]{1,24}\][ \t]*)?(?:[^\s:\d][^:\n]{0,30}:[ \t]*)?"
_GROUPS_ENDING = re.compile(r"(?<![\w.,/\-])(\d{4}(?:[ \t.\-]\d{2,6}){0,3})[ \t]*$", re.M)
_GROUPS_FIRST = re.compile(rf"{_CHAT_PREFIX}(\d{{2,6}}(?:[ \t.\-]\d{{2,6}}){{0,3}})(?![\d/.:]|,\d)")
_A_DATE = re.compile(r"\b(?:19|20)\d\d[.\-](?:0?[1-9]|1[0-2])[.\-](?:0?[1-9]|[12]\d|3[01])\b")  # "2024-05-01 12" is no card's half


def _split_cards(text: str) -> Iterator[Span]:
    if "\n" not in text:
        return
    for m in _GROUPS_ENDING.finditer(text):
        pos = m.end() + 1
        for _ in range(3):
            if text[pos - 1:pos] != "\n":
                break
            after = _GROUPS_FIRST.match(text, pos)
            digits = re.sub(r"\D", "", m.group(1) + (after.group(1) if after else ""))
            if after and 13 <= len(digits) <= 19 and digits[0] in "23456" and len(set(digits)) > 2 and luhn(digits) \
                    and not any(_A_DATE.search(g) for g in (m.group(1), after.group(1))):
                yield ("card-part", *m.span(1))
                yield ("card-part", *after.span(1))
                break
            end = text.find("\n", pos)
            pos = len(text) + 1 if end < 0 else end + 1


def _spoken_cards(text: str) -> Iterator[Span]:
    for m in _SPOKEN_NUMBER.finditer(text):
        yield ("card-number", *m.span())
    for m in _SPOKEN_PAIRS.finditer(text):
        if any(w in m.group().lower() for w in _TENS) or any(w in m.group().lower() for w in _TEENS):
            yield ("card-number", *m.span())


def card_digits(value: str) -> str:
    """The digits of a card number or a PIN however written: "4111.1111...", "four one one one, ...", "nineteen
    seventy-three", "double four"."""
    words = [w.lower() for w in re.findall(r"[^\W\d_]+|\d", value)]
    digits, i = [], 0
    while i < len(words):
        word, after = words[i], words[i + 1] if i + 1 < len(words) else ""
        if word in _TENS:  # "seventy-three" is 73, "seventy" alone 70
            unit = _DIGIT_WORDS.get(after, "0")
            digits.append(_TENS[word] + unit)
            i += 2 if unit != "0" else 1
            continue
        if word in _REPEATS and after in _DIGIT_WORDS:
            digits.append(_DIGIT_WORDS[after] * _REPEATS[word])
            i += 2
            continue
        digits.append(_TEENS.get(word) or _DIGIT_WORDS.get(word) or (word if word.isdigit() else ""))
        i += 1
    return "".join(digits)


def spoken_number(value: str) -> bool:
    """Every word of `value` a number word ("nineteen seventy-three", "four four one seven")."""
    return all(w.lower() in _NUMBER_WORDS for w in re.findall(r"[^\W\d_]+", value))


# ---------------------------------------------------------------------------------- tables


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, line) of every line of `text`."""
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def _markdown_cells(line: str) -> list[tuple[int, int]]:
    """Spans of the cells of a Markdown table row, their padding left out."""
    bar = "^" if line.lstrip().startswith("^") else "|"  # DokuWiki writes a header row's bars as "^"
    bars = [i for i, c in enumerate(line) if c == bar and (i == 0 or line[i - 1] != "\\")]
    if line.lstrip().startswith("||"):  # a Jira header: "||Environment||Secret||"
        bars = [b for n, b in enumerate(bars) if n == 0 or bars[n - 1] != b - 1]
    if bars and line[bars[-1] + 1:].strip():  # the last cell with no bar after it (AsciiDoc, loose Markdown)
        bars.append(len(line.rstrip()))
    cells = []
    for a, b in pairwise(bars):
        start, end = a + 1, b
        while start < end and line[start] in " \t":
            start += 1
        while end > start and line[end - 1] in " \t":
            end -= 1
        cells.append((start, end))
    return cells


_DELIMITED_CELL = {d: re.compile(rf"\"(?:[^\"]|\"\")*\"|[^{re.escape(d)}]*") for d in (",", "\t", ";", "|")}


def _delimited_cells(line: str, delimiter: str) -> list[tuple[int, int]]:
    """Spans of the cells of a CSV (or tab- or semicolon-separated) row, quotes and padding left out."""
    cells, pos = [], 0
    rx = _DELIMITED_CELL[delimiter]
    while pos <= len(line):
        m = rx.match(line, pos)
        assert m is not None  # the pattern matches the empty cell too
        start, end = m.span()
        while start < end and line[start] == " ":
            start += 1
        while end > start and line[end - 1] == " ":
            end -= 1
        if end - start >= 2 and line[start] == '"' and line[end - 1] == '"':
            start, end = start + 1, end - 1
        cells.append((start, end))
        pos = m.end() + 1
    return cells


def _column_kind(header: str) -> str | None:
    """The kind of secret a column holds, by its header ("password", "DB password", "Passwort", "API key", "PIN"), or None."""
    name = header.lower().strip("*_` ")
    words = re.findall(r"[^\W_]+\??", name)
    if not words or len(words) > 4 or any(w in _HEADER_NOT_SECRET for w in words):
        return None
    if any(w in _PASSWORD_HEADERS for w in words) or name in _PASSWORD_HEADER_PHRASES or _PASSWORD_IN_HEADER.search(name):
        return "password-column"
    if any(w in _SECRET_HEADERS for w in words):
        return "secret-column"  # "ingrediente secreto" is a recipe's: its cells must look made up
    if words[-1] in _PASS_HEADERS:
        return "pass-column"
    if any(w in _TOKEN_HEADERS for w in words) or re.fullmatch(r"(?:\w+[ _\-])?(?:api|access|private)[ _\-]?key", name):
        return "token-column"
    if any(w in _CREDENTIAL_HEADERS for w in words):
        return "credential-column"
    if words[-1] in ("key", "keys") and (len(words) == 1 or _NETWORK_RX.fullmatch(words[0])):
        return "key-column"  # a network's key ("| SSID | Band | Key |"), or a lock's: cells with letters and digits
    if words[-1] in ("code", "codes") and (len(words) == 1 or words[0] in _CODE_KINDS):
        return "code-column" if len(words) == 1 else "key-column"  # "code" alone: a recovery code only beside "used"
    if len(words) <= 2 and words[-1] in _CARD_CODE_HEADERS:
        return "card-cvv"  # "| Exp | CVV |": cells of three or four digits
    return "pin" if any(w in _PIN_HEADERS for w in words) else None


_NETWORK_RX = re.compile(_NETWORK, re.I)
_CARD_CODE_HEADERS = frozenset("cvv cvc cvv2 cvc2 cid csc cvn".split())
_PLACE_HEADERS = frozenset("city town address state district area locality village postal_address shipping_address".split())
_CODE_KINDS = frozenset("recovery backup 2fa mfa otp one-time emergency scratch".split())
_USED_HEADERS = frozenset("used used? redeemed status".split())
# a code or a key: letters with digits, six to ten digits, or digits in groups ("7kq2-9xvm", "Router-Key-5G", "48213907",
# "8302 6617"), not "E1001"
_CODE_CELL = re.compile(r"(?=[^\s]*[^\W\d_])(?=[^\s]*\d)[^\s]{6,64}|\d{6,10}|\d{3,5}(?:[ \-]\d{3,5}){1,3}")


_HEADER_NAME = re.compile(r"[^\W_][\w .#/()\-]{0,29}|\"[^\W_][\w .#/()\-]{0,29}\"")  # a column's name, not a clause
_HEADER_WORD = re.compile(
    r"pass|pw|wort|secret|token|key|pin|contrase|senha|wacht|has|heslo|парол|密|パスワード|비밀|senord|clave|ifre|salasana|kode|jelsz"
    r"|cred|zugangsdaten|anmeldedaten|identifiants|inloggegevens"
    r"|sandi|kh(?:ẩ|a)u|비번|암호|口令"
    r"|secr|segre|sekret|hemlig|hemmelig|salaisuus|titok|секрет|μυστικ|סוד|سر|सीक्रेट|ความลับ|秘密|シークレット|rahasia"
    r"|parol|laluan|siri|contrasenya|κωδικ|συνθηματ|סיסמ|كلمة|पासवर्ड|รหัสผ่าน|wi-?fi|wlan|wpa|router|r[ée]seau|netz|netwerk|sieci|сети"
    r"|code|combo|combina|kombina|magic|word|slapta|cyfrinair|lozink|geslo|лозинк|fjal|lykilor|pasahitz|contrasinal|wagwoord|პაროლ"
    r"|cvv|cvc|cid|csc|cvn",
    re.I,
)


def _tables(text: str) -> Iterator[tuple[list[tuple[int, str]], Cells]]:
    """Each table of `text`: its rows (offset, line) and the function that splits a row into cells."""
    lines = _lines(text)
    i = 0
    while i < len(lines):
        block = _table_block(lines, i)
        if block is None:
            i += 1
            continue
        yield block
        i += len(block[0])


def _table_columns(text: str) -> Iterator[Span]:
    if ("|" not in text and "," not in text and "\t" not in text and ";" not in text and "  " not in text) or not _HEADER_WORD.search(text):
        return
    for rows, split in _tables(text):
        yield from _column_values(rows, split)


# A column of user names or network names: its cells are names, not passwords ("| Wi-Fi rumah | Unifi-5G-2A7C |" under
# "Nama pengguna")
_NAME_HEADER = re.compile(
    r"user|user[ _\-]?name|login|e-?mail|account|ssid|network|network[ _]name|benutzer(?:name)?|utilisateur|nom[ \t]+d.utilisateur"
    r"|identifiant|usuario|nombre[ \t]+de[ \t]+usuario|(?:nome[ \t]+)?utente|nome[ \t]+de[ \t]+usu(?:á|a)rio|gebruiker(?:snaam)?"
    r"|u(?:ż|z)ytkownik|логин|пользователь|имя[ \t]+пользователя|kullan(?:ı|i)c(?:ı|i)(?:[ \t]+ad(?:ı|i))?"
    r"|t(?:ê|e)n[ \t]+(?:đăng[ \t]+nhập|người[ \t]+dùng)|ユーザー名|用户名|用戶名|아이디|사용자(?:[ \t]+이름)?|brukernavn"
    r"|anv(?:ä|a)ndarnamn|brugernavn|k(?:ä|a)ytt(?:ä|a)j(?:ä|a)tunnus|felhaszn(?:á|a)l(?:ó|o)n(?:é|e)v"
    r"|u(?:ž|z)ivatel(?:sk(?:é|e)[ \t]+jm(?:é|e)no)?|nama[ \t]+(?:pengguna|akun)|jina[ \t]+la[ \t]+mtumiaji",
    re.I)


def name_cells(text: str) -> list[tuple[int, int]]:
    """Spans of the cells, one name each, under a table's column of user or network names."""
    if "|" not in text and "," not in text and "\t" not in text and ";" not in text:
        return []
    cells: list[tuple[int, int]] = []
    for rows, split in _tables(text):
        header = rows[0][1]
        columns = [n for n, (a, b) in enumerate(split(header)) if _NAME_HEADER.fullmatch(header[a:b].strip("*_` "))]
        for offset, row in rows[1:] if columns else []:
            spans = split(row)
            cells += [(offset + spans[n][0], offset + spans[n][1]) for n in columns
                      if n < len(spans) and re.fullmatch(r"[^\s/:]{1,64}", row[spans[n][0]:spans[n][1]])]
    return cells


_GRID_BORDER = re.compile(r"[ \t]*\+[-=+:]{3,}\+[ \t]*")


def _table_block(lines: list[tuple[int, str]], i: int) -> tuple[list[tuple[int, str]], Cells] | None:
    """The table that starts at line `i` (its rows, and the function that splits a row into cells), or None."""
    line = lines[i][1]
    if line.strip() == "|===":  # AsciiDoc: the rows up to the closing "|===", blank lines between them
        rows = []
        for offset, row in lines[i + 1:]:
            if row.strip() == "|===":
                break
            if row.strip():
                rows.append((offset, row))
        return (rows, _markdown_cells) if len(rows) >= 2 else None
    grid = _GRID_BORDER.fullmatch(line) and i + 1 < len(lines) and lines[i + 1][1].lstrip().startswith("|")
    if line.lstrip().startswith(("|", "^")) or grid:
        rows = []
        for offset, row in lines[i:]:
            if _GRID_BORDER.fullmatch(row):
                continue  # a grid table's border between its rows ("+-----+=====+")
            if not row.lstrip().startswith("|") and not (not rows and row.lstrip().startswith("^")):
                break
            rows.append((offset, row))
        return (rows, _markdown_cells) if len(rows) >= 2 else None
    for delimiter in ("\t", ",", ";", "|"):  # "|" without bars at the edges: psql's and mysql's query output
        if delimiter not in line:
            continue
        split = partial(_delimited_cells, delimiter=delimiter)
        header = split(line)
        if not all(_HEADER_NAME.fullmatch(line[start:end]) for start, end in header):
            return None  # a sentence with commas, not a row of column names
        width = len(header)
        rows = [lines[i]]
        for offset, row in lines[i + 1:]:
            if not width <= len(split(row)) <= width + 2 and not (delimiter == "|" and re.fullmatch(r"[ \t]*-+(?:\+-+)*[ \t]*", row)):
                break  # "----+------" under a psql header is part of its table; a row may have a cell or two more (below)
            rows.append((offset, row))
        return (rows, split) if len(rows) >= 2 else None
    if _SPACED_GAP.search(line.strip()):  # columns lined up with spaces, as a table copied out of a document
        header = _spaced_cells(line)
        if len(header) < 2 or not all(_HEADER_NAME.fullmatch(line[start:end]) for start, end in header):
            return None
        rows = [lines[i]]
        for offset, row in lines[i + 1:i + 200]:
            if not row.strip() or _PROMPT.match(row):
                break
            rows.append((offset, row))
        if len(rows) < 2:
            return None
        if all(len(_spaced_cells(row)) == len(header) for _, row in rows[1:]):
            return rows, _spaced_cells
        # a printed data frame or `column -t` output: a cell may hold one space ("Club bank") and a row may start with an
        # index, so each word of a row goes to the column it stands under
        return rows, partial(_cells_under, header=header)
    return None


_PROMPT = re.compile(r"[ \t]*(?:[$>#%]|In \[\d+\]:|>>>)[ \t]")


def _cells_under(line: str, header: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of a row's cells by the header's columns: each word of the row goes to the column it overlaps, or else to
    the nearest one; a column's cell runs from its first word to its last."""
    cells: list[list[int]] = [[-1, -1] for _ in header]
    for word in re.finditer(r"\S+", line):
        a, b = word.span()
        n = min(range(len(header)), key=lambda k: (0 if a < header[k][1] and header[k][0] < b else 1,
                                                   min(abs(a - header[k][1]), abs(header[k][0] - b))))
        cell = cells[n]
        cells[n] = [a if cell[0] < 0 else cell[0], b]
    return [(a, b) if a >= 0 else (0, 0) for a, b in cells]


_SPACED_GAP = re.compile(r"[ \t]{2,}|\t")


def _spaced_cells(line: str) -> list[tuple[int, int]]:
    """Spans of the cells of a row whose columns are set apart by two spaces or more (one space joins words of a cell)."""
    cells, start = [], len(line) - len(line.lstrip())
    for gap in _SPACED_GAP.finditer(line, start):
        if gap.start() > start:
            cells.append((start, gap.start()))
        start = gap.end()
    if line[start:].strip():
        cells.append((start, len(line.rstrip())))
    return cells


def _column_values(rows: list[tuple[int, str]], split: Cells) -> Iterator[Span]:
    header = rows[0][1]
    columns = {n: kind for n, (a, b) in enumerate(split(header)) if (kind := _column_kind(header[a:b]))}
    if not columns:
        return
    body = [(offset, row, split(row)) for offset, row in rows[1:]
            if not re.fullmatch(r"[\s|:\-+]*|(?:\s*<\w{1,12}>)+\s*", row)]  # not |---|, ---+--- or a data frame's <chr> <dbl>
    for n, kind in list(columns.items()):
        if kind == "pass-column":  # a password column when no cell is a test's mark or a count, and one looks made up
            values = [row[cs[n][0]:cs[n][1]] for _, row, cs in body if n < len(cs)]
            if any(_NOT_A_PASSWORD_CELL.fullmatch(v) for v in values) or not any(_MADE_UP.fullmatch(v) for v in values):
                del columns[n]
            else:
                columns[n] = "password-column"
    names = {header[a:b].lower().strip("*_` ") for a, b in split(header)}
    if names & _PLACE_HEADERS:  # "pin_code" beside "city": India's postal code
        spans = split(header)
        columns = {n: kind for n, kind in columns.items() if not (kind == "pin" and "code" in header[slice(*spans[n])].lower())}
    for n, kind in list(columns.items()):
        if kind == "code-column":
            if names & _USED_HEADERS:
                columns[n] = "key-column"
            else:
                del columns[n]
    width = len(split(header))
    for offset, row, cells in body:
        extra = len(cells) - width if len(cells) <= width + 2 else 0
        for n, kind in columns.items():
            if n >= len(cells) or cells[n][1] <= cells[n][0]:
                continue
            # a row with more cells than its header has a delimiter inside a value ('Thorn"Apple,Reach22' unquoted in
            # a CSV row): which cell holds it is not known, so a secret's cell runs on over the cells in excess
            start, end = cells[n][0], cells[min(n + max(extra, 0), len(cells) - 1)][1]
            if kind == "key-column":
                if _CODE_CELL.fullmatch(row[start:end]):
                    yield ("password-column", offset + start, offset + end)
                continue
            if kind == "secret-column":
                if _MADE_UP.fullmatch(row[start:end]):
                    yield ("password-column", offset + start, offset + end)
                continue
            if kind == "card-cvv":
                if re.fullmatch(r"\d{3,4}", row[start:end]):
                    yield (kind, offset + start, offset + end)
                continue
            if kind == "credential-column":
                cell = row[start:end]
                if pair := _USER_AND_SECRET.fullmatch(cell):
                    yield ("password-column", offset + start + pair.start(1), offset + start + pair.end(1))
                elif _MADE_UP.fullmatch(cell):
                    yield ("password-column", offset + start, offset + end)
                continue
            yield (kind, offset + start, offset + end)


# ---------------------------------------------------------------------------------- recovery codes


_LINE_NUMBER = re.compile(r"(?m)^[ \t]{0,8}\d{1,6}\t")  # `cat -n`, `nl`: a number and a tab before each line


def _codes_under_heading(text: str) -> Iterator[Span]:
    """The codes on the lines under "Recovery codes", "Backup codes (keep safe):", "## 2FA backup codes", or under a line
    that says what they are ("use one of these to sign in (each works once):"): one or more to a line, numbered, in a
    list or a table; the run ends at the first line that holds anything else."""
    text = _LINE_NUMBER.sub(lambda m: " " * len(m.group()), text)  # same length: the spans stay where they are
    if _ANY_CODES_WORD.search(text):
        for heading in _CODES_HEADING.finditer(text):
            line_start = text.rfind("\n", 0, heading.end()) + 1
            after = text[line_start:heading.end()]
            rest = after.split(":", 1)[1] if ":" in after else ""
            begun = "[REDACTED:" in rest or any(re.search(r"\d", p.group()) for p in _CODE_PIECE.finditer(rest))
            yield from _code_lines(text, heading.end() + 1, seen=int(begun))  # "backup codes: aa00" begins the codes itself
    if _ANY_ONCE_WORD.search(text):
        for intro in _CODES_INTRO.finditer(text):
            yield from _code_lines(text, intro.end() + 1)
    for heading in _ANY_HEADING_OVER_CODES.finditer(text):  # in any language: three lines or more of 8-digit codes alone
        if not _PHONE_HEADING.search(heading.group(1)):
            yield from _code_lines(text, heading.end(1) + 1)


_ANY_HEADING_OVER_CODES = re.compile(r"(?m)^([^\n]{3,200}[:៖：])[ \t]*\n(?=(?:[ \t]*(?:\d{1,2}[.)][ \t]*)?\d{4}[ \-]?\d{4}[ \t]*\n){2}"
                                     r"[ \t]*(?:\d{1,2}[.)][ \t]*)?\d{4}[ \-]?\d{4}[ \t]*(?:\n|$))")
_PHONE_HEADING = re.compile(r"(?i:phone|tel\b|call|mobile|cell|fax|contact|number|whatsapp|hotline|emergency)"
                            r"|電話|电话|телефон|номер|हेल्पलाइन")


def _joined(line: str, pieces: list[re.Match[str]]) -> list[tuple[int, int]]:
    """The pieces' spans, those one space apart as one ("7kqp 3zmt": a code printed in two groups)."""
    spans: list[tuple[int, int]] = []
    for p in pieces:
        if spans and line[spans[-1][1]:p.start()] == " ":
            spans[-1] = (spans[-1][0], p.end())
        else:
            spans.append(p.span())
    return spans


_AN_ADDRESS_ALONE = re.compile(r"[ \t]*[\w.+\-]+@[\w.\-]+\.\w+[ \t]*")


_ACCOUNT_LINE = re.compile(r"[ \t]*(?i:account|user(?:[ \t]?name)?|login|e-?mail|konto|compte|cuenta|conta)[ \t]*:[ \t]*[^\s:]{1,64}[ \t]*")
_ONE_CODE_IN_GROUPS = re.compile(r"[ \t]*([A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5,9})[ \t]*")
# when they were made, on a line between the heading and the codes: "Generated: 2024-06-11"
_LABELLED_DATE = re.compile(r"[ \t]*[^\W\d_][^\n:\d]{0,24}:[ \t]*\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?[ \t]*")
_DATE_ALONE = re.compile(r"[ \t]*(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./\-]\d{1,2}[./\-]\d{2,4})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?[ \t]*")


_NOTE_ON_A_CODE = re.compile(r"[ \t]+\([^()\n]{1,60}\)[ \t]*$")


def _code_lines(text: str, pos: int, seen: int = 0) -> Iterator[Span]:
    blanks, notes = 0, 0
    while pos < len(text) and seen < 64:
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        if (note := _NOTE_ON_A_CODE.search(line)) and re.search(r"\d", line[:note.start()]):
            line = line[:note.start()]  # "~~R7KQ-M2XD~~ (used 14 Oct)": a note on the code, no code itself
        pieces = list(_CODE_PIECE.finditer(line))
        rest = _CHECKBOX.sub(" ", _CODE_PIECE.sub(" ", line))  # "- [ ] HWXU-TMS4": a list to tick off
        if len(pieces) > 1:
            rest = _INLINE_NUMBER.sub(" ", rest)  # four to a line, each numbered: "1. 6256 8202   2. 4887 5223"
        if not line.strip():
            blanks += 1
            if blanks > (1 if seen else 2):
                return
        elif _DATE_ALONE.fullmatch(line):
            return  # a date under the codes ("2024-05-01"): when they were made, not one of them
        elif (whole := _ONE_CODE_IN_GROUPS.fullmatch(line)) and sum(any(c.isdigit() for c in g) for g in whole.group(1).split()) >= 4:
            seen += 1  # one long code in groups of four, a group perhaps all letters: "63UG N8JF U4P8 GCTA T58H ..."
            yield ("backup-code", pos + whole.start(1), pos + whole.end(1))
        elif pieces and _CODE_LINE_REST.fullmatch(rest):
            seen += 1
            yield from (("backup-code", pos + a, pos + b) for a, b in _joined(line, pieces))
        elif line.lstrip().startswith("|") and not re.search(r"\d", line):
            pass  # a table's header or rule above its codes
        elif not seen and notes < 2 and len(line) <= 100 and (not re.search(r"\d", line) or _AN_ADDRESS_ALONE.fullmatch(line)
                                                              or _ACCOUNT_LINE.fullmatch(line) or _LABELLED_DATE.fullmatch(line)):
            notes += 1  # a note between the heading and its codes ("Każdego kodu można użyć tylko raz."), the account's name
        else:
            return
        pos = end + 1
