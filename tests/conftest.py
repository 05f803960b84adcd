"""Shared fixtures: every test gets its own HYMEM_HOME, and helpers to run the CLI and read the bank."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hymem_cli.app import app


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str

    def jsonl(self) -> list[dict]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def json(self):
        return json.loads(self.stdout)


if os.environ.get("HYMEM_TEST_DERANDOMIZE"):
    # The same examples every run (scripts/mutate.py): a mutant is killed by what it changed, never by a new draw.
    from hypothesis import settings

    settings.register_profile("derandomized", derandomize=True)
    settings.load_profile("derandomized")


@pytest.fixture(scope="session", autouse=True)
def shared_cache(tmp_path_factory):
    """One cache for the whole run: the embedder's ONNX copy is made once, not once per test.

    HYMEM_TEST_CACHE keeps it across runs (scripts/mutate.py starts a test run per mutant)."""
    import os

    os.environ["HYMEM_CACHE"] = os.environ.get("HYMEM_TEST_CACHE") or str(tmp_path_factory.mktemp("cache"))


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A private HYMEM_HOME; the bank is home/bank.db. Uses the real embedder unless a test says otherwise."""
    h = tmp_path / "home"
    monkeypatch.setenv("HYMEM_HOME", str(h))
    for var in ("HYMEM_BANK", "HYMEM_EMBED_MODEL", "NO_COLOR", "HYMEM_DEBUG"):
        monkeypatch.delenv(var, raising=False)
    return h


@pytest.fixture
def cli(home):
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None) -> Run:
        result = runner.invoke(app, list(args), input=input, catch_exceptions=False)
        return Run(result.exit_code, result.stdout, result.stderr)

    return run


def snapshot(path: Path):
    """Every row of every table of a bank, or None if there is no bank: 'unchanged' means equal snapshots."""
    if not path.exists():
        return None
    import sqlean

    conn = sqlean.connect(str(path))
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%vec%' AND name NOT LIKE '%fts%' ORDER BY name")]
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
    finally:
        conn.close()


def one_error_line(run: Run, code: int, *needles: str) -> None:
    """The error contract: the documented exit code, one line on stderr naming the problem, nothing on stdout."""
    assert run.exit_code == code, (run.exit_code, run.stderr)
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("hymem: error: ")
    for needle in needles:
        assert needle.lower() in lines[0].lower(), lines[0]
    assert run.stdout == ""


@pytest.fixture(scope="module")
def llama_cpp():
    """llama-cpp-python and its ctypes layer; CI (HYMEM_REQUIRE_LLAMA=1) fails instead of skipping without it."""
    import os

    try:
        import llama_cpp
        import llama_cpp.llama_cpp  # noqa: F401 - the ctypes layer the adapter calls
    except ImportError:
        if os.environ.get("HYMEM_REQUIRE_LLAMA"):
            pytest.fail("llama-cpp-python is not installed (HYMEM_REQUIRE_LLAMA is set)")
        pytest.skip("llama-cpp-python is not installed")
    return llama_cpp


def as_if_typed():
    """preexec_fn for a child that a test stops with SIGINT: Ctrl-C's default action, as in a terminal.

    A job started in the background by a non-interactive shell (`cmd &`) has SIGINT ignored, its children
    inherit that, and Python then installs no KeyboardInterrupt handler: the child would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

