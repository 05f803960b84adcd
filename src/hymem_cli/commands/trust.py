"""`hymem trust`: let a project folder's .hymem/ set the writer and screens and use its bank, as git's safe.directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from hymem_cli import _output, config, trust
from hymem_cli._errors import UsageError
from hymem_cli._output import Output
from hymem_cli.commands._options import FormatOpt, QuietOpt


def trust_(
    directory: Annotated[Optional[Path], typer.Argument(help="The project's folder, or any folder inside it (default: the working directory).",
                                                        show_default=False)] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the projects you trust, and whether each config is still the one you trusted.")] = False,
    revoke: Annotated[bool, typer.Option("--revoke", help="Stop trusting the project.")] = False,
    fmt: FormatOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Trust a project: its .hymem/config.toml may then set every key, and its .hymem/bank.db is used.

    A project folder you did not make yourself (a cloned repository) is not trusted: its config may
    only change search, chunking and embedding options, and its bank is not used. Settings that
    could send your transcripts elsewhere or switch a screen off (writer.*, screen.*, embed.model,
    bank.*, model.*) apply only after you read the file and trust the project. `hymem init` trusts
    the project it makes. The record keeps a fingerprint of the config: when the file changes (a
    `git pull`), its settings are ignored again until you trust it again. An API key is never sent
    to a writer URL that a project's config set, and embed.model from a project is a packaged
    model's name, never a path.

    Examples:

      hymem init shop && cat shop/.hymem/config.toml && hymem trust shop -f json | jq -r .status

      hymem trust --list -f jsonl | jq -r 'select(.status != "trusted") | .project'

      hymem trust ~/src/shop --revoke
    """
    out = Output(quiet)
    if list_:
        if revoke or directory is not None:
            raise UsageError("--list takes no folder and no --revoke", hint="hymem trust --list")
        rows = [_status(root, record) for root, record in sorted(config.trust_records().items())]
        _output.emit(rows, fmt, [("project", "project"), ("status", "status")], plain=lambda r: f"{r['project']}\t{r['status']}")
        return
    start = (directory or Path.cwd()).expanduser().absolute()
    if revoke:
        project = config.find_project(start)
        root = project.parent if project is not None else start
        if config.revoke_trust(root):
            out.info(f"{root} is no longer trusted: its config may change only search, chunking and embedding options, and its bank is not used")
        else:
            out.info(f"{root} was not trusted")
        return
    project = config.find_project(start)
    if project is None:
        raise UsageError(f"{start} is not in a hymem project (no .hymem/ there or above)", hint="run `hymem init` to make one")
    risky = {k: v for k, v in config.check_file(project / "config.toml").items() if k not in trust.PROJECT_SAFE}
    record = config.record_trust(project)
    refused_model = "embed.model" in risky and not trust.ProjectTrust(project, record).allows("embed.model", risky["embed.model"])
    for key, value in risky.items():
        out.info(f"  {key} = {value!r}" + ("  (not applied: a project's embed.model must name a packaged model)" if key == "embed.model" and refused_model else ""))
    where = f"{project / 'config.toml'} ({len(risky)} setting(s) beyond search and display)" if risky else "its config"
    out.info(f"trusted {project.parent}: {where} and {project / 'bank.db'} now apply; a change to the config needs `hymem trust` again")
    if fmt is not None:
        _output.emit_one({**_status(trust.root_key(project), record), "settings": sorted(risky)}, fmt)


def _status(root: str, record: trust.TrustRecord) -> dict:
    """One trust record as `--list` shows it: still trusted, its config changed since, or its folder gone."""
    project = Path(root) / config.PROJECT_DIR
    if not project.is_dir():
        status = "missing"
    elif record.config != trust.fingerprint(project / "config.toml"):
        status = "config changed"
    else:
        status = "trusted"
    return {"project": root, "status": status, "config": record.config, "bank": record.bank}
