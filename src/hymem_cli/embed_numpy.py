"""The sentence-transformers embedder's BERT forward pass in numpy, on weights memory-mapped from disk.

A search embeds one short query. Loading torch for that takes seconds and an onnxruntime session
a few hundred milliseconds; this needs numpy (which search imports anyway), the tokenizers
library, and an mmap of the weights that touches only the pages a query uses. The weights are
written once from the sentence-transformers model (`export`), and the copy is kept only if it
reproduces that model's vectors on probe sentences (embed_copy.MIN_COSINE).

Supported: BERT encoders (absolute positions, post-layer-norm, GELU) followed by mean pooling
and normalisation — all-MiniLM-L6-v2 and its family. Anything else keeps the torch model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from hymem_cli import embed_copy

BATCH = 32


def available() -> bool:
    """tokenizers can be imported (checked without importing it); numpy comes with every embedder."""
    import importlib.util

    return importlib.util.find_spec("tokenizers") is not None and importlib.util.find_spec("numpy") is not None


class NumpyEmbedder:
    def __init__(self, folder: Path):
        import numpy as np
        from tokenizers import Tokenizer

        self._np = np
        meta = json.loads((folder / "meta.json").read_text())
        self.name, self.dim = meta["name"], int(meta["dim"])
        self._heads, self._eps, self._layers = int(meta["heads"]), float(meta["eps"]), int(meta["layers"])
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(int(meta["max_length"]))
        self._tokenizer.enable_padding(pad_id=int(meta["pad_id"]))
        flat = np.memmap(folder / "weights.bin", dtype="<f4", mode="r")
        self._w = {name: flat[start:start + int(np.prod(shape))].reshape(shape) for name, (start, shape) in meta["tensors"].items()}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            out.extend(self._batch(self._tokenizer.encode_batch(list(texts[start:start + BATCH]))).tolist())
        return out

    def _batch(self, encoded):
        np, w = self._np, self._w
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        types = np.array([e.type_ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        batch, length = ids.shape
        x = w["embeddings.word"][ids] + w["embeddings.position"][:length] + w["embeddings.type"][types]
        x = self._norm(x, "embeddings.norm")
        bias = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)  # padding gets no attention
        heads, size = self._heads, x.shape[-1] // self._heads
        scale = np.float32(1.0 / np.sqrt(size))
        for i in range(self._layers):
            p = f"layer{i}."
            qkv = x @ w[p + "qkv.weight"] + w[p + "qkv.bias"]  # (batch, length, 3 * hidden)
            # (batch, heads, length, size), contiguous: numpy's matmul only reaches BLAS for contiguous stacks
            q, k, v = (np.ascontiguousarray(t.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)) for t in np.split(qkv, 3, axis=-1))
            scores = (q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2))) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, heads * size)
            x = self._norm(x + context @ w[p + "out.weight"] + w[p + "out.bias"], p + "attention_norm")
            hidden = _gelu(np, x @ w[p + "up.weight"] + w[p + "up.bias"])
            x = self._norm(x + hidden @ w[p + "down.weight"] + w[p + "down.bias"], p + "output_norm")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _norm(self, x, name: str):
        np = self._np
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self._eps) * self._w[name + ".weight"] + self._w[name + ".bias"]


def _gelu(np, x):
    """Exact (erf) GELU, as BERT uses; erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7)."""
    z = np.abs(x) * np.float32(0.7071067811865476)
    t = 1.0 / (1.0 + np.float32(0.3275911) * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly.astype(np.float32) * np.exp(-z * z))
    return 0.5 * x * (1.0 + erf)


def load(folder: Path) -> NumpyEmbedder | None:
    if not (folder / "meta.json").exists() or not available():
        return None
    return NumpyEmbedder(folder)


def _tensors(bert) -> dict:
    """The weights, renamed and laid out for `x @ W` (torch's Linear stores W transposed); q, k, v joined."""
    import torch

    def t(param) -> "torch.Tensor":
        return param.detach().to(torch.float32).cpu()

    emb = bert.embeddings
    out = {
        "embeddings.word": t(emb.word_embeddings.weight), "embeddings.position": t(emb.position_embeddings.weight),
        "embeddings.type": t(emb.token_type_embeddings.weight),
        "embeddings.norm.weight": t(emb.LayerNorm.weight), "embeddings.norm.bias": t(emb.LayerNorm.bias),
    }
    for i, layer in enumerate(bert.encoder.layer):
        att, p = layer.attention, f"layer{i}."
        out[p + "qkv.weight"] = torch.cat([t(att.self.query.weight), t(att.self.key.weight), t(att.self.value.weight)]).T
        out[p + "qkv.bias"] = torch.cat([t(att.self.query.bias), t(att.self.key.bias), t(att.self.value.bias)])
        out[p + "out.weight"], out[p + "out.bias"] = t(att.output.dense.weight).T, t(att.output.dense.bias)
        out[p + "attention_norm.weight"], out[p + "attention_norm.bias"] = t(att.output.LayerNorm.weight), t(att.output.LayerNorm.bias)
        out[p + "up.weight"], out[p + "up.bias"] = t(layer.intermediate.dense.weight).T, t(layer.intermediate.dense.bias)
        out[p + "down.weight"], out[p + "down.bias"] = t(layer.output.dense.weight).T, t(layer.output.dense.bias)
        out[p + "output_norm.weight"], out[p + "output_norm.bias"] = t(layer.output.LayerNorm.weight), t(layer.output.LayerNorm.bias)
    return {name: tensor.contiguous().numpy() for name, tensor in out.items()}


def _is_plain_bert(bert, config) -> bool:
    return (
        type(bert).__name__ == "BertModel"
        and getattr(config, "hidden_act", None) == "gelu"
        and getattr(config, "position_embedding_type", "absolute") == "absolute"
        and not getattr(config, "is_decoder", False)
    )


def export(st_model, name: str, folder: Path) -> NumpyEmbedder | None:
    """Write `folder` from a loaded SentenceTransformer (a BERT, then mean pooling, then normalisation).

    Returns None, writing nothing, when the model has another shape, a dependency is missing,
    or the copy does not reproduce the model's own vectors.
    """
    shape = embed_copy.mean_pooled(st_model) if available() else None
    bert = getattr(shape[0], "auto_model", None) if shape else None
    if bert is None or not _is_plain_bert(bert, bert.config):
        return None

    def fill(work: Path) -> dict:
        import numpy as np

        layout, offset = {}, 0
        with open(work / "weights.bin", "wb") as f:
            for tensor_name, array in _tensors(bert).items():
                f.write(np.ascontiguousarray(array, dtype="<f4").tobytes())
                layout[tensor_name] = (offset, list(array.shape))
                offset += array.size
        config = bert.config
        return {"heads": int(config.num_attention_heads), "layers": int(config.num_hidden_layers), "eps": float(config.layer_norm_eps),
                "tensors": layout}

    return embed_copy.write(st_model, name, folder, shape[1], fill, NumpyEmbedder)
