"""Where hymem keeps things, and the settings it reads: defaults < config file < HYMEM_* env < flags."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from hymem_cli._errors import ConfigError

# Every key, its default and what it means. `hymem config` and the docs are generated from this.
KEYS: dict[str, tuple[object, str]] = {
    "bank.path": ("", "path of the bank file (default: bank.db in the data directory; HYMEM_BANK overrides)"),
    "embed.model": ("all-MiniLM-L6-v2", "sentence-transformers model name or path; 'hash' is a non-semantic test embedder"),
    "embed.onnx": (True, "run the embedder from torch-free copies made on first ingest: numpy for queries, ONNX for batches"),
    "search.limit": (10, "results per query"),
    "search.vector_weight": (0.5, "weight of vector similarity in rank fusion"),
    "search.server": (True, "ask a running hymem serve for the bank first (falls back to searching in process)"),
    "search.text_weight": (1.0, "weight of full-text (BM25) rank in rank fusion"),
    "ingest.chunk_tokens": (768, "token budget of one transcript chunk"),
    "writer.backend": ("", "llama or openai; empty means no writer is configured"),
    "writer.model": ("", "GGUF path or name in the models directory (llama), or served model name (openai)"),
    "writer.base_url": ("", "OpenAI-compatible base URL, e.g. http://localhost:8000/v1"),
    "writer.pipeline": ("single", "single (one call per chunk) or two-pass (extract, then reconcile)"),
    "writer.n_ctx": (8192, "llama.cpp context size"),
    "writer.n_gpu_layers": (-1, "layers offloaded to the GPU (-1: all, 0: CPU only)"),
    "writer.threads": (0, "llama.cpp threads (0: automatic)"),
    "writer.max_tokens": (1024, "longest writer answer, in tokens"),
    "writer.kv_cache": (True, "keep llama.cpp's state after the fixed instructions on disk, so later runs skip evaluating them"),
    "writer.timeout": (120.0, "seconds before an OpenAI-compatible request times out"),
    "writer.related": (8, "existing memories shown to the writer per chunk"),
    "screen.instructions": (True, "refuse writer facts that are instructions to the agent (ignore previous instructions, fake SYSTEM turns)"),
    "screen.secrets": (True, "redact secrets (API keys, tokens, passwords, card numbers) before storing or sending text to the writer"),
    "bank.busy_timeout": (30.0, "seconds to wait for another hymem writing the same bank"),
    "model.repo": ("tencent/Hy-Memory-30B-A3B-GGUF", "Hugging Face repository `hymem model pull` uses by default"),
}


def home() -> Path | None:
    value = os.environ.get("HYMEM_HOME")
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    if (h := home()) is not None:
        return h
    from platformdirs import user_data_dir

    return Path(user_data_dir("hymem", appauthor=False))


def config_path() -> Path:
    if (h := home()) is not None:
        return h / "config.toml"
    from platformdirs import user_config_dir

    return Path(user_config_dir("hymem", appauthor=False)) / "config.toml"


def cache_dir() -> Path:
    """Derived files that can be rebuilt (the ONNX copy of the embedder): HYMEM_CACHE, else under home."""
    if value := os.environ.get("HYMEM_CACHE"):
        return Path(value).expanduser()
    if (h := home()) is not None:
        return h / "cache"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("hymem", appauthor=False))


def models_dir() -> Path:
    return data_dir() / "models"


def env_name(key: str) -> str:
    return "HYMEM_" + key.upper().replace(".", "_")


def _coerce(key: str, value: object) -> object:
    default = KEYS[key][0]
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                return value.lower() in ("1", "true", "yes", "on")
            return bool(value)
        if isinstance(default, int):
            return int(value)  # type: ignore[arg-type]
        if isinstance(default, float):
            return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(
            f"invalid value {value!r} for {key}: expected {type(default).__name__}",
            hint=f"fix it with `hymem config set {key} VALUE` or unset {env_name(key)}",
        ) from None
    return str(value)


def read_file(path: Path | None = None) -> dict[str, object]:
    """The config file flattened to dotted keys ({"writer.model": ...})."""
    path = path or config_path()
    if not path.exists():
        return {}
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", hint="fix or remove the file") from None
    flat: dict[str, object] = {}

    def walk(prefix: str, table: dict) -> None:
        for k, v in table.items():
            name = f"{prefix}{k}"
            if isinstance(v, dict):
                walk(name + ".", v)
            else:
                flat[name] = v

    walk("", doc)
    return flat


@dataclass
class Settings:
    values: dict[str, object]

    def __getitem__(self, key: str):
        return self.values[key]


def load(overrides: dict[str, object] | None = None) -> Settings:
    """Resolve every key: defaults, then the config file, then HYMEM_* variables, then `overrides`."""
    values = {k: d for k, (d, _) in KEYS.items()}
    for k, v in read_file().items():
        if k not in KEYS:
            raise ConfigError(f"unknown key {k!r} in {config_path()}", hint="run `hymem config list` for the known keys")
        values[k] = _coerce(k, v)
    for k in KEYS:
        if (v := os.environ.get(env_name(k))) is not None:
            values[k] = _coerce(k, v)
    for k, v in (overrides or {}).items():
        if v is not None:
            values[k] = _coerce(k, v)
    return Settings(values)


def bank_path(explicit: str | None = None) -> Path:
    """--bank, then HYMEM_BANK, then the config's `bank.path`, then bank.db in the data directory."""
    chosen = explicit or os.environ.get("HYMEM_BANK") or str(load()["bank.path"] or "")
    return Path(chosen).expanduser() if chosen else data_dir() / "bank.db"


# -- writing the config file (`hymem config set|unset|edit`) ---------------------------------

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def check_key(key: str) -> str:
    if key not in KEYS:
        raise ConfigError(f"unknown config key {key!r}", hint="run `hymem config list` for the known keys")
    return key


def parse_value(key: str, value: str) -> object:
    """A command-line string as the key's type (that of its default); a bad value raises ConfigError."""
    default = KEYS[check_key(key)][0]
    if isinstance(default, bool):  # stricter than _coerce: a typo must not silently read as false
        if value.strip().lower() not in _TRUE + _FALSE:
            raise ConfigError(f"invalid value {value!r} for {key}: expected true or false", hint=f"hymem config set {key} true")
        return value.strip().lower() in _TRUE
    try:
        return _coerce(key, value)
    except ConfigError:
        example = {int: "10", float: "0.5"}.get(type(default), "TEXT")
        raise ConfigError(
            f"invalid value {value!r} for {key}: expected {type(default).__name__}", hint=f"e.g. hymem config set {key} {example}"
        ) from None


def check_file(path: Path | None = None) -> dict[str, object]:
    """The file's keys, each known and of the right type; raises ConfigError naming the first bad one."""
    path = path or config_path()
    flat = read_file(path)
    for k, v in flat.items():
        if k not in KEYS:
            raise ConfigError(f"unknown key {k!r} in {path}", hint="run `hymem config list` for the known keys")
        _coerce(k, v)
    return flat


def to_toml(flat: dict[str, object]) -> str:
    """Dotted keys as nested tables (writer.model -> [writer] model = ...), in KEYS order."""
    import tomli_w

    order = {k: i for i, k in enumerate(KEYS)}
    doc: dict[str, object] = {}
    for key in sorted(flat, key=lambda k: (order.get(k, len(order)), k)):
        parts = key.split(".")
        table = doc
        for part in parts[:-1]:
            table = table.setdefault(part, {})  # type: ignore[assignment]
        table[parts[-1]] = flat[key]
    return tomli_w.dumps(doc)


def write_file(flat: dict[str, object], path: Path | None = None) -> Path:
    """Replace the config file with `flat` (dotted keys), atomically; comments are not kept."""
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(to_toml(flat), encoding="utf-8")
    os.replace(tmp, path)
    return path


def set_value(key: str, value: str, path: Path | None = None) -> object:
    """Store `key = value` in the config file (typed like the key's default); returns the stored value."""
    typed = parse_value(key, value)
    flat = read_file(path)
    flat[key] = typed
    write_file(flat, path)
    return typed


def unset_value(key: str, path: Path | None = None) -> bool:
    """Remove `key` from the config file; False if it was not there (the file is then untouched)."""
    check_key(key)
    flat = read_file(path)
    if key not in flat:
        return False
    del flat[key]
    write_file(flat, path)
    return True


def describe() -> list[dict]:
    """Every key with its effective value, where that value comes from (default|file|env), default and doc."""
    values = load().values
    in_file = read_file()
    rows = []
    for key, (default, doc) in KEYS.items():
        source = "env" if os.environ.get(env_name(key)) is not None else "file" if key in in_file else "default"
        rows.append({"key": key, "value": values[key], "source": source, "default": default, "env": env_name(key), "doc": doc})
    return rows
