"""Secrets no vendor pattern knows, found by what stands beside them, and redacted before a reader splits a
line into speaker and text: nothing of them anywhere in the bank's bytes (the file, its -wal and -shm)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hymem_cli.screen import Screen

# (text, the secret in it): each leaked before the context rules existed.
LEAKS = [
    ("PGPASSWORD=Ferr0us-Lantern-9 psql -h db reports", "Ferr0us-Lantern-9"),
    ("the login link is https://nas.example/login?user=alex&pass=Kx9mq22Zeta ok", "Kx9mq22Zeta"),
    ("my seed phrase is orbit velvet canyon tribe maple hollow ember quartz sail rugby lantern fossil", "tribe maple hollow"),
    ("The debit card PIN's 4569, don't tell", "4569"),
    ("card ending 4421, cvv 375, expires 08/27", "375"),
    ("Router login: admin / Mar1gold&Sky", "Mar1gold&Sky"),
    ("for the shared drive the key is Otter-Lamp-496, same as before", "Otter-Lamp-496"),
    ("Card 4532 7788 1234 5678, exp 09/27", "4532 7788 1234 5678"),  # fails the Luhn check, beside card words
    ("aws key id and secret Zq8vR2/pLx7eTb4Nw9KdYh3FmUc6JsA1oGiVt5Qe", "Zq8vR2/pLx7eTb4Nw9KdYh3FmUc6JsA1oGiVt5Qe"),
    ("ssh in with password Blue-Falcon-12 when the VPN is down", "Blue-Falcon-12"),
    ("database:\n  db_pass: hunter22xyz\n", "hunter22xyz"),
    ("export MYSQL_PWD='Tr0ub4dor99'", "Tr0ub4dor99"),
    ("mysql -u root -pHunter2Db -e 'show databases'", "Hunter2Db"),
    ("Das WLAN-Passwort lautet Schnee-Eule-7, falls", "Schnee-Eule-7"),
]


@pytest.mark.parametrize("text,secret", LEAKS, ids=[s for _, s in LEAKS])
def test_a_secret_beside_its_context_is_redacted(text, secret):
    redacted, kinds = Screen().redact(text)
    assert kinds and secret not in redacted, redacted


@pytest.mark.parametrize("text", [
    "my zip code is 98103", "the key is consistency", "I use a password manager", "the token bucket refills",
    "docker run -p 8080:80 nginx", "max_tokens: 256", "The lock code for the bike is on the fridge door.",
])
def test_talk_about_secrets_is_not_redacted(text):
    assert Screen().redact(text) == (text, [])


def _bank_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists())


@pytest.mark.parametrize("name,transcript", [
    ("chat.txt", "Alex: here's the NAS login\nPassword: Velvet-Harbor-61\nAlex: don't lose it\n"),
    ("chat.md", "**Alex:** the router login, for later\n**Password:** Velvet-Harbor-61\n**Alex:** thanks\n"),
    ("chat2.md", "## Alex\nthe login\n## Password\nVelvet-Harbor-61\n"),
])
def test_a_secret_read_as_a_speaker_never_reaches_the_bank(cli, home, monkeypatch, tmp_path, name, transcript):
    """"Password: X" in a Speaker: text or Markdown transcript: the line is redacted before the speaker is split off."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    monkeypatch.setenv("HYMEM_SEARCH_MIN_SCORE", "0")  # every stored line is listed, however the hash embedder scores it
    path = tmp_path / name
    path.write_text(transcript)
    run = cli("add", "--raw", str(path))
    assert run.exit_code == 0, run.stderr
    log = cli("log", "-f", "json").json()[0]
    texts = [h["text"] for h in cli("search", "password login", "-f", "json", "-n", "20").json()]
    if name != "chat2.md":  # a Markdown heading alone on its line holds no value to redact; the value comes as text below it
        assert log["counts"]["redacted"] == 1, log["counts"]
        assert any("[REDACTED:" in t for t in texts), texts
    assert b"Velvet-Harbor" not in _bank_bytes(home / "bank.db")
    assert not any("Velvet-Harbor" in t for t in texts)


def test_a_writer_never_sees_a_secret_split_into_a_speaker(cli, home, monkeypatch, tmp_path):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    path = tmp_path / "chat.txt"
    path.write_text("Alex: here's the NAS login\nPassword: Velvet-Harbor-61\n")
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"operations": [{"op": "add", "text": "The NAS password is Velvet-Harbor-61.",
                                                   "evidence": "Velvet-Harbor-61"}]}) + "\n")
    run = cli("add", "--backend", "scripted", "--model", str(replies), str(path))
    assert run.exit_code == 0, run.stderr
    assert b"Velvet-Harbor" not in _bank_bytes(home / "bank.db")
