"""Where hymem keeps things, and the settings it reads: defaults < config file < project config < HYMEM_* env < flags."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from hymem_cli import trust
from hymem_cli._errors import ConfigError
from hymem_cli.domain import CHUNK_TOKENS, EXPERT_PLACEMENTS, RELATED_MEMORIES

# Every key, its default and what it means. `hymem config` and the docs are generated from this.
KEYS: dict[str, tuple[object, str]] = {
    "bank.path": ("", "path of the bank file, as --bank gives it (default: bank.db in the data directory)"),
    "embed.model": ("all-MiniLM-L6-v2", "minilm (all-MiniLM-L6-v2), mpnet (all-mpnet-base-v2, optional), or a sentence-transformers folder; 'hash' is a non-semantic test embedder"),
    "embed.onnx": (True, "run the embedder from torch-free copies made on first ingest: numpy for queries, ONNX for batches"),
    "embed.context": (0, "characters of the previous turn (a writer's fact: its source messages) embedded with a new memory; 0: none"),
    "embed.date": (False, "embed a new memory with its event date in front of its text"),
    "search.limit": (10, "results per query"),
    "search.fusion": ("calibrated", "how results are ordered: calibrated (by score: meaning, the share of the query's words held, a named speaker, weighed and turned into a probability of relevance), minmax (each list's scores scaled to 0..1 per query, weighted mean) or rrf (weighted reciprocal rank); the score shown and the floor are the calibrated ones in every case"),
    "search.min_score": (0.02, "leave out results scoring below this (0..1, the chance that a memory is what the query asks for, fitted on the development set); 0 shows everything"),
    "search.vector_weight": (0.76, "weight of vector similarity in rank fusion"),
    "search.server": (True, "ask a running hymem serve for the bank first (falls back to searching in process)"),
    "search.text_weight": (0.24, "weight of full-text (BM25) in rank fusion"),
    "search.newer_first": (True, "within the top results, put a result above an older one it updates (close in meaning, two query words in common)"),
    "search.sources_weight": (0.0, "weight of a writer's fact's source messages (BM25 over them, facts only) in rank fusion; 0: the fact's own words only"),
    "search.speaker_updates": (True, "with newer_first, a result also updates an older one by the same speaker that is close to it in meaning and shares two of its words, or closer still when the query names that speaker or when it holds more of the query's words (thresholds: README, How search ranks)"),
    "search.speaker_weight": (0.17, "a query naming a speaker (\"Where does Nadia live?\"): the name is left out of its words and vector, and what that speaker said or what names them gets this weight in rank fusion; 0: off"),
    "ingest.chunk_tokens": (CHUNK_TOKENS, "token budget of one transcript chunk"),
    "writer.backend": ("", "llama or openai; empty means no writer is configured"),
    "writer.model": ("", "GGUF path or name in the models directory (llama), or served model name (openai)"),
    "writer.base_url": ("", "OpenAI-compatible base URL, e.g. http://localhost:8000/v1"),
    "writer.pipeline": ("single", "hymem protocol only: single (one call per chunk) or two-pass (extract, then reconcile)"),
    "writer.protocol": ("auto", "hy-memory (the Hy-Memory SDK's own prompts), hymem (hymem's one-call prompt), or auto: hy-memory for a Hy-Memory model"),
    "writer.user": ("", "the speaker who is \"the user\": whose own words may set the agent a rule (empty: each transcript's first "
                        "speaker who is neither an assistant nor a tool)"),
    "writer.intentions": (True, "hy-memory protocol: extract intentions (plans with a deadline) apart from memories"),
    "writer.n_ctx": (8192, "llama.cpp context size"),
    "writer.gpu_layers": ("auto", "layers on the GPU: auto (all that fit in its free memory), all, or a count (0: CPU only)"),
    "writer.experts": ("auto", "a mixture of experts' routed experts: gpu, cpu (in system memory, the rest on the GPU), or auto: cpu when the whole model does not fit in the GPU's free memory"),
    "writer.n_gpu_layers": (-1, "deprecated (writer.gpu_layers): a count >= 0 here still wins; -1 leaves it to writer.gpu_layers"),
    "writer.threads": (0, "llama.cpp threads (0: automatic)"),
    "writer.max_tokens": (1024, "longest writer answer, in tokens"),
    "writer.kv_cache": (True, "keep llama.cpp's state after the fixed instructions on disk, so later runs skip evaluating them"),
    "writer.timeout": (120.0, "seconds before an OpenAI-compatible request times out"),
    "writer.related": (RELATED_MEMORIES, "existing memories shown to the writer per chunk"),
    "screen.instructions": (True, "refuse writer facts that are instructions to the agent (ignore previous instructions, fake SYSTEM turns)"),
    "screen.secrets": (True, "redact secrets (API keys, tokens, passwords, card numbers) before storing or sending text to the writer"),
    "bank.busy_timeout": (30.0, "seconds to wait for another hymem writing the same bank"),
    "model.repo": ("tencent/Hy-Memory-30B-A3B-GGUF", "Hugging Face repository `hymem model pull` uses by default"),
    "hooks.briefing_tokens": (1500, "most tokens of memories an agent hook hands an agent when its session starts (hymem hook); 0: no briefing"),
    "hooks.recall_tokens": (600, "most tokens of memories an agent hook adds to a prompt, those relevant to it above search.min_score; 0: none"),
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
    """The HYMEM_* variable of a key; bank.path's is HYMEM_BANK, the one --bank reads too."""
    return "HYMEM_BANK" if key == "bank.path" else "HYMEM_" + key.upper().replace(".", "_")


# Values a key admits beyond its type: the same rule whether the value comes from a flag, the
# environment or the file, so a typo is an error everywhere and never a silent default.
CHOICES: dict[str, tuple[str, ...]] = {
    "search.fusion": ("calibrated", "minmax", "rrf"),
    "writer.backend": ("", "llama", "openai", "scripted"),
    "writer.pipeline": ("single", "two-pass"),
    "writer.protocol": ("auto", "hy-memory", "hymem"),
    "writer.experts": EXPERT_PLACEMENTS,
}
MINIMUM: dict[str, float] = {
    "search.limit": 1, "ingest.chunk_tokens": 16, "writer.n_ctx": 256, "writer.n_gpu_layers": -1, "writer.threads": 0,
    "writer.max_tokens": 1, "writer.timeout": 0.001, "writer.related": 0, "bank.busy_timeout": 0,
    "search.vector_weight": 0, "search.text_weight": 0, "search.sources_weight": 0, "search.speaker_weight": 0, "search.min_score": 0,
    "embed.context": 0, "hooks.briefing_tokens": 0, "hooks.recall_tokens": 0,
}
# The most a count may be, wherever it is set: a config file cannot make hymem show the writer a whole bank
# (writer.related) or wait for hours.
MAXIMUM: dict[str, float] = {
    "search.limit": 1_000_000, "search.min_score": 1, "ingest.chunk_tokens": 131_072, "writer.n_ctx": 1_048_576, "writer.threads": 1024,
    "writer.max_tokens": 65_536, "writer.timeout": 3600, "writer.related": 64, "bank.busy_timeout": 3600,
    "embed.context": 4096, "writer.n_gpu_layers": 100_000, "hooks.briefing_tokens": 50_000, "hooks.recall_tokens": 50_000,
}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _expected(key: str) -> str:
    default = KEYS[key][0]
    if key in CHOICES:
        return "one of " + ", ".join(repr(c) if not c else c for c in CHOICES[key])
    if isinstance(default, bool):
        return "true or false (also 1/0, yes/no, on/off)"
    kind = "int" if isinstance(default, int) else "float" if isinstance(default, float) else "text"
    if key in MINIMUM and key in MAXIMUM:
        return f"{kind} from {MINIMUM[key]:g} to {MAXIMUM[key]:.0f}"
    return f"{kind} >= {MINIMUM[key]:g}" if key in MINIMUM else kind


def coerce(key: str, value: object) -> object:
    """`value` as the key's type (that of its default), checked against its choices and minimum.

    Raises ValueError with what is accepted; callers say where the value came from."""
    import math

    default = KEYS[key][0]
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise ValueError(_expected(key))
    if isinstance(default, (int, float)):
        if isinstance(value, bool):
            raise ValueError(_expected(key))
        try:
            typed = int(value) if isinstance(default, int) else float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            raise ValueError(_expected(key)) from None
        if isinstance(default, int) and isinstance(value, float) and value != typed:
            raise ValueError(_expected(key))
        if isinstance(typed, float) and not math.isfinite(typed):
            raise ValueError(_expected(key))
        if (key in MINIMUM and typed < MINIMUM[key]) or (key in MAXIMUM and typed > MAXIMUM[key]):
            raise ValueError(_expected(key))
        return typed
    if not isinstance(value, str):
        raise ValueError(_expected(key))
    if key in CHOICES and value not in CHOICES[key]:
        raise ValueError(_expected(key))
    return value


TRUST_TABLE = "trust"  # the user's config only: the projects they trust (trust.py), kept apart from the settings


def _read_doc(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", hint="fix or remove the file") from None


def read_file(path: Path | None = None) -> dict[str, object]:
    """The config file's settings flattened to dotted keys ({"writer.model": ...}); the user's trust records are not settings."""
    path = path or config_path()
    doc = _read_doc(path)
    if path == config_path():
        doc.pop(TRUST_TABLE, None)
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


@dataclass(frozen=True)
class BankSettings:
    path: str
    busy_timeout: float


@dataclass(frozen=True)
class EmbedSettings:
    model: str
    onnx: bool
    context: int
    date: bool


@dataclass(frozen=True)
class SearchSettings:
    limit: int
    fusion: str
    vector_weight: float
    server: bool
    text_weight: float
    newer_first: bool
    speaker_updates: bool
    sources_weight: float
    speaker_weight: float
    min_score: float

    def ranking(self) -> dict[str, object]:
        """The ranking settings by name. Search takes them as one value, `bank.search.Ranking.of(settings.search)`;
        `bank.search.search` still accepts these names as keywords, floor included."""
        return {"vector_weight": self.vector_weight, "text_weight": self.text_weight, "fusion": self.fusion, "newer_first": self.newer_first,
                "speaker_updates": self.speaker_updates, "sources_weight": self.sources_weight,
                "speaker_weight": self.speaker_weight, "min_score": self.min_score}


@dataclass(frozen=True)
class IngestSettings:
    chunk_tokens: int


@dataclass(frozen=True)
class WriterSettings:
    backend: str
    model: str
    base_url: str
    pipeline: str
    protocol: str
    user: str
    intentions: bool
    n_ctx: int
    gpu_layers: str
    experts: str
    n_gpu_layers: int
    threads: int
    max_tokens: int
    kv_cache: bool
    timeout: float
    related: int
    # Whether an API key may go to base_url: not when the URL came from a project's config (trust.py).
    send_key: bool = True

    def __post_init__(self) -> None:
        # gpu_layers is a word or a count, which its type (text) alone cannot check.
        if self.gpu_layers not in ("auto", "all") and not (self.gpu_layers.isascii() and self.gpu_layers.isdigit()):
            raise ConfigError(f"invalid value {self.gpu_layers!r} for writer.gpu_layers: expected auto, all or a number of layers >= 0",
                              hint="hymem config set writer.gpu_layers auto (or give auto, all or a count where it was set)")

    @property
    def kind(self) -> str:
        """The backend in use: the one set, else llama when a model is set, else "" (no writer)."""
        return self.backend or ("llama" if self.model else "")

    @property
    def layers_on_gpu(self) -> int | str:
        """GPU layers as the backend takes them: the deprecated n_gpu_layers when set to a count, else gpu_layers."""
        if self.n_gpu_layers >= 0:
            return self.n_gpu_layers
        return int(self.gpu_layers) if self.gpu_layers.isdigit() else self.gpu_layers


@dataclass(frozen=True)
class ScreenSettings:
    instructions: bool
    secrets: bool


@dataclass(frozen=True)
class ModelSettings:
    repo: str


@dataclass(frozen=True)
class HooksSettings:
    briefing_tokens: int
    recall_tokens: int


SECTIONS = {"bank": BankSettings, "embed": EmbedSettings, "search": SearchSettings, "ingest": IngestSettings,
            "writer": WriterSettings, "screen": ScreenSettings, "model": ModelSettings,
            "hooks": HooksSettings}


@dataclass(frozen=True)
class Settings:
    """Every setting, typed and validated once: `settings.writer.model`, `settings.search.limit`."""

    bank: BankSettings
    embed: EmbedSettings
    search: SearchSettings
    ingest: IngestSettings
    writer: WriterSettings
    screen: ScreenSettings
    model: ModelSettings
    hooks: HooksSettings
    sources: dict[str, str] = field(default_factory=dict)  # key -> default, file, project, env or flag
    ignored: tuple[str, ...] = ()  # keys the project's config sets that were not applied (untrusted)
    project: Path | None = None  # the nearest .hymem/, if any

    def get(self, key: str) -> object:
        """One value by its dotted key ("writer.model"), for `hymem config` and generated docs."""
        section, name = check_key(key).split(".", 1)
        return getattr(getattr(self, section), name)

    def replace(self, **overrides: object) -> Settings:
        """A copy with some dotted keys changed ("writer.model"), validated like flags; None leaves a key."""
        values, sources = {k: self.get(k) for k in KEYS}, dict(self.sources)
        for k, v in overrides.items():
            if v is not None:
                values[check_key(k)] = _checked(k, v, f"--{k.split('.', 1)[1].replace('_', '-')}")
                sources[k] = "flag"
        return _build(values, sources, self.ignored, self.project)


def _build(values: dict[str, object], sources: dict[str, str] | None = None, ignored: tuple[str, ...] = (),
           project: Path | None = None) -> Settings:
    sections: dict[str, dict[str, object]] = {name: {} for name in SECTIONS}
    for key, value in values.items():
        section, name = key.split(".", 1)
        sections[section][name] = value
    sources = sources or {}
    sections["writer"]["send_key"] = sources.get("writer.base_url") != "project"
    return Settings(**{name: cls(**sections[name]) for name, cls in SECTIONS.items()}, sources=sources, ignored=ignored, project=project)


def _checked(key: str, value: object, origin: str) -> object:
    try:
        return coerce(key, value)
    except ValueError as exc:
        raise ConfigError(f"invalid value {value!r} for {key} in {origin}: expected {exc}", hint=_fix_hint(key, origin)) from None


def _fix_hint(key: str, origin: str) -> str:
    if origin.startswith("HYMEM_"):
        return f"fix or unset {origin}"
    if origin.startswith("--"):
        return f"give {origin} {_expected(key)}"
    return f"fix it with `hymem config set {key} VALUE` or `hymem config unset {key}`"


def load(overrides: dict[str, object] | None = None) -> Settings:
    """Resolve and validate every key once: defaults, then the user's config file, then the project's
    (.hymem/config.toml), then HYMEM_* variables, then `overrides` (flags)."""
    values = {k: d for k, (d, _) in KEYS.items()}
    sources = dict.fromkeys(KEYS, "default")
    for k, v in check_file(config_path()).items():
        values[k], sources[k] = v, "file"
    project, ignored = find_project(), []
    if project is not None:
        standing = project_trust(project)
        for k, v in check_file(project / "config.toml").items():
            if standing.allows(k, v):
                values[k], sources[k] = v, "project"
            else:
                ignored.append(k)
    for k in KEYS:
        if (v := os.environ.get(env_name(k))) is not None:
            values[k], sources[k] = _checked(k, v, env_name(k)), "env"
    settings = _build(values, sources, tuple(ignored), project)
    return settings.replace(**overrides) if overrides else settings


def defaults() -> Settings:
    """Every key at its default, reading no file and no variable: for a library caller that sets what it needs
    with `Settings.replace` (an evaluation, a test)."""
    return _build({k: d for k, (d, _) in KEYS.items()}, dict.fromkeys(KEYS, "default"))


def ignored_notice(settings: Settings) -> str | None:
    """The one line that says which of the project's settings were not applied, and how to apply them."""
    if not settings.ignored or settings.project is None:
        return None
    root = settings.project.parent
    return (f"ignored {', '.join(settings.ignored)} from {settings.project / 'config.toml'}: this project is not trusted "
            f"(a project's config may change only search, chunking and embedding options); read that file, then "
            f"`hymem trust {root}` to apply them")


def bank_path(explicit: str | None = None, settings: Settings | None = None) -> Path:
    """The bank a command uses; `locate_bank` says why."""
    return locate_bank(explicit, settings).path


# -- project banks: the nearest .hymem/ directory, found like git finds .git -------------------

PROJECT_DIR = ".hymem"


def find_project(start: Path | None = None) -> Path | None:
    """The nearest `.hymem/` directory in `start` (default: the working directory) or above it; None if there is none.

    The data directory itself never counts: HYMEM_HOME=~/.hymem is a home, not a project of ~."""
    here = Path(start if start is not None else os.getcwd()).absolute()
    data = data_dir().absolute()
    for folder in (here, *here.parents):
        candidate = folder / PROJECT_DIR
        if candidate.is_dir() and candidate != data:
            return candidate
    return None


# What hymem writes into every `.hymem/` that holds a bank: the bank and its SQLite side files stay out of git.
GITIGNORE = """\
# The bank and its SQLite side files stay private; delete these lines to share the bank through git.
bank.db
bank.db-*
"""


def ensure_gitignore(project: Path) -> None:
    """Write `.hymem/.gitignore` unless the project has one (a team that shares its bank may have changed it)."""
    target = project / ".gitignore"
    if not target.exists() and not target.is_symlink():
        project.mkdir(parents=True, exist_ok=True)
        target.write_text(GITIGNORE, encoding="utf-8")


def project_config_path(project: Path | None = None) -> Path | None:
    """The project's config file (.hymem/config.toml), or None outside a project."""
    project = project if project is not None else find_project()
    return project / "config.toml" if project is not None else None


# -- trust: the projects whose risky settings and bank the user accepted (trust.py says what that covers) ----------


def trust_records() -> dict[str, trust.TrustRecord]:
    """The user's trust records, by project root (the folder that holds `.hymem/`)."""
    return trust.parse_records(_read_doc(config_path()).get(TRUST_TABLE))


def project_trust(project: Path) -> trust.ProjectTrust:
    """How far the user trusts `project` (a `.hymem/` folder) now."""
    return trust.ProjectTrust(project, trust_records().get(trust.root_key(project)))


def record_trust(project: Path) -> trust.TrustRecord:
    """Trust `project` as it is now: its config's fingerprint and its bank's real path go into the user's config."""
    record = trust.record_for(project)
    doc = _read_doc(config_path())
    table = doc.setdefault(TRUST_TABLE, {})
    if not isinstance(table, dict):
        raise ConfigError(f"[{TRUST_TABLE}] in {config_path()} is not a table", hint="fix or remove it in the file")
    table[trust.root_key(project)] = record.as_table()
    _write_doc(doc, config_path())
    return record


def revoke_trust(root: Path) -> bool:
    """Forget the user's trust in the project at `root`; False if it was not trusted."""
    doc = _read_doc(config_path())
    table = doc.get(TRUST_TABLE)
    key = str(root.resolve())
    if not isinstance(table, dict) or key not in table:
        return False
    del table[key]
    _write_doc(doc, config_path())
    return True


@dataclass(frozen=True)
class BankChoice:
    """Which bank a command uses and why: `source` is flag, env, project, config or default; `detail` says it in words."""

    path: Path
    source: str
    detail: str
    refusal: str | None = None  # why this bank may not be used (an untrusted project's), else None

    def usable(self) -> Path:
        """The path, or a ConfigError that says why the bank may not be used and how to use it."""
        if self.refusal is not None:
            root = self.path.parent.parent
            raise ConfigError(f"{self.refusal}: its bank is not used",
                              hint=f"check {self.path.parent}, then `hymem trust {root}`; or give --bank")
        return self.path


def locate_bank(explicit: str | None = None, settings: Settings | None = None, start: Path | None = None) -> BankChoice:
    """--bank, then HYMEM_BANK, then the nearest .hymem/ (its bank.db), then the user config's `bank.path`, then
    bank.db in the data directory. `explicit` is --bank, which Typer also fills from HYMEM_BANK."""
    env = os.environ.get("HYMEM_BANK") or None
    if explicit:
        source, detail = ("env", "HYMEM_BANK is set") if explicit == env else ("flag", "--bank was given")
        return BankChoice(Path(explicit).expanduser(), source, detail)
    if env:
        return BankChoice(Path(env).expanduser(), "env", "HYMEM_BANK is set")
    if (project := find_project(start)) is not None:
        refusal = project_trust(project).bank_refusal()
        return BankChoice(project / "bank.db", "project", f"the nearest project directory is {project}", refusal)
    if chosen := (settings or load()).bank.path:
        return BankChoice(Path(chosen).expanduser(), "config", f"bank.path is set in {config_path()}")
    where = "HYMEM_HOME" if home() is not None else "the data directory"
    return BankChoice(data_dir() / "bank.db", "default", f"no --bank, HYMEM_BANK, project or bank.path: bank.db in {where}")


# -- writing the config file (`hymem config set|unset|edit`) ---------------------------------



def _unknown_hint(key: str) -> str:
    import difflib

    close = difflib.get_close_matches(key, list(KEYS), n=1)
    return f"did you mean {close[0]}? (`hymem config list` shows every key)" if close else "run `hymem config list` for the known keys"


def check_key(key: str) -> str:
    if key not in KEYS:
        raise ConfigError(f"unknown config key {key!r}", hint=_unknown_hint(key))
    return key


def parse_value(key: str, value: str) -> object:
    """A command-line string as the key's type (that of its default); a bad value raises ConfigError."""
    try:
        return coerce(check_key(key), value)
    except ValueError as exc:
        default = KEYS[key][0]
        example = "true" if isinstance(default, bool) else {int: "10", float: "0.5"}.get(type(default), "TEXT")
        raise ConfigError(f"invalid value {value!r} for {key}: expected {exc}", hint=f"e.g. hymem config set {key} {example}") from None


def check_file(path: Path | None = None) -> dict[str, object]:
    """The file's keys, each known and of the right type (values typed); raises ConfigError naming the first bad one.

    A project's config cannot set bank.path: a project's bank is its .hymem/bank.db."""
    path = path or config_path()
    flat = read_file(path)
    for k, v in flat.items():
        if k not in KEYS:
            raise ConfigError(f"unknown key {k!r} in {path}", hint=_unknown_hint(k))
        if k == "bank.path" and path.parent.name == PROJECT_DIR:
            raise ConfigError(f"bank.path cannot be set in a project's config ({path})",
                              hint="a project's bank is .hymem/bank.db; use --bank or HYMEM_BANK for another")
        flat[k] = _checked(k, v, str(path))
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
    """Replace the config file's settings with `flat` (dotted keys), atomically; comments are not kept, trust records are."""
    path = path or config_path()
    records = _read_doc(path).get(TRUST_TABLE) if path == config_path() else None
    text = to_toml(flat)
    if records is not None:
        import tomli_w

        text += "\n" + tomli_w.dumps({TRUST_TABLE: records})
    _write_text(path, text)
    return path


def _write_doc(doc: dict, path: Path) -> None:
    import tomli_w

    _write_text(path, tomli_w.dumps(doc))


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


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
    """Every key with its effective value, where it comes from (default|file|project|env), default, doc and `problem`.

    Unlike `load`, a bad value does not stop the listing: the row shows the value as written and what
    is wrong with it, so `hymem config list` can be used to find and fix it. Unknown keys in the file
    get rows of their own."""
    in_file = read_file()
    project = project_config_path()
    in_project = read_file(project) if project is not None else {}
    standing = project_trust(project.parent) if project is not None else None
    rows = []
    for key, (default, doc) in KEYS.items():
        env = os.environ.get(env_name(key))
        applies = key in in_project and standing is not None and standing.allows(key, in_project[key])
        source, raw = (("env", env) if env is not None else ("project", in_project[key]) if applies
                       else ("file", in_file[key]) if key in in_file else ("default", default))
        value, problem = raw, None
        try:
            value = coerce(key, raw)
        except ValueError as exc:
            where = env_name(key) if source == "env" else str(project if source == "project" else config_path())
            problem = f"invalid value {raw!r} in {where}: expected {exc}"
        if key in in_project and not applies and problem is None:
            problem = f"set in {project} but ignored: the project is not trusted (`hymem trust` applies it)"
        rows.append({"key": key, "value": value, "source": source, "default": default, "env": env_name(key), "doc": doc, "problem": problem})
    for source, flat, path in (("file", in_file, config_path()), ("project", in_project, project)):
        for key in flat.keys() - KEYS.keys():
            rows.append({"key": key, "value": flat[key], "source": source, "default": None, "env": None, "doc": "",
                         "problem": f"unknown key in {path}; " + _unknown_hint(key)})
    return rows
