"""`hymem config`: read and change settings in the TOML config file (HYMEM_HOME/config.toml)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from hymem_cli import _output, config
from hymem_cli._errors import ConfigError, HymemError, UsageError
from hymem_cli._output import Output
from hymem_cli.commands._options import FormatOpt, QuietOpt

HELP = """Read and change settings. Precedence: defaults < config file < project config (.hymem/config.toml) < HYMEM_* variables < flags.

Examples:

  hymem config set writer.backend openai && hymem config get writer.backend

  hymem config list -f jsonl | jq -c 'select(.source != "default") | {key, value, source}'

  HYMEM_SEARCH_LIMIT=3 hymem config get search.limit
"""

KeyArg = Annotated[str, typer.Argument(help="A setting such as search.limit (see `hymem config list`).", metavar="KEY", show_default=False)]


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def get(key: KeyArg, fmt: FormatOpt = None) -> None:
    """Print the effective value of KEY: the config file's, overridden by its HYMEM_* variable.

    Examples:

      hymem config get embed.model

      HYMEM_SEARCH_LIMIT=3 hymem config get search.limit

      hymem config get writer.model -f json | jq -r .source
    """
    config.check_key(key)
    row = next(r for r in config.describe() if r["key"] == key)
    if row["problem"]:
        raise ConfigError(f"{key}: {row['problem']}", hint=f"see `hymem config list`; fix it with `hymem config set {key} VALUE`")
    if fmt is None or fmt is _output.Format.plain:
        sys.stdout.write(_output.visible(_show(row["value"]), breaks=False) + "\n")
    else:
        _output.emit_one(row, fmt)


ProjectOpt = Annotated[bool, typer.Option("--project", help="Change the project's config (.hymem/config.toml) instead of the user's.")]


def _target(project: bool) -> Path:
    """The config file `set` and `unset` change: the user's, or with --project the nearest project's."""
    if not project:
        return config.config_path()
    file = config.project_config_path()
    if file is None:
        raise UsageError("--project: not in a hymem project (no .hymem/ here or above)", hint="run `hymem init` in the project's directory")
    return file


@contextmanager
def _keeping_trust(project: bool, file: Path) -> Iterator[None]:
    """A change the user makes to a project's config keeps the project trusted if it was (the change is theirs)."""
    trusted = project and config.project_trust(file.parent).config_trusted
    yield
    if trusted:
        config.record_trust(file.parent)


def _embed_model_problem(value: str) -> str | None:
    """Why `value` cannot be embed.model, or None: a known model's name or an existing folder, checked without a network."""
    from hymem_cli.embed import ALIASES

    if value.strip().lower() in ALIASES or value == "hash" or Path(value).expanduser().is_dir():
        return None
    return f"{value!r} is neither a known embedding model nor a folder"


def _writer_model_problem(value: str) -> str | None:
    """Why `value` cannot be writer.model, or None: a path must exist; a name may be one a server or `model pull` gives later."""
    looks_like_path = value.startswith(("/", "~", "./", "../")) or ("/" in value and value.lower().endswith(".gguf"))
    if looks_like_path and not Path(value).expanduser().exists():
        return f"{value} does not exist"
    return None


# What `config set` checks beyond a value's type, cheaply and offline: what would otherwise fail every later command.
CHECKS = {
    "embed.model": (_embed_model_problem, "use minilm, mpnet (or their full names) or a sentence-transformers folder"),
    "writer.model": (_writer_model_problem, "give an existing .gguf path, a name `hymem model list` shows, or a served model's name"),
}


def _checked_value(key: str, value: str) -> None:
    """Refuse at `set` time what can be known to be wrong now, with a hint that names what is accepted."""
    try:
        config.parse_value(key, value)
    except ConfigError as exc:
        if key in config.CHOICES:
            choices = [c for c in config.CHOICES[key] if c]
            raise ConfigError(exc.message, hint=f"e.g. hymem config set {key} {choices[0]}") from None
        raise
    if key in CHECKS:
        problem, hint = CHECKS[key]
        if (why := problem(value)) is not None:
            raise ConfigError(f"invalid value for {key}: {why}", hint=hint)


def set_(key: KeyArg, value: Annotated[str, typer.Argument(help="The new value, of the key's type (int, float, text).", metavar="VALUE")],
         project: ProjectOpt = False, quiet: QuietOpt = False) -> None:
    """Store KEY = VALUE in the config file. Unknown keys and values of the wrong type are refused.

    Also refused: an embed.model that is no known model and no folder, and a writer.model path
    that does not exist. The file is rewritten (comments are not kept). A negative number is a
    value, not an option (`hymem config set KEY -1`); after `--` too.

    Examples:

      hymem config set search.limit 20

      hymem config set writer.backend llama && hymem config set writer.model qwen2.5-1.5b-instruct-q4_k_m.gguf

      hymem config set writer.gpu_layers all
    """
    out = Output(quiet)
    file = _target(project)
    if project and key == "bank.path":
        raise ConfigError("bank.path cannot be set in a project's config", hint="a project's bank is .hymem/bank.db; use --bank or HYMEM_BANK for another")
    _checked_value(key, value)
    with _keeping_trust(project, file):
        typed = config.set_value(key, value, file)
    out.info(f"{key} = {_show(typed)} in {file}")
    if not project and (project_file := config.project_config_path()) is not None and key in config.read_file(project_file):
        out.info(f"note: {project_file} sets {key} too and overrides the user's config in this project")
    if os.environ.get(config.env_name(key)) is not None:
        out.info(f"note: {config.env_name(key)} is set and overrides the file")


def unset(key: KeyArg, project: ProjectOpt = False, quiet: QuietOpt = False) -> None:
    """Remove KEY from the config file, so its default (or HYMEM_* variable) applies again.

    Examples:

      hymem config unset writer.model

      hymem config unset search.limit && hymem config get search.limit
    """
    out = Output(quiet)
    file = _target(project)
    with _keeping_trust(project, file):
        removed = config.unset_value(key, file)
    if removed:
        out.info(f"{key} removed from {file}")
    else:
        out.info(f"{key} was not set in {file}")


def list_(fmt: FormatOpt = None) -> None:
    """List every setting: its effective value, where it comes from (default, file, project, env) and what it does.

    Examples:

      hymem config list

      hymem config list -f jsonl | jq -r 'select(.source == "env") | .env'

      hymem config list -f plain | grep ^writer
    """
    rows = config.describe()
    problems = [r for r in rows if r["problem"]]
    columns = [("key", "key"), ("value", "value"), ("source", "source"), ("doc", "meaning")] + ([("problem", "problem")] if problems else [])
    _output.emit(rows, fmt, columns, plain=lambda r: f"{r['key']}\t{_show(r['value'])}\t{r['source']}", main="value")
    for r in problems:
        Output().info(f"{r['key']}: {r['problem']}")


def path(
    bank: Annotated[bool, typer.Option("--bank", help="Print the bank's path instead: the one commands here use.")] = False,
    project: Annotated[bool, typer.Option("--project", help="Print the project's config file instead (exit 1 outside a project).")] = False,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Print the config file's path (it may not exist yet), and say on stderr which bank commands here use and why.

    The bank is chosen by --bank, then HYMEM_BANK, then the nearest .hymem/ directory at or above
    the working directory (`hymem init` makes one), then bank.path, then bank.db in the data
    directory. With --format, one record each for the config, the project config and the bank:
    {what, path, exists, why}.

    Examples:

      hymem config path

      cat "$(hymem config path)"

      hymem config path --bank

      hymem config path -f jsonl | jq -r 'select(.what == "bank") | .why'
    """
    out = Output(quiet)
    if bank and project:
        raise UsageError("give --bank or --project, not both")
    choice = config.locate_bank()
    project_file = config.project_config_path()
    records = [
        {"what": "config", "path": str(config.config_path()), "exists": config.config_path().exists(), "why": "the user's settings"},
        {"what": "project config", "path": str(project_file) if project_file else None, "exists": bool(project_file and project_file.exists()),
         "why": "overrides the user's settings in this project" if project_file else "not in a project (no .hymem/ here or above)"},
        {"what": "bank", "path": str(choice.path), "exists": choice.path.exists(),
         "why": choice.detail + (f"; not used: {choice.refusal}" if choice.refusal else ""), "source": choice.source},
    ]
    if fmt is not None:
        _output.emit(records, fmt, [("what", "what"), ("path", "path"), ("exists", "exists"), ("why", "why")])
        return
    if project:
        if project_file is None:
            out.info("not in a hymem project: no .hymem/ here or above (`hymem init` makes one)")
            raise typer.Exit(1)
        sys.stdout.write(_output.visible(str(project_file), breaks=False) + "\n")  # a path is shown as memory text is
        return
    sys.stdout.write(_output.visible(str(choice.path if bank else config.config_path()), breaks=False) + "\n")
    if project_file is not None and not bank:
        out.info(f"project config: {project_file} (overrides it)")
    out.info(f"bank: {choice.path} ({choice.detail})")
    if choice.refusal:
        out.info(f"not used: {choice.refusal} (`hymem trust` after checking it)")


def edit(quiet: QuietOpt = False) -> None:
    """Open the config file in $VISUAL or $EDITOR (default vi), then check what was saved.

    An invalid file is kept as saved (nothing typed is lost) and reported with exit code 2.

    Examples:

      hymem config edit

      EDITOR=nano hymem config edit && hymem config list
    """
    out = Output(quiet)
    file = config.config_path()
    if not file.exists():
        file.parent.mkdir(parents=True, exist_ok=True)
        file.touch()
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        done = subprocess.run([*shlex.split(editor), str(file)], check=False)
    except (FileNotFoundError, PermissionError):
        raise ConfigError(f"cannot run editor {editor!r}", hint="set VISUAL or EDITOR to an editor command") from None
    if done.returncode != 0:
        raise HymemError(f"editor {editor!r} exited with status {done.returncode}; {file} was not checked")
    try:
        keys = config.check_file(file)
    except ConfigError as exc:
        raise ConfigError(exc.message, hint="run `hymem config edit` again to fix it") from None
    out.info(f"{file}: {len(keys)} setting(s), all valid")


COMMANDS = [("get", get), ("set", set_), ("unset", unset), ("list", list_), ("path", path), ("edit", edit)]
