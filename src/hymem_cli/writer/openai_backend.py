"""Writer backend for an OpenAI-compatible chat server (vLLM, llama-server, SGLang, ...).

Standard library only: one POST to `{base_url}/chat/completions` per call, JSON in, JSON out.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from hymem_cli._errors import WriterError
from hymem_cli.writer.backend import WriterInfo, WriterReply

DEFAULT_CHAT_TEMPLATE_KWARGS = {"reasoning_effort": "no_think"}
TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})
_MAX_ERROR_TEXT = 300
_MAX_RETRY_AFTER = 10.0
KEY_HINT = "set HYMEM_API_KEY (or OPENAI_API_KEY) to the server's API key"


def resolve_api_key(given: str | None = None) -> str | None:
    """The key sent as `Authorization: Bearer`: the one given, else $HYMEM_API_KEY, else $OPENAI_API_KEY."""
    return given or os.environ.get("HYMEM_API_KEY") or os.environ.get("OPENAI_API_KEY")


class _Transient(Exception):
    """A failure worth retrying; carries the WriterError to raise if retries run out."""

    def __init__(self, error: WriterError, retry_after: float | None = None):
        super().__init__(error.message)
        self.error = error
        self.retry_after = retry_after


class OpenAIBackend:
    """Talks to an OpenAI-compatible `/v1/chat/completions` endpoint.

    The operation schema is sent as `response_format` (`json_schema`, strict). A server that
    answers 400 about `response_format`/`json_schema` is asked again without it, and is not
    sent it again (the caller validates the JSON). Likewise for `chat_template_kwargs` on
    servers that reject unknown fields. Transient failures (connection refused/reset,
    timeouts, HTTP 429/500/502/503/504) are retried `retries` times with exponential backoff.
    """

    backoff_base = 0.5  # seconds before the first retry; doubles each time

    def __init__(
        self,
        base_url: str,
        model: str = "hy-memory",
        *,
        api_key: str | None = None,
        timeout: float = 120.0,
        retries: int = 2,
        chat_template_kwargs: dict | None = None,
        seed: int = 0,
        max_tokens: int = 1024,
        send_key: bool = True,
    ):
        base = (base_url or "").strip().rstrip("/")
        parsed = urllib.parse.urlsplit(base)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise WriterError(
                f"invalid writer server URL: {base_url!r}",
                hint="pass --base-url like http://localhost:8000/v1",
            )
        if base.endswith("/chat/completions"):
            base = base[: -len("/chat/completions")]
        self.base_url = base
        self.url = base + "/chat/completions"
        self.model = model
        self.timeout = float(timeout)
        self.retries = max(0, int(retries))
        self.seed = seed
        self.max_tokens = max_tokens
        self.chat_template_kwargs = (
            dict(DEFAULT_CHAT_TEMPLATE_KWARGS)
            if chat_template_kwargs is None
            else dict(chat_template_kwargs)
        )
        # No key for a URL the user did not choose (a project's config set it): the key would go to that server.
        self._api_key = resolve_api_key(api_key) if send_key else None
        # None until the server has answered a request with response_format.
        self._json_schema_supported: bool | None = None
        self._send_template_kwargs = bool(self.chat_template_kwargs)

    def __repr__(self) -> str:  # never show the API key
        return f"OpenAIBackend(base_url={self.base_url!r}, model={self.model!r})"

    # -- protocol ---------------------------------------------------------------------------

    def info(self) -> WriterInfo:
        return WriterInfo(
            backend="openai",
            model=self.model,
            model_hash=None,
            extra={
                "base_url": self.base_url,
                "json_schema_supported": self._json_schema_supported,
                "chat_template_kwargs": dict(self.chat_template_kwargs)
                if self._send_template_kwargs
                else {},
            },
        )

    def complete(self, messages: list[dict], schema: dict, fence: bool = False) -> WriterReply:
        """With `fence` (the Hy-Memory harness's replies sit in a ```json block) no schema is sent: a server's
        `json_schema` would forbid the fence the model was trained to write; the reply is parsed leniently instead."""
        start = time.perf_counter()
        while True:
            use_schema = self._json_schema_supported is not False and not fence
            body = self._body(messages, schema, use_schema)
            try:
                data = self._post_with_retries(body)
            except _Rejected as rej:
                text = rej.text.lower()
                if use_schema and ("response_format" in text or "json_schema" in text):
                    self._json_schema_supported = False
                    continue
                if self._send_template_kwargs and "chat_template_kwargs" in text:
                    self._send_template_kwargs = False
                    continue
                raise rej.error from None
            if use_schema:
                self._json_schema_supported = True
            break
        return self._reply(data, time.perf_counter() - start)

    def close(self) -> None:
        pass

    def served_models(self) -> list[str]:
        """The model ids the server lists at GET `{base_url}/models`, asked once with no retries (`hymem doctor`)."""
        url = self.base_url + "/models"
        request = urllib.request.Request(url, headers=self._headers(), method="GET")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = json.loads(response.read().decode("utf-8", errors="replace") or "{}")
        except urllib.error.HTTPError as exc:
            hint = KEY_HINT if exc.code in (401, 403) else "check writer.base_url (it usually ends in /v1)"
            raise WriterError(f"GET {url} answered HTTP {exc.code}", hint=hint) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            raise WriterError(f"{url} is unreachable ({reason})", hint="start the server, or fix writer.base_url") from None
        except (ValueError, RecursionError):  # RecursionError: nested too deeply
            raise WriterError(f"GET {url} did not answer JSON", hint="check writer.base_url points at an OpenAI-compatible API") from None
        listed = body.get("data") if isinstance(body, dict) else None
        return [str(m.get("id")) for m in listed if isinstance(m, dict)] if isinstance(listed, list) else []

    # -- request ----------------------------------------------------------------------------

    def _body(self, messages: list[dict], schema: dict, use_schema: bool) -> dict:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
        }
        if self._send_template_kwargs:
            body["chat_template_kwargs"] = self.chat_template_kwargs
        if use_schema:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "memory_operations", "schema": schema, "strict": True},
            }
        return body

    def _post_with_retries(self, body: dict) -> dict:
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            try:
                return self._post(payload)
            except _Transient as exc:
                if attempt >= self.retries:
                    raise exc.error from None
                delay = self.backoff_base * (2**attempt)
                if exc.retry_after is not None:
                    delay = max(delay, min(exc.retry_after, _MAX_RETRY_AFTER))
                time.sleep(delay)
                attempt += 1

    def _post(self, payload: bytes) -> dict:
        headers = {"Content-Type": "application/json", **self._headers()}
        request = urllib.request.Request(self.url, data=payload, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from None
        except urllib.error.URLError as exc:
            raise self._network_error(exc.reason) from None
        except (TimeoutError, ConnectionError, http.client.HTTPException, OSError) as exc:
            raise self._network_error(exc) from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):  # RecursionError: nested too deeply
            raise WriterError(
                f"writer server at {self.base_url} returned a non-JSON reply: {_snippet(raw)}",
                hint="check that --base-url points at an OpenAI-compatible endpoint (ending in /v1)",
            ) from None
        if not isinstance(data, dict):
            raise WriterError(
                f"writer server at {self.base_url} returned an unexpected reply: {_snippet(raw)}",
                hint="check that --base-url points at an OpenAI-compatible endpoint (ending in /v1)",
            )
        return data

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _network_error(self, reason: Any) -> Exception:
        where = self.base_url
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            return _Transient(
                WriterError(
                    f"writer server at {where} timed out after {self.timeout:g} s (timeout)",
                    hint="the server may be overloaded; raise the timeout or use a smaller chunk size",
                )
            )
        if isinstance(reason, ConnectionRefusedError):
            return _Transient(
                WriterError(
                    f"writer server unreachable at {where}: connection refused",
                    hint="start the server (e.g. `vllm serve ...`) or fix --base-url",
                )
            )
        if isinstance(reason, (ConnectionError, http.client.HTTPException)):
            detail = (
                "connection closed by the server"
                if isinstance(reason, (http.client.RemoteDisconnected, ConnectionResetError))
                else f"connection error ({_describe(reason)})"
            )
            return _Transient(
                WriterError(
                    f"writer server unreachable at {where}: {detail}",
                    hint="check that the server is running and healthy, or fix --base-url",
                )
            )
        if isinstance(reason, socket.gaierror):
            host = urllib.parse.urlsplit(where).hostname
            return WriterError(
                f"writer server unreachable at {where}: cannot resolve host {host!r}",
                hint="fix the host name in --base-url",
            )
        if isinstance(reason, ssl.SSLError):
            return WriterError(
                f"TLS error talking to writer server at {where}: {_describe(reason)}",
                hint="check the https URL and the server's certificate",
            )
        return WriterError(
            f"writer server unreachable at {where}: {_describe(reason)}",
            hint="start the server or fix --base-url",
        )

    def _http_error(self, exc: urllib.error.HTTPError) -> Exception:
        status = exc.code
        try:
            raw = exc.read()
        except Exception:
            raw = b""
        detail = _error_text(raw) or (exc.reason or "")
        message = f"writer server at {self.base_url} answered HTTP {status}: {detail}".rstrip(": ")
        if status in TRANSIENT_STATUS:
            retry_after = None
            header = exc.headers.get("Retry-After") if exc.headers else None
            if header:
                try:
                    retry_after = float(header)
                except ValueError:
                    retry_after = None
            return _Transient(
                WriterError(message, hint="the server is overloaded or failing; try again later"),
                retry_after,
            )
        if status in (401, 403):
            hint = KEY_HINT
        elif status == 404:
            hint = f"check --base-url (it should end in /v1) and that the server serves model {self.model!r}"
        else:
            hint = "check the server log for details"
        error = WriterError(message, hint=hint)
        if status == 400 or status == 422:
            return _Rejected(error, raw.decode("utf-8", errors="replace"))
        return error

    # -- reply ------------------------------------------------------------------------------

    def _reply(self, data: dict, seconds: float) -> WriterReply:
        try:
            choice = data["choices"][0]
            content = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise WriterError(
                f"writer server at {self.base_url} returned a reply without choices[0].message",
                hint="check that --base-url points at an OpenAI-compatible chat endpoint",
            ) from None
        if not isinstance(content, str) or not content.strip():
            raise WriterError(
                f"writer server at {self.base_url} returned an empty answer"
                f" (finish_reason: {choice.get('finish_reason')})",
                hint="check that thinking is disabled for the served model and max_tokens is large enough",
            )
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt_tokens = _int(usage.get("prompt_tokens"))
        completion_tokens = _int(usage.get("completion_tokens"))
        details = usage.get("prompt_tokens_details")
        cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
        return WriterReply(
            text=content,
            prompt_tokens=prompt_tokens,
            evaluated_tokens=max(0, prompt_tokens - cached),
            completion_tokens=completion_tokens,
            seconds=seconds,
        )


class _Rejected(Exception):
    """HTTP 400/422: not retried, but may trigger a fallback without an optional field."""

    def __init__(self, error: WriterError, text: str):
        super().__init__(error.message)
        self.error = error
        self.text = text


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _describe(reason: Any) -> str:
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__


def _snippet(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").strip().replace("\n", " ")
    if not text:
        return "(empty body)"
    return text[:_MAX_ERROR_TEXT] + ("..." if len(text) > _MAX_ERROR_TEXT else "")


def _error_text(raw: bytes) -> str:
    """The human part of an error body: OpenAI-style {"error": {"message": ...}} or the text."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return _snippet(raw) if raw.strip() else ""
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail")
            if isinstance(msg, str):
                return _snippet(msg.encode("utf-8"))
        elif isinstance(err, str):
            return _snippet(err.encode("utf-8"))
        if isinstance(data.get("detail"), str):
            return _snippet(data["detail"].encode("utf-8"))
        if isinstance(data.get("message"), str):
            return _snippet(data["message"].encode("utf-8"))
    return _snippet(raw)
