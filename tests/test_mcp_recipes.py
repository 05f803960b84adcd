"""The README's agent recipes work as printed: each snippet parses (TOML, JSON, a shell line), and the command it names
starts a `hymem mcp` that the MCP SDK's client can talk to; the Claude Code Stop hook adds the session it is given."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is an extra: pip install 'hymem[mcp]'")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## Memory for coding agents")[1].split("\n## ")[0]
BIN = Path(sys.executable).parent


def block(lang: str, after: str) -> str:
    """The first ```lang block after the words `after` in the agents section."""
    return re.search(r"```" + lang + r"\n(.*?)```", SECTION[SECTION.index(after):], re.S).group(1)


def recipes() -> dict[str, list[str]]:
    """Each client's server command line, as its recipe gives it."""
    claude = next(line for line in block("sh", "Claude Code").splitlines() if line.startswith("claude mcp add"))
    codex = tomllib.loads(block("toml", "~/.codex/config.toml"))["mcp_servers"]["hymem"]
    cursor = json.loads(block("json", ".cursor/mcp.json"))["mcpServers"]["hymem"]
    return {
        "claude": shlex.split(claude.split(" -- ", 1)[1]),
        "codex": [codex["command"], *codex["args"]],
        "cursor": [cursor["command"], *cursor["args"]],
    }


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYMEM_") or k == "HYMEM_CACHE"}
    return {**env, "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", "HYMEM_HOME": str(home), "HYMEM_EMBED_MODEL": "hash"}


def test_every_recipe_names_the_same_server():
    assert recipes() == {"claude": ["hymem", "mcp"], "codex": ["hymem", "mcp"], "cursor": ["hymem", "mcp"]}


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude", "codex", "cursor"])
def test_the_command_a_recipe_names_serves_search_add_and_history(client, tmp_path):
    command, *args = recipes()[client]
    env = env_for(tmp_path / "home")
    found = shutil.which(command, path=env["PATH"])
    assert found, f"{command} is not on PATH"
    params = StdioServerParameters(command=found, args=args, env=env, cwd=str(tmp_path))

    async def session():
        async with Client(params) as client_:
            names = {t.name for t in (await client_.list_tools()).tools}
            added = await client_.call_tool("add_memory", {"text": f"The {client} recipe works."})
            history = await client_.call_tool("memory_history", {"memory_id": "m1"})
            return names, added, history

    names, added, history = asyncio.run(session())
    assert {"search_memory", "add_memory", "memory_history"} <= names
    assert not added.is_error and history.structured_content["versions"][0]["text"] == f"The {client} recipe works."


@pytest.mark.slow
def test_the_stop_hook_adds_the_session_once(tmp_path):
    """The hook's command with the JSON Claude Code gives a Stop hook on stdin, twice: the first stores the messages and
    queues them without calling the writer, the second adds nothing; `hymem write` then writes the fact once."""
    hook = json.loads(block("json", "Stop"))["hooks"]["Stop"][0]["hooks"][0]
    assert hook["type"] == "command"
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    session = tmp_path / "7c1f2e9a.jsonl"
    shutil.copy(ROOT / "tests" / "data" / "claude-code-session.jsonl", session)
    project = tmp_path / "shop"
    env = env_for(tmp_path / "home")
    assert subprocess.run([BIN / "hymem", "init", str(project)], env=env, capture_output=True).returncode == 0
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"operations": [{"op": "add", "text": "Alex prefers pytest.", "evidence": "I prefer pytest"}]}) + "\n")
    env |= {"HYMEM_WRITER_BACKEND": "scripted", "HYMEM_WRITER_MODEL": str(replies)}
    payload = json.dumps({"session_id": "7c1f2e9a", "transcript_path": str(session), "cwd": str(project), "hook_event_name": "Stop",
                          "stop_hook_active": False})
    for _ in range(2):
        done = subprocess.run(["bash", "-c", hook["command"]], input=payload, cwd=project, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    log = subprocess.run([BIN / "hymem", "log", "-f", "json"], cwd=project, env=env, capture_output=True, text=True)
    revisions = json.loads(log.stdout)
    assert len(revisions) == 1 and revisions[0]["counts"]["added"] == 0 and revisions[0]["counts"]["messages_stored"] > 0
    written = subprocess.run([BIN / "hymem", "write"], cwd=project, env=env, capture_output=True, text=True)
    assert written.returncode == 0, written.stderr
    log = subprocess.run([BIN / "hymem", "log", "-f", "json"], cwd=project, env=env, capture_output=True, text=True)
    revisions = json.loads(log.stdout)
    assert len(revisions) == 2 and revisions[0]["command"] == "write" and revisions[0]["counts"]["added"] == 1  # into the project's bank
