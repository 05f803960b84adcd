"""Opening the bank a command works on, with the embedder it needs, from flags, env and config."""

from __future__ import annotations

from hymem_cli import config
from hymem_cli.bank import Bank, open_bank


def bank_for(bank_opt: str | None, *, embed: bool = False, create: bool = False) -> Bank:
    """The bank chosen by --bank / HYMEM_BANK / config; `embed` binds the configured embedder."""
    from hymem_cli import _output

    settings = config.load()
    path = config.bank_path(bank_opt)

    def upgrading(names: list[str]) -> None:
        _output.info(f"upgrading bank {path} to this version of hymem ({', '.join(names)}); once, and minutes for a very large bank")

    bank = open_bank(path, float(settings["bank.busy_timeout"]), create=create, on_upgrade=upgrading)
    if embed:
        bind_embedder(bank, settings, prepare_fast=True)
    return bank


def bind_embedder(bank: Bank, settings=None, prepare_fast: bool = False) -> None:
    """Bind the configured embedder; writers (`prepare_fast`) also make its torch-free copy once."""
    from hymem_cli import _output
    from hymem_cli.embed import fast_copy_missing, get_embedder

    settings = settings or config.load()
    model = str(settings["embed.model"])
    bank.check_embedder(model)  # before seconds of model loading
    if prepare_fast and fast_copy_missing(model):
        _output.info(f"preparing a torch-free copy of {model} for fast searches (once, about 20 s)")
    bank.bind_embedder(get_embedder(model, prepare_fast))
