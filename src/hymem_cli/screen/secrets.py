"""Finding and redacting secrets: API keys, tokens, passwords, card numbers, IBANs, private keys."""


from __future__ import annotations

import base64
import binascii
import bisect
import math
import re
import threading
from collections.abc import Callable, Iterator
from functools import lru_cache

from hymem_cli.screen.confided import codes_after_cards, confided_values
from hymem_cli.screen.forms import (
    _PASSWORD_WORD,
    NOT_A_VALUE_ABROAD,
    OPENING_QUOTES,
    card_digits,
    find_forms,
    name_cells,
    spoken_number,
    unwritten_script,
    words_after,
)
from hymem_cli.screen.forms import luhn as _luhn
from hymem_cli.screen.wallet import find_seed_phrases

# ---------------------------------------------------------------------------------- secrets

_RUN = r"A-Za-z0-9_\-"  # characters of a token run
_B = rf"(?<![{_RUN}])"  # a token starts a run: each run is scanned once per pattern (no quadratic rescans)
_E = rf"(?![{_RUN}])"

# How card numbers are written: one run of 13-19 digits, four groups of four, or Amex's 4-6-5.
_CARD_SHAPE = r"[2-6]\d{12,18}|[2-6]\d{3}(?:[ \-]\d{4}){3}|3\d{3}[ \-]\d{6}[ \-]\d{5}"

# The last part of a setting's name that says it is about passwords, not one: a policy, a length, a lifetime, an algorithm.
_ABOUT_PASSWORDS = (r"(?:hash|hashing|algorithm|algo|ttl|length|len|min|max|policy|expiry|expires|expiration|age|hint|rotation|strength|required|"
                    r"attempts|retries|timeout|rounds|complexity|history|enabled|disabled|file|path|cmd|command|prompt|label|url|manager|chars|"
                    r"changed|updated|at|days|count|minutes|seconds|hours|type|mode|format|scheme|version|cost|iterations|store|backend)(?![A-Za-z0-9])")

# kind -> pattern; where a pattern has a group, only that group is the secret (the label stays).
# What brings a one-time code, and the word for a code, in the languages the screens read
_ONE_TIME = (r"(?:sms|смс|text(?:ed)?|texto|mensaje|message|verification|verify|one[ \t\-]time|otp|2fa|mfa|подтвержд\w*|проверочн\w*"
             r"|одноразов\w*|v(?:é|e)rification|verificaci(?:ó|o)n|verifica|best(?:ä|a)tigung\w*|doğrulama|onay|xác[ \t]+(?:thực|nhận)"
             r"|weryfikac\w*|jednorazow\w*|eenmalig\w*|verificatie|einmal\w*|验证|驗證|認証|인증|सत्यापन|ओटीपी)")
_A_CODE_WORD = r"(?:codes?|c(?:ó|o)digo|codice|kod[eu]?|k(?:ó|o)d|код\w{0,3}|kode|otp|コード|코드|번호|码|碼|कोड|mã)"

SECRET_PATTERNS: dict[str, re.Pattern] = {
    "private-key": re.compile(
        r"-----BEGIN[A-Za-z0-9 ]{0,40}(?:PRIVATE KEY|[Ss]tatic [Kk]ey)[A-Za-z0-9 ]{0,12}-----"  # a key pair's or OpenVPN's shared key
        r"(?:.*?-----END[A-Za-z0-9 ]{0,40}(?:PRIVATE KEY|[Ss]tatic [Kk]ey)[A-Za-z0-9 ]{0,12}-----|.*)",
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
    # a signed session (Flask's itsdangerous: payload, timestamp, signature), Kubernetes' bootstrap token, Airtable's
    # personal access token
    "signed-session": re.compile(_B + r"\.?[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}" + _E),
    "kubeadm-token": re.compile(_B + r"[a-z0-9]{6}\.[a-z0-9]{16}" + _E),
    "airtable-token": re.compile(_B + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _E),
    "bearer": re.compile(r"\bbearer\s{1,4}([A-Za-z0-9._~+/\-]{16,}=*)", re.I),
    "basic-auth": re.compile(r"\bbasic\s{1,4}([A-Za-z0-9+/]{8,}={0,2})", re.I),
    # the password ends at the last '@' before the host: "ftp://backup:b@ckup2024@files.example.com/"; the user may be empty
    "url-credentials": re.compile(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s/:@]{0,64}:([^\s/]{1,128})@", re.I),
    "password": re.compile(
        # a keyword, "for the router"-style words, a connector, then the value (quoted, or one word)
        r"(?<![A-Za-z])(?:passwords?|passwort|passwd|pass\s?code|pass\s?phrase|pw|wi-?fi\s+key|api[\s_\-]?key|access[\s_\-]?key|"
        r"(?:account|shared[\s_\-]?access|storage|master|signing|encryption|private|secret)[\s_\-]?key|"
        r"client[\s_\-]?secret|shared\s+secret|access[\s_\-]?token|auth[\s_\-]?token|refresh[\s_\-]?token|"
        r"api[\s_\-]?token|token|(?:door|gate|alarm|garage|safe|lock|lockbox|entry|security|unlock|keypad|building)[\s_\-]?code|"
        r"contrase(?:ñ|n)a|mot\s+de\s+passe|senha|пароль)\b[\"']?(?:\*\*|__)?"
        r"(?:[ \t]{1,3}(?:for|to|of|on|at)[ \t]{1,3}(?:the[ \t]{1,3}|my[ \t]{1,3}|our[ \t]{1,3}|his[ \t]{1,3}|her[ \t]{1,3})?[\w.@\-]{1,40})?"
        # a word connector stands alone ("to maplesyrup" is not "to maple" + "s" + "yrup"); a sign may touch the keyword
        # "was changed to" before "was": a connector that matched alone would leave "changed" to be read as the value
        r"(?:(?:[ \t]{1,3}(?:(?:(?:was|is(?:[ \t]{1,3}now)?)[ \t]{1,3})?(?:changed|set)[ \t]{1,3}to|is[ \t]{1,3}now|is|was|will[ \t]{1,3}be"
        r"|ist|lautet|hei(?:ß|ss)t|est|es|é)(?![^\W\d_])|[ \t]{0,3}(?:=>|->|=|:))[ \t]{0,2}:?(?:\*\*|__)?"
        r"[ \t]{0,3}(\"[^\"\n]{3,128}\"|'[^'\n]{3,128}'|“[^”\n]{3,128}”|`[^`\n]{3,128}`|(?:(?!\[REDACTED:)[^\s\"'“`]){3,128})"
        r"|[ \t]{1,3}(\"[^\"\n]{3,128}\"|'[^'\n]{3,128}'|“[^”\n]{3,128}”|`[^`\n]{3,128}`))",
        re.I,
    ),
    # a multi-word passphrase after ':' or '=' ("Passphrase: correct horse battery staple"); "is" takes one word, above
    "passphrase": re.compile(r"\bpass[ \t]?phrase\b[\"']?[ \t]{0,3}[=:][ \t]{0,3}([^\n.,;()\"'“”]{3,128})", re.I),
    "pin": re.compile(r"\b(?:(?:[tm]-?|upi[ \t]+)?pin(?:[ \t]?(?:code|number))?|toegangscode|inlogcode|security[ \t]+number)(?:'s|’s)?"
                      r"[ \t]{0,3}(?:is|was|=|:|-)?[ \t]{0,3}(\d{4,8})(?!\d)", re.I),
    # --- secrets found by context: a name, a keyword or a card word beside a value no vendor pattern knows
    # NAME=value, NAME: value, "NAME": "value" where the name says secret (PGPASSWORD=, db_pass:, API_TOKEN=)
    "password-field": re.compile(
        r"(?<![A-Za-z0-9_])(?:[A-Za-z0-9]{1,30}[_.\-]){0,4}[A-Za-z0-9]{0,12}?(?:pass(?:word|wd|wort|code|phrase)?|pwd|secret|psk"
        r"|(?:user|lock|door)[_\-]?code)"  # a lock's user code: usercode: "602913" (not a postal pincode)
        # not a setting about passwords: a name that ends in what it sets (password_hash_algorithm, password_reset_ttl)
        r"(?!(?:[_.\-][A-Za-z0-9]{1,20}){0,2}?[_.\-]" + _ABOUT_PASSWORDS + r"[\"']?[ \t]{0,3}[=:])"
        r"(?:salt)?(?:[_.\-][A-Za-z0-9]{1,20}){0,3}[\"']?\]?[ \t]{0,3}(?:=>|=|:)[ \t]{0,3}(\"[^\"\n]{3,256}\"|'[^'\n]{3,256}'|[^\s\"',;]{3,256})",
        re.I,
    ),
    "secret-field": re.compile(
        r"(?<![A-Za-z0-9_])(?:[A-Za-z0-9]{1,30}[_.\-]){0,4}(?:api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|secret[_\-]?key|"
        r"signing[_\-]?key|auth(?:[_\-]?token)?|access[_\-]?token|refresh[_\-]?token|token|credentials?|macaroons?)(?:[_.\-][A-Za-z0-9]{1,20}){0,3}"
        r"[\"']?\]?[ \t]{0,3}(?:=>|=|:)[ \t]{0,3}(\"[^\"\n]{8,2048}\"|'[^'\n]{8,2048}'|[^\s\"',;]{8,2048})",
        re.I,
    ),
    # a password in a command line: mysql -pSECRET, docker login -u alex -p SECRET, --password SECRET
    "password-flag": re.compile(
        r"\bmysql\w{0,6}\b[^\n]{0,120}?[ \t]-p([^\s\"'\-][^\s\"']{2,127})"
        r"|(?:\blogin\b|\bsshpass\b|[ \t]-u[ \t]{1,3}\S{1,64})[^\n]{0,80}?[ \t]-p[ \t]{1,3}(\"[^\"\n]{3,128}\"|'[^'\n]{3,128}'|[\"']?[^\s\"'\-][^\s\"']{2,127})"
        r"|(?<![\w\-])--pass(?:word|wd)?(?:[ \t]{1,3}|=)([\"']?[^\s\"'\-][^\s\"']{2,127})"
        # a smart card's PIN and its security officer's: "sc-hsm-tool --so-pin 3537682194175520 --pin 648219"
        r"|(?<![\w\-])--(?:so-?)?pin(?:[ \t]{1,3}|=)([\"']?[^\s\"'\-][^\s\"']{3,127})"
        # a registry's user and password: "skopeo copy --src-creds user:Mistle.Thrush.8841"
        r"|(?<![\w\-])--(?:src-|dest-)?creds(?:[ \t]{1,3}|=)[\"']?[^\s:\"']{1,64}:([^\s\"']{3,128})",
        re.I,
    ),
    # a password piped into the program that asks for it: "echo 'Orchid lantern' | gpg --passphrase-fd 0", "| sudo -S"
    "password-piped": re.compile(
        r"\b(?:echo|printf)[ \t]{1,3}(?:-[ne][ \t]{1,3})?(\"[^\"\n]{3,128}\"|'[^'\n]{3,128}'|[^\s|;&\"']{3,128})[ \t]{0,3}\|[ \t]{0,3}"
        r"(?:gpg2?\b[^\n|]{0,200}?--passphrase-fd[ \t=]{1,3}0|sudo[ \t]{1,3}(?:-\w+[ \t]{1,3}){0,3}?-S\b|cryptsetup\b|passwd[ \t]{1,3}--stdin"
        r"|[^\n|]{0,200}?(?:-pass(?:in)?[ \t]{1,3}stdin|--password-stdin|--passphrase-stdin))",
        re.I,
    ),
    # a cookie as a HAR file or a browser's export lists it: {"name": "JSESSIONID", "value": "A6CA1762..."}
    "cookie-value": re.compile(
        r"\"name\"[ \t]{0,3}:[ \t]{0,3}\"(?:jsessionid|phpsessid|asp\.net_sessionid|connect\.sid|sid|remember[-_]me|csrftoken|xsrf-token"
        r"|[\w.\-]{0,40}(?:sess(?:ion)?|token|auth)[\w.\-]{0,40})\"[ \t]{0,3},[ \t]{0,3}\"value\"[ \t]{0,3}:[ \t]{0,3}\"([^\"\n]{8,4096})\"",
        re.I,
    ),
    # a one-time code a message brought: "Код из СМС только что пришёл: 482 916", "the code from the text is 418-227"
    "one-time-code": re.compile(
        r"(?<![^\W\d_])(?:" + _ONE_TIME + r"[^\n.!?\d]{0,30}?" + _A_CODE_WORD + r"|" + _A_CODE_WORD + r"[^\n.!?\d:]{0,50}?" + _ONE_TIME
        + r"[^\n.!?\d:]{0,40}?)(?![^\W\d_])[ \t]{0,3}(?:[:=：]|—|–|-(?=[ \t])|(?:is|was|est|es|ist|lautet|é|è|là|это|jest|adalah)(?![^\W\d_]))"
        r"[ \t]{0,3}(?!(?:19|20)\d\d(?!\d))(\d{3}[ \-]\d{3}|\d{4,8})(?![\d\-]?\d)"
        # "OTP" and the rest in another script: "KBZPay: သင်၏ OTP ကုဒ်မှာ 240873 ဖြစ်ပါသည်"
        r"|(?<![A-Za-z])(?-i:OTP)(?![A-Za-z])[ \t]{0,2}[^\x00-\x7f\d\n][^\x00-\x2f\x3a-\x7f\n]{0,24}?[ \t]{0,3}(\d{4,8})(?!\d)"
        # the code first, as the text message says it: "716204 is your Facebook confirmation code", "G-480213 is your Google ..."
        r"|(?<![\w\-.,/])(?:[A-Z]-)?(\d{4,8})(?![\d\-.,/])[ \t]+(?:is|est|es|ist|é|è)[ \t]+(?:your|votre|tu|su|dein|ihr|il[ \t]+tuo|o[ \t]+seu|seu)"
        r"(?:[ \t]+[^\s.!?]{1,20}){0,4}?[ \t]+(?:code|c(?:ó|o)digo|codice|kode|otp|pin)(?![^\W\d_])"
        # a bank's transaction number: "mTAN: 185739", "TAN 185739"
        r"|(?<![A-Za-z\-])(?-i:(?:m|i|SMS-?|push|chip|photo)?TAN)(?![A-Za-z])[ \t]{0,3}(?:[:=]|is|ist|lautet|je|to)?[ \t]{0,3}"
        r"(\d{6,8})(?![\d/.\-])",
        re.I,
    ),
    # a keyword straight before a value that looks like a secret ("with password Blue-Falcon-12", "passcode 482913")
    "password-bare": re.compile(
        # ("passwd" is the command too: "passwd backup_admin" names whose password changes)
        r"\b(?:password|passwort|pwd|pass[ \t]?code|passphrase|master[ \t]+key)[ \t]{1,3}([^\s\"'`]{4,128})",
        re.I,
    ),
    # "the key is Otter-Lamp-496", "the code is 7731", "combination 12-34-56"
    "key-phrase": re.compile(
        r"\b(?<!zip )(?<!postal )(?<!area )(?<!error )(?<!status )(?<!country )(?<!source )(?<!exit )(?<!return )(?<!dress )"
        r"(?:key|code|combination|combo|passcode|unlock\s+pattern)[ \t]{1,3}(?:is|was|=|:|'s|’s)[ \t]{1,3}(?:now[ \t]{1,3})?([^\s\"'`]{4,128})",
        re.I,
    ),
    # a card's security code, and a card-like run of digits beside a card word even when the checksum fails
    "card-cvv": re.compile(
        r"(?<!REDACTED:card-)\b(?:cvv2?|cvc2?|csc|cvn|security[ \t]+code|card[ \t]+code)\b[^\w\n]{0,3}(?:(?:is|was|number|no)\b[^\w\n]{0,3})?(\d{3,4}(?!\d)|\d(?:[ \t]\d){2,3}(?![ \t]?\d))",
        re.I,
    ),
    "card-context": re.compile(
        r"\b(?:card|visa|master[ \t]?card|amex|american[ \t]+express|discover|diners|jcb|credit|debit|cc)\b[^\n\d]{0,40}"
        r"(?<![0-9])(" + _CARD_SHAPE + r")(?![0-9])"
        r"|(?<![0-9])(" + _CARD_SHAPE + r")(?![0-9])[^\n\d]{0,30}\b(?:cvv|cvc|exp|expires|expiry|valid[ \t]+thru)\b",
        re.I,
    ),
    # a wallet's recovery words: 12 to 24 short lowercase words after the phrase's name
    "seed-phrase": re.compile(
        r"\b(?:seed|recovery|mnemonic|backup|secret|wallet)[ \t]+(?:phrase|words|sentence)\b[^\w\n]{0,4}"
        r"(?:(?:is|are|was|were|reads?)\b[^\w\n]{0,4})?((?:[a-z]{3,8}[ \t,]{1,3}){11,23}[a-z]{3,8})\b",
        re.I,
    ),
    # a user and a password side by side: "admin / Mar1gold&Sky", "login alex.k / pw", "'alex:pw' | chpasswd"
    "login-pair": re.compile(
        r"\b(?:login|log-in|logins|user(?:name)?|account|creds|credentials|sign[ \t-]?in)\b[^\n]{0,24}?[ \t:]"
        r"[\w.@+\-]{2,40}[ \t]{0,2}/[ \t]{0,2}([^\s/]{4,64})"
        r"|(?<![\w.\-])[\w.\-]{1,32}:([^\s:'\"]{3,64})['\"]?[ \t]{0,3}\|[ \t]{0,3}(?:sudo[ \t]{1,3})?chpasswd\b",
        re.I,
    ),
    # the answer to a security question
    "security-answer": re.compile(
        r"\b(?:security|secret)[ \t]+(?:question|answer)s?\b[^\n.]{0,40}?\banswer(?:[ \t]+is|[ \t]+was|[ \t]*[:=])[ \t]{1,3}([^\s,.;]{3,64})"
        r"|\bsecurity[ \t]+answer[ \t]{0,3}(?:is|was|:|=)[ \t]{0,3}([^\s,.;]{3,64})"
        r"|\bmaiden[ \t]+name[ \t]{1,3}(?:is|was|:)[ \t]{1,3}([A-Z][\w'\-]{2,40})",
        re.I,
    ),
    # a secret in a URL's query: ?pass=..., &token=..., &api_key=...
    "url-secret": re.compile(
        r"[?&;](?:pass|passwd|password|pwd|token|access_token|auth|auth_token|api_key|apikey|key|secret|client_secret|sig|signature)=([^&\s#'\"]{3,256})",
        re.I,
    ),
    # a random-looking token after a secret word, shorter than the generic rule needs ("secret Zq8v...", "Token 9f8e...")
    "secret-token": re.compile(
        r"\b(?:secret|token|key|apikey|authkey|auth|authorization|credential|2fa|mfa|totp|otp)s?\b[^\w\n]{0,3}"
        r"(?:(?:is|was|=|:|token|bearer)\b[^\w\n]{0,3}){0,2}([A-Za-z0-9+/_\-]{12,256}={0,2})",
        re.I,
    ),
    # 2FA backup codes: handled in find_secrets (every code-like piece of the rest of the line)
    "backup-code": re.compile(
        # "backup-codes::", a property; not a placeholder's label ("[REDACTED:one-time-code]")
        r"(?<!REDACTED:)\b(?:backup|recovery|2fa|mfa|one[ -]time|otp|scratch)[ \t_\-]{1,2}codes?\b([^\n]{1,300})",
        re.I,
    ),
    # a BitLocker recovery key: eight groups of six digits, nothing else is written so,
    # an Apple account's recovery key: seven groups of four capitals and digits, and a systemd-cryptenroll (LUKS) one:
    # eight groups of eight letters of the modhex alphabet, "hbjvlctu-krivnefg-..."
    "recovery-key": re.compile(r"(?<![\d\-])\d{6}(?:-\d{6}){7}(?![\d\-])"
                               r"|(?<![a-z\-])[cbdefghijklnrtuv]{8}(?:-[cbdefghijklnrtuv]{8}){7}(?![a-z\-])"
                               # 1Password's Secret Key: "A3-8KQW2P-MN4T7R-X9V2B-6HJ3D-QW8EZ-4TPL7"
                               r"|(?<![A-Z0-9\-])A3-[A-Z0-9]{6}-[A-Z0-9]{6}(?:-[A-Z0-9]{5}){4}(?![A-Z0-9\-])"
                               r"|(?<![A-Z0-9\-])(?=[A-Z0-9\-]{0,33}\d)(?=[A-Z0-9\-]{0,33}[A-Z])[A-Z0-9]{4}(?:-[A-Z0-9]{4}){6}(?![A-Z0-9\-])"),
    "ssn": re.compile(
        r"\b(?:ssn|social\s+security(?:\s+number)?)\W{0,5}(?:(?:is|was|number|no|nr)\W{1,5})?(\d{3}[- ]?\d{2}[- ]?\d{4})(?!\d)"
        r"|(?<![\d\-])((?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4})(?![\d\-])",
        re.I,
    ),
    "card-number": re.compile(r"(?<![0-9])[2-6][0-9]{2,18}(?:[ \-][0-9]{3,19}){0,7}(?![0-9])"),  # digit groups; cards are found inside
    "iban": re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,32}"),
    # generic: long, random-looking; a checksum after its padding ("...7zd=DC01A969", Atlassian's)
    "token": re.compile(r"(?<![A-Za-z0-9_\-+/])[A-Za-z0-9_\-+/]{32,}={0,2}(?:(?<==)[0-9A-F]{8}(?![A-Za-z0-9]))?"),
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
    forgotten lost locked sent given printed mine yours ours theirs hers case length characters chars letters digits nowhere
    manager vault 1password lastpass bitwarden keychain keepass dashlane somewhere else elsewhere printed file env
    environment variable variables config settings more less most least nice better best easier harder safer stronger weaker
    longer shorter enough cool fun helpful useful ideal perfect read comes lives pulled taken loaded fetched injected supplied
    prompted asked""".split()
)

_CARD_PREFIX = re.compile(r"4|5[1-5]|2[2-7]|3[47]|3[0689]|35|6")
_IBAN_LENGTHS = {  # country -> IBAN length (the common ones; others pass with any length 15..34)
    "AT": 20, "BE": 16, "CH": 21, "CZ": 24, "DE": 22, "DK": 18, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "IE": 22,
    "IT": 27, "LU": 20, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "SE": 24,
}


# A phone's or a SIM's number, labelled just before it: "IMEI 1: 356938035643809" (IMEIs use the card check digit)
_DEVICE_NUMBER = re.compile(r"\b(?:IMEI|MEID|ICCID|IMSI|ESN)(?:[ \t]?\d)?[ \t]{0,2}[:#=]?[ \t]{0,3}$", re.I)


# An account printed to be paid into: an invoice's or a business's IBAN is public to whoever pays it, unless the text also
# gives a way to sign in to the account ("IBAN …, PIN 4921")
_FOR_PAYMENT = re.compile(r"(?i:\b(?:invoice|bill|rechnung|bankverbindung|fattura|factura|facture|fatura|faktura|factuur|lasku|sz(?:á|a)mla"
                          r"|beneficiary|payee|empf(?:ä|a)nger|beg(?:ü|u)nstigter|b(?:é|e)n(?:é|e)ficiaire|beneficiario|pay\s+to|remit\w*"
                          r"|donat\w*|spende\w*|charity)\b)"
                          r"|\b(?:Ltd|GmbH|SRL|S\.A\.S?|AG|B\.V\.|BV|LLC|SARL|Oy|AB|SpA|S\.p\.A\.|Kft|s\.r\.o\.|Inc)\b")
_SIGN_IN_WORD = re.compile(r"(?i)\b(?:pin|password|passwort|kennwort|contrase(?:ñ|n)a|senha|mot\s+de\s+passe|code\s+secret|tan|login"
                           r"|anmeldename|zugangsdaten|geslo|has(?:ł|l)o|parol\w*|пароль)\b")


def _is_card(digits: str) -> bool:
    return 13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) is not None and len(set(digits)) > 1 and _luhn(digits)


def _cards_in_run(run: str, offset: int) -> list[tuple[int, int]]:
    """Card numbers inside a run of digit groups ("order 555 4111 1111 1111 1111"): from each group, the
    longest window of whole groups that is a card.

    The run's pattern ("card-number") starts it with a digit a card can start with and keeps every group
    three digits or longer, as cards are written (4-4-4-4, 4-6-5), and at most eight of them; so a long run of
    short groups ("1 2 3 ...") is never one."""
    groups = [(m.start(), m.end()) for m in re.finditer(r"[0-9]+", run)]
    spans = []
    i = 0
    while i < len(groups):
        found, digits = None, ""
        for j in range(i, len(groups)):  # at most eight groups
            digits += run[groups[j][0]:groups[j][1]]
            if _is_card(digits):
                found = j  # keep the longest window from i
        if found is not None:
            spans.append((offset + groups[i][0], offset + groups[found][1]))
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
    if compact[:2] == "RF":
        return None  # a structured creditor reference (ISO 11649): the same check, no account behind it
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
    if all(p.isdigit() or (p.isalpha() and (p.islower() or p.isupper())) for p in parts if p):
        return False  # snake_case or kebab-case words and numbers
    if len(parts) >= 4 and max(map(len, parts)) <= 8:
        return False  # short pieces joined: a name like "Hy-Memory-30B-A3B-Q8_0", not a random run
    words = [p for p in parts if p.isalpha() and p.islower() and len(p) >= 3]
    if len(words) >= 3 and sum(map(len, words)) * 2 >= len(core):
        return False  # a slug of words: "rotating-postgres-passwords-without-downtime-3f9a2c1b7e4d"
    sample = core[:4096]  # enough to judge; a multi-megabyte run costs no more
    kinds = [0 if c.isdigit() else 1 if c.islower() else 2 if c.isupper() else 3 for c in sample]
    switches = sum(a != b for a, b in zip(kinds, kinds[1:])) / (len(sample) - 1)
    counts: dict[str, int] = {}
    for c in sample:
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(n / len(sample) * math.log2(n / len(sample)) for n in counts.values())
    return switches >= 0.3 and entropy >= 3.5


# "$PASSWORD", "YOUR_API_KEY_HERE", "DB_PASSWORD": a variable or a constant's name stands for the value, it is not one
_NAME_FOR_A_VALUE = re.compile(r"\$[A-Za-z_]\w*|[A-Z]+(?:_[A-Z]+)+")


def _a_name(word: str) -> bool:
    return _NAME_FOR_A_VALUE.fullmatch(word) is not None


# A long run right after these is data or a digest, not a credential: an image or a font inlined in base64, an SSH
# key's fingerprint ("SHA256:uNiV..."), a subresource integrity hash ("sha384-...")
_DATA_OR_DIGEST = re.compile(r"(?:;base64,|(?<![A-Za-z0-9])(?:sha1|sha224|sha256|sha384|sha512|md5)[:\-]"
                             r"|\$2[abxy]?\$\d\d\$|\$[156y]\$(?:rounds=\d{1,7}\$)?[./A-Za-z0-9]{1,16}\$)\Z",  # bcrypt, crypt(3) hashes
                             re.I)
# tokens that are public by design: an ACME challenge's token and key authorisation, a Sentry DSN with its public key only
_PUBLIC_BY_DESIGN = re.compile(r"acme-challenge|//[0-9a-f]{32}@[\w.\-]*sentry\.io\b|\b[xyzt]pub[1-9A-HJ-NP-Za-km-z]{100,}"
                               # a shared document's id in its address: who may open it is the document's setting
                               r"|\b(?:docs|drive)\.google\.com/(?:document|spreadsheets|presentation|forms|file|drive/folders)/(?:d/)?")
_CONTENT_ID = re.compile(r"(?:baf[ykz][a-z2-7]{50,70}|Qm[1-9A-HJ-NP-Za-km-z]{44})\Z")  # an IPFS content id: public by design
_SRI_HASH = re.compile(r"sha(?:256|384|512)-[A-Za-z0-9+/]{40,88}={0,2}\Z")
# A transaction's or a block's hash is public ("tx 0x5c50...", "txid: ..."); so is a public key or a certificate.
_PUBLIC_HASH_BEFORE = re.compile(r"(?:\btx(?:id|\s+hash)?|\btransaction(?:\s+(?:id|hash))?|\bblock(?:\s+hash)?|\bcommit"
                                 r"|\bpublic[ _\-]?key|\bpubkey|\bfingerprint|\busing\s+(?:rsa|dsa|eddsa|ecdsa|ed25519)\s+key"
                                 r"|^gpg:[^\n]{0,60}\bkey)\s{0,3}[:#=]?\s{0,3}\Z", re.I | re.M)
_PUBLIC_BLOCK = re.compile(r"-----BEGIN (?:PUBLIC KEY|CERTIFICATE|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK)-----.*?-----END [A-Z ]+-----", re.S)


def _masked(word: str) -> bool:
    """A mask or a placeholder standing for a hidden value: "********", "XXXX-XXXX", "•••• ••••", "sk_test_REPLACE_ME"."""
    return re.fullmatch(r"[*x.•#\-_]+(?: [*x.•#\-_]+)*", word, re.I) is not None or _PLACEHOLDER.search(word) is not None


_PLACEHOLDER = re.compile(r"\[(?:MASKED|HIDDEN|SECRET|REMOVED)\]|(?i:(?:replace|change|fill)[_\-]?(?:me|this|it)(?![a-z])|(?:\b|_)your[_\-][\w\-]{1,40}[_\-]here\b|placeholder|x{6,})"
                          r"|^_{0,2}[A-Z][A-Z0-9_]{2,60}_{2}$|^@[A-Z][A-Z0-9_]{2,60}@$")  # "__DDNS_PASSWORD__", "@DB_PASS@": a template's


# Where a config takes its secret from, not the secret: "${DB_PASSWORD}", "{{ lookup('hashi_vault', ...) }}",
# "var.db_password", "secrets.DB_PASS", "op://vault/item/password", "process.env.DB_PASS", "os.environ['PW']".
_REFERENCE = re.compile(r"(?:\$\{|\$\(|\{\{|%\()[^\n]*[}\)]|(?:var|local|locals|data|module|vars|secrets|env|inputs)\.[A-Za-z_][\w.]*"
                        r"|(?:op|vault|secret|env|ssm|arn:aws:secretsmanager)://?\S+(?: [^\s/]{1,40}/\S+)?|process\.env\.\w+|os\.(?:environ(?:\.get)?|getenv)[\[(]\S*"
                        r"|ENV\[\S+"
                        # Grafana's "$__file{...}" and "$__env{...}"; a command that reads the secret from a store ("`pass show x`")
                        r"|\$__\w{1,20}\{[^}\n]{1,200}\}|`(?:pass|gopass|op|bw|lpass|security|secret-tool|keyring|vault|kubectl|aws|gcloud"
                        r"|az|sops|cat|age|gpg)[ \t][^`\n]{1,200}`"
                        r"|[A-Za-z0-9/+]{0,60}EXAMPLE(?:KEY)?"  # AWS's documented example keys: "AKIAIOSFODNN7EXAMPLE"
                        # ESPHome's "!secret wifi_password", Windows' "%NUGET_PAT%"; a build's constant ("BuildConfig.MAPBOX_TOKEN")
                        r"|!secret(?:[ \t]+[\w.\-]{1,60})?|%[A-Za-z_][A-Za-z0-9_]{1,60}%|(?:(?:[A-Z][a-z]+){2,}|settings|config|conf)\.[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
                        # Frigate's "{FRIGATE_RTSP_PASSWORD}"; pass(1)'s entry named in place of the password ("pass household/ctax")
                        r"|\{[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\}|(?:pass|gopass)(?:[ \t]+show)?[ \t]+[\w.\-]+(?:/[\w.\-]+)+"
                        # a store and the path in it: "Vault: kv/platform/jenkins"
                        r"|(?i:vault|1password|bitwarden|keepass(?:xc)?|keychain|lastpass|bws?|pass|gopass)[ \t]*:[ \t]*[\w.\-]+(?:/[\w.\-]+)+")


def _reference(word: str) -> bool:
    return _REFERENCE.fullmatch(word.strip().rstrip(",;")) is not None


def _password_value(value: str) -> bool:
    if value[0] in "\"'“`":  # the pattern takes a quoted value whole, its closing quote included
        if value[0] == "`" and value[1:-1] != value[1:-1].strip():
            return False  # "`password=` flag and the `PIN`": the text between two code spans
        inner = value[1:-1].strip()
        if re.fullmatch(r"<[^<>]{1,60}>|\[(?:hidden|redacted|removed|masked)\]", inner, re.I):
            return False  # a placeholder in quotes: "<your-token>"
        if " " in inner and re.search(r"\b(?:token|key|password|secret|credentials?|login)\b", inner, re.I):
            return False  # an item's name in a vault: "get it from 1Password → \"Postmark server token\""
        return inner != "" and not inner.startswith("[REDACTED") and not _masked(inner) and not _reference(inner)
    if _reference(value):
        return False
    if value.startswith("<%") or value.startswith(("<", "{{", "%(")) and value.rstrip(".,;:!?").endswith((">", "}}", ")s")):
        return False  # a placeholder: "<password>", "{{ db_pass }}", "%(password)s"
    if value.startswith("<") and value[1:].replace("-", "").replace("_", "").isalpha():
        return False  # the first word of one: "<contents of your privatekey file>", "<your-password"
    word = value.lstrip("(").rstrip(".,;:!?)]}")  # "(see vault)" is read as "see"
    if _elided(value) or _a_call(value):
        return False
    if len(word) < 3 or word.startswith(("[REDACTED", "${", "$(")) or _masked(word) or _a_name(word):  # a placeholder, a variable, a mask
        return False
    low = word.lower()
    if low in _NOT_A_VALUE or low in NOT_A_VALUE_ABROAD or unwritten_script(word):
        return False
    if word.isalpha() and word.islower() and low.endswith(("ed", "ing", "ly")):
        return False  # "was changed", "is expiring", "is really ..."
    return True


def _basic_auth(value: str) -> bool:
    try:
        decoded = base64.b64decode(value + "==").decode("utf-8")  # lenient: padding beyond what it needs is ignored
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    return ":" in decoded and decoded.isprintable()


def _bearer(value: str) -> bool:
    return bool(re.search(r"[0-9]", value) or (re.search(r"[a-z]", value) and re.search(r"[A-Z]", value)))


# kind -> check of the secret's text (group 1, else the whole match); a failed check is no secret
def _passphrase(value: str) -> bool:
    words = re.findall(r"[\w'-]+", value.lower())
    return bool(words) and not all(w in _NOT_A_VALUE for w in words)


def _value_word(value: str) -> str:
    return value.strip("\"'“”`").lstrip("(").rstrip(".,;:!?)]}")


def _secretish(value: str) -> bool:
    """A bare value that reads like a password or code, not a word: digits with letters or symbols, or 4-12 digits."""
    word = _value_word(value)
    if len(word) < 4 or word.lower() in _NOT_A_VALUE or word.startswith(("[REDACTED", "$", "http", "/", "<", "{", "%")):
        return False
    if _SCHEME_OR_HASH.fullmatch(word):
        return False
    if word.isdigit():
        return 4 <= len(word) <= 12
    letters, digits = any(c.isalpha() for c in word), any(c.isdigit() for c in word)
    symbols = {c for c in word if not c.isalnum()} - {"-", "_", ".", "'"}
    return letters and (digits or (bool(symbols) and any(c.isupper() for c in word)))


def _made_up_strongly(value: str) -> bool:
    """Eight or more characters with letters, digits and either both cases or a sign ("Stg-Db-Pass-3", "x9!kq#mp"), not
    "Python3", "HTTP2" or "v1-beta2"."""
    word = _value_word(value)
    cases = any(c.isupper() for c in word) and any(c.islower() for c in word)
    return len(word) >= 8 and any(c.isdigit() for c in word) and (cases or any(c in "!@#$%^&*+=?~" for c in word))


# What a password setting names instead of a password: a hashing scheme ("auth_type = scram-sha-256") or a password's hash
# ("grub.pbkdf2.sha512.10000.7CC0...", "$2b$12$...", "pbkdf2_sha256$...", "$argon2id$...")
_SCHEME_OR_HASH = re.compile(r"(?:scram-)?sha-?(?:1|224|256|384|512)|md5|bcrypt|scrypt|argon2(?:id|i|d)?|pbkdf2(?:[_-]sha\d+)?|crypt"
                             r"|grub\.pbkdf2\.\S+|\$(?:2[abxy]?|5|6|argon2(?:id|i|d)|scrypt|y|7)\$\S+|pbkdf2_sha\d+\$\S+", re.I)


def _a_call(value: str) -> bool:
    """Code that computes the value: "getpass.getpass(", "read_secret('db')", a type's constructor ("String(data: ...")."""
    return re.fullmatch(r"(?:(?:[A-Za-z_]\w{0,40}\.){1,4}[A-Za-z_]\w{0,40}|[a-z]{1,20}_[a-z_]{1,40}|getpass|input|prompt|getenv"
                        r"|[A-Z][a-z]{2,30}(?:[A-Z][a-z]{1,30}){0,3}(?=\([a-z_]\w*\s*[:,)]))\(.*",
                        value.strip()) is not None


def _elided(value: str) -> bool:
    """A value left out after its first few letters: "sk_test_...", "ghp_…"."""
    value = value.strip().rstrip(",;)]}\"'`")
    return value.endswith(("...", "\u2026")) and len(value.rstrip(".\u2026")) <= 10


def _field_value(value: str) -> bool:
    """The value of NAME=value where the name says password: anything but a placeholder, a reference or a plain no."""
    word = _value_word(value)
    if _elided(value) or _a_call(value):
        return False
    if len(word) < 3 or word.lower() in _NOT_A_VALUE or word.lower() in _PLACEHOLDERS or word.lower() in NOT_A_VALUE_ABROAD:
        return False
    if _SCHEME_OR_HASH.fullmatch(word):
        return False
    if re.fullmatch(r"\s*\([^()]*\)\s*", value):
        return False  # a note in brackets: "(siehe KeePass)", "(in the vault)"
    if _reference(word) or _reference(value.strip("\"'“”`")) or _reference(value.strip().strip("\"'“”")):
        return False
    if _a_name(word):
        return False
    if word.startswith(("[REDACTED", "$", "<", "{{", "%(", "/", "~/", "./", "http://", "https://")) or _masked(word):
        return False
    return True


_PLACEHOLDERS = frozenset("true false null none nil yes no on off required optional changeme_later redacted hidden env secret password".split())


def _short_random(value: str) -> bool:
    """A token after a secret word: shorter than the generic rule needs, still random-looking (hex counts here)."""
    core = _value_word(value).rstrip("=")
    if len(core) < 12 or not (re.search(r"[0-9]", core) and re.search(r"[A-Za-z]", core)):
        return False
    parts = re.split(r"[/_\-+.]", core)
    if all(p.isdigit() or (p.isalpha() and (p.islower() or p.isupper() or p.istitle())) for p in parts if p):
        return False  # words and numbers joined: an identifier, a file name, a date
    counts: dict[str, int] = {}
    for c in core:  # at most 256 characters: the patterns that call it take no more
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(k / len(core) * math.log2(k / len(core)) for k in counts.values())
    return entropy >= 3.0


def _secret_field(value: str) -> bool:
    return _field_value(value) and (_short_random(value) or _secretish(value))


def _seed_words(value: str) -> bool:
    words = value.lower().replace(",", " ").split()
    return sum(w in _NOT_A_VALUE for w in words) * 4 < len(words)


def _card_digits(value: str) -> bool:
    digits = re.sub(r"\D", "", value)
    return 13 <= len(digits) <= 19 and len(set(digits)) > 2


# a Bitcoin address (bech32): public, as a bank's account number printed on an invoice is
_BECH32_ADDRESS = re.compile(r"(?:bc|tb)1[02-9ac-hj-np-z]{25,87}")


_CHECKS: dict[str, Callable[[str], bool]] = {
    "password-field": _field_value,
    "secret-field": _secret_field,
    "password-flag": _field_value,
    "password-bare": _secretish,
    "key-phrase": _secretish,
    "card-context": _card_digits,
    "seed-phrase": _seed_words,
    "login-pair": lambda v: _secretish(v) and not _value_word(v).isdigit(),
    "security-answer": lambda v: _value_word(v).lower() not in _NOT_A_VALUE,
    "url-secret": _field_value,
    "secret-token": _short_random,
    "password": _password_value,
    "passphrase": _passphrase,
    "cookie-value": lambda v: " " not in v and (_looks_random(v) or len(v) >= 20),
    "password-piped": lambda v: not _reference(v.strip("\"'")) and not v.strip("\"'").startswith(("$", "<", "%")),
    "basic-auth": _basic_auth,
    "bearer": _bearer,
    "token": lambda v: _looks_random(v) and not _BECH32_ADDRESS.fullmatch(v),
    "aws-access-key": lambda v: not v.endswith("EXAMPLE"),  # AWS's documented example key, AKIAIOSFODNN7EXAMPLE
    "kubeadm-token": lambda v: re.search(r"\d", v) is not None and re.search(r"[a-z]", v.split(".")[1]) is not None,
    "url-credentials": lambda v: not v.startswith("[REDACTED") and not _reference(v) and not _masked(v)
    and not re.fullmatch(r"<[^<>]{1,40}>|\*+|x{3,}|(?:your_?)?(?:password|pass|passwd|pwd|secret|token)|changeme|\$\{?(?-i:[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,})\}?|%[A-Za-z_]\w{0,40}%",
                         v, re.I),
}


# Kinds whose value may be quoted (the quotes stay) or followed by punctuation (which stays too).
_VALUE_KINDS = frozenset({"password", "password-piped", "password-field", "secret-field", "password-flag", "password-bare", "key-phrase", "login-pair",
                          "security-answer", "url-secret", "secret-token"})


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
    "password-field": ("pass", "pwd", "secret", "psk", "code"), "secret-field": ("key", "token", "auth", "credential", "macaroon"),
    "password-flag": ("mysql", "-p", "--pass", "creds"), "password-bare": ("pass", "pwd", "master"),
    "key-phrase": ("key", "code", "combination", "combo", "unlock"), "card-cvv": ("cv", "csc", "code"),
    "card-context": ("card", "visa", "amex", "discover", "diners", "jcb", "credit", "debit", "cc", "exp", "valid"),
    "seed-phrase": ("phrase", "words", "sentence"), "login-pair": ("login", "log-in", "user", "account", "cred", "sign", "chpasswd"),
    "security-answer": ("answer", "maiden"), "url-secret": ("=",),
    "secret-token": ("secret", "token", "key", "auth", "credential", "2fa", "mfa", "otp"), "backup-code": ("code",),
    "passphrase": ("phrase",),
    "aws-secret-key": ("aws",), "bearer": ("bearer",), "basic-auth": ("basic",), "pin": ("pin", "toegangscode", "inlogcode", "security number"),
    "password-piped": ("echo", "printf"), "cookie-value": ('"value"',),
    "one-time-code": ("cod", "kod", "код", "kode", "otp", "コード", "코드", "번호", "码", "碼", "कोड", "mã", "tan"),
}


# Patterns whose every match lies inside one run of token characters: they are run only over such runs
# (a few per message, usually none), not over all the text.
_TOKEN_KINDS = frozenset({
    "anthropic-key", "openai-key", "stripe-key", "api-key", "aws-access-key", "github-token", "gitlab-token", "slack-token",
    "google-api-key", "google-oauth-token", "huggingface-token", "npm-token", "pypi-token", "sendgrid-key", "twilio-key",
    "mailgun-key", "digitalocean-token", "shopify-token", "discord-token", "telegram-token", "jwt", "token", "signed-session",
    "kubeadm-token", "airtable-token", "recovery-key",
})
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-.+/=:]{12,}")
_CODE_PIECE = re.compile(r"(?<![A-Za-z0-9\-])[A-Za-z0-9]{3,8}(?:-[A-Za-z0-9]{3,8})?(?![A-Za-z0-9\-])")


def _in_public_block(text: str, at: int) -> bool:
    return "-----BEGIN" in text and any(m.start() <= at < m.end() for m in _PUBLIC_BLOCK.finditer(text))


# Digits of other scripts, full-width forms and box-drawing lines, read as ASCII one character for one, so every span
# found stays in place: "４９１６　２３３１" is a card, "٤٥٣٩" a PIN, "│ mqtt │ sensors │" a table's row.
_DIGIT_ZEROS = (0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66, 0x0DE6, 0x0E50, 0x0ED0,
                0x0F20, 0x1040, 0x17E0, 0x1810, 0xFF10)
_AS_ASCII: dict[int, str] = {**{zero + i: str(i) for zero in _DIGIT_ZEROS for i in range(10)},
                             **{c: chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)}, 0x3000: " ",
                             # a table drawn with box characters reads as one drawn with "|", "-" and "+"
                             **{ord(c): "|" for c in "│┃║"}, **{ord(c): "-" for c in "─━═"},
                             **{ord(c): "+" for c in "┌┐└┘├┤┬┴┼╒╕╘╛╞╡╤╧╪╔╗╚╝╠╣╦╩╬┏┓┗┛┣┫┳┻╋╓╖╙╜╟╢╥╨╫"}}
# Chinese numerals read out digit by digit ("四九六五，三一九零" is 4965,3190): read as digits for numbers only, since
# the same characters are words of a Chinese seed phrase
_CHINESE_DIGITS = {**_AS_ASCII, **{ord(c): str(i) for i, c in enumerate("〇一二三四五六七八九")}, ord("零"): "0"}
_CHINESE_NUMBER = re.compile(r"[〇零一二三四五六七八九]{3}")
_NUMBER_KINDS = frozenset({"card-number", "card-part", "card-cvv", "pin"})


# A card number read from a photo, its digits misread as letters: "4l7l 3742 l2O8 9647"
_MISREAD_DIGITS = str.maketrans("OoDlI|", "001111")
_MISREAD_CARD = re.compile(r"(?<![\w])[\dOolI|]{4}(?:[ \-][\dOolI|]{4}){3}(?![\w])")
# A value public by design wherever it stands: a Mapbox public token ("pk.eyJ...", the secret ones are "sk."),
# and a PostHog project key ("phc_..."), an age recipient ("age1...", its secret is "AGE-SECRET-KEY-1...")
_PUBLIC_VALUE = re.compile(r"(?<![\w.])pk\.eyJ[\w\-]{10,}\.[\w\-]{10,}|(?<!\w)phc_[A-Za-z0-9]{30,60}(?!\w)|(?<!\w)age1[02-9ac-hj-np-z]{58}(?!\w)"
                           r"|(?<![\w-])(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com)[ \t]+AAAA[A-Za-z0-9+/]{40,}={0,2}"
                           r"|(?<![\w])0x[0-9a-fA-F]{40}(?![0-9a-fA-F])"  # an Ethereum address: public
                           # a Wi-Fi Easy Connect (DPP) QR code: its "K:" is the device's public key
                           r"|DPP:[^\s]{0,200}?K:[A-Za-z0-9+/]{20,}={0,2};{0,2}"
                           # a minisign or signify public key file: its comment line with the key's id, then the key
                           r"|untrusted[ \t]+comment:[ \t]*(?:minisign|signify)?[ \t]*public[ \t]+key[^\n]{0,80}\n[ \t]*RW[A-Za-z0-9+/]{40,}={0,2}"
                           # a public key or a certificate in PEM: its body is public
                           r"|-----BEGIN (?:(?:RSA |EC |SSH2? )?PUBLIC KEY|CERTIFICATE)-----[A-Za-z0-9+/=\s\\n]{0,8000}?-----END [A-Z0-9 ]{3,40}-----"
                           # a value sops encrypted (ciphertext, its nonce and tag), a Go module's checksum, a shell's
                           # parameter expansion with no default in it ("${PASS:?set PASS first}"; "${PASS:-x}" holds
                           # one), a status code in hex ("0xC000006D")
                           r"|ENC\[[A-Z0-9_]{3,20},data:[^\]\s]{0,4000}\]|(?<![\w/])h1:[A-Za-z0-9+/]{43}=|\$\{[A-Za-z_]\w{0,60}(?::?\?[^}\n]{0,120})?\}"
                           r"|(?<![\w])0x[0-9A-Fa-f]{1,16}(?![\w])"
                           # a Wi-Fi QR's EAP method and inner method ("E:PEAP;PH2:MSCHAPV2;"), a dotted module path to a
                           # class ("django.contrib.auth.hashers.Argon2PasswordHasher")
                           r"|(?:(?<=;E:)|(?<=;PH2:))[A-Za-z0-9\-]{2,12}(?=;)|(?<![\w.])[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+\.[A-Z][A-Za-z0-9]+(?![\w.])")
_MASKED_RUN = re.compile(r"[xX]{8,}|\*{6,}|\u2022{6,}")  # "sk_live_xxxxxxxxxxxxxxxx": a value masked or left to fill in
# A password word said to be missing: "no password, just accept the terms", "χωρίς κωδικό — απλώς ..."
_NO_PASSWORD = re.compile(r"(?<![^\W\d_])(?:without|no|sans|sin|ohne|kein|keine|keinen|senza|sem|zonder|geen|bez|без|χωρίς|χωρις"
                          r"|utan|uden|uten|ilman|tanpa|nie\s+ma|nincs)\s+(?:a\s+|any\s+|the\s+)?[^\s:]{3,40}[\s:—–\-]{1,4}\Z", re.I)


_BOXED_DIGITS = re.compile(r"(?:\[\d\][ \t]?){4}")
_BOX_SIGN = re.compile(r"\[(?=\d\])|(?<=\[\d)\]")
_BRAILLE = re.compile(r"[\u2801-\u28ff]")
_BRAILLE_LETTERS = dict(zip("⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵", "abcdefghijklmnopqrstuvwxyz"))
_BRAILLE_DIGITS = dict(zip("⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚", "1234567890"))
_BRAILLE_SIGNS = {"\u2800": " ", "⠒": ":", "⠂": ",", "⠲": ".", "⠼": " "}


def _braille_read(text: str) -> str:
    """Grade 1 braille as print: letters as letters, after the number sign (⠼) the letters a to j as digits, each
    character one character, so a span read stays where it is."""
    out, digits = [], False
    for ch in text:
        if ch == "⠼":
            digits = True
        elif ch not in _BRAILLE_LETTERS:
            digits = False
        out.append(_BRAILLE_DIGITS[ch] if digits and ch in _BRAILLE_DIGITS else _BRAILLE_LETTERS.get(ch, _BRAILLE_SIGNS.get(ch, ch)))
    return "".join(out)


def _said_again(text: str, found: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Every other place a secret found is written again, whole, as a word of its own: "set-pin 572914" ... "input text
    572914" ... "clear --old 572914"."""
    covered: list[list[int]] = []  # the found spans merged, in order, to look up in (not to walk for every place)
    for _, s, e in sorted(found, key=lambda span: span[1]):
        if covered and s <= covered[-1][1]:
            covered[-1][1] = max(covered[-1][1], e)
        else:
            covered.append([s, e])
    starts = [s for s, _ in covered]
    values = {text[s:e].strip(): kind for kind, s, e in found}
    again: list[tuple[str, int, int]] = []
    for value, kind in values.items():
        if len(value) < 4 or value.startswith("[REDACTED") or not (value.isdigit() or len(value) >= 6 and not value.isalpha()):
            continue
        for m in re.finditer(rf"(?<![\w\-]){re.escape(value)}(?![\w\-])", text):
            at = bisect.bisect_right(starts, m.start()) - 1
            if at < 0 or covered[at][1] < m.end():
                again.append((kind, m.start(), m.end()))
    return again


_ENCODING_BEFORE = re.compile(r"(?<![\w:])(?:base64|b64|hex):\Z")


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every secret-looking span in `text`."""
    found = _find_secrets(text) if text.isascii() else _find_secrets(text.translate(_AS_ASCII))
    if not text.isascii() and _CHINESE_NUMBER.search(text):
        found += [span for span in _find_secrets(text.translate(_CHINESE_DIGITS)) if span[0] in _NUMBER_KINDS and span not in found]
    if any(not m.group().replace(" ", "").replace("-", "").isdigit() for m in _MISREAD_CARD.finditer(text)):
        found += [span for span in _find_secrets(text.translate(_MISREAD_DIGITS)) if span[0] in _NUMBER_KINDS and span not in found]
    found += [span for span in [*sql_values(text), *_named_elsewhere(text), *card_in_fields(text)] if span not in found]
    if _CUE_TIMING.search(text):
        found += [span for span in _read_without(text, (_CUE_TIMING, _CUE_VOICE)) if span not in found]
    if _DASH_AT_LINE_END.search(text):  # "4277-3920-\n4758-6416": digit groups carried over a line break
        found += [span for span in _read_without(text, (_DASH_AT_LINE_END,)) if span not in found]
    if len(_CHAT_PREFIX.findall(text)) >= 2:
        found += [span for span in _read_without(text, (_CHAT_PREFIX,)) if span not in found]
    found += [span for span in coordinate_card(text) if span not in found]
    found += [span for span in split_over_lines(text) if span not in found]
    if _SPOKEN_RUN.search(text):
        found += [span for span in _read_as_digits(text) if span[0] in _NUMBER_KINDS and span not in found]
    escapes = [m.span() for m in _QP_ESCAPE.finditer(text)] if _QUOTED_PRINTABLE.search(text) else []
    if escapes:
        found = [span for span in found if not any(span[1] < b and a < span[2] for a, b in escapes)]
        found += [span for span in _read_replaced(text, _quoted_printable(text)) if span not in found]
    if "%3D" in text or "%3d" in text:  # an escaped "=": a value of a URL inside a URL
        decoded = ((m.start(), m.end(), chr(int(m.group(1), 16))) for m in _PERCENT_ESCAPE.finditer(text))
        found += [span for span in _read_replaced(text, decoded) if span not in found]
    breaks = [m.span() for m in _ESCAPED_BREAK.finditer(text) if text.rfind('"', text.rfind("\n", 0, m.start()) + 1, m.start()) >= 0]
    if breaks:  # a JSON string's lines ("Wifi: Mesh / Ginger&Quarry-61\nSonos: pw ..."): read as lines, each "\n" as " \n"
        found = [span for span in found if not any(span[1] < b and a < span[2] for a, b in breaks)]
        lines = list(text)
        for a, _ in breaks:
            lines[a:a + 2] = [" ", "\n"]
        found += [span for span in find_secrets("".join(lines)) if span not in found]
    if _BOXED_DIGITS.search(text):  # a form's boxes, a digit to each: "[4][9][2][9] [0][4][1][7] ..."
        found += [(kind, s - (text[s - 1:s] == "["), e + (text[e:e + 1] == "]")) for kind, s, e in _read_without(text, (_BOX_SIGN,))
                  if (kind, s, e) not in found]
    if _BRAILLE.search(text):  # braille read as letters and digits, a character for a character: "⠏⠊⠝ ... ⠼⠃⠋⠑⠑"
        found += [(kind, s - (text[s - 1:s] == "\u283c"), e) for kind, s, e in _find_secrets(_braille_read(text))
                  if (kind, s, e) not in found]
    found += _said_again(text, found)
    keys = [(a, b) for kind, a, b in found if kind == "recovery-key"]  # a card's digits begun inside a longer key are the key's
    found = [span for span in found if not (span[0] == "card-number" and any(a < span[1] < b for a, b in keys))]
    # a key's encoding written before it is the key's too: "APP_KEY=base64:8vQ..." (Laravel), "hex:9f1c..."
    found = [(kind, s - len(m.group()) if (m := _ENCODING_BEFORE.search(text, max(0, s - 8), s)) else s, e) for kind, s, e in found]
    public = [m.span() for m in _PUBLIC_VALUE.finditer(text)]
    return [(kind, s, e) for kind, s, e in found
            if not any(a <= s and e <= b for a, b in public) and not _MASKED_RUN.search(text, s, e)
            and not (kind in _VALUE_KINDS | {"password-said", "password-made"} and _NO_PASSWORD.search(text, max(0, s - 40), s))
            and not _NOT_A_SECRET_BEFORE.search(text, max(0, s - 40), s)
            and not (_PASS_ENTRY_BEFORE.search(text, max(0, s - 12), s) and _A_PATH_IN_A_STORE.fullmatch(text, s, e))]


# what a value after these is: a secret's name in a store ("gcloud secrets versions access latest --secret=bazel-artifacts-token"),
# a bank's routing code ("Sort code: 30-96-26")
_NOT_A_SECRET_BEFORE = re.compile(r"(?:--secret(?:-id|-name)?=|(?i:\bsort[ \t]?code|\brouting[ \t]+number|\bbank[ \t]?code|\bblz|\bbic"
                                  r"|\bswift(?:[ \t]+code)?)[ \t]*[:=]?[ \t]*)\Z")
# an entry of pass(1) in a password's place: "pass: lab/nas01"
_PASS_ENTRY_BEFORE = re.compile(r"(?i:\bpass)[ \t]*:[ \t]*\Z")
_A_PATH_IN_A_STORE = re.compile(r"[\w.\-]+(?:/[\w.\-]+)+")


# Subtitles (SRT, WebVTT): a value read out over two cues is read with the cues joined
_CUE_TIMING = re.compile(r"(?m)^[ \t]*(?:\d+[ \t]*\n[ \t]*)?(?:\d{1,2}:)?\d{2}:\d{2}[.,]\d{3}[ \t]+-->[ \t]+(?:\d{1,2}:)?\d{2}:\d{2}[.,]\d{3}[^\n]*\n?")
_CUE_VOICE = re.compile(r"</?(?:v|c|i|b|u|lang)(?:[ .][^>\n]{0,60})?>")


_DASH_AT_LINE_END = re.compile(r"(?<=\d-)[ \t]*\n[ \t]*(?=\d)")
# A chat export's line heads ("[WhatsApp 20:41] Abuelo Ramón: "): a seed sent six words a message is read as one run
_CHAT_PREFIX = re.compile(r"(?m)^[ \t]*\[[^\]\n]{1,40}\][ \t]*[^:\n\[\]]{1,40}:[ \t]*")


def _read_without(text: str, drop: tuple[re.Pattern[str], ...]) -> list[tuple[str, int, int]]:
    """Secrets of `text` read with what `drop` matches taken out (a subtitle's timing lines and voice tags, a chat
    export's line heads) and its lines as one text, mapped back onto `text`."""
    kept = [True] * len(text)
    for rx in drop:
        for m in rx.finditer(text):
            kept[m.start():m.end()] = [False] * (m.end() - m.start())
    chars: list[str] = []
    where: list[int] = []  # the place in `text` of each character read
    for i, ch in enumerate(text):
        if kept[i] and not (ch == "\n" and chars[-1:] == [" "]):  # the lines of the cues, and the cues, read as one text
            chars.append(" " if ch == "\n" else ch)
            where.append(i)
    return [(kind, where[s], where[e - 1] + 1) for kind, s, e in _find_secrets("".join(chars)) if e > s]


# "\n" in a quoted string (JSON, a log's msg="..."): a quotation mark before it on its line; not "C:\new" in a path
_ESCAPED_BREAK = re.compile(r"(?<!\\)\\[nr]")

# A mail's body in quoted-printable ("Gr=C3=BCnkohl-Auf=\nlauf-48"): read decoded, its soft line breaks joined
_QUOTED_PRINTABLE = re.compile(r"(?i:content-transfer-encoding:[ \t]*quoted-printable)|(?:=[C-E][0-9A-F]=[89AB][0-9A-F][^=\n]{0,40}){2}")
_QP_ESCAPE = re.compile(r"=(?:([0-9A-F]{2})|\r?\n)")


def _read_replaced(text: str, replaced: Iterator[tuple[int, int, str]]) -> list[tuple[str, int, int]]:
    """Secrets of `text` read with each (start, end, what stands there instead) put in place, in order, mapped back onto
    `text`: the characters put in stand for the whole stretch they replace."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for a, b, new in replaced:
        for j in range(at, a):
            chars.append(text[j])
            starts.append(j)
            ends.append(j + 1)
        for ch in new:
            chars.append(ch)
            starts.append(a)
            ends.append(b)
        at = b
    for j in range(at, len(text)):
        chars.append(text[j])
        starts.append(j)
        ends.append(j + 1)
    return [(kind, starts[s], ends[e - 1]) for kind, s, e in find_secrets("".join(chars)) if e > s]


def _quoted_printable(text: str) -> Iterator[tuple[int, int, str]]:
    """Each quoted-printable escape of `text` with what it stands for (UTF-8, Latin-1 where that fails); a soft line
    break stands for nothing."""
    escapes = list(_QP_ESCAPE.finditer(text))
    i = 0
    while i < len(escapes):
        m = escapes[i]
        i += 1
        if m.group(1) is None:  # a soft line break
            yield m.start(), m.end(), ""
            continue
        run = [m]  # the escapes of one character: a lead byte and its continuation bytes, side by side
        while i < len(escapes) and escapes[i].start() == run[-1].end() and escapes[i].group(1) and 0x80 <= int(escapes[i].group(1), 16) < 0xC0:
            run.append(escapes[i])
            i += 1
        raw = bytes(int(e.group(1), 16) for e in run)
        try:
            yield run[0].start(), run[-1].end(), raw.decode("utf-8")
        except UnicodeDecodeError:
            yield run[0].start(), run[-1].end(), raw.decode("latin-1")


# A URL inside a URL's query ("chl=otpauth://totp/ops%3Fsecret%3DWT3Y2RWN..."): read with its ASCII escapes decoded
_PERCENT_ESCAPE = re.compile(r"%([0-7][0-9A-Fa-f])")


# Digits said as words ("the padlock code is five eight one six", "takes star then two nine nine zero"): read as digits
_DIGIT_WORDS = {w: str(i) for i, words in enumerate((
    "zero oh o nought cero zéro zero null", "one uno un eins", "two dos deux zwei due dois", "three tres trois drei tre três",
    "four cuatro quatre vier quattro quatro", "five cinco cinq fünf funf cinque", "six seis sechs sei",
    "seven siete sept sieben sette sete", "eight ocho huit acht otto oito", "nine nueve neuf neun nove")) for w in words.split()}
_DIGIT_WORD = "|".join(sorted(_DIGIT_WORDS, key=len, reverse=True))
_SPOKEN_RUN = re.compile(rf"(?<![^\W\d_])(?:{_DIGIT_WORD})(?:[ \t]*[,\-]?[ \t]+(?:{_DIGIT_WORD})){{2,}}(?![^\W\d_])", re.I)
_SPOKEN_DIGIT = re.compile(rf"(?<![^\W\d_])(?:{_DIGIT_WORD})(?![^\W\d_])", re.I)


def _read_as_digits(text: str) -> list[tuple[str, int, int]]:
    """Secrets of `text` read with each run of three or more digits said as words written as digits (a comma between
    them kept as a space: "four five five six, four six one eight" reads "4556 4618"), mapped back onto `text`."""
    chars: list[str] = []
    starts: list[int] = []  # where in `text` each character read begins, and ends
    ends: list[int] = []
    at = 0
    for run in _SPOKEN_RUN.finditer(text):
        for i in range(at, run.start()):
            chars.append(text[i])
            starts.append(i)
            ends.append(i + 1)
        last = None
        for word in _SPOKEN_DIGIT.finditer(text, run.start(), run.end()):
            if last is not None and "," in text[last:word.start()]:
                chars.append(" ")
                starts.append(last)
                ends.append(word.start())
            chars.append(_DIGIT_WORDS[word.group().casefold()])
            starts.append(word.start())
            ends.append(word.end())
            last = word.end()
        at = run.end()
    for i in range(at, len(text)):
        chars.append(text[i])
        starts.append(i)
        ends.append(i + 1)
    return [(kind, starts[s], ends[e - 1]) for kind, s, e in _find_secrets("".join(chars)) if e > s]


# A password sent in pieces, a line (a chat bubble) each, after a line that names it: "wifi pw is long sorry" /
# "Greenhouse" / "_Tomato_2023"; the pieces are single words, one of them made up (a digit or a sign in it)
_PIECE_LINE = re.compile(r"[ \t]*([^\s=:/<>#$\[\]`,;|]{3,40})[ \t]*")  # a word, not a setting, a path or markup


_PASSWORD_LINE = re.compile(rf"{_PASSWORD_WORD}|(?<![^\W\d_])(?:wi-?fi|wlan)(?![^\W\d_])", re.I)


def split_over_lines(text: str) -> list[tuple[str, int, int]]:
    if text.count("\n") < 2:
        return []
    lines: list[tuple[int, int]] = []  # each line's start and end, its chat head ("[10:02] Tom: ") left out
    at = 0
    for line in text.split("\n"):
        head = _CHAT_PREFIX.match(text, at, at + len(line))
        lines.append((head.end() if head else at, at + len(line)))
        at += len(line) + 1
    found: list[tuple[str, int, int]] = []
    for i, (a, b) in enumerate(lines[:-2]):
        if not _PASSWORD_LINE.search(text, a, b) or b - a > 200 or re.search(r"\d", text[a:b]):
            continue  # a line that names a password and gives no value of its own
        pieces = []
        for c, d in lines[i + 1:i + 5]:
            piece = _PIECE_LINE.fullmatch(text, c, d)
            if piece is None:
                break
            pieces.append(piece.span(1))
        if len(pieces) >= 2 and any(re.search(r"[\d\W_]", text[c:d]) for c, d in pieces):
            found += [("password-said", c, d) for c, d in pieces]
    return found


# A bank's coordinate card (a grid of two- or three-digit numbers by row letter, asked for one cell at a time)
_COORDINATE_CARD = re.compile(r"(?i)tarjeta[ \t]+de[ \t]+coordenadas|cart(?:ã|a)o[ \t]+de[ \t]+coordenadas|carte[ \t]+de[ \t]+coordonn(?:é|e)es"
                              r"|coordinate[ \t]+card|grid[ \t]+card|security[ \t]+grid|tan[ \t\-]?(?:list|liste|card)"
                              r"|(?:ґрід|грід|grid)[ \t\-]?(?:карт\w*|kart\w*|card)")
# a row by its letter, or by its number under columns by letter
_GRID_ROW = re.compile(r"(?m)^[ \t]*(?:[A-Z]|(\d{1,2}))[ \t:|]+((?:\d{2,3}[ \t|]+){3,11}\d{2,3})[ \t|]*$")


def coordinate_card(text: str) -> list[tuple[str, int, int]]:
    """("backup-code", start, end) of each row of a coordinate card named at most 400 characters before its grid."""
    rows = list(_GRID_ROW.finditer(text))
    if len(rows) < 3 or not _COORDINATE_CARD.search(text, max(0, rows[0].start() - 400), rows[0].start()):
        return []
    return [("backup-code", m.start(1) if m.group(1) else m.start(2), m.end(2)) for m in rows]  # a row's number with it


# A secret named in a form that puts its name apart from its value: an XML element named by an attribute
# (`<param name="password">x</param>`), LDIF's base64 value (`userPassword:: eDE=`), a label and dot leaders
# ("PIN1 (signing) ...... 73158")
_NAMED_ELEMENT = re.compile(r"<([\w:.\-]{1,40})\b[^<>]{0,200}?\b(?:name|key|id)[ \t]*=[ \t]*[\"'](?:[\w.\-]{0,30}[_.\-])?"
                            r"(?:password|passwd|passphrase|secret|token|api[_\-]?key|pin|private[_\-]?key)[\"'][^<>]{0,200}>"
                            r"[ \t]*([^<\s][^<\n]{2,200}?)[ \t]*</\1>", re.I)
_LDIF_BASE64 = re.compile(r"(?im)^[ \t]*\w{0,30}pass\w{0,20}::[ \t]*([A-Za-z0-9+/]{8,}={0,2})[ \t]*$")
_DOT_LEADERS = re.compile(r"(?im)^[ \t]*(?:m?pin|puk|password|passcode|passwort|kennwort|code)\d?\b[^\n.]{0,40}?[ \t]*[.…·]{3,}[ \t]*"
                          r"([^\s.…·][^\s]{2,40})[ \t]*$")


# and an FTP login as a trace shows it ("PASS x\r\n"), `netsh wlan show profile key=clear`, a login call's second argument
# (`M.login('dee@x', 'wq8hz3kd')`), a network's name and its key after a slash ("wifi: Cove_Guest / gulls-and-surf")
_FTP_PASS = re.compile(r"(?:^|[\"'\s])PASS[ \t]+([^\s\"'\\]{3,64})(?=\\r\\n|\r?\n|[\"'])", re.M)
_NETSH_KEY = re.compile(r"(?im)^[ \t]*Key Content[ \t]*:[ \t]*(\S[^\n]{2,63}?)[ \t]*$")
_LOGIN_CALL = re.compile(r"\.(?:login|auth|authenticate|connect|sign_?in)\(\s*\\?['\"][^'\"\n]{1,80}\\?['\"]\s*,\s*\\?['\"]([^'\"\\\n]{4,80})\\?['\"]")
_WIFI_SLASH = re.compile(r"(?im)\b(?:wi-?fi|wlan)\b[ \t]*[:=][ \t]*[^\s/]{2,40}[ \t]+/[ \t]+([^\s/]{6,64})")


# A building's entry code of letters and digits: "digicode de l'immeuble 47B29", "Türcode: 4A71B"
_ENTRY_CODE = re.compile(r"(?i:\b(?:digicode|door[ \t]?code|gate[ \t]?code|entry[ \t]?code|building[ \t]?code|t(?:ü|ue)rcode"
                         r"|haust(?:ü|ue)rcode|c(?:ó|o)digo[ \t]+(?:de[ \t]+la[ \t]+puerta|del[ \t]+portal|do[ \t]+port(?:ã|a)o)"
                         r"|codice[ \t]+del[ \t]+portone)\b)[^\n\d]{0,30}?(?<![\w-])((?=[A-Z0-9#*]{0,7}\d[A-Z0-9#*]{0,7}\d)"
                         r"(?=[0-9#*]{0,7}[A-Z])[A-Z0-9#*]{4,8})(?![\w-])")


# A network's key after its name: "Wi-Fi : Maison — clé : tartine au beurre salé (en minuscules ...)"
_WIFI_KEY = re.compile(r"(?i:\b(?:wi-?fi|wlan|r(?:é|e)seau|red|rede|netz)\b)[^\n]{0,60}?(?i:\b(?:cl(?:é|e)|key|clave|chave|schl(?:ü|u)ssel)\b)"
                       r"[ \t]*[:=][ \t]*([^\s(;,\[][^\n(;,\[]{2,62}?)(?=[ \t]*(?:\(|[;,.]|$))", re.M)


# Codes by dot leaders on the lines under a heading of codes: "Passcodes" / "  Timed · Dog-sitter ...... 580217  valid ..."
_CODES_HEADING_ALONE = re.compile(r"(?im)^[ \t]*(?:pass[ \t]?codes?|pins?|pin[ \t]+codes?|(?:access|door|keypad|entry|lock)[ \t]+codes?"
                                  r"|codes?)[ \t]*:?[ \t]*$")
_LEADER_DIGITS = re.compile(r"[ \t]*[^\n]{1,60}?[ \t]*[.…·]{3,}[ \t]*(\d{4,10})(?![\w/:.\-])[^\n]{0,80}")


def _codes_by_leaders(text: str) -> list[tuple[str, int, int]]:
    spans = []
    for heading in _CODES_HEADING_ALONE.finditer(text):
        pos = heading.end() + 1
        while pos < len(text) and (m := _LEADER_DIGITS.match(text, pos)) and (m.end() == len(text) or text[m.end()] == "\n"):
            spans.append(("pin", *m.span(1)))
            pos = m.end() + 1
    return spans


def _named_elsewhere(text: str) -> list[tuple[str, int, int]]:
    spans = _codes_by_leaders(text) if "..." in text or "…" in text else []
    for rx in (_NAMED_ELEMENT, _LDIF_BASE64, _DOT_LEADERS, _FTP_PASS, _NETSH_KEY, _LOGIN_CALL, _WIFI_SLASH, _ENTRY_CODE, _WIFI_KEY):
        for m in rx.finditer(text):
            g = rx.groups  # the value is the last group
            value = m.group(g)
            if not value.startswith("[REDACTED") and not _reference(value) and not _masked(value):
                spans.append(("pin" if value.isdigit() else "password-field", m.start(g), m.end(g)))
    return spans


# A card split over form fields: "ccnum1=5490&ccnum2=9378&ccnum3=6579&ccnum4=7541", the whole passing the card check
_CARD_FIELD = re.compile(r"(?<![\w])[A-Za-z_\-]{0,20}(?:cc|card|pan)[A-Za-z_\-]{0,20}\d[\]\[]{0,2}=(\d{3,6})(?!\d)", re.I)


def card_in_fields(text: str) -> list[tuple[str, int, int]]:
    fields = list(_CARD_FIELD.finditer(text))
    for at in range(len(fields)):
        for size in (4, 5, 3):
            group = fields[at:at + size]
            digits = "".join(m.group(1) for m in group)
            if len(group) == size and 13 <= len(digits) <= 19 and _luhn(digits):
                return [("card-part", m.start(1), m.end(1)) for m in group]
    return []


# A row written as SQL: the values of columns named like a secret ("INSERT INTO payments (holder, pan, cvc) VALUES (...)")
_SQL_INSERT = re.compile(r"\bINSERT\s+INTO\s+\S+\s*\(([^()]{1,800})\)\s*VALUES\s*\(([^()]{1,2000})\)", re.I)
_SQL_VALUE = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"[^\"]*\"|[^,\s][^,]*")
_SECRET_COLUMN = re.compile(r"(?:cvc|cvv2?|csc|pin|pan|card_?(?:no|num(?:ber)?)|pass(?:word|wd|code)?|pwd|secret\w*|\w*_?token|api_?key"
                            r"|private_?key|otp|totp_?seed|mfa_?secret)", re.I)


def sql_values(text: str) -> list[tuple[str, int, int]]:
    """("secret-field", start, end) of each value of an SQL INSERT whose column is named like a secret."""
    spans = []
    for m in _SQL_INSERT.finditer(text):
        columns = [c.strip().strip("`\"[]") for c in m.group(1).split(",")]
        values = list(_SQL_VALUE.finditer(m.group(2)))
        if len(columns) != len(values):
            continue
        for column, value in zip(columns, values):
            raw = value.group().strip()
            inner = raw[1:-1] if raw[:1] in "'\"" and len(raw) > 1 else raw
            if _SECRET_COLUMN.fullmatch(column) and inner and inner.upper() != "NULL" and not inner.startswith("[REDACTED"):
                start = m.start(2) + value.start() + (raw[:1] in "'\"")
                spans.append(("secret-field", start, start + len(inner)))
    return spans


def _find_secrets(text: str) -> list[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []
    lower = text.lower()
    runs = [m.span() for m in _TOKEN_RUN.finditer(text)]
    for kind, rx in SECRET_PATTERNS.items():
        if kind in _NEEDS and _NEEDS[kind] not in text:
            continue
        if kind in _NEEDS_WORD and not any(w in lower for w in _NEEDS_WORD[kind]):
            continue
        matches: Iterator[re.Match[str]]
        if kind in _TOKEN_KINDS:
            matches = (m for a, b in runs for m in rx.finditer(text, a, b))  # look-behinds still see the text before a
        else:
            matches = rx.finditer(text)
        for m in matches:
            if kind == "card-number":
                if not _DEVICE_NUMBER.search(text, max(0, m.start() - 16), m.start()):  # an IMEI passes the card check too
                    found += [(kind, s, e) for s, e in _cards_in_run(m.group(), m.start())]
                continue
            if kind == "backup-code":  # every code-like piece, with a digit, of the rest of the line
                start = m.start(1)
                found += [(kind, start + c.start(), start + c.end()) for c in _CODE_PIECE.finditer(m.group(1))
                          if re.search(r"[0-9]", c.group())]  # a placeholder's pieces have none
                continue
            if kind == "iban":
                end = _iban_span(m.group())
                if end is not None and (not _FOR_PAYMENT.search(text) or _SIGN_IN_WORD.search(text)):
                    found.append((kind, m.start(), m.start() + end))
                continue
            g = next((i for i in range(1, rx.groups + 1) if m.group(i) is not None), 0)  # the group that matched
            start, end = m.span(g)
            value = m.group(g)
            if value.lstrip("\"'“`").startswith("[REDACTED:") or kind in _TOKEN_KINDS and _PLACEHOLDER.search(value):
                continue  # a placeholder is not a secret: "sk_test_your_key_here"
            if _PUBLIC_KEY_VALUE.match(value.lstrip("\"'“`")) or kind not in ("card-number", "iban") and _not_a_secret_shape(value):
                continue  # a public key by its prefix ("npub1...", "xpub6...", "age1..."), or a shape no secret has
            check = _CHECKS.get(kind)
            if check is not None and not check(value):
                continue
            if kind == "password" and _compared(text, value, end):
                continue
            if kind in ("password", "password-field") and (_a_variable(text, value) or _a_file_path(value)):
                continue
            if kind == "login-pair" and re.search(r":\d{2,5}[ \t]{0,2}/[ \t]{0,2}\Z", text[max(0, start - 12):start]):
                continue  # "HOST:5432/DBNAME": a port and a database, not a login and its password
            if kind == "secret-token" and _PUBLIC_HASH_BEFORE.search(text, max(0, start - 40), start) and re.fullmatch(r"[0-9A-Fa-f]{16,64}", value):
                continue  # a key's fingerprint or id in hex ("gpg: using EDDSA key 3F9A…"): public
            if kind == "token" and (_DATA_OR_DIGEST.search(text, max(0, start - 36), start) or _SRI_HASH.match(value)
                                    or _CONTENT_ID.match(value.rsplit("/", 1)[-1])
                                    or _PUBLIC_BY_DESIGN.search(text, max(0, start - 200), min(len(text), end + 60))
                                    or _PUBLIC_HASH_BEFORE.search(text, max(0, start - 20), start) or _in_public_block(text, start)):
                continue
            if kind == "passphrase":
                end = start + len(value.rstrip())
            if kind in _VALUE_KINDS:
                if value[:1] in "\"'“`":  # redact the quoted value, keep the quotes (the closing one only where it is)
                    start, end = start + 1, end - (len(value) > 1 and value[-1] == _CLOSING_QUOTE[value[0]])
                else:  # "is hunter2." -> the full stop is not part of it; "s3cretPass!" keeps its "!"
                    end = words_after(text, start, _value_end(text, start, end))
                    end = _rest_of_a_setting_line(text, start, end) if kind in ("password-field", "secret-field") else end
            found.append((kind, start, end))
    found += _found_by_form(text, found)
    cards = [(s, e) for kind, s, e in found if kind in ("card-number", "card-part")]
    if cards:
        inside = _containment(found)
        found += [span for span in codes_after_cards(text, cards) if not inside(span[1], span[2])]
    return found + _elsewhere(text, found) + _in_the_other_layout(text, found) + _rest_of_the_column(text, found)


def _rest_of_a_setting_line(text: str, start: int, end: int) -> int:
    """Where a setting's value ends when its line holds the setting alone: a value of a few plain words ("secret =
    pebble quarry eight", as `sqlite3 .mode line` prints it) runs to the end of the line."""
    line_start, line_end = text.rfind("\n", 0, start) + 1, (text.find("\n", end) + 1 or len(text) + 1) - 1
    if re.fullmatch(r"[ \t]*[\w.\-]{1,40}[ \t]+=[ \t]+", text[line_start:start]) and \
            re.fullmatch(r"(?:[ \t]+[a-z]{2,20}){1,4}[ \t]*", text[end:line_end]):
        return len(text[:line_end].rstrip())
    return end


# Kinds whose value, once found, is a secret wherever else it stands on the same command line: "curl -u bob:X
# .../basic-auth/bob/X" (a value stated in prose is looked for again only when the redactor is asked for remembered values)
_REPEATED_KINDS = frozenset({"password-flag", "url-credentials"})
_SAID_AGAIN = re.compile(r"(?=[^\n]{0,63}[^\W\d_])(?=[^\n]{0,63}[\d_\-!@#$%&*+.])[^\n]{8,64}")


def _elsewhere(text: str, found: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The other places where a value found stands again, whole (between non-word characters): on its line for a password
    given to a command, anywhere in the text for a made-up value."""
    more: list[tuple[str, int, int]] = []
    values = {(text[s:e], text.rfind("\n", 0, s) + 1): kind for kind, s, e in found if kind in _REPEATED_KINDS and e - s >= 6}
    # a made-up value (letters with a digit or a sign, eight characters or more) said again anywhere in the text: "P:"Marigold
    # 4 Tea";; ... When I type Marigold 4 Tea with the spaces"
    values.update({(text[s:e], -1): kind for kind, s, e in found if kind not in _NUMBER_KINDS and _SAID_AGAIN.fullmatch(text[s:e])})
    if not values:
        return more
    merged: list[list[int]] = []  # the found spans, merged and in order, to ask "already inside one?" by bisection
    for s, e in sorted((s, e) for _, s, e in found):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    starts = [s for s, _ in merged]
    for (value, line_start), kind in list(values.items())[:64]:
        line_end = text.find("\n", line_start) if line_start >= 0 else len(text)  # -1: the whole text
        line_start = max(line_start, 0)
        line_end = len(text) if line_end < 0 else line_end
        at = text.find(value, line_start, line_end)
        while at >= 0:
            end = at + len(value)
            i = bisect.bisect_right(starts, at) - 1
            inside = i >= 0 and at < merged[i][1]
            if not inside and not _word_char(text, at - 1) and not _word_char(text, end):
                more.append((kind, at, end))
            at = text.find(value, end, line_end)
    return more


# The same keys on a Russian keyboard: "Pirogi.Tula58" typed with the wrong layout on is "ЗшкщпшюЕгдф58"
_LATIN_KEYS = "qwertyuiop[]asdfghjkl;'zxcvbnm,.`QWERTYUIOP{}ASDFGHJKL:\"ZXCVBNM<>~"
_CYRILLIC_KEYS = "йцукенгшщзхъфывапролджэячсмитьбюёЙЦУКЕНГШЩЗХЪФЫВАПРОЛДЖЭЯЧСМИТЬБЮЁ"
_TO_CYRILLIC = str.maketrans(_LATIN_KEYS, _CYRILLIC_KEYS)
_TO_LATIN = str.maketrans(_CYRILLIC_KEYS, _LATIN_KEYS)


def _in_the_other_layout(text: str, found: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """A password found, where the text also gives it as typed with the other keyboard layout on (Latin and Russian)."""
    if not re.search(r"[\u0400-\u04ff]", text):
        return []
    more = []
    for kind, s, e in found:
        value = text[s:e]
        if not (kind in _VALUE_KINDS or kind.startswith("password")) or len(value) < 6:
            continue
        for typed in {value.translate(_TO_CYRILLIC), value.translate(_TO_LATIN)} - {value}:
            at = text.find(typed)
            while at >= 0:
                if not _word_char(text, at - 1) and not _word_char(text, at + len(typed)):
                    more.append((kind, at, at + len(typed)))
                at = text.find(typed, at + 1)
    return more


_CELL = re.compile(r"\S+(?:[ ]\S+)*")  # a printed table's cell: words one space apart; two spaces or a tab part cells


def _rest_of_the_column(text: str, found: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """In a printed table (`column -t`, a terminal's listing) where two rows' cells of one column are passwords, that
    column's cells in its other rows are too: "backoffice  sumac orchard lantern" under two rows of made-up ones."""
    passwords = [(s, e) for kind, s, e in found if kind.startswith("password")]
    if len(passwords) < 2 or "  " not in text and "\t" not in text:
        return []
    more: list[tuple[str, int, int]] = []
    block: list[list[tuple[int, int]]] = []
    pos = 0
    for line in [*text.split("\n"), ""]:
        cells = [(pos + m.start(), pos + m.end()) for m in _CELL.finditer(line)]
        if len(cells) >= 2 and (not block or len(cells) == len(block[0])):
            block.append(cells)
        else:
            more += _column_of_passwords(block, passwords)
            block = [cells] if len(cells) >= 2 else []
        pos += len(line) + 1
    return more


def _column_of_passwords(block: list[list[tuple[int, int]]], passwords: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    if len(block) < 3:
        return []
    more = []
    for col in range(1, len(block[0])):
        inside = [any(s <= a and b <= e for s, e in passwords) for a, b in (row[col] for row in block)]
        if sum(inside) >= 2 and sum(inside) * 2 >= len(block):
            more += [("password", *row[col]) for row, hit in zip(block[1:], inside[1:]) if not hit]  # the first may be a heading
    return more


def _word_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


# kind -> check of a value found by its form (forms.py, wallet.py); kinds without one are secrets as found
_DATE = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}")
_NOT_IN_A_COLUMN = frozenset("never unset reset changed same hidden masked redacted removed - — – ? ✓ ✗ x".split())
_NOTE_IN_A_CELL = frozenset("ask see check in on via frag siehe voir demande demander ver vedi chiedi zie vraag pregunta pergunte "
                            "véase veja zobacz viz bkz lihat xem katso cf vgl".split())
_FORM_CHECKS: dict[str, Callable[[str], bool]] = {
    "password": _password_value,
    "password-made": _secretish,  # "make the laptop password X": no connector, so X must look made up
    "password-flag": _field_value,
    "pgpass": _field_value,
    "netrc": _field_value,
    "password-column": lambda v: _field_value(v) and not _DATE.fullmatch(v) and v.lower().strip("[]()") not in _NOT_IN_A_COLUMN
    and not (" " in v.strip() and v.split()[0].lower() in _NOTE_IN_A_CELL)  # a note in the cell: "ask Tigran", "see vault"
    and not re.fullmatch(r"\[[^\]]* [^\]]*\]|\([^)]* [^)]*\)", v),  # or in brackets: "[muss zurückgesetzt werden]"
    "token-column": lambda v: _secret_field(v) and not re.search(r"\s", v) and not v.isdigit(),  # not "1,024 (2 calls)"
    "pin": lambda v: 4 <= len(card_digits(v)) <= 10 and (re.fullmatch(r"\d{1,10}(?:[ \-]\d{1,8}){0,7}", v) is not None
                                                          or spoken_number(v)),
    "card-number": lambda v: _is_card(card_digits(v)),
    "config-secret": _field_value,
    "otp-seed": lambda v: len(re.sub(r"[\s=]", "", v)) >= 16,
    "login-pair": lambda v: _secretish(v) and _made_up_strongly(v),  # no login word before it: the value must say it
}
# kinds no pattern above has
_FORM_KINDS = ("pgpass", "netrc", "password-column", "token-column", "password-made", "password-said", "config-secret", "otp-seed", "card-part")
_TRIMMED_FORMS = frozenset({"password", "password-made", "password-flag"})  # values that may end a sentence


_POSTAL_PIN = re.compile(r"(?:पिन|pin)[ \t]?(?:कोड|code)[ \t:\-]{0,3}\Z", re.I)
_ADDRESS_CUE = re.compile(r"(?<![^\W\d_])(?:address|road|street|nagar|marg|lane|flat|apartment|colony|sector|district|city)(?![^\W\d_])"
                          r"|पत्ता|पता|पत्त्या|पत्ते|ठिकाण", re.I)


def _found_by_form(text: str, found: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Secrets found by the form around them (forms.py) and seed phrases (wallet.py), less what a pattern found already."""
    more: list[tuple[str, int, int]] = []
    inside = _containment(found)
    placed: set[tuple[int, int]] = set()
    names = name_cells(text)
    for kind, start, end in [*find_forms(text), *find_seed_phrases(text), *confided_values(text)]:
        if kind in ("password-made", "password-said") and any(a <= start and end <= b for a, b in names):
            continue  # a user's or a network's name in its column, read as made up by a sentence about the row
        if kind in _TRIMMED_FORMS and (start == 0 or text[start - 1] not in OPENING_QUOTES):
            end = _value_end(text, start, end)
        value = text[start:end]
        if not value.strip() or value.startswith("[REDACTED") or _not_a_secret_shape(value):
            continue  # quotes around nothing, or a placeholder
        check = _FORM_CHECKS.get(kind)
        if check is not None and not check(value):
            continue
        if kind == "pin" and len(value) == 6 and _POSTAL_PIN.search(text, max(0, start - 16), start) and _ADDRESS_CUE.search(text):
            continue  # India's postal code, called a PIN code: "पत्ता: ... पुणे — पिन कोड ४११०३८"
        if kind in _TRIMMED_FORMS and (_compared(text, value, end) or _a_variable(text, value) or _a_file_path(value)):
            continue
        if inside(start, end) or (start, end) in placed:
            continue  # found already
        if re.fullmatch(r"[a-z]{2,15}", value) and re.search(r"[—–][ \t]*\Z", text[max(0, start - 3):start]) \
                and (between := _TO_THE_DASH.match(text, end)):
            end = between.end(1)  # set between dashes: "our password — purple giraffe — so she'll", the words to the dash
        placed.add((start, end))
        more.append((kind, start, end))
    return more


_TO_THE_DASH = re.compile(r"((?:[ \t]+[a-z]{2,15}){1,3})[ \t]*[—–]")


def _containment(spans: list[tuple[str, int, int]]) -> Callable[[int, int], bool]:
    """A test of whether (start, end) lies inside one of `spans`, in log time (a text may hold thousands)."""
    ordered = sorted((s, e) for _, s, e in spans)
    starts, reach, furthest = [s for s, _ in ordered], [], -1
    for _, e in ordered:
        furthest = max(furthest, e)
        reach.append(furthest)
    def inside(start: int, end: int) -> bool:
        i = bisect.bisect_right(starts, start)
        return i > 0 and reach[i - 1] >= end
    return inside


# "than" in the languages of forms.py: "Mein neues Passwort ist sicherer als das alte" compares, it names no password.
_THAN = re.compile(r"[ \t]{1,3}(?:than|als|que|che|dan|daripada|niż|než|чем|än|enn|end|kuin)(?![^\W\d_])", re.I)


def _a_variable(text: str, value: str) -> bool:
    """A name the same code assigns a value to, passed on ("password = getpass(...)" then "connect(password=password)")."""
    return value.rstrip(",;)]}") in _assigned_names(text)


@lru_cache(maxsize=4)
def _assigned_names(text: str) -> frozenset[str]:
    """The names a text's lines assign to ("password = ..."), read once per text however many values are checked."""
    return frozenset(re.findall(r"(?m)^[ \t]*([a-z_][a-z0-9_]{0,40})[ \t]*=(?!=)", text))


_PUBLIC_KEY_VALUE = re.compile(r"(?:npub1|[xyzt]pub[1-9A-HJ-NP-Za-km-z]|age1)[02-9ac-hj-np-z1-9A-HJ-NP-Za-km-z]{20,}")
_FILE_PATH = re.compile(r"(?:\.{1,2}|~)/[\w.\-/]+|/[\w.\-]+/[\w.\-/]+")


# Shapes no secret has: a postal item's number (UPU S10: "RR203466190AZ"), an exception's dotted name
# ("psycopg2.OperationalError"), a spreadsheet cell the value is read from ("&Settings!B2&"), a value masked with x's
# ("sk_test_xxx")
_NOT_A_SECRET_SHAPE = re.compile(r"[A-Z]{2}\d{9}[A-Z]{2}|(?:[a-z_][a-z0-9_]{0,30}\.)+[A-Z][A-Za-z0-9]{0,40}(?:Error|Exception|Warning)"
                                 r"|&[ \t]*(?:'?[\w ]{1,40}'?!)?\$?[A-Z]{1,3}\$?\d{1,7}[ \t]*&?|'?[\w ]{1,40}'?!\$?[A-Z]{1,3}\$?\d{1,7}"
                                 r"|(?i:(?:[\w\-]*[_\-])?x{3,})")


def _not_a_secret_shape(value: str) -> bool:
    bare = value.strip("\"'“”`").rstrip(".,;")
    return _NOT_A_SECRET_SHAPE.fullmatch(bare) is not None or _AN_ITEMS_NAME.fullmatch(bare) is not None


# the name of a vault's item, not its value: "Postmark server token", "Stripe live key"
_AN_ITEMS_NAME = re.compile(r"[A-Z][\w.\-]*[ \t]+(?:[\w.\-]+[ \t]+){0,3}(?i:token|key|password|secret|credentials?)")


def _a_file_path(value: str) -> bool:
    """A file the secret is read from, not the secret: "--from-file=password=./creds/pass.txt", "/run/secrets/db_pw"."""
    return _FILE_PATH.fullmatch(value.rstrip(",;)]}")) is not None


def _compared(text: str, value: str, end: int) -> bool:
    """A plain word followed by "than": an adjective in a comparison ("is stronger than"), not a value."""
    return value.isalpha() and _THAN.match(text, end) is not None


_CLOSING = {")": "(", "]": "[", "}": "{"}
_CLOSING_QUOTE = {'"': '"', "'": "'", "“": "”", "`": "`"}


def _value_end(text: str, start: int, end: int) -> int:
    """Where an unquoted value ends: before the punctuation of its sentence ("is hunter2."), and before a bracket
    closing one opened before the value ("(password: hunter2)"). A last "!", "$" or a bracket it opened itself
    ("Abc(123)") is part of the value: in a shell or a config file it is."""
    back = max(0, start - 200)  # the line before the value, as far back as a bracket may be opened for it
    line = text[back:start].rpartition("\n")[2]
    while end > start:
        last = text[end - 1]
        closes_before = (last in _CLOSING and text.count(last, start, end) > text.count(_CLOSING[last], start, end)
                         and line.count(_CLOSING[last]) > line.count(last))
        if last not in ".,;:?" and not closes_before:
            break
        end -= 1
    return end


_SHORT_KINDS = frozenset({"card-cvv"})  # secrets as short as three characters, remembered all the same


class Redactor:
    """Redaction with a memory of the values it replaced, owned by one command (its screen), not the process.

    Out of context a value such as "Tr0ub4dor&3" matches no pattern, yet a writer, a rejection record
    or a later message may repeat it bare: the guards and `scrub` look for these values too. Values
    shorter than 4 characters are not kept (a card's 3-digit code is); the memory is bounded.
    """

    SEEN_MAX = 4096
    CACHE_MAX = 256

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}  # value -> kind, newest last
        # The last results by string identity: ingest redacts a message, then the chunk it belongs to
        # (for the record it keeps), and the writer step does the same; the second time costs nothing.
        self._results: dict[int, tuple[str, tuple[str, list[str]]]] = {}
        self._lock = threading.RLock()  # a stream's lines are redacted on its reading thread, messages on the main one

    def forget(self) -> None:
        """Drop the remembered values (a long-lived process between unrelated inputs)."""
        self.seen.clear()
        self._results.clear()

    def remember(self, value: str, kind: str) -> None:
        value = value.strip()
        if len(value) > 512:  # a key block: its lines; any other run this long is not worth keeping
            if kind == "private-key":
                for line in value.splitlines()[1:-1][:64]:
                    if len(line.strip()) >= 16:
                        self.remember(line, kind)
            return
        if len(value) < (3 if kind in _SHORT_KINDS else 4) or value.startswith("[REDACTED"):
            return
        self.seen.pop(value, None)
        self.seen[value] = kind
        while len(self.seen) > self.SEEN_MAX:
            self.seen.pop(next(iter(self.seen)))

    def seen_in(self, text: str) -> list[tuple[str, int, int]]:
        found = []
        for value, kind in list(self.seen.items()):
            start = text.find(value)
            while start >= 0:
                found.append((kind, start, start + len(value)))
                start = text.find(value, start + len(value))
        return found

    def secret_kind(self, text: str, seen: bool = True) -> str | None:
        """The kind of the first secret in `text`; with `seen`, a value redacted earlier by this redactor counts too."""
        with self._lock:
            hits = find_secrets(text) + (self.seen_in(text) if seen else [])
        return min(hits, key=lambda h: h[1])[0] if hits else None

    def redact(self, text: str, seen: bool = False) -> tuple[str, list[str]]:
        with self._lock:
            return self._redact(text, seen)

    def _redact(self, text: str, seen: bool) -> tuple[str, list[str]]:
        """Replace secret spans with [REDACTED:kind]; returns the new text and the kinds replaced.

        Overlapping spans are merged into one redaction (named after the first, or the longest). The
        values replaced are remembered; with `seen`, remembered values are replaced too. Repeated until
        nothing is left to find (a key glued to a card number only stands alone once the card is gone),
        so redact(redact(x)) == redact(x) and the result holds nothing find_secrets finds. Later rounds
        look only around what the previous round replaced: nothing else changed."""
        if not seen and (hit := self._results.get(id(text))) is not None and hit[0] is text:
            return hit[1][0], list(hit[1][1])
        out, kinds, placed = self._redact_in(text, [(0, len(text))], seen)
        for _ in range(8):
            if not placed:
                break
            out, more, placed = self._redact_in(out, _around(out, placed), seen)
            kinds += more
        if not seen:
            self._results[id(text)] = (text, (out, list(kinds)))
            while len(self._results) > self.CACHE_MAX:
                self._results.pop(next(iter(self._results)))
        return out, kinds

    def _redact_in(self, text: str, regions: list[tuple[int, int]], seen: bool) -> tuple[str, list[str], list[tuple[int, int]]]:
        """Redact the secrets found inside `regions`; returns the text, the kinds and where the placeholders now are."""
        order = {k: i for i, k in enumerate([*SECRET_PATTERNS, *_FORM_KINDS])}
        hits = []
        for a, b in regions:
            part = text[a:b]
            found = find_secrets(part) + (self.seen_in(part) if seen else [])
            for kind, start, end in found:
                self.remember(part[start:end], kind)
            hits += [(kind, a + start, a + end) for kind, start, end in found]
        return _replace_spans(text, hits, order)


_SPACE = re.compile(r"\s")


def _around(text: str, spans: list[tuple[int, int]], margin: int = 300) -> list[tuple[int, int]]:
    """Regions around `spans`, widened to whitespace so no token or "password is ..." is cut, merged."""
    regions: list[tuple[int, int]] = []
    next_space = -1  # the whitespace the last forward look found: text without any is not read again for every span
    for start, end in sorted(spans):
        a, b = max(0, start - margin), min(len(text), end + margin)
        floor = regions[-1][1] if regions else 0  # a region reaching back past the last one merges with it anyway
        while a > floor and not _SPACE.match(text, a - 1):
            a -= 1
        if next_space < b:
            m = _SPACE.search(text, b)
            next_space = m.start() if m else len(text)
        b = next_space
        if regions and a <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(regions[-1][1], b))
        else:
            regions.append((a, b))
    return regions


def _replace_spans(text: str, hits: list[tuple[str, int, int]], order: dict[str, int]) -> tuple[str, list[str], list[tuple[int, int]]]:
    """Merge overlapping hits and put a placeholder in each; returns the text, the kinds and the placeholders' spans."""
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
