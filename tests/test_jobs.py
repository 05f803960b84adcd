"""`hymem add --jobs N`: several files side by side against a server, each file's chunks in order, one revision."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fakes import alias_of

PEOPLE = [("Alex", "Seattle", "Sydney"), ("Bea", "Lima", "Oslo"), ("Chen", "Cairo", "Perth")]


class SlowWriter:
    """An OpenAI-compatible server that answers like a writer after a pause, counting requests in flight."""

    def __init__(self, pause: float = 0.4):
        self.pause, self.in_flight, self.most, self.lock = pause, 0, 0, threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.in_flight += 1
                    outer.most = max(outer.most, outer.in_flight)
                time.sleep(outer.pause)
                with outer.lock:
                    outer.in_flight -= 1
                answer = json.dumps(outer.reply(body["messages"]))
                data = json.dumps({"choices": [{"message": {"content": answer}, "finish_reason": "stop"}],
                                   "usage": {"prompt_tokens": 100, "completion_tokens": 10}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    @staticmethod
    def reply(messages: list[dict]) -> dict:
        chunk = messages[-1]["content"].split("CONVERSATION:")[-1]
        for name, old, new in PEOPLE:
            if f"I live in {old}" in chunk:
                return {"operations": [{"op": "add", "text": f"{name} lives in {old}.", "evidence": f"I live in {old}"}]}
            if f"I moved to {new}" in chunk:
                return {"operations": [{"op": "supersede", "target": alias_of(messages, f"{name} lives in"),
                                        "text": f"{name} lives in {new}.",
                                        "reason": f"{name} moved to {new}.", "evidence": f"I moved to {new}"}]}
        return {"operations": []}


@pytest.fixture
def server():
    writer = SlowWriter()
    yield writer
    writer.httpd.shutdown()
    writer.httpd.server_close()


def test_files_side_by_side_keep_their_chains(cli, home, monkeypatch, tmp_path, server):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")
    files = []
    for name, old, new in PEOPLE:
        path = tmp_path / f"{name.lower()}.jsonl"
        path.write_text(json.dumps({"id": f"{name}-1", "session": "s1", "speaker": name, "text": f"I live in {old}."}) + "\n"
                        + json.dumps({"id": f"{name}-2", "session": "s2", "speaker": name, "text": f"I moved to {new}."}) + "\n")
        files.append(str(path))
    done = cli("add", "--backend", "openai", "--base-url", server.base_url, "--protocol", "hymem", "--jobs", "3", *files)
    assert done.exit_code == 0, done.stderr
    assert server.most >= 2  # the writer calls of different files overlapped
    (entry,) = cli("log", "-f", "json").json()  # one revision for the run
    assert entry["counts"]["chunks"] == 6 and entry["counts"]["added"] == 3 and entry["counts"]["superseded"] == 3
    for name, old, new in PEOPLE:  # each file's chunks in order: the move supersedes the city it replaces
        hits = cli("search", f"where does {name} live", "--all", "-f", "jsonl").jsonl()
        states = {h["text"]: h["status"] for h in hits if h["text"].startswith(name)}
        assert states == {f"{name} lives in {old}.": "superseded", f"{name} lives in {new}.": "current"}, states
