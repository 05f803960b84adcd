"""Adapter for llama-cpp-python internals: the one module that reaches past its public API.

Log capture, load-time model params (tensor placement included), ggml's devices, KV state and
prompt-cache bookkeeping: every use of a llama-cpp-python internal lives here, each with a line
saying what the public API lacks. TESTED is
the range of versions this was written against; tests/test_llama_binding.py fails, naming the
attribute and the installed version, when a release drops or changes what it relies on.
llama_cpp is imported on first use, never at import, so hymem runs without it.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The llama-cpp-python versions this module was written and tested against (pyproject.toml pins the same).
TESTED = ">=0.3.36,<0.4"

# llama.cpp's log callback is one process-global C pointer, so the state that serves it is module-level too.
_LOG_LINES: deque[str] = deque(maxlen=20000)  # a load logs a few pieces per tensor; overridden_tensors reads them all
_LOG_CALLBACK: Any = None  # the ctypes callback must stay referenced while installed
# Serializes loads: the params override below patches a module attribute, and the log is cleared per load.
_LOAD_LOCK = threading.Lock()

# Exceptions llama-cpp-python raises when llama.cpp refuses a model or cannot allocate for it.
_LOAD_ERRORS = (ValueError, RuntimeError, OSError, MemoryError)


class LoadFailure(Exception):
    """llama.cpp refused to load a model. `cause` is llama-cpp-python's exception, `log` what llama.cpp logged meanwhile."""

    def __init__(self, cause: BaseException, log: str):
        super().__init__(str(cause) or type(cause).__name__)
        self.cause = cause
        self.log = log

    def error_line(self) -> str | None:
        """The most telling line of the log about the failure, if any (e.g. "unknown model architecture")."""
        lines = [ln.strip() for ln in self.log.splitlines() if ln.strip()]
        for needle in ("error loading model:", "error:", "failed", "unable"):
            for line in reversed(lines):
                if needle in line.lower():
                    return line
        return None


def _modules() -> tuple[Any, Any]:
    """llama_cpp and its ctypes layer, with llama.cpp's log captured; ImportError when not installed."""
    import llama_cpp
    import llama_cpp.llama_cpp as low

    _install_log_capture(low)
    return llama_cpp, low


def _install_log_capture(low: Any) -> None:
    """Route llama.cpp's log into _LOG_LINES: it reports load errors only there, and must print nothing."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return

    # llama-cpp-python's own callback forwards to `logging` with no way to read a load's lines back.
    @low.llama_log_callback
    def _capture(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        try:
            _LOG_LINES.append(text.decode("utf-8", errors="replace"))
        except Exception:  # noqa: BLE001, S110 - never let an exception cross into C
            pass

    low.llama_log_set(_capture, ctypes.c_void_p(0))
    _LOG_CALLBACK = _capture


def version() -> str:
    """The installed llama-cpp-python's version; raises ImportError when it is not installed."""
    llama_cpp, _ = _modules()
    return getattr(llama_cpp, "__version__", "?")


def supports_gpu_offload() -> bool:
    """Whether this llama.cpp build can put layers on a GPU."""
    _, low = _modules()
    return bool(low.llama_supports_gpu_offload())


# Routed experts' weights, as llama.cpp's own tools match them for --cpu-moe (common.h LLM_FFN_EXPS_REGEX):
# ffn_gate/up/down_exps and the fused ffn_gate_up_exps; never the shared expert (_shexp), router or bias.
EXPERT_TENSORS = r"\.ffn_(up|down|gate|gate_up)_(ch|)exps"

# ggml's enum ggml_backend_dev_type, in order.
_DEVICE_KINDS = ("cpu", "gpu", "igpu", "accel", "meta")
_GGML: Any = None


@dataclass(frozen=True)
class Device:
    """One compute device llama.cpp can use: `kind` is cpu, gpu, igpu (shares system memory), accel or meta."""

    name: str
    description: str
    kind: str
    free: int
    total: int

    @property
    def is_gpu(self) -> bool:
        return self.kind in ("gpu", "igpu")


def _ggml(low: Any) -> Any:
    """llama.cpp's library with the ggml backend functions typed; libllama's handle resolves ggml's symbols."""
    global _GGML
    if _GGML is None:
        # llama-cpp-python binds none of ggml's backend device API; these are its C signatures (ggml-backend.h).
        lib = low._lib
        c_size, c_void, c_str = ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
        for name, args, result in (
            ("ggml_backend_dev_count", [], c_size),
            ("ggml_backend_dev_get", [c_size], c_void),
            ("ggml_backend_dev_name", [c_void], c_str),
            ("ggml_backend_dev_description", [c_void], c_str),
            ("ggml_backend_dev_type", [c_void], ctypes.c_int),
            ("ggml_backend_dev_memory", [c_void, ctypes.POINTER(c_size), ctypes.POINTER(c_size)], None),
            ("ggml_backend_cpu_buffer_type", [], c_void),
        ):
            function = getattr(lib, name)
            function.argtypes, function.restype = args, result
        _GGML = lib
    return _GGML


def devices() -> list[Device]:
    """The devices this llama.cpp build registered (the CPU, and GPUs in a GPU build), with their memory now.

    Raises ImportError without llama-cpp-python."""
    _, low = _modules()
    lib = _ggml(low)
    found = []
    for index in range(int(lib.ggml_backend_dev_count())):
        device = lib.ggml_backend_dev_get(index)
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        lib.ggml_backend_dev_memory(device, ctypes.byref(free), ctypes.byref(total))
        kind = int(lib.ggml_backend_dev_type(device))
        found.append(Device(
            name=(lib.ggml_backend_dev_name(device) or b"").decode("utf-8", "replace"),
            description=(lib.ggml_backend_dev_description(device) or b"").decode("utf-8", "replace"),
            kind=_DEVICE_KINDS[kind] if 0 <= kind < len(_DEVICE_KINDS) else str(kind),
            free=int(free.value),
            total=int(total.value),
        ))
    return found


class _TensorBuftOverride(ctypes.Structure):
    # struct llama_model_tensor_buft_override (llama.h): a regex searched in tensor names, and a buffer type.
    _fields_ = [("pattern", ctypes.c_char_p), ("buft", ctypes.c_void_p)]


def _cpu_overrides(low: Any, patterns: Sequence[str]) -> Any:
    """A NULL-terminated array that puts tensors matching any of `patterns` in the CPU's buffer type."""
    if len(patterns) >= int(low.llama_max_tensor_buft_overrides()):
        raise ValueError(f"llama.cpp takes fewer than {low.llama_max_tensor_buft_overrides()} tensor overrides")
    cpu = _ggml(low).ggml_backend_cpu_buffer_type()
    overrides = (_TensorBuftOverride * (len(patterns) + 1))()  # zeroed: the last entry's NULL pattern ends it
    for entry, pattern in zip(overrides, patterns, strict=False):
        entry.pattern = pattern.encode("utf-8")
        entry.buft = cpu
    return overrides


def overridden_tensors(log: str) -> dict[str, str]:
    """Tensor name -> buffer type, for each tensor a load's tensor overrides placed, read from llama.cpp's log."""
    # llama.cpp reports each override only in its debug log ("tensor NAME (...) buffer type overridden to BUFT").
    found = {}
    for line in log.splitlines():
        match = re.search(r"tensor (\S+) \(.*\) buffer type overridden to (\S+)", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


@contextlib.contextmanager
def _model_params_override(low: Any, fields: Mapping[str, Any]) -> Iterator[None]:
    """Make `llama_model_default_params()` return params with `fields` set, for one load; callers hold _LOAD_LOCK.

    Fields this llama.cpp does not have are dropped, so an older build loads as before.
    """
    known = {name for name, _ in low.llama_model_params._fields_}
    fields = {k: v for k, v in fields.items() if k in known}
    if not fields:
        yield
        return
    original = low.llama_model_default_params

    def patched() -> Any:
        params = original()
        for key, value in fields.items():
            setattr(params, key, value)
        return params

    # Llama.__init__ builds its params from this function and loads at once: no keyword or hook sets e.g. use_extra_bufts.
    low.llama_model_default_params = patched
    try:
        yield
    finally:
        low.llama_model_default_params = original


def load_model(model_params: Mapping[str, Any] | None = None, *, cpu_tensors: Sequence[str] = (), **llama_kwargs: Any) -> Any:
    """A `llama_cpp.Llama(**llama_kwargs)` with llama.cpp's log captured, and `model_params` fields set
    that Llama's keywords do not reach (e.g. {"use_extra_bufts": False}).

    `cpu_tensors`: regexes (searched in tensor names, as llama.cpp's --override-tensor) of weights kept in
    system memory whatever n_gpu_layers offloads, e.g. [EXPERT_TENSORS] for a mixture of experts.
    The load's log, which names each tensor so placed, is on the returned model as `hymem_load_log`.

    Raises LoadFailure (with what llama.cpp logged) when the load fails, ImportError without llama-cpp-python.
    """
    llama_cpp, low = _modules()
    fields = dict(model_params or {})
    overrides = None
    if cpu_tensors:
        overrides = _cpu_overrides(low, list(cpu_tensors))
        # Llama has no keyword for tensor_buft_overrides (its ctypes field is a bare void pointer it never sets).
        fields["tensor_buft_overrides"] = ctypes.cast(overrides, ctypes.c_void_p).value
    with _LOAD_LOCK:
        _LOG_LINES.clear()
        try:
            with _model_params_override(low, fields):
                llm = llama_cpp.Llama(**llama_kwargs)
        except _LOAD_ERRORS as exc:
            raise LoadFailure(exc, "".join(_LOG_LINES)) from exc
        log = "".join(_LOG_LINES)
    # The model keeps its params, pointer included, for its lifetime: the array must live as long.
    llm.hymem_tensor_overrides = overrides
    llm.hymem_load_log = log
    return llm


def load_vocab_only(path: str | Path) -> None:
    """Load only the model's vocabulary (no weights), then close it: proves llama.cpp knows its architecture.

    Raises LoadFailure when it cannot, ImportError without llama-cpp-python.
    """
    llm = load_model(model_path=str(path), vocab_only=True, verbose=False)
    with contextlib.suppress(Exception):  # closing a vocab-only model cannot change the answer
        llm.close()


def evaluated_tokens(llm: Any) -> list[int]:
    """The token ids whose KV entries llm holds now, in order."""
    # Llama keeps its prompt cache bookkeeping in input_ids[:n_tokens]; no public accessor returns a plain list.
    return llm.input_ids[: llm.n_tokens].tolist()


def cached_prefix(llm: Any, tokens: list[int]) -> int:
    """How many leading prompt tokens `Llama.generate` will take from the KV cache rather than evaluate.

    Mirrors `Llama.generate`: it keeps the longest common prefix of the tokens it evaluated last time
    and the new prompt, and re-evaluates at least the last prompt token unless the whole state is an
    exact, live match.
    """
    previous = evaluated_tokens(llm)
    common = 0
    for a, b in zip(previous, tokens, strict=False):
        if a != b:
            break
        common += 1
    if common == len(tokens):
        # _requires_eval says whether the logits are stale; generate reads it and nothing public exposes it.
        if llm.n_tokens == len(tokens) and not getattr(llm, "_requires_eval", True):
            return len(tokens)
        return max(0, common - 1)
    return common


def save_state(llm: Any) -> tuple[list[int], bytes]:
    """The tokens llm has evaluated and llama.cpp's state bytes for them (KV cache and logits), for a file."""
    _, low = _modules()
    # Llama.save_state() returns an in-memory object holding the n_ctx-sized arrays; a file wants only these bytes.
    ctx = llm._ctx.ctx
    size = low.llama_state_get_size(ctx)
    buffer = (ctypes.c_uint8 * int(size))()
    written = int(low.llama_state_get_data(ctx, buffer, size))
    return evaluated_tokens(llm), bytes(buffer)[:written]


def restore_state(llm: Any, token_ids: list[int], state: bytes) -> None:
    """Put back what save_state returned, in a Llama of the same model and context size.

    Raises ValueError when it does not fit; llm may then hold part of it, so callers reset() it.
    """
    _, low = _modules()
    if not token_ids or len(token_ids) > llm.n_ctx():
        raise ValueError("state does not fit this context")
    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    # Llama.load_state() wants a LlamaState with scores and n_ctx-sized input_ids; a file holds only the bytes and ids.
    if low.llama_state_set_data(llm._ctx.ctx, buffer, len(state)) != len(state):
        raise ValueError("llama.cpp did not take the whole state")
    # Tell Llama.generate which tokens the restored KV holds, so the next prompt reuses them.
    llm.input_ids[: len(token_ids)] = token_ids
    llm.n_tokens = len(token_ids)
