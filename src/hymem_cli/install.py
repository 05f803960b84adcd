"""`hymem install claude-code`: wire `hymem mcp` and `hymem hook` into Claude Code's own settings files, and take them out.

What it adds, and nothing else: one matcher group per hook event (SessionStart, UserPromptSubmit: answered at once;
Stop, PreCompact, SessionEnd: run in the background, `async`) whose only hook is hymem's hook for Claude Code (what
`hymem hook claude-code` runs, started as `PYTHON -m hymem_cli.hooks claude-code`), in
`~/.claude/settings.json` (user scope) or `.claude/settings.json` (project scope); and an `mcpServers.hymem` entry running
`hymem mcp`, in `~/.claude.json` (user scope) or `.mcp.json` (project scope). A second install finds them there and
changes nothing; an `mcpServers.hymem` the user made is left alone. The user's instruction files (CLAUDE.md) are never
touched.

A file's first state is kept in hymem's data directory when it is first changed, so that an uninstall that leaves the
file holding what it held before writes those very bytes back (or removes a file install created); a file the user
changed since keeps those changes, with only hymem's entries taken out.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from hymem_cli import config
from hymem_cli._errors import ConfigError, UsageError

AGENTS = ("claude-code",)
HOOK_EVENTS = {"SessionStart": False, "UserPromptSubmit": False, "Stop": True, "PreCompact": True, "SessionEnd": True}  # event: async
TIMEOUT = {False: 10, True: 120}  # seconds Claude Code allows the hook: answers must be quick; capture runs in the background
SERVER = "hymem"


@dataclass
class Change:
    """What install or uninstall did to one file: `what` it added or removed, or None when it changed nothing."""

    path: Path
    what: str | None


def hook_command(agent: str) -> str:
    """The hook as the agent runs it: this Python running hymem's hook module directly (no PATH needed, and without the
    CLI's start-up: every prompt waits for it)."""
    return f"{shlex.quote(sys.executable)} -m hymem_cli.hooks {agent}"


def hymem_command() -> str:
    """How the agent starts hymem: `hymem` when it is on PATH, else this Python running the package."""
    if shutil.which("hymem"):
        return "hymem"
    running = Path(sys.argv[0])
    if running.name == "hymem" and running.exists():  # a virtual environment's script, not on the agent's PATH
        return shlex.quote(str(running.absolute()))
    return f"{shlex.quote(sys.executable)} -m hymem_cli"


def paths(agent: str, project: Path | None) -> tuple[Path, Path]:
    """(the settings file that holds hooks, the file that holds MCP servers) for user scope, or `project`'s."""
    if agent not in AGENTS:
        raise UsageError(f"cannot install for {agent!r} yet",
                         hint=f"use one of: {', '.join(AGENTS)}; for Codex, see the README's manual recipe")
    if project is not None:
        return project / ".claude" / "settings.json", project / ".mcp.json"
    home = Path(os.environ.get("HOME") or Path.home())
    return home / ".claude" / "settings.json", home / ".claude.json"


def install(agent: str, project: Path | None = None) -> list[Change]:
    settings, servers = paths(agent, project)
    command = hymem_command()
    return [_edit(settings, lambda doc: _add_hooks(doc, hook_command(agent))),
            _edit(servers, lambda doc: _add_server(doc, command))]


def uninstall(agent: str, project: Path | None = None) -> list[Change]:
    settings, servers = paths(agent, project)
    return [_edit(settings, lambda doc: _remove_hooks(doc, agent), undo=True), _edit(servers, _remove_server, undo=True)]


# -- the entries ------------------------------------------------------------------------------


def _ours(group: object, agent: str) -> bool:
    """A matcher group install added: its one hook is a command running hymem's hook for `agent`."""
    if not isinstance(group, dict) or set(group) - {"hooks"} or not isinstance(group.get("hooks"), list) or len(group["hooks"]) != 1:
        return False
    hook = group["hooks"][0]
    command = hook.get("command") if isinstance(hook, dict) else None
    if not isinstance(command, str):
        return False
    return command.endswith(f" -m hymem_cli.hooks {agent}") or (command.endswith(f" hook {agent}") and "hymem" in command)


def _add_hooks(doc: dict, command: str) -> str | None:
    agent = command.rsplit(" ", 1)[1]
    hooks = doc.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError("the settings' \"hooks\" is not an object", hint="fix the file by hand, then install again")
    added = []
    for event, background in HOOK_EVENTS.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f"the settings' hooks.{event} is not a list", hint="fix the file by hand, then install again")
        if any(_ours(g, agent) for g in groups):
            continue
        hook = {"type": "command", "command": command, "timeout": TIMEOUT[background]}
        if background:
            hook["async"] = True
        groups.append({"hooks": [hook]})
        added.append(event)
    return f"added hooks {', '.join(added)} ({command})" if added else None


def _remove_hooks(doc: dict, agent: str) -> str | None:
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return None
    removed = []
    for event in HOOK_EVENTS:
        groups = hooks.get(event)
        if not isinstance(groups, list) or not any(_ours(g, agent) for g in groups):
            continue
        kept = [g for g in groups if not _ours(g, agent)]
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
        removed.append(event)
    if not hooks:
        del doc["hooks"]
    return f"removed hooks {', '.join(removed)}" if removed else None


def _server(command: str) -> dict:
    *program, = shlex.split(command)
    return {"type": "stdio", "command": program[0], "args": [*program[1:], "mcp"]}


def _is_our_server(entry: object) -> bool:
    if not isinstance(entry, dict) or set(entry) != {"type", "command", "args"}:
        return False
    if entry["type"] != "stdio" or not isinstance(entry["args"], list) or not isinstance(entry["command"], str):
        return False
    return entry["args"][-1:] == ["mcp"] and (Path(entry["command"]).name == "hymem" or entry["args"][-3:] == ["-m", "hymem_cli", "mcp"])


def _add_server(doc: dict, command: str) -> str | None:
    servers = doc.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError("the file's \"mcpServers\" is not an object", hint="fix the file by hand, then install again")
    if SERVER in servers:
        return None  # ours already, or one the user made: theirs to keep
    servers[SERVER] = _server(command)
    return f"added MCP server {SERVER} ({command} mcp)"


def _remove_server(doc: dict) -> str | None:
    servers = doc.get("mcpServers")
    if not isinstance(servers, dict) or not _is_our_server(servers.get(SERVER)):
        return None
    del servers[SERVER]
    if not servers:
        del doc["mcpServers"]
    return f"removed MCP server {SERVER}"


# -- the files --------------------------------------------------------------------------------


def _record(path: Path) -> Path:
    """Where the first state of `path` (before any install changed it) is kept."""
    digest = hashlib.blake2b(str(path.absolute()).encode("utf-8"), digest_size=12).hexdigest()
    return config.data_dir() / "installed" / f"{digest}.json"


def _edit(path: Path, change, undo: bool = False) -> Change:
    """Apply `change` (which edits the parsed document and says what it did) to the JSON file `path`; write only when it
    did something. An undo that leaves what the file first held writes its first bytes back."""
    before = path.read_bytes() if path.exists() else None
    try:
        doc = json.loads(before.decode("utf-8")) if before and before.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read {path} as JSON ({exc})", hint="fix the file by hand, then run this again") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{path} does not hold a JSON object", hint="fix the file by hand, then run this again")
    what = change(doc)
    if what is None:
        return Change(path, None)
    record = _record(path)
    if not undo:
        if not record.exists():
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(json.dumps({"path": str(path.absolute()), "made_folder": not path.parent.exists(),
                                          "original": None if before is None else before.decode("utf-8")}), encoding="utf-8")
        _write(path, _dumps(doc, before))
        return Change(path, what)
    first = json.loads(record.read_text(encoding="utf-8")) if record.exists() else None
    if first is not None and first["original"] is None and not doc:
        path.unlink()
        if first.get("made_folder") and not any(path.parent.iterdir()):
            path.parent.rmdir()  # made for this file, and holding nothing else
    elif first is not None and first["original"] is not None and _same(first["original"], doc):
        _write(path, first["original"].encode("utf-8"))
    else:
        _write(path, _dumps(doc, before))
    record.unlink(missing_ok=True)
    return Change(path, what)


def _same(original: str, doc: dict) -> bool:
    try:
        return json.loads(original) == doc if original.strip() else doc == {}
    except json.JSONDecodeError:
        return False


def _dumps(doc: dict, before: bytes | None) -> bytes:
    """`doc` as JSON, indented as the file was (two spaces for a new one), ending as it ended."""
    indent: int | str = 2
    if before:
        for line in before.decode("utf-8").splitlines()[1:]:
            stripped = line.lstrip()
            if stripped and line != stripped:
                lead = line[: len(line) - len(stripped)]
                indent = lead if "\t" in lead else len(lead)
                break
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    newline = before is None or before.endswith(b"\n")
    return (text + ("\n" if newline else "")).encode("utf-8")


def _write(path: Path, data: bytes) -> None:
    """Replace `path` whole (a crash leaves the old file or the new one, never half of one), keeping its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.hymem-{os.getpid()}")
    tmp.write_bytes(data)
    if path.exists():
        os.chmod(tmp, path.stat().st_mode & 0o7777)
    os.replace(tmp, path)
