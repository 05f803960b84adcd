"""Several hymem processes on one bank: no "database is locked" reaches the user, nothing lands twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def test_concurrent_adds_and_searches(tmp_path):
    env = {**os.environ, "HYMEM_HOME": str(tmp_path / "home"), "HYMEM_EMBED_MODEL": "hash"}
    files = []
    for w in range(3):
        path = tmp_path / f"chat{w}.jsonl"
        with path.open("w") as f:
            for i in range(120):
                f.write(json.dumps({"id": f"w{w}-{i}", "session": f"s{i // 10}", "speaker": "Alex",
                                    "text": f"writer {w} says fact {i}"}) + "\n")
        files.append(path)
    hymem = [sys.executable, "-m", "hymem_cli"]
    # Two processes ingest the same file: its chunks must land exactly once between them.
    jobs = [subprocess.Popen([*hymem, "add", "--raw", "--chunk-tokens", "40", str(p)], env=env, stderr=subprocess.PIPE,
                             stdout=subprocess.PIPE)
            for p in files + [files[0]]]
    searches = [subprocess.Popen([*hymem, "search", "fact", "-f", "jsonl"], env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE)
                for _ in range(3)]
    for proc in jobs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
        assert b"locked" not in err
    for proc in searches:
        out, err = proc.communicate(timeout=300)
        assert b"locked" not in err
        assert proc.returncode in (0, 5), err.decode()  # 5 only if it ran before any bank existed

    import sqlean

    conn = sqlean.connect(str(tmp_path / "home" / "bank.db"))
    ids = [json.loads(r[0])[0] for r in conn.execute("SELECT source_ids FROM versions")]
    assert len(ids) == 360 and len(set(ids)) == 360  # every message once
    chunk_hashes = [r[0] for r in conn.execute("SELECT hash FROM chunks")]
    assert len(chunk_hashes) == len(set(chunk_hashes))
    revisions = [r[0] for r in conn.execute("SELECT id FROM revisions ORDER BY id")]
    assert revisions == list(range(1, len(revisions) + 1)) and len(revisions) in (3, 4)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
