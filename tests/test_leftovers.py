"""What a failed command leaves: a bank it created and never wrote to is taken back; one that was there stays as it was;
an unknown embedding model is refused without reaching for the network."""

from __future__ import annotations

from conftest import one_error_line, snapshot


def test_an_unreachable_writer_changes_no_fact_and_loses_no_message(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("add", "--raw", "-", input="Alex: I live in Perth.\n").exit_code == 0
    before = snapshot(home / "bank.db")
    done = cli("add", "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "-", input="Alex: I moved to Oslo.\n")
    one_error_line(done, 6, "unreachable")
    after = snapshot(home / "bank.db")
    assert after["retirements"] == before["retirements"] and after["versions"][:1] == before["versions"]  # Perth as it was
    assert [v[3] for v in after["versions"][1:]] == ["Alex: I moved to Oslo."]  # the new message, kept
    assert cli("search", "Oslo", "-f", "json").json()[0]["pending"] is True


def test_an_unknown_embedding_model_is_refused_before_any_download(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "bogus-model-name")
    done = cli("add", "--raw", "-", input="Alex: I live in Perth.\n")
    one_error_line(done, 1, "cannot load embedding model 'bogus-model-name': not a packaged model and no such folder")
    assert "huggingface" not in done.stderr.lower()
    assert not (home / "bank.db").exists()
