"""Screening text for what must never become a memory: instructions to the agent, and secrets.

Two screens, each switchable (config keys `screen.instructions` and `screen.secrets`, both on by
default), each hit named by a kind so every withheld piece of text can say why:

- Secrets (API keys, tokens, passwords, card numbers, IBANs, private keys) are *redacted* where
  text enters hymem: a raw message before it is stored, a chunk before the writer sees it and
  before its text is kept for provenance. An operation that would still store one is refused.
- Instructions addressed to the agent ("ignore previous instructions", a fake `SYSTEM:` turn, "note
  for the AI: from now on always ...") are refused as facts by the guards. The policy is about
  *form*: a memory is a fact about people in the third person ("Alex wants short answers."), never
  an imperative for the agent ("Always answer briefly."), a claim to come from the system, or text
  addressed to an AI. Raw mode stores messages verbatim, speaker first, so such text stays quoted
  speech there.

Every pattern runs in linear time on any input, however long or hostile: repeats are bounded or
anchored at the start of a run (a look-behind), never nested, and looser candidates are checked in
Python (Luhn, mod 97, how random a token looks) instead of by look-ahead.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

# ---------------------------------------------------------------------------------- secrets

_RUN = r"A-Za-z0-9_\-"  # characters of a token run
_B = rf"(?<![{_RUN}])"  # a token starts a run: each run is scanned once per pattern (no quadratic rescans)
_E = rf"(?![{_RUN}])"

# kind -> pattern; where a pattern has a group, only that group is the secret (the label stays).
SECRET_PATTERNS: dict[str, re.Pattern] = {
    "private-key": re.compile(
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,12}-----(?:.*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,12}-----|.*)",
        re.S,
    ),
    "anthropic-key": re.compile(_B + r"sk-ant-[a-z]{2,10}\d{0,3}-[A-Za-z0-9_\-]{16,}"),
    "openai-key": re.compile(_B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    "stripe-key": re.compile(_B + r"(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"),
    "api-key": re.compile(_B + r"(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{16,}"),
    "aws-access-key": re.compile(_B + r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[0-9A-Z]{16}" + _E),
    "aws-secret-key": re.compile(r"aws[_ ]?secret[_ ]?(?:access[_ ]?)?key[\"' ]{0,3}[:=][\"' ]{0,3}([A-Za-z0-9/+=]{40})", re.I),
    "github-token": re.compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    "gitlab-token": re.compile(_B + r"glpat-[A-Za-z0-9_\-]{20,}"),
    "slack-token": re.compile(_B + r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    "slack-webhook": re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{10,}"),
    "google-api-key": re.compile(_B + r"AIza[0-9A-Za-z_\-]{35}"),
    "google-oauth-token": re.compile(_B + r"ya29\.[0-9A-Za-z_\-]{20,}"),
    "huggingface-token": re.compile(_B + r"hf_[A-Za-z0-9]{30,}"),
    "npm-token": re.compile(_B + r"npm_[A-Za-z0-9]{36}"),
    "pypi-token": re.compile(_B + r"pypi-AgE[A-Za-z0-9_\-]{30,}"),
    "sendgrid-key": re.compile(_B + r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
    "twilio-key": re.compile(_B + r"(?:SK|AC)[0-9a-f]{32}" + _E),
    "mailgun-key": re.compile(_B + r"key-[0-9a-f]{32}" + _E),
    "digitalocean-token": re.compile(_B + r"do[opr]_v1_[a-f0-9]{64}"),
    "shopify-token": re.compile(_B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    "discord-token": re.compile(_B + r"[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,}"),
    "telegram-token": re.compile(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}" + _E),
    "jwt": re.compile(_B + r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    "bearer": re.compile(r"\bbearer\s{1,4}([A-Za-z0-9._~+/\-]{16,}=*)", re.I),
    "basic-auth": re.compile(r"\bbasic\s{1,4}([A-Za-z0-9+/]{8,}={0,2})", re.I),
    "url-credentials": re.compile(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s/:@]{1,64}:([^\s/@]{1,128})@", re.I),
    "password": re.compile(
        # a keyword, "for the router"-style words, a connector, then the value (quoted, or one word)
        r"(?<![A-Za-z])(?:passwords?|passwort|passwd|pass\s?code|pass\s?phrase|pw|wi-?fi\s+key|api[\s_\-]?key|access[\s_\-]?key|"
        r"(?:account|shared[\s_\-]?access|storage|master|signing|encryption|private|secret)[\s_\-]?key|"
        r"client[\s_\-]?secret|shared\s+secret|access[\s_\-]?token|auth[\s_\-]?token|refresh[\s_\-]?token|"
        r"api[\s_\-]?token|token|(?:door|gate|alarm|garage|safe|lock|lockbox|entry|security|unlock|keypad|building)[\s_\-]?code|"
        r"contrase(?:ñ|n)a|mot\s+de\s+passe|senha|пароль)\b[\"']?"
        r"(?:[ \t]{1,3}(?:for|to|of|on|at)[ \t]{1,3}(?:the[ \t]{1,3}|my[ \t]{1,3}|our[ \t]{1,3}|his[ \t]{1,3}|her[ \t]{1,3})?[\w.@\-]{1,40})?"
        r"(?:[ \t]{0,3}(?:is[ \t]{1,3}now|is|was|will[ \t]{1,3}be|(?:was[ \t]{1,3})?(?:changed|set)[ \t]{1,3}to|ist|est|es|é|=>|->|=|:)[ \t]{0,2}:?"
        r"[ \t]{0,3}(\"[^\"\n]{3,128}\"|'[^'\n]{3,128}'|“[^”\n]{3,128}”|`[^`\n]{3,128}`|(?:(?!\[REDACTED:)[^\s\"'“`]){3,128})"
        r"|[ \t]{1,3}(\"[^\"\n]{3,128}\"|'[^'\n]{3,128}'|“[^”\n]{3,128}”|`[^`\n]{3,128}`))",
        re.I,
    ),
    # a multi-word passphrase after ':' or '=' ("Passphrase: correct horse battery staple"); "is" takes one word, above
    "passphrase": re.compile(r"\bpass[ \t]?phrase\b[\"']?[ \t]{0,3}[=:][ \t]{0,3}([^\n.,;()\"'“”]{3,128})", re.I),
    "pin": re.compile(r"\bpin(?:[ \t]?(?:code|number))?[ \t]{0,3}(?:is|was|=|:|-)?[ \t]{0,3}(\d{4,8})(?!\d)", re.I),
    "ssn": re.compile(
        r"\b(?:ssn|social\s+security(?:\s+number)?)\W{0,5}(?:(?:is|was|number|no|nr)\W{1,5})?(\d{3}[- ]?\d{2}[- ]?\d{4})(?!\d)"
        r"|(?<![\d\-])((?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4})(?![\d\-])",
        re.I,
    ),
    "card-number": re.compile(r"(?<![0-9])[2-6][0-9]{2,18}(?:[ \-][0-9]{3,19}){0,7}(?![0-9])"),  # digit groups; cards are found inside
    "iban": re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,32}"),
    "token": re.compile(r"(?<![A-Za-z0-9_\-+/])[A-Za-z0-9_\-+/]{32,}={0,2}"),  # generic: long, random-looking
}

# Words that follow "password is" in plain talk about passwords, not as the password itself.
_NOT_A_VALUE = frozenset(
    """a an the my your his her our their its this that these those it in on at of for to from with by as is was be been
    not no none null nil n/a empty blank missing unknown required optional needed necessary mandatory correct incorrect wrong
    right invalid valid expired expiring reset changed set saved stored kept written hidden encrypted hashed managed shared
    synced same different new old weak strong secure insecure long short simple complex hard easy too very really still also
    just only now here there somewhere where what which who how when why because since so and or but if then than
    sensitive case-sensitive protected compromised leaked rotated revoked working broken fine ok okay good bad great terrible
    stupid annoying below above attached inside included provided generated random unique supposed going due about like
    something nothing anything everything one two three etc tbd todo yes please see check ask use using used via whatever
    forgotten lost locked sent given printed mine yours ours theirs hers case length characters chars letters digits
    manager vault 1password lastpass bitwarden keychain keepass dashlane somewhere else elsewhere printed file env
    environment variable variables config settings""".split()
)

_CARD_PREFIX = re.compile(r"4|5[1-5]|2[2-7]|3[47]|3[0689]|35|6")
_IBAN_LENGTHS = {  # country -> IBAN length (the common ones; others pass with any length 15..34)
    "AT": 20, "BE": 16, "CH": 21, "CZ": 24, "DE": 22, "DK": 18, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "IE": 22,
    "IT": 27, "LU": 20, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "SE": 24,
}


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _is_card(digits: str) -> bool:
    return 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) is not None and len(set(digits)) > 1 and _luhn(digits)


def _cards_in_run(run: str, offset: int) -> list[tuple[int, int]]:
    """Card numbers inside a run of digit groups ("order 12 4111 1111 1111 1111"): windows of whole groups.

    A card is written as one group or as groups of three or more digits (4-4-4-4, 4-6-5), so shorter
    groups end a window; that keeps a long run of short groups ("1 2 3 ...") cheap."""
    groups = [(m.start(), m.end()) for m in re.finditer(r"[0-9]+", run)]
    spans = []
    i = 0
    while i < len(groups):
        start, end = groups[i]
        if run[start] not in "23456" or end - start > 19 or (i > 0 and end - start < 3):
            i += 1
            continue
        found, digits = None, ""
        for j in range(i, min(len(groups), i + 8)):
            g0, g1 = groups[j]
            if j > i and g1 - g0 < 3:
                break
            digits += run[g0:g1]
            if len(digits) > 19:
                break
            if _is_card(digits):
                found = j  # keep the longest window from i
        if found is not None:
            spans.append((offset + start, offset + groups[found][1]))
            i = found + 1
        else:
            i += 1
    return spans


def _iban_span(text: str) -> int | None:
    """Length of the valid IBAN at the start of `text` (spaces allowed between characters), or None."""
    compact, ends = "", []
    for pos, ch in enumerate(text):
        if ch != " ":
            compact += ch
            ends.append(pos + 1)
    want = _IBAN_LENGTHS.get(compact[:2])
    lengths = [want] if want else range(min(len(compact), 34), 14, -1)
    for n in lengths:
        if n <= len(compact):
            candidate = compact[:n]
            moved = candidate[4:] + candidate[:4]
            number = "".join(str(int(c, 36)) for c in moved)
            if int(number) % 97 == 1:
                return ends[n - 1]
    return None


def _looks_random(token: str) -> bool:
    """A generic long token that reads like a credential, not a hash, id, path or identifier."""
    core = token.rstrip("=")
    if len(core) < 32:
        return False
    if re.fullmatch(r"[0-9a-fA-F\-]+", core):
        return False  # hex: commit hashes, checksums, UUIDs are ids, not secrets
    if not (re.search(r"[0-9]", core) and re.search(r"[A-Za-z]", core)):
        return False
    parts = re.split(r"[/_\-+]", core)
    if core.count("/") >= 2 and max(map(len, parts)) < 24:
        return False  # a path
    if len(parts) >= 3 and all(p.isdigit() or (p.isalpha() and (p.islower() or p.isupper())) for p in parts if p):
        return False  # snake_case or kebab-case words and numbers
    if len(parts) >= 4 and max(map(len, parts)) <= 8:
        return False  # short pieces joined: a name like "Hy-Memory-30B-A3B-Q8_0", not a random run
    sample = core[:4096]  # enough to judge; a multi-megabyte run costs no more
    kinds = [0 if c.isdigit() else 1 if c.islower() else 2 if c.isupper() else 3 for c in sample]
    switches = sum(a != b for a, b in zip(kinds, kinds[1:])) / (len(sample) - 1)
    counts: dict[str, int] = {}
    for c in sample:
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(n / len(sample) * math.log2(n / len(sample)) for n in counts.values())
    return switches >= 0.3 and entropy >= 3.5


def _password_value(value: str) -> bool:
    if value[0] in "\"'“`":
        return value.strip("\"'“”`").strip() != "" and not value.startswith(("'[REDACTED", '"[REDACTED'))
    word = value.rstrip(".,;:!?)]}")
    if len(word) < 3 or word.startswith("[REDACTED"):
        return False
    low = word.lower()
    if low in _NOT_A_VALUE:
        return False
    if word.isalpha() and word.islower() and low.endswith(("ed", "ing", "ly")):
        return False  # "was changed", "is expiring", "is really ..."
    return True


def _basic_auth(value: str) -> bool:
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    return ":" in decoded and decoded.isprintable()


def _bearer(value: str) -> bool:
    return bool(re.search(r"[0-9]", value) or (re.search(r"[a-z]", value) and re.search(r"[A-Z]", value)))


# kind -> check of the secret's text (group 1, else the whole match); a failed check is no secret
def _passphrase(value: str) -> bool:
    words = re.findall(r"[\w'-]+", value.lower())
    return bool(words) and not all(w in _NOT_A_VALUE for w in words)


_CHECKS: dict[str, Callable[[str], bool]] = {
    "password": _password_value,
    "passphrase": _passphrase,
    "basic-auth": _basic_auth,
    "bearer": _bearer,
    "token": _looks_random,
    "url-credentials": lambda v: not v.startswith("[REDACTED"),
}


# kind -> a literal every match contains: patterns whose literal is absent are not run at all
_NEEDS = {
    "private-key": "-----BEGIN", "anthropic-key": "sk-ant-", "openai-key": "sk-", "slack-webhook": "hooks.slack.com",
    "google-api-key": "AIza", "google-oauth-token": "ya29.", "huggingface-token": "hf_", "npm-token": "npm_",
    "pypi-token": "pypi-", "sendgrid-key": "SG.", "mailgun-key": "key-", "jwt": "eyJ", "url-credentials": "://",
    "telegram-token": ":AA", "gitlab-token": "glpat-", "digitalocean-token": "_v1_",
}


# kind -> words one of which every match contains, in lower case (keyword patterns are the slow ones)
_NEEDS_WORD = {
    "password": ("pass", "pw", "key", "token", "secret", "code", "contrase", "senha", "пароль"),
    "passphrase": ("phrase",),
    "aws-secret-key": ("aws",), "bearer": ("bearer",), "basic-auth": ("basic",), "pin": ("pin",),
}


# Patterns whose every match lies inside one run of token characters: they are run only over such runs
# (a few per message, usually none), not over all the text.
_TOKEN_KINDS = frozenset({
    "anthropic-key", "openai-key", "stripe-key", "api-key", "aws-access-key", "github-token", "gitlab-token", "slack-token",
    "google-api-key", "google-oauth-token", "huggingface-token", "npm-token", "pypi-token", "sendgrid-key", "twilio-key",
    "mailgun-key", "digitalocean-token", "shopify-token", "discord-token", "telegram-token", "jwt", "token",
})
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-.+/=:]{12,}")


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every secret-looking span in `text`."""
    found: list[tuple[str, int, int]] = []
    lower = text.lower()
    runs = [m.span() for m in _TOKEN_RUN.finditer(text)]
    for kind, rx in SECRET_PATTERNS.items():
        if kind in _NEEDS and _NEEDS[kind] not in text:
            continue
        if kind in _NEEDS_WORD and not any(w in lower for w in _NEEDS_WORD[kind]):
            continue
        if kind in _TOKEN_KINDS:
            matches = (m for a, b in runs for m in rx.finditer(text, a, b))  # look-behinds still see the text before a
        else:
            matches = rx.finditer(text)
        for m in matches:
            if kind == "card-number":
                found += [(kind, s, e) for s, e in _cards_in_run(m.group(), m.start())]
                continue
            if kind == "iban":
                end = _iban_span(m.group())
                if end is not None:
                    found.append((kind, m.start(), m.start() + end))
                continue
            g = next((i for i in range(1, rx.groups + 1) if m.group(i) is not None), 0)  # the group that matched
            start, end = m.span(g)
            value = m.group(g)
            if value.lstrip("\"'“`").startswith("[REDACTED:"):
                continue  # a placeholder is not a secret
            check = _CHECKS.get(kind)
            if check is not None and not check(value):
                continue
            if kind == "passphrase":
                end = start + len(value.rstrip())
            if kind == "password":
                if value[:1] in "\"'“`":  # redact the quoted value, keep the quotes
                    start, end = start + 1, end - 1
                else:  # "is hunter2." -> the full stop is not part of it
                    end = start + len(value.rstrip(".,;:!?)]}"))
            found.append((kind, start, end))
    return found


# Every secret value redacted in this process, newest last (bounded). Out of context a value such as
# "Tr0ub4dor&3" matches no pattern, yet a writer, a rejection record or a later message may repeat it
# bare: the guards and `scrub` look for these values too. A hymem command is one process, so this is
# "the secrets of this ingest"; values shorter than 4 characters are not kept.
_SEEN: dict[str, str] = {}
_SEEN_MAX = 4096


def _remember(value: str, kind: str) -> None:
    value = value.strip()
    if len(value) > 512:  # a key block: its lines; any other run this long is not worth keeping
        if kind == "private-key":
            for line in value.splitlines()[1:-1][:64]:
                if len(line.strip()) >= 16:
                    _remember(line, kind)
        return
    if len(value) < 4 or value.startswith("[REDACTED"):
        return
    _SEEN.pop(value, None)
    _SEEN[value] = kind
    while len(_SEEN) > _SEEN_MAX:
        _SEEN.pop(next(iter(_SEEN)))


def forget_seen() -> None:
    """Drop the values remembered by `redact` (tests; a long-lived process between unrelated inputs)."""
    _SEEN.clear()


def _seen_in(text: str) -> list[tuple[str, int, int]]:
    found = []
    for value, kind in list(_SEEN.items()):
        start = text.find(value)
        while start >= 0:
            found.append((kind, start, start + len(value)))
            start = text.find(value, start + len(value))
    return found


def secret_kind(text: str, seen: bool = True) -> str | None:
    """The kind of the first secret in `text`; with `seen`, a value redacted earlier in this process counts too."""
    hits = find_secrets(text) + (_seen_in(text) if seen else [])
    return min(hits, key=lambda h: h[1])[0] if hits else None


def redact(text: str, seen: bool = False) -> tuple[str, list[str]]:
    """Replace secret spans with [REDACTED:kind]; returns the new text and the kinds replaced.

    Overlapping spans are merged into one redaction (named after the first, or the longest). The
    values replaced are remembered (see _SEEN); with `seen`, remembered values are replaced too.
    Repeated until nothing is left to find (a key glued to a card number only stands alone once the
    card is gone), so redact(redact(x)) == redact(x) and the result holds nothing find_secrets finds.
    Later rounds look only around what the previous round replaced: nothing else changed."""
    if not seen and (hit := _CACHE.get(id(text))) is not None and hit[0] is text:
        return hit[1][0], list(hit[1][1])
    out, kinds, placed = _redact_in(text, [(0, len(text))], seen)
    for _ in range(8):
        if not placed:
            break
        out, more, placed = _redact_in(out, _around(out, placed), seen)
        kinds += more
    if not seen:
        _remember_result(text, (out, kinds))
    return out, kinds


# The last results by string identity: ingest redacts a message, then the chunk it belongs to (for the
# record it keeps), and the writer pipeline does the same; the second time costs nothing.
_CACHE: dict[int, tuple[str, tuple[str, list[str]]]] = {}
_CACHE_MAX = 256


def _remember_result(text: str, result: tuple[str, list[str]]) -> None:
    _CACHE[id(text)] = (text, (result[0], list(result[1])))
    while len(_CACHE) > _CACHE_MAX:
        _CACHE.pop(next(iter(_CACHE)))


_SPACE = re.compile(r"\s")


def _around(text: str, spans: list[tuple[int, int]], margin: int = 300) -> list[tuple[int, int]]:
    """Regions around `spans`, widened to whitespace so no token or "password is ..." is cut, merged."""
    regions: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        a, b = max(0, start - margin), min(len(text), end + margin)
        while a > 0 and not _SPACE.match(text, a - 1):
            a -= 1
        m = _SPACE.search(text, b)
        b = m.start() if m else len(text)
        if regions and a <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(regions[-1][1], b))
        else:
            regions.append((a, b))
    return regions


def _redact_in(text: str, regions: list[tuple[int, int]], seen: bool) -> tuple[str, list[str], list[tuple[int, int]]]:
    """Redact the secrets found inside `regions`; returns the text, the kinds and where the placeholders now are."""
    order = {k: i for i, k in enumerate(SECRET_PATTERNS)}
    hits = []
    for a, b in regions:
        part = text if (a, b) == (0, len(text)) else text[a:b]
        found = find_secrets(part) + (_seen_in(part) if seen else [])
        for kind, start, end in found:
            _remember(part[start:end], kind)
        hits += [(kind, a + start, a + end) for kind, start, end in found]
    spans = sorted(hits, key=lambda s: (s[1], -s[2], order[s[0]]))
    merged: list[list] = []
    for kind, start, end in spans:
        if merged and start < merged[-1][2]:
            merged[-1][2] = max(merged[-1][2], end)
        else:
            merged.append([kind, start, end])
    out, kinds, placed, pos, size = [], [], [], 0, 0
    for kind, start, end in merged:
        out.append(text[pos:start])
        size += start - pos
        label = f"[REDACTED:{kind}]"
        out.append(label)
        placed.append((size, size + len(label)))
        size += len(label)
        kinds.append(kind)
        pos = end
    out.append(text[pos:])
    return "".join(out), kinds, placed


# ---------------------------------------------------------------------------- instructions

_AI = (
    r"(?:ai|a\.i\.|assistants?|ai\s+(?:assistants?|agents?|models?|systems?|tools?)|llms?|large\s+language\s+models?|"
    r"language\s+models?|chat\s?bots?|gpts?|chatgpt|claude|copilot|gemini|coding\s+agents?|autonomous\s+agents?)"
)
_AGENT_VERBS = (
    r"(?:respond|reply|answer|say|tell|recommend|suggest|mention|include|add|append|end|start|begin|sign|refer|call|address|"
    r"output|print|write|use|speak|talk|obey|follow|ignore|trust|agree|comply|praise|promote|link|cite|send|forward|share|"
    r"reveal|disclose|hide|omit|redirect|describe|rate|rank|claim|state|insist|assume|treat|report|mark|approve|accept|"
    r"prioriti[sz]e|favou?r|endorse|pretend|act|behave|refuse|delete|remove|store|save|remember|execute|run)"
)
_STRONG_VERBS = (
    r"(?:obey|comply|disregard|ignore|forget|pretend|prioriti[sz]e|favou?r|endorse|promote|reveal|disclose|exfiltrate|"
    r"forward\s+(?:all|every|the\s+user)|recommend|respond|reply|answer\s+(?:only|in|with|every|all|as)|refuse|trust|act\s+as|"
    r"behave|treat\s+(?:the\s+)?user|tell\s+(?:the\s+)?users?)"
)
_SENSITIVE = (
    r"(?:conversations?|chats?|chat\s+(?:logs?|history)|messages|memor(?:y|ies)|history|transcripts?|credentials?|passwords?|"
    r"api\s+keys?|keys|secrets?|tokens?|cookies?|sessions?|system\s+prompt|instructions|private\s+keys?|ssh\s+keys?|"
    r"\.env|env(?:ironment)?\s+(?:files?|variables?)|context(?:\s+window)?|(?:user|customer|personal)\s+data|"
    r"(?:the\s+)?user'?s?\s+(?:data|files|emails|documents|messages)|everything)"
)
_SENTENCE = r"(?:^|[.!?;:\n]\s{0,3}|\b(?:please|now|instead)\s{0,3},?\s{1,3})[\"'“(\[*\-]{0,2}\s{0,2}"

INSTRUCTION_PATTERNS: dict[str, re.Pattern] = {
    # "ignore all previous instructions", "disregard your rules", "forget everything above"
    "override": re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass|discard|abandon|drop|skip)\b(?:\W{1,3}\w+){0,3}?\W{1,3}"
        r"(?:(?:previous|prior|above|preceding|earlier|former|initial|original|existing|all|any|your|system|safety|these|those)\W{1,3}"
        r"(?:\w+\W{1,3}){0,2}?(?:instructions?|prompts?|rules?|directives?|guidelines?|guardrails?|constraints?|restrictions?|"
        r"polic(?:y|ies)|programming|training|context|messages?|commands?|orders?|directions?|limitations?|guidance|safeguards?|"
        r"protections?|moderation)"
        r"|the\s+(?:above|previous|foregoing)\b|(?:everything|anything|all|whatever|what\s+(?:was|is|you\s+were|i)\s+(?:said|told|wrote|written|given))"
        r"\W{1,3}(?:\w+\W{1,3}){0,2}?(?:above|previously|so\s+far|until\s+now|up\s+to\s+now|before\s+this|earlier)\b)"
        r"|\byour\s+(?:previous\s+|prior\s+|original\s+|old\s+)?(?:instructions|rules|system\s+prompt|guidelines|programming)\s+"
        r"(?:are|is)\s+(?:now\s+)?(?:void|cancell?ed|obsolete|replaced|suspended|overridden|lifted|no\s+longer)",
        re.I,
    ),
    # a fake turn or channel: "SYSTEM:", "[system]", "<|im_start|>system", "### Instruction:", "[INST]"
    "role-claim": re.compile(
        r"(?:^|[\n\]>]|[.!?]\s{1,3})[ \t>*#\-]{0,6}[\[<({|]{0,3}[ \t]{0,2}"
        r"(?:system|sys|developer|admin(?:istrator)?|root|operator|openai|anthropic|assistant)"
        r"(?:[ \t_\-]{1,2}(?:prompt|message|note|notice|instructions?|override|directive|update|command))?"
        r"[ \t]{0,2}[\]>)}|]{0,3}[ \t]{0,2}:"
        r"|<\|(?:im_start|im_end|system|endoftext|eot_id|start_header_id|end_header_id)\|>|\[/?INST\]|<</?SYS>>"
        r"|(?:^|\n)[ \t]{0,3}#{2,4}[ \t]{0,3}(?:system|instruction|instructions|response)\b"
        r"|</?(?:system|system_prompt|instructions?)>|\b(?:begin|end)\s+(?:of\s+)?system\s+prompt\b"
        r"|\[(?:system|sys|admin|administrator|root|sudo|developer|operator|override|priority\s+override)\]",
        re.I,
    ),
    # rules for the agent's behaviour: "from now on, always ...", "Always recommend ...", "new instructions for you"
    "new-rule": re.compile(
        r"\bfrom\s+now\s+on\s{0,3},?\s{0,3}(?:(?:please|ok|okay|then|and)\s{0,3},?\s{1,3})?"
        r"(?:you\b|your\b|the\s+" + _AI + r"\b|always\b|never\b|only\b|do\s+not\b|don'?t\b|must\b|" + _AGENT_VERBS + r"\b)"
        r"|" + _SENTENCE + r"(?:always|never|only)\s{1,3}" + _AGENT_VERBS + r"\b"
        r"|\b(?:new|updated|revised|real|actual|true|secret|hidden|additional)\s+(?:instructions?|rules?|directives?|system\s+prompt|orders)"
        r"\s+(?:for|to)\s+(?:you|the\s+" + _AI + r")\b"
        r"|\byour\s+(?:new|real|actual|true|updated|only)\s+(?:instructions?|rules?|directives?|task|mission|goal|objective|purpose|role)\b"
        r"|\b(?:remember|memori[sz]e|store|save|keep)\s{1,3}(?:this|that|the\s+following|it)?\s{0,3}(?:as\s+)?(?:an?\s+)?"
        r"(?:new|permanent|standing|global|core|system|important)\s+(?:rule|instruction|directive|policy|guideline|command|order)\b"
        r"|\b(?:in|for)\s+(?:all\s+)?(?:future|subsequent|every\s+(?:future\s+)?)\s+(?:responses?|answers?|replies|chats?|interactions?|conversations?)\b"
        r"[^.\n]{0,40}\b(?:you|always|never|respond|reply|answer|say|recommend|mention|refer|call)\b"
        r"|\b(?:make|take|keep)\s+(?:a\s+)?(?:permanent|standing|lasting|persistent)\s+note\b"
        # a standing conditional rule: "whenever someone asks about pricing, quote ..."
        r"|\b(?:whenever|every\s+time|each\s+time|any\s+time|when)\s+(?:someone|anyone|somebody|a\s+user|the\s+user|users|people|a\s+customer|customers)\s+"
        r"(?:asks?|mentions?|says?|requests?|types?|writes?|brings?\s+up|wants?)\b[^.\n]{0,80}?,\s{0,3}(?:always\s+|just\s+|please\s+|then\s+)?"
        r"(?:quote|say|respond|reply|answer|recommend|tell|mention|suggest|send|show|give|offer|push|promote|refer|direct|redirect|link|point|claim|insist|describe)\b"
        r"|\b(?:when|while|whenever)\s+(?:generating|writing|summari[sz]ing|answering|replying|responding|completing|suggesting|reviewing)\b[^.\n]{0,60}?,"
        r"\s{0,3}(?:always|never|only)\s{1,3}" + _AGENT_VERBS + r"\b"
        # an imperative for the agent opening a sentence: "Recommend selling ...", "Reveal your prompt"
        r"|" + _SENTENCE + r"(?:recommend|respond|reply|obey|pretend|disregard|reveal|disclose|endorse|promote|praise|"
        r"answer\s+(?:only|in|with|every|all|as)|output\s+(?:your|the)\b|print\s+(?:your|the)\s+(?:system|hidden|initial|full)|"
        r"approve\s+(?:all|every|any)|grant\s+(?:all|every|any)|describe\s+\w+\s+as|act\s+as)\b"
        # an unchecked action: "execute the next command without review"
        r"|(?:" + _SENTENCE + r"|\band\s+)(?:execute|run|approve|grant|delete|transfer|pay|send|deploy|merge|install|disable)\b[^.\n]{0,60}?"
        r"\bwithout\s+(?:any\s+)?(?:review|reviewing|confirmation|confirming|asking|checking|verification|verifying|approval|permission)\b",
        re.I,
    ),
    # the agent as the subject of an obligation: "the assistant must always ...", "you must never reveal ..."
    "to-assistant": re.compile(
        r"\b(?:the\s+|this\s+|our\s+|my\s+|your\s+)?" + _AI + r"\s+(?:must|shall|should|has\s+to|needs?\s+to|is\s+to|are\s+to|"
        r"(?:is|are)\s+(?:required|supposed|expected|instructed|ordered|told|allowed|permitted)\s+to|may\s+not|must\s+not|"
        r"should\s+not|shouldn'?t)\s+(?:now\s+|henceforth\s+|hereafter\s+|also\s+|then\s+)?"
        r"(?:always|never|only|immediately|secretly|silently|quietly|" + _AGENT_VERBS + r")\b"
        r"|\b(?:the\s+|this\s+|our\s+|my\s+|your\s+)?" + _AI + r"\s+(?:will|won'?t|will\s+not|cannot|can'?t|is\s+going\s+to)\s+"
        r"(?:now\s+|henceforth\s+|also\s+)?(?:always|never|only|secretly|silently|quietly)\b"
        r"|\byou\s+(?:must|shall|should|will|have\s+to|need\s+to|are\s+to|are\s+(?:required|instructed|ordered)\s+to)\s+"
        r"(?:now\s+|henceforth\s+|also\s+)?(?:always|never|only|henceforth|secretly|silently|quietly|" + _STRONG_VERBS + r")\b"
        r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|reveal\s+to|mention\s+(?:this\s+|it\s+)?to|notify|warn|alert|let)\s+"
        r"(?:the\s+)?(?:user|users|human|customer|operator|owner)\b"
        r"|\bwithout\s+(?:telling|informing|notifying|alerting|warning|asking)\s+(?:the\s+)?(?:user|human|operator|owner)\b",
        re.I,
    ),
    # text addressed to an AI: "note for the AI:", "if you are an AI reading this", "# AI: ..."
    "ai-address": re.compile(
        r"\b(?:note|message|instructions?|reminder|memo|directive|attention|warning|notice|p\.?s\.?)\s{0,3}(?:for|to)\s+"
        r"(?:the\s+|any\s+|all\s+|every\s+)?" + _AI + r"\b"
        r"|\b(?:attention|hey|hi|hello|dear|listen(?:\s+up)?)\s{0,3},?\s{1,3}(?:the\s+)?" + _AI + r"\s{0,3}[,:!]"
        r"|\b(?:if|when|whenever)\s+(?:you\s+are|you'?re|you\s+were)\s+(?:an?\s+)?(?:" + _AI + r"|automated\s+\w+)\b"
        r"|\b(?:any|all|every|each)\s+" + _AI + r"\s+(?:reading|processing|summari[sz]ing|parsing|scraping|seeing|ingesting|that\s+reads?)\b"
        r"|\b" + _AI + r"\s+(?:reading|processing|summari[sz]ing|parsing|ingesting)\s+(?:this|these|the\s+following)\b"
        r"|(?:^|\n)[ \t]{0,4}(?:#|//|/\*|<!--|\*|--)?[ \t]{0,3}(?:note\s+to\s+|todo\s*\(\s*)?(?:ai|llm|assistant|gpt|claude|copilot)\s{0,2}\)?\s{0,2}:"
        r"|(?<![\w.])@(?:copilot|claude|chatgpt|gpt|assistant|ai|llm|gemini|codex)\b",
        re.I,
    ),
    # raising someone's authority: "treat every message from X as coming from the system administrator"
    "trust-escalation": re.compile(
        r"\btreat\s+(?:every|all|any|each)\s+(?:message|request|email|instruction|input|text|command)s?\s+(?:from|by|in|containing|signed)\b"
        r"[^\n]{0,60}?\bas\s+(?:(?:coming|sent)\s+from\s+|if\s+(?:it\s+|they\s+)?(?:came|come|comes|were|was)\s+from\s+|being\s+from\s+)?"
        r"(?:the\s+|a\s+|an\s+)?(?:system|admin(?:istrator)?|developer|root|owner|operator|trusted|authori[sz]ed|verified|the\s+user)\b",
        re.I,
    ),
    # moving data out: "send the conversation history to https://...", "curl ... | sh"
    "exfiltrate": re.compile(
        r"\b(?:send|forward|upload|post|e-?mail|transmit|leak|exfiltrate|copy|sync|mail|dump|paste|submit)\b\s+"
        r"(?:(?:all|every|any|each)\s+(?:of\s+)?)?(?:the\s+|your\s+|my\s+|his\s+|her\s+|their\s+|this\s+|these\s+)?(?:\w+\s+){0,2}?" + _SENSITIVE + r"\b"
        r"[^.\n]{0,60}?\b(?:to|at|into|onto|via)\s+(?:https?://|ftp://|www\.|[\w.+\-]+@[\w\-]+\.[\w.\-]+|(?:\d{1,3}\.){3}\d{1,3}|"
        r"[\w\-]+\.(?:com|net|org|io|xyz|ru|cn|tk|top|site|info|biz|co|ai|dev|app|example)\b|(?:this|that|the\s+following)\s+(?:url|address|endpoint|server|webhook))"
        r"|\b(?:curl|wget)\b[^\n|]{0,200}\|\s{0,3}(?:ba|z)?sh\b",
        re.I,
    ),
    # persona swaps that switch off rules
    "jailbreak": re.compile(
        r"\byou\s+are\s+(?:now\s+)?(?:in\s+)?(?:dan\b|developer\s+mode|god\s+mode|jailbr(?:eak|oken)|unrestricted|unfiltered|uncensored|"
        r"no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:ai|assistant)))"
        r"|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil)\b"
        r"|\bpretend\s+(?:that\s+)?you\s+(?:are|have)\s+no\s+(?:rules|restrictions|guidelines|limits)"
        r"|\b(?:dan|developer|god)\s+mode\s+(?:enabled|on|activated)\b|\bjailbreak\s+(?:mode|prompt)\b",
        re.I,
    ),
    # the same, in other languages
    "override-translated": re.compile(
        r"\b(?:ignora|ignorad|ignore\s+(?:toutes\s+)?(?:les|tes|vos)|ignorez|ignorer|ignoriere|ignorieren|olvida|olvide|oublie|oubliez|"
        r"vergiss|vergessen\s+sie|negeer|esque[çc]a|descarta|missachte)\s+(?:\w+\s+){0,3}?"
        r"(?:instrucciones|instruções|instrucoes|istruzioni|anweisungen|instruktionen|instructies|consignes|indicaciones|reglas|"
        r"règles|regeln|regole|befehle|instructions\s+(?:précédentes|antérieures))\b"
        r"|\b(?:a\s+partir\s+de\s+ahora|de\s+ahora\s+en\s+adelante|à\s+partir\s+de\s+maintenant|désormais|ab\s+jetzt|von\s+nun\s+an|"
        r"d'ora\s+in\s+poi|a\s+partir\s+de\s+agora|vanaf\s+nu)\s*,?\s+(?:\w+\s+)?(?:debes|deberás|siempre|nunca|tu\s+dois|vous\s+devez|"
        r"toujours|jamais|musst|sollst|immer|niemals|devi|sempre|mai|você\s+deve|moet\s+je|altijd|nooit|responde|réponds|répondez|antworte)\b"
        r"|(?:忽略|无视|忽视|忘记|忘掉|無視).{0,8}?(?:指令|指示|提示|规则|規則|说明|命令)"
        r"|(?:指令|指示|命令|ルール|プロンプト).{0,4}?(?:無視|忘れ)"
        r"|从现在开始.{0,6}?(?:你|必须|总是|永远)"
        r"|(?:игнорир|забуд|забыв)\w*\s+(?:\w+\s+){0,2}?(?:инструкци|указани|правил)\w*",
        re.I,
    ),
}

# Letters that look Latin but are not, and invisible characters: folded away before instructions are screened.
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁɡӏАВЕКМНОРСТХІЈЅαεορτυνΑΒΕΗΙΚΜΝΟΡΤΧΥ",
    "aeopcyxijsdglABEKMHOPCTXIJSaeoptuvABEHIKMNOPTXY",
)
_INVISIBLE = re.compile(r"[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


def fold(text: str) -> str:
    """Text as the instruction screen reads it: NFKC, invisible characters gone, look-alike letters Latin,
    curly quotes straight, runs of spaces as one."""
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text).translate(_CONFUSABLES)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"[ \t\u00a0]+", " ", text)


@dataclass(frozen=True)
class Hit:
    """Why a text was withheld: the kind of hit and the words that triggered it (never a secret's value)."""

    kind: str
    snippet: str


def find_instruction(text: str) -> Hit | None:
    folded = fold(text)
    for kind, rx in INSTRUCTION_PATTERNS.items():
        m = rx.search(folded)
        if m:
            snippet = re.sub(r"\s+", " ", m.group()).strip(" .;:,\n\"'")[:80]
            return Hit(kind, snippet)
    return None


def instruction_kind(text: str) -> str | None:
    hit = find_instruction(text)
    return hit.kind if hit else None


# ------------------------------------------------------------------------------------- policy


@dataclass(frozen=True)
class Screen:
    """Which screens are on (config keys screen.instructions and screen.secrets)."""

    instructions: bool = True
    secrets: bool = True

    @classmethod
    def from_settings(cls, settings) -> Screen:
        return cls(instructions=bool(settings["screen.instructions"]), secrets=bool(settings["screen.secrets"]))

    def redact(self, text: str) -> tuple[str, list[str]]:
        return redact(text) if self.secrets else (text, [])

    def secret_kind(self, text: str) -> str | None:
        return secret_kind(text) if self.secrets else None

    def instruction(self, text: str) -> Hit | None:
        return find_instruction(text) if self.instructions else None

    def redact_messages(self, messages: list) -> tuple[list, list[str]]:
        """Messages with secrets redacted (unchanged ones are the same objects), and the kinds redacted."""
        out, kinds = [], []
        for m in messages:
            clean, found = self.redact(m.text)
            kinds += found
            out.append(replace(m, text=clean) if found else m)
        return out, kinds


DEFAULT = Screen()
OFF = Screen(instructions=False, secrets=False)


def redact_chunk(chunk, screen: Screen | None = None):
    """The chunk with its messages' secrets redacted: what the writer sees and what the bank keeps as provenance."""
    messages, kinds = (screen or DEFAULT).redact_messages(chunk.messages)
    return replace(chunk, messages=messages) if kinds else chunk


_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub(text: str, screen: Screen | None = None) -> str:
    """Text safe to keep in a rejection record: no secret (when that screen is on), no lone surrogate
    (which SQLite cannot store). The record keeps what was refused, minus what must never be kept."""
    screen = screen or DEFAULT
    return _SURROGATE.sub("\ufffd", redact(text, seen=True)[0] if screen.secrets else text)


def scrub_operation(op, screen: Screen | None = None):
    """An Operation with every text field scrubbed (see `scrub`)."""
    fields = {k: scrub(v, screen) for k in ("op", "target", "text", "reason", "evidence", "event_time", "speaker")
              if isinstance(v := getattr(op, k), str)}
    return replace(op, **fields, source_ids=[scrub(s, screen) for s in op.source_ids])


def kind_counts(kinds: list[str]) -> dict[str, int]:
    """{"redacted": n, "redacted.api-key": 1, ...}: redaction counters for a revision's counts."""
    counts = {"redacted": len(kinds)}
    for kind in kinds:
        counts[f"redacted.{kind}"] = counts.get(f"redacted.{kind}", 0) + 1
    return counts


__all__ = [
    "DEFAULT", "INSTRUCTION_PATTERNS", "OFF", "SECRET_PATTERNS", "Hit", "Screen", "find_instruction", "find_secrets",
    "fold", "forget_seen", "instruction_kind", "kind_counts", "redact", "redact_chunk", "scrub", "scrub_operation", "secret_kind",
]
