"""Bad numbers and bad paths: one line naming the problem, with a hint, and the documented exit code; never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import one_error_line


def test_a_limit_past_sqlites_integers_is_a_usage_error(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("apply", "-", input=json.dumps({"op": "add", "text": "Alex lives in Oslo."}) + "\n").exit_code == 0
    one_error_line(cli("search", "-n", "99999999999999999999", "Oslo"), 2, "--limit must be ≤ 1000000")
    one_error_line(cli("log", "-n", "99999999999999999999"), 2, "--limit")
    monkeypatch.setenv("HYMEM_SEARCH_LIMIT", "99999999999999999999")  # a setting has the flag's maximum
    one_error_line(cli("search", "Oslo", "-f", "json"), 2, "HYMEM_SEARCH_LIMIT", "from 1 to 1000000")


def test_hymem_debug_0_is_off(cli, home, monkeypatch):
    monkeypatch.setenv("HYMEM_DEBUG", "0")
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    assert cli("apply", "-", input=json.dumps({"op": "add", "text": "Alex lives in Oslo."}) + "\n").exit_code == 0
    one_error_line(cli("show", "m999"), 4, "no memory m999")


def test_a_dangling_symlink_as_the_bank(cli, home, tmp_path, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    link = tmp_path / "bank.db"
    link.symlink_to(tmp_path / "gone" / "bank.db")
    one_error_line(cli("add", "--raw", "--bank", str(link), "-", input="Alex: hi\n"), 5, "link", "does not exist")
    one_error_line(cli("search", "x", "--bank", str(link)), 5, "link")
    assert not (tmp_path / "gone").exists()


def test_a_device_as_the_bank_creates_nothing_beside_it(cli, home, tmp_path, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    journal_before = os.path.exists("/dev/null-journal")
    one_error_line(cli("search", "x", "--bank", "/dev/null"), 5, "/dev/null", "not a regular file")
    one_error_line(cli("add", "--raw", "--bank", "/dev/null", "-", input="Alex: hi\n"), 5, "not a regular file")
    assert os.path.exists("/dev/null-journal") == journal_before
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    one_error_line(cli("search", "x", "--bank", str(fifo)), 5, "not a regular file")


@pytest.fixture
def read_only_bank(cli, home, tmp_path, monkeypatch):
    """A bank on storage this process cannot write: a read-only bind mount when running as root, else permissions."""
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    src = tmp_path / "src"
    assert cli("apply", "--bank", str(src / "bank.db"), "-",
               input=json.dumps({"op": "add", "text": "Alex lives in Oslo."}) + "\n").exit_code == 0
    if os.geteuid() != 0:
        (src / "bank.db").chmod(0o444)
        src.chmod(0o555)
        yield src / "bank.db"
        src.chmod(0o755)
        return
    ro = tmp_path / "ro"
    ro.mkdir()
    mounted = subprocess.run(["mount", "--bind", str(src), str(ro)], capture_output=True).returncode == 0
    if mounted and subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], capture_output=True).returncode == 0:
        try:
            yield ro / "bank.db"
        finally:
            import gc

            gc.collect()  # the in-process commands' connections, so the mount is not busy
            if subprocess.run(["umount", str(ro)], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", str(ro)], capture_output=True)
        return
    if mounted:
        subprocess.run(["umount", str(ro)], capture_output=True)
    pytest.skip("root without the right to mount: no way to make read-only storage here")


def test_a_bank_on_read_only_storage_is_read_and_not_written(cli, read_only_bank: Path):
    found = cli("search", "Oslo", "--bank", str(read_only_bank), "-f", "json")
    assert found.exit_code == 0, found.stderr
    assert found.json()[0]["text"] == "Alex lives in Oslo."
    assert "read-only storage: opened for reading only" in found.stderr
    assert cli("history", "m1", "--bank", str(read_only_bank), "-f", "json").exit_code == 0
    run = cli("apply", "--bank", str(read_only_bank), "-", input=json.dumps({"op": "add", "text": "Alex likes tea."}) + "\n")
    assert run.exit_code == 5
    errors = [line for line in run.stderr.splitlines() if line.startswith("hymem: error:")]
    assert len(errors) == 1 and "read-only storage: it can be read, not written" in errors[0]


def test_doctor_looks_at_a_bank_on_read_only_storage(read_only_bank: Path):
    """There no -shm can be made beside a WAL bank, so it is read as immutable."""
    from hymem_cli.bank.db import open_read_only

    conn = open_read_only(read_only_bank)
    try:
        assert conn.execute("SELECT text FROM versions").fetchall() == [("Alex lives in Oslo.",)]
    finally:
        conn.close()
