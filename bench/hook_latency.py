"""Latency of `hymem hook claude-code` as Claude Code sees it: a fresh process per event, the payload on stdin (a script, not a test).

Usage: python bench/hook_latency.py [--runs 5] [--memories 1000] [--embed all-MiniLM-L6-v2]

In a fresh project (`hymem init`) whose bank holds --memories raw messages, times from starting the process to its exit:
- the floor: `python -c pass` and `hymem --version` (interpreter and CLI start-up, no bank);
- SessionStart (the briefing), UserPromptSubmit about a stored fact and about nothing stored (no context), Stop with a
  Claude Code session log (first store, then the same log again: nothing new);
- UserPromptSubmit again while `hymem serve` runs for the project's bank (the search answered by the warm process).
Median and max of --runs runs each; the size of the briefing (characters, about tokens) is printed too.
Every process runs with the caller's HYMEM_* settings dropped and its own HYMEM_HOME (HYMEM_CACHE is kept, so the
embedder's torch-free copies are made once).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HYMEM = [sys.executable, "-m", "hymem_cli"]
SESSION_LOG = ROOT / "tests" / "data" / "claude-code-session.jsonl"
TOPICS = ["the build cache", "the deploy script", "a flaky test", "the API rate limit", "the database index", "the CSS grid",
          "the release notes", "the on-call rota", "the logging format", "the feature flag"]


def process_env(home: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYMEM_") and k != "PYTHONDONTWRITEBYTECODE"}
    cache = os.environ.get("HYMEM_CACHE")
    return {**env, "HYMEM_HOME": str(home), **({"HYMEM_CACHE": cache} if cache else {}), **extra}


def timed(cmd: list[str], env: dict, cwd: Path, stdin: bytes = b"") -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(cmd, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=300)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode()[-2000:]}")
    return elapsed, done.stdout


def payload(event: str, cwd: Path, **extra: object) -> bytes:
    base = {"session_id": "bench", "transcript_path": str(cwd / "session.jsonl"), "cwd": str(cwd), "permission_mode": "default",
            "hook_event_name": event}
    return json.dumps({**base, **extra}).encode("utf-8")


def series(label: str, runs: int, cmd: list[str], env: dict, cwd: Path, stdin: bytes = b"", prepare=None) -> bytes:
    times, out = [], b""
    for _ in range(runs):
        if prepare:
            prepare()
        elapsed, out = timed(cmd, env, cwd, stdin)
        times.append(elapsed * 1000)
    print(f"{label:<46} median {statistics.median(times):7.0f} ms   max {max(times):7.0f} ms   ({runs} runs)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--embed", default="all-MiniLM-L6-v2")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "shop"
        project.mkdir()
        env = process_env(home, HYMEM_EMBED_MODEL=args.embed)
        timed([*HYMEM, "init"], env, project)
        lines = [f"User: Note {n} about {TOPICS[n % len(TOPICS)]}: item {n} stays as it is for now." for n in range(args.memories)]
        lines.append("User: We deploy the shop API on Fly.io, not Heroku, and the health check is /healthz.")
        (project / "chat.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        timed([*HYMEM, "add", "--raw", "chat.txt"], env, project)
        print(f"bank: {args.memories + 1} raw messages, embedder {args.embed}, Python {sys.version.split()[0]}")

        series("python -c pass", args.runs, [sys.executable, "-c", "pass"], env, project)
        series("hymem --version", args.runs, [*HYMEM, "--version"], env, project)
        hook = [*HYMEM, "hook", "claude-code"]
        brief = series("SessionStart (briefing)", args.runs, hook, env, project, payload("SessionStart", project, source="startup"))
        fast = [sys.executable, "-m", "hymem_cli.hooks", "claude-code"]  # what `hymem install` writes: no CLI start-up
        series("  the same, as installed (-m hymem_cli.hooks)", args.runs, fast, env, project, payload("SessionStart", project))
        context = json.loads(brief)["hookSpecificOutput"]["additionalContext"] if brief else ""
        related = payload("UserPromptSubmit", project, prompt="Where do we deploy the shop API?")
        out = series("UserPromptSubmit, a stored fact (cold)", args.runs, hook, env, project, related)
        assert b"Fly.io" in out, out
        out = series("  the same, as installed (-m hymem_cli.hooks)", args.runs, fast, env, project, related)
        assert b"Fly.io" in out, out
        unrelated = payload("UserPromptSubmit", project, prompt="Explain quaternion slerp for the camera rig")
        out = series("UserPromptSubmit, nothing stored (cold)", args.runs, hook, env, project, unrelated)
        print(f"{'':<46} (unrelated prompt answered {'no context' if not out else 'CONTEXT'})")

        log = project / "session.jsonl"
        stop = payload("Stop", project, stop_hook_active=False)
        bank = project / ".hymem" / "bank.db"
        saved = bank.read_bytes()

        def fresh_log() -> None:  # the same new messages each run: restore the bank as it was before the first Stop
            bank.write_bytes(saved)
            for extra in (bank.with_name("bank.db-wal"), bank.with_name("bank.db-shm")):
                extra.unlink(missing_ok=True)
            shutil.copy(SESSION_LOG, log)

        series("Stop, a session log's new messages stored", args.runs, hook, env, project, stop, prepare=fresh_log)
        series("Stop, the same log again (nothing new)", args.runs, hook, env, project, stop)

        server = subprocess.Popen([*HYMEM, "serve"], env=env, cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            line = server.stderr.readline()  # "serving BANK on SOCKET; Ctrl-C stops" once it answers
            if b"serving" not in line:
                raise SystemExit(f"hymem serve did not start: {line.decode()}{server.stderr.read().decode()[-2000:]}")
            out = series("UserPromptSubmit, a stored fact (hymem serve)", args.runs, hook, env, project, related)
            assert b"Fly.io" in out, out

            out = series("  the same, as installed (-m hymem_cli.hooks)", args.runs, fast, env, project, related)
            assert b"Fly.io" in out, out
        finally:
            server.terminate()
            server.wait(timeout=30)
        print(f"briefing: {len(context)} characters (about {len(context) // 4} tokens; hooks.briefing_tokens 1500), "
              f"{sum(1 for line in context.splitlines() if line.startswith('- ['))} memories")


if __name__ == "__main__":
    main()
