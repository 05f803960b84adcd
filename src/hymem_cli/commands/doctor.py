"""`hymem doctor`: check the installation, the configured writer and embedder, and the bank's invariants."""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from hymem_cli import _output, config
from hymem_cli._errors import HymemError
from hymem_cli.bank.verify import stored_embed_model, verify_path
from hymem_cli.commands._options import BankOpt, FormatOpt
from hymem_cli.domain import FAIL, OK, WARN
from hymem_cli.writer.factory import probe, probe_protocol

COLUMNS = [("check", "check"), ("status", "status"), ("detail", "detail"), ("hint", "hint")]
CPU_FLAGS = ("avx2", "avx512f", "amx_tile")


def _check(name: str, status: str, detail: str, hint: str | None = None) -> dict[str, Any]:
    return {"check": name, "status": status, "detail": detail, "hint": hint}


# -- the platform ------------------------------------------------------------------------------


def check_python() -> dict:
    version = platform.python_version()
    if sys.version_info < (3, 11):
        return _check("python", FAIL, f"Python {version}", "hymem needs Python 3.11 or newer")
    return _check("python", OK, f"Python {version} ({sys.executable})")


def _memory_connection():
    from hymem_cli.bank.db import sqlite_module

    return sqlite_module().connect(":memory:")


def check_sqlite() -> dict:
    try:
        from hymem_cli.bank.db import sqlite_module

        module = sqlite_module()
    except HymemError as exc:
        return _check("sqlite", FAIL, exc.message, exc.hint)
    conn = module.connect(":memory:")
    try:
        conn.enable_load_extension(True)
        loads = "can load extensions"
    except Exception as exc:  # noqa: BLE001 - any failure here means "cannot"
        return _check("sqlite", FAIL, f"{module.__name__} (SQLite {module.sqlite_version}) cannot load extensions: {exc}", "pip install sqlean-py")
    finally:
        conn.close()
    return _check("sqlite", OK, f"{module.__name__} (SQLite {module.sqlite_version}), {loads}")


def check_sqlite_vec() -> dict:
    try:
        from hymem_cli.bank.db import vec_extension

        conn = _memory_connection()
        try:
            conn.enable_load_extension(True)
            conn.load_extension(vec_extension())  # as the bank loads it; not installed: a HymemError
            version = conn.execute("select vec_version()").fetchone()[0]
        finally:
            conn.close()
    except HymemError as exc:
        return _check("sqlite-vec", FAIL, exc.message, exc.hint)
    except Exception as exc:  # noqa: BLE001
        return _check("sqlite-vec", FAIL, f"sqlite-vec does not load: {exc}", "pip install -U sqlite-vec sqlean-py")
    return _check("sqlite-vec", OK, f"sqlite-vec {version} loads")


def check_fts5() -> dict:
    try:
        conn = _memory_connection()
        try:
            conn.execute("CREATE VIRTUAL TABLE probe USING fts5(text, tokenize='porter unicode61')")
        finally:
            conn.close()
    except HymemError as exc:
        return _check("fts5", FAIL, exc.message, exc.hint)
    except Exception as exc:  # noqa: BLE001
        return _check("fts5", FAIL, f"FTS5 is not available: {exc}", "pip install sqlean-py (it bundles a SQLite with FTS5)")
    return _check("fts5", OK, "FTS5 with the porter tokenizer is available")


def check_llama_cpp(needed: bool) -> dict:
    from hymem_cli.writer import llama_binding

    try:
        version = llama_binding.version()
    except ImportError:
        status = FAIL if needed else WARN
        return _check("llama-cpp", status, "llama-cpp-python is not installed: local GGUF writers cannot run",
                      "pip install llama-cpp-python, or use an OpenAI-compatible server (writer.backend openai)")
    try:
        gpu = llama_binding.supports_gpu_offload()
    except Exception:  # noqa: BLE001 - an old binding without the function
        gpu = False
    where = "GPU offload supported" if gpu else "CPU only (no GPU offload in this build)"
    return _check("llama-cpp", OK, f"llama-cpp-python {version}, {where}")


def check_gpu() -> dict | None:
    """The GPU llama.cpp would use and its free memory (ggml's devices); None without llama-cpp-python."""
    from hymem_cli.writer import llama_binding

    try:
        offload = llama_binding.supports_gpu_offload()
        gpus = [d for d in llama_binding.devices() if d.is_gpu]
    except ImportError:
        return None
    if not offload:
        return _check("gpu", OK, "no GPU device: this llama.cpp build runs on the CPU only",
                      "for a GPU, reinstall llama-cpp-python built for it, e.g. CMAKE_ARGS=-DGGML_CUDA=on pip install --force-reinstall --no-binary llama-cpp-python llama-cpp-python")
    if not gpus:
        return _check("gpu", WARN, "no GPU device: this llama.cpp build has GPU offload but finds no GPU", "check the GPU driver (nvidia-smi)")
    return _check("gpu", OK, "; ".join(f"{d.name} ({d.description}): {d.free / 2**30:.1f} GiB free of {d.total / 2**30:.1f} GiB" for d in gpus))


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str] | None:
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def check_cpu() -> dict:
    flags = cpu_flags()
    if flags is None:
        return _check("cpu", OK, f"{platform.machine()}; CPU flags unknown (no /proc/cpuinfo)")
    present = [f for f in CPU_FLAGS if f in flags]
    detail = f"{platform.machine()}, {os.cpu_count()} cores; " + (", ".join(present) if present else "none of " + ", ".join(CPU_FLAGS))
    if "amx_tile" in flags:
        detail += "; AMX: hymem disables llama.cpp weight repacking on CPU loads (it crashes with AMX)"
    if platform.machine() in ("x86_64", "AMD64") and "avx2" not in flags:
        return _check("cpu", WARN, detail, "without AVX2 a local writer model runs very slowly; consider a server backend")
    return _check("cpu", OK, detail)


# -- models ------------------------------------------------------------------------------------


def check_embedder(settings: config.Settings, bank_model: str | None) -> dict:
    """The embedder the bank is searched with: its own packaged model (Memory.embed_model), else embed.model."""
    from hymem_cli.embed import PACKAGED, canonical_model, get_embedder

    configured = canonical_model(settings.embed.model)
    name = bank_model if bank_model in PACKAGED else configured
    start = time.perf_counter()
    try:
        embedder = get_embedder(name, fast=settings.embed.onnx)
    except HymemError as exc:
        return _check("embedder", FAIL, exc.message, exc.hint)
    seconds = time.perf_counter() - start
    source = {"FastEmbedder": "numpy copy for queries, ONNX copy for batches", "OnnxEmbedder": "ONNX copy",
              "SentenceTransformerEmbedder": "torch (the first `hymem add` makes torch-free copies)"}.get(type(embedder).__name__)
    detail = f"{embedder.name}: {embedder.dim}-d, loaded in {seconds:.1f} s" + (f" from {source}" if source else "")
    if name != configured:
        detail += f" (the bank's model; embed.model, {configured}, is for new banks and `hymem reembed`)"
    if bank_model is not None and bank_model != embedder.name:
        return _check("embedder", FAIL, f"{detail}; the bank holds {bank_model} vectors",
                      f"set embed.model to {bank_model} (HYMEM_EMBED_MODEL={bank_model}), or move the bank with `hymem reembed --model {embedder.name}`")
    return _check("embedder", OK, detail)


def check_writer(settings: config.Settings, load: bool) -> Iterator[dict]:
    for finding in probe(settings.writer, load):
        yield _record(finding)
    yield _record(probe_protocol(settings.writer))


# -- the bank ------------------------------------------------------------------------------------


def check_bank(path: Path) -> Iterator[dict]:
    for finding in verify_path(path):
        yield _record(finding)


def _record(finding) -> dict[str, Any]:
    """A finding of the bank's or the writer's checks as one of doctor's records."""
    return _check(finding.check, finding.status, finding.detail, finding.hint)


def run_checks(bank_opt: str | None, load: bool = False) -> Iterator[dict]:
    """Every check, in order, as records {check, status, detail, hint}."""
    yield check_python()
    yield check_sqlite()
    yield check_sqlite_vec()
    yield check_fts5()
    try:
        settings = config.load()
        choice = config.locate_bank(bank_opt, settings)
    except HymemError as exc:
        yield _check("config", FAIL, exc.message, exc.hint)
        return
    bank = choice.path
    yield _check("config", OK, f"{config.config_path()}" + ("" if config.config_path().exists() else " (not created; defaults apply)"))
    if (project := config.project_config_path()) is not None:
        if notice := config.ignored_notice(settings):
            yield _check("project config", WARN, notice, f"hymem trust {project.parent.parent}")
        else:
            yield _check("project config", OK, f"{project} overrides the user's settings" + ("" if project.exists() else " (not created)"))
    if choice.refusal:
        yield _check("bank path", FAIL, f"{bank}: {choice.refusal}: not used", f"check {bank.parent}, then `hymem trust {bank.parent.parent}`; or give --bank")
    else:
        yield _check("bank path", OK, f"{bank}: {choice.detail}")
    yield check_llama_cpp(needed=settings.writer.kind == "llama")
    if (gpu := check_gpu()) is not None:
        yield gpu
    yield check_cpu()
    yield check_embedder(settings, None if choice.refusal else stored_embed_model(bank))
    yield from check_writer(settings, load)
    if not choice.refusal:  # an untrusted project's bank is not opened, not even to check it
        yield from check_bank(bank)


def doctor(
    load: Annotated[bool, typer.Option("--load", help="Also load the writer model with llama.cpp and time it (slow for large models).")] = False,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
) -> None:
    """Check that hymem can work here: SQLite with sqlite-vec and FTS5, llama.cpp, the CPU, the embedder,
    the configured writer, and the bank's integrity and invariants. Exits 1 when a check fails.

    Each result is {check, status (ok, warn, fail), detail, hint}.

    Examples:

      hymem doctor

      hymem doctor --load --bank work.db

      hymem doctor -f jsonl | jq -c 'select(.status != "ok")'
    """
    statuses: list[str] = []

    def recorded() -> Iterator[dict]:
        for result in run_checks(bank, load):
            statuses.append(result["status"])
            yield result

    _output.emit(recorded(), fmt, COLUMNS, plain=lambda r: f"{r['status']}\t{r['check']}\t{r['detail']}" + (f"\t{r['hint']}" if r["hint"] else ""))
    failed = statuses.count(FAIL)
    if failed:
        _output.Output().info(f"{failed} check(s) failed")
        raise typer.Exit(1)
