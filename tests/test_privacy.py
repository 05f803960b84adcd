"""Files are private, and nothing leaves the machine unless a writer server is configured."""

from __future__ import annotations

import socket
import stat


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


def test_no_network_without_a_writer_server(cli, home, monkeypatch):
    """Raw ingest, search, history, diff and export never open a network connection."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network connection attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert cli("add", "--raw", "examples/alex.jsonl").exit_code == 0
    assert cli("search", "where does Alex live", "-f", "jsonl").exit_code == 0
    assert cli("history", "m1", "-f", "json").exit_code == 0
    assert cli("diff", "0", "-f", "json").exit_code == 0
    assert cli("export").exit_code == 0
