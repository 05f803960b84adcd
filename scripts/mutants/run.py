#!/usr/bin/env python3
"""Semantic mutants: hand-written plausible bugs, each a patch, run one at a time against the tests.

Where scripts/mutate.py lets mutmut swap operators and constants, each patch here is a bug a person could write:
a rule applied to a slightly different set of cases, a boundary moved, a scope widened, a field dropped. A patch
file (scripts/mutants/round-DATE/NN-name.patch) is a unified diff against the commit named in its `# base:` line,
with a header that `git apply` ignores:

  Search filter: --since excludes memories at exactly that time.      <- the bug, in one line
  # tests: tests/test_ranking.py tests/test_provenance.py               <- the test files to run (default: the fast suite)
  # base: <commit>                                                      <- what it was written against
  # equivalent: <why no caller can tell it from the code>               <- optional: not counted in the rate

Each mutant is applied in a scratch git worktree of HEAD (never in the checkout, which others edit), its tests run
with -x and a time limit, and the worktree put back. A mutant is killed when a test fails or runs past the limit.

  .venv/bin/python scripts/mutants/run.py                               # the newest round, every patch
  .venv/bin/python scripts/mutants/run.py --round scripts/mutants/round-2026-12-02 -k search
  .venv/bin/python scripts/mutants/run.py 07 12 --full --workers 2      # two mutants against the whole fast suite
  .venv/bin/python scripts/mutants/run.py --baseline                    # first check the tests pass without a mutant

Exit status: 0 when every mutant not marked equivalent is killed, 1 otherwise, 2 when a patch does not apply.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PYTHON = ROOT / ".venv" / "bin" / "python"
FAST = ["tests", "-m", "not llama and not slow"]


@dataclass
class Mutant:
    path: Path
    bug: str
    tests: list[str]
    equivalent: str | None

    @property
    def name(self) -> str:
        return self.path.stem


@dataclass
class Result:
    mutant: str
    outcome: str  # killed, survived, equivalent (survived and argued equivalent), timeout (killed), unapplied
    detail: str
    seconds: float


def read_mutant(path: Path) -> Mutant:
    text = path.read_text(encoding="utf-8")
    header = text.split("diff --git", 1)[0]
    lines = [line for line in header.splitlines() if line.strip()]
    if not lines or "diff --git" not in text:
        raise SystemExit(f"{path}: not a patch with a description line")
    tags = dict(re.match(r"#\s*(\w+):\s*(.*)", line).groups() for line in lines if re.match(r"#\s*\w+:", line))
    return Mutant(path, lines[0], tags.get("tests", "").split(), tags.get("equivalent"))


def newest_round() -> Path:
    rounds = sorted(p for p in HERE.glob("round-*") if p.is_dir())
    if not rounds:
        raise SystemExit(f"no round-* folder in {HERE}")
    return rounds[-1]


def git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def make_worktree(where: Path, commit: str) -> None:
    if where.exists():
        git("worktree", "remove", "--force", str(where), cwd=ROOT, check=False)
    git("worktree", "add", "--detach", "--force", str(where), commit, cwd=ROOT)
    found = subprocess.run([str(PYTHON), "-c", "import hymem_cli; print(hymem_cli.__file__)"], cwd=where,
                           env=_env(where), capture_output=True, text=True, check=True).stdout.strip()
    if not Path(found).resolve().is_relative_to((where / "src").resolve()):
        raise SystemExit(f"hymem_cli resolves to {found}, not to the worktree {where}: check PYTHONPATH")


def _env(where: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(where / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("HYMEM_FUZZ_EXAMPLES", "100")
    env["HYMEM_TEST_DERANDOMIZE"] = "1"  # the same examples every run: a mutant is killed by what it changed, not a new draw
    return env


def run_tests(where: Path, tests: list[str], timeout: float, workers: int = 0) -> tuple[str, str]:
    """("passed" | "failed" | "timeout", the first failure or the last line of pytest's output)."""
    args = [str(PYTHON), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", str(workers)]
    args += [*tests, "-m", "not llama and not slow"] if tests else FAST
    try:
        done = subprocess.run(args, cwd=where, env=_env(where), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"ran past {timeout:.0f} s"
    out = done.stdout + done.stderr
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
    last = [line for line in out.splitlines() if line.strip()][-1:] or [""]
    if done.returncode == 0:
        return "passed", last[0]
    if done.returncode == 5:  # no tests collected: a wrong header, not a kill
        return "error", "no tests collected"
    return "failed", failed[0] if failed else last[0]


def reset(where: Path) -> None:
    git("checkout", "-q", "--", ".", cwd=where)
    git("clean", "-fdq", "--", "src", "tests", cwd=where)


def run_one(mutant: Mutant, where: Path, timeout: float, full: bool, workers: int = 0) -> Result:
    start = time.monotonic()
    applied = git("apply", str(mutant.path), cwd=where, check=False)
    if applied.returncode != 0:
        applied = git("apply", "--3way", str(mutant.path), cwd=where, check=False)
        if applied.returncode != 0 or git("diff", "--name-only", "--diff-filter=U", cwd=where).stdout.strip():
            reset(where)
            return Result(mutant.name, "unapplied", applied.stderr.strip().splitlines()[-1] if applied.stderr.strip() else "conflict", 0.0)
    try:
        status, detail = run_tests(where, [] if full else mutant.tests, timeout, workers)
    finally:
        reset(where)
    outcome = {"failed": "killed", "timeout": "timeout", "passed": "survived", "error": "unapplied"}[status]
    if outcome == "survived" and mutant.equivalent:
        outcome, detail = "equivalent", mutant.equivalent
    return Result(mutant.name, outcome, detail, time.monotonic() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("only", nargs="*", help="mutants to run, by number or name (default: all of the round)")
    parser.add_argument("--round", type=Path, help="the folder of patches (default: the newest scripts/mutants/round-*)")
    parser.add_argument("-k", dest="keyword", help="only mutants whose name holds this")
    parser.add_argument("--full", action="store_true", help="run the whole fast suite, not the files a patch names")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per mutant before it counts as killed (default 900)")
    parser.add_argument("--workers", type=int, default=0, help="pytest-xdist workers per run (default 0: one process)")
    parser.add_argument("--worktree", type=Path, default=Path("/tmp/mut-wt"), help="the scratch worktree (default /tmp/mut-wt)")
    parser.add_argument("--commit", default="HEAD", help="the commit to mutate (default HEAD)")
    parser.add_argument("--baseline", action="store_true", help="first run the tests without a mutant: they must pass")
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    args = parser.parse_args(argv)

    folder = args.round or newest_round()
    mutants = [read_mutant(p) for p in sorted(folder.glob("*.patch"))]
    if args.only:
        wanted = [o.zfill(2) if o.isdigit() else o for o in args.only]
        mutants = [m for m in mutants if any(m.name == o or m.name.split("-", 1)[0] == o for o in wanted)]
    if args.keyword:
        mutants = [m for m in mutants if args.keyword in m.name]
    if not mutants:
        raise SystemExit("no mutant chosen")

    make_worktree(args.worktree, args.commit)
    results: list[Result] = []
    try:
        if args.baseline:
            files = [] if args.full else sorted({t for m in mutants for t in m.tests})
            status, detail = run_tests(args.worktree, files, args.timeout * 4, args.workers)
            print(f"baseline: {status} ({detail})", flush=True)
            if status != "passed":
                return 2
        for mutant in mutants:
            result = run_one(mutant, args.worktree, args.timeout, args.full, args.workers)
            results.append(result)
            print(f"{result.outcome:10} {result.mutant:45} {result.seconds:6.0f} s  {result.detail}", flush=True)
    finally:
        git("worktree", "remove", "--force", str(args.worktree), cwd=ROOT, check=False)

    counts = {o: sum(r.outcome == o for r in results) for o in ("killed", "timeout", "survived", "equivalent", "unapplied")}
    counted = len(results) - counts["equivalent"] - counts["unapplied"]
    kills = counts["killed"] + counts["timeout"]
    print(f"\n{len(results)} mutants: {kills} killed ({counts['timeout']} by the time limit), {counts['survived']} survived, "
          f"{counts['equivalent']} equivalent, {counts['unapplied']} not applied; "
          f"{100 * kills / counted if counted else 100:.0f} % of {counted} killed")
    for r in results:
        if r.outcome in ("survived", "unapplied"):
            print(f"  {r.outcome}: {r.mutant}: {next(m.bug for m in mutants if m.name == r.mutant)}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n", encoding="utf-8")
    if counts["unapplied"]:
        return 2
    return 1 if counts["survived"] else 0


if __name__ == "__main__":
    sys.exit(main())
