"""The memory bank: one SQLite file of immutable memory versions, revisions and chunks."""

from hymem_cli.bank.store import Bank, open_bank

__all__ = ["Bank", "open_bank"]
