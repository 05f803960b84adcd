"""Agent hooks (`hymem hook claude-code|codex`): an agent's hook event in, what the agent should be told out, never a failure.

Claude Code (and Codex, whose hooks follow the same shape) runs a command hook with one JSON object on stdin: the
event (`hook_event_name`), `session_id`, `transcript_path`, `cwd`, and `source` (SessionStart) or `prompt`
(UserPromptSubmit). What a command prints as `{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`
becomes context for the agent. Here:

- SessionStart: a briefing (Memory.briefing) within hooks.briefing_tokens;
- UserPromptSubmit: the memories relevant to the prompt (Memory.recall, the search's relevance floor applied) within
  hooks.recall_tokens; nothing at all for a prompt nothing relevant answers;
- Stop, PreCompact, SessionEnd: the session log's new messages stored at once and their chunks queued for the writer
  (Memory.capture); no writer is waited for.

The hook runs in the payload's `cwd`, so the bank is chosen as any command there would choose it (an untrusted project's
bank is refused). Whatever goes wrong (bad JSON, a refused bank, a broken file) is one line in hooks.log in hymem's data
directory, and the agent gets no context: a hook never blocks or fails the agent's turn.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from hymem_cli import config

# The agents whose hook payloads this reads, and the format of their session logs (ingest/readers.py).
AGENTS = {"claude-code": "claude-code", "codex": "codex"}
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit")
CAPTURE_EVENTS = ("Stop", "PreCompact", "SessionEnd")
EVENTS = CONTEXT_EVENTS + CAPTURE_EVENTS
LOG_NAME = "hooks.log"


def log_path() -> Path:
    return config.data_dir() / LOG_NAME


def respond(agent: str, stdin: bytes | str) -> str:
    """What the hook prints for `stdin` (the agent's payload): the agent's output object, or "" (no context). Never raises:
    an error is logged (`log_path`) and answered with ""."""
    event, cwd = "?", None
    try:
        payload = _payload(stdin)
        event, cwd = str(payload.get("hook_event_name") or "?"), payload.get("cwd")
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r} (use one of: {', '.join(AGENTS)})")
        if event not in EVENTS:
            return ""  # an event hymem was not installed for: nothing to do, nothing to report
        where = Path(cwd) if isinstance(cwd, str) and cwd else Path.cwd()
        with contextlib.chdir(where):
            context = handle(agent, event, payload)
        if not context:
            return ""
        return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}, ensure_ascii=False)
    except BaseException as exc:  # noqa: BLE001 - a hook answers the agent whatever happens; the log says what it was
        _log(agent, event, cwd, exc)
        return ""


def handle(agent: str, event: str, payload: dict) -> str:
    """The context for one event of `agent` (raises on failure); run in the payload's cwd."""
    from hymem_cli.memory import Memory

    with Memory.start() as memory:
        if event == "SessionStart":
            return memory.briefing(memory.settings.hooks.briefing_tokens)[0]
        if event == "UserPromptSubmit":
            prompt = payload.get("prompt")
            if not isinstance(prompt, str):
                raise ValueError("UserPromptSubmit payload has no prompt string")
            return memory.recall(prompt, memory.settings.hooks.recall_tokens)[0]
        transcript = payload.get("transcript_path")
        if transcript is None:
            return ""  # a session with no log on disk (Codex documents the field as nullable): nothing to store
        if not isinstance(transcript, str) or not transcript:
            raise ValueError(f"{event} payload has no transcript_path")
        memory.capture(str(Path(transcript).expanduser()), AGENTS[agent])
        return ""


def recent_errors(days: int = 7, limit: int = 3) -> dict:
    """What `hymem status` shows of the hooks' log: how many failures in the last `days` days, and the latest `limit`."""
    cutoff = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - days * 86400))
    try:
        lines = log_path().read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    recent = [line for line in lines if line[:20] >= cutoff]  # each line starts with its UTC time: text order is time order
    return {"days": days, "count": len(recent), "latest": recent[-limit:]}


def _payload(stdin: bytes | str) -> dict:
    text = stdin.decode("utf-8") if isinstance(stdin, bytes) else stdin
    payload = json.loads(text)
    if not isinstance(payload, dict):
        raise ValueError(f"the hook payload is a JSON {type(payload).__name__}, not an object")
    return payload


def _log(agent: str, event: str, cwd: object, exc: BaseException) -> None:
    """One line per failure, appended; a log that cannot be written is given up on (the agent's turn matters more)."""
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    hint = getattr(exc, "hint", None)
    line = (f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} hook {agent} {event} cwd={cwd}: {type(exc).__name__}: {message}"
            + (f" (hint: {hint})" if hint else ""))
    line = " ".join(line.split())  # one line, whatever the message held
    with contextlib.suppress(Exception):
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as log:
            log.write(line + "\n")


def main(argv: list[str] | None = None) -> None:
    """`python -m hymem_cli.hooks AGENT`: the hook without the CLI's start-up (about 150 ms less); `hymem install` writes it."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    answer = respond(args[0] if args else "?", sys.stdin.buffer.read())
    if answer:
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
