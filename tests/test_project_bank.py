"""Project banks: `hymem init` makes .hymem/, every command below it finds it like git finds .git, and says why."""

from __future__ import annotations

import json

import pytest
from conftest import one_error_line, snapshot

CHAT = "Alex: I live in Seattle.\nSam: Nice.\n"


@pytest.fixture
def project(tmp_path, home, monkeypatch):
    """A project directory with .hymem/ made by `hymem init`, and a subdirectory as the working directory."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    root = tmp_path / "shop"
    (root / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def bank_record(cli, *args: str) -> dict:
    run = cli("config", "path", "-f", "jsonl", *args)
    assert run.exit_code == 0, run.stderr
    return next(r for r in run.jsonl() if r["what"] == "bank")


def test_init_makes_a_project_with_a_bank_config_and_gitignore(cli, project):
    run = cli("init", "-f", "json")
    assert run.exit_code == 0, run.stderr
    made = run.json()
    dot = project / ".hymem"
    assert made == {"project": str(dot), "bank": str(dot / "bank.db"), "config": str(dot / "config.toml")}
    assert (dot / "bank.db").exists() and snapshot(dot / "bank.db")["versions"] == []
    assert "bank.db" in (dot / ".gitignore").read_text()
    import tomllib

    assert tomllib.loads((dot / "config.toml").read_text()) == {}  # comments only: nothing overridden yet
    again = cli("init")  # idempotent: `hymem init && hymem config set --project ...` runs twice
    assert again.exit_code == 0 and "already a project" in again.stderr


def test_commands_in_a_subdirectory_use_the_project_bank(cli, project, home, monkeypatch):
    assert cli("init").exit_code == 0
    monkeypatch.chdir(project / "src" / "deep")
    run = cli("add", "--raw", "-", input=CHAT)
    assert run.exit_code == 0, run.stderr
    assert "Alex: I live in Seattle." in [r[3] for r in snapshot(project / ".hymem" / "bank.db")["versions"]]
    assert not (home / "bank.db").exists()  # the home's bank was never touched
    assert cli("search", "Seattle", "-f", "jsonl").jsonl()[0]["text"] == "Alex: I live in Seattle."
    record = bank_record(cli)
    assert record["path"] == str(project / ".hymem" / "bank.db") and record["source"] == "project"
    assert str(project / ".hymem") in record["why"]


def test_bank_precedence_flag_env_project_config_default(cli, project, home, monkeypatch, tmp_path):
    assert bank_record(cli)["source"] == "default"
    assert bank_record(cli)["path"] == str(home / "bank.db")
    assert cli("config", "set", "bank.path", str(tmp_path / "configured.db")).exit_code == 0
    assert bank_record(cli)["source"] == "config"
    assert cli("init").exit_code == 0
    assert bank_record(cli)["source"] == "project"  # the project wins over the user's bank.path
    monkeypatch.setenv("HYMEM_BANK", str(tmp_path / "env.db"))
    assert bank_record(cli)["source"] == "env"
    assert bank_record(cli)["path"] == str(tmp_path / "env.db")
    flagged = cli("config", "path", "--bank")
    assert flagged.stdout.strip() == str(tmp_path / "env.db") and "HYMEM_BANK" in flagged.stderr
    monkeypatch.delenv("HYMEM_BANK")
    run = cli("search", "x", "--bank", str(tmp_path / "flag.db"))
    one_error_line(run, 5, str(tmp_path / "flag.db"))  # --bank wins over the project: that bank does not exist


def test_doctor_says_which_bank_and_why(cli, project, monkeypatch):
    assert cli("init").exit_code == 0
    monkeypatch.chdir(project / "src")
    rows = {r["check"]: r for r in cli("doctor", "-f", "jsonl").jsonl()}
    assert rows["bank path"]["detail"].startswith(str(project / ".hymem" / "bank.db"))
    assert "nearest project" in rows["bank path"]["detail"]
    assert rows["project config"]["status"] == "ok"


def test_project_config_sits_between_the_user_config_and_the_environment(cli, project, monkeypatch):
    assert cli("config", "set", "search.limit", "7").exit_code == 0
    assert cli("init").exit_code == 0
    run = cli("config", "set", "--project", "search.limit", "3")
    assert run.exit_code == 0 and str(project / ".hymem" / "config.toml") in run.stderr
    monkeypatch.chdir(project / "src")
    row = next(r for r in cli("config", "list", "-f", "jsonl").jsonl() if r["key"] == "search.limit")
    assert (row["value"], row["source"]) == (3, "project")
    note = cli("config", "set", "search.limit", "8")
    assert "overrides the user's config in this project" in note.stderr
    monkeypatch.setenv("HYMEM_SEARCH_LIMIT", "5")
    assert cli("config", "get", "search.limit").stdout.strip() == "5"
    monkeypatch.delenv("HYMEM_SEARCH_LIMIT")
    assert cli("config", "unset", "--project", "search.limit").exit_code == 0
    assert cli("config", "get", "search.limit").stdout.strip() == "8"
    assert cli("config", "path", "--project").stdout.strip() == str(project / ".hymem" / "config.toml")


def test_a_project_config_cannot_move_the_bank(cli, project):
    assert cli("init").exit_code == 0
    (project / ".hymem" / "config.toml").write_text('[bank]\npath = "/elsewhere.db"\n')
    one_error_line(cli("search", "x"), 2, "bank.path cannot be set in a project")
    (project / ".hymem" / "config.toml").write_text("")
    one_error_line(cli("config", "set", "--project", "bank.path", "x.db"), 2, "bank.path cannot be set")


def test_outside_a_project(cli, project):
    one_error_line(cli("config", "set", "--project", "search.limit", "3"), 2, "not in a hymem project")
    run = cli("config", "path", "--project")
    assert run.exit_code == 1 and "not in a hymem project" in run.stderr


def test_a_home_named_hymem_is_not_a_project(cli, tmp_path, monkeypatch):
    dot = tmp_path / "user" / ".hymem"
    monkeypatch.setenv("HYMEM_HOME", str(dot))
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    (tmp_path / "user" / "code").mkdir(parents=True)
    dot.mkdir()
    monkeypatch.chdir(tmp_path / "user" / "code")
    assert bank_record(cli)["source"] == "default"
    assert json.loads(cli("config", "path", "-f", "json").stdout)[1]["path"] is None
