"""`hymem serve`: keep a bank warm for `hymem search`."""

from __future__ import annotations

from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt


def serve(bank: BankOpt = None) -> None:
    """Keep the bank, its vector codes and the embedder loaded, and answer searches from them.

    Runs in the foreground until Ctrl-C or SIGTERM. While it runs, `hymem search` on the same bank
    asks it over a private Unix socket instead of loading the embedder itself (search.server), and
    falls back to searching in process when it does not answer. Searches still see every change:
    the server reads the bank file on each request.

    Examples:

      hymem serve &

      hymem search "where does Alex live" -f jsonl
    """
    from hymem_cli import server
    from hymem_cli.bank.search import SearchFilter, search

    ctx = Context.start(bank=bank)
    target = ctx.open_bank()
    if target.embed_model is not None:
        ctx.bind_embedder(target)
        search(target, "warm up", 1)  # loads the vector codes of a large bank now, not on the first request

    def answer(request: dict) -> list[dict]:
        if target.embedder is None and target.embed_model is not None:  # the bank got its first vectors since
            ctx.bind_embedder(target)
        return search(target, request["query"], int(request["limit"]), SearchFilter(**request["filter"]),
                      vector_weight=float(request["vector_weight"]), text_weight=float(request["text_weight"]))

    answered = server.serve(target, answer, on_ready=lambda path: ctx.out.info(f"serving {target.path} on {path}; Ctrl-C stops"))
    ctx.out.info(f"answered {answered} searches")
