"""The secret screen on secrets in unusual forms and on their benign look-alikes: what it catches, what it keeps.

(Not named secrets.py: bench/ is put on sys.path by tests and scripts, and that name would hide the standard library's
`secrets` module from everything imported after it.)

Usage: python bench/secret_screen.py [--data DIR] [--verbose] [--show-held-out] [--json OUT.json]

The sets (bench/data/secrets):
  secrets.jsonl  secrets written the way people paste them: a password in a URL's userinfo, `.pgpass` and
                 `.netrc` lines, passwords stated in other languages or in a sentence, tables whose column says
                 password, `curl -u`, card numbers with dots, slashes or spoken digits, recovery codes under
                 their heading, seed phrases, values that end in a character special to a shell (`!`, `$`, `)`).
                 Each case lists the secrets it holds.
  benign.jsonl   look-alikes that hold no secret: talk about passwords, tables without one, order and phone
                 numbers, dates, ISBNs, versions, hashes, URLs without a password, ordinary text in other
                 languages, lists of ordinary words.
Every case has a split:
  tune      the rules were tuned on it
  held-out  about a third of each class, written with the tune cases before the rules changed, never tuned on
  after     probes written after the first round of rules, measured once; the second round was tuned on them
  after-2   probes written before the second round, measured once after it, never tuned on: how far the rules
            reach past the phrasings their author had in mind
  after-3-tune, after-3-held
            probes written before the third round (other languages' words for password and PIN, config files,
            command lines, headers, OTP seeds, Wi-Fi QR strings, cards with their codes) and measured once; then
            split by alternate lines, before looking at which leaked: the third round was tuned on the first half
            only (the fourth round on the second half too)
  after-4-tune, after-4-held
            probes written before the fourth round (secrets in a sentence in many more languages, contracted forms,
            tools' password flags, XML, properties, compose, Kubernetes and Terraform files, OTP seeds, Wi-Fi QR strings,
            card codes in several languages, codes and keys under headings, seeds with other separators, a value on the
            line after its label, credentials columns) and measured once; each file's n-th such case is tune when n is
            even, held when odd (decided before measuring): the fourth round was tuned on after-4-tune only
  after-5-tune, after-5-held
            probes written before the fifth round (URLs with userinfo in more schemes and in Markdown links and code,
            .my.cnf, pip.conf, .npmrc, .pypirc and .git-credentials lines, "I changed my password to ..." in eleven
            languages, multi-word passphrases, tables with extra columns, httpie and git URLs, cards with mixed
            separators or spoken in Spanish, French and German, codes under headings in more languages, numbered and
            fenced seed phrases) and measured once; split like after-4 (n-th case tune when n is even), decided before
            measuring: the fifth round was tuned on after-5-tune only
  after-6-tune, after-6-held
            probes written before the sixth round, blind to the rules (docker login and its --password-stdin pipe,
            mysqldump -pPASS, redis-cli --pass and an interactive AUTH, libpq key=value strings, JDBC URLs with a
            password parameter or Oracle's user/password@, ODBC PWD={...}, JSON, YAML, INI, TOML and .env values under
            passwd, pwd, pass_phrase, api_secret, auth_token, SECRET_KEY and client_secret, Basic authorization headers
            in curl and in an HTTP/2 trace, session cookies, OpenSSH, EC, PuTTY and PGP private keys, a service-account
            JSON's private_key, Ethereum keys labelled or not, AWS, Slack, Discord, Telegram, Stripe, Twilio, SendGrid,
            GitHub fine-grained and npm tokens, passwords in chat shorthand, code spans and SMTP prose, values wrapped
            over two lines, safe, door and alarm codes, phone-banking numbers in words, Wi-Fi passwords in prose in
            several languages, cards spoken in Italian, Portuguese and Dutch, IBANs with their banking password,
            recovery codes in tables and CSV, Spanish and French seed words and "1.abandon" numbering; look-alikes:
            placeholders, env and vault references in config files, public keys, Ethereum addresses and transaction
            hashes, digests, RF payment references, "key", "pin" and "pass" in their ordinary senses in several
            languages, word lists full of seed words) and measured once; each class's n-th such case, counting from 1
            in each file, is tune when n is odd, held when even (decided before measuring): the sixth round is to be
            tuned on after-6-tune only
  after-7-tune, after-7-held
            probes written before the seventh round, blind to the rules, in the classes a red team reported leaking
            (URLs with a password in amqps, mongodb+srv, rediss, ftp with an escaped "/", smb with a domain, ldap, sftp
            and git+https, .pgpass lines with an escaped colon, .netrc lines with an account and a Heroku token on two
            machines, passwords and PINs stated in Polish, Dutch, Swedish, Czech, Turkish, Indonesian, Japanese,
            Korean, Chinese and Arabic, in a sentence ("my login is x and the pass y", a gate code, an unlock PIN, a
            quoted passphrase), tables whose column says secret, pass, pw or credentials, curl -u with -T, wget
            --ftp-password, httpie -a, git clone with a token, SSHPASS with sshpass -e, smbclient -U with a domain and
            user%pass, mount -o password=, cards with dots, non-breaking spaces or slashes and spoken in English,
            French, German and Spanish, GitHub, Google, Microsoft, Discord and Bitwarden recovery codes under their
            heading, 12- and 24-word seeds comma-separated, numbered, in two columns and over several lines;
            look-alikes: the same URLs and commands without a password or with placeholders, talk about passwords and
            gate codes, tables without a secret column, phone and order numbers with dots, slashes or non-breaking
            spaces, versions, ordinary lists of twelve words, recovery-code headings with no codes under them) and
            measured once; each class's n-th such case, counting from 1 in each file, is tune when n is odd, held
            when even (decided before measuring)
  after-8-tune, after-8-held
            probes written before the eighth round, blind to the rules, in the classes a red team reported leaking
            (passwords in a sentence: "the password's ...", "pw: ...", "when it asks for a password I type '...'", a
            temporary password to change on first login, a four-word passphrase, and stated in German, French, Spanish,
            Italian, Portuguese, Dutch, Polish, Czech, Turkish, Russian, Japanese, traditional and simplified Chinese,
            Korean, Arabic, Hebrew, Hindi, Vietnamese and Indonesian ("use '...' to log in", "changed it to ...
            yesterday", a login and password written together, a Japanese value with no spaces around it, an
            Indonesian "passwordnya"); URLs with a password in rtsp, webdavs, clickhouse, nats, postgresql+asyncpg,
            mysql+pymysql and s3 with key:secret@, in prose, a Markdown link, a JSON string, a compose environment line
            and a .env file; .pgpass lines with comments and wildcard fields or appended by echo, .netrc with macdef
            and with the password before the login; .my.cnf, .pypirc with a token and a second index, .npmrc _auth,
            AWS credentials with two profiles and a session token, a kubeconfig token and password, Docker config.json
            auths; HTML, TSV, CSV and Markdown tables under contraseña, pass phrase, Kennwort, mot de passe and PIN;
            mongo -p, rclone obscure, unrar -p and curl --user over continued lines; cards with non-breaking or thin
            spaces, split over two lines, spoken in English and German with their expiry and code; GitLab recovery
            codes in two columns, Chinese and Korean backup codes numbered; 12-, 18- and 24-word seeds comma-separated
            after "my seed is", in a code block, in two numbered columns under "wallet backup" and numbered with no
            heading; look-alikes: the same URLs and files without a password or with placeholders, tables with masked
            or no secret columns, a masked card with non-breaking spaces, a phone number with thin spaces, order
            numbers over two lines or in groups of four, dotted versions, a spoken flight number, password policies
            and advice, ordinary word lists, a backup-code heading with no codes) and measured once; each class's n-th
            such case, counting from 1 in each file, is tune when n is odd, held when even (decided before measuring)
  after-9-tune, after-9-held
            probes written before the ninth round, blind to the rules (passwords, PINs and codes stated in ordinary chat
            with values not shaped like a password: plain lowercase words, all digits, a three-character value after
            "pw:", values with spaces in quotes, values after "changed it to", "type", "try", "enter", "use" and "set it
            to", a value before the word password, a value in parentheses, a value alone on the line after the question;
            Windows and Mac logins, a router admin password, a phone unlock code, alarm and door codes, a voicemail PIN,
            locker and bike-lock combinations, a SIM PIN and PUK, bank-card PINs in Persian and Bengali digits; in
            English and thirty-three other languages (Spanish, French, German, Italian, Brazilian Portuguese, Dutch,
            Polish, Swedish, Norwegian, Danish, Finnish, Czech, Romanian, Hungarian, Greek, Turkish, Russian, Ukrainian,
            Hebrew, Arabic, Persian, Hindi, Bengali, Thai, Vietnamese, Indonesian, Malay, Tagalog, Swahili, Japanese,
            Korean, simplified and traditional Chinese), some with typos or no punctuation; look-alikes: the same shapes
            holding no secret ("the PIN is four digits", "I changed it to something longer", "use the same password as
            before", "type your name", "door code changed yesterday") in English and fourteen other languages) and
            measured once; each class's n-th such case, counting from 1 in each file, is tune when n is odd, held when
            even (decided before measuring)
  after-10-tune, after-10-held
            probes written before the tenth round, blind to the rules (passwords, passphrases, PINs and unlock codes
            stated in ordinary chat with values shaped like ordinary words, names, two-word phrases or 4-6 digit codes:
            "it's ...", "it's set to ...", "... is the password", "the one I use everywhere is ...", "pw ...", "login: bob,
            pass: ...", "use ... for the wifi", "the code? ...", "... (all lowercase) for the router", a code before what
            it opens, a phone unlock code, a garage keypad and an alarm panel code; in English and, one password and one
            PIN or door code each, Spanish, French, German, Italian, Portuguese, Dutch, Polish, Swedish, Turkish,
            Russian, Greek, Arabic, Hindi, Japanese, Korean, Chinese, Vietnamese, Indonesian, Tagalog and Czech;
            look-alikes: the same shapes holding no secret ("the password is on the fridge", "the code is the usual
            one", "PIN changed, ask me", "wifi password? check the router sticker") and numbers near "code", "pin" or
            "pass" that are prices, room, flight, error, zip and postal codes, in English and fifteen other
            languages) and measured once; each class's n-th such case, counting from 1 in each file, is tune when n is
            odd, held when even (decided before measuring)

Figures, per class and split:
  caught  a secret case counts when every character of every secret it lists lies inside a redacted span
          (a value redacted but for its last "!" is a leak), and the redacted text holds none of them
  kept    a benign case counts when the screen finds nothing in it and redaction leaves it as it was
With --verbose, the leaks and the benign cases altered are printed, from the tune splits only unless
--show-held-out is given too.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from hymem_cli.screen.secrets import Redactor, find_secrets  # noqa: E402 - after the path is set

SPLITS = (
    "tune", "held-out", "after", "after-2", "after-3-tune", "after-3-held", "after-4-tune", "after-4-held", "after-5-tune", "after-5-held",
    "after-6-tune", "after-6-held",
    "after-7-tune", "after-7-held", "after-8-tune", "after-8-held", "after-9-tune", "after-9-held",
    "after-10-tune", "after-10-held", "after-11-tune", "after-11-held",
    "after-12-tune", "after-12-held", "after-13-tune", "after-13-held",
    "after-14-tune", "after-14-held", "after-15-tune", "after-15-held", "after-16-tune", "after-16-held",
    "after-17-tune", "after-17-held", "after-18-tune", "after-18-held", "after-19-tune", "after-19-held",
    "after-20-tune", "after-20-held", "after-21-tune", "after-21-held", "after-22-tune", "after-22-held",
    "after-23-tune", "after-23-held", "after-24-tune", "after-24-held", "after-25-tune", "after-25-held",
    "after-26-tune", "after-26-held", "after-27-tune", "after-27-held", "after-28-tune", "after-28-held", "after-29-tune", "after-29-held",
    "after-30-tune", "after-30-held", "after-31-tune", "after-31-held", "after-32-tune", "after-32-held",
    "after-33-tune", "after-33-held", "after-34-tune", "after-34-held", "after-35-tune", "after-35-held",
    "after-36-tune", "after-36-held", "after-37-tune", "after-37-held", "after-38-tune", "after-38-held",
    "after-39-tune", "after-39-held", "after-40-tune", "after-40-held",
    "after-41-tune", "after-41-held", "after-42-tune", "after-42-held", "after-43-tune", "after-43-held",
)


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def covered(text: str, secret: str, spans: list[tuple[int, int]]) -> bool:
    """Every occurrence of `secret` in `text` lies wholly inside the redacted spans."""
    start = text.find(secret)
    if start < 0:
        raise ValueError(f"secret {secret!r} is not in its case's text")
    while start >= 0:
        if any(not any(a <= i < b for a, b in spans) for i in range(start, start + len(secret))):
            return False
        start = text.find(secret, start + 1)
    return True


def caught(case: dict) -> bool:
    text = case["text"]
    spans = [(start, end) for _, start, end in find_secrets(text)]
    redacted, _ = Redactor().redact(text)
    return all(covered(text, s, spans) and s not in redacted for s in case["secrets"])


def kept(case: dict) -> bool:
    text = case["text"]
    return not find_secrets(text) and Redactor().redact(text)[0] == text


def tally(cases: list[dict], judge) -> tuple[dict, list[dict]]:
    """{(class, split): [passed, total]} and the cases that failed."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    failed = []
    for case in cases:
        ok = judge(case)
        entry = counts[(case["class"], case["split"])]
        entry[0] += ok
        entry[1] += 1
        if not ok:
            failed.append(case)
    return counts, failed


def table(title: str, verb: str, counts: dict) -> list[str]:
    classes = sorted({c for c, _ in counts})
    splits = [s for s in SPLITS if any(split == s for _, split in counts)]
    widths = [max(10, len(s)) for s in splits]
    lines = [f"{title:<18} " + " ".join(f"{s:>{w}}" for s, w in zip(splits, widths)) + f"   ({verb}/total)"]
    totals = {s: [0, 0] for s in splits}
    for cls in classes:
        cells = []
        for split in splits:
            got, total = counts.get((cls, split), (0, 0))
            totals[split][0] += got
            totals[split][1] += total
            cells.append(f"{got}/{total}" if total else "-")
        lines.append(f"  {cls:<16} " + " ".join(f"{c:>{w}}" for c, w in zip(cells, widths)))
    lines.append(f"  {'all':<16} " + " ".join(f"{'/'.join(map(str, totals[s])):>{w}}" for s, w in zip(splits, widths)))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "bench" / "data" / "secrets")
    parser.add_argument("--verbose", action="store_true", help="print the leaks and the benign cases altered")
    parser.add_argument("--show-held-out", action="store_true", help="with --verbose, the held-out and after failures too")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--splits", default=",".join(SPLITS), help="the splits to measure, comma-separated (default: all)")
    args = parser.parse_args(argv)

    wanted = set(args.splits.split(","))
    secrets = [c for c in load(args.data / "secrets.jsonl") if c["split"] in wanted]
    benign = [c for c in load(args.data / "benign.jsonl") if c["split"] in wanted]
    caught_counts, leaks = tally(secrets, caught)
    kept_counts, altered = tally(benign, kept)
    print("\n".join(table("secrets", "caught", caught_counts) + [""] + table("benign", "kept", kept_counts)))

    if args.verbose:
        # the held-out and after splits are never tuned on; the "-tune" halves are
        shown = SPLITS if args.show_held_out else tuple(s for s in SPLITS if s == "tune" or s.endswith("-tune"))
        for case in leaks:
            if case["split"] in shown:
                print(f"\nLEAK {case['id']} ({case['class']}): {Redactor().redact(case['text'])[0]!r}")
        for case in altered:
            if case["split"] in shown:
                found = [(kind, case["text"][s:e]) for kind, s, e in find_secrets(case["text"])]
                print(f"\nALTERED {case['id']} ({case['class']}): {found}")
    if args.json:
        figures = {
            "caught": {f"{c}/{s}": v for (c, s), v in caught_counts.items()},
            "kept": {f"{c}/{s}": v for (c, s), v in kept_counts.items()},
        }
        args.json.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
