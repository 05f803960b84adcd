"""What a new user trips over in the first hour: each case as the user meets it, in a real process or terminal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HYMEM = [sys.executable, "-m", "hymem_cli"]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYMEM_") or k == "HYMEM_CACHE"}
    return {**env, "HYMEM_HOME": str(home), "HYMEM_EMBED_MODEL": "hash", **extra}


def _wait_for(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_ctrl_c_on_a_tail_f_pipe_exits_130_with_one_line(tmp_path):
    """The README's `tail -f chat.jsonl | hymem add -i jsonl -`, stopped with Ctrl-C after a burst was stored."""
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"speaker": "Alex", "text": "I live in Seattle."}) + "\n")
    home = tmp_path / "home"
    tail = subprocess.Popen(["tail", "-f", str(chat)], stdout=subprocess.PIPE)
    try:
        add = subprocess.Popen([*HYMEM, "add", "--raw", "-i", "jsonl", "-"], stdin=tail.stdout, stderr=subprocess.PIPE,
                               stdout=subprocess.PIPE, env=_env(home))
        tail.stdout.close()
        assert _wait_for(lambda: (home / "bank.db").exists() and _versions(home) == 1), "the first burst was never stored"
        add.send_signal(signal.SIGINT)
        _, err = add.communicate(timeout=30)
    finally:
        tail.kill()
    assert add.returncode == 130, err.decode()
    assert err.decode().strip().splitlines()[-1] == "hymem: interrupted; chunks already committed are kept (re-run to resume)"
    assert b"Fatal Python error" not in err
    assert _versions(home) == 1  # the committed chunk survived


def _versions(home: Path) -> int:
    import sqlean

    conn = sqlean.connect(str(home / "bank.db"))
    try:
        return conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    except sqlean.OperationalError:
        return 0
    finally:
        conn.close()
