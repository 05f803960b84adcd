"""`hymem doctor`: the platform checks, the writer and embedder checks, and the bank's invariants."""

from __future__ import annotations

import json
import socket

import pytest
from conftest import raw_sql

from hymem_cli import config

BANK_CHECKS = ["bank", "bank integrity", "chains: one current version", "chains: successors", "chains: roots",
               "index: full-text", "index: vectors"]


@pytest.fixture(autouse=True)
def env(home, monkeypatch):
    """No writer settings leaking in from the environment (the bank is conftest's `bank`)."""
    for key in config.KEYS:
        if key.startswith("writer."):
            monkeypatch.delenv(config.env_name(key), raising=False)
    return home


def _by_check(run) -> dict[str, dict]:
    records = run.jsonl()
    for r in records:
        assert set(r) == {"check", "status", "detail", "hint"}
        assert r["status"] in ("ok", "warn", "fail")
    return {r["check"]: r for r in records}


def test_healthy_bank_passes_every_check(cli, bank, packaged_gguf, monkeypatch):
    monkeypatch.setenv("HYMEM_WRITER_MODEL", packaged_gguf)
    done = cli("doctor")  # not a terminal: JSON Lines
    assert done.exit_code == 0, done.stdout + done.stderr
    checks = _by_check(done)
    for name in ["python", "sqlite", "sqlite-vec", "fts5", "config", "llama-cpp", "embedder", "writer", *BANK_CHECKS]:
        assert checks[name]["status"] == "ok", checks[name]
    assert checks["cpu"]["status"] in ("ok", "warn")
    assert "hash: 384-d" in checks["embedder"]["detail"]
    assert "llama" in checks["writer"]["detail"] and "Q4_1" in checks["writer"]["detail"]
    assert "14 versions" in checks["bank"]["detail"]
    assert "14 rows" in checks["index: full-text"]["detail"] and "14 rows" in checks["index: vectors"]["detail"]
    assert "vec_version" not in checks["sqlite-vec"]["detail"] and checks["sqlite-vec"]["detail"].startswith("sqlite-vec v")


def test_doctor_does_not_change_the_bank(cli, bank):
    before = bank.read_bytes()
    cli("doctor")
    assert bank.read_bytes() == before


def test_doctor_renders_what_the_bank_verifies(cli, bank):
    from hymem_cli.bank.db import open_read_only
    from hymem_cli.bank.verify import verify

    raw_sql(bank, "DELETE FROM versions_codes WHERE version = 3")
    conn = open_read_only(bank)
    try:
        findings = verify(conn, bank)
    finally:
        conn.close()
    checks = _by_check(cli("doctor"))
    for f in findings:
        assert checks[f.check] == {"check": f.check, "status": f.status, "detail": f.detail, "hint": f.hint}


def test_two_current_versions_in_a_chain_fail_with_a_hint(cli, bank):
    # m1 was superseded by m13; forgetting that retirement leaves chain m1 with two current versions.
    raw_sql(bank, "DELETE FROM retirements WHERE version = 1")
    done = cli("doctor", "-f", "jsonl")
    assert done.exit_code == 1
    checks = _by_check(done)
    broken = checks["chains: one current version"]
    assert broken["status"] == "fail" and "m1 (2)" in broken["detail"]
    assert broken["hint"] and "hymem export" in broken["hint"]
    assert checks["chains: successors"]["status"] == "ok"
    assert "1 check(s) failed" in done.stderr


def test_successor_in_another_chain_and_missing_vectors_fail(cli, bank):
    raw_sql(bank, "UPDATE retirements SET successor = 14 WHERE version = 1", "DELETE FROM versions_vec WHERE rowid = 2")
    done = cli("doctor", "-f", "json")
    assert done.exit_code == 1
    checks = {r["check"]: r for r in done.json()}
    assert checks["chains: successors"]["status"] == "fail" and "m1 -> m14" in checks["chains: successors"]["detail"]
    assert checks["index: vectors"]["status"] == "fail" and "13 index rows for 14 versions" in checks["index: vectors"]["detail"]
    assert checks["index: full-text"]["status"] == "ok"
    assert checks["index: vector codes"]["status"] == "ok"


def test_missing_vector_code_fails(cli, bank):
    raw_sql(bank, "DELETE FROM versions_codes WHERE version = 3")
    checks = _by_check(cli("doctor"))
    assert checks["index: vector codes"]["status"] == "fail" and "13 index rows for 14 versions" in checks["index: vector codes"]["detail"]
    assert checks["index: vectors"]["status"] == "ok"


def test_chain_pointing_outside_itself_fails(cli, bank):
    raw_sql(bank, "UPDATE versions SET chain = 999 WHERE id = 14")
    checks = _by_check(cli("doctor"))
    assert checks["chains: roots"]["status"] == "fail" and "m14 (chain 999)" in checks["chains: roots"]["detail"]


def test_missing_writer_model_fails_with_a_hint(cli, env, monkeypatch, tmp_path):
    monkeypatch.setenv("HYMEM_WRITER_MODEL", str(tmp_path / "nowhere.gguf"))
    done = cli("doctor")
    assert done.exit_code == 1
    writer = _by_check(done)["writer"]
    assert writer["status"] == "fail" and "nowhere.gguf" in writer["detail"]
    assert "hymem model" in writer["hint"]


def test_no_writer_and_no_bank_are_warnings_not_failures(cli, env):
    done = cli("doctor")
    assert done.exit_code == 0, done.stdout
    checks = _by_check(done)
    assert checks["writer"]["status"] == "warn" and "--raw" in checks["writer"]["detail"]
    assert checks["bank"]["status"] == "warn" and "no bank" in checks["bank"]["detail"]
    assert not (env / "bank.db").exists()  # doctor creates nothing


def test_unreachable_server_is_a_warning(cli, env, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HYMEM_WRITER_BACKEND", "openai")
    monkeypatch.setenv("HYMEM_WRITER_BASE_URL", f"http://127.0.0.1:{port}/v1")
    writer = _by_check(cli("doctor"))["writer"]
    assert writer["status"] == "warn" and "unreachable" in writer["detail"] and writer["hint"]


def test_server_that_serves_the_model_is_ok(cli, env, monkeypatch):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Models(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = json.dumps({"data": [{"id": "hy-memory"}]}).encode()
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("HYMEM_WRITER_BACKEND", "openai")
        monkeypatch.setenv("HYMEM_WRITER_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
        writer = _by_check(cli("doctor"))["writer"]
        assert writer["status"] == "ok" and "hy-memory" in writer["detail"]
        monkeypatch.setenv("HYMEM_WRITER_MODEL", "other-model")
        writer = _by_check(cli("doctor"))["writer"]
        assert writer["status"] == "warn" and "other-model" in writer["detail"]
    finally:
        server.shutdown()
        server.server_close()


def test_a_bank_is_checked_with_its_own_packaged_model(cli, bank, monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "all-MiniLM-L6-v2")
    loaded = []

    def get_embedder(name, *args, **kwargs):
        loaded.append(name)
        return type("E", (), {"name": name, "dim": 384})()

    monkeypatch.setattr("hymem_cli.embed.get_embedder", get_embedder)
    embedder = _by_check(cli("doctor"))["embedder"]
    assert embedder["status"] == "ok" and loaded == ["hash"]
    assert "the bank's model; embed.model, all-MiniLM-L6-v2, is for new banks" in embedder["detail"]


def test_bank_of_another_model_folder_fails(cli, bank, home, monkeypatch, tmp_path):
    folder = tmp_path / "their-model"
    raw_sql(home / "bank.db", f"UPDATE meta SET value = '{folder}' WHERE key = 'embed_model'")
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "all-MiniLM-L6-v2")
    monkeypatch.setattr("hymem_cli.embed.get_embedder", lambda name, *a, **k: type("E", (), {"name": name, "dim": 384})())
    embedder = _by_check(cli("doctor"))["embedder"]
    assert embedder["status"] == "fail" and "their-model vectors" in embedder["detail"]


def test_not_a_bank_fails(cli, env, tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    done = cli("doctor", "--bank", str(junk))
    assert done.exit_code == 1
    assert _by_check(done)["bank"]["status"] == "fail"


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    from hymem_cli.commands.doctor import cpu_flags

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 amx_tile\n")
    assert {"avx2", "amx_tile"} <= cpu_flags(info)
    assert cpu_flags(tmp_path / "missing") is None


@pytest.mark.llama
def test_load_times_the_writer_model(cli, env, packaged_gguf, monkeypatch):
    monkeypatch.setenv("HYMEM_WRITER_MODEL", packaged_gguf)
    monkeypatch.setenv("HYMEM_WRITER_N_CTX", "2048")
    done = cli("doctor", "--load")
    loaded = _by_check(done)["writer load"]
    assert loaded["status"] == "ok" and "loaded in" in loaded["detail"]
