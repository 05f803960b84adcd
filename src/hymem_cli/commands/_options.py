"""Options shared by several commands, declared once."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli._output import Format

BankOpt = Annotated[
    Optional[str],
    typer.Option("--bank", "-b", envvar="HYMEM_BANK", help="Bank file (default: bank.db in the data directory; HYMEM_HOME relocates it).", show_default=False),
]
FormatOpt = Annotated[
    Optional[Format],
    typer.Option("--format", "-f", help="Output format (default: table on a terminal, jsonl in a pipe).", show_default=False),
]
LimitOpt = Annotated[Optional[int], typer.Option("--limit", "-n", min=1, help="Maximum number of results.", show_default=False)]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No messages on stderr, only records and errors.")]
