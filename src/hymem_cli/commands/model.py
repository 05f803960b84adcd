"""`hymem model`: list, describe, remove and download the GGUF models the local writer runs."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli import _output, config
from hymem_cli._errors import HymemError, UsageError
from hymem_cli._output import Output
from hymem_cli.commands._options import FormatOpt, QuietOpt
from hymem_cli.writer import models

HELP = """Manage writer models: GGUF files in the models directory, and models that packages ship.

The models directory is HYMEM_HOME/models (or the platform data directory's models folder).
A model listed here can be given by name to `hymem add --model NAME` or `hymem config set writer.model NAME`.

Examples:

  hymem model list

  hymem model pull --quant Q4_K_M -f json | jq -r .path | xargs hymem config set writer.model

  hymem model info smollm2 -f json | jq .architecture
"""

ModelArg = Annotated[str, typer.Argument(help="A .gguf path, a packaged model name, or a name in the models directory.", metavar="MODEL", show_default=False)]

LIST_COLUMNS = [("name", "name"), ("source", "source"), ("size", "size"), ("architecture", "architecture"),
                ("quantization", "quant"), ("parts", "parts"), ("error", "error")]
INFO_FIELDS = [("path", "path"), ("name", "name"), ("architecture", "architecture"), ("expert_count", "experts"),
               ("expert_used_count", "experts per token"), ("context_length", "context length"), ("block_count", "layers"),
               ("quantization", "quantization"), ("size", "size"), ("parts", "files"), ("has_chat_template", "chat template"),
               ("loadable", "loads in this llama.cpp"), ("load_detail", "load check")]


def list_(fmt: FormatOpt = None) -> None:
    """List GGUF models: those in the models directory and those installed packages ship.

    A file that is not a readable GGUF is listed with its error instead of failing the command.

    Examples:

      hymem model list

      hymem model list -f jsonl | jq -r 'select(.error == null) | .name'
    """
    rows = models.list_models()
    if not rows:
        Output().info(f"no models in {config.models_dir()}; download one with `hymem model pull`")
    _output.emit(rows, fmt, LIST_COLUMNS, plain=lambda r: f"{r['name']}\t{r['source']}\t{r['size']}\t{r['architecture'] or ''}\t{r['quantization'] or ''}")


def info(
    model: ModelArg,
    no_check: Annotated[bool, typer.Option("--no-check", help="Skip the load check (llama.cpp reads the vocabulary only, never the weights).")] = False,
    fmt: FormatOpt = None,
) -> None:
    """Describe a GGUF: architecture, experts (and experts used per token), context length, quantization, size.

    Also says whether this llama.cpp build can load the architecture, checked by loading the
    vocabulary only (fast, no weights read).

    Examples:

      hymem model info smollm2

      hymem model info ~/models/Hy-Memory-30B-A3B-Q4_K_M.gguf -f json | jq '{architecture, expert_count, loadable}'
    """
    record = models.describe(model, check_load=not no_check)
    _output.emit_one(record, fmt if fmt is not None else _output.Format.table, INFO_FIELDS)


def rm(
    name: Annotated[str, typer.Argument(help="A model name as `hymem model list` shows it (local models only).", metavar="NAME", show_default=False)],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Delete a GGUF from the models directory (every part of a split model). Packaged models and
    files elsewhere are never deleted.

    Examples:

      hymem model rm Hy-Memory-30B-A3B-GGUF/Hy-Memory-30B-A3B-Q8_0.gguf

      hymem model list -f jsonl | jq -r 'select(.error != null and .source == "local") | .name' | xargs -r -n1 hymem model rm --yes
    """
    out = Output(quiet)
    paths = models.removal_targets(name)
    size = sum(p.stat().st_size for p in paths)
    if not yes:
        files = "\n  ".join(str(p) for p in paths)
        try:
            confirmed = typer.confirm(f"Delete {len(paths)} file(s), {models.human_size(size)}:\n  {files}\n", default=False, err=True)
        except typer.Abort:
            confirmed = False
        if not confirmed:
            raise HymemError("nothing was deleted (not confirmed)", hint="answer y, or pass --yes")
    freed = models.remove(paths)
    out.info(f"deleted {len(paths)} file(s), {models.human_size(freed)} freed")


def pull(
    repo: Annotated[Optional[str], typer.Argument(help=f"Hugging Face repository (default: {models.DEFAULT_REPO}; {models.REPO_ENV} overrides).", metavar="REPO", show_default=False)] = None,
    file: Annotated[Optional[str], typer.Option("--file", help="Download the file(s) matching this glob (a split model's parts all come).", metavar="GLOB", show_default=False)] = None,
    quant: Annotated[Optional[str], typer.Option("--quant", help=f"Download the model of this quantization, e.g. {models.DEFAULT_QUANT} (the default when the repository holds several).", show_default=False)] = None,
    revision: Annotated[Optional[str], typer.Option("--revision", help="Branch, tag or commit of the repository.", metavar="REV", show_default=False)] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the repository's GGUF models; download nothing.")] = False,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Download a GGUF from the Hugging Face Hub into the models directory, then verify it.

    Downloads resume where an interrupted one stopped. Each file must start with the GGUF magic,
    have a readable header and, when the hub records one, match its sha256; a bad file is removed.
    Progress bars go to stderr. HF_ENDPOINT points at a mirror; HF_TOKEN reads private repositories.

    Examples:

      hymem model pull --quant Q4_K_M

      hymem model pull unsloth/Qwen3-30B-A3B-GGUF --file '*Q4_K_M*' -f json | jq -r .path

      hymem model pull --list -f plain
    """
    out = Output(quiet)
    if file and quant:
        raise UsageError("--file and --quant both choose the file; give one of them")
    if list_only:
        rows = models.remote_models(repo, revision)
        _output.emit(rows, fmt, [("name", "name"), ("parts", "parts")], plain=lambda r: r["name"])
        return
    if out.quiet:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    record = models.pull(repo, file, quant, revision, message=out.info)
    out.info(f"{record['name']}: {record['architecture']} {record['quantization'] or ''}, {record['size']}, checksum {record['checksum']}")
    _output.emit_one(record, fmt if fmt is not None else _output.Format.table)


COMMANDS = [("list", list_), ("info", info), ("rm", rm), ("pull", pull)]
