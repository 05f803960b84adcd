"""A transcript piped in as it is written (`tail -f chat.jsonl | hymem add -`) is stored burst by burst."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.slow


def _count(bank) -> int:
    import sqlean

    if not bank.exists():
        return 0
    conn = sqlean.connect(str(bank))
    try:
        return conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    except sqlean.OperationalError:
        return 0
    finally:
        conn.close()


def _wait_for(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_stdin_stream_is_committed_as_it_arrives(tmp_path):
    env = {**os.environ, "HYMEM_HOME": str(tmp_path), "HYMEM_EMBED_MODEL": "hash"}
    proc = subprocess.Popen([sys.executable, "-m", "hymem_cli", "add", "--raw", "-i", "jsonl", "-"],
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    bank = tmp_path / "bank.db"
    try:
        for i in range(2):
            proc.stdin.write((json.dumps({"id": f"a{i}", "speaker": "Alex", "text": f"first burst {i}"}) + "\n").encode())
        proc.stdin.flush()
        # The input stays open (like tail -f): the burst must land after the idle pause, not at EOF.
        assert _wait_for(lambda: _count(bank) == 2), "first burst was not committed while the pipe stayed open"
        assert proc.poll() is None
        proc.stdin.write((json.dumps({"id": "b0", "speaker": "Sam", "text": "second burst"}) + "\n").encode())
        proc.stdin.flush()
        assert _wait_for(lambda: _count(bank) == 3)
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr.read().decode()


def test_a_flush_closes_the_chunk_and_every_chunk_names_its_source():
    from hymem_cli.domain import Message
    from hymem_cli.ingest.chunker import FLUSH, chunk_messages

    a, b = Message("1", "Alex", "One."), Message("2", "Sam", "Two.")
    chunks = list(chunk_messages([a, FLUSH, FLUSH, b], "chat.txt"))
    assert [(c.source, [m.id for m in c.messages]) for c in chunks] == [("chat.txt", ["1"]), ("chat.txt", ["2"])]


def _stdin(kind: str, data: bytes):
    """Standard input as a regular file would give it (read at once) or as a pipe does (read on a thread)."""
    import io

    if kind == "file":
        return io.BytesIO(data)
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    return os.fdopen(r, "rb")


@pytest.mark.parametrize("kind", ["file", "pipe"])
def test_stdin_is_read_in_the_format_given_and_redacted_as_it_is_read(kind):
    from hymem_cli.ingest.sources import open_sources
    from hymem_cli.screen import Screen

    data = b"Alex: My password is hunter2hunter2.\n"
    screen, streams = Screen(), [_stdin(kind, data) for _ in range(3)]  # kept open while they are read
    [source] = open_sources([], stdin=streams[0], screen=screen)  # no path: standard input
    assert source.name == "<stdin>" and source.screen is screen  # the screen counts what it redacted while reading
    assert [(m.speaker, m.text) for m in source.messages if m] == [("Alex", "My password is [REDACTED:password].")]
    [forced] = open_sources(["-"], fmt="text", stdin=streams[1])
    assert [(m.speaker, m.text) for m in forced.messages if m] == [(None, "Alex: My password is hunter2hunter2.")]
    [unscreened] = open_sources(["-"], stdin=streams[2], screen=Screen(secrets=False))
    assert [m.text for m in unscreened.messages if m] == ["My password is hunter2hunter2."]


@pytest.mark.parametrize("kind", ["file", "pipe"])
@pytest.mark.parametrize("data, fmt, error", [
    (b'{"text": "a"}\n{"text": \n', "jsonl", "<stdin> line 2: invalid JSON"),
    (b"Alex: caf\xe9\n", None, "<stdin> line 1: not valid UTF-8"),
])
def test_bad_standard_input_is_named_stdin(kind, data, fmt, error):
    from hymem_cli._errors import InputError
    from hymem_cli.ingest.sources import open_sources

    stream = _stdin(kind, data)
    with pytest.raises(InputError) as bad:
        [source] = open_sources(["-"], fmt=fmt, stdin=stream)
        list(source.messages)
    assert bad.value.message.startswith(error)
