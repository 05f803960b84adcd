"""Files are private, and nothing leaves the machine unless a writer server is configured."""

from __future__ import annotations

import json
import socket
import stat

from conftest import ALEX_JSONL


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_bank_is_private(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("add", "--raw", "-", input="Alex: I live in Seattle.\n").exit_code == 0
    assert _mode(home) == 0o700
    assert _mode(home / "bank.db") == 0o600
    for extra in ("bank.db-wal", "bank.db-shm"):  # SQLite gives its side files the bank's mode
        if (home / extra).exists():
            assert _mode(home / extra) & 0o077 == 0


def test_no_network_without_a_writer_server(cli, real_embedder, home, monkeypatch):
    """Raw ingest, search, history, diff and export never open a network connection, the packaged embedder included."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network connection attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    assert cli("search", "where does Alex live", "-f", "jsonl").exit_code == 0
    assert cli("history", "m1", "-f", "json").exit_code == 0
    assert cli("diff", "0", "-f", "json").exit_code == 0
    assert cli("export").exit_code == 0


def test_auth_headers_and_webhooks_are_not_stored_in_clear(cli, home, monkeypatch):
    """`Authorization: Basic …` and a Slack webhook pasted into a chat: stored redacted, counted by kind."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    basic, hook = "YWxleDpodW50ZXIy", "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefGHIJKL0123456789mn"
    chat = f"Alex: try curl -H 'Authorization: Basic {basic}' on the staging box\nSam: and post the result to {hook} please\n"
    assert cli("add", "--raw", "-", input=chat).exit_code == 0
    stored = [v["text"] for v in cli("export").jsonl() if v["type"] == "version"]
    assert stored == ["Alex: try curl -H 'Authorization: Basic [REDACTED:basic-auth]' on the staging box",
                      "Sam: and post the result to [REDACTED:slack-webhook] please"]
    counts = cli("log", "-f", "json").json()[0]["counts"]
    assert (counts["redacted.basic-auth"], counts["redacted.slack-webhook"]) == (1, 1)
    raw = (home / "bank.db").read_bytes() + b"".join(p.read_bytes() for p in home.glob("bank.db-*"))
    assert basic.encode() not in raw and b"hooks.slack.com" not in raw


def test_source_ids_that_carry_a_secret_are_redacted_and_the_rest_kept():
    from hymem_cli.domain import Operation
    from hymem_cli.screen import Screen

    op = Operation("add", text="Alex uses the shared key.", source_ids=["s1-2", "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7"])
    scrubbed = Screen().scrub_operation(op)
    assert scrubbed.source_ids == ["s1-2", "[REDACTED:openai-key]"]


def test_apply_stores_source_ids_with_their_secrets_redacted(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    key = "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7"
    op = {"op": "add", "text": "Alex uses the shared key.", "source_ids": ["s1-2", key]}
    assert cli("apply", "-", input=json.dumps(op) + "\n").exit_code == 0
    assert cli("history", "m1", "-f", "json").json()[0]["source_ids"] == ["s1-2", "[REDACTED:openai-key]"]
    raw = (home / "bank.db").read_bytes() + b"".join(p.read_bytes() for p in home.glob("bank.db-*"))
    assert key.encode() not in raw
