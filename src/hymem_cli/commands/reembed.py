"""`hymem reembed`: move a bank to another embedding model by rebuilding every vector from the stored text."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli import _output, config
from hymem_cli._output import UpgradeProgress
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import BankOpt, FormatOpt, QuietOpt
from hymem_cli.embed import PACKAGED, canonical_model

ModelOpt = Annotated[
    Optional[str],
    typer.Option("--model", "-m", help="Embedding model to move the bank to: minilm (all-MiniLM-L6-v2), mpnet (all-mpnet-base-v2), "
                 "or a sentence-transformers folder (default: embed.model).", show_default=False),
]
COLUMNS = [("previous_model", "from"), ("model", "to"), ("dim", "dim"), ("versions", "versions"), ("resumed", "resumed")]


def reembed(
    model: ModelOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild the vectors even when the bank already holds MODEL's "
                                                        "(after changing embed.context or embed.date).")] = False,
    bank: BankOpt = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Rebuild every vector of the bank with another embedding model, and record that model.

    Each version's vector is computed again from its stored text (and context and date, as embed.context and
    embed.date say); versions, revisions and retirements do not change, so history, diff and log stay as they were.
    The new vectors are written in batches beside the old ones, which keep answering searches until one final
    transaction swaps them in; an interrupted run (Ctrl-C, a crash) continues where it stopped when run again.
    About 50 minutes for a million memories with all-MiniLM-L6-v2 on 2 cores; several times that with mpnet.
    A bank that already holds the model's vectors is left alone (exit 0) unless --force. A model that cannot be
    loaded is an error (exit 1) before the bank is touched. Restart a running `hymem serve` or `hymem mcp` afterwards.
    A bank knows its embedder: searches and adds use a packaged model (minilm, mpnet) the bank's vectors came from,
    whatever embed.model says, which chooses the model of new banks; a model folder must also be set as embed.model.

    Examples:

      hymem reembed --model mpnet && hymem search "where does Alex live"

      HYMEM_EMBED_MODEL=mpnet hymem reembed -q

      hymem reembed --model minilm -f json | jq .versions
    """
    ctx = Context.start(quiet=quiet, bank=bank, **({"embed__model": model} if model is not None else {}))
    progress = UpgradeProgress(ctx.out, verb="re-embedding")
    try:
        done = ctx.memory.reembed(force, progress)
    finally:
        progress.close()
        ctx.memory.close()
    if done is None:
        ctx.out.info(f"bank {ctx.memory.bank_path} already holds {canonical_model(ctx.memory.settings.embed.model)} vectors; nothing to do (--force rebuilds them)")
        return
    resumed = f" ({done.resumed:,} of them embedded by an earlier, interrupted run)" if done.resumed else ""
    before = f"{done.previous_model} ({done.previous_dim}-d)" if done.previous_model else "no vectors"
    ctx.out.info(f"re-embedded {done.versions:,} versions: {before} -> {done.model} ({done.dim}-d){resumed}")
    configured = canonical_model(config.load().embed.model)  # the setting, without this command's --model
    if configured != done.model and done.model not in PACKAGED:  # a packaged model is used because the bank names it
        ctx.out.info(f"note: embed.model is {configured}; set it to use this bank: hymem config set embed.model {done.model}")
    _output.emit_one(done.to_json(), fmt, COLUMNS)
