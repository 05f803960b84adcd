"""`hymem init`: make the working directory a project with its own bank (.hymem/bank.db) and settings (.hymem/config.toml)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from hymem_cli import _output, config
from hymem_cli._errors import UsageError
from hymem_cli.commands._context import Context
from hymem_cli.commands._options import FormatOpt, QuietOpt

PROJECT_CONFIG = """\
# Settings of this project's hymem bank. They override your user config ({user}) and are
# overridden by HYMEM_* variables and flags. `hymem config list` shows where each value comes from.
# The bank of this project is .hymem/bank.db (bank.path cannot be set here).
#
# [writer]
# backend = "openai"
# base_url = "http://localhost:8000/v1"
"""



def init(
    directory: Annotated[Path | None, typer.Argument(help="The project directory, created if missing (default: the working directory).", show_default=False)] = None,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Make a directory a hymem project: .hymem/ with a bank and a project config.

    Every hymem command run in the directory or below it then uses .hymem/bank.db, as git finds .git
    (unless --bank or HYMEM_BANK says otherwise), and .hymem/config.toml overrides your user config.
    The project is recorded as trusted in your user config (see `hymem trust`).
    `hymem mcp` started there serves this bank. .hymem/.gitignore keeps the bank out of git.
    In a project already, it changes nothing and says so (exit 0); inside another project's directory,
    it warns that the new bank hides the outer one.

    Examples:

      hymem init && hymem config path --bank

      hymem init shop && mkdir shop/src && cd shop/src && hymem config path -f jsonl | jq -r 'select(.what == "bank") | .why'

      hymem init -f json | jq -r .bank
    """
    ctx = Context.start(quiet=quiet)
    root = (directory or Path.cwd()).expanduser().absolute()
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} is not a directory", hint="give a directory, or run hymem init inside one")
    project = root / config.PROJECT_DIR
    if project.absolute() == config.data_dir().absolute():
        raise UsageError(f"{project} is hymem's data directory (HYMEM_HOME)", hint="run hymem init in another directory")
    record = {"project": str(project), "bank": str(project / "bank.db"), "config": str(project / "config.toml")}
    if project.is_dir():  # idempotent, so `hymem init && hymem config set --project ...` runs twice
        if fmt is not None:
            _output.emit_one(record, fmt)
        ctx.out.info(f"already a project: {_shown(project, root)}/ (its bank is {project / 'bank.db'}); nothing changed")
        if not config.project_trust(project).config_trusted:  # made by someone else: trusting it is `hymem trust`'s, after a look
            ctx.out.info("note: this project is not trusted yet; check .hymem/config.toml, then run `hymem trust`")
        return
    if project.exists():
        raise UsageError(f"{project} exists and is not a directory", hint="move it away, then run hymem init again")
    outer = config.find_project(root)
    root.mkdir(parents=True, exist_ok=True)  # like `git init DIR`
    project.mkdir(mode=0o700)
    (project / "config.toml").write_text(PROJECT_CONFIG.format(user=config.config_path()), encoding="utf-8")
    bank = ctx.memory.open_bank(create=True, path=project / "bank.db")  # the schema now (and .gitignore); the embedder is recorded by the first add
    bank.close()
    config.record_trust(project)  # made here by this user: trusted, as `git init` makes a repository one's own
    if fmt is not None:
        _output.emit_one(record, fmt)
    ctx.out.info(f"initialised {_shown(project, root)}/: bank.db, config.toml; commands in {root} and below now use this bank")
    if outer is not None:
        ctx.out.warn(f"{root} is inside the project {outer.parent}: commands here and below now use the new bank, not {outer / 'bank.db'}; "
                     f"to use that one instead, remove {project} (or pass --bank {outer / 'bank.db'})")
    if os.environ.get("HYMEM_BANK"):
        ctx.out.info("note: HYMEM_BANK is set and overrides the project's bank while it is")


def _shown(project: Path, root: Path) -> str:
    return os.path.relpath(project) if root == Path.cwd().absolute() else str(project)
