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
from hymem_cli.commands._options import BankOpt, FormatOpt

OK, WARN, FAIL = "ok", "warn", "fail"
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
    try:
        import llama_cpp
    except ImportError:
        status = FAIL if needed else WARN
        return _check("llama-cpp", status, "llama-cpp-python is not installed: local GGUF writers cannot run",
                      "pip install llama-cpp-python, or use an OpenAI-compatible server (writer.backend openai)")
    version = getattr(llama_cpp, "__version__", "?")
    try:
        gpu = bool(llama_cpp.llama_supports_gpu_offload())
    except Exception:  # noqa: BLE001 - an old binding without the function
        gpu = False
    where = "GPU offload supported" if gpu else "CPU only (no GPU offload in this build)"
    return _check("llama-cpp", OK, f"llama-cpp-python {version}, {where}")


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
    name = settings.embed.model
    start = time.perf_counter()
    try:
        from hymem_cli.embed import get_embedder

        embedder = get_embedder(name, fast=settings.embed.onnx)
    except HymemError as exc:
        return _check("embedder", FAIL, exc.message, exc.hint)
    seconds = time.perf_counter() - start
    source = {"FastEmbedder": "numpy copy for queries, ONNX copy for batches", "OnnxEmbedder": "ONNX copy",
              "SentenceTransformerEmbedder": "torch (the first `hymem add` makes torch-free copies)"}.get(type(embedder).__name__)
    detail = f"{embedder.name}: {embedder.dim}-d, loaded in {seconds:.1f} s" + (f" from {source}" if source else "")
    if bank_model is not None and bank_model != embedder.name:
        return _check("embedder", FAIL, f"{detail}; the bank holds {bank_model} vectors",
                      f"set embed.model to {bank_model} (HYMEM_EMBED_MODEL={bank_model}) or use another bank")
    return _check("embedder", OK, detail)


def check_writer(settings: config.Settings, load: bool) -> Iterator[dict]:
    from hymem_cli.writer.factory import NO_WRITER_HINT

    model = settings.writer.model
    backend = settings.writer.kind
    if not backend:
        yield _check("writer", WARN, "no memory writer is configured: only `hymem add --raw` and `hymem apply` can store memories", NO_WRITER_HINT)
        return
    if backend == "llama":
        yield from _check_llama_writer(settings, model, load)
    elif backend == "openai":
        yield _check_server(settings.writer.base_url, model or "hy-memory")
    else:
        yield _check("writer", WARN, f"scripted backend (replays {model or '$HYMEM_SCRIPTED_REPLIES'}): for tests only",
                     "hymem config set writer.backend llama")


def _check_llama_writer(settings: config.Settings, model: str, load: bool) -> Iterator[dict]:
    from hymem_cli._errors import WriterError
    from hymem_cli.writer.factory import build_backend, model_path
    from hymem_cli.writer.gguf import inspect_gguf

    if not model:
        yield _check("writer", FAIL, "the llama backend is configured but no model", "hymem config set writer.model PATH.gguf (see `hymem model list`)")
        return
    try:
        path = model_path(model)
        facts = inspect_gguf(path)
    except WriterError as exc:
        yield _check("writer", FAIL, f"writer model: {exc.message}",
                     f"{exc.hint}; see `hymem model list`, or `hymem model pull`" if exc.hint else "see `hymem model list`, or `hymem model pull`")
        return
    experts = f", {facts['expert_used_count']} of {facts['expert_count']} experts per token" if facts["expert_count"] else ""
    yield _check("writer", OK, f"llama: {path} ({facts['architecture']}, {facts['quantization'] or 'unknown quantization'}, "
                 f"{facts['size_bytes'] / 1e9:.2f} GB{experts})")
    if not load:
        return
    start = time.perf_counter()
    try:
        backend = build_backend(settings.writer)
    except WriterError as exc:
        yield _check("writer load", FAIL, exc.message, exc.hint)
        return
    seconds = time.perf_counter() - start
    extra = backend.info().extra
    backend.close()
    yield _check("writer load", OK, f"loaded in {seconds:.1f} s: {extra.get('n_gpu_layers')} GPU layers, template {extra.get('template')}, n_ctx {extra.get('n_ctx')}")


def _check_server(base_url: str, model: str) -> dict:
    import json
    import urllib.error
    import urllib.request

    if not base_url:
        return _check("writer", FAIL, "the openai backend is configured but no server URL", "hymem config set writer.base_url http://HOST:PORT/v1")
    url = base_url.rstrip("/") + "/models"
    request = urllib.request.Request(url, headers={"Accept": "application/json", **_auth_header()})
    try:
        with urllib.request.urlopen(request, timeout=3) as response:
            body = json.loads(response.read().decode("utf-8", errors="replace") or "{}")
    except urllib.error.HTTPError as exc:
        return _check("writer", WARN, f"openai: GET {url} answered HTTP {exc.code}", "check writer.base_url (it usually ends in /v1)")
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        return _check("writer", WARN, f"openai: {url} is unreachable ({reason})", "start the server, or fix writer.base_url")
    except ValueError:
        return _check("writer", WARN, f"openai: GET {url} did not answer JSON", "check writer.base_url points at an OpenAI-compatible API")
    served = [str(m.get("id")) for m in body.get("data", []) if isinstance(m, dict)] if isinstance(body, dict) else []
    if served and model not in served:
        return _check("writer", WARN, f"openai: {base_url} serves {', '.join(served)}, not {model!r}", f"hymem config set writer.model {served[0]}")
    return _check("writer", OK, f"openai: {base_url} answers; serves {', '.join(served) or 'models'}")


def _auth_header() -> dict[str, str]:
    key = os.environ.get("HYMEM_API_KEY") or os.environ.get("OPENAI_API_KEY")
    return {"Authorization": f"Bearer {key}"} if key else {}


# -- the bank ------------------------------------------------------------------------------------

INVARIANTS = [
    (
        "chains: one current version",
        ("SELECT chain, count(*) FROM versions v WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id) "
         "GROUP BY chain HAVING count(*) > 1 ORDER BY chain"),
        lambda rows: "chains with several current versions: " + ", ".join(f"m{c} ({n})" for c, n in rows[:10]),
    ),
    (
        "chains: successors",
        ("SELECT r.version, r.successor FROM retirements r JOIN versions a ON a.id = r.version "
         "LEFT JOIN versions b ON b.id = r.successor WHERE r.successor IS NOT NULL AND (b.id IS NULL OR b.chain != a.chain) ORDER BY r.version"),
        lambda rows: "retirements whose successor is missing or in another chain: " + ", ".join(f"m{v} -> m{s}" for v, s in rows[:10]),
    ),
    (
        "chains: roots",
        "SELECT v.id, v.chain FROM versions v LEFT JOIN versions h ON h.id = v.chain WHERE h.id IS NULL OR h.chain != v.chain ORDER BY v.id",
        lambda rows: "versions whose chain is not a version of that chain: " + ", ".join(f"m{v} (chain {c})" for v, c in rows[:10]),
    ),
]
BANK_HINT = "restore from a backup: hymem export > backup.jsonl; hymem import backup.jsonl --bank new.db"


def _open_read_only(path: Path):
    """The bank without migrating or writing anything, with sqlite-vec loaded so its table can be read."""
    from hymem_cli.bank.db import sqlite_module, vec_extension

    sqlite = sqlite_module()
    conn = sqlite.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    conn.enable_load_extension(True)
    try:
        conn.load_extension(vec_extension())
    except Exception:  # noqa: BLE001 - the vec check reports it
        pass
    return conn


def _tables(conn) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def check_bank(path: Path) -> Iterator[dict]:
    if not path.exists():
        yield _check("bank", WARN, f"no bank at {path} yet", "`hymem add` or `hymem apply` creates it")
        return
    try:
        conn = _open_read_only(path)
        tables = _tables(conn)
    except HymemError as exc:
        yield _check("bank", FAIL, exc.message, exc.hint)
        return
    except Exception as exc:  # noqa: BLE001 - any SQLite error here means an unreadable bank
        yield _check("bank", FAIL, f"cannot read {path}: {exc}", "check the path; " + BANK_HINT)
        return
    try:
        yield from _bank_checks(conn, path, tables)
    finally:
        conn.close()


def _bank_checks(conn, path: Path, tables: set[str]) -> Iterator[dict]:
    from hymem_cli.bank.migrations import MIGRATIONS

    if "versions" not in tables or "migrations" not in tables:
        yield _check("bank", FAIL, f"{path} is not a hymem bank (no versions table)", "check --bank / HYMEM_BANK")
        return
    applied = {r[0] for r in conn.execute("SELECT name FROM migrations")}
    unknown = applied - {fn.__name__ for fn in MIGRATIONS}
    versions = conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    revisions = conn.execute("SELECT count(*) FROM revisions").fetchone()[0]
    if unknown:
        yield _check("bank", FAIL, f"{path} was made by a newer hymem (migrations {', '.join(sorted(unknown))})", "pip install -U hymem")
        return
    yield _check("bank", OK, f"{path}: {versions} versions, {revisions} revision(s), {path.stat().st_size / 1e6:.1f} MB")

    problems = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    if problems == ["ok"]:
        yield _check("bank integrity", OK, "PRAGMA integrity_check: ok")
    else:
        yield _check("bank integrity", FAIL, "; ".join(problems[:5]), BANK_HINT)

    for name, sql, describe in INVARIANTS:
        rows = [tuple(r) for r in conn.execute(sql)]
        if rows:
            yield _check(name, FAIL, describe(rows), "the bank was edited outside hymem; " + BANK_HINT)
        else:
            yield _check(name, OK, "holds for every chain")

    # versions_fts is an external-content index: count its own rows (docsize), not the content table's.
    fts = conn.execute("SELECT count(*) FROM versions_fts_docsize").fetchone()[0] if "versions_fts_docsize" in tables else None
    yield _index_check("index: full-text", fts, versions)
    for table, label in (("versions_codes", "index: vector codes"), ("versions_floats", "index: vector copies")):
        if table in tables:
            yield _index_check(label, conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0], versions)
    if "versions_code_blocks" in tables:
        from hymem_cli.bank.codes import block_problems

        problems = block_problems(conn)
        if problems:
            yield _check("index: code blocks", FAIL, "; ".join(problems[:3]), "the bank was edited outside hymem; " + BANK_HINT)
        else:
            yield _check("index: code blocks", OK, "every block matches its codes")
    if "versions_vec" in tables:
        try:
            vec = conn.execute("SELECT count(*) FROM versions_vec_rowids").fetchone()[0]
        except Exception as exc:  # noqa: BLE001
            yield _check("index: vectors", FAIL, f"cannot read versions_vec: {exc}", "check sqlite-vec (see the sqlite-vec check)")
            return
        yield _index_check("index: vectors", vec, versions)
    elif versions:
        yield _check("index: vectors", FAIL, f"{versions} versions but no vector table", BANK_HINT)
    else:
        yield _check("index: vectors", OK, "no vectors yet (empty bank)")


def _index_check(name: str, rows: int | None, versions: int) -> dict:
    if rows is None:
        return _check(name, FAIL, "the index table is missing", BANK_HINT)
    if rows != versions:
        return _check(name, FAIL, f"{rows} index rows for {versions} versions", "rebuild the bank: " + BANK_HINT)
    return _check(name, OK, f"{rows} rows, one per version")


def _bank_embed_model(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        conn = _open_read_only(path)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()
        finally:
            conn.close()
    except Exception:  # noqa: BLE001 - the bank checks report an unreadable bank
        return None
    return row[0] if row else None


def run_checks(bank_opt: str | None, load: bool = False) -> Iterator[dict]:
    """Every check, in order, as records {check, status, detail, hint}."""
    yield check_python()
    yield check_sqlite()
    yield check_sqlite_vec()
    yield check_fts5()
    try:
        settings = config.load()
        bank = config.bank_path(bank_opt, settings)
    except HymemError as exc:
        yield _check("config", FAIL, exc.message, exc.hint)
        return
    yield _check("config", OK, f"{config.config_path()}" + ("" if config.config_path().exists() else " (not created; defaults apply)"))
    yield check_llama_cpp(needed=settings.writer.kind == "llama")
    yield check_cpu()
    yield check_embedder(settings, _bank_embed_model(bank))
    yield from check_writer(settings, load)
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
