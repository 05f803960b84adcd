"""The path every new user of the real writer takes: pull a model, then write with it by the name `model list` shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_model_cmd import FakeHub

from hymem_cli.writer import models

pytestmark = pytest.mark.llama


def test_a_pulled_model_writes_by_every_name_model_list_shows(cli, home, monkeypatch, tmp_path, packaged_gguf):
    gguf = packaged_gguf
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    FakeHub({"Writer-Q4_1.gguf": Path(gguf).read_bytes()}).install(monkeypatch)
    pulled = cli("model", "pull", "-f", "json")
    assert pulled.exit_code == 0, pulled.stderr
    listed = [r["name"] for r in cli("model", "list", "-f", "jsonl").jsonl()]
    repo = models.DEFAULT_REPO.split("/")[1]
    assert f"{repo}/Writer-Q4_1.gguf" in listed and "smollm2" in listed

    chat = tmp_path / "chat.txt"
    chat.write_text("Alex: I live in Seattle.\n")
    for name in [*listed, "Writer-Q4_1", "Writer-Q4_1.gguf"]:
        done = cli("add", "--model", name, "--dry-run", "--chunk-tokens", "64", str(chat))
        assert done.exit_code == 0, (name, done.stderr)
        assert "dry run:" in done.stderr, (name, done.stderr)

    done = cli("add", "--model", "Writer-Q4_1", str(chat))
    assert done.exit_code == 0, done.stderr
    (entry,) = cli("log", "-f", "json").json()
    assert entry["writer"]["model"] == "Writer-Q4_1.gguf" and entry["writer"]["backend"] == "llama"
