"""Typed errors of hymem: each maps to one stderr line, a hint, and a documented exit code."""

from __future__ import annotations

# Exit codes are part of the public contract; docs/exit-codes and `hymem --help` list them.
EXIT_OK = 0
EXIT_FAILURE = 1  # generic failure; also `diff --exit-code` when there are differences
EXIT_USAGE = 2  # bad flags or arguments (Typer's own code)
EXIT_INPUT = 3  # unreadable or malformed input
EXIT_NOT_FOUND = 4  # unknown memory id or revision
EXIT_BANK = 5  # bank locked, too new, corrupt, or embedder mismatch
EXIT_WRITER = 6  # writer missing, failed to load, or unreachable
EXIT_INTERRUPTED = 130

EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_FAILURE: "failure; `diff --exit-code`: the revisions differ",
    EXIT_USAGE: "usage error: unknown option, bad argument",
    EXIT_INPUT: "input error: missing, empty, binary or malformed input; an operation the bank's state refuses (a revert of a "
                "revision already reverted or changed since)",
    EXIT_NOT_FOUND: "unknown memory id or revision",
    EXIT_BANK: "bank error: locked, made by a newer hymem, corrupt, embedder mismatch",
    EXIT_WRITER: "writer error: no writer configured, model failed to load, server unreachable",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); committed chunks are kept",
}


class HymemError(Exception):
    """Base of every error hymem reports to the user."""

    exit_code = EXIT_FAILURE

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


class InputError(HymemError):
    exit_code = EXIT_INPUT


class NotFoundError(HymemError):
    exit_code = EXIT_NOT_FOUND


class BankError(HymemError):
    exit_code = EXIT_BANK


class BankLockedError(BankError):
    pass


class WriterError(HymemError):
    exit_code = EXIT_WRITER


class UsageError(HymemError):
    """A flag or argument hymem itself refuses (Typer's own parse errors also exit 2)."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    pass
