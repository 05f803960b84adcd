"""`hymem install claude-code|codex`: wire hymem's MCP server and hooks into an agent's settings (user or project scope)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hymem_cli import _output
from hymem_cli import install as installer
from hymem_cli.commands._options import FormatOpt

COLUMNS = [("file", "file"), ("change", "change")]


def install(
    agent: Annotated[str, typer.Argument(help="The agent to wire hymem into: claude-code or codex.", show_default=False)],
    project: Annotated[bool, typer.Option("--project", help=(
        "This project's files (.claude/settings.json and .mcp.json; for codex .codex/hooks.json and .codex/config.toml) "
        "instead of your user's (~/.claude/settings.json and ~/.claude.json; ~/.codex/hooks.json and ~/.codex/config.toml)."))] = False,
    uninstall: Annotated[bool, typer.Option("--uninstall", help="Take out exactly what install added.")] = False,
    fmt: FormatOpt = None,
) -> None:
    """Wire hymem's MCP server and hooks into Claude Code's or Codex's settings, and print each file's change.

    Adds a SessionStart hook (a briefing of the project's memories), a UserPromptSubmit hook (the memories
    relevant to each prompt), hooks that store the session log when a turn stops or the context is compacted
    (Stop, PreCompact, and for Claude Code SessionEnd, in the background there), and an MCP server named hymem.
    Claude Code: ~/.claude/settings.json and ~/.claude.json, or with --project .claude/settings.json and .mcp.json.
    Codex: ~/.codex/hooks.json and a [mcp_servers.hymem] table appended to ~/.codex/config.toml, or with
    --project the same files under .codex/ (Codex asks you to review and trust new hooks before they run).
    A second run changes nothing; everything else in the files is kept; an MCP server named hymem that you
    made is left as it is. --uninstall takes out what install added, and a file nobody else changed since gets
    its first bytes back. CLAUDE.md and AGENTS.md are never touched.

    Examples:

      hymem install claude-code --project && jq -r '.hooks | keys[]' .claude/settings.json

      hymem install codex -f jsonl | jq -r 'select(.change != "unchanged") | .file'

      hymem install claude-code --project --uninstall
    """
    root = Path.cwd() if project else None
    changes = installer.uninstall(agent, root) if uninstall else installer.install(agent, root)
    records = [{"file": str(c.path), "change": c.what or "unchanged"} for c in changes]
    _output.emit(records, fmt, COLUMNS, plain=lambda r: f"{r['file']}: {r['change']}")
