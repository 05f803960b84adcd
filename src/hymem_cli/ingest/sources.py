"""Opening transcript inputs: files are read and checked whole before anything is stored; stdin streams."""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator

from hymem_cli._errors import InputError
from hymem_cli.domain import Message
from hymem_cli.ingest.readers import decode_lines, read_messages
from hymem_cli.screen import Screen


@dataclass
class Source:
    name: str  # the path as given, or "<stdin>"
    messages: Iterable[Message]
    screen: Screen | None = None  # what redacted its lines as they were read (and holds the kinds, until counted)


def _check_path(path: Path, expected: str = "transcript files, e.g. hymem add DIR/*.jsonl") -> None:
    if not path.exists():
        raise InputError(f"{path}: no such file", hint="check the path, or use - to read stdin")
    if path.is_dir():
        raise InputError(f"{path} is a directory", hint=f"give {expected}")


def read_lines(arg: str | None, expected: str) -> tuple[str, list[str]]:
    """The decoded lines of a file argument (- or none: stdin) and its display name.

    `expected` says what the file should be, for the hint when the path is a directory.
    """
    if not arg or arg == "-":
        return "<stdin>", list(decode_lines(_byte_lines(sys.stdin.buffer), name="<stdin>"))
    path = Path(arg)
    _check_path(path, expected)
    with open(path, "rb") as f:
        return arg, list(decode_lines(_byte_lines(f), name=arg))


def _byte_lines(stream: BinaryIO) -> Iterator[bytes]:
    while line := stream.readline():
        yield line


def _descriptor_lines(fd: int) -> Iterator[bytes]:
    """Lines read with os.read, bypassing sys.stdin's buffer: the reading thread then holds no lock of it,
    so Ctrl-C ends the process cleanly (a thread blocked in the buffer's readline aborts interpreter shutdown)."""
    pending = b""
    while data := os.read(fd, 1 << 16):
        pending += data
        start = 0
        while (end := pending.find(b"\n", start)) >= 0:
            yield pending[start:end + 1]
            start = end + 1
        pending = pending[start:]
    if pending:
        yield pending


def open_sources(paths: list[str], fmt: str | None = None, stdin: BinaryIO | None = None, screen: Screen | None = None) -> list[Source]:
    """Sources for `paths` ("-" or none: stdin). Every file is parsed now, so a bad file stores nothing.

    Secrets are redacted from each line that opens a message before the reader splits off its speaker
    (`screen`: the command's; without one, a default screen, so a caller that forgets still redacts)."""
    paths = paths or ["-"]
    screen = screen if screen is not None else Screen()
    redact_line = screen.redact_line  # a screen with secrets off gives each line back as it is
    if paths.count("-") > 1:
        raise InputError("stdin (-) was given more than once", hint="give - once")
    for p in paths:
        if p != "-":
            _check_path(Path(p))
    sources = []
    for p in paths:
        if p == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            if _is_regular(stream):
                messages = read_messages(decode_lines(_byte_lines(stream), name="<stdin>"), fmt, redact_line=redact_line)
                sources.append(Source("<stdin>", list(messages), screen))
            else:  # a pipe or a terminal: read on a thread, straight from the descriptor
                messages = read_messages(decode_lines(_descriptor_lines(stream.fileno()), name="<stdin>"), fmt, redact_line=redact_line)
                sources.append(Source("<stdin>", idle_flush(messages, IDLE_SECONDS), screen))
        else:
            try:
                with open(p, "rb") as f:
                    messages = list(read_messages(decode_lines(_byte_lines(f), name=p), fmt, name=p, redact_line=redact_line))
            except PermissionError:
                raise InputError(f"{p}: permission denied", hint="check the file's permissions") from None
            sources.append(Source(p, messages, screen))
    return sources


IDLE_SECONDS = 2.0  # a pipe quiet this long has its open chunk stored (the README's `tail -f` example)


def _is_regular(stream) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        return True  # an in-memory stream (tests): already complete


def idle_flush(messages: Iterator[Message], idle_seconds: float) -> Iterator[Message | None]:
    """Pass messages through; when none arrives for `idle_seconds`, yield None so the open chunk is
    processed now (`tail -f chat.log | hymem add -` stores each burst as it comes)."""
    import queue
    import threading

    box: queue.Queue = queue.Queue(maxsize=256)
    done = object()

    def pump() -> None:
        try:
            for m in messages:
                box.put(m)
            box.put(done)
        except BaseException as exc:  # handed to the consumer, which raises it in the main thread
            box.put(exc)

    threading.Thread(target=pump, daemon=True).start()
    idle = False
    while True:
        try:
            item = box.get(timeout=idle_seconds)
        except queue.Empty:
            if not idle:
                idle = True
                yield None
            continue
        idle = False
        if item is done:
            return
        if isinstance(item, BaseException):
            raise item
        yield item
