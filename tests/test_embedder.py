"""The embedder: the torch-free ONNX copy reproduces sentence-transformers, and search runs without torch."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ALEX_JSONL

from hymem_cli import config, embed, embed_numpy, embed_onnx
from hymem_cli.embed import FastEmbedder, SentenceTransformerEmbedder, get_embedder

pytestmark = pytest.mark.slow

TEXTS = ["where does Alex live", "Alex: I moved to Sydney last month.", "Sam is allergic to peanuts and shellfish.", "ok"]


def test_fast_copies_match_torch_model():
    torch_model = SentenceTransformerEmbedder()
    fast = get_embedder(prepare_fast=True)
    assert isinstance(fast, FastEmbedder) and fast.name == torch_model.name and fast.dim == torch_model.dim
    onnx_folder, numpy_folder = embed._fast_folders(fast.name)
    reference = torch_model.embed(TEXTS)
    for copy in (embed_onnx.load(onnx_folder), embed_numpy.load(numpy_folder)):
        for a, b in zip(copy.embed(TEXTS), reference):
            assert sum(x * y for x, y in zip(a, b)) >= 0.999
    # One text goes through the numpy copy, a batch through ONNX, loaded only then.
    fresh = FastEmbedder(embed_numpy.load(numpy_folder), onnx_folder)
    assert fresh.embed(TEXTS[:1]) == embed_numpy.load(numpy_folder).embed(TEXTS[:1]) and fresh._batch is None
    many = TEXTS * 3
    assert fresh.embed(many) == embed_onnx.load(onnx_folder).embed(many) and isinstance(fresh._batch, embed_onnx.OnnxEmbedder)


def test_a_declined_copy_is_not_retried(monkeypatch, tmp_path):
    monkeypatch.setenv("HYMEM_CACHE", str(tmp_path))
    onnx_folder, numpy_folder = embed._fast_folders(embed.DEFAULT_MODEL)
    assert embed.fast_copy_missing(embed.DEFAULT_MODEL)
    for folder in (onnx_folder, numpy_folder):
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.with_name(folder.name + ".declined").write_text("refused\n")
    assert not embed.fast_copy_missing(embed.DEFAULT_MODEL)


def test_search_process_imports_neither_torch_nor_onnxruntime(cli, real_embedder, home):
    assert cli("add", "--raw", str(ALEX_JSONL)).exit_code == 0
    folders = {p.name.endswith("-numpy"): p for p in (config.cache_dir() / "embedders").iterdir()}
    assert (folders[False] / "model.onnx").exists() and (folders[True] / "weights.bin").exists()
    env = {**os.environ, "HYMEM_HOME": str(home)}
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "hymem_cli", "search", "where does Alex live", "-f", "plain", "-n",
                          "1"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Surry Hills" in run.stdout or "Seattle" in run.stdout
    imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    assert "tokenizers" in imported and "numpy" in imported
    assert not {m for m in imported if m.split(".")[0] in ("torch", "sentence_transformers", "transformers", "onnxruntime")}
    embedder = next(r for r in cli("doctor", "-f", "jsonl").jsonl() if r["check"] == "embedder")
    assert embedder["status"] == "ok" and "from numpy copy for queries, ONNX copy for batches" in embedder["detail"]


def test_a_model_that_cannot_be_copied_is_declined_once(monkeypatch, tmp_path):
    """A refused export leaves a marker (and the torch model in use); a missing dependency does not."""
    from hymem_cli import embed_numpy as numpy_copy
    from hymem_cli import embed_onnx as onnx_copy

    monkeypatch.setenv("HYMEM_CACHE", str(tmp_path / "fresh"))  # its folders do not exist yet
    monkeypatch.setattr(onnx_copy, "export", lambda *a: None)  # as for a model of another shape
    monkeypatch.setattr(numpy_copy, "available", lambda: False)  # as without tokenizers installed
    chosen = get_embedder(prepare_fast=True)
    assert isinstance(chosen, SentenceTransformerEmbedder)
    onnx_folder, numpy_folder = embed._fast_folders(embed.DEFAULT_MODEL)
    assert onnx_folder.with_name(onnx_folder.name + ".declined").exists()
    assert not numpy_folder.with_name(numpy_folder.name + ".declined").exists()
    assert not embed.fast_copy_missing(embed.DEFAULT_MODEL)
