"""`hymem serve`: a warm process that `hymem search` asks first, and never depends on."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import ALEX_JSONL, one_error_line

from hymem_cli import server


@pytest.fixture
def env(home, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")  # the server logic, not the model, is under test
    return home


@pytest.fixture
def start_server(env):
    started = []

    def start(bank=None):
        bank = bank or env / "bank.db"
        proc = subprocess.Popen([sys.executable, "-m", "hymem_cli", "serve", "--bank", str(bank)],
                                env={**os.environ, "HYMEM_HOME": str(env)}, stderr=subprocess.PIPE, text=True)
        started.append(proc)
        deadline = time.monotonic() + 60
        while server.ask(bank, {"query": ""}, timeout=1.0) is None:  # answering, not just a socket file (it may be stale)
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def stop(proc) -> str:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    return proc.stderr.read()


QUERIES = [("where does Alex live",), ("Alex", "--all"), ("moved", "--source", "alex", "-n", "3"), ("Sydney", "--as-of", "1")]


def test_search_asks_the_server_and_gets_what_it_would_find_itself(cli, env, start_server, monkeypatch):
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    proc = start_server()
    served = [cli("search", *q, "-f", "jsonl") for q in QUERIES]
    batch = cli("search", "-", "-f", "jsonl", input="Alex city\nSam job\n")
    monkeypatch.setenv("HYMEM_SEARCH_SERVER", "0")
    local = [cli("search", *q, "-f", "jsonl") for q in QUERIES]
    local_batch = cli("search", "-", "-f", "jsonl", input="Alex city\nSam job\n")
    assert all(r.exit_code == 0 for r in served + local + [batch, local_batch])
    assert [r.jsonl() for r in served] == [r.jsonl() for r in local] and all(r.jsonl() for r in served)
    assert batch.jsonl() == local_batch.jsonl()
    log = stop(proc)
    assert "answered 6 searches" in log  # 4 queries and the 2 of the batch; the local ones did not ask
    assert not server.socket_path(env / "bank.db").exists()


def test_the_server_sees_memories_added_while_it_runs(cli, env, start_server):
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    proc = start_server()
    ops = json.dumps({"op": "add", "text": "Alex adopted a tortoise named Ziggy."})
    assert cli("apply", "-", input=ops + "\n").exit_code == 0
    hits = cli("search", "tortoise Ziggy", "-f", "jsonl").jsonl()
    assert hits[0]["text"] == "Alex adopted a tortoise named Ziggy."
    assert "answered 1 searches" in stop(proc)


def test_a_dead_server_is_no_obstacle(cli, env, start_server):
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    proc = start_server()
    proc.kill()  # no chance to remove its socket
    proc.wait()
    assert server.socket_path(env / "bank.db").exists()
    found = cli("search", "where does Alex live", "-f", "jsonl")
    assert found.exit_code == 0 and found.jsonl()
    again = start_server()  # a new server replaces the stale socket
    assert cli("search", "Seattle", "-f", "jsonl").jsonl()
    assert "answered 1 searches" in stop(again)


def test_a_server_answers_for_its_own_bank_only(cli, env, start_server, monkeypatch):
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    other = env / "other.db"
    assert cli("add", "--raw", str(ALEX_JSONL), "--bank", str(other)).exit_code == 0
    proc = start_server()
    mine = server.socket_path(env / "bank.db")
    assert server.ask(other, {"query": "Alex", "limit": 3, "filter": {}, "vector_weight": 0.5, "text_weight": 1.0}) is None
    monkeypatch.setattr(server, "socket_path", lambda bank: mine)  # as if the other bank's socket led here
    assert server.ask(other, {"query": "Alex", "limit": 3, "filter": {}, "vector_weight": 0.5, "text_weight": 1.0}) is None
    found = cli("search", "Alex", "--bank", str(other), "-f", "jsonl")
    assert found.exit_code == 0 and found.jsonl()  # searched in process instead
    assert "answered 0 searches" in stop(proc)


def test_a_second_server_for_the_same_bank_is_refused(cli, env, start_server):
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    proc = start_server()
    second = cli("serve")
    one_error_line(second, 5, "already answering")
    stop(proc)


def test_the_socket_is_private(cli, env, start_server):
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    proc = start_server()
    path = server.socket_path(env / "bank.db")
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    stop(proc)


REQUEST = {"limit": 5, "filter": {}, "vector_weight": 0.5, "text_weight": 1.0, "min_score": 0.0}  # no floor: the hash embedder scores low


def test_a_replaced_bank_file_is_read_anew(cli, env, start_server, tmp_path):
    """export | import into a new file, then mv over the old one: the server answers from the new file."""
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    proc = start_server()
    bank = env / "bank.db"
    assert server.ask(bank, {"query": "tortoise Ziggy", **REQUEST}) is not None
    new = tmp_path / "new.db"
    exported = cli("export").stdout
    assert cli("import", "-", "--bank", str(new), input=exported).exit_code == 0
    ops = json.dumps({"op": "add", "text": "Alex adopted a tortoise named Ziggy."})
    assert cli("apply", "-", "--bank", str(new), input=ops + "\n").exit_code == 0
    os.replace(new, bank)
    hits = server.ask(bank, {"query": "tortoise Ziggy", **REQUEST})
    assert hits and hits[0]["text"] == "Alex adopted a tortoise named Ziggy."
    assert "was replaced; opened the new file" in stop(proc)


def test_a_client_that_stalls_holds_up_no_one(cli, env, start_server):
    """One client sends half a request and waits: every other search is still answered at once."""
    import socket

    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    proc = start_server()
    bank = env / "bank.db"
    stalled = []
    for _ in range(3):
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(str(server.socket_path(bank)))
        conn.sendall(b'{"bank": "')  # and nothing more
        stalled.append(conn)
    try:
        started = time.monotonic()
        hits = server.ask(bank, {"query": "where does Alex live", **REQUEST}, timeout=3.0)
        assert hits, "the server did not answer while other clients stalled"
        assert time.monotonic() - started < 2.0
    finally:
        for conn in stalled:
            conn.close()
    assert "answered 1 searches" in stop(proc)


@pytest.fixture
def tmpdir_here(tmp_path, monkeypatch):
    """TMPDIR for this test alone (tempfile caches it, so the cache is set): where socket directories are made."""
    import tempfile

    here = tmp_path / "tmp"
    here.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(here))
    return here


def test_serve_makes_its_socket_directory_private(cli, env, tmpdir_here):
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    socket_dir = server.socket_path(env / "bank.db").parent
    old = os.umask(0)  # a permissive umask changes nothing: the directory is made 0700
    try:
        server.make_socket_dir(socket_dir)
    finally:
        os.umask(old)
    assert socket_dir.parent == tmpdir_here and socket_dir.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("planted, needle", [
    ("open", "open to other users (mode 0777"),
    ("group", "open to other users (mode 0770"),
    ("link", "is a symbolic link"),
    ("file", "is not a directory"),
    ("foreign", "belongs to another user"),
])
def test_serve_refuses_a_socket_directory_it_cannot_trust(cli, env, tmpdir_here, tmp_path, planted, needle):
    """Someone who made the directory first, or may write to it, could stand in for the server: refused, in one line."""
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    socket_dir = server.socket_path(env / "bank.db").parent
    if planted == "link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        socket_dir.symlink_to(tmp_path / "elsewhere")
    elif planted == "file":
        socket_dir.write_text("")
    else:
        socket_dir.mkdir()
        os.chmod(socket_dir, {"open": 0o777, "group": 0o770, "foreign": 0o700}[planted])
        if planted == "foreign":
            if os.getuid() != 0:
                pytest.skip("making a directory another user owns needs root")
            os.chown(socket_dir, 65534, 65534)
    refused = cli("serve")
    one_error_line(refused, 5, str(socket_dir), needle, "refusing to serve", "hint:")
    assert list(socket_dir.iterdir() if socket_dir.is_dir() else []) == []  # no socket was made there


def test_a_recall_answered_by_the_server_is_counted_there_and_a_plain_search_is_not(cli, env, start_server):
    from hymem_cli.memory import Memory

    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    proc = start_server()
    assert cli("search", "Seattle", "-f", "jsonl").jsonl()  # a person's search: no recall
    with Memory.start() as memory:
        text, handed = memory.recall("Where does Alex live? Seattle?", 600)
    assert handed and "answered 2 searches" in stop(proc)  # the recall was the server's too
    conn = sqlite3.connect(env / "bank.db")
    assert conn.execute("SELECT count(*), sum(times) FROM recalls").fetchone() == (len(handed), len(handed))
    conn.close()
