"""Building the writer backend from the writer settings: the one place a backend is chosen and made."""

from __future__ import annotations

import os

from hymem_cli import config
from hymem_cli._errors import NotFoundError, WriterError
from hymem_cli.writer.backend import WriterBackend

BACKENDS = ("llama", "openai", "scripted")
NO_WRITER_HINT = (
    "use --raw to store messages as they are, --model PATH.gguf for a local writer, "
    "or --backend openai --base-url URL for a server (each also a config key: writer.model, writer.backend, writer.base_url)"
)


def model_path(name: str):
    """The writer's GGUF, by the one resolver `hymem model` uses; a missing model is a writer error (exit 6)."""
    from hymem_cli.writer.models import resolve

    try:
        return resolve(name)
    except NotFoundError as exc:
        raise WriterError(exc.message, hint=exc.hint) from None


def build_backend(writer: config.WriterSettings) -> WriterBackend:
    """The configured writer backend, ready to answer (a llama model is loaded here)."""
    if not writer.kind:
        raise WriterError("no memory writer is configured", hint=NO_WRITER_HINT)
    if writer.kind == "llama":
        if not writer.model:
            raise WriterError("the llama backend needs a model", hint="give --model PATH.gguf or set writer.model")
        from hymem_cli.writer.llama_backend import LlamaBackend

        return LlamaBackend(
            str(model_path(writer.model)),
            n_ctx=writer.n_ctx,
            n_threads=writer.threads or None,
            n_gpu_layers=writer.n_gpu_layers,
            max_tokens=writer.max_tokens,
            state_dir=config.cache_dir() / "kv" if writer.kv_cache else None,
        )
    if writer.kind == "openai":
        if not writer.base_url:
            raise WriterError("the openai backend needs a server URL", hint="give --base-url http://HOST:PORT/v1 or set writer.base_url")
        from hymem_cli.writer.openai_backend import OpenAIBackend

        return OpenAIBackend(writer.base_url, writer.model or "hy-memory", timeout=writer.timeout, max_tokens=writer.max_tokens)
    from hymem_cli.writer.scripted import ScriptedBackend

    return ScriptedBackend.from_file(writer.model or os.environ.get("HYMEM_SCRIPTED_REPLIES", ""))
