"""Opening the bank a command works on, with the embedder it needs, from flags, env and config."""

from __future__ import annotations

from hymem_cli import config
from hymem_cli.bank import Bank, open_bank


def bank_for(bank_opt: str | None, *, embed: bool = False, create: bool = False) -> Bank:
    """The bank chosen by --bank / HYMEM_BANK / config; `embed` binds the configured embedder."""
    settings = config.load()
    bank = open_bank(config.bank_path(bank_opt), float(settings["bank.busy_timeout"]), create=create)
    if embed:
        bind_embedder(bank, settings)
    return bank


def bind_embedder(bank: Bank, settings=None) -> None:
    from hymem_cli.embed import get_embedder

    settings = settings or config.load()
    bank.bind_embedder(get_embedder(str(settings["embed.model"])))
