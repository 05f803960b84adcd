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

