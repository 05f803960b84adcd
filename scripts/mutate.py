#!/usr/bin/env python3
"""Mutation testing of hymem's core with mutmut: the small changes to the code that no test notices.

mutmut (>= 3.8) makes each mutant a variant of one function, records which tests call which function,
and runs each mutant against those tests only. It works on a copy (build/mutate/mutants/), never on
src/, and keeps every result there, so a run that is stopped resumes where it was, and a changed
function has its mutants made and run again. Not part of CI: a full run takes hours on two cores.

  .venv/bin/pip install 'mutmut>=3.8,<3.9'
  nice -n 10 .venv/bin/python scripts/mutate.py                        # every core module
  nice -n 10 .venv/bin/python scripts/mutate.py ingest/guards.py       # one module (path under src/hymem_cli/)
  .venv/bin/python scripts/mutate.py --report                          # the last results, without running
  .venv/bin/python scripts/mutate.py --retest ingest/guards.py         # its survivors (not the equivalent) again
  .venv/bin/python scripts/mutate.py --retest                          # every survivor again, then the mutants not run yet
  .venv/bin/python scripts/mutate.py --report --markdown               # the table docs/testing.md holds
  nice -n 10 .venv/bin/python scripts/mutate.py --recheck 100          # 100 killed mutants again, on the current tests

The report gives, per module, the mutants made, killed (a test failed or hung), survived, and the kill
rate over the mutants that are not equivalent (EQUIVALENT below: a change no test can see, with why);
then every survivor with its diff. Exit status: 0 when every module reaches --min-rate, else 1.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "mutate"
PACKAGE = "src/hymem_cli"

# The core: the bank (store, history and diff, revert, the operation format, opening and transactions),
# the write path and its guards, screening, readers and chunker, the domain types, errors and their exit
# codes. Search ranking, export/import, the writer backends and the commands are outside it.
CORE = [
    "bank/store.py",
    "bank/db.py",
    "bank/history.py",
    "bank/revert.py",
    "bank/operations.py",
    "ingest/guards.py",
    "ingest/pipeline.py",
    "ingest/processors.py",
    "ingest/chunker.py",
    "ingest/readers.py",
    "ingest/sources.py",
    "screen/__init__.py",
    "screen/secrets.py",
    "screen/instructions.py",
    "screen/structure.py",
    "screen/normalize.py",
    "screen/forms.py",
    "screen/wallet.py",
    "bank/schema.py",
    "ingest/calls.py",
    "trust.py",
    "domain.py",
    "_errors.py",
    "app.py",
]

# The fast suite: each mutant runs the tests of it that call the mutated function. The MCP server is
# outside the core, and its tests hide the SDK by patching sys.modules, which the mutated copy defeats.
TEST_SELECTION = ["tests/", "-m", "not slow and not llama", "--ignore=tests/test_mcp.py"]

# Each module is held by its own tests: a mutant runs the tests that call its function, among these
# files. The CLI end-to-end files (terminal, server, docs, architecture) reach every function of the
# bank and would make each surviving mutant cost minutes, while telling little about the module.
BANK_TESTS = ["test_bank_properties", "test_domain", "test_revert_plan", "test_store", "test_writer_pipeline", "test_chunk_atomicity",
              "test_transfer", "test_revert",
              "test_errors", "test_error_lines", "test_cli_foundation", "test_verify", "test_concurrency", "test_project_bank",
              "test_read_only_open", "test_compact", "test_upgrade", "test_stats", "test_reembed"]
WRITE_TESTS = ["test_guards", "test_domain", "test_writer_pipeline", "test_chunk_atomicity", "test_operations_fuzz", "test_poisoning",
               "test_writer_cli", "test_hostile_inputs", "test_streaming", "test_provenance", "test_native_protocol", "test_errors",
               "test_fail_closed", "test_cli_foundation"]
READ_TESTS = ["test_readers", "test_sources", "test_domain", "test_session_logs", "test_streaming", "test_errors", "test_hostile_inputs",
              "test_transfer",
              "test_writer_pipeline", "test_chunk_atomicity", "test_cli_foundation", "test_first_hour", "test_reader_details"]
SCREEN_TESTS = ["test_secret_checks", "test_secret_forms", "test_voice", "test_errors", "test_store", "test_operations_fuzz",
                "test_poisoning", "test_privacy", "test_secrets_by_context", "test_hostile_inputs",
                "test_writer_pipeline", "test_guards", "test_provenance", "test_fail_closed"]
TESTS_FOR = {
    "bank/store.py": BANK_TESTS, "bank/db.py": BANK_TESTS, "bank/history.py": BANK_TESTS, "bank/revert.py": BANK_TESTS,
    "bank/operations.py": BANK_TESTS + ["test_operations_fuzz"],
    "ingest/guards.py": WRITE_TESTS, "ingest/pipeline.py": WRITE_TESTS + READ_TESTS, "ingest/processors.py": WRITE_TESTS,
    "ingest/chunker.py": READ_TESTS + ["test_resume_fidelity"], "ingest/readers.py": READ_TESTS, "ingest/sources.py": READ_TESTS,
    "screen/__init__.py": SCREEN_TESTS, "screen/secrets.py": SCREEN_TESTS, "screen/instructions.py": SCREEN_TESTS,
    "screen/structure.py": SCREEN_TESTS, "screen/normalize.py": SCREEN_TESTS, "screen/forms.py": SCREEN_TESTS,
             "screen/wallet.py": SCREEN_TESTS,
    "bank/schema.py": BANK_TESTS + ["test_bank_trust"], "ingest/calls.py": WRITE_TESTS,
             "trust.py": ["test_trust", "test_project_bank", "test_settings"],
    "domain.py": BANK_TESTS + WRITE_TESTS + READ_TESTS, "_errors.py": ["test_errors", "test_error_lines", "test_cli_foundation"],
    "app.py": ["test_errors", "test_error_lines", "test_cli_foundation"],
}

# A pytest plugin for the mutant runs: it keeps the module's own test files (TESTS_FOR, passed in
# HYMEM_MUTATE_TESTS) and orders them so that a mutant is killed early (mutmut stops at the first failure):
# first the tests that killed other mutants of the same function (each failure is appended to
# HYMEM_MUTATE_KILLS; a function's mutants run one after another, and one test often kills many of them),
# then the files whose tests cost least.
ORDER_PLUGIN = r"""
import json
import os


def _function():
    return os.environ.get("MUTANT_UNDER_TEST", "").rsplit("__mutmut_", 1)[0]


def _module(mutant):
    dotted = mutant.split(".x_")[0].split(".x\u01c1")[0]
    parts = dotted.split(".")[1:]
    path = os.path.join("src", "hymem_cli", *parts)
    return "/".join(parts) + ("/__init__.py" if os.path.isdir(path) else ".py")


def _killers():
    counts = {}
    try:
        with open(os.environ["HYMEM_MUTATE_KILLS"], encoding="utf-8") as f:
            for line in f:
                function, _, nodeid = line.rstrip("\n").partition("\t")
                if function == _function():
                    counts[nodeid] = counts.get(nodeid, 0) + 1
    except (OSError, KeyError):
        pass
    return counts


def pytest_collection_modifyitems(session, config, items):
    try:
        with open("mutmut-stats.json") as f:
            seconds = json.load(f)["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    mutant = os.environ.get("MUTANT_UNDER_TEST", "")
    own = json.loads(os.environ.get("HYMEM_MUTATE_TESTS", "{}")).get(_module(mutant)) if mutant.startswith("hymem_cli.") else None
    limit = float(os.environ.get("HYMEM_MUTATE_TEST_SECONDS", "inf"))
    left = [item for item in items if seconds.get(item.nodeid, 0.0) > limit
            or (own is not None and item.nodeid.split("::")[0].rsplit("/", 1)[-1][:-3] not in own)]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = [item for item in items if item not in left]
    cost = {}
    for item in items:
        cost[item.nodeid.split("::")[0]] = cost.get(item.nodeid.split("::")[0], 0.0) + seconds.get(item.nodeid, 1.0)
    killed = _killers()
    items.sort(key=lambda item: (-killed.get(item.nodeid, 0), cost[item.nodeid.split("::")[0]]))


def pytest_runtest_logreport(report):
    kills = os.environ.get("HYMEM_MUTATE_KILLS")
    if report.failed and kills and _function().startswith("hymem_cli."):
        with open(kills, "a", encoding="utf-8") as f:
            f.write(_function() + "\t" + report.nodeid + "\n")
"""

# Tests slower than this (in the recorded run) are left out of the mutant runs: timing tests and long
# end-to-end flows. Unit and property tests stay.
TEST_SECONDS = "5"

# Property tests draw fewer examples in the mutant runs (each mutant runs them again); the fast suite
# keeps its own numbers.
FUZZ_EXAMPLES = "100"

# Mutants that change nothing a caller can observe, so no test can kill them: (module, function, the
# line as mutated, or a tuple of such lines, why). Matched on the mutated line, not on mutmut's numbering, which
# shifts when a function changes; "OLD => NEW" matches only where OLD is the line mutated.
URI = "the SQLite hymem loads (sqlean) reads file: URIs whatever the flag; the flag is for the standard module's build"
EQUIVALENT: list[tuple[str, str, str | tuple[str, ...] | None, str]] = [
    ("ingest/pipeline.py", "MemoryBankǁ", None, "a Protocol's method: its body and defaults never run"),
    ("ingest/pipeline.py", "ChunkProcessorǁ", None, "a Protocol's method: its body and defaults never run"),
    ("bank/revert.py", "plan_revert", '"V.TAGS, V.OWNER, V.KIND, V.VALID_UNTIL, V.ORIGIN, "',
     "the case of column names inside a SELECT (SQLite and sqlite3.Row ignore it)"),
    ("bank/revert.py", "plan_revert", "plan = RevertPlan(None)",
     "RevertPlan.rev is read by nothing; the re-check compares two plans built the same way"),
    ("ingest/processors.py", "_unparseable", ("proposed=None, stats=stats)", 'asked for")], stats=stats)'),
     "no operation and one rejection: the count proposed is 1 either way"),
    ("ingest/sources.py", "_descriptor_lines", ("while data := os.read(fd, 2 << 16):", "while data := os.read(fd, 1 << 17):"),
     "the size of one read: the lines are the same"),
    ("ingest/sources.py", "_descriptor_lines", "start = 0 => start = None", "bytes.find from None starts at 0"),
    ("ingest/sources.py", "idle_flush", "box: queue.Queue = queue.Queue(maxsize=257)",
     "the queue's bound: how far the reader may run ahead"),
    ("ingest/sources.py", "idle_flush", "done = None", "the end marker: no message is None, so None marks the end as well"),
    ("ingest/sources.py", "idle_flush", "idle = False => idle = None", "None is false, as False is"),
    ("ingest/readers.py", "_drop_reminders", ("if closed <= 0:", "if closed < 1:"),
     "the closing tag is looked for after the opening one: never at 0"),
    ("bank/revert.py", "revert", ("reason=reason)], [], strict=None)", "reason=reason)], [], strict=False)"),
     "deleting what the transaction has just found current: nothing can refuse it, so strictness decides nothing"),
    ("screen/secrets.py", "_masked", r'r"[*X.•#\-_]+(?: [*X.•#\-_]+)*"',
     "the pattern is matched ignoring case: x and X are the same to it"),
    ("screen/secrets.py", "_looks_random", "else 3 for c in sample => else 4 for c in sample",
     "the label of a character that is no letter or digit: only whether two neighbours' labels differ counts, "
     "and 4 differs from the others as 3 does"),
    ("screen/secrets.py", "_card_digits", "<= len(digits) <= 20", "the card shapes it is given have at most 19 digits"),
    ("bank/revert.py", "revert", ('[blobs[old["id"]]], strict=None)', '[blobs[old["id"]]], strict=False)'),
     "updating what the transaction has just found current: nothing can refuse it, so strictness decides nothing"),
    ("bank/revert.py", "revert", "view = RevisionDraft(None, ", "Bank._apply reads a draft's source, id and counts, never its command"),
    ("bank/db.py", "open_stored", ("uri=None", "uri=False", '?{mode}", isolation_level=None'), URI),
    ("bank/db.py", "open_read_only", ("uri=None", "uri=False", '\'mode=ro&immutable=1\'}", )'), URI),
    ("ingest/readers.py", "_read_markdown", "first = False => first = None", "None is false, as False is"),
    ("bank/store.py", "Bankǁversion", "isinstance(ref, int)) and False", "parse_memory_id reads an int as it reads its digits"),
    ("screen/forms.py", "luhn", "total -= d", "a sum is a multiple of 10 exactly when its negative is"),
    ("screen/secrets.py", "Redactorǁ_redact", "for _ in range(9):",
     "the bound on rounds guards against a loop: no text the tests hold needs more than two rounds after the first search"),
    ("bank/store.py", "Bankǁ_open_revision", "else None, json.dumps(None)),",
     "the counts written as a revision opens are written again by the same transaction before it commits"),
    ("bank/store.py", "Bankǁcheck_embedder", "int(stored_dim or 1)",
     "a bank records its model and its dimension in one statement: a model without a dimension does not occur"),
    ("bank/db.py", "_set_wal", "time.monotonic() >= deadline",
     "the clock reading the deadline to the last digit: one more try 50 ms later or not, which no caller can tell"),
    ("bank/db.py", "_set_wal", "time.sleep(1.05)", "the pause between two tries: how soon the bank opens after the other writer, a timing"),
    ("bank/db.py", "connect", "sqlite.connect(str(path), isolation_level=None",
     "the module's own wait applies until the PRAGMA busy_timeout just after it, and nothing before that takes a lock"),
    ("bank/db.py", "migrate", "ran = False => ran = None", "None is false, as False is"),
    ("bank/db.py", "migrate", "DATETIME('NOW')", "SQLite reads the time value 'now' in any case"),
    ("bank/store.py", "Bankǁembed_operations", 'op.text or "XXXX"', "an operation without a text is refused before its vector is used"),
    ("bank/store.py", "open_bank", "busy_timeout: float = 31.0",
     "the default wait for another writer: its callers (eval's scratch bank, reembed's check for a bank that does not exist) "
     "never meet one; a timing"),
    ("bank/store.py", "Bankǁhead_of", 'self.version_row(vid)["CHAIN"]',
     "the case of a column looked up in a sqlite3.Row (it ignores case)"),
    ("ingest/readers.py", "_redacting", "break",
     "a line that is not text stops the reader that consumes it (TypeError) before any later line is read"),
    ("ingest/readers.py", "_read_speaker", 'if (match["ts"]) or True else None',
     "normalize_timestamp(None) is None: the same as skipping it"),
    ("ingest/readers.py", "_has_markdown_speaker", "first = False => first = None", "None is false, as False is"),
    ("ingest/readers.py", "_NumberedLinesǁ__init__", "self.saw_content = None", "None is false, as False is"),
    ("ingest/readers.py", "decode_lines", "at_start = False => at_start = None", "None is false, as False is"),
    ("ingest/processors.py", "WriterProcessorǁprocess", "chunk = Chunk(None, messages)",
     "the chunk made here goes only to related_memories and render, which read its messages, never its source"),
    ("ingest/processors.py", "WriterProcessorǁprocess", ("Proposal([], stats=stats, proposed=None)", "Proposal([], stats=stats, )"),
     "no operation and no rejection: the count proposed is 0 either way (None means accepted plus rejected)"),
    ("bank/history.py", "diff", ("heads_at(bank, lo, None)", "heads_at(bank, lo, )", "heads_at(bank, hi, None)", "heads_at(bank, hi, )"),
     "every chain's head instead of the touched ones': diff reads the touched ones only"),
    ("bank/history.py", "diff", ("version_dict(bank.version_row(b), as_of=None)", "version_dict(bank.version_row(b), ) if b"),
     "a version current at lo and not at hi was retired in between, once (retirements are insert-only): by hi or ever, the same"),
    ("ingest/guards.py", "normalize", '.strip("XX\\"\'XX")', "the text is case-folded first: no capital X is left for the strip to take"),
    ("ingest/guards.py", "_check", 'target = ""', 'an add keeps this target, and every use of it is a truth test, where "" and None agree'),
    ("ingest/guards.py", "_check", 'for f in (text or "XXXX", reason or "", evidence)', 'an absent text is as encodable as "XXXX"'),
    ("ingest/guards.py", "_check", 'for f in (text or "", reason or "XXXX", evidence)', 'an absent reason is as encodable as "XXXX"'),
    ("screen/__init__.py", "Screenǁrefusal", 'fields.get("text") or "XXXX"',
     "the text is empty for a delete only; a one-word fact matches no sentence (two words are the least), as the empty one"),
    ("screen/__init__.py", "Screenǁorigin", 'text or "XXXX"',
     "the fact is read only when it is empty, and a one-word text matches no sentence (two words are the least), as the empty one"),
    ("screen/__init__.py", "Screenǁorigin", "lambda _: 0", "the trace tests the finder's result for truth only: 0 and None are both false"),
    ("ingest/pipeline.py", "_mark_tool_output", '(m.speaker or "XXXX")',
     'a message without a speaker is no tool\'s: "" and "xxxx" are both outside the tool speakers'),
    ("ingest/pipeline.py", "_add_context", tuple(f'if op.op == "{name}" or op.context is not None:' for name in ("XXdeleteXX", "DELETE")),
     "a delete stores no version: the context it would be given is never kept"),
    ("ingest/pipeline.py", "_add_context", "op.source_ids[:2]", "a raw memory has one source id, its message"),
    ("screen/secrets.py", "_cards_in_run", "while i <= len(groups):", "one more pass with no group left: no window, nothing found"),
    ("screen/instructions.py", "fold", r"[ \t\u00A0]+", "the case of a hex escape in a regular expression"),
    ("bank/store.py", "Bankǁcommit_chunk", ("json.dumps(rej.operation.to_json(), )", "ensure_ascii=True"),
     "a rejected operation is stored as JSON either way: every reader parses it, and \\u escapes read back as the same text"),
    ("bank/store.py", "Bankǁcommit_chunk", "strict=None)", "None is false, as False is"),
    ("bank/history.py", "diff", "if rev_a >= rev_b:", "a equal to b: nothing lies between them, and diff returns before the swap"),
    ("bank/store.py", "Bankǁstats", "stats(self.conn, None, limit)",
     "the sizes measured on the bank's own connection after the counts, not on a second one meanwhile: the same numbers"),
    ("ingest/processors.py", "WriterProcessorǁprocess",
     ("Proposal(accepted, rejections, proposed=None, stats=stats)", "Proposal(accepted, rejections, stats=stats)"),
     "each operation proposed is accepted or refused: their sum, what None stands for, is the count proposed"),
]

# What counts as a kill: a test failed, the tests ran past their time limit, or their process was killed by a
# signal (mutmut calls that "segfault"; here it is a mutant that loops forever growing a list, stopped by SIGKILL).
CAUGHT = ("killed", "timeout", "segfault")
SKIPPED = 34  # mutmut's exit code for a mutant it was told to skip

# A codec's name is read whatever its case ("utf-8" and "UTF-8" are one codec).
CODEC = re.compile(r"""\.(?:en|de)code\((['"])utf-8\1\)""", re.IGNORECASE)


@dataclass
class Module:
    path: str  # under src/hymem_cli/
    results: dict[str, int | None] = field(default_factory=dict)  # mutant name -> mutmut's exit code

    def status(self, name: str) -> str:
        from mutmut.stats import status_by_exit_code

        return status_by_exit_code[self.results[name]]

    def names(self, *statuses: str) -> list[str]:
        return [n for n in self.results if self.status(n) in statuses]


def mutmut_bin() -> str:
    found = Path(sys.executable).parent / "mutmut"
    if not found.exists():
        sys.exit("mutate: mutmut is not installed in this environment: .venv/bin/pip install 'mutmut>=3.8,<3.9'")
    return str(found)


def sync(worktree: bool) -> str:
    """Bring build/mutate/ up to HEAD (or the working tree), rewriting only the files that differ.

    A rewritten file is newer than its mutated copy, so mutmut makes that file's mutants again (and keeps
    the results of every function whose code did not change). Writes what was copied to SOURCE, for the
    report; returns a digest of the code and tests, which decide which tests call which function.
    """
    def git(*args: str) -> bytes:
        return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True).stdout

    if worktree:
        listed = git("ls-files", "-co", "--exclude-standard", "-z").decode().split("\0")
        files = {p: (ROOT / p).read_bytes() for p in listed if p and (ROOT / p).is_file()}
        source = "working tree of " + git("rev-parse", "--short", "HEAD").decode().strip()
    else:
        with tarfile.open(fileobj=io.BytesIO(git("archive", "HEAD"))) as tar:
            files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        source = "commit " + git("rev-parse", "--short", "HEAD").decode().strip()
    files = {p: data for p, data in files.items() if not p.startswith("build/")}
    for rel, data in sorted(files.items()):
        dst = WORK / rel
        if dst.is_file() and dst.read_bytes() == data:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
    for path in WORK.rglob("*"):
        rel = path.relative_to(WORK)
        if path.is_file() and rel.parts[0] not in ("mutants", "setup.cfg", "SOURCE", "TESTED") and "__pycache__" not in rel.parts \
                and not rel.parts[0].startswith(".") and str(rel) not in files:
            path.unlink()
    (WORK / "SOURCE").write_text(source + "\n")
    digest = hashlib.sha256()
    for rel, data in sorted(files.items()):
        if rel.startswith(("src/", "tests/")) or rel == "pyproject.toml":
            digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def write_config() -> bool:
    """mutmut's setup.cfg, mutating every core module (a run of some modules picks their mutants by name, so
    the record of which tests call which function always covers the whole core). Returns whether it changed."""
    also = sorted({p.name for p in WORK.iterdir() if p.name not in ("src", "mutants", "setup.cfg",
                                                                    "SOURCE") and not p.name.startswith(".")})
    lines = ["[mutmut]", f"source_paths = {PACKAGE}/", "only_mutate ="]
    lines += [f"    {PACKAGE}/{m}" for m in CORE]
    lines += ["pytest_add_cli_args_test_selection ="] + [f"    {a}" for a in TEST_SELECTION]
    lines += ["pytest_add_cli_args =", "    -p", "    no:cacheprovider", "    -p", "    hymem_mutate_order"]
    lines += ["also_copy ="] + [f"    {a}" for a in also]
    # Workers fork from a process that has run no test: the tests leave threads behind (readers, servers),
    # and a fork taken while one of them holds a lock hangs.
    lines += ["process_isolation = forkserver", "use_git_change_detection = false", ""]
    config, text = WORK / "setup.cfg", "\n".join(lines)
    changed = not config.exists() or config.read_text() != text
    config.write_text(text)
    return changed


def mutant_names(module: str) -> str:
    """The glob of a module's mutants: `hymem_cli.bank.db.x_…` (functions) and `hymem_cli.bank.db.xǁ…` (methods)."""
    dotted = ".".join(["hymem_cli", *module.removesuffix(".py").removesuffix("/__init__").split("/")])
    return f"{dotted}.x*"


def load(path: str) -> Module:
    meta = WORK / "mutants" / PACKAGE / (path + ".meta")
    module = Module(path)
    if meta.exists():
        module.results = json.loads(meta.read_text())["exit_code_by_key"]
    return module


def status_of(code: int | None) -> str:
    from mutmut.stats import status_by_exit_code

    return status_by_exit_code[code]


def mark(path: str, which, code: int | None) -> list[str]:
    """Record `code` as the result of the mutants `which(name, result)` selects (None: not run, so mutmut runs them
    again); their names."""
    meta = WORK / "mutants" / PACKAGE / (path + ".meta")
    if not meta.exists():
        return []
    data = json.loads(meta.read_text())
    chosen = [k for k, v in data["exit_code_by_key"].items() if which(k, v)]
    data["exit_code_by_key"].update(dict.fromkeys(chosen, code))
    meta.write_text(json.dumps(data))
    return chosen


def reset(path: str, which) -> list[str]:
    """Forget the results `which(name, exit code)` selects, so mutmut runs those mutants again; their names."""
    return mark(path, lambda name, code: code is not None and which(name, code), None)


def skip_equivalent(path: str) -> None:
    """Mark the mutants not run yet that are equivalent as skipped, so mutmut does not spend a full test run on
    each (a survivor runs every test that calls its function); the report counts them as equivalent."""
    mark(path, lambda name, code: code is None and equivalent_reason(path, name, diff(name, path)) is not None, SKIPPED)


def missed(path: str, name: str, code: int) -> bool:
    """A mutant that ran and was not killed, and is not named equivalent: what --retest runs again."""
    return code not in (1, 3) and status_of(code) not in CAUGHT and not equivalent_reason(path, name, diff(name, path))


def diff(name: str, module: str) -> str:
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    cwd = os.getcwd()
    os.chdir(WORK)
    try:
        return get_diff_for_mutant(name, path=f"{PACKAGE}/{module}")
    finally:
        os.chdir(cwd)


def changed_lines(text: str) -> tuple[list[str], list[str]]:
    body = [line for line in text.splitlines() if not line.startswith(("---", "+++", "@@"))]
    return [line[1:].strip() for line in body if line.startswith("-")], [line[1:].strip() for line in body if line.startswith("+")]


# SQL as hymem writes it: keywords in capitals. A string without one is prose, a name or a value ("delete", a hint).
SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|FROM|WHERE|JOIN|ORDER BY|GROUP BY|VALUES|SET|PRAGMA|UNION|LIMIT|AND)\b")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
ALIAS = re.compile(r"\bAS\s+(\w+)", re.IGNORECASE)  # a result column's name as written: dict(row) keeps its case


def sql_case_only(removed: list[str], added: list[str]) -> bool:
    """Only the case of SQL changed: inside strings that hold SQL, outside their '...' values and the names
    given with AS, and nowhere else on the line. SQLite reads keywords, names and a pragma's value in any case,
    names a result column as its table does, and sqlite3.Row finds a column whatever the case of its name."""
    if len(removed) != len(added) or not removed:
        return False
    for old, new in zip(removed, added):
        if old == new or STRING.sub('""', old) != STRING.sub('""', new):
            return False
        for a, b in zip(STRING.findall(old), STRING.findall(new)):
            if a != b and (a.lower() != b.lower() or not SQL.search(a) or re.findall(r"'[^']*'", a) != re.findall(r"'[^']*'", b)
                           or ALIAS.findall(a) != ALIAS.findall(b)):
                return False
    return True


ROW_KEY = re.compile(r"\b(?:r|row|head|target_row)\[(\"[^\"]*\"|'[^']*')\]")


def row_key_case_only(removed: list[str], added: list[str]) -> bool:
    """Only the case of a column name looked up in a sqlite3.Row (named r, row, head or target_row in the bank's code)
    changed: a Row finds a column whatever the case."""
    if len(removed) != 1 or len(added) != 1 or removed[0] == added[0] or removed[0].lower() != added[0].lower():
        return False
    old, new = ROW_KEY.sub("ROW[]", removed[0]), ROW_KEY.sub("ROW[]", added[0])
    return old == new and ROW_KEY.findall(removed[0]) != ROW_KEY.findall(added[0])


def _mutated(spec: str, removed: list[str], added: list[str]) -> bool:
    old, arrow, new = spec.rpartition(" => ")
    return any(new in a for a in added) and (not arrow or any(old in r for r in removed))


def equivalent_reason(module: str, name: str, text: str) -> str | None:
    function = name.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1]
    removed, added = changed_lines(text)
    if sql_case_only(removed, added):
        return "the case of SQL keywords and names (SQLite and sqlite3.Row ignore it)"
    if row_key_case_only(removed, added):
        return "the case of a column looked up in a sqlite3.Row (it ignores case)"
    if len(removed) == len(added) == 1 and CODEC.sub("CODEC", removed[0]) == CODEC.sub("CODEC", added[0]) != removed[0]:
        return "the case of a codec's name (Python ignores it)"
    if len(removed) == len(added) == 1 and removed[0].replace("ensure_ascii=False", "ensure_ascii=None") == added[0] != removed[0]:
        return "ensure_ascii=None: None is false, as False is"
    for mod, func, line, why in EQUIVALENT:
        alternatives = (line,) if isinstance(line, str) else line or ()
        if mod == module and (function.endswith(func) or func.endswith("ǁ") and func in function) and (
                line is None or any(_mutated(one, removed, added) for one in alternatives)):
            return why
    return None


def report(modules: list[str], markdown: bool, min_rate: float) -> int:
    source = (WORK / "SOURCE").read_text().strip() if (WORK / "SOURCE").exists() else "nothing yet"
    print(f"mutants of {source}, mutmut {version('mutmut')}, tests: pytest {' '.join(TEST_SELECTION)}\n")
    rows, survivors, equivalents, below = [], [], [], []
    for path in modules:
        m = load(path)
        caught = m.names(*CAUGHT)
        pending = m.names("not checked")
        missed = [n for n in m.results if n not in caught and n not in pending]
        equivalent = 0
        for name in missed:
            text = diff(name, path)
            why = equivalent_reason(path, name, text)
            if why:
                equivalent += 1
                equivalents.append((path, name, why))
            else:
                survivors.append((path, name, m.status(name), text))
        scored = len(m.results) - equivalent - len(pending)
        rate = 100.0 * len(caught) / scored if scored else 100.0
        if rate < min_rate or pending or not m.results:
            below.append(path)
        rows.append((path, len(m.results), len(caught), len(missed) - equivalent, equivalent, len(pending), rate))

    if markdown:
        print("| module | mutants | killed | survived | equivalent | not run | kill rate |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for path, total, killed, survived, equivalent, pending, rate in rows:
            shown = f"{rate:.1f} %" + (f" of the {total - equivalent - pending} run" if pending else "")
            print(f"| {path} | {total} | {killed} | {survived} | {equivalent} | {pending} | {shown} |")
        total = [sum(r[i] for r in rows) for i in range(1, 6)]
        scored = total[0] - total[3] - total[4]
        print(f"| **all** | {total[0]} | {total[1]} | {total[2]} | {total[3]} | {total[4]} | "
              f"{100.0 * total[1] / scored if scored else 100:.1f} % |")
        by_reason: dict[str, list[str]] = {}
        for path, name, why in equivalents:
            by_reason.setdefault(why, []).append(f"{path}:{_function(name)}")
        if by_reason:
            print("\nEquivalent mutants, by reason:\n")
            for why, where in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
                places = sorted(set(where))
                print(f"- {why}: {len(where)} ({', '.join(places[:6])}{', ...' if len(places) > 6 else ''})")
        by_function: dict[str, int] = {}
        for path, name, _, _ in survivors:
            key = f"{path}:{_function(name)}"
            by_function[key] = by_function.get(key, 0) + 1
        if by_function:
            print("\nSurviving mutants, by function (their diffs: `scripts/mutate.py --report`):\n")
            for key, n in sorted(by_function.items()):
                print(f"- `{key}`: {n}")
        return 1 if below else 0
    print(f"{'module':<24} {'mutants':>8} {'killed':>7} {'survived':>9} {'equiv.':>7} {'not run':>8} {'kill rate':>10}")
    for path, total, killed, survived, equivalent, pending, rate in rows:
        print(f"{path:<24} {total:>8} {killed:>7} {survived:>9} {equivalent:>7} {pending:>8} {rate:>9.1f}%")
    if survivors:
        print(f"\n{len(survivors)} surviving mutant(s):")
        for path, name, status, text in survivors:
            print(f"\n# {name} ({status})\n{text}")
    return 1 if below else 0


def _function(name: str) -> str:
    """The function a mutant belongs to, as the source names it: "Bank.commit_chunk", "check"."""
    mangled = name.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1]
    return mangled.removeprefix("x_").replace("xǁ", "").replace("ǁ", ".").strip(".")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help=f"core modules under {PACKAGE}/ (default: all of {', '.join(CORE)})")
    parser.add_argument("--report", action="store_true", help="print the last results; run nothing")
    parser.add_argument("--retest", action="store_true",
                        help="run the surviving mutants again, not those named equivalent (after adding tests); "
                             "without modules, then every mutant not run yet")
    parser.add_argument("--recheck", type=int, metavar="N",
                        help="run a sample of N killed mutants again "
                             "(results kept from earlier commits: do the current tests still kill them?)")
    parser.add_argument("--seed", type=int, default=0, help="which sample --recheck takes (default 0)")
    parser.add_argument("--markdown", action="store_true", help="the per-module table as Markdown")
    parser.add_argument("--worktree", action="store_true", help="test the working tree, uncommitted changes included (default: HEAD)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="mutants run at once (default: the CPUs)")
    parser.add_argument("--min-rate", type=float, default=95.0, help="kill rate every module must reach (default 95)")
    args = parser.parse_args()
    unknown = [m for m in args.modules if m not in CORE]
    if unknown:
        parser.error(f"not a core module: {', '.join(unknown)} (the core: {', '.join(CORE)})")
    modules = args.modules or CORE
    mutmut = mutmut_bin()
    if not args.report:
        WORK.mkdir(parents=True, exist_ok=True)
        tested = WORK / "TESTED"
        before = tested.read_text().strip() if tested.exists() else None
        digest = sync(args.worktree)
        if (digest != before) | write_config():
            # Other code or tests: "no tests" is asked again. mutmut brings its record of which tests call which
            # function up to date itself (it traces the new tests; a new setup.cfg makes it trace them all).
            for module in CORE:
                reset(module, lambda _, code: status_of(code) == "no tests")
            tested.write_text(digest + "\n")
        for module in CORE:  # a plain copy left by an older run: drop it, or mutmut takes it for mutated
            copy = WORK / "mutants" / PACKAGE / module
            if copy.exists() and "# mutmut generated" not in copy.read_text():
                copy.unlink()
        for module in modules:
            skip_equivalent(module)
        command = [mutmut, "run", "--max-children", str(args.jobs)]
        named: list[str] = []  # the mutants this run is limited to; none: every mutant not run yet
        if args.retest:  # survivors (and mutants no test reached) are forgotten, so this run tries them again
            named += [name for module in modules for name in reset(module, lambda name, code, module=module: missed(module, name, code))]
        if args.recheck:
            killed = sorted(name for module in modules for name, code in load(module).results.items()
                            if code is not None and status_of(code) in CAUGHT)
            sample = set(random.Random(args.seed).sample(killed, min(args.recheck, len(killed))))
            for module in modules:
                reset(module, lambda name, _: name in sample)
            named += sorted(sample)
        if args.modules or args.recheck:
            if not args.retest and not args.recheck:
                named = [mutant_names(module) for module in modules]
            elif not named:
                return report(modules, args.markdown, args.min_rate)
            command += named
        plugins = WORK / ".plugins"
        plugins.mkdir(exist_ok=True)
        (plugins / "hymem_mutate_order.py").write_text(ORDER_PLUGIN.lstrip())
        # Processes the tests start (python -m hymem_cli) import the same copy, not the checkout's src/.
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORK / "mutants" / "src"), str(plugins)]),
               "HYMEM_FUZZ_EXAMPLES": os.environ.get("HYMEM_FUZZ_EXAMPLES", FUZZ_EXAMPLES),
               "HYMEM_MUTATE_TEST_SECONDS": os.environ.get("HYMEM_MUTATE_TEST_SECONDS", TEST_SECONDS),
               "HYMEM_MUTATE_TESTS": json.dumps(TESTS_FOR),
               "HYMEM_MUTATE_KILLS": str(WORK / ".kills.tsv"),  # which test killed which function's mutants
               "HYMEM_TEST_DERANDOMIZE": "1",  # the same examples for every mutant: no kill by a lucky draw
               "HYMEM_TEST_CACHE": str(WORK / ".cache")}  # the embedder's copies, made once for all the runs
        done = subprocess.run(command, cwd=WORK, env=env, check=False)
        if done.returncode:
            print(f"mutate: mutmut stopped with exit status {done.returncode}; re-run to resume", file=sys.stderr)
    return report(modules, args.markdown, args.min_rate)


if __name__ == "__main__":
    sys.exit(main())
