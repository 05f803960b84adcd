"""A torch-free copy of the sentence-transformers embedder: exported to ONNX once, then run with
onnxruntime and tokenizers, so a search process starts in well under a second instead of seconds."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Sequence

MIN_COSINE = 0.999  # the export is kept only if it reproduces the torch model this closely
PROBES = [
    "where does Alex live now?",
    "Alex: I moved to Sydney last month for a new job at Atlassian.",
    "Priya is allergic to peanuts.",
    "ok",
]


def available() -> bool:
    """onnxruntime and tokenizers can be imported (checked without importing them)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "tokenizers"))


def export_dir(cache: Path, name: str, source: str) -> Path:
    """One folder per model name and source files; a changed model gets a new export."""
    weights = sorted(p for p in Path(source).glob("*.safetensors")) if Path(source).is_dir() else []
    key = json.dumps([name, str(Path(source).resolve()) if Path(source).exists() else source,
                      [(p.name, p.stat().st_size) for p in weights]])
    digest = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
    return cache / "embedders" / f"{name.replace('/', '_')}-{digest}"


class OnnxEmbedder:
    """The exported model: mean pooling and normalisation are inside the graph, as in the original."""

    def __init__(self, folder: Path):
        import onnxruntime
        from tokenizers import Tokenizer

        meta = json.loads((folder / "meta.json").read_text())
        self.name, self.dim = meta["name"], int(meta["dim"])
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(int(meta["max_length"]))
        self._tokenizer.enable_padding(pad_id=int(meta["pad_id"]))
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import numpy as np

        out: list[list[float]] = []
        for start in range(0, len(texts), 64):
            batch = self._tokenizer.encode_batch(list(texts[start:start + 64]))
            feed = {
                "input_ids": np.array([e.ids for e in batch], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in batch], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in batch], dtype=np.int64),
            }
            out.extend(v.tolist() for v in self._session.run(None, feed)[0])
        return out


def load(folder: Path) -> OnnxEmbedder | None:
    if not (folder / "meta.json").exists() or not available():
        return None
    return OnnxEmbedder(folder)


def export(st_model, name: str, folder: Path) -> OnnxEmbedder | None:
    """Export a loaded SentenceTransformer (BERT-style: a transformer then mean pooling) to `folder`.

    Returns None, exporting nothing, when the model has another shape, a dependency is missing,
    or the export does not reproduce the model's own vectors.
    """
    if not available():
        return None
    try:
        import onnx  # noqa: F401  (the torch exporter needs it)
        import torch
    except ImportError:
        return None
    transformer, pooling = st_model[0], st_model[1] if len(st_model) > 1 else None
    # sentence-transformers 5+ names the mode; older releases had one flag per mode.
    mean = getattr(pooling, "pooling_mode", None) == "mean" or getattr(pooling, "pooling_mode_mean_tokens", False) is True
    if pooling is None or not mean:
        return None
    tokenizer = transformer.tokenizer
    source = getattr(tokenizer, "name_or_path", "")
    if not (Path(source) / "tokenizer.json").exists():
        return None

    class Pooled(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".export-"))
    try:
        sample = tokenizer(PROBES[:2], padding=True, return_tensors="pt")
        names = ["input_ids", "attention_mask", "token_type_ids"]
        axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"embedding": {0: "batch"}}
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(Pooled(transformer.auto_model.eval()), tuple(sample[n] for n in names), str(work / "model.onnx"),
                              input_names=names, output_names=["embedding"], dynamic_axes=axes, opset_version=17, dynamo=False)
        shutil.copy(Path(source) / "tokenizer.json", work / "tokenizer.json")
        meta = {"name": name, "dim": st_model.get_embedding_dimension() if hasattr(st_model, "get_embedding_dimension")
                else st_model.get_sentence_embedding_dimension(),
                "max_length": int(st_model.max_seq_length), "pad_id": int(tokenizer.pad_token_id or 0)}
        (work / "meta.json").write_text(json.dumps(meta))
        candidate = OnnxEmbedder(work)
        reference = st_model.encode(PROBES, normalize_embeddings=True)
        if min(sum(a * b for a, b in zip(x, y)) for x, y in zip(candidate.embed(PROBES), reference)) < MIN_COSINE:
            return None
        try:
            os.replace(work, folder)  # atomic: a concurrent export of the same model loses the race harmlessly
        except OSError:
            pass
        return load(folder)
    except Exception:  # an exporter failure only costs speed: the torch model keeps working
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)
