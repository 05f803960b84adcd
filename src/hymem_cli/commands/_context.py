"""What one command owns: its settings, output mode, screen (and the secrets it has seen), embedder and bank."""

from __future__ import annotations

from pathlib import Path

from hymem_cli import config
from hymem_cli._output import Output, UpgradeProgress
from hymem_cli.bank import Bank, open_bank
from hymem_cli.bank.db import writable


class Context:
    """Made once per command from its flags; passed to whatever needs state, so nothing lives in module globals."""

    def __init__(self, settings: config.Settings, *, quiet: bool = False, bank: str | None = None):
        self.settings = settings
        self.out = Output(quiet)
        self.bank_opt = bank
        self._screen = None
        self._embedder = None

    @classmethod
    def start(cls, *, quiet: bool = False, bank: str | None = None, **overrides: object) -> Context:
        """Settings from flags (`overrides`, dotted keys with "_" for "."), HYMEM_*, the file and defaults, checked once."""
        flags = {key.replace("__", "."): value for key, value in overrides.items()}
        ctx = cls(config.load(flags), quiet=quiet, bank=bank)
        if notice := config.ignored_notice(ctx.settings):
            ctx.out.warn(notice)
        return ctx

    @property
    def bank_choice(self) -> config.BankChoice:
        """The bank this command uses and why: --bank, HYMEM_BANK, the nearest .hymem/, bank.path, or the default.
        An untrusted project's bank is refused here (ConfigError with the way to trust it)."""
        choice = config.locate_bank(self.bank_opt, self.settings)
        choice.usable()
        return choice

    @property
    def bank_path(self) -> Path:
        return self.bank_choice.path

    @property
    def screen(self):
        """The command's screen: screen.* settings, and a memory of the secrets redacted in this command."""
        if self._screen is None:
            from hymem_cli.screen import Screen

            self._screen = Screen.from_settings(self.settings)
        return self._screen

    def embedder(self):
        """The configured embedder, loaded once per command. Its torch-free copies are made on first need,
        whatever the command: without them every later search would import torch (seconds each)."""
        if self._embedder is None:
            from hymem_cli.embed import ALIASES, canonical_model, fast_copy_missing, get_embedder

            model, fast = canonical_model(self.settings.embed.model), self.settings.embed.onnx
            # Announced only for a model that is there to copy: a bad path stays one error line.
            if fast_copy_missing(model, fast) and (model in ALIASES.values() or Path(model).exists()):
                self.out.info(f"preparing a torch-free copy of {model} (once for this cache, about 20 s; "
                              "afterwards searches start without torch, in under a second)")
            self._embedder = get_embedder(model, prepare_fast=True, fast=fast)
        return self._embedder

    def open_bank(self, *, embed: bool = False, create: bool = False, path: Path | None = None) -> Bank:
        """The bank chosen by --bank / HYMEM_BANK / the nearest .hymem/ / config; `embed` binds the configured embedder."""
        path = path or self.bank_path

        def upgrading(names: list[str]) -> None:
            self.out.info(f"upgrading bank {path} to this version of hymem ({', '.join(names)}); once; about a minute for a million memories")

        if create and path.parent.name == config.PROJECT_DIR:
            config.ensure_gitignore(path.parent)
        progress = UpgradeProgress(self.out)
        try:
            bank = open_bank(path, self.settings.bank.busy_timeout, create=create, on_upgrade=upgrading, progress=progress)
        finally:
            progress.close()
        if not writable(path):
            self.out.info(f"note: {path} is on read-only storage: opened for reading only")
        if embed:
            self.bind_embedder(bank)
        return bank

    def memory_text(self):
        """What new memories embed besides their text (config embed.context, embed.date)."""
        from hymem_cli.bank.memory_text import MemoryText

        return MemoryText(context=self.settings.embed.context, date=self.settings.embed.date)

    def bind_embedder(self, bank: Bank) -> None:
        bank.check_embedder(self.settings.embed.model)  # before seconds of model loading
        bank.bind_embedder(self.embedder(), self.memory_text())
