"""Typed settings: one object, parsed and checked once, with the same rule for flags, HYMEM_* and the file."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import one_error_line, snapshot

from hymem_cli import config
from hymem_cli._errors import ConfigError


def test_every_key_has_a_typed_field_of_its_default_type(home, monkeypatch):
    monkeypatch.delenv("HYMEM_EMBED_MODEL")  # the fixture's test embedder: the defaults are under test here
    settings = config.load()
    assert settings == config.defaults()
    for key, (default, _) in config.KEYS.items():
        value = settings.get(key)
        assert value == default and type(value) is type(default), key
    fields = {f"{section}.{f.name}" for section, cls in config.SECTIONS.items() for f in dataclasses.fields(cls)}
    assert fields == set(config.KEYS) | {"writer.send_key"}  # the one field that is no key: where base_url came from


@pytest.mark.parametrize(
    "variable,value,accepted",
    [
        ("HYMEM_SCREEN_SECRETS", "ture", "true or false"),
        ("HYMEM_SCREEN_INSTRUCTIONS", "enabled", "true or false"),
        ("HYMEM_SEARCH_SERVER", "", "true or false"),
        ("HYMEM_INGEST_CHUNK_TOKENS", "2.5", "int from 16 to 131072"),
        ("HYMEM_BANK_BUSY_TIMEOUT", "inf", "float from 0 to 3600"),
        ("HYMEM_BANK_BUSY_TIMEOUT", "nan", "float from 0 to 3600"),
        ("HYMEM_WRITER_PIPELINE", "three-pass", "one of single, two-pass"),
        ("HYMEM_WRITER_BACKEND", "vllm", "llama, openai"),
    ],
)
def test_a_mistyped_variable_is_a_usage_error_naming_it(cli, home, monkeypatch, tmp_path, variable, value, accepted):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    chat = tmp_path / "chat.txt"
    chat.write_text("Alex: my password is hunter2-Velvet\n")
    monkeypatch.setenv(variable, value)
    one_error_line(cli("add", "--raw", str(chat)), 2, variable, accepted)
    assert snapshot(home / "bank.db") is None  # nothing stored, secret or not


def test_a_mistyped_boolean_never_turns_redaction_off(home, monkeypatch):
    monkeypatch.setenv("HYMEM_SCREEN_SECRETS", "True ")
    assert config.load().screen.secrets is True  # spaces and case are forgiven
    for typo in ("ture", "yes please", "2"):
        monkeypatch.setenv("HYMEM_SCREEN_SECRETS", typo)
        with pytest.raises(ConfigError, match="HYMEM_SCREEN_SECRETS"):
            config.load()


def test_the_file_is_checked_like_the_environment(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[screen]\nsecrets = "maybe"\n')
    one_error_line(cli("search", "anything"), 2, "screen.secrets", "config.toml", "true or false")
    (home / "config.toml").write_text("[search]\nlimt = 3\n")
    one_error_line(cli("search", "anything"), 2, "search.limt", "did you mean search.limit")


def test_flags_win_and_are_checked_too(home, monkeypatch):
    monkeypatch.setenv("HYMEM_SEARCH_LIMIT", "7")
    assert config.load().search.limit == 7
    assert config.load({"search.limit": 3}).search.limit == 3
    with pytest.raises(ConfigError, match="--pipeline"):
        config.load({"writer.pipeline": "sideways"})


def test_the_writer_in_use(home, monkeypatch):
    assert config.load().writer.kind == ""
    assert config.load({"writer.model": "smollm2"}).writer.kind == "llama"
    assert config.load({"writer.model": "hy-memory", "writer.backend": "openai"}).writer.kind == "openai"
