"""The embedder: the torch-free ONNX copy reproduces sentence-transformers, and search runs without torch."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hymem_cli import config, embed_onnx
from hymem_cli.embed import SentenceTransformerEmbedder, get_embedder

pytestmark = pytest.mark.slow

TEXTS = ["where does Alex live", "Alex: I moved to Sydney last month.", "Sam is allergic to peanuts and shellfish.", "ok"]


def test_onnx_copy_matches_torch_model():
    torch_model = SentenceTransformerEmbedder()
    fast = get_embedder(prepare_fast=True)
    assert isinstance(fast, embed_onnx.OnnxEmbedder) and fast.name == torch_model.name and fast.dim == torch_model.dim
    for a, b in zip(fast.embed(TEXTS), torch_model.embed(TEXTS)):
        assert sum(x * y for x, y in zip(a, b)) >= 0.999


def test_search_process_never_imports_torch(cli, home):
    assert cli("add", "--raw", "examples/alex.jsonl").exit_code == 0
    assert (next((config.cache_dir() / "embedders").iterdir()) / "model.onnx").exists()
    env = {**os.environ, "HYMEM_HOME": str(home)}
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "hymem_cli", "search", "where does Alex live", "-f", "plain", "-n", "1"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Surry Hills" in run.stdout or "Seattle" in run.stdout
    imported = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    assert "onnxruntime" in imported
    assert not {m for m in imported if m.split(".")[0] in ("torch", "sentence_transformers", "transformers")}
