"""The llama-cpp-python internals that writer/llama_binding relies on are still there, and work.

Each failure names the attribute and the installed version: a new llama-cpp-python that moves
something fails here, in one place, instead of as a crash or a silently cold KV cache elsewhere.
"""

from __future__ import annotations

import inspect
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from test_backends import build_gguf

from hymem_cli.writer import llama_binding

ROOT = Path(__file__).resolve().parents[1]



def _broken(llama_cpp, what: str, why: str) -> str:
    return (
        f"llama-cpp-python {llama_cpp.__version__}: {what}; writer/llama_binding.py relies on it for {why} "
        f"(written against {llama_binding.TESTED}): adapt the adapter, or keep llama-cpp-python in that range"
    )


# -- the version range ------------------------------------------------------------------------


def test_the_installed_version_is_in_the_tested_range(llama_cpp):
    assert llama_cpp.__version__ in SpecifierSet(llama_binding.TESTED), (
        f"llama-cpp-python {llama_cpp.__version__} is outside {llama_binding.TESTED}, the range writer/llama_binding.py "
        "was written against; if every other test here passes, widen TESTED and the bound in pyproject.toml together"
    )


def test_the_tested_range_is_the_one_pyproject_declares():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (declared,) = [Requirement(d) for d in deps if Requirement(d).name == "llama-cpp-python"]
    assert declared.specifier == SpecifierSet(llama_binding.TESTED), (
        f"pyproject.toml asks for llama-cpp-python{declared.specifier} but llama_binding.TESTED is {llama_binding.TESTED}"
    )


# -- what the adapter touches, checked on the installed package (no model needed) --------------


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("llama_model_default_params", "setting use_extra_bufts for one load"),
        ("llama_state_get_size", "saving the KV state"),
        ("llama_state_get_data", "saving the KV state"),
        ("llama_state_set_data", "restoring the KV state"),
        ("llama_log_set", "capturing llama.cpp's log"),
        ("llama_log_callback", "capturing llama.cpp's log"),
        ("llama_supports_gpu_offload", "choosing GPU or CPU layers"),
    ],
)
def test_the_ctypes_layer_has(llama_cpp, name, why):
    assert hasattr(llama_cpp.llama_cpp, name), _broken(llama_cpp, f"llama_cpp.llama_cpp.{name} is gone", why)


def test_model_params_still_have_use_extra_bufts(llama_cpp):
    fields = [name for name, _ in llama_cpp.llama_cpp.llama_model_params._fields_]
    assert "use_extra_bufts" in fields, _broken(
        llama_cpp, "llama_model_params._fields_ has no use_extra_bufts", "turning weight repacking off on CPU layers"
    )


def test_llama_init_still_builds_its_params_from_the_patchable_function(llama_cpp):
    source = inspect.getsource(llama_cpp.Llama.__init__)
    assert "llama_cpp.llama_model_default_params()" in source, _broken(
        llama_cpp, "Llama.__init__ no longer calls llama_cpp.llama_model_default_params()", "the use_extra_bufts override"
    )
    # The call goes through the module attribute the adapter patches, not a name bound at import.
    assert llama_cpp.llama.llama_cpp is llama_cpp.llama_cpp, _broken(
        llama_cpp, "llama_cpp.llama no longer reaches the ctypes layer as `llama_cpp`", "the use_extra_bufts override"
    )


@pytest.mark.parametrize(
    ("assignment", "why"),
    [
        ("self._ctx =", "the llama_context pointer the state calls take"),
        ("self.input_ids", "which tokens the KV cache holds"),
        ("self.n_tokens =", "which tokens the KV cache holds"),
        ("self._requires_eval =", "knowing whether a fully cached prompt is evaluated again"),
    ],
)
def test_llama_still_sets(llama_cpp, assignment, why):
    source = inspect.getsource(llama_cpp.Llama.__init__)
    assert assignment in source, _broken(llama_cpp, f"Llama.__init__ no longer does `{assignment}`", why)


def test_the_context_wrapper_still_holds_the_raw_pointer(llama_cpp):
    source = inspect.getsource(llama_cpp._internals.LlamaContext.__init__)
    assert "self.ctx = " in source, _broken(llama_cpp, "LlamaContext no longer keeps `.ctx`", "the KV state calls")


def test_generate_still_reuses_the_prefix_the_adapter_mirrors(llama_cpp):
    source = inspect.getsource(llama_cpp.Llama.generate)
    for name in ("_requires_eval", "n_tokens", "kv_cache_seq_rm"):
        assert name in source, _broken(
            llama_cpp, f"Llama.generate no longer uses {name}", "cached_prefix, which mirrors generate's prompt-cache reuse"
        )


# -- the adapter's own logic -------------------------------------------------------------------


def test_a_load_failure_names_the_telling_log_line():
    log = "llama_model_loader: loaded meta data\nllama_model_load: error loading model: unknown model architecture: 'x'\nmore\n"
    failure = llama_binding.LoadFailure(ValueError("Failed to load model from file"), log)
    assert failure.error_line() == "llama_model_load: error loading model: unknown model architecture: 'x'"
    assert llama_binding.LoadFailure(ValueError("x"), "").error_line() is None


def test_an_unknown_architecture_fails_with_llama_cpps_reason(llama_cpp, tmp_path):
    alien = tmp_path / "alien.gguf"
    alien.write_bytes(build_gguf([("general.architecture", 8, "hymem-alien-arch"), ("general.name", 8, "alien")]))
    with pytest.raises(llama_binding.LoadFailure) as info:
        llama_binding.load_vocab_only(alien)
    assert "unknown model architecture" in (info.value.error_line() or ""), _broken(
        llama_cpp, f"the captured log says no 'unknown model architecture' (log: {info.value.log[-300:]!r})", "load errors"
    )


# -- the real thing, on the packaged GGUF -----------------------------------------------------


def _load(packaged_gguf, **params):
    return llama_binding.load_model(params, model_path=packaged_gguf, n_ctx=512, n_threads=1, n_threads_batch=1, verbose=False)


@pytest.mark.llama
def test_a_loaded_model_has_what_the_adapter_reads(llama_cpp, packaged_gguf):
    llm = _load(packaged_gguf)
    try:
        for name in ("_ctx", "input_ids", "n_tokens", "_requires_eval"):
            assert hasattr(llm, name), _broken(llama_cpp, f"a loaded Llama has no .{name}", "the KV cache bookkeeping")
        assert getattr(llm._ctx, "ctx", None), _broken(llama_cpp, "Llama._ctx.ctx is missing or NULL", "the KV state calls")
    finally:
        llm.close()


@pytest.mark.llama
def test_the_params_override_reaches_the_load_and_is_undone(llama_cpp, packaged_gguf):
    llm = _load(packaged_gguf, use_extra_bufts=False)
    try:
        assert llm.model_params.use_extra_bufts is False, _broken(
            llama_cpp, "use_extra_bufts=False did not reach the loaded model's params", "turning weight repacking off"
        )
    finally:
        llm.close()
    assert llama_cpp.llama_cpp.llama_model_default_params().use_extra_bufts is True  # the patch is gone again


@pytest.mark.llama
def test_the_kv_state_survives_a_save_and_restore(llama_cpp, packaged_gguf):
    first = _load(packaged_gguf)
    second = _load(packaged_gguf)
    try:
        prompt = first.tokenize(b"Remember: the build uses ruff and pytest.", add_bos=True, special=True)
        first.eval(prompt)
        ids, state = llama_binding.save_state(first)
        assert ids == list(prompt) and state, _broken(llama_cpp, "save_state returned no tokens or no bytes", "the KV state")

        llama_binding.restore_state(second, ids, state)
        assert llama_binding.evaluated_tokens(second) == ids, _broken(
            llama_cpp, "restored tokens do not read back", "the KV state"
        )
        longer = ids + second.tokenize(b" Also mypy.", add_bos=False)
        assert llama_binding.cached_prefix(second, longer) == len(ids)

        # The restored cache answers as the one that evaluated the prompt itself.
        evaluated: list[int] = []
        real_eval = second.eval

        def counting_eval(tokens):
            evaluated.append(len(tokens))
            return real_eval(tokens)

        second.eval = counting_eval
        try:
            restored = second.create_completion(longer, max_tokens=8, temperature=0.0)["choices"][0]["text"]
        finally:
            del second.eval
        original = first.create_completion(longer, max_tokens=8, temperature=0.0)["choices"][0]["text"]
        assert restored == original
        assert evaluated[0] == len(longer) - len(ids), _broken(
            llama_cpp, f"generate evaluated {evaluated[0]} prompt tokens after a restore, not only the new ones", "the KV state"
        )

        with pytest.raises(ValueError):
            llama_binding.restore_state(second, ids, b"not a state")
    finally:
        first.close()
        second.close()
