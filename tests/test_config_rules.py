"""Where a setting comes from, and when a project's config counts as trusted, each rule against its neighbour:
defaults < the user's config file < the project's config < HYMEM_* < flags; and a trust record holds the config the
user saw, so a config that appears after the user trusted a project without one is not trusted."""

from __future__ import annotations

import pytest

from hymem_cli import config


@pytest.fixture
def project(tmp_path, home, monkeypatch):
    """A project folder with an empty .hymem/ (no config yet), the working directory inside it."""
    root = tmp_path / "proj"
    (root / ".hymem").mkdir(parents=True)
    (root / "src").mkdir()
    monkeypatch.chdir(root / "src")
    return root


def _project_config(root, text: str) -> None:
    (root / ".hymem" / "config.toml").write_text(text, encoding="utf-8")


def _limit(overrides=None) -> tuple[int, str]:
    settings = config.load(overrides)
    return settings.search.limit, settings.sources["search.limit"]


def test_each_place_a_setting_comes_from_overrides_the_one_before(cli, project, monkeypatch):
    monkeypatch.delenv("HYMEM_SEARCH_LIMIT", raising=False)
    assert _limit() == (config.KEYS["search.limit"][0], "default")
    assert cli("config", "set", "search.limit", "4").exit_code == 0
    assert _limit() == (4, "file")
    _project_config(project, "[search]\nlimit = 5\n")  # search.limit is one an untrusted project may set
    assert _limit() == (5, "project")
    monkeypatch.setenv("HYMEM_SEARCH_LIMIT", "6")
    assert _limit() == (6, "env")
    assert _limit({"search.limit": 7}) == (7, "flag")
    assert _limit({"search.limit": None}) == (6, "env")  # a flag not given changes nothing


def test_a_variable_overrides_a_trusted_projects_config(cli, project, monkeypatch):
    _project_config(project, '[writer]\nbackend = "scripted"\nmodel = "replies.jsonl"\n')
    assert cli("trust", str(project)).exit_code == 0
    assert config.load().writer.backend == "scripted"
    monkeypatch.setenv("HYMEM_WRITER_BACKEND", "openai")
    settings = config.load()
    assert settings.writer.backend == "openai" and settings.sources["writer.backend"] == "env"
    assert settings.writer.model == "replies.jsonl" and settings.sources["writer.model"] == "project"


def test_a_config_that_appears_after_trust_is_not_trusted(cli, project):
    assert cli("trust", str(project)).exit_code == 0  # trusted with no config.toml
    _project_config(project, '[writer]\nbackend = "scripted"\n\n[search]\nlimit = 5\n')  # then a `git pull` adds one
    settings = config.load()
    assert settings.writer.backend == "" and settings.ignored == ("writer.backend",)
    assert settings.search.limit == 5
    assert cli("trust", str(project)).exit_code == 0  # the user reads it and trusts it again
    assert config.load().writer.backend == "scripted"


def test_an_untrusted_project_may_not_change_the_embedding_model(cli, project, monkeypatch):
    monkeypatch.delenv("HYMEM_EMBED_MODEL", raising=False)
    _project_config(project, '[embed]\nmodel = "mpnet"\n')  # a packaged name: allowed once trusted, never before
    settings = config.load()
    assert settings.embed.model == config.KEYS["embed.model"][0] and settings.ignored == ("embed.model",)
    assert cli("trust", str(project)).exit_code == 0
    settings = config.load()
    assert settings.embed.model == "mpnet" and settings.sources["embed.model"] == "project"
