"""`hymem config`: the TOML file, precedence (default < file < env), validation that leaves the file alone."""

from __future__ import annotations

import stat
import tomllib

import pytest

from conftest import one_error_line
from hymem_cli import config


@pytest.fixture
def toml_file(home):
    return home / "config.toml"


def test_set_get_roundtrip_writes_nested_toml(cli, toml_file):
    for key, value in [("search.limit", "20"), ("search.vector_weight", "0.25"), ("writer.model", "qwen.gguf"), ("writer.n_gpu_layers", "-- -1")]:
        done = cli("config", "set", key, *value.split())
        assert done.exit_code == 0, done.stderr
        assert done.stdout == "" and key in done.stderr
    assert cli("config", "get", "search.limit").stdout == "20\n"
    assert cli("config", "get", "search.vector_weight").stdout == "0.25\n"
    assert cli("config", "get", "writer.model").stdout == "qwen.gguf\n"

    text = toml_file.read_text(encoding="utf-8")
    assert "[search]" in text and "[writer]" in text and "writer.model" not in text
    doc = tomllib.loads(text)
    assert doc == {"search": {"limit": 20, "vector_weight": 0.25}, "writer": {"model": "qwen.gguf", "n_gpu_layers": -1}}
    assert config.load().search.limit == 20  # typed: the core reads what the command wrote


def test_env_overrides_file_and_list_shows_sources(cli, monkeypatch):
    cli("config", "set", "search.limit", "20")
    monkeypatch.setenv("HYMEM_SEARCH_LIMIT", "3")
    assert cli("config", "get", "search.limit").stdout == "3\n"
    listed = {r["key"]: r for r in cli("config", "list", "-f", "json").json()}
    assert set(listed) == set(config.KEYS)
    assert listed["search.limit"]["value"] == 3 and listed["search.limit"]["source"] == "env"
    assert listed["search.text_weight"] == {
        "key": "search.text_weight", "value": config.KEYS["search.text_weight"][0], "source": "default", "default": config.KEYS["search.text_weight"][0],
        "env": "HYMEM_SEARCH_TEXT_WEIGHT", "doc": config.KEYS["search.text_weight"][1], "problem": None,
    }

    monkeypatch.delenv("HYMEM_SEARCH_LIMIT")
    row = next(r for r in cli("config", "list", "-f", "jsonl").jsonl() if r["key"] == "search.limit")
    assert (row["value"], row["source"]) == (20, "file")
    assert cli("config", "get", "search.limit", "-f", "json").json()["source"] == "file"

    assert cli("config", "unset", "search.limit").exit_code == 0
    assert cli("config", "get", "search.limit").stdout == "10\n"
    plain = cli("config", "list", "-f", "plain").stdout.splitlines()
    assert "search.limit\t10\tdefault" in plain and len(plain) == len(config.KEYS)
    table = cli("config", "list", "-f", "table").stdout
    assert "search.limit" in table and "results per query" in table


def test_invalid_key_or_value_leaves_the_file_byte_identical(cli, toml_file):
    cli("config", "set", "writer.model", "a.gguf")
    before = toml_file.read_bytes()
    one_error_line(cli("config", "set", "search.limt", "5"), 2, "unknown config key", "search.limt", "hymem config list")
    one_error_line(cli("config", "set", "search.limit", "many"), 2, "invalid value", "expected int")
    one_error_line(cli("config", "set", "search.limit", "2.5"), 2, "expected int")
    one_error_line(cli("config", "set", "writer.timeout", "soon"), 2, "expected float")
    one_error_line(cli("config", "unset", "nope"), 2, "unknown config key")
    one_error_line(cli("config", "get", "nope"), 2, "unknown config key")
    assert toml_file.read_bytes() == before


def test_invalid_set_creates_no_file(cli, toml_file):
    one_error_line(cli("config", "set", "search.limit", "x"), 2, "search.limit")
    assert not toml_file.exists()


def test_unset_and_path(cli, toml_file):
    assert cli("config", "path").stdout == f"{toml_file}\n"
    missing = cli("config", "unset", "writer.model")
    assert missing.exit_code == 0 and "was not set" in missing.stderr and not toml_file.exists()
    cli("config", "set", "writer.model", "a.gguf")
    cli("config", "set", "search.limit", "4")
    assert cli("config", "unset", "writer.model").exit_code == 0
    assert tomllib.loads(toml_file.read_text()) == {"search": {"limit": 4}}  # no empty [writer] left behind


def test_bank_keys_share_one_table(cli, toml_file, home):
    assert cli("config", "set", "bank.busy_timeout", "5").exit_code == 0
    assert cli("config", "set", "bank.path", str(home / "other.db")).exit_code == 0
    assert tomllib.loads(toml_file.read_text()) == {"bank": {"path": str(home / "other.db"), "busy_timeout": 5.0}}
    assert cli("config", "get", "bank.busy_timeout").stdout == "5.0\n"
    assert config.bank_path() == home / "other.db"  # the configured bank is the one commands open


def _editor(tmp_path, line: str):
    script = tmp_path / "editor.sh"
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' '{line}' >> \"$1\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_edit_runs_the_editor_then_checks(cli, toml_file, tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_editor(tmp_path, "[search]\nlimit = 7")))
    done = cli("config", "edit")
    assert done.exit_code == 0, done.stderr
    assert "valid" in done.stderr
    assert cli("config", "get", "search.limit").stdout == "7\n"


def test_edit_reports_an_invalid_file_and_keeps_it(cli, toml_file, tmp_path, monkeypatch):
    cli("config", "set", "writer.model", "a.gguf")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_editor(tmp_path, "[search]\nlimit = \"many\"")))
    one_error_line(cli("config", "edit"), 2, "search.limit", "hymem config edit")
    assert 'limit = "many"' in toml_file.read_text()  # what was typed is not thrown away

    toml_file.write_text("")
    monkeypatch.setenv("VISUAL", str(_editor(tmp_path, "colour = 1")))  # VISUAL wins over EDITOR
    one_error_line(cli("config", "edit"), 2, "unknown key", "colour")


def test_edit_with_a_missing_editor(cli, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "no-such-editor-hymem")
    one_error_line(cli("config", "edit"), 2, "no-such-editor-hymem")


def test_config_help_lists_subcommands(cli):
    shown = cli("config", "--help")
    assert shown.exit_code == 0
    for name in ("get", "set", "unset", "list", "path", "edit"):
        assert name in shown.stdout
    assert "Examples" in cli("config", "set", "--help").stdout


def test_list_shows_a_bad_value_and_what_is_wrong_with_it(cli, toml_file, monkeypatch):
    """A typo in the file or the environment must not stop `config list`, the command that helps fix it."""
    toml_file.parent.mkdir(parents=True, exist_ok=True)
    toml_file.write_text('[search]\nlimit = "many"\nlimt = 3\n')
    monkeypatch.setenv("HYMEM_SCREEN_SECRETS", "ture")
    done = cli("config", "list", "-f", "json")
    assert done.exit_code == 0, done.stderr
    rows = {r["key"]: r for r in done.json()}
    assert rows["search.limit"]["value"] == "many" and "expected int" in rows["search.limit"]["problem"]
    assert rows["screen.secrets"]["value"] == "ture" and "HYMEM_SCREEN_SECRETS" in rows["screen.secrets"]["problem"]
    assert "did you mean search.limit" in rows["search.limt"]["problem"]
    assert rows["writer.model"]["problem"] is None
    assert "search.limit: invalid value 'many'" in done.stderr and "screen.secrets: invalid value 'ture'" in done.stderr
    table = cli("config", "list", "-f", "table")
    assert table.exit_code == 0 and "problem" in table.stdout
    one_error_line(cli("config", "get", "screen.secrets"), 2, "screen.secrets", "ture")
    one_error_line(cli("search", "x"), 2, "search.limit", "config.toml")  # every other command refuses to run on it
