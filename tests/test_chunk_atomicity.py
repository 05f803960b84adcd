"""Each chunk is one transaction, checked in the fast suite: an ingest is failed at each point where a crash
could split its work, in turn, and after each failure the bank holds whole chunks only (with counts that
match them), and finishing the ingest gives the bank an uninterrupted run gives.

A failed statement stands for a crash at that point: SQLite drops an unfinished transaction either way, so
whatever a failure leaves behind, a crash there would leave too. The points: every BEGIN and COMMIT, every
write made outside a transaction, and the last statement inside each transaction. Inside one transaction
all points leave the same bank, so these reach every state a crash can leave; a chunk written in two
transactions shows at the second BEGIN. tests/test_crash_safety.py does the same with real SIGKILLs at
random moments (slow).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_crash_safety import bank_state, check_invariants, universal_reply

from hymem_cli.bank import open_bank
from hymem_cli.embed import HashEmbedder
from hymem_cli.ingest.pipeline import ingest
from hymem_cli.ingest.processors import RawProcessor, WriterProcessor
from hymem_cli.ingest.sources import open_sources
from hymem_cli.screen import Screen
from hymem_cli.writer.scripted import ScriptedBackend

CITIES = ["Oslo", "Lima", "Cairo", "Perth"]


class Crash(Exception):
    pass


class FailingConnection:
    """The bank's connection, failing its `fail_at`-th statement (0: none), and noting each statement it runs."""

    def __init__(self, conn, fail_at: int = 0):
        self._conn = conn
        self.fail_at = fail_at
        self.statements: list[tuple[str, bool]] = []  # (first word, inside a transaction)

    def execute(self, sql, *args):
        self.statements.append((sql.split(None, 1)[0].upper(), self._conn.in_transaction))
        if len(self.statements) == self.fail_at:
            raise Crash(f"statement {self.fail_at}: {sql[:60]}")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def transcript(path: Path) -> None:
    """One session per city: Alex moves, so the writer supersedes what it is shown and chains form."""
    with path.open("w") as f:
        for i, city in enumerate(CITIES):
            for j, (who, text) in enumerate([("Alex", f"I moved to {city} this week."), ("Sam", f"Noted, {city} it is.")]):
                f.write(json.dumps({"id": f"w{i}-{j}", "session": f"s{i}", "speaker": who,
                                    "timestamp": f"2024-0{i + 1}-01T1{j}:00:00Z", "text": text}) + "\n")


def processor(mode: str):
    if mode == "raw":
        return RawProcessor(Screen())
    return WriterProcessor(ScriptedBackend([universal_reply()] * len(CITIES)), Screen())


def crash_points(statements: list[tuple[str, bool]]) -> list[int]:
    """1-based indexes of the statements to fail: transaction boundaries, writes outside one, each transaction's last."""
    points = []
    for i, (word, inside) in enumerate(statements, 1):
        if word in ("BEGIN", "COMMIT") or (not inside and word not in ("SELECT", "PRAGMA")):
            points.append(i)
        if word == "COMMIT" and i > 1:
            points.append(i - 1)
    return sorted(set(points))


def run_ingest(path: Path, chat: Path, mode: str, fail_at: int = 0) -> list[tuple[str, bool]]:
    """Ingest `chat` into the bank at `path` with statement `fail_at` failing; the statements run."""
    bank = open_bank(path)
    bank.bind_embedder(HashEmbedder())
    failing = FailingConnection(bank.conn, fail_at)
    bank.conn = failing
    try:
        ingest(bank, open_sources([str(chat)]), processor(mode))
    except Crash:
        pass
    except Exception as exc:  # a failing BEGIN is reported as a bank error: the cause is still ours
        if "statement" not in str(exc) and not isinstance(exc.__context__, Crash):
            raise
    finally:
        bank.conn = failing._conn
        bank.close()  # the process ends here: an open transaction is rolled back
    return failing.statements


@pytest.mark.parametrize("mode", ["raw", "writer"])
def test_a_failure_at_any_crash_point_leaves_whole_chunks(tmp_path, mode):
    chat = tmp_path / "chat.jsonl"
    transcript(chat)
    ops = 0 if mode == "raw" else len(universal_reply()["operations"])
    template = tmp_path / "empty.db"
    b = open_bank(template)  # migrations and the embedder's tables, made once
    b.bind_embedder(HashEmbedder())
    b.close()

    reference = tmp_path / "reference.db"
    shutil.copy(template, reference)
    statements = run_ingest(reference, chat, mode)
    check_invariants(reference, mode, ops)
    expected = bank_state(reference)
    assert len(expected["chunks"]) == len(CITIES)
    if mode == "writer":
        assert sum(n for (_, _, _, how, _), n in expected["history"].items() if how == "superseded") == len(CITIES) - 1

    points = crash_points(statements)
    assert sum(word == "BEGIN" for word, _ in statements) == len(CITIES) + 1  # a transaction per chunk, and the finish
    for fail_at in points:
        bank = tmp_path / f"failed-{fail_at}.db"
        shutil.copy(template, bank)
        run_ingest(bank, chat, mode, fail_at)
        check_invariants(bank, mode, ops)
        run_ingest(bank, chat, mode)  # the re-run resumes
        check_invariants(bank, mode, ops)
        assert bank_state(bank) == expected, f"statement {fail_at} of {len(statements)}"
        bank.unlink()
