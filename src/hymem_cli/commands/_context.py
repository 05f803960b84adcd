"""What one command owns: its output on the terminal, and the `Memory` (settings, screen, embedder, bank) it works on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar

from hymem_cli import config
from hymem_cli._output import Output, UpgradeProgress
from hymem_cli.memory import Memory

# The memories the running command made, closed when it ends (app.guarded): its bank is checkpointed and let go, and
# a loaded writer freed, whether the command ran in its own process or inside another's (a test, an embedding app).
_RUNNING: ContextVar[list[Memory] | None] = ContextVar("hymem_running_memories", default=None)


@contextmanager
def closing_memories() -> Iterator[None]:
    """Around one command: every Memory its Contexts made is closed when it returns or fails."""
    token = _RUNNING.set([])
    try:
        yield
    finally:
        for memory in reversed(_RUNNING.get() or []):
            with suppress(Exception):  # the command's own outcome (or error) is what the user must see
                memory.close()
        _RUNNING.reset(token)


class Context:
    """Made once per command from its flags; passed to whatever needs state, so nothing lives in module globals.

    The work is the `memory`'s; the context adds only the terminal: messages, warnings and progress on stderr."""

    def __init__(self, settings: config.Settings, *, quiet: bool = False, bank: str | None = None):
        self.out = Output(quiet)
        self.memory = Memory(settings, bank=bank, say=self.out.info, upgrade_progress=lambda: UpgradeProgress(self.out))
        if (running := _RUNNING.get()) is not None:
            running.append(self.memory)

    @classmethod
    def start(cls, *, quiet: bool = False, bank: str | None = None, **overrides: object) -> Context:
        """Settings from flags (`overrides`, dotted keys with "_" for "."), HYMEM_*, the file and defaults, checked once;
        the project settings that were not applied are said once, even with --quiet."""
        flags = {key.replace("__", "."): value for key, value in overrides.items()}
        ctx = cls(config.load(flags), quiet=quiet, bank=bank)
        if notice := config.ignored_notice(ctx.memory.settings):
            ctx.out.warn(notice)
        return ctx
