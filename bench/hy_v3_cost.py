"""What Hy-Memory-30B-A3B costs on this CPU, measured on a full-size synthetic hy_v3 GGUF at Q4_K: load time, prompt
and generation tokens/s, seconds per chunk for both writer protocols (KV prefix reuse on), and what the model's
multi-token-prediction (MTP) head would cost as a speculative draft.

The weights are random (speed does not depend on their values), written straight to disk as quantized blocks: Q4_K
(144 bytes per 256 weights, random bytes with the two f16 scales set small) for every matrix but the output head,
which is Q6_K as in a Q4_K_M; norms, the routers and the expert-selection bias are F32. The file is ~17 GB; it is
written tensor by tensor (never held in memory) outside the repository, and --cleanup deletes it.

The shape (all from published configurations; what is not published for Hy-Memory-30B-A3B itself is taken from its
sibling and said so):
- Hy-Memory-30B-A3B: "a 30B hy_v3 MoE, about 3B active per token" (its model card and the Hy-Memory README:
  https://huggingface.co/tencent/Hy-Memory-30B-A3B, https://github.com/Tencent-Hunyuan/Hy-Memory). Its config.json
  could not be read here, so every number below comes from the documented sibling of the same architecture and size,
  Hy-MT2-30B-A3B (tencent/Hy-MT2-30B-A3B config.json, as transcribed by NVIDIA NeMo AutoModel's HyMT2Config,
  https://docs.nvidia.com/nemo/automodel/nightly/apidocs/nemo_automodel/nemo_automodel.components.models.hy_mt2.config.html):
  48 layers (layer 0 dense, intermediate_size 6912; layers 1-47 MoE), hidden 2048, 32 query and 4 KV heads of 128,
  128 routed experts of 768 (moe_intermediate_size) with 8 per token, 1 shared expert of 768, vocabulary 120,832,
  rope_theta 11,158,840, rms_norm_eps 1e-5, router_scaling_factor 2.826, sigmoid routing with an expert bias.
  That gives 30.1B parameters, 3.2B per token: the "30B-A3B" of the name.
- MTP: Hy3 / Hy3-preview (the large hy_v3 models) publish num_nextn_predict_layers = 1 (tencent/Hy3-preview-Base
  config.json; the Hy3 README: "Number of MTP Layers 1"); NeMo's transcription of Hy-MT2 names none. One MTP block
  (a full MoE decoder block plus the NextN projections) is written here as a guess; it costs nothing unless loaded.
- Tensor names, shapes and metadata keys: llama.cpp vendored in llama-cpp-python 0.3.36 (sdist vendor/llama.cpp):
  src/models/hy-v3.cpp (`llama_model_hy_v3::load_arch_hparams`, `load_arch_tensors`, `graph_mtp`),
  src/llama-arch.cpp (key formats, `blk.%d.nextn.*`), conversion/hunyuan.py (`HYV3Model`: which keys the converter
  writes, e.g. the shared expert's width = moe_intermediate_size x num_shared_experts).
- Token figures per chunk: docs/benchmarks.md, "The two writer protocols: calls, prompt tokens and seconds per chunk"
  (SmolLM2-135M's tokenizer, so only an approximation of Hy's; its answers ran to max_tokens, so the generated
  figures are upper bounds) and "The writer: calls and prompt tokens per chunk".

The model loads as hymem loads it (`llama_binding.load_model`, mmap, `use_extra_bufts=False`). Prompts are token ids
fed with `Llama.eval`; generation is greedy, one `eval` per token. Batch sizes are compared on prompts of one decode
each (256 tokens at batch 256, ...); thread counts on a short prompt and on generation after it; the faster ones run
the longer prompt, then one chunk's own tokens after it (the prompt stays in the KV cache as the fixed instructions
would) and a short answer. MTP: llama-cpp-python's `Llama` has no MTP path, so the draft step is driven through
llama.cpp's own API (`load_mtp`, an MTP context, `llama_set_embeddings_nextn`, `llama_process`), as
common/speculative.cpp's draft-mtp does; with random weights no acceptance rate can be measured, so the speed-up is
given for assumed ones.

Usage: nice -n 19 python bench/hy_v3_cost.py [--out /tmp/hymem-bench/hy-v3-30b-a3b-q4_k.gguf] [--cleanup] [--rewrite]
       [--threads 2,1] [--thread-prompt 128] [--batch 256,512,1024] [--prompt 1850] [--generate 64]
       [--chunk-generate 24] [--no-mtp | --mtp-only] [--no-cold] [--json FILE]
       [--layers 48 --experts 128] (fewer: a quick check of the script, e.g. --layers 2 --experts 16)
An existing file of the right size is reused; a full run took 22-29 minutes on 2 shared cores.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

DEFAULT_OUT = Path("/tmp/hymem-bench/hy-v3-30b-a3b-q4_k.gguf")
N_CTX = 8192  # writer.n_ctx's default

# Per chunk, from docs/benchmarks.md (SmolLM2-135M tokens, examples/alex.jsonl, 2 chunks): prompt tokens, evaluated
# after KV reuse (the mean of the two chunks, and the later chunk alone), and generated (the mean; both ran to the cap).
PROTOCOLS = {
    "hymem": {"prompt": 770, "evaluated": 506, "later": 242, "generated": 688},
    "hy-memory": {"prompt": 2896, "evaluated": 1854, "later": 812, "generated": 1024},
}
SHORT_ANSWER = 150  # generated tokens of a real writer's answer for a short chunk: an assumption, not a measurement

QK_K = 256
BLOCK_BYTES = {"q4_k": 144, "q6_k": 210}
GGML_TYPE = {"f32": 0, "q4_k": 12, "q6_k": 14}
FILE_TYPE_Q4_K_M = 15  # llama_ftype LLAMA_FTYPE_MOSTLY_Q4_K_M


@dataclass(frozen=True)
class Shape:
    """The sizes of the synthetic model (see the module docstring for where each comes from)."""

    layers: int = 48  # decoder blocks in the main pass (num_hidden_layers)
    dense_layers: int = 1  # leading blocks with a dense FFN (first_k_dense_replace)
    embed: int = 2048
    heads: int = 32
    kv_heads: int = 4
    head_dim: int = 128
    dense_ff: int = 6912
    experts: int = 128
    experts_used: int = 8
    expert_ff: int = 768
    shared_ff: int = 768
    vocab: int = 120832
    mtp_layers: int = 1  # num_nextn_predict_layers: a guess (see the docstring)
    context: int = 262144
    rope_base: float = 11158840.0
    rms_eps: float = 1e-5
    expert_scale: float = 2.826


# -- the file ------------------------------------------------------------------------------------


def tensor_plan(s: Shape) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, numpy-order shape, kind) for every tensor; kind is q4_k, q6_k, ones (F32), router or bias (F32)."""
    plan: list[tuple[str, tuple[int, ...], str]] = [
        ("token_embd.weight", (s.vocab, s.embed), "q4_k"),
        ("output_norm.weight", (s.embed,), "ones"),
        ("output.weight", (s.vocab, s.embed), "q6_k"),
    ]
    q, kv = s.heads * s.head_dim, s.kv_heads * s.head_dim
    for i in range(s.layers + s.mtp_layers):
        b = f"blk.{i}"
        plan += [
            (f"{b}.attn_norm.weight", (s.embed,), "ones"),
            (f"{b}.attn_q.weight", (q, s.embed), "q4_k"),
            (f"{b}.attn_k.weight", (kv, s.embed), "q4_k"),
            (f"{b}.attn_v.weight", (kv, s.embed), "q4_k"),
            (f"{b}.attn_output.weight", (s.embed, q), "q4_k"),
            (f"{b}.attn_q_norm.weight", (s.head_dim,), "ones"),
            (f"{b}.attn_k_norm.weight", (s.head_dim,), "ones"),
            (f"{b}.ffn_norm.weight", (s.embed,), "ones"),
        ]
        if i < s.dense_layers:
            plan += [
                (f"{b}.ffn_gate.weight", (s.dense_ff, s.embed), "q4_k"),
                (f"{b}.ffn_up.weight", (s.dense_ff, s.embed), "q4_k"),
                (f"{b}.ffn_down.weight", (s.embed, s.dense_ff), "q4_k"),
            ]
        else:
            plan += [
                (f"{b}.ffn_gate_inp.weight", (s.experts, s.embed), "router"),
                (f"{b}.exp_probs_b", (s.experts,), "bias"),  # hy_v3's selection bias has no .weight/.bias suffix
                (f"{b}.ffn_gate_exps.weight", (s.experts, s.expert_ff, s.embed), "q4_k"),
                (f"{b}.ffn_up_exps.weight", (s.experts, s.expert_ff, s.embed), "q4_k"),
                (f"{b}.ffn_down_exps.weight", (s.experts, s.embed, s.expert_ff), "q4_k"),
                (f"{b}.ffn_gate_shexp.weight", (s.shared_ff, s.embed), "q4_k"),
                (f"{b}.ffn_up_shexp.weight", (s.shared_ff, s.embed), "q4_k"),
                (f"{b}.ffn_down_shexp.weight", (s.embed, s.shared_ff), "q4_k"),
            ]
        if i >= s.layers:  # the MTP block's NextN parts (llama_model_hy_v3::load_arch_tensors)
            plan += [
                (f"{b}.nextn.eh_proj.weight", (s.embed, 2 * s.embed), "q4_k"),
                (f"{b}.nextn.enorm.weight", (s.embed,), "ones"),
                (f"{b}.nextn.hnorm.weight", (s.embed,), "ones"),
                (f"{b}.nextn.shared_head_norm.weight", (s.embed,), "ones"),
            ]
    return plan


def nbytes(shape: tuple[int, ...], kind: str) -> int:
    n = int(np.prod(shape))
    if kind in BLOCK_BYTES:
        if shape[-1] % QK_K:
            raise ValueError(f"a {kind} row must hold whole blocks of {QK_K}, not {shape[-1]}")
        return n // QK_K * BLOCK_BYTES[kind]
    return 4 * n


def block_pool(kind: str, blocks: int, rng: np.random.Generator) -> bytes:
    """Random quantized blocks whose f16 scales are small and finite, so the activations stay finite.

    Q4_K is {f16 d, f16 dmin, 12 bytes of 6-bit scales and mins, 128 bytes of 4-bit weights}: a weight is
    d*scale*q - dmin*min, so dmin = 7.5 d centres it near zero and d = 2^-13 gives a spread near 1/sqrt(2048).
    Q6_K is {128 + 64 bytes of 6-bit weights, 16 int8 scales, f16 d}: weights are d*scale*(q - 32).
    """
    size = BLOCK_BYTES[kind]
    pool = rng.integers(0, 256, size=(blocks, size), dtype=np.uint8)
    if kind == "q4_k":
        pool[:, 0:2] = np.frombuffer(np.float16(2.0**-13).tobytes(), dtype=np.uint8)
        pool[:, 2:4] = np.frombuffer(np.float16(7.5 * 2.0**-13).tobytes(), dtype=np.uint8)
    else:
        pool[:, 208:210] = np.frombuffer(np.float16(2.0**-14).tobytes(), dtype=np.uint8)
    return pool.tobytes()


def write_model(path: Path, s: Shape) -> dict:
    """Write the GGUF: header, metadata and tensor index with the gguf package, then the tensor data streamed."""
    import gguf
    from hy_v3_gguf import BOS, CHAT_TEMPLATE, EOS, tokenizer

    arch = "hy_v3"  # the PyPI gguf package has no HY_V3 constants: keys are written as strings (llama-arch.cpp)
    tokens, token_types, merges = tokenizer()
    pad = s.vocab - len(tokens)
    tokens += [f"<|pad_{i}|>" for i in range(pad)]
    token_types += [1] * pad  # normal tokens: a real vocabulary is almost all normal tokens

    plan = tensor_plan(s)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".partial")
    writer = gguf.GGUFWriter(os.fspath(tmp), arch)
    writer.add_string("general.name", "Hy-Memory-30B-A3B-shaped synthetic (random weights)")
    writer.add_uint32("general.file_type", FILE_TYPE_Q4_K_M)
    writer.add_uint32(f"{arch}.context_length", s.context)
    writer.add_uint32(f"{arch}.embedding_length", s.embed)
    writer.add_uint32(f"{arch}.block_count", s.layers + s.mtp_layers)  # the MTP blocks are appended after the trunk
    writer.add_uint32(f"{arch}.feed_forward_length", s.dense_ff)
    writer.add_uint32(f"{arch}.attention.head_count", s.heads)
    writer.add_uint32(f"{arch}.attention.head_count_kv", s.kv_heads)
    writer.add_uint32(f"{arch}.attention.key_length", s.head_dim)
    writer.add_uint32(f"{arch}.attention.value_length", s.head_dim)
    writer.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", s.rms_eps)
    writer.add_uint32(f"{arch}.rope.dimension_count", s.head_dim)
    writer.add_float32(f"{arch}.rope.freq_base", s.rope_base)
    writer.add_uint32(f"{arch}.expert_count", s.experts)
    writer.add_uint32(f"{arch}.expert_used_count", s.experts_used)
    writer.add_uint32(f"{arch}.expert_feed_forward_length", s.expert_ff)
    writer.add_uint32(f"{arch}.expert_shared_feed_forward_length", s.shared_ff)
    writer.add_bool(f"{arch}.expert_weights_norm", True)
    writer.add_float32(f"{arch}.expert_weights_scale", s.expert_scale)
    writer.add_uint32(f"{arch}.expert_gating_func", 2)  # LLAMA_EXPERT_GATING_FUNC_TYPE_SIGMOID
    if s.mtp_layers:
        writer.add_uint32(f"{arch}.nextn_predict_layers", s.mtp_layers)
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
    for name, shape, kind in plan:
        raw = gguf.GGMLQuantizationType(GGML_TYPE[kind]) if kind in BLOCK_BYTES else None  # None: F32
        writer.add_tensor_info(name, shape, np.dtype(np.float32), nbytes(shape, kind), raw_dtype=raw)

    start = time.perf_counter()
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    assert writer.fout is not None
    out = writer.fout[0]
    writer.write_padding(out, out.tell())
    rng = np.random.default_rng(0)
    pools = {kind: block_pool(kind, 1 << 16, rng) for kind in BLOCK_BYTES}
    turn = 0
    for name, shape, kind in plan:
        size = nbytes(shape, kind)
        if kind in pools:
            pool = memoryview(pools[kind])
            step = BLOCK_BYTES[kind]
            left = size
            while left:
                # Start each piece at another block of the pool, so neighbouring rows differ.
                at = (turn * 7919 % (len(pool) // step)) * step
                piece = pool[at:at + min(left, len(pool) - at)]
                out.write(piece)
                left -= len(piece)
                turn += 1
        elif kind == "ones":
            out.write(np.ones(shape, dtype=np.float32).tobytes())
        elif kind == "router":
            out.write((rng.standard_normal(shape, dtype=np.float32) / np.sqrt(shape[-1])).astype(np.float32).tobytes())
        else:
            out.write((0.01 * rng.standard_normal(shape, dtype=np.float32)).tobytes())
        writer.write_padding(out, size)
    out.flush()
    os.fsync(out.fileno())
    writer.close()
    tmp.replace(path)
    seconds = time.perf_counter() - start
    return {"bytes": path.stat().st_size, "write_s": round(seconds, 1), "tensors": len(plan)}


def expected_size(s: Shape) -> int:
    """The data bytes the plan needs: a file smaller than this is not a finished write."""
    return sum(nbytes(shape, kind) for _, shape, kind in tensor_plan(s))


def drop_from_page_cache(path: Path) -> None:
    """Evict this file's pages (only this file's), so the next load reads it from disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def parameter_counts(s: Shape) -> tuple[float, float]:
    """(total, per token) parameters of the main pass, in billions (the MTP block excluded)."""
    q, kv = s.heads * s.head_dim, s.kv_heads * s.head_dim
    attn = 2 * s.embed * q + 2 * s.embed * kv
    dense = 3 * s.embed * s.dense_ff
    expert = 3 * s.embed * s.expert_ff
    shared = 3 * s.embed * s.shared_ff
    moe_layers = s.layers - s.dense_layers
    total = 2 * s.vocab * s.embed + s.layers * attn + s.dense_layers * dense + moe_layers * (
        s.experts * expert + shared + s.experts * s.embed)
    active = s.vocab * s.embed + s.layers * attn + s.dense_layers * dense + moe_layers * (
        s.experts_used * expert + shared + s.experts * s.embed)
    return total / 1e9, active / 1e9


# -- measuring -------------------------------------------------------------------------------------


def load(path: Path, *, threads: int, batch: int, mtp: bool = False):
    """The model as hymem loads it: mmap, no weight-repacking buffers."""
    from hymem_cli.writer import llama_binding

    fields = {"use_extra_bufts": False, "load_mtp": mtp}
    return llama_binding.load_model(fields, model_path=os.fspath(path), n_ctx=N_CTX, n_batch=batch, n_ubatch=batch,
                                    n_threads=threads, n_threads_batch=threads, seed=0, verbose=False)


def set_threads(llm, threads: int | tuple[int, int]) -> None:
    """Threads for single-token decodes and for batches: one count for both, or (generation, batch)."""
    import llama_cpp

    one, many = threads if isinstance(threads, tuple) else (threads, threads)
    llama_cpp.llama_set_n_threads(llm.ctx, one, many)


def prompt_ids(n: int, rng: np.random.Generator) -> list[int]:
    return rng.integers(0, 256, size=n).tolist()  # byte tokens: any ids would do, speed does not look at them


def next_token(llm) -> int:
    """Greedy: the highest logit of the last evaluated token."""
    import llama_cpp

    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),))
    return int(np.argmax(logits))


def prompt_rate(llm, n: int, *, threads: int, batch: int, rng: np.random.Generator) -> float:
    """Prompt tokens/s of a fresh n-token prompt evaluated `batch` tokens per llama_decode."""
    set_threads(llm, threads)
    llm.reset()
    llm.n_batch = batch  # the context was made with the largest batch (n_ubatch); Llama.eval splits by n_batch
    ids = prompt_ids(n, rng)
    start = time.perf_counter()
    llm.eval(ids)
    return n / (time.perf_counter() - start)


def generation_rate(llm, n: int, *, threads: int) -> float:
    """Generated tokens/s, greedy, one eval per token, after whatever the context holds."""
    set_threads(llm, threads)
    start = time.perf_counter()
    for _ in range(n):
        llm.eval([next_token(llm)])
    return n / (time.perf_counter() - start)


def chunk_after_prefix(llm, per_chunk: int, generated: int, *, threads: tuple[int, int], batch: int, chunks: int,
                       rng: np.random.Generator) -> dict:
    """A writer's later calls as llama.cpp sees them: the tokens already in the KV cache stand for the fixed
    instructions (kept, not evaluated again: the cache is cut back to them, as Llama does on a prefix match); each
    chunk evaluates only its own tokens after them, then answers greedily."""
    set_threads(llm, threads)
    llm.n_batch = batch
    prefix = llm.n_tokens
    prompt_s, gen_s = [], []
    for _ in range(chunks):
        llm.n_tokens = prefix  # Llama.eval drops the KV cells after n_tokens
        start = time.perf_counter()
        llm.eval(prompt_ids(per_chunk, rng))
        mid = time.perf_counter()
        for _ in range(generated):
            llm.eval([next_token(llm)])
        prompt_s.append(mid - start)
        gen_s.append(time.perf_counter() - mid)
    return {"prefix": prefix, "per_chunk": per_chunk, "generated": generated,
            "chunk_prompt_s": [round(x, 2) for x in prompt_s], "chunk_generate_s": [round(x, 2) for x in gen_s]}


def mtp_costs(path: Path, *, threads: tuple[int, int], batch: int, context: int, repeats: int, rng: np.random.Generator) -> dict:
    """The pieces of one speculative step with the MTP head as the draft (common/speculative.cpp's draft-mtp):
    the target decoding 1, 2 and 3 tokens, the MTP context catching up on 2 accepted tokens, and one draft token.
    llama-cpp-python's Llama has no MTP path; this drives llama.cpp's own API through its ctypes bindings."""
    import llama_cpp
    from llama_cpp import llama_cpp_ext as ext

    llm = load(path, threads=threads[1], batch=batch, mtp=True)
    model, tgt = llm.model, llm.ctx
    nextn = llama_cpp.llama_model_n_layer_nextn(model)
    out: dict = {"n_layer_nextn": int(nextn)}
    if nextn <= 0:
        llm.close()
        out["status"] = "the file has no MTP layers"
        return out
    n_embd = llama_cpp.llama_model_n_embd(model)
    ext.llama_set_embeddings_nextn(tgt, True, False)
    params = llama_cpp.llama_context_default_params()
    params.n_ctx = N_CTX
    params.n_batch = params.n_ubatch = batch
    params.n_threads, params.n_threads_batch = threads
    params.ctx_type = llama_cpp.LLAMA_CONTEXT_TYPE_MTP
    params.n_rs_seq = 0
    params.ctx_other = tgt
    dft = llama_cpp.llama_init_from_model(model, params)
    if not dft:
        llm.close()
        out["status"] = "llama_init_from_model refused an MTP context"
        return out
    ext.llama_set_embeddings_nextn(dft, True, True)
    batch_ext = llama_cpp.llama_batch_ext_init(dft)
    keep: list = []  # the arrays the batch points into must outlive each llama_process

    def mtp_decode(ids: list[int], first_pos: int, rows: np.ndarray, output_last: bool = True) -> float:
        llama_cpp.llama_batch_ext_clear(batch_ext)
        keep.clear()
        for k, tok in enumerate(ids):
            idx = llama_cpp.llama_batch_ext_add_token(batch_ext, 0, tok)
            pos = (llama_cpp.llama_pos * 4)(first_pos + k, 0, 0, 0)
            row = np.ascontiguousarray(rows[k], dtype=np.float32)
            keep.extend((pos, row))
            llama_cpp.llama_batch_ext_set_pos(batch_ext, idx, pos)
            embd = llama_cpp.llama_embd(row.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), 1, n_embd)
            llama_cpp.llama_batch_ext_set_embd_token(batch_ext, idx, embd)
            if output_last and k == len(ids) - 1:
                llama_cpp.llama_batch_ext_set_output_logits(batch_ext, idx, True)
        start = time.perf_counter()
        rc = llama_cpp.llama_process(dft, llama_cpp.LLAMA_PROCESS_TYPE_DECODE, batch_ext)
        if rc != 0:
            raise RuntimeError(f"llama_process on the MTP context returned {rc}")
        return time.perf_counter() - start

    try:
        set_threads(llm, threads)
        llama_cpp.llama_set_n_threads(dft, *threads)
        llm.reset()
        ids = prompt_ids(context, rng)
        llm.eval(ids)  # one batch: context <= batch
        h = np.ctypeslib.as_array(ext.llama_get_embeddings_nextn(tgt), shape=(context, n_embd)).copy()
        # The MTP context's own KV for the prompt: token k paired with the target's hidden state at k - 1.
        shifted = np.vstack([np.zeros((1, n_embd), np.float32), h[:-1]])
        out["catch_up_prompt_s"] = round(mtp_decode(ids, 0, shifted), 3)
        mem = llama_cpp.llama_get_memory(dft)
        tgt_times: dict[int, list[float]] = {1: [], 2: [], 3: []}
        draft1, catch2 = [], []
        h_last = h[-1:]
        for _ in range(repeats):
            # Distinct tokens: the same token twice would mostly pick the same experts and flatter the verify batch.
            toks = prompt_ids(3, rng)
            for k in (1, 2, 3):
                llm.n_tokens = context
                start = time.perf_counter()
                llm.eval(toks[:k])
                tgt_times[k].append(time.perf_counter() - start)
            llama_cpp.llama_memory_seq_rm(mem, 0, context, -1)
            draft1.append(mtp_decode(toks[:1], context, h_last))
            llama_cpp.llama_memory_seq_rm(mem, 0, context, -1)
            catch2.append(mtp_decode(toks[:2], context, np.vstack([h_last, h[-2:-1]])))
            llama_cpp.llama_memory_seq_rm(mem, 0, context, -1)
        out.update({f"target_{k}_s": round(statistics.median(v), 4) for k, v in tgt_times.items()})
        out["draft_1_s"] = round(statistics.median(draft1), 4)
        out["catch_up_2_s"] = round(statistics.median(catch2), 4)
        out["status"] = "measured"
    finally:
        llama_cpp.llama_batch_ext_free(batch_ext)
        llama_cpp.llama_free(dft)
        llm.close()
    return out


def mtp_speedup(m: dict, acceptance: float) -> float:
    """Tokens per second with one MTP draft token per step over plain decoding, for an acceptance rate."""
    step = m["target_2_s"] + m["catch_up_2_s"] + m["draft_1_s"]
    return (1 + acceptance) * m["target_1_s"] / step


# -- the run -------------------------------------------------------------------------------------


def cpu_name() -> str:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the GGUF goes (outside the repository)")
    ap.add_argument("--rewrite", action="store_true", help="write the file even when one of the right size is there")
    ap.add_argument("--cleanup", action="store_true", help="delete the file at the end")
    ap.add_argument("--layers", type=int, default=Shape.layers)
    ap.add_argument("--experts", type=int, default=Shape.experts)
    ap.add_argument("--mtp-layers", type=int, default=Shape.mtp_layers)
    ap.add_argument("--threads", default="2,1", help="thread counts to compare; the first runs the batch sizes")
    ap.add_argument("--thread-prompt", type=int, default=128, help="prompt tokens of the thread comparison")
    ap.add_argument("--batch", default="256,512,1024", help="tokens per llama_decode to try, each on a prompt of that size")
    ap.add_argument("--prompt", default="1850", help="longer prompts, in evaluated tokens, at the best batch size")
    ap.add_argument("--generate", type=int, default=64, help="generated tokens per generation figure")
    ap.add_argument("--chunks", type=int, default=1, help="simulated chunks after the last prompt, kept as the prefix")
    ap.add_argument("--chunk-generate", type=int, default=24, help="tokens generated per simulated chunk (cut for time)")
    ap.add_argument("--no-mtp", action="store_true", help="skip the MTP draft measurement")
    ap.add_argument("--mtp-only", action="store_true", help="only the MTP draft measurement (first --threads, largest --batch)")
    ap.add_argument("--no-cold", action="store_true", help="skip the load with the file out of the page cache")
    ap.add_argument("--json", type=Path, help="also write every figure here")
    args = ap.parse_args()

    threads, batches, prompts = ints(args.threads), ints(args.batch), ints(args.prompt)
    shape = replace(Shape(), layers=args.layers, experts=args.experts, experts_used=min(Shape.experts_used, args.experts),
                    mtp_layers=args.mtp_layers)
    total_b, active_b = parameter_counts(shape)
    rng = np.random.default_rng(1)
    res: dict = {"shape": asdict(shape), "params_b": round(total_b, 2), "active_b": round(active_b, 2), "cpu": cpu_name(),
                 "cores": os.cpu_count(), "threads": threads, "batches": batches, "prompts": prompts,
                 "load_average_before": os.getloadavg()[0]}
    import llama_cpp

    res["llama_cpp_python"] = llama_cpp.__version__
    print(f"# {shape.layers}+{shape.mtp_layers} layers, {shape.experts} experts: {total_b:.1f}B parameters, "
          f"{active_b:.2f}B per token; {res['cpu']}, {res['cores']} cores", file=sys.stderr)

    path: Path = args.out
    if args.rewrite or not path.exists() or path.stat().st_size < expected_size(shape):
        print(f"# writing {path} ...", file=sys.stderr)
        res["write"] = write_model(path, shape)
    else:
        res["write"] = {"bytes": path.stat().st_size, "write_s": None, "reused": True}
    print(f"# {res['write']}", file=sys.stderr)

    try:
        if args.mtp_only:
            res["mtp"] = mtp_costs(path, threads=(threads[0], threads[0]), batch=max(batches), context=128, repeats=5, rng=rng)
            print(f"# MTP: {res['mtp']}", file=sys.stderr)
        else:
            measure_all(path, shape, args, res, rng)
    finally:
        if args.cleanup:
            path.unlink(missing_ok=True)
            path.with_suffix(".partial").unlink(missing_ok=True)

    res["load_average_after"] = os.getloadavg()[0]
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n")
    print(report(res, shape, args))


def measure_all(path: Path, shape: Shape, args, res: dict, rng: np.random.Generator) -> None:
    """The speed figures on the model as hymem loads it, then the MTP draft's costs on a second load."""
    best, gen_t, _ = speed_figures(path, args, res, rng)
    if not args.no_mtp and shape.mtp_layers:
        try:
            # Verifying a draft is generation work: its 2-3 token batches run on the generation thread count.
            res["mtp"] = mtp_costs(path, threads=(gen_t, gen_t), batch=best, context=128, repeats=5, rng=rng)
        except Exception as exc:  # a staging API: report what failed rather than lose the other figures
            res["mtp"] = {"status": f"failed: {type(exc).__name__}: {exc}"}
        print(f"# MTP: {res['mtp']}", file=sys.stderr)


def speed_figures(path: Path, args, res: dict, rng: np.random.Generator) -> tuple[int, int, int]:
    """Load times, batch sizes, thread counts, the longer prompts, and a chunk after a cached prefix.
    Returns the best batch size and the faster thread counts for generation and for prompts."""
    threads, batches, prompts = res["threads"], res["batches"], res["prompts"]
    t0, big = threads[0], max(batches)
    if not args.no_cold:
        drop_from_page_cache(path)
        start = time.perf_counter()
        cold = load(path, threads=t0, batch=big)
        res["load_cold_s"] = round(time.perf_counter() - start, 2)
        cold.close()
        del cold
    start = time.perf_counter()
    llm = load(path, threads=t0, batch=big)
    res["load_warm_s"] = round(time.perf_counter() - start, 2)
    print(f"# load: cold {res.get('load_cold_s')} s, warm {res['load_warm_s']} s", file=sys.stderr)

    prompt_rate(llm, 32, threads=t0, batch=big, rng=rng)  # first decode: thread pool, buffers
    pp: dict[str, float] = {}
    res["prompt_tps"], res["generate_tps"] = pp, {}

    def measure(n: int, t: int, b: int) -> float:
        tps = prompt_rate(llm, n, threads=t, batch=b, rng=rng)
        pp[f"{n}/t{t}/b{b}"] = round(tps, 2)
        print(f"# prompt {n} tokens, {t} threads, batch {b}: {tps:.2f} tok/s", file=sys.stderr)
        return tps

    swept = {b: measure(b, t0, b) for b in batches}  # one llama_decode of b tokens each
    best = max(swept, key=swept.__getitem__)
    res["best_batch"] = best
    small = min(best, args.thread_prompt)
    for t in threads:  # each generation continues after its thread count's prompt
        measure(args.thread_prompt, t, small)
        tps = generation_rate(llm, args.generate, threads=t)
        res["generate_tps"][f"t{t}"] = round(tps, 2)
        print(f"# generate {args.generate} tokens after {args.thread_prompt}, {t} threads: {tps:.2f} tok/s", file=sys.stderr)
    pp_t = max(threads, key=lambda t: pp[f"{args.thread_prompt}/t{t}/b{small}"])
    gen_t = max(threads, key=lambda t: res["generate_tps"][f"t{t}"])
    res["prompt_threads"], res["generate_threads"] = pp_t, gen_t
    for n in prompts:
        measure(n, pp_t, best)

    res["chunk"] = chunk_after_prefix(llm, PROTOCOLS["hymem"]["later"], args.chunk_generate, threads=(gen_t, pp_t),
                                      batch=best, chunks=args.chunks, rng=rng)
    print(f"# a chunk after the cached prompt: {res['chunk']}", file=sys.stderr)
    llm.close()
    return best, gen_t, pp_t


def report(res: dict, shape: Shape, args) -> str:
    """The figures as a markdown table; seconds per chunk use the faster thread counts and the nearest prompt size."""
    rows = [("model", f"{shape.layers} layers (+{shape.mtp_layers} MTP), {shape.experts} experts, {shape.experts_used} per token: "
                      f"{res['params_b']:.1f}B parameters, {res['active_b']:.2f}B per token")]
    w = res["write"]
    rows.append(("file (Q4_K, output Q6_K)", f"{w['bytes'] / 1e9:.2f} GB" + (f", written in {w['write_s']} s" if w.get("write_s") else "")))
    if "prompt_tps" in res:
        rows += speed_rows(res, args)
    m = res.get("mtp")
    if m:
        if m.get("status") == "measured":
            rows.append(("target decode of 1 / 2 / 3 tokens (s)", f"{m['target_1_s']} / {m['target_2_s']} / {m['target_3_s']}"))
            rows.append(("MTP draft of 1 token / catch-up on 2 tokens (s)", f"{m['draft_1_s']} / {m['catch_up_2_s']}"))
            rows.append(("MTP speed-up at 60 / 80 / 100 % acceptance (1 draft token)",
                         " / ".join(f"{mtp_speedup(m, a):.2f}x" for a in (0.6, 0.8, 1.0))))
        else:
            rows.append(("MTP", m.get("status", "?")))
    rows.append(("machine load average (1 min) before / after", f"{res['load_average_before']:.2f} / {res['load_average_after']:.2f}"))
    lines = ["| figure | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(lines)


def speed_rows(res: dict, args) -> list[tuple[str, str]]:
    """Load, prompt and generation rates, and seconds per chunk from them."""
    pp, pp_t, gen_t = res["prompt_tps"], res["prompt_threads"], res["generate_threads"]
    gen = res["generate_tps"][f"t{gen_t}"]
    rows = []
    if "load_cold_s" in res:
        rows.append(("load, file not in the page cache (s)", f"{res['load_cold_s']}"))
    rows.append(("load, file in the page cache (s)", f"{res['load_warm_s']}"))
    for key, tps in pp.items():
        n, t, b = key.split("/")
        rows.append((f"prompt tokens/s: {n} tokens, {t[1:]} threads, batch {b[1:]}", f"{tps:.2f}"))
    for key, tps in res["generate_tps"].items():
        rows.append((f"generation tokens/s ({args.generate} tokens after {args.thread_prompt}), {key[1:]} threads", f"{tps:.2f}"))

    # Prompt tokens/s nearest n tokens: the single-decode sweep (n = batch) and the prompts run with the faster threads.
    sizes: dict[int, float] = {}
    for key, tps in pp.items():
        n, t, b = key.split("/")
        if n == b[1:] or t == f"t{pp_t}":
            sizes[int(n)] = max(tps, sizes.get(int(n), 0.0))

    def rate(n: int) -> float:
        return sizes[min(sizes, key=lambda m: abs(m - n))]

    for name, p in PROTOCOLS.items():
        prompt_s = p["evaluated"] / rate(p["evaluated"])
        rows.append((f"seconds/chunk, {name}: {p['evaluated']} evaluated + {p['generated']} generated",
                     f"{prompt_s + p['generated'] / gen:.0f} ({prompt_s:.0f} prompt + {p['generated'] / gen:.0f} generation)"))
        rows.append((f"seconds/chunk, {name}: {p['evaluated']} evaluated + {SHORT_ANSWER} generated (assumed answer)",
                     f"{prompt_s + SHORT_ANSWER / gen:.0f}"))
    c = res["chunk"]
    predicted = c["per_chunk"] / rate(c["per_chunk"]) + c["generated"] / gen
    measured = [p + g for p, g in zip(c["chunk_prompt_s"], c["chunk_generate_s"])]
    rows.append((f"a chunk end to end after {c['prefix']} cached tokens (not evaluated again): "
                 f"{c['per_chunk']} evaluated + {c['generated']} generated",
                 " / ".join(f"{m:.1f}" for m in measured) + f" s (formula: {predicted:.1f})"))
    return rows


if __name__ == "__main__":
    main()
