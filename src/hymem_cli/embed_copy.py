"""What the torch-free copies of the embedder (embed_onnx, embed_numpy) share: which models they can
copy, and writing a copy so that it is either complete and checked, or not there at all."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

MIN_COSINE = 0.999  # a copy is kept only if it reproduces the torch model this closely
PROBES = [
    "where does Alex live now?",
    "Alex: I moved to Sydney last month for a new job at Atlassian.",
    "Priya is allergic to peanuts.",
    "ok",
]


def mean_pooled(st_model):
    """(transformer module, tokenizer.json path) of a SentenceTransformer that mean-pools one transformer; else None."""
    transformer, pooling = st_model[0], st_model[1] if len(st_model) > 1 else None
    # sentence-transformers 5+ names the mode; older releases had one flag per mode.
    mean = getattr(pooling, "pooling_mode", None) == "mean" or getattr(pooling, "pooling_mode_mean_tokens", False) is True
    tokenizer_json = Path(getattr(transformer.tokenizer, "name_or_path", "")) / "tokenizer.json"
    if pooling is None or not mean or not tokenizer_json.exists():
        return None
    return transformer, tokenizer_json


STALE_AFTER = 3600.0  # seconds: a scratch folder without a process id (older hymem) counts as abandoned after this


def remove_stale(parent: Path) -> list[Path]:
    """Remove the scratch folders of copies whose process is gone (killed mid-copy: ~90 MB each); returns them.

    A scratch folder is named .export-<pid>-...: it is stale when that process no longer runs, or, for a name
    without one, when nothing in it changed for STALE_AFTER seconds."""
    import time

    removed = []
    for scratch in parent.glob(".export-*"):
        pid = scratch.name.split("-")[1] if scratch.name.count("-") >= 2 else ""
        if pid.isdigit():
            alive = _running(int(pid))
        else:
            try:
                alive = time.time() - scratch.stat().st_mtime < STALE_AFTER
            except OSError:
                continue
        if not alive:
            shutil.rmtree(scratch, ignore_errors=True)
            removed.append(scratch)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def write(st_model, name: str, folder: Path, tokenizer_json: Path, fill: Callable[[Path], dict], load: Callable[[Path], object]):
    """Make the copy in a scratch folder beside `folder`, check it, then move it into place.

    `fill(work)` writes the model files and returns what meta.json adds to the common fields;
    `load(folder)` opens a copy. Returns the loaded copy, or None when anything failed or the copy
    does not reproduce `st_model` on PROBES (a failed copy only costs speed: torch keeps working).
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(folder.parent)
    work = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".export-{os.getpid()}-"))
    try:
        extra = fill(work)
        shutil.copy(tokenizer_json, work / "tokenizer.json")
        dim = st_model.get_embedding_dimension() if hasattr(st_model, "get_embedding_dimension") else st_model.get_sentence_embedding_dimension()
        tokenizer = st_model[0].tokenizer
        meta = {"name": name, "dim": int(dim), "max_length": int(st_model.max_seq_length), "pad_id": int(tokenizer.pad_token_id or 0), **extra}
        (work / "meta.json").write_text(json.dumps(meta))
        candidate = load(work)
        reference = st_model.encode(PROBES, normalize_embeddings=True)
        if min(sum(a * b for a, b in zip(x, y)) for x, y in zip(candidate.embed(PROBES), reference)) < MIN_COSINE:
            return None
        del candidate  # it may hold files open (a memory map) while the folder moves
        try:
            os.replace(work, folder)  # atomic: a concurrent export of the same model loses the race harmlessly
        except OSError:
            pass
        return load(folder)
    except Exception:
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)
