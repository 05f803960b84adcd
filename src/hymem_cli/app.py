"""The Typer app: wiring commands to names, and mapping errors to one line and an exit code."""

from __future__ import annotations

import functools
import os
import sys

import typer
from typer.exceptions import TyperException

from hymem_cli import __version__, _output
from hymem_cli._errors import EXIT_CODES, EXIT_INTERRUPTED, HymemError
from hymem_cli.commands import (
    add,
    apply,
    config_cmd,
    diff,
    doctor,
    eval_cmd,
    history,
    hook,
    init,
    install,
    mcp,
    model,
    queue,
    reembed,
    revert,
    search,
    serve,
    stats,
    transfer,
    trust,
)
from hymem_cli.commands._context import closing_memories
from hymem_cli.commands._style import HymemCommand, HymemGroup


class Command(HymemCommand):
    """A command whose mistyped option gets the closest one as its suggestion (`add --rwa`: --raw), where Typer
    lists the close ones alphabetically and the first would be taken (--format)."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except TyperException as exc:
            close = getattr(exc, "possibilities", None)  # best first, as difflib ranks them
            if close:
                exc.possibilities = [close[0]]
            raise


EPILOG = "Exit codes: " + "; ".join(f"{code} {text}" for code, text in EXIT_CODES.items())

app = typer.Typer(
    name="hymem",
    cls=HymemGroup,
    help="A local, inspectable long-term memory bank for AI agents, written by a memory-writer model.",
    epilog=EPILOG,
    no_args_is_help=True,
    add_completion=False,  # completions/ ships static scripts: completing never starts Python
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def guarded(fn):
    """Run a command, turning hymem's errors into one stderr line and their exit code."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            with closing_memories():
                return fn(*args, **kwargs)
        except HymemError as exc:
            if os.environ.get("HYMEM_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):  # HYMEM_DEBUG=0 is off
                raise
            hint = f" (hint: {exc.hint})" if exc.hint else ""
            _output.error(f"hymem: error: {exc.message}{hint}".replace("\r", "\\r").replace("\n", "\\n"))  # always one line
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            _output.error("hymem: interrupted; chunks already committed are kept (re-run to resume)")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except BrokenPipeError:
            # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(0) from None

    return run


def _version(value: bool) -> None:
    if value:
        print(f"hymem {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    """hymem keeps what an agent should remember in one SQLite file, and shows every change."""


for name, fn in [
    ("add", add.add),
    ("write", queue.write),
    ("status", queue.status),
    ("search", search.search),
    ("serve", serve.serve),
    ("mcp", mcp.mcp),
    ("apply", apply.apply),
    ("history", history.history),
    ("show", history.show),
    ("log", history.log),
    ("diff", diff.diff),
    ("export", transfer.export),
    ("import", transfer.import_),
    ("revert", revert.revert),
    ("forget", revert.forget),
    ("init", init.init),
    ("trust", trust.trust_),
    ("stats", stats.stats),
    ("reembed", reembed.reembed),
    ("doctor", doctor.doctor),
    ("eval", eval_cmd.eval_),
    ("hook", hook.hook),
    ("install", install.install),
]:
    app.command(name, cls=Command)(guarded(fn))

config_app = typer.Typer(help=config_cmd.HELP, cls=HymemGroup, no_args_is_help=True, rich_markup_mode=None,
                         context_settings={"help_option_names": ["-h", "--help"]})
for name, fn in config_cmd.COMMANDS:
    # `config set search.limit -5` and `config set writer.n_gpu_layers -1`: a negative value is a value, not an option
    extra = {"context_settings": {"ignore_unknown_options": True}} if name == "set" else {}
    config_app.command(name, cls=Command, **extra)(guarded(fn))
app.add_typer(config_app, name="config")

model_app = typer.Typer(help=model.HELP, cls=HymemGroup, no_args_is_help=True, rich_markup_mode=None,
                        context_settings={"help_option_names": ["-h", "--help"]})
for name, fn in model.COMMANDS:
    model_app.command(name, cls=Command)(guarded(fn))
app.add_typer(model_app, name="model")


def main() -> None:
    app()
