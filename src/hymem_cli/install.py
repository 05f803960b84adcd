"""`hymem install claude-code|codex`: wire `hymem mcp` and `hymem hook` into an agent's own settings files, and take them out.

What it adds, and nothing else: one matcher group per hook event whose only hook is hymem's hook for the agent (what
`hymem hook AGENT` runs, started as `PYTHON -m hymem_cli.hooks AGENT`), and an MCP server named hymem running
`hymem mcp`. A second install finds them there and changes nothing; a server named hymem the user made is left alone.
The user's instruction files (CLAUDE.md, AGENTS.md) are never touched.

- Claude Code (code.claude.com/docs/en/hooks, Claude Code 2.x): hooks in `~/.claude/settings.json` or the project's
  `.claude/settings.json` (SessionStart, UserPromptSubmit: answered at once; Stop, PreCompact, SessionEnd: `async`, in
  the background); the server as `mcpServers.hymem` in `~/.claude.json` or the project's `.mcp.json`.
- Codex (developers.openai.com/codex/hooks and /codex/mcp, as documented in May 2026): hooks in `~/.codex/hooks.json`
  or the project's `.codex/hooks.json`, the same shape, for SessionStart, UserPromptSubmit, Stop and PreCompact (Codex
  has no SessionEnd and runs hooks in the foreground: capture only stores and queues, so it is quick); the server as a
  `[mcp_servers.hymem]` table appended to `~/.codex/config.toml` or the project's `.codex/config.toml`, as text, so the
  user's comments and layout stay as they were.

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

AGENTS = ("claude-code", "codex")
# event: does the agent run it in the background (`async`)? Codex documents no background hooks.
HOOK_EVENTS = {
    "claude-code": {"SessionStart": False, "UserPromptSubmit": False, "Stop": True, "PreCompact": True, "SessionEnd": True},
    "codex": {"SessionStart": False, "UserPromptSubmit": False, "Stop": False, "PreCompact": False},
}
CAPTURE = ("Stop", "PreCompact", "SessionEnd")
TIMEOUT = {False: 10, True: 120}  # seconds the agent allows the hook: answers must be quick; capture may load the embedder
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
        raise UsageError(f"cannot install for {agent!r}", hint=f"use one of: {', '.join(AGENTS)}")
    home = Path(os.environ.get("HOME") or Path.home())
    if agent == "codex":
        folder = (project or home) / ".codex"
        return folder / "hooks.json", folder / "config.toml"
    if project is not None:
        return project / ".claude" / "settings.json", project / ".mcp.json"
    return home / ".claude" / "settings.json", home / ".claude.json"


def install(agent: str, project: Path | None = None) -> list[Change]:
    """Add hymem's hooks and server; each file is read and checked before any is written."""
    settings, servers = paths(agent, project)
    command = hymem_command()
    edits = [(settings, lambda doc: _add_hooks(doc, agent, hook_command(agent)), Json),
             (servers, lambda doc: _add_toml_server(doc, command), Toml) if agent == "codex" else
             (servers, lambda doc: _add_server(doc, command), Json)]
    for path, change, fmt in edits:
        change(_read(path, fmt)[1])  # a file that cannot take its entry stops the install before anything is written
    return [_edit(path, change, fmt=fmt) for path, change, fmt in edits]


def uninstall(agent: str, project: Path | None = None) -> list[Change]:
    settings, servers = paths(agent, project)
    # The server first: the hooks' file was written first, so it is the one whose record says install made the folder.
    server = _edit(servers, _remove_toml_server, undo=True, fmt=Toml) if agent == "codex" else _edit(servers, _remove_server, undo=True)
    return [_edit(settings, lambda doc: _remove_hooks(doc, agent), undo=True), server]


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


def _add_hooks(doc: dict, agent: str, command: str) -> str | None:
    hooks = doc.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError("the settings' \"hooks\" is not an object", hint="fix the file by hand, then install again")
    added = []
    for event, background in HOOK_EVENTS[agent].items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f"the settings' hooks.{event} is not a list", hint="fix the file by hand, then install again")
        if any(_ours(g, agent) for g in groups):
            continue
        hook = {"type": "command", "command": command, "timeout": TIMEOUT[background or event in CAPTURE]}
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
    for event in HOOK_EVENTS[agent]:
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


MARK = "# hymem's MCP server (`hymem install codex`; `hymem install codex --uninstall` takes it out)"


def _add_toml_server(doc: TomlText, command: str) -> str | None:
    """Append a `[mcp_servers.hymem]` table to Codex's config.toml, unless a server of that name is there."""
    import tomli_w

    servers = doc.doc.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{doc.path}: mcp_servers is not a table", hint="fix the file by hand, then install again")
    if SERVER in servers:
        return None  # ours already, or one the user made: theirs to keep
    program = shlex.split(command)
    table = tomli_w.dumps({"mcp_servers": {SERVER: {"command": program[0], "args": [*program[1:], "mcp"]}}})
    text = doc.text
    if text and not text.endswith("\n"):
        text += "\n"
    added = TomlText(doc.path, text + ("\n" if text.strip() else "") + MARK + "\n" + table)
    try:
        fits = added.doc.get("mcp_servers", {}).get(SERVER) is not None
    except ConfigError:
        fits = False
    if not fits:  # e.g. mcp_servers written inline: a table of it cannot be added below
        raise ConfigError(f"{doc.path}: cannot add [mcp_servers.{SERVER}] after the file's own mcp_servers",
                          hint=f"add it by hand: command = {json.dumps(program[0])}, args = {json.dumps([*program[1:], 'mcp'])}")
    doc.text = added.text
    return f"added MCP server {SERVER} ({command} mcp)"


def _remove_toml_server(doc: TomlText) -> str | None:
    """Cut the table install appended (its header line, the line of MARK above it, its keys) out of the text."""
    entry = doc.doc.get("mcp_servers", {}).get(SERVER)
    if not (isinstance(entry, dict) and set(entry) == {"command", "args"} and _is_our_server({"type": "stdio", **entry})):
        return None
    lines = doc.text.splitlines(keepends=True)
    header = next((i for i, line in enumerate(lines) if line.strip() == f"[mcp_servers.{SERVER}]"), None)
    if header is None:
        return None  # written in another form than install's: the user's own
    end = next((i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    while end > header + 1 and not lines[end - 1].strip():
        end -= 1  # blank lines before the next table are the user's
    start = header - 1 if header and lines[header - 1].rstrip("\n") == MARK else header
    if start and not lines[start - 1].strip():
        start -= 1  # the blank line install put before it
    doc.text = "".join(lines[:start] + lines[end:])
    return f"removed MCP server {SERVER}"


# -- the files --------------------------------------------------------------------------------


def _record(path: Path) -> Path:
    """Where the first state of `path` (before any install changed it) is kept."""
    digest = hashlib.blake2b(str(path.absolute()).encode("utf-8"), digest_size=12).hexdigest()
    return config.data_dir() / "installed" / f"{digest}.json"


class Json:
    """A JSON settings file: parsed to an object, written back indented as it was."""

    @staticmethod
    def parse(path: Path, text: str) -> dict:
        try:
            doc = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            raise ConfigError(f"cannot read {path} as JSON ({exc})", hint="fix the file by hand, then run this again") from None
        if not isinstance(doc, dict):
            raise ConfigError(f"{path} does not hold a JSON object", hint="fix the file by hand, then run this again")
        return doc

    @staticmethod
    def dump(doc: dict, before: bytes | None) -> bytes:
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

    @staticmethod
    def same(original: str, doc: dict) -> bool:
        try:
            return json.loads(original) == doc if original.strip() else doc == {}
        except json.JSONDecodeError:
            return False


@dataclass
class TomlText:
    """A TOML file kept as its text (edits append or cut whole tables, so comments and layout stay), and what it holds."""

    path: Path
    text: str

    @property
    def doc(self) -> dict:
        import tomllib

        try:
            return tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"cannot read {self.path} as TOML ({exc})", hint="fix the file by hand, then run this again") from None


class Toml:
    @staticmethod
    def parse(path: Path, text: str) -> TomlText:
        done = TomlText(path, text)
        done.doc  # noqa: B018 - refused now if it is not TOML, before anything changes
        return done

    @staticmethod
    def dump(doc: TomlText, before: bytes | None) -> bytes:
        return doc.text.encode("utf-8")

    @staticmethod
    def same(original: str, doc: TomlText) -> bool:
        try:
            return TomlText(doc.path, original).doc == doc.doc
        except ConfigError:
            return False


def _read(path: Path, fmt: type[Json] | type[Toml] = Json):
    """(the file's bytes or None, its parsed document)."""
    before = path.read_bytes() if path.exists() else None
    try:
        text = before.decode("utf-8") if before else ""
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {path} as UTF-8 ({exc})", hint="fix the file by hand, then run this again") from None
    return before, fmt.parse(path, text)


def _edit(path: Path, change, undo: bool = False, fmt: type[Json] | type[Toml] = Json) -> Change:
    """Apply `change` (which edits the parsed document and says what it did) to the settings file `path`; write only
    when it did something. An undo that leaves what the file first held writes its first bytes back."""
    before, doc = _read(path, fmt)
    what = change(doc)
    if what is None:
        return Change(path, None)
    record = _record(path)
    if not undo:
        if not record.exists():
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(json.dumps({"path": str(path.absolute()), "made_folder": not path.parent.exists(),
                                          "original": None if before is None else before.decode("utf-8")}), encoding="utf-8")
        _write(path, fmt.dump(doc, before))
        return Change(path, what)
    first = json.loads(record.read_text(encoding="utf-8")) if record.exists() else None
    if first is not None and first["original"] is None and fmt.same("", doc):
        path.unlink()
        if first.get("made_folder") and not any(path.parent.iterdir()):
            path.parent.rmdir()  # made for this file, and holding nothing else
    elif first is not None and first["original"] is not None and fmt.same(first["original"], doc):
        _write(path, first["original"].encode("utf-8"))
    else:
        _write(path, fmt.dump(doc, before))
    record.unlink(missing_ok=True)
    return Change(path, what)


def _write(path: Path, data: bytes) -> None:
    """Replace `path` whole (a crash leaves the old file or the new one, never half of one), keeping its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.hymem-{os.getpid()}")
    tmp.write_bytes(data)
    if path.exists():
        os.chmod(tmp, path.stat().st_mode & 0o7777)
    os.replace(tmp, path)
