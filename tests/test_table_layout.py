"""Tables at the widths people use (60, 80 and 120 columns, on a pseudo-terminal): the text gets the room, times and
scores are short, and a column that does not fit is shown below its row instead of vanishing."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from test_first_hour import HYMEM, _env, run_on_terminal

LONG = ("Alex moved from Seattle to Sydney in March for a new job at the harbour office, "
        "and is keeping the flat in Seattle for one more year.")
REASON = "Alex said the move to Sydney is permanent now that the harbour job started."
WIDTHS = [60, 80, 120]


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    # Every memory is listed: the test embedder's scores would fall under search.min_score.
    env = {**_env(tmp_path_factory.mktemp("tables") / "home"), "NO_COLOR": "1", "HYMEM_SEARCH_MIN_SCORE": "0"}
    chat = f"Alex: I live in Seattle.\nSam: {LONG}\nAlex: I work from home on Fridays.\n"
    done = subprocess.run([*HYMEM, "add", "--raw", "-"], input=chat.encode(), env=env, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    op = {"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.", "reason": REASON}
    done = subprocess.run([*HYMEM, "apply", "-"], input=json.dumps(op).encode(), env=env, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    return env


def _rows(shown: str) -> tuple[list[str], list[dict[str, str]]]:
    """A rich table read back: its headers, and each row as {header: the cell's lines joined by spaces}."""
    lines = shown.replace("\r\n", "\n").splitlines()
    heads: list[list[str]] = []
    rows: list[list[list[str]]] = []
    for line in lines:
        if line.startswith("┃"):
            cells = [c.strip() for c in line.strip().strip("┃").split("┃")]
            heads = [h + [c] for h, c in zip(heads, cells)] if heads else [[c] for c in cells]
        elif line.startswith("│"):
            cells = [c.strip() for c in line.strip().strip("│").split("│")]
            if cells[0] or not rows:
                rows.append([[c] for c in cells])
            else:
                rows[-1] = [r + [c] for r, c in zip(rows[-1], cells)]
    headers = [" ".join(w for w in h if w) for h in heads]
    return headers, [{h: " ".join(w for w in cell if w) for h, cell in zip(headers, row)} for row in rows]


_FOLDED = re.compile(r" (?:origin|sources|reason|time|rev|event time|changes|rejected|chunks|state|writer|source): ")


def _main(cell: str) -> str:
    """A main cell's own text, without the columns folded below it."""
    return _FOLDED.split(cell)[0]


def _shown(args: list[str], env: dict, width: int) -> str:
    out = run_on_terminal(args, env, columns=width).decode()
    assert "Traceback" not in out, out
    for line in out.replace("\r\n", "\n").splitlines():
        assert len(line) <= width, (width, line)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
def test_history_gives_the_text_the_width_and_folds_what_does_not_fit(bank, width):
    shown = _shown(["history", "m1"], bank, width)
    headers, rows = _rows(shown)
    assert "text" in headers, shown
    assert [_main(r["text"]) for r in rows] == ["Alex: I live in Seattle.", "Alex lives in Sydney."], shown
    # Every column with a value is there: beside the text, or below it as "name: value".
    for header, value in [("reason", REASON), ("rev", "2"), ("op", "supersede"), ("status", "current"), ("origin", "said")]:
        whole = " ".join(rows[-1].values())
        assert (header in headers and rows[-1][header] == value) or f"{header}: {value}" in whole, (header, shown)
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", shown), shown  # times are short
    assert "ago" in shown or "just now" in shown, shown
    if width == 60:
        assert "reason" not in headers and f"reason: {REASON[:20]}" in " ".join(rows[-1].values())  # folded, not dropped


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
def test_search_shows_whole_text_and_two_decimal_scores(bank, width):
    shown = _shown(["search", "Seattle Sydney harbour", "--all"], bank, width)
    headers, rows = _rows(shown)
    assert headers[:4] == ["id", "score", "status", "text"], shown
    texts = {_main(r["text"]) for r in rows}
    assert f"Sam: {LONG}" in texts, shown  # the long memory, whole, in reading order
    assert all(re.fullmatch(r"\d\.\d\d", r["score"]) for r in rows), shown
    assert {r["status"] for r in rows} == {"current", "superseded"}
    if width <= 80:
        text_width = max(len(line.split("│")[4]) for line in shown.splitlines() if line.startswith("│"))
        assert text_width >= 0.4 * width, shown  # the text has room: not 7 characters beside an event time


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
def test_log_keeps_commands_whole(bank, width):
    shown = _shown(["log"], bank, width)
    _, rows = _rows(shown)
    assert [_main(r["command"]) for r in rows] == ["apply", "add --raw"], shown
    for r in rows:
        whole = " ".join(r.values())
        assert r.get("changes") or "changes: " in whole, shown  # what changed is never dropped


def test_layout_folds_rather_than_drops():
    from hymem_cli._output import layout

    columns = [("id", "id"), ("text", "text"), ("reason", "reason"), ("time", "time")]
    rows = [{"id": "m1", "text": "word " * 30, "reason": "because " * 10, "time": "3 min ago"}]
    shown, folded, main = layout(columns, rows, 40)
    assert main == "text" and [k for k, *_ in shown] == ["id", "text"] and [k for k, _ in folded] == ["reason", "time"]
    assert sum(w + 3 for *_, w, _ in shown) + 1 <= 40
    shown, folded, _ = layout(columns, rows, 300)
    assert folded == [] and [k for k, *_ in shown] == ["id", "text", "reason", "time"]
    empty = [{**rows[0], "reason": ""}]
    assert "reason" not in [k for k, *_ in layout(columns, empty, 300)[0]]  # a column empty in every row takes no room


def test_short_time_is_relative_then_a_date():
    from datetime import UTC, datetime

    from hymem_cli._output import short_time

    now = datetime(2025, 3, 4, 12, 0, tzinfo=UTC)
    assert short_time("2025-03-04T11:59:30Z", now) == "just now"
    assert short_time("2025-03-04T11:47:59.5Z", now) == "12 min ago"
    assert short_time("2025-03-04T07:00:00+00:00", now) == "5 h ago"
    assert short_time("2025-02-27T07:00:00Z", now) == "2025-02-27"
    assert short_time("not a time", now) == "not a time"


def test_plain_lines_say_status_and_reason(cli, monkeypatch):
    from hymem_cli._output import plain_hit

    assert plain_hit({"text": "Alex lives in Sydney.", "status": "current"}) == "Alex lives in Sydney."
    assert plain_hit({"text": "Alex: I live in Seattle.", "status": "superseded"}) == "Alex: I live in Seattle.\t[superseded]"
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("add", "--raw", "-", input="Alex: I live in Seattle.\n").exit_code == 0
    op = {"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.", "reason": "moved"}
    assert cli("apply", "-", input=json.dumps(op) + "\n").exit_code == 0
    lines = cli("history", "m1", "-f", "plain").stdout.splitlines()
    assert lines == ["m1\tadd\tsuperseded\tAlex: I live in Seattle.\t", "m2\tsupersede\tcurrent\tAlex lives in Sydney.\tmoved"]
    monkeypatch.setenv("HYMEM_SEARCH_MIN_SCORE", "0")  # the hash embedder's scores mean nothing
    shown = cli("search", "Alex Seattle Sydney", "--all", "-f", "plain").stdout.splitlines()
    assert sorted(shown) == ["Alex lives in Sydney.", "Alex: I live in Seattle.\t[superseded]"]
