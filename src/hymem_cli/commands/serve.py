"""`hymem serve`: keep a bank warm for `hymem search`."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Annotated

import typer

from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt


def serve(
    bank: BankOpt = None,
    write: Annotated[bool, typer.Option("--write", help="Also write the queued chunks with the configured writer, its model loaded once, "
                                        "as they arrive (what hymem add --queue and the agent hooks queue).")] = False,
) -> None:
    """Keep the bank, its vector codes and the embedder loaded, and answer searches from them.

    Runs in the foreground until Ctrl-C or SIGTERM. While it runs, `hymem search` on the same bank
    asks it over a private Unix socket instead of loading the embedder itself (search.server), and
    falls back to searching in process when it does not answer. Searches still see every change:
    the server reads the bank file on each request, and opens it anew when the file was replaced
    (an import into a new file moved over the old one). Several clients are served at once.

    Examples:

      hymem serve &

      hymem search "where does Alex live" -f jsonl

      hymem serve --write &   # and `hymem add --queue` returns at once; facts follow
    """
    from hymem_cli import server
    from hymem_cli.bank.search import SearchFilter

    ctx = Context.start(bank=bank)
    memory = ctx.memory
    target = memory.bank()
    server.make_socket_dir(server.socket_path(target.path).parent)  # refused before the embedder loads, not after
    if target.embed_model is not None:
        memory.search("warm up", 1, ask_server=False)  # loads the embedder and a large bank's vector codes now
    opened = {"file": _identity(target.path)}
    writing = _start_writer(ctx, target.path) if write else None

    def answer(request: dict) -> list[dict]:
        now = _identity(target.path)
        if now is not None and now != opened["file"]:  # another file now has the name: read that one
            memory.reopen()
            opened["file"] = now
            ctx.out.info(f"{target.path} was replaced; opened the new file")
        # The request's ranking, each value as the setting's type; a request from an older hymem names fewer of them,
        # and the settings give the rest.
        return memory.search(request["query"], int(request["limit"]), SearchFilter(**request["filter"]), ask_server=False, ranking=request,
                             recalled=request.get("recalled") is True)

    try:
        answered = server.serve(target, answer, on_ready=lambda path: ctx.out.info(
            f"serving {target.path} on {path}{' and writing its queue' if write else ''}; Ctrl-C stops"))
    finally:
        if writing is not None:
            writing()
    ctx.out.info(f"answered {answered} searches")


def _start_writer(ctx: Context, path) -> Callable[[], None]:
    """A thread that writes the bank's queue as chunks arrive, on its own connection, with the writer loaded here and
    now (a model that fails stops `serve` before it answers anything); the function that stops it."""
    from hymem_cli import server
    from hymem_cli.memory import Memory

    memory = Memory(ctx.memory.settings, bank=str(path), say=ctx.out.info)
    memory.writer(False)
    stop = threading.Event()
    mark = server.writer_mark(path)

    def run() -> None:
        try:
            memory.write(follow=True, stop=stop, on_chunk=lambda r: ctx.out.info(
                f"wrote {r.written} chunk(s), {r.failed} failed" + (f" (last: {r.errors[-1]})" if r.errors else "")))
        except Exception as exc:  # noqa: BLE001 - searches go on; the queue keeps the chunks
            ctx.out.info(f"the writer stopped: {exc}")

    thread = threading.Thread(target=run, name="hymem-writer", daemon=True)
    thread.start()
    mark.write_text(str(os.getpid()))

    def halt() -> None:
        stop.set()
        thread.join(timeout=5)  # a chunk still with the writer stays queued: the next writer takes it over
        mark.unlink(missing_ok=True)
        if not thread.is_alive():
            memory.close()

    return halt


def _identity(path) -> tuple[int, int] | None:
    """The file a path names now (device, inode); None while it is missing (mid-replace)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
