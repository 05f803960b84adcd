"""Nothing outside hymem's own folders: add, search and serve with HOME an empty folder leave it empty (onnxruntime,
for one, keeps an event store and a device id under ~/.cache/Microsoft unless told not to)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hymem_cli import server

HYMEM = [sys.executable, "-m", "hymem_cli"]
pytestmark = pytest.mark.slow  # real processes with the real embedder


def _everything(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_add_search_and_serve_write_nothing_outside_hymems_folders(tmp_path):
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HYMEM_", "XDG_", "ORT_", "HF_")) and k != "DO_NOT_TRACK"}
    env.update(HOME=str(home), TMPDIR=str(tmp), HYMEM_HOME=str(tmp_path / "hymem"))
    if os.environ.get("HYMEM_CACHE"):  # the session's cache (the documented place for embedder copies), made once
        env["HYMEM_CACHE"] = os.environ["HYMEM_CACHE"]
    done = subprocess.run([*HYMEM, "add", "--raw", "-"], input=b"Alex: I live in Seattle.\n", env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([*HYMEM, "search", "Seattle", "-f", "json"], env=env, capture_output=True)
    assert done.returncode == 0 and b"Seattle" in done.stdout, done.stderr
    proc = subprocess.Popen([*HYMEM, "serve"], env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while b"serving" not in (proc.stderr.peek() if hasattr(proc.stderr, "peek") else b""):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        done = subprocess.run([*HYMEM, "search", "Seattle", "-f", "json"], env=env, capture_output=True)
        assert done.returncode == 0 and b"Seattle" in done.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert b"answered 1 searches" in proc.stderr.read()
    assert _everything(home) == []
    assert _everything(tmp) in ([], [f"hymem-{os.getuid()}"])  # serve's private socket folder, documented in the README
    assert not server.socket_path(tmp_path / "hymem" / "bank.db").exists()


def test_an_embedder_copy_killed_midway_is_cleaned_by_the_next(tmp_path):
    """A first ingest killed while the torch-free copy is written leaves a ~90 MB scratch folder: the next copy removes it."""
    from hymem_cli import embed_copy

    embedders = tmp_path / "embedders"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    for name in (f".export-{dead}-abc", f".export-{os.getpid()}-mine", ".export-oldname", ".export-freshname"):
        (embedders / name).mkdir(parents=True)
        (embedders / name / "model.onnx").write_bytes(b"\0" * 1024)
    hour_ago = time.time() - 2 * embed_copy.STALE_AFTER
    os.utime(embedders / ".export-oldname", (hour_ago, hour_ago))
    removed = embed_copy.remove_stale(embedders)
    assert sorted(p.name for p in removed) == [f".export-{dead}-abc", ".export-oldname"]
    assert sorted(p.name for p in embedders.iterdir()) == sorted([".export-freshname", f".export-{os.getpid()}-mine"])
