"""A torch-free copy of the sentence-transformers embedder: exported to ONNX once, then run with
onnxruntime and tokenizers, so a search process starts in well under a second instead of seconds."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

from hymem_cli import embed_copy


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
        self._inputs = {i.name for i in self._session.get_inputs()}  # MPNet has no token_type_ids

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
            out.extend(v.tolist() for v in self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0])
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
    shape = embed_copy.mean_pooled(st_model)
    if shape is None:
        return None
    transformer, tokenizer_json = shape

    import inspect

    # BERT takes token types; MPNet (all-mpnet-base-v2) has none, and its graph gets no such input.
    typed = "token_type_ids" in inspect.signature(transformer.auto_model.forward).parameters

    class Pooled(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            types = {"token_type_ids": token_type_ids} if typed else {}
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask, **types).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    def fill(work: Path) -> dict:
        import warnings

        sample = transformer.tokenizer(embed_copy.PROBES[:2], padding=True, return_tensors="pt")
        names = ["input_ids", "attention_mask", "token_type_ids"][:3 if typed else 2]
        axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"embedding": {0: "batch"}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(Pooled(transformer.auto_model.eval()), tuple(sample[n] for n in names), str(work / "model.onnx"),
                              input_names=names, output_names=["embedding"], dynamic_axes=axes, opset_version=17, dynamo=False)
        return {}

    return embed_copy.write(st_model, name, folder, tokenizer_json, fill, OnnxEmbedder)
