"""Writer backend that runs a local GGUF model in-process through llama-cpp-python.

llama_cpp is imported only when a LlamaBackend is constructed, so hymem works without it
for every command that does not write memories with a local model. Whatever this needs beyond
llama-cpp-python's public API goes through llama_binding.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hymem_cli._errors import WriterError
from hymem_cli.domain import EXPERT_PLACEMENTS
from hymem_cli.writer import llama_binding
from hymem_cli.writer.backend import WriterInfo, WriterReply
from hymem_cli.writer.gguf import inspect_gguf

DEFAULT_CHAT_TEMPLATE_KWARGS = {"reasoning_effort": "no_think"}
# Fixed prompt prefixes whose KV state is kept in memory, so calls that alternate between them (Hy-Memory's
# extraction and reconciliation) each start warm; one state is the KV cache of one prompt (MBs to hundreds of MB).
WARM_PREFIXES = 2
_HASH_SPAN = 1 << 20  # 1 MiB


def model_hash(path: str | os.PathLike) -> str:
    """Fingerprint of a model file: "b2:" + blake2b-128 hex of (size, first MiB, last MiB).

    The size is hashed as its decimal ASCII string, followed by the first 1 MiB and the last
    1 MiB of the file (overlapping for files under 2 MiB). Reading only the ends keeps this
    instant for multi-GB files while still telling quantizations and re-uploads apart.
    Changing anything in this recipe changes every hash recorded in existing banks.
    """
    size = os.path.getsize(path)
    h = hashlib.blake2b(digest_size=16)
    h.update(str(size).encode("ascii"))
    with open(path, "rb") as fh:
        h.update(fh.read(_HASH_SPAN))
        fh.seek(max(0, size - _HASH_SPAN))
        h.update(fh.read(_HASH_SPAN))
    return "b2:" + h.hexdigest()


# GPU memory left free beyond weights and KV cache: llama.cpp's compute buffers and the GPU library's workspace.
# An estimate until measured on a GPU (bench/gpu_placement.py reports the real peak).
GPU_HEADROOM = 1 << 30


@dataclass(frozen=True)
class ModelSizes:
    """What a GGUF puts where, in bytes: per repeating layer (all of it, and its routed experts), the output
    layer, the input embedding (llama.cpp keeps it on the CPU), and the KV cache of one layer at the context size."""

    layers: tuple[tuple[int, int], ...]
    output: int
    embedding: int
    kv_per_layer: int

    @property
    def experts(self) -> int:
        return sum(e for _, e in self.layers)

    @property
    def total(self) -> int:
        return sum(t for t, _ in self.layers) + self.output + self.embedding

    def on_gpu(self, layers: int, experts_on_cpu: bool) -> int:
        """Bytes on the GPU when llama.cpp offloads `layers` (its n_gpu_layers; > the layer count: the output too)."""
        count = len(self.layers) if layers < 0 else min(layers, len(self.layers))
        offloaded = self.layers[len(self.layers) - count:] if count else ()  # llama.cpp offloads the last layers
        weights = sum(t - (e if experts_on_cpu else 0) for t, e in offloaded)
        output = self.output if layers < 0 or layers > len(self.layers) else 0
        return weights + output + count * self.kv_per_layer


def _gguf_tensors(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, int]]:
    """A GGUF's metadata and its tensors' sizes in bytes, from the gaps between their data offsets (no type table)."""
    from hymem_cli.writer import gguf

    facts, meta = gguf.read_gguf_metadata(path)  # checks the file; the tensor table is read again below
    entries = []
    with open(path, "rb") as fh:
        reader = gguf._Reader(fh, facts["size_bytes"])
        reader.skip(4 + 4 + 8 + 8)  # magic, version, tensor and key counts
        for _ in range(facts["kv_count"]):
            reader.skip_string()
            reader.value(reader.unpack("<I"))
        for _ in range(facts["tensor_count"]):
            name = reader.string()
            reader.skip(8 * reader.unpack("<I") + 4)  # dimensions, ggml type
            entries.append((reader.unpack("<Q"), name))
    entries.sort()
    ends = [offset for offset, _ in entries[1:]] + [facts["size_bytes"] - facts["data_offset"]] * bool(entries)
    return meta, {name: end - offset for (offset, name), end in zip(entries, ends, strict=True)}


def model_sizes(path: str | os.PathLike, n_ctx: int) -> ModelSizes:
    """Where a GGUF's bytes would go, by its tensor table and header (F16 KV cache at `n_ctx`)."""
    meta, tensors = _gguf_tensors(path)
    arch = meta.get("general.architecture", "")

    def number(key: str, default: int = 0) -> int:
        value = meta.get(f"{arch}.{key}", default)
        return max(value) if isinstance(value, list) and value else value if isinstance(value, int) else default

    blocks = number("block_count")
    heads = number("attention.head_count", 1)
    kv_heads = number("attention.head_count_kv", heads)
    head_dim = number("embedding_length") // max(heads, 1)
    per_token = kv_heads * (number("attention.key_length", head_dim) + number("attention.value_length", head_dim))
    layers = [[0, 0] for _ in range(blocks)]
    output = embedding = 0
    experts = re.compile(llama_binding.EXPERT_TENSORS)
    for name, size in tensors.items():
        match = re.match(r"blk\.(\d+)\.", name)
        if match and int(match.group(1)) < blocks:
            layer = layers[int(match.group(1))]
            layer[0] += size
            layer[1] += size if experts.search(name) else 0
        elif name.startswith("token_embd."):
            embedding += size
        else:
            output += size  # the output layer and norm, and layers past block_count (MTP) that load with it
    return ModelSizes(tuple((t, e) for t, e in layers), output, embedding, 2 * per_token * int(n_ctx))


@dataclass(frozen=True)
class Placement:
    """Where a model's weights go: how many layers llama.cpp offloads, and whether a mixture of experts' routed
    experts stay in system memory (the rest of each offloaded layer, its KV cache included, on the GPU)."""

    gpu_layers: int  # n_gpu_layers as llama.cpp takes it: -1 all (output layer too), 0 none
    experts: str  # "gpu", "cpu", or "" for a model without routed experts
    device: str | None  # the GPU(s), e.g. "CUDA0 (NVIDIA H200)"; None on the CPU
    free_bytes: int | None  # the GPU's free memory before the load
    gpu_bytes: int  # estimated weights and KV cache on the GPU
    model_bytes: int
    expert_bytes: int
    layer_count: int
    why: str

    @property
    def cpu_tensors(self) -> tuple[str, ...]:
        """Tensor patterns to keep in system memory although their layer is offloaded."""
        return (llama_binding.EXPERT_TENSORS,) if self.experts == "cpu" and self.gpu_layers != 0 else ()

    def describe(self) -> str:
        if self.gpu_layers == 0:
            return f"CPU only ({self.why})"
        layers = self.layer_count if self.gpu_layers < 0 or self.gpu_layers > self.layer_count else self.gpu_layers
        free = f", {_gb(self.free_bytes)} free" if self.free_bytes is not None else ""
        text = f"{layers} of {self.layer_count} layers on {self.device}: about {_gb(self.gpu_bytes)} of GPU memory{free}"
        if self.experts == "cpu":
            text += f"; routed experts ({_gb(self.expert_bytes)}) in system memory"
        return f"{text} ({self.why})"

    def record(self) -> dict[str, Any]:
        """What the revision's writer record says was used."""
        return {"gpu_layers": self.gpu_layers, "experts": self.experts, "device": self.device, "gpu_free_bytes": self.free_bytes,
                "gpu_estimate_bytes": self.gpu_bytes, "cpu_tensors": list(self.cpu_tensors), "why": self.why}


def _gb(n: int | None) -> str:
    return "?" if n is None else f"{n / 1e9:.2f} GB"


def gpu_layers_value(value: int | str) -> int | str:
    """writer.gpu_layers as the planner takes it: "auto", "all", or a count >= 0; ValueError otherwise."""
    text = str(value).strip().lower()
    if text in ("auto", "all"):
        return text
    if text.isdigit():
        return int(text)
    raise ValueError(f"writer.gpu_layers must be auto, all or a number of layers >= 0, not {value!r}")


def plan_placement(sizes: ModelSizes, *, offload: bool, device: str | None, free_bytes: int | None,
                   gpu_layers: int | str = "auto", experts: str = "auto") -> Placement:
    """Where to put a model: `gpu_layers` auto (all that fit in `free_bytes`), all, or a count; `experts` gpu, cpu,
    or auto (cpu when the whole model does not fit). `offload`: the build can use a GPU; `device`: the one found."""
    layers_wanted = gpu_layers_value(gpu_layers)
    if experts not in EXPERT_PLACEMENTS:
        raise ValueError(f"writer.experts must be auto, gpu or cpu, not {experts!r}")
    moe = sizes.experts > 0
    count = len(sizes.layers)

    def placed(layers: int, on_cpu: bool, why: str) -> Placement:
        gpu = sizes.on_gpu(layers, on_cpu) if layers else 0
        return Placement(layers, ("cpu" if on_cpu else "gpu") if moe else "", device if layers else None, free_bytes,
                         gpu, sizes.total, sizes.experts, count, why)

    if not offload:
        return placed(0, moe, "this llama.cpp build has no GPU offload")
    if device is None:
        return placed(0, moe, "no GPU device")
    if layers_wanted == 0:
        return placed(0, moe, "writer.gpu_layers is 0")
    room = None if free_bytes is None else free_bytes - GPU_HEADROOM
    whole = sizes.on_gpu(-1, False)
    if experts == "auto":
        on_cpu = moe and room is not None and whole > room
        reason = (f"the whole model needs about {_gb(whole)} on the GPU, more than it has free" if on_cpu
                  else "the whole model fits" if room is not None else "the GPU's free memory is unknown")
    else:
        on_cpu = moe and experts == "cpu"
        reason = f"writer.experts is {experts}"
    if layers_wanted == "all" or room is None:
        return placed(-1, on_cpu, reason if layers_wanted == "auto" else f"writer.gpu_layers is all; {reason}")
    if isinstance(layers_wanted, int):
        return placed(layers_wanted, on_cpu, f"writer.gpu_layers is {layers_wanted}; {reason}")
    if sizes.on_gpu(-1, on_cpu) <= room:
        return placed(-1, on_cpu, reason)
    fit = max((n for n in range(count + 1) if sizes.on_gpu(n, on_cpu) <= room), default=0)
    if fit == 0:
        return placed(0, moe, f"not one layer fits in the GPU's {_gb(free_bytes)} free")
    return placed(fit, on_cpu, f"{reason}; only {fit} layers fit")


def placement_for(path: str | os.PathLike, n_ctx: int, gpu_layers: int | str = "auto", experts: str = "auto") -> Placement:
    """The placement a GGUF would get here, from this llama.cpp build's devices and their free memory now.

    Raises ImportError without llama-cpp-python."""
    offload = llama_binding.supports_gpu_offload()
    gpus = [d for d in llama_binding.devices() if d.is_gpu] if offload else []
    device = " + ".join(f"{d.name} ({d.description})" for d in gpus) or None
    free = sum(d.free for d in gpus) if gpus else None
    return plan_placement(model_sizes(path, n_ctx), offload=offload, device=device, free_bytes=free,
                          gpu_layers=gpu_layers, experts=experts)


def _prefix_key(messages: list[dict]) -> str:
    """What a call's fixed prefix is: its system message, or with an empty one the start of the first user message."""
    first = messages[0].get("content", "") if messages else ""
    if not first and len(messages) > 1:
        first = "\0" + str(messages[1].get("content", ""))[:2000]
    return hashlib.blake2b(str(first).encode("utf-8"), digest_size=12).hexdigest()


def _raise_exception(message: str) -> None:
    from jinja2.exceptions import TemplateError

    raise TemplateError(message)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: Any = None,
    sort_keys: bool = False,
) -> str:
    # Chat templates expect plain json.dumps, not jinja's HTML-escaping `tojson`.
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _compile_template(source: str) -> Any:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.filters["tojson"] = _tojson
    return env.from_string(source)


def _chatml(messages: list[dict]) -> str:
    parts = [
        f"<|im_start|>{m.get('role', 'user')}\n{m.get('content') or ''}<|im_end|>\n"
        for m in messages
    ]
    parts.append("<|im_start|>assistant\n")
    return "".join(parts)


class LlamaBackend:
    """A GGUF model run by llama.cpp, with JSON output constrained by a grammar.

    - The chat template stored in the GGUF (`tokenizer.chat_template`) is rendered here with
      a sandboxed jinja2 environment, with `chat_template_kwargs` (default
      {"reasoning_effort": "no_think"}); GGUFs without one get plain ChatML.
    - Consecutive calls that share a prompt prefix (the fixed instructions) reuse the KV
      cache for it; `WriterReply.evaluated_tokens` says how many prompt tokens were new.
    - Placement (`placement_for`): with a GPU, `gpu_layers` auto offloads all layers that fit in
      its free memory, and `experts` auto keeps a mixture of experts' routed experts in system
      memory when the whole model does not fit (llama.cpp's tensor buffer overrides, as its
      --cpu-moe). Whenever weights stay on the CPU, the model is loaded with
      `use_extra_bufts = False`: llama.cpp's weight-repacking ("extra") buffer types kill the
      process in `llama_decode` on some CPUs (seen: SIGILL on a Xeon with AMX), and the plain
      CPU buffers ran at equal speed.
    """

    def __init__(
        self,
        model_path: str,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        gpu_layers: int | str = "auto",
        experts: str = "auto",
        n_gpu_layers: int | None = None,
        seed: int = 0,
        max_tokens: int = 1024,
        chat_template_kwargs: dict | None = None,
        state_dir: str | os.PathLike | None = None,
    ):
        self.model_path = os.fspath(model_path)
        # Where the KV state after the fixed instructions is kept between processes (None: not kept).
        self.state_dir = None if state_dir is None else os.fspath(state_dir)
        self._states_seen: set[str] = set()
        self._warm: dict[str, tuple] = {}  # fixed prompt prefix -> KV state after it, kept in memory
        self._last_prefix: str | None = None
        self.max_tokens = int(max_tokens)
        self.seed = int(seed)
        self.chat_template_kwargs = (
            dict(DEFAULT_CHAT_TEMPLATE_KWARGS)
            if chat_template_kwargs is None
            else dict(chat_template_kwargs)
        )
        if n_ctx <= self.max_tokens:
            raise WriterError(
                f"context size {n_ctx} leaves no room for the prompt (max_tokens is {self.max_tokens})",
                hint="raise writer.n_ctx (hymem config set writer.n_ctx 16384)",
            )
        self._lock = threading.Lock()
        self._grammars: dict[str, Any] = {}
        self._llm: Any = None

        # Validate the file ourselves first: llama.cpp's own errors go to its log only.
        self._gguf = inspect_gguf(self.model_path)
        self._hash = model_hash(self.model_path)
        name = os.path.basename(self.model_path)

        try:
            self._llama_cpp_version = llama_binding.version()
        except ImportError:
            raise WriterError(
                "llama-cpp-python is not installed, so local GGUF models cannot be run",
                hint="pip install llama-cpp-python, or point hymem at an OpenAI-compatible server",
            ) from None

        if n_gpu_layers is not None:  # the older keyword: -1 all
            gpu_layers = "all" if n_gpu_layers < 0 else int(n_gpu_layers)
        try:
            gpu_layers = gpu_layers_value(gpu_layers)
            if experts not in EXPERT_PLACEMENTS:
                raise ValueError(f"writer.experts must be auto, gpu or cpu, not {experts!r}")
        except ValueError as exc:
            raise WriterError(str(exc), hint="hymem config set writer.gpu_layers auto; writer.experts takes auto, gpu or cpu") from None
        self._placement = placement_for(self.model_path, n_ctx, gpu_layers, experts)
        layers = self._placement.gpu_layers
        blocks = self._gguf.get("block_count")
        # Some weights (layers, the output layer, or experts) stay on the CPU: turn weight repacking off there.
        cpu_layers = layers == 0 or (layers > 0 and (blocks is None or layers <= blocks)) or bool(self._placement.cpu_tensors)
        overrides = {"use_extra_bufts": False} if cpu_layers else {}

        kwargs: dict[str, Any] = {
            "model_path": self.model_path,
            "n_ctx": int(n_ctx),
            "n_gpu_layers": layers,
            "seed": self.seed,
            "verbose": False,
        }
        if n_threads:
            kwargs["n_threads"] = int(n_threads)
            kwargs["n_threads_batch"] = int(n_threads)

        try:
            self._llm = llama_binding.load_model(overrides, cpu_tensors=self._placement.cpu_tensors, **kwargs)
        except llama_binding.LoadFailure as failure:
            raise self._load_error(name, failure) from None
        self._n_gpu_layers = layers
        self._use_extra_bufts = bool(getattr(self._llm.model_params, "use_extra_bufts", True))

        # Special tokens, as text, for the template.
        llm = self._llm
        self._bos_id = llm.token_bos()
        self._eos_id = llm.token_eos()
        self._bos_text = self._token_text(self._bos_id)
        self._eos_text = self._token_text(self._eos_id)

        source = (llm.metadata or {}).get("tokenizer.chat_template")
        self._template = None
        self._template_source = "chatml-fallback"
        if isinstance(source, str) and source.strip():
            try:
                self._template = _compile_template(source)
                self._template_source = "gguf"
            except Exception:  # a template jinja2 cannot parse: ChatML still works for most
                self._template = None

    # -- protocol ---------------------------------------------------------------------------

    def info(self) -> WriterInfo:
        extra: dict[str, Any] = {
            "n_ctx": self._llm.n_ctx() if self._llm is not None else None,
            "n_gpu_layers": self._n_gpu_layers,
            "placement": self._placement.record(),
            "template": self._template_source,
            "chat_template_kwargs": dict(self.chat_template_kwargs),
            "architecture": self._gguf.get("architecture"),
            "gguf_name": self._gguf.get("name"),
            "quantization": self._gguf.get("quantization"),
            "llama_cpp": self._llama_cpp_version,
        }
        return WriterInfo(
            backend="llama",
            model=os.path.basename(self.model_path),
            model_hash=self._hash,
            extra=extra,
        )

    def complete(self, messages: list[dict], schema: dict, fence: bool = False) -> WriterReply:
        if self._llm is None:
            raise WriterError("the local model was closed", hint="create a new writer backend")
        with self._lock:
            start = time.perf_counter()
            tokens = self.tokenize_prompt(self.render(messages))
            n_prompt = len(tokens)
            room = self._llm.n_ctx() - self.max_tokens
            if n_prompt > room:
                raise WriterError(
                    f"chunk too long for the context: the prompt is {n_prompt} tokens but "
                    f"n_ctx {self._llm.n_ctx()} - max_tokens {self.max_tokens} leaves {room}",
                    hint="lower --chunk-tokens, or raise writer.n_ctx",
                )
            key = self._state_key(messages)
            prefix = _prefix_key(messages)
            if prefix != self._last_prefix and prefix in self._warm:
                # Another fixed prefix was evaluated last (extraction and reconciliation alternate): bring this one back.
                try:
                    llama_binding.restore_state(self._llm, *self._warm[prefix])
                except ValueError:
                    self._llm.reset()
            elif key is not None and key not in self._states_seen:
                self._restore_state(key)
            reused = llama_binding.cached_prefix(self._llm, tokens)
            grammar = self._grammar(schema, fence)
            try:
                out = self._llm.create_completion(
                    tokens,
                    max_tokens=self.max_tokens,
                    temperature=0.0,
                    seed=self.seed,
                    grammar=grammar,
                    stream=False,
                )
            except (ValueError, RuntimeError) as exc:
                raise WriterError(
                    f"llama.cpp failed while generating: {exc}",
                    hint="try a smaller chunk size or n_ctx; report the error if it persists",
                ) from None
            choice = out["choices"][0]
            usage = out.get("usage") or {}
            if key is not None and key not in self._states_seen:
                self._states_seen.add(key)
                self._save_state(key)
            if prefix not in self._warm and len(self._warm) < WARM_PREFIXES:
                self._warm[prefix] = llama_binding.save_state(self._llm)
            self._last_prefix = prefix
            return WriterReply(
                text=choice.get("text") or "",
                prompt_tokens=n_prompt,
                evaluated_tokens=n_prompt - reused,
                completion_tokens=int(usage.get("completion_tokens") or 0),
                seconds=time.perf_counter() - start,
            )

    def close(self) -> None:
        llm, self._llm = self._llm, None
        if llm is not None:
            with contextlib.suppress(Exception):
                llm.close()

    def __enter__(self) -> LlamaBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers (public for tests and diagnostics) -----------------------------------------

    def render(self, messages: list[dict]) -> str:
        """The prompt text for `messages`, ending with the assistant turn's opening."""
        if self._template is None:
            return _chatml(messages)
        context = dict(self.chat_template_kwargs)
        context.update(
            messages=messages,
            add_generation_prompt=True,
            bos_token=self._bos_text,
            eos_token=self._eos_text,
        )
        try:
            return self._template.render(**context)
        except Exception as exc:
            raise WriterError(
                f"the model's chat template failed to render: {exc}",
                hint="the GGUF's tokenizer.chat_template may not support these messages",
            ) from None

    def tokenize_prompt(self, text: str) -> list[int]:
        """Tokens for a rendered prompt: special tokens parsed, exactly one BOS at most."""
        starts_with_bos = bool(self._bos_text) and text.startswith(self._bos_text)
        tokens = self._llm.tokenize(text.encode("utf-8"), add_bos=not starts_with_bos, special=True)
        if self._bos_id >= 0 and tokens[:2] == [self._bos_id, self._bos_id]:
            tokens = tokens[1:]
        return tokens

    # -- internals --------------------------------------------------------------------------

    # -- the fixed instructions' KV state, kept across processes ---------------------------------

    def _state_key(self, messages: list[dict]) -> str | None:
        """Model, context size, llama.cpp version and the system message: what the saved KV depends on."""
        if self.state_dir is None or not messages or messages[0].get("role") != "system":
            return None
        parts = [self._hash, str(self._llm.n_ctx()), self._llama_cpp_version, messages[0].get("content", "")]
        return hashlib.blake2b("\0".join(parts).encode(), digest_size=12).hexdigest()

    def _state_path(self, key: str) -> str:
        return os.path.join(self.state_dir, f"{key}.kv")

    def _restore_state(self, key: str) -> None:
        """Load the KV state an earlier process saved after these instructions, if any.

        File: 4-byte little-endian header length, a JSON header with the evaluated token ids,
        then llama.cpp's own state bytes. A stale or foreign file is ignored and removed.
        """
        path = self._state_path(key)
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return
        self._states_seen.add(key)  # found: nothing to save for this key in this process
        try:
            size = int.from_bytes(data[:4], "little")
            ids = json.loads(data[4:4 + size])["input_ids"]
            llama_binding.restore_state(self._llm, ids, data[4 + size:])
        except Exception:
            with contextlib.suppress(OSError):
                os.remove(path)
            self._llm.reset()

    def _save_state(self, key: str) -> None:
        """Keep the KV state after this call (its prefix is the fixed instructions) for later processes."""
        tmp = None
        try:
            ids, state = llama_binding.save_state(self._llm)
            header = json.dumps({"input_ids": ids}).encode()
            os.makedirs(self.state_dir, mode=0o700, exist_ok=True)
            tmp = self._state_path(key) + f".{os.getpid()}.tmp"
            # Private: the state also holds the first chunk's tokens, not only the instructions.
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
                fh.write(len(header).to_bytes(4, "little") + header + state)
            os.replace(tmp, self._state_path(key))  # atomic: readers see a whole file or none
        except Exception:  # the cache only saves time; failing to write it changes nothing else
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.remove(tmp)

    def _token_text(self, token_id: int) -> str:
        if token_id is None or token_id < 0:
            return ""
        try:
            return self._llm.detokenize([token_id], special=True).decode("utf-8", errors="replace")
        except Exception:
            return ""

    def _grammar(self, schema: dict, fence: bool = False) -> Any:
        """A GBNF grammar for `schema`; with `fence`, the JSON sits in a ```json block, as the Hy-Memory harness asks."""
        key = json.dumps([schema, fence], sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is None:
            from llama_cpp import LlamaGrammar
            from llama_cpp.llama_grammar import json_schema_to_gbnf

            try:
                # Strings may not hold raw control characters (JSON forbids them; the binding's converter allows them).
                body = json_schema_to_gbnf(json.dumps(schema)).replace('char ::= [^"\\\\] |', 'char ::= [^"\\\\\\x7F\\x00-\\x1F] |', 1)
                if fence:
                    body = 'root ::= "```json\\n" fenced-json "\\n```"\n' + body.replace("root ::=", "fenced-json ::=", 1)
                grammar = LlamaGrammar.from_string(body, verbose=False)
            except Exception as exc:
                raise WriterError(
                    f"cannot turn the operation schema into a llama.cpp grammar: {exc}"
                ) from None
            self._grammars[key] = grammar
        return grammar

    def _load_error(self, name: str, failure: llama_binding.LoadFailure) -> WriterError:
        arch = self._gguf.get("architecture")
        exc = failure.cause
        if "unknown model architecture" in failure.log or "unknown architecture" in failure.log:
            return WriterError(
                f"llama.cpp (llama-cpp-python {self._llama_cpp_version}) cannot load "
                f"{name}: unknown model architecture {arch!r}",
                hint="upgrade llama-cpp-python (pip install -U llama-cpp-python) or serve the "
                "model with vLLM and use the openai backend",
            )
        detail = failure.error_line() or str(exc) or type(exc).__name__
        if "context" in str(exc).lower():
            return WriterError(
                f"llama.cpp loaded {name} but could not create a context: {detail}",
                hint="lower writer.n_ctx (the KV cache may not fit in memory)",
            )
        return WriterError(
            f"llama.cpp failed to load {name}: {detail}",
            hint="the file may be corrupt or incomplete: download it again, or upgrade "
            "llama-cpp-python if the model is newer than this llama.cpp",
        )
