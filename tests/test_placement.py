"""Where a writer model's weights go: GPU layers, routed experts kept in system memory, and the settings for them.

The planner is pure and is tested on sizes shaped like Hy-Memory-30B-A3B's; the override reaches llama.cpp
through the binding's model params, which the `llama` tests prove on the synthetic hy_v3 GGUF: llama.cpp
places exactly the expert tensors by the pattern, and the model decodes the same tokens as without it.
"""

from __future__ import annotations

import os
import re

import pytest
from hy_v3_gguf import EMBED, EXPERT_FEED_FORWARD, build_hy_v3_gguf

from hymem_cli import config
from hymem_cli._errors import ConfigError
from hymem_cli.writer import llama_binding
from hymem_cli.writer.llama_backend import GPU_HEADROOM, ModelSizes, _gguf_tensors, model_sizes, plan_placement

LAYERS, EXPERTS, EXPERTS_USED = 2, 4, 2
GB = 10**9


@pytest.fixture(scope="module")
def moe_gguf(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("moe") / "Hy-Memory-30B-A3B-tiny-F32.gguf"
    return str(build_hy_v3_gguf(path, layers=LAYERS, experts=EXPERTS, experts_used=EXPERTS_USED))


def _expert_names(layers: int = LAYERS) -> set[str]:
    return {f"blk.{i}.ffn_{part}_exps.weight" for i in range(layers) for part in ("gate", "up", "down")}


# -- the pattern ---------------------------------------------------------------------------------


def test_the_expert_pattern_matches_the_expert_tensors_and_nothing_else(moe_gguf):
    _, tensors = _gguf_tensors(moe_gguf)  # hymem's own reader
    import gguf

    assert set(tensors) == {t.name for t in gguf.GGUFReader(moe_gguf).tensors}  # and the gguf package agrees
    matched = {name for name in tensors if re.search(llama_binding.EXPERT_TENSORS, name)}
    assert matched == _expert_names()
    # What stays with its layer: the router, the selection bias, the shared expert, attention and norms.
    assert {f"blk.0.{n}" for n in ("ffn_gate_inp.weight", "exp_probs_b", "ffn_gate_shexp.weight", "ffn_up_shexp.weight",
                                   "ffn_down_shexp.weight", "attn_q.weight", "ffn_norm.weight")} <= set(tensors) - matched


@pytest.mark.parametrize(("name", "expert"), [
    ("blk.47.ffn_gate_up_exps.weight", True),  # llama.cpp's fused gate and up
    ("blk.3.ffn_down_exps.weight", True),
    ("blk.3.ffn_down_chexps.weight", True),
    ("blk.3.ffn_down_shexp.weight", False),
    ("blk.3.ffn_gate_inp.weight", False),
    ("blk.3.ffn_gate_inp_shexp.weight", False),
    ("blk.3.exp_probs_b", False),
    ("blk.3.ffn_down.weight", False),
    ("token_embd.weight", False),
])
def test_the_pattern_on_names_other_mixtures_of_experts_use(name, expert):
    assert bool(re.search(llama_binding.EXPERT_TENSORS, name)) is expert


def test_sizes_come_from_the_tensor_table(moe_gguf):
    sizes = model_sizes(moe_gguf, n_ctx=512)
    assert len(sizes.layers) == LAYERS
    per_layer_experts = 3 * EXPERTS * EXPERT_FEED_FORWARD * EMBED * 4  # F32
    assert all(experts == per_layer_experts for _, experts in sizes.layers)
    assert sizes.total <= os.path.getsize(moe_gguf)
    assert sizes.kv_per_layer == 2 * 2 * 16 * 2 * 512  # F16 K and V: 2 KV heads of 16, 512 positions


# -- the planner, on sizes shaped like Hy-Memory-30B-A3B at Q4_K_M -------------------------------

# 48 layers of ~0.36 GB, ~0.33 GB of it routed experts; 0.3 GB output, 0.3 GB embedding; 48 KB of KV per
# layer and position at 8192 positions.
REAL = ModelSizes(layers=((360_000_000, 330_000_000),) * 48, output=300_000_000, embedding=300_000_000,
                  kv_per_layer=8192 * 4 * 128 * 2 * 2)
DENSE = ModelSizes(layers=((100_000_000, 0),) * 10, output=50_000_000, embedding=50_000_000, kv_per_layer=1_000_000)


def _plan(free: float | None, sizes: ModelSizes = REAL, **kwargs):
    return plan_placement(sizes, offload=True, device="CUDA0 (Test GPU)", free_bytes=None if free is None else int(free * GB), **kwargs)


def test_a_cpu_build_or_no_gpu_keeps_everything_on_the_cpu():
    for placement in (plan_placement(REAL, offload=False, device=None, free_bytes=None),
                      plan_placement(REAL, offload=True, device=None, free_bytes=None)):
        assert placement.gpu_layers == 0 and placement.cpu_tensors == () and placement.device is None
        assert placement.describe().startswith("CPU only")
    assert "no GPU offload" in plan_placement(REAL, offload=False, device=None, free_bytes=None).why
    assert _plan(80, gpu_layers=0).gpu_layers == 0


def test_a_gpu_that_holds_the_whole_model_gets_all_of_it():
    placement = _plan(80)
    assert (placement.gpu_layers, placement.experts, placement.cpu_tensors) == (-1, "gpu", ())
    assert placement.gpu_bytes == REAL.on_gpu(-1, False)
    assert "48 of 48 layers on CUDA0" in placement.describe()


def test_a_small_gpu_gets_every_layer_but_the_experts():
    placement = _plan(8)  # the whole model needs ~18.6 GB; without its experts ~2.7 GB
    assert (placement.gpu_layers, placement.experts) == (-1, "cpu")
    assert placement.cpu_tensors == (llama_binding.EXPERT_TENSORS,)
    assert placement.gpu_bytes == REAL.on_gpu(-1, True) < 8 * GB - GPU_HEADROOM
    assert "routed experts" in placement.describe() and "more than it has free" in placement.why
    assert placement.record()["cpu_tensors"] == [llama_binding.EXPERT_TENSORS]


def test_a_gpu_too_small_even_without_experts_gets_the_layers_that_fit():
    placement = _plan(2.5)
    assert 0 < placement.gpu_layers < 48 and placement.experts == "cpu"
    assert REAL.on_gpu(placement.gpu_layers, True) <= 2.5 * GB - GPU_HEADROOM < REAL.on_gpu(placement.gpu_layers + 1, True)
    assert f"only {placement.gpu_layers} layers fit" in placement.why
    assert _plan(1).gpu_layers == 0  # the headroom alone fills it


def test_settings_win_over_the_estimate():
    experts_on_gpu = _plan(8, experts="gpu")  # then fewer layers fit
    assert 0 < experts_on_gpu.gpu_layers < 48 and experts_on_gpu.experts == "gpu"
    assert (_plan(80, experts="cpu").gpu_layers, _plan(80, experts="cpu").experts) == (-1, "cpu")
    assert _plan(2.5, gpu_layers="all").gpu_layers == -1
    assert _plan(80, gpu_layers=12).gpu_layers == 12
    assert _plan(80, gpu_layers="12").gpu_layers == 12
    assert _plan(None).gpu_layers == -1 and _plan(None).experts == "gpu"  # free memory unknown: as before, all of it


def test_a_dense_model_has_no_experts_to_place():
    placement = _plan(0.5, DENSE, experts="cpu")
    assert placement.experts == "" and placement.cpu_tensors == ()
    assert "routed experts" not in placement.describe()


@pytest.mark.parametrize(("kwargs", "needle"), [({"gpu_layers": "most"}, "gpu_layers"), ({"gpu_layers": -1}, "gpu_layers"),
                                                 ({"experts": "disk"}, "experts")])
def test_bad_values_are_refused(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        _plan(80, **kwargs)


# -- the settings --------------------------------------------------------------------------------


@pytest.fixture
def clean_env(home, monkeypatch):
    for key in config.KEYS:
        monkeypatch.delenv(config.env_name(key), raising=False)
    return monkeypatch


def test_defaults_are_auto(clean_env):
    writer = config.load().writer
    assert (writer.gpu_layers, writer.experts, writer.layers_on_gpu) == ("auto", "auto", "auto")


def test_gpu_layers_takes_a_word_or_a_count(clean_env):
    clean_env.setenv("HYMEM_WRITER_GPU_LAYERS", "20")
    assert config.load().writer.layers_on_gpu == 20
    assert config.load({"writer.gpu_layers": "all"}).writer.layers_on_gpu == "all"
    clean_env.setenv("HYMEM_WRITER_GPU_LAYERS", "most")
    with pytest.raises(ConfigError, match="writer.gpu_layers"):
        config.load()


def test_the_older_n_gpu_layers_still_wins_when_it_is_a_count(clean_env):
    clean_env.setenv("HYMEM_WRITER_GPU_LAYERS", "all")
    clean_env.setenv("HYMEM_WRITER_N_GPU_LAYERS", "0")
    assert config.load().writer.layers_on_gpu == 0
    clean_env.setenv("HYMEM_WRITER_N_GPU_LAYERS", "-1")  # its old default: all, which auto now decides
    assert config.load().writer.layers_on_gpu == "all"


def test_experts_takes_its_choices(clean_env):
    assert config.load({"writer.experts": "cpu"}).writer.experts == "cpu"
    with pytest.raises(ConfigError, match="writer.experts"):
        config.load({"writer.experts": "disk"})


# -- llama.cpp ----------------------------------------------------------------------------------



def _greedy(llm, n: int = 40) -> list[int]:
    prompt = llm.tokenize(b"<|im_start|>user\nAlex: I moved to Sydney last month.<|im_end|>\n<|im_start|>assistant\n", special=True)
    tokens = []
    for token in llm.generate(prompt, temp=0.0):
        tokens.append(token)
        if len(tokens) == n:
            break
    return tokens


@pytest.mark.llama
def test_the_binding_reaches_what_placement_needs(llama_cpp):
    import llama_cpp.llama_cpp as low

    fields = dict(low.llama_model_params._fields_)
    assert fields.get("tensor_buft_overrides") is not None, f"llama-cpp-python {llama_cpp.__version__}: no tensor_buft_overrides field"
    assert low.llama_max_tensor_buft_overrides() > 1
    found = llama_binding.devices()
    assert found and any(d.kind == "cpu" for d in found), found
    assert all(d.total >= d.free >= 0 for d in found)
    if not llama_binding.supports_gpu_offload():
        assert not [d for d in found if d.is_gpu]


@pytest.mark.llama
def test_experts_kept_on_the_cpu_decode_the_same_tokens(llama_cpp, moe_gguf):
    kwargs = {"model_path": moe_gguf, "n_ctx": 512, "n_threads": 1, "n_threads_batch": 1, "seed": 0, "verbose": False}
    plain = llama_binding.load_model({"use_extra_bufts": False}, **kwargs)
    try:
        expected = _greedy(plain)
    finally:
        plain.close()
    placed = llama_binding.load_model({"use_extra_bufts": False}, cpu_tensors=[llama_binding.EXPERT_TENSORS], n_gpu_layers=-1, **kwargs)
    try:
        # llama.cpp itself says which tensors the pattern put in system memory: the experts, all of them, only them.
        overridden = llama_binding.overridden_tensors(placed.hymem_load_log)
        assert set(overridden) == _expert_names()
        assert set(overridden.values()) == {"CPU"}
        assert _greedy(placed) == expected
    finally:
        placed.close()
    assert len(expected) == 40


@pytest.mark.llama
def test_the_writer_record_says_where_the_model_went(llama_cpp, moe_gguf):
    from hymem_cli.writer.llama_backend import LlamaBackend

    with LlamaBackend(moe_gguf, n_ctx=512, max_tokens=64, n_threads=1, experts="cpu") as backend:
        placed = backend.info().extra["placement"]
    assert placed["experts"] == "cpu"
    if llama_binding.supports_gpu_offload():
        assert placed["cpu_tensors"] == [llama_binding.EXPERT_TENSORS] and placed["device"]
    else:
        assert (placed["gpu_layers"], placed["cpu_tensors"], placed["device"]) == (0, [], None)
        assert "no GPU offload" in placed["why"]


def test_doctor_shows_the_gpu_and_where_the_model_would_go(cli, clean_env, llama_cpp, moe_gguf):
    clean_env.setenv("HYMEM_EMBED_MODEL", "hash")
    clean_env.setenv("HYMEM_WRITER_MODEL", moe_gguf)
    clean_env.setenv("HYMEM_WRITER_EXPERTS", "cpu")
    records = {r["check"]: r for r in cli("doctor", "-f", "jsonl").jsonl()}
    gpu, placement = records["gpu"], records["writer placement"]
    if llama_binding.supports_gpu_offload():
        assert "GiB free of" in gpu["detail"] or gpu["detail"].startswith("no GPU device")
        assert placement["status"] == "ok"
    else:
        assert gpu["status"] == "ok" and gpu["detail"].startswith("no GPU device")
        assert placement == {"check": "writer placement", "status": "ok", "detail": "CPU only (this llama.cpp build has no GPU offload)",
                             "hint": None}
    clean_env.setenv("HYMEM_WRITER_N_GPU_LAYERS", "0")  # the older key: still obeyed, and named as deprecated
    records = {r["check"]: r for r in cli("doctor", "-f", "jsonl").jsonl()}
    assert records["writer placement"]["status"] == "warn" and "writer.gpu_layers 0" in records["writer placement"]["hint"]
