"""A tiny random-weight GGUF of architecture `hy_v3` (Hy-Memory-30B-A3B's), built for tests.

No real Hy-Memory weights are available offline, so the tests prove the path with a synthetic
model of the same architecture: a few decoder blocks, each with grouped-query attention (RMS
norm on Q and K, NeoX RoPE), a sigmoid-routed mixture of experts with an expert-selection bias,
and one always-on shared expert. The weights are random, so the text is nonsense; what the
tests check is that llama.cpp loads the file, decodes, follows a grammar, and that hymem renders
the chat template (which marks `reasoning_effort`) and reads the header.

Tokenizer: byte-level BPE ("gpt2" model, "default" pre-tokenizer). All 256 bytes are tokens,
so any UTF-8 text tokenizes and a JSON grammar can always be followed; a few merges make whole
tokens of common words; control tokens delimit turns (`<|im_start|>`, `<|im_end|>`).

Tensor names, shapes and metadata keys come from the llama.cpp vendored in llama-cpp-python
0.3.36 (`vendor/llama.cpp` in its sdist):
- src/models/hy-v3.cpp: `llama_model_hy_v3::load_arch_hparams` (needs
  `attention.layer_norm_rms_epsilon` and `expert_feed_forward_length`, no defaults; the gating
  function defaults to sigmoid), `load_arch_tensors` (tensor shapes) and the graph, which
  asserts rope.dimension_count == head size.
- src/llama-model.cpp: `llama_model_base::load_hparams` (context_length, embedding_length and
  block_count are required; head counts, key length and rope settings are optional),
  `create_tensor_qkv`, `create_tensor_gate_up_exps`.
- src/llama-arch.cpp: the key formats (`%s.expert_count`, ...) and the tensor names
  (`blk.%d.attn_q`, `blk.%d.exp_probs_b`, ...); gguf-py/gguf/constants.py lists HY_V3's tensors.
- conversion/hunyuan.py (`HYV3Model`): which keys the real converter writes.
Shapes below are numpy's (row-major), the reverse of ggml's `ne` order in the loader.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ARCH = "hy_v3"

EMBED = 64
HEADS = 4
KV_HEADS = 2
HEAD_DIM = EMBED // HEADS  # the graph asserts head size == n_rot
FEED_FORWARD = 128  # dense FFN size: written as the converter does, unused with MoE in every block
EXPERT_FEED_FORWARD = 32
SHARED_FEED_FORWARD = 32
CONTEXT = 4096
RMS_EPS = 1e-5
ROPE_BASE = 10000.0
GATING_SIGMOID = 2  # llama_expert_gating_func_type LLAMA_EXPERT_GATING_FUNC_TYPE_SIGMOID

BOS = "<|startoftext|>"
EOS = "<|endoftext|>"
TURN_START = "<|im_start|>"
TURN_END = "<|im_end|>"  # llama.cpp counts this text as end-of-generation by name
SPECIAL_TOKENS = (BOS, EOS, TURN_START, TURN_END)

# The template shows which reasoning mode it was rendered with, so a test can see that
# `reasoning_effort` (hymem passes "no_think" by default) reached it.
NO_THINK_MARK = "<think_mode:no_think>"
THINK_MARK = "<think_mode:think>"
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% if reasoning_effort is defined and reasoning_effort == 'no_think' %}" + NO_THINK_MARK
    + "{% else %}" + THINK_MARK + "{% endif %}{{ '\\n' }}"
    "{% for message in messages %}"
    + TURN_START + "{{ message['role'] }}{{ '\\n' }}{{ message['content'] }}" + TURN_END + "{{ '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}" + TURN_START + "assistant{{ '\\n' }}{% endif %}"
)

# Words that become single tokens through merges (a leading space is part of the word, as in GPT-2).
DEFAULT_WORDS = (
    "the", " the", " and", " to", " of", " a", " in", " is", " I", " you", " my",
    " memory", " user", "user", "assistant", "system", " live", " moved", " name",
    '{"', '":', '",', '"}', '":"', '"]', " true", " false", " null", "true", "false", "null",
    "op", "add", "update", "delete", "noop", "text", "id", "operations",
)

# GGUF token types (llama_token_type).
_NORMAL, _CONTROL = 1, 3


def _byte_chars() -> list[str]:
    """GPT-2's byte-to-unicode table: the printable stand-in character for each byte value."""
    kept = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = {}, 0
    for b in range(256):
        if b in kept:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def tokenizer(words: Sequence[str] = DEFAULT_WORDS) -> tuple[list[str], list[int], list[str]]:
    """(tokens, token types, merges): 256 byte tokens, one token per merge, then the control tokens.

    Each word is merged left to right ("t h" -> "th", "th e" -> "the"), so every merge's result
    is a token and ranks follow the order of `words`.
    """
    byte_chars = _byte_chars()
    tokens = list(byte_chars)
    known = set(tokens)
    merges: list[str] = []
    for word in words:
        pieces = [byte_chars[b] for b in word.encode("utf-8")]
        left = pieces[0]
        for right in pieces[1:]:
            merged = left + right
            if merged not in known:
                merges.append(f"{left} {right}")
                tokens.append(merged)
                known.add(merged)
            left = merged
    types = [_NORMAL] * len(tokens) + [_CONTROL] * len(SPECIAL_TOKENS)
    return tokens + list(SPECIAL_TOKENS), types, merges


@dataclass(frozen=True)
class Dims:
    """The sizes of a hy_v3 model: the tiny test model by default (bench/gpu_placement.py builds a 30B-A3B's active path)."""

    embed: int = EMBED
    heads: int = HEADS
    kv_heads: int = KV_HEADS
    head_dim: int = HEAD_DIM
    feed_forward: int = FEED_FORWARD
    expert_ff: int = EXPERT_FEED_FORWARD
    shared_ff: int = SHARED_FEED_FORWARD
    context: int = CONTEXT


def build_hy_v3_gguf(
    path: str | os.PathLike,
    *,
    layers: int = 2,
    experts: int = 4,
    experts_used: int = 2,
    vocab: Sequence[str] = DEFAULT_WORDS,
    seed: int = 0,
    name: str = "Hy-Memory-30B-A3B-tiny",
    dims: Dims = Dims(),
    vocab_size: int | None = None,
    weight: Callable[..., np.ndarray] | None = None,
    file_type: int = 0,
) -> Path:
    """Write a random-weight `hy_v3` GGUF to `path` and return the path.

    `vocab` lists the words merged into whole tokens on top of the 256 byte tokens; `vocab_size` pads the
    vocabulary with control tokens up to that size. `weight(*shape)` makes each weight (default: seeded
    F32 normals scaled by the input width; `file_type` says what the weights are, 0 = F32). The same
    arguments always give the same bytes.
    """
    import gguf  # the `test` extra

    if not 0 < experts_used <= experts:
        raise ValueError(f"experts_used must be in 1..{experts}, not {experts_used}")
    tokens, token_types, merges = tokenizer(vocab)
    if vocab_size is not None and vocab_size > len(tokens):
        pad = vocab_size - len(tokens)
        tokens, token_types = tokens + [f"<|pad_{i}|>" for i in range(pad)], token_types + [3] * pad  # control tokens
    n_vocab = len(tokens)
    rng = np.random.default_rng(seed)
    d = dims

    def seeded(*shape: int) -> np.ndarray:
        # Scaled by the input width so activations stay in range through the blocks.
        return (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)

    weight = weight or seeded

    def ones(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    path = Path(path)
    writer = gguf.GGUFWriter(os.fspath(path), ARCH)  # writes general.architecture
    writer.add_string("general.name", name)
    writer.add_uint32("general.file_type", file_type)

    writer.add_uint32(f"{ARCH}.context_length", d.context)
    writer.add_uint32(f"{ARCH}.embedding_length", d.embed)
    writer.add_uint32(f"{ARCH}.block_count", layers)
    writer.add_uint32(f"{ARCH}.feed_forward_length", d.feed_forward)
    writer.add_uint32(f"{ARCH}.attention.head_count", d.heads)
    writer.add_uint32(f"{ARCH}.attention.head_count_kv", d.kv_heads)
    writer.add_uint32(f"{ARCH}.attention.key_length", d.head_dim)
    writer.add_uint32(f"{ARCH}.attention.value_length", d.head_dim)
    writer.add_float32(f"{ARCH}.attention.layer_norm_rms_epsilon", RMS_EPS)
    writer.add_uint32(f"{ARCH}.rope.dimension_count", d.head_dim)
    writer.add_float32(f"{ARCH}.rope.freq_base", ROPE_BASE)
    writer.add_uint32(f"{ARCH}.expert_count", experts)
    writer.add_uint32(f"{ARCH}.expert_used_count", experts_used)
    writer.add_uint32(f"{ARCH}.expert_feed_forward_length", d.expert_ff)
    writer.add_uint32(f"{ARCH}.expert_shared_feed_forward_length", d.shared_ff)
    writer.add_bool(f"{ARCH}.expert_weights_norm", True)
    writer.add_float32(f"{ARCH}.expert_weights_scale", 1.0)
    writer.add_uint32(f"{ARCH}.expert_gating_func", GATING_SIGMOID)

    writer.add_string("tokenizer.ggml.model", "gpt2")
    writer.add_string("tokenizer.ggml.pre", "default")
    writer.add_array("tokenizer.ggml.tokens", tokens)
    writer.add_array("tokenizer.ggml.token_type", token_types)
    writer.add_array("tokenizer.ggml.merges", merges)
    writer.add_uint32("tokenizer.ggml.bos_token_id", tokens.index(BOS))
    writer.add_uint32("tokenizer.ggml.eos_token_id", tokens.index(EOS))
    writer.add_uint32("tokenizer.ggml.padding_token_id", tokens.index(EOS))
    writer.add_bool("tokenizer.ggml.add_bos_token", True)
    writer.add_string("tokenizer.chat_template", CHAT_TEMPLATE)

    writer.add_tensor("token_embd.weight", weight(n_vocab, d.embed))
    writer.add_tensor("output_norm.weight", ones(d.embed))
    writer.add_tensor("output.weight", weight(n_vocab, d.embed))
    for i in range(layers):
        blk = f"blk.{i}"
        writer.add_tensor(f"{blk}.attn_norm.weight", ones(d.embed))
        writer.add_tensor(f"{blk}.attn_q.weight", weight(d.heads * d.head_dim, d.embed))
        writer.add_tensor(f"{blk}.attn_k.weight", weight(d.kv_heads * d.head_dim, d.embed))
        writer.add_tensor(f"{blk}.attn_v.weight", weight(d.kv_heads * d.head_dim, d.embed))
        writer.add_tensor(f"{blk}.attn_output.weight", weight(d.embed, d.heads * d.head_dim))
        writer.add_tensor(f"{blk}.attn_q_norm.weight", ones(d.head_dim))
        writer.add_tensor(f"{blk}.attn_k_norm.weight", ones(d.head_dim))
        writer.add_tensor(f"{blk}.ffn_norm.weight", ones(d.embed))
        # Routed experts: router, selection bias (no ".weight"/".bias" suffix in hy_v3), stacked experts.
        writer.add_tensor(f"{blk}.ffn_gate_inp.weight", weight(experts, d.embed).astype(np.float32))
        writer.add_tensor(f"{blk}.exp_probs_b", (0.1 * rng.standard_normal(experts)).astype(np.float32))
        writer.add_tensor(f"{blk}.ffn_gate_exps.weight", weight(experts, d.expert_ff, d.embed))
        writer.add_tensor(f"{blk}.ffn_up_exps.weight", weight(experts, d.expert_ff, d.embed))
        writer.add_tensor(f"{blk}.ffn_down_exps.weight", weight(experts, d.embed, d.expert_ff))
        # The shared expert, always active.
        writer.add_tensor(f"{blk}.ffn_gate_shexp.weight", weight(d.shared_ff, d.embed))
        writer.add_tensor(f"{blk}.ffn_up_shexp.weight", weight(d.shared_ff, d.embed))
        writer.add_tensor(f"{blk}.ffn_down_shexp.weight", weight(d.embed, d.shared_ff))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
