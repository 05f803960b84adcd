"""`hymem install claude-code`: the hooks and the MCP server wired into Claude Code's settings files of a fake HOME (user
scope) or a project, idempotently, with the user's content kept and an uninstall that gives the files back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hymem_cli import install as installer

# A user's own settings, formatted as a person formats them (four spaces, a compact line, no final newline).
USER_SETTINGS = (b'{\n    "model": "opus",\n    "permissions": {"allow": ["Bash(npm test)"]},\n    "hooks": {\n        "Stop": [\n'
                 b'            {"hooks": [{"type": "command", "command": "notify-send done"}]}\n        ]\n    }\n}')
USER_CLAUDE_JSON = b'{\n  "numStartups": 42,\n  "mcpServers": {\n    "github": {"type": "stdio", "command": "gh-mcp", "args": []}\n  }\n}\n'
CLAUDE_MD = b"# Project rules\n\nUse tabs.\n"


@pytest.fixture
def fake_home(home, tmp_path, monkeypatch) -> Path:
    user = tmp_path / "user"
    (user / ".claude").mkdir(parents=True)
    (user / ".claude" / "settings.json").write_bytes(USER_SETTINGS)
    (user / ".claude.json").write_bytes(USER_CLAUDE_JSON)
    (user / ".claude" / "CLAUDE.md").write_bytes(CLAUDE_MD)
    monkeypatch.setenv("HOME", str(user))
    return user


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "CLAUDE.md").write_bytes(CLAUDE_MD)
    monkeypatch.chdir(root)
    return root


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def hook_commands(settings: dict) -> dict[str, list[str]]:
    return {event: [h["command"] for g in groups for h in g["hooks"]] for event, groups in settings["hooks"].items()}


def test_user_scope_install_keeps_the_users_content_and_a_second_run_changes_nothing(cli, fake_home, project):
    before = files(fake_home)
    first = cli("install", "claude-code", "-f", "jsonl")
    assert first.exit_code == 0, first.stderr
    assert [r["change"] != "unchanged" for r in first.jsonl()] == [True, True]
    settings = json.loads((fake_home / ".claude" / "settings.json").read_text())
    assert settings["model"] == "opus" and settings["permissions"] == {"allow": ["Bash(npm test)"]}
    commands = hook_commands(settings)
    assert set(commands) == set(installer.HOOK_EVENTS["claude-code"])
    ours = installer.hook_command("claude-code")
    assert ours.endswith(" -m hymem_cli.hooks claude-code")
    assert commands["Stop"] == ["notify-send done", ours]  # theirs first, kept
    assert all(c == [ours] for e, c in commands.items() if e != "Stop")
    stop = settings["hooks"]["Stop"][1]["hooks"][0]
    assert stop["async"] is True and "async" not in settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    servers = json.loads((fake_home / ".claude.json").read_text())
    assert servers["numStartups"] == 42 and servers["mcpServers"]["github"]["command"] == "gh-mcp"
    assert servers["mcpServers"]["hymem"]["args"][-1] == "mcp"

    installed = files(fake_home)
    second = cli("install", "claude-code", "-f", "jsonl")
    assert [r["change"] for r in second.jsonl()] == ["unchanged", "unchanged"]
    assert files(fake_home) == installed
    assert installed[".claude/CLAUDE.md"] == CLAUDE_MD == before[".claude/CLAUDE.md"]
    assert files(project) == {"CLAUDE.md": CLAUDE_MD}  # user scope writes nothing into the project

    removed = cli("install", "claude-code", "--uninstall", "-f", "jsonl")
    assert removed.exit_code == 0 and all(r["change"].startswith("removed") for r in removed.jsonl())
    assert files(fake_home) == before  # byte for byte
    again = cli("install", "claude-code", "--uninstall", "-f", "jsonl")
    assert [r["change"] for r in again.jsonl()] == ["unchanged", "unchanged"]


def test_project_scope_install_twice_then_uninstall_leaves_the_project_as_it_was(cli, fake_home, project):
    before, home_before = files(project), files(fake_home)
    assert cli("install", "claude-code", "--project").exit_code == 0
    installed = files(project)
    assert set(installed) == {"CLAUDE.md", ".claude/settings.json", ".mcp.json"}
    assert json.loads(installed[".mcp.json"])["mcpServers"]["hymem"]["type"] == "stdio"
    assert cli("install", "claude-code", "--project").exit_code == 0
    assert files(project) == installed
    assert files(fake_home) == home_before  # the user's files are not the project's
    assert cli("install", "claude-code", "--project", "--uninstall").exit_code == 0
    assert files(project) == before
    assert not (project / ".claude").exists()  # the folder install made is gone too


def test_uninstall_keeps_what_the_user_changed_since_and_takes_out_only_hymems_entries(cli, fake_home, project):
    assert cli("install", "claude-code").exit_code == 0
    path = fake_home / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    settings["theme"] = "dark"
    path.write_text(json.dumps(settings, indent=4))
    assert cli("install", "claude-code", "--uninstall").exit_code == 0
    after = json.loads(path.read_text())
    assert after == {**json.loads(USER_SETTINGS), "theme": "dark"}


def test_an_mcp_server_named_hymem_that_the_user_made_is_left_alone(cli, fake_home, project):
    own = {"mcpServers": {"hymem": {"command": "/opt/hymem/bin/hymem", "args": ["mcp", "--bank", "/data/work.db"]}}}
    (project / ".mcp.json").write_text(json.dumps(own))
    before = (project / ".mcp.json").read_bytes()
    result = cli("install", "claude-code", "--project", "-f", "jsonl")
    assert [r["change"] for r in result.jsonl()][1] == "unchanged"
    assert cli("install", "claude-code", "--project", "--uninstall").exit_code == 0
    assert (project / ".mcp.json").read_bytes() == before


def test_a_settings_file_that_is_not_json_is_refused_and_left_as_it_is(cli, fake_home, project):
    path = fake_home / ".claude" / "settings.json"
    path.write_bytes(b"{ oops")
    result = cli("install", "claude-code")
    assert result.exit_code != 0 and "cannot read" in result.stderr
    assert path.read_bytes() == b"{ oops"


def test_an_agent_hymem_cannot_wire_is_refused(cli, fake_home, project):
    result = cli("install", "cursor")
    assert result.exit_code != 0 and "cannot install for 'cursor'" in result.stderr and "claude-code, codex" in result.stderr
    assert not (project / ".codex").exists() and not (project / ".claude").exists()


# -- Codex: hooks.json as Claude Code's, the server as a TOML table appended to config.toml --------------------------------

# A user's Codex config as a person writes it: comments, a profile, a server of their own, no final newline.
USER_CODEX_TOML = (b'# my Codex settings\nmodel = "gpt-5-codex"  # the default\napproval_policy = "on-request"\n\n'
                   b'[mcp_servers.github]\ncommand = "gh-mcp"\nargs = []\n\n[profiles.fast]\nmodel = "gpt-5-mini"')
USER_CODEX_HOOKS = b'{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n  }\n}\n'


@pytest.fixture
def codex_home(fake_home) -> Path:
    (fake_home / ".codex").mkdir()
    (fake_home / ".codex" / "config.toml").write_bytes(USER_CODEX_TOML)
    (fake_home / ".codex" / "hooks.json").write_bytes(USER_CODEX_HOOKS)
    (fake_home / ".codex" / "AGENTS.md").write_bytes(b"Always run the tests.\n")
    return fake_home


def test_codex_user_scope_keeps_the_users_config_and_uninstall_gives_it_back(cli, codex_home, project):
    import tomllib

    before = files(codex_home)
    first = cli("install", "codex", "-f", "jsonl")
    assert first.exit_code == 0, first.stderr
    assert [r["file"] for r in first.jsonl()] == [str(codex_home / ".codex" / "hooks.json"), str(codex_home / ".codex" / "config.toml")]
    assert all(r["change"].startswith("added") for r in first.jsonl())
    hooks = json.loads((codex_home / ".codex" / "hooks.json").read_text())
    commands = hook_commands(hooks)
    ours = installer.hook_command("codex")
    assert set(commands) == {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact"}  # Codex has no SessionEnd
    assert commands["Stop"] == ["say done", ours]
    assert all("async" not in h for groups in hooks["hooks"].values() for g in groups for h in g["hooks"])  # not in Codex's format
    assert hooks["hooks"]["Stop"][1]["hooks"][0]["timeout"] == 120 and hooks["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] == 10
    text = (codex_home / ".codex" / "config.toml").read_bytes()
    assert text.startswith(USER_CODEX_TOML + b"\n")  # appended: the user's comments and layout untouched
    config = tomllib.loads(text.decode())
    assert config["model"] == "gpt-5-codex" and config["profiles"] == {"fast": {"model": "gpt-5-mini"}}
    assert config["mcp_servers"]["github"] == {"command": "gh-mcp", "args": []}
    assert config["mcp_servers"]["hymem"]["args"][-1] == "mcp"

    installed = files(codex_home)
    assert [r["change"] for r in cli("install", "codex", "-f", "jsonl").jsonl()] == ["unchanged", "unchanged"]
    assert files(codex_home) == installed
    assert installed[".codex/AGENTS.md"] == before[".codex/AGENTS.md"]

    removed = cli("install", "codex", "--uninstall", "-f", "jsonl")
    assert [r["change"] for r in removed.jsonl()] == ["removed hooks SessionStart, UserPromptSubmit, Stop, PreCompact",
                                                      "removed MCP server hymem"]
    assert files(codex_home) == before  # byte for byte


def test_codex_project_scope_from_nothing_and_back(cli, codex_home, project):
    import tomllib

    before, home_before = files(project), files(codex_home)
    assert cli("install", "codex", "--project").exit_code == 0
    installed = files(project)
    assert set(installed) == {"CLAUDE.md", ".codex/hooks.json", ".codex/config.toml"}
    assert tomllib.loads(installed[".codex/config.toml"].decode())["mcp_servers"]["hymem"]["args"][-1] == "mcp"
    assert cli("install", "codex", "--project").exit_code == 0 and files(project) == installed
    assert files(codex_home) == home_before
    assert cli("install", "codex", "--project", "--uninstall").exit_code == 0
    assert files(project) == before and not (project / ".codex").exists()


def test_codex_uninstall_after_the_user_edited_config_toml_cuts_only_hymems_table(cli, codex_home, project):
    import tomllib

    assert cli("install", "codex").exit_code == 0
    path = codex_home / ".codex" / "config.toml"
    path.write_text(path.read_text() + '\n[mcp_servers.linear]\ncommand = "linear-mcp"\n')
    assert cli("install", "codex", "--uninstall").exit_code == 0
    text = path.read_text()
    assert text == USER_CODEX_TOML.decode() + '\n\n[mcp_servers.linear]\ncommand = "linear-mcp"\n'
    assert "hymem" not in tomllib.loads(text)["mcp_servers"]


def test_codex_servers_the_user_wrote_are_left_alone(cli, fake_home, project):
    folder = project / ".codex"
    folder.mkdir()
    own = b'[mcp_servers.hymem]\ncommand = "/opt/hymem/bin/hymem"\nargs = ["mcp", "--bank", "/data/work.db"]\n'
    (folder / "config.toml").write_bytes(own)
    result = cli("install", "codex", "--project", "-f", "jsonl")
    assert [r["change"] for r in result.jsonl()][1] == "unchanged"
    assert cli("install", "codex", "--project", "--uninstall").exit_code == 0
    assert (folder / "config.toml").read_bytes() == own

    inline = b'mcp_servers = { github = { command = "gh-mcp" } }\n'
    (folder / "config.toml").write_bytes(inline)
    refused = cli("install", "codex", "--project")
    assert refused.exit_code != 0 and "add it by hand" in refused.stderr
    assert (folder / "config.toml").read_bytes() == inline
    assert not (folder / "hooks.json").exists()  # checked before anything was written
    (folder / "config.toml").write_bytes(b"model = [broken\n")
    broken = cli("install", "codex", "--project")
    assert broken.exit_code != 0 and "cannot read" in broken.stderr and "as TOML" in broken.stderr
