"""`writer.factory.probe`: what doctor says about the configured writer, asked of the writer package itself."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fakes import FakeServer

from hymem_cli import config
from hymem_cli._errors import WriterError
from hymem_cli.writer.factory import NO_WRITER_HINT, probe
from hymem_cli.writer.openai_backend import OpenAIBackend


@pytest.fixture
def writer_settings(home, monkeypatch):
    """Writer settings from the given keys only: nothing leaks in from the environment."""
    for key in config.KEYS:
        if key.startswith("writer."):
            monkeypatch.delenv(config.env_name(key), raising=False)
    for var in ("HYMEM_API_KEY", "OPENAI_API_KEY", "HYMEM_SCRIPTED_REPLIES"):
        monkeypatch.delenv(var, raising=False)
    return lambda **keys: config.load({f"writer.{k}": v for k, v in keys.items()}).writer


@pytest.fixture
def models_server():
    """GET /v1/models lists `served`, or answers `status`; every request's headers are kept."""
    state = {"served": ["hy-memory"], "status": 200, "headers": []}

    class Models(BaseHTTPRequestHandler):
        def do_GET(self):
            state["headers"].append(dict(self.headers.items()))
            body = json.dumps({"data": [{"id": m} for m in state["served"]]}).encode()
            self.send_response(state["status"] if self.path == "/v1/models" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state["base_url"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    server.shutdown()
    server.server_close()


def _one(findings) -> tuple[str, str, str, str | None]:
    (f,) = list(findings)
    return f.check, f.status, f.detail, f.hint


def test_no_writer_is_a_warning(writer_settings):
    check, status, detail, hint = _one(probe(writer_settings()))
    assert (check, status, hint) == ("writer", "warn", NO_WRITER_HINT) and "--raw" in detail


def test_scripted_backend_is_a_warning(writer_settings):
    _, status, detail, _ = _one(probe(writer_settings(backend="scripted", model="replies.jsonl")))
    assert status == "warn" and "replies.jsonl" in detail and "tests only" in detail


def test_missing_llama_model_fails_and_nothing_is_loaded(writer_settings, tmp_path):
    _, status, detail, hint = _one(probe(writer_settings(model=str(tmp_path / "nowhere.gguf")), load=True))
    assert status == "fail" and "nowhere.gguf" in detail and "hymem model" in hint


def test_openai_without_a_url_fails(writer_settings):
    _, status, detail, hint = _one(probe(writer_settings(backend="openai")))
    assert status == "fail" and "no server URL" in detail and "writer.base_url" in hint


def test_openai_with_a_url_that_is_not_one_fails(writer_settings):
    _, status, detail, hint = _one(probe(writer_settings(backend="openai", base_url="localhost:8000/v1")))
    assert status == "fail" and "invalid writer server URL" in detail and "writer.base_url" in hint


def test_server_that_serves_the_model_is_ok_and_gets_the_key(writer_settings, models_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-probe")
    _, status, detail, _ = _one(probe(writer_settings(backend="openai", base_url=models_server["base_url"])))
    assert status == "ok" and "hy-memory" in detail
    assert models_server["headers"][-1]["Authorization"] == "Bearer sk-probe"  # the key `hymem add` would send


def test_server_that_serves_another_model_is_a_warning(writer_settings, models_server):
    settings = writer_settings(backend="openai", base_url=models_server["base_url"] + "/", model="other-model")
    _, status, detail, hint = _one(probe(settings))
    assert status == "warn" and "not 'other-model'" in detail and hint == "hymem config set writer.model hy-memory"
    assert "Authorization" not in models_server["headers"][-1]  # no key anywhere: no header


def test_server_that_refuses_the_key_says_how_to_give_one(writer_settings, models_server):
    models_server["status"] = 401
    _, status, detail, hint = _one(probe(writer_settings(backend="openai", base_url=models_server["base_url"])))
    assert status == "warn" and "HTTP 401" in detail
    assert "HYMEM_API_KEY" in hint and "--api-key" not in hint


def test_completion_refused_for_the_key_names_real_ways_to_give_one():
    server = FakeServer().start()
    try:
        server.behaviours = [("status", 401, {"error": {"message": "bad key"}})]
        with pytest.raises(WriterError) as caught:
            OpenAIBackend(server.base_url, retries=0).complete([{"role": "user", "content": "hi"}], {"type": "object"})
    finally:
        server.stop()
    assert "HYMEM_API_KEY" in caught.value.hint and "OPENAI_API_KEY" in caught.value.hint
    assert "--api-key" not in caught.value.hint
