"""Options shared by several commands, declared once."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from hymem_cli import config
from hymem_cli._errors import UsageError
from hymem_cli._output import Format
from hymem_cli.ingest.readers import FORMATS

BankOpt = Annotated[
    Optional[str],
    typer.Option("--bank", "-b", envvar="HYMEM_BANK", help="Bank file (default: the nearest .hymem/bank.db above the working directory, else bank.db in the data directory).", show_default=False),
]
FormatOpt = Annotated[
    Optional[Format],
    typer.Option("--format", "-f", help="Output format (default: table on a terminal, jsonl in a pipe).", show_default=False),
]
MAX_LIMIT = int(config.MAXIMUM["search.limit"])  # more results than any bank answers usefully; SQLite's integers end at 2**63
LimitOpt = Annotated[Optional[int], typer.Option("--limit", "-n", min=1, max=MAX_LIMIT, help="Maximum number of results.", show_default=False)]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No messages on stderr, only records and errors.")]

# The writer and the transcripts, for every command that ingests (add, eval).
BackendOpt = Annotated[Optional[str], typer.Option("--backend", help="Writer backend: llama, openai (or scripted, for tests).", show_default=False)]
BaseUrlOpt = Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8000/v1.", show_default=False)]
PipelineOpt = Annotated[
    Optional[str], typer.Option("--pipeline", help="single (one writer call per chunk) or two-pass (extract, then reconcile).", show_default=False)
]
ProtocolOpt = Annotated[
    Optional[str],
    typer.Option("--protocol", help="Writer protocol: hy-memory (the Hy-Memory SDK's own prompts), hymem, or auto (hy-memory for a Hy-Memory model).",
                 show_default=False),
]
UserOpt = Annotated[Optional[str], typer.Option("--user", help="The speaker who is \"the user\", whose own words may set the agent a rule (default: the first who is not an assistant).",
                                                show_default=False)]
ChunkTokensOpt = Annotated[Optional[int], typer.Option("--chunk-tokens", min=16, help="Token budget of one chunk.", show_default=False)]
InputFormatOpt = Annotated[
    Optional[str], typer.Option("--input-format", "-i", help=f"Force the transcript format: {', '.join(FORMATS)}.", show_default=False)
]


def check_input_format(value: str | None) -> str | None:
    if value is not None and value not in FORMATS:
        raise UsageError(f"--input-format {value!r} is not one of {', '.join(FORMATS)}", hint="or leave it out to detect the format")
    return value
