"""Building the writer backend from the writer settings: the one place a backend is chosen and made, and probed."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from hymem_cli import config
from hymem_cli._errors import NotFoundError, WriterError
from hymem_cli.domain import FAIL, OK, WARN, Finding
from hymem_cli.writer.backend import WriterBackend

NO_WRITER_HINT = (
    "use --raw to store messages as they are; --model NAME for a local writer (`hymem model list` shows what is here, "
    "`--model smollm2` is a tiny packaged one to try the path offline, `hymem model pull` gets Hy-Memory); "
    "or --backend openai --base-url URL for a server (config keys writer.model, writer.backend, writer.base_url)"
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
            gpu_layers=writer.layers_on_gpu,
            experts=writer.experts,
            max_tokens=writer.max_tokens,
            state_dir=config.cache_dir() / "kv" if writer.kv_cache else None,
        )
    if writer.kind == "openai":
        if not writer.base_url:
            raise WriterError("the openai backend needs a server URL", hint="give --base-url http://HOST:PORT/v1 or set writer.base_url")
        from hymem_cli.writer.openai_backend import OpenAIBackend

        return OpenAIBackend(writer.base_url, writer.model or "hy-memory", timeout=writer.timeout, max_tokens=writer.max_tokens,
                             send_key=writer.send_key)
    from hymem_cli.writer.scripted import ScriptedBackend

    return ScriptedBackend.from_file(writer.model or os.environ.get("HYMEM_SCRIPTED_REPLIES", ""))


def probe(writer: config.WriterSettings, load: bool = False) -> Iterator[Finding]:
    """Can the configured writer work here? Its model file or its server, and with `load` the model loaded as `hymem add` loads it."""
    if not writer.kind:
        yield Finding("writer", WARN, "no memory writer is configured: only `hymem add --raw` and `hymem apply` can store memories", NO_WRITER_HINT)
    elif writer.kind == "llama":
        yield from _probe_llama(writer, load)
    elif writer.kind == "openai":
        yield _probe_server(writer)
    else:
        yield Finding("writer", WARN, f"scripted backend (replays {writer.model or '$HYMEM_SCRIPTED_REPLIES'}): for tests only",
                      "hymem config set writer.backend llama")


def probe_protocol(writer: config.WriterSettings) -> Finding:
    """Whether Hy-Memory's own protocol can be spoken: the SDK installed and its prompts found."""
    from hymem_cli.writer import hy_memory

    try:
        prompts = hy_memory.load_prompts()
    except WriterError as exc:
        status = FAIL if writer.protocol == "hy-memory" else WARN
        return Finding("writer protocol", status, f"{exc.message}; a Hy-Memory model would be spoken to in hymem's own protocol", exc.hint)
    return Finding("writer protocol", OK, f"{writer.protocol}: the Hy-Memory SDK {prompts.version} is installed and its {len(prompts.texts)} prompts "
                   f"were found ({prompts.digest[:15]}…)")


def _probe_llama(writer: config.WriterSettings, load: bool) -> Iterator[Finding]:
    from hymem_cli.writer.gguf import inspect_gguf

    if not writer.model:
        yield Finding("writer", FAIL, "the llama backend is configured but no model", "hymem config set writer.model PATH.gguf (see `hymem model list`)")
        return
    try:
        path = model_path(writer.model)
        facts = inspect_gguf(path)
    except WriterError as exc:
        yield Finding("writer", FAIL, f"writer model: {exc.message}",
                      f"{exc.hint}; see `hymem model list`, or `hymem model pull`" if exc.hint else "see `hymem model list`, or `hymem model pull`")
        return
    experts = f", {facts['expert_used_count']} of {facts['expert_count']} experts per token" if facts["expert_count"] else ""
    yield Finding("writer", OK, f"llama: {path} ({facts['architecture']}, {facts['quantization'] or 'unknown quantization'}, "
                  f"{facts['size_bytes'] / 1e9:.2f} GB{experts})")
    yield from _probe_placement(writer, path)
    if not load:
        return
    start = time.perf_counter()
    try:
        backend = build_backend(writer)
    except WriterError as exc:
        yield Finding("writer load", FAIL, exc.message, exc.hint)
        return
    seconds = time.perf_counter() - start
    extra = backend.info().extra
    backend.close()
    placed = extra.get("placement") or {}
    experts = f", experts on the {placed['experts'].upper()}" if placed.get("experts") else ""
    yield Finding("writer load", OK, f"loaded in {seconds:.1f} s: {extra.get('n_gpu_layers')} GPU layers{experts}, template {extra.get('template')}, n_ctx {extra.get('n_ctx')}")


def _probe_placement(writer: config.WriterSettings, path) -> Iterator[Finding]:
    """Where the model's weights would go here (writer.gpu_layers, writer.experts), as `hymem add` would load it."""
    from hymem_cli.writer.llama_backend import placement_for

    try:
        placement = placement_for(path, writer.n_ctx, writer.layers_on_gpu, writer.experts)
    except ImportError:
        return  # doctor's llama-cpp check already says it is missing
    except (ValueError, WriterError) as exc:
        yield Finding("writer placement", FAIL, str(getattr(exc, "message", exc)), "hymem config set writer.gpu_layers auto")
        return
    hint = None
    if writer.n_gpu_layers >= 0:
        hint = f"writer.n_gpu_layers is deprecated: hymem config set writer.gpu_layers {writer.n_gpu_layers} && hymem config unset writer.n_gpu_layers"
    yield Finding("writer placement", WARN if hint else OK, placement.describe(), hint)


def _probe_server(writer: config.WriterSettings) -> Finding:
    from hymem_cli.writer.openai_backend import OpenAIBackend

    if not writer.base_url:
        return Finding("writer", FAIL, "the openai backend is configured but no server URL", "hymem config set writer.base_url http://HOST:PORT/v1")
    model = writer.model or "hy-memory"
    try:
        server = OpenAIBackend(writer.base_url, model, timeout=3, send_key=writer.send_key)  # as `hymem add` talks to it: same URL, same key
    except WriterError as exc:
        return Finding("writer", FAIL, f"openai: {exc.message}", "hymem config set writer.base_url http://HOST:PORT/v1")
    try:
        served = server.served_models()
    except WriterError as exc:
        return Finding("writer", WARN, f"openai: {exc.message}", exc.hint)
    if served and model not in served:
        return Finding("writer", WARN, f"openai: {writer.base_url} serves {', '.join(served)}, not {model!r}", f"hymem config set writer.model {served[0]}")
    return Finding("writer", OK, f"openai: {writer.base_url} answers; serves {', '.join(served) or 'models'}")
