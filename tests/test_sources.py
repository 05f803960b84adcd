"""Opening inputs: files are read whole and checked first; a pipe is read from its descriptor as it comes,
each burst flushed when the input goes quiet; a regular file given as stdin is read whole."""

from __future__ import annotations

import io
import os
import threading
import time

import pytest

from hymem_cli._errors import InputError
from hymem_cli.domain import Message
from hymem_cli.ingest.sources import _descriptor_lines, idle_flush, open_sources, read_lines
from hymem_cli.screen import Screen


def feed(fd: int, parts: list[bytes], pause: float = 0.05) -> threading.Thread:
    def write() -> None:
        for part in parts:
            os.write(fd, part)
            time.sleep(pause)
        os.close(fd)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_descriptor_lines_join_reads_into_lines():
    r, w = os.pipe()
    feed(w, [b"first\nsec", b"ond\nthird\nfour", b"th"])
    try:
        assert list(_descriptor_lines(r)) == [b"first\n", b"second\n", b"third\n", b"fourth"]
    finally:
        os.close(r)


def test_descriptor_lines_of_an_input_ending_in_a_newline():
    r, w = os.pipe()
    feed(w, [b"a\n\nb\n"])
    try:
        assert list(_descriptor_lines(r)) == [b"a\n", b"\n", b"b\n"]
    finally:
        os.close(r)


def test_idle_flush_marks_each_quiet_spell_once():
    def slow():
        yield Message("a", None, "one")
        time.sleep(0.5)  # several idle periods: one flush
        yield Message("b", None, "two")
        yield Message("c", None, "three")

    assert [m.id if m else None for m in idle_flush(slow(), idle_seconds=0.1)] == ["a", None, "b", "c"]


def test_idle_flush_hands_a_failure_to_the_reader():
    def broken():
        yield Message("a", None, "one")
        raise InputError("<stdin> line 2: not UTF-8")

    flushed = idle_flush(broken(), idle_seconds=5)
    assert next(flushed).id == "a"
    with pytest.raises(InputError, match="line 2"):
        next(flushed)


def test_a_pipe_on_stdin_streams(tmp_path):
    r, w = os.pipe()
    feed(w, [b"Alex: I live in Seattle.\n", b"Sam: Nice.\n"])
    with os.fdopen(r, "rb") as stdin:
        (source,) = open_sources(["-"], fmt="speaker", stdin=stdin, screen=Screen())
        assert source.name == "<stdin>" and not isinstance(source.messages, list)
        got = [m for m in source.messages if m is not None]
    assert [(m.speaker, m.text, m.line) for m in got] == [("Alex", "I live in Seattle.", 1), ("Sam", "Nice.", 2)]


def test_a_pipe_that_goes_quiet_has_its_open_chunk_flushed(monkeypatch):
    from hymem_cli.ingest import sources

    monkeypatch.setattr(sources, "IDLE_SECONDS", 0.05)
    r, w = os.pipe()
    feed(w, [b"Alex: I live in Seattle.\n", b"Sam: Nice.\n"], pause=0.5)
    with os.fdopen(r, "rb") as stdin:
        (source,) = open_sources(["-"], fmt="speaker", stdin=stdin, screen=Screen())
        got = [m.text if m else None for m in source.messages]
    first = got.index("I live in Seattle.")
    assert got[first + 1:first + 3] == [None, "Nice."]  # the quiet spell between the lines closed the first chunk


def test_a_regular_file_on_stdin_is_read_whole(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("Alex: my password is hunter22x\n")
    with path.open("rb") as stdin:
        (source,) = open_sources(["-"], fmt="speaker", stdin=stdin)
    assert isinstance(source.messages, list)
    assert [m.text for m in source.messages] == ["my password is [REDACTED:password]"]


def test_secrets_are_kept_when_the_screen_is_off(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("Alex: my password is hunter22x\n")
    (source,) = open_sources([str(path)], fmt="speaker", screen=Screen(secrets=False))
    assert [m.text for m in source.messages] == ["my password is hunter22x"]


def test_paths_are_checked_before_anything_is_read(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("Alex: hi\n")
    with pytest.raises(InputError) as missing:
        open_sources([str(good), str(tmp_path / "nope.txt")])
    assert (missing.value.message,
            missing.value.hint) == (f"{tmp_path / 'nope.txt'}: no such file", "check the path, or use - to read stdin")
    with pytest.raises(InputError) as folder:
        open_sources([str(tmp_path)])
    assert (folder.value.message, folder.value.hint) == (f"{tmp_path} is a directory", "give transcript files, e.g. hymem add DIR/*.jsonl")
    with pytest.raises(InputError) as twice:
        open_sources(["-", "-"])
    assert (twice.value.message, twice.value.hint) == ("stdin (-) was given more than once", "give - once")


def test_an_unreadable_file(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = tmp_path / "locked.txt"
    path.write_text("Alex: hi\n")
    path.chmod(0)
    with pytest.raises(InputError) as denied:
        open_sources([str(path)])
    assert (denied.value.message, denied.value.hint) == (f"{path}: permission denied", "check the file's permissions")


def test_read_lines_of_a_file_and_of_a_folder(tmp_path):
    path = tmp_path / "ops.jsonl"
    path.write_bytes(b'{"op": "add"}\r\n\n{"op": "delete"}')
    assert read_lines(str(path), "an operations file") == (str(path), ['{"op": "add"}\r\n', "\n", '{"op": "delete"}'])
    with pytest.raises(InputError) as folder:
        read_lines(str(tmp_path), "an operations file")
    assert folder.value.hint == "give an operations file"


def test_descriptor_lines_of_an_input_starting_with_an_empty_line():
    r, w = os.pipe()
    feed(w, [b"\nfirst\n"])
    try:
        assert list(_descriptor_lines(r)) == [b"\n", b"first\n"]
    finally:
        os.close(r)


def test_idle_flush_flushes_a_quiet_start_too():
    def late():
        time.sleep(0.3)
        yield Message("a", None, "one")

    assert [m.id if m else None for m in idle_flush(late(), idle_seconds=0.1)] == [None, "a"]


def test_the_reading_thread_never_keeps_the_process_alive():
    """Ctrl-C must end hymem while its reader is blocked on a quiet pipe: the reader is a daemon thread."""
    r, w = os.pipe()
    try:
        flushed = idle_flush(iter(lambda: os.read(r, 1), b""), idle_seconds=0.05)
        assert next(flushed) is None  # quiet: the reader is blocked in os.read
        readers = [t for t in threading.enumerate() if getattr(t, "_target", None) and t._target.__name__ == "pump"]
        assert readers and all(t.daemon for t in readers)
    finally:
        os.close(w)
        os.close(r)


def test_a_flush_closes_the_chunk_and_every_chunk_names_its_source():
    from hymem_cli.ingest.chunker import FLUSH, chunk_messages

    a, b = Message("1", "Alex", "One."), Message("2", "Sam", "Two.")
    chunks = list(chunk_messages([a, FLUSH, FLUSH, b], "chat.txt"))
    assert [(c.source, [m.id for m in c.messages]) for c in chunks] == [("chat.txt", ["1"]), ("chat.txt", ["2"])]


def _stdin(kind: str, data: bytes):
    """Standard input as a regular file would give it (read at once) or as a pipe does (read on a thread)."""
    if kind == "file":
        return io.BytesIO(data)
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    return os.fdopen(r, "rb")


@pytest.mark.parametrize("kind", ["file", "pipe"])
def test_stdin_is_read_in_the_format_given_and_redacted_as_it_is_read(kind):
    data = b"Alex: My password is hunter2hunter2.\n"
    screen, streams = Screen(), [_stdin(kind, data) for _ in range(3)]  # kept open while they are read
    [source] = open_sources([], stdin=streams[0], screen=screen)  # no path: standard input
    assert source.name == "<stdin>" and source.screen is screen  # the screen counts what it redacted while reading
    assert [(m.speaker, m.text) for m in source.messages if m] == [("Alex", "My password is [REDACTED:password].")]
    [forced] = open_sources(["-"], fmt="text", stdin=streams[1])
    assert [(m.speaker, m.text) for m in forced.messages if m] == [(None, "Alex: My password is hunter2hunter2.")]
    [unscreened] = open_sources(["-"], stdin=streams[2], screen=Screen(secrets=False))
    assert [m.text for m in unscreened.messages if m] == ["My password is hunter2hunter2."]


@pytest.mark.parametrize("kind", ["file", "pipe"])
@pytest.mark.parametrize("data, fmt, error", [
    (b'{"text": "a"}\n{"text": \n', "jsonl", "<stdin> line 2: invalid JSON"),
    (b"Alex: caf\xe9\n", None, "<stdin> line 1: not valid UTF-8"),
])
def test_bad_standard_input_is_named_stdin(kind, data, fmt, error):
    stream = _stdin(kind, data)
    with pytest.raises(InputError) as bad:
        [source] = open_sources(["-"], fmt=fmt, stdin=stream)
        list(source.messages)
    assert bad.value.message.startswith(error)


def test_a_file_is_read_in_the_format_given(tmp_path):
    chat = tmp_path / "chat.txt"
    chat.write_text("Alex: I live in Seattle.\n")
    [detected] = open_sources([str(chat)])
    [forced] = open_sources([str(chat)], fmt="text")
    assert [(m.speaker, m.text) for m in detected.messages] == [("Alex", "I live in Seattle.")]
    assert [(m.speaker, m.text) for m in forced.messages] == [(None, "Alex: I live in Seattle.")]


def test_a_file_that_cannot_be_opened_is_named_with_what_to_do(tmp_path, monkeypatch):
    """The check before reading passes (the file exists), then the system refuses to open it."""
    import builtins

    chat = tmp_path / "chat.txt"
    chat.write_text("Alex: I live in Seattle.\n")
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda p, *a, **k: (_ for _ in ()).throw(PermissionError(13, "denied"))
                        if str(p) == str(chat) else real_open(p, *a, **k))
    with pytest.raises(InputError) as refused:
        open_sources([str(chat)])
    assert (refused.value.message, refused.value.hint) == (f"{chat}: permission denied", "check the file's permissions")
