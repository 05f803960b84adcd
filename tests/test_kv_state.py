"""The writer's fixed instructions are evaluated once per model and prompt, not once per process."""

from __future__ import annotations

import pytest

from hymem_cli.writer.prompt import single_pass
from hymem_cli.writer.schema import OPERATIONS_SCHEMA

pytestmark = pytest.mark.llama


def _backend(model, state_dir):
    from hymem_cli.writer.llama_backend import LlamaBackend

    return LlamaBackend(model, n_ctx=2048, n_threads=1, max_tokens=48, state_dir=state_dir)


def test_saved_prefix_is_reused_by_the_next_process(packaged_gguf, tmp_path):
    first_chunk = single_pass([], "Alex: I live in Seattle.")
    second_chunk = single_pass([(1, "Alex lives in Seattle.", None)], "Alex: I moved to Sydney last month.")

    cold = _backend(packaged_gguf, None)
    expected = cold.complete(second_chunk, OPERATIONS_SCHEMA)
    cold.close()
    assert expected.evaluated_tokens == expected.prompt_tokens  # nothing to reuse without a saved state

    writer = _backend(packaged_gguf, tmp_path)
    writer.complete(first_chunk, OPERATIONS_SCHEMA)  # evaluates the instructions and saves the state
    writer.close()
    assert len(list(tmp_path.glob("*.kv"))) == 1

    warm = _backend(packaged_gguf, tmp_path)  # a later process, same model and instructions
    reply = warm.complete(second_chunk, OPERATIONS_SCHEMA)
    warm.close()
    assert reply.prompt_tokens == expected.prompt_tokens
    assert reply.evaluated_tokens < reply.prompt_tokens / 2  # the instructions came from disk
    assert reply.text == expected.text  # and the answer is exactly what a cold run gives


def test_a_corrupt_state_file_is_ignored_and_removed(packaged_gguf, tmp_path):
    writer = _backend(packaged_gguf, tmp_path)
    writer.complete(single_pass([], "Alex: hi"), OPERATIONS_SCHEMA)
    writer.close()
    (state,) = tmp_path.glob("*.kv")
    state.write_bytes(b"\x05\x00\x00\x00garbage")
    again = _backend(packaged_gguf, tmp_path)
    reply = again.complete(single_pass([], "Alex: hello"), OPERATIONS_SCHEMA)
    again.close()
    assert reply.evaluated_tokens == reply.prompt_tokens
    assert reply.text  # still answers


def test_alternating_fixed_prefixes_both_stay_warm(packaged_gguf):
    """Hy-Memory's extraction and reconciliation alternate in one context: each call starts from its own prefix's state."""
    extract = lambda chunk: [{"role": "system", "content": "Extract durable facts. " * 60}, {"role": "user", "content": chunk}]  # noqa: E731
    reconcile = lambda chunk: [{"role": "system", "content": ""}, {"role": "user", "content": "Reconcile memories. " * 120 + chunk}]  # noqa: E731
    writer = _backend(packaged_gguf, None)
    try:
        first = [writer.complete(extract("Alex: I live in Seattle."), OPERATIONS_SCHEMA),
                 writer.complete(reconcile("Alex lives in Seattle."), OPERATIONS_SCHEMA)]
        later = [writer.complete(extract("Alex: I moved to Sydney."), OPERATIONS_SCHEMA),
                 writer.complete(reconcile("Alex lives in Sydney."), OPERATIONS_SCHEMA)]
    finally:
        writer.close()
    assert all(r.evaluated_tokens == r.prompt_tokens or r.evaluated_tokens > r.prompt_tokens / 2 for r in first)
    for reply in later:  # only the new part of each prompt is evaluated, though the other prompt ran in between
        assert reply.evaluated_tokens < reply.prompt_tokens / 4, (reply.evaluated_tokens, reply.prompt_tokens)
