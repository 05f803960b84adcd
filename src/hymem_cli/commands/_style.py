"""hymem's voice for Typer's own help and usage errors: `N ≥ 16` instead of `<int range> [x>=16]`, one error line.

Only Typer's public classes are used (typer.core.TyperCommand/TyperGroup, TyperException): help text
is rewritten after Typer renders it, and a usage error is rewritten from its message.
"""

from __future__ import annotations

import re
import sys

import typer
from typer.core import TyperCommand, TyperGroup
from typer.exceptions import TyperException

from hymem_cli._errors import EXIT_USAGE

# Typer's type labels in help, and what hymem calls them.
_TYPE_LABELS = [
    (re.compile(r"(\S+)\.\.\. <list\[str\]>"), lambda m: f"{m.group(1).upper().rstrip('S')}..."),  # files... <list[str]> -> FILE...
    (re.compile(r" <list\[str\]>"), lambda m: " TEXT"),  # a repeatable option
    (re.compile(r" <int range>"), lambda m: " N"),
    (re.compile(r"<(\w+(?:\|\w+)+)>"), lambda m: "{" + m.group(1).replace("|", ",") + "}"),  # choices
    (re.compile(r"\[x>=(-?\d+)\]"), lambda m: f"[N ≥ {m.group(1)}]"),
    (re.compile(r"x>=(-?\d+)"), lambda m: f"N ≥ {m.group(1)}"),
]
# The value an option takes is named; an argument's name says it already.
_OPTION_VALUES = [(re.compile(rf" <{t}>"), lambda m, label=label: f" {label}") for t, label in (("int", "N"), ("float", "X"), ("str", "TEXT"))]
_ARGUMENT_VALUES = [(re.compile(r"(?<=\w) <[\w \[\]|]+>"), lambda m: "")]
_USAGE_ARG = re.compile(r"\{(\w+)\}(\.\.\.)?|\[([a-z_]+)\](\.\.\.)?")
_ARGUMENT_ROW = re.compile(r"^(  )([a-z_]+)(\s{2,}|$)")  # "  query  What to look for" in the Arguments section


def _usage(text: str) -> str:
    """`{query}` -> `QUERY`, `[files]...` -> `[FILE...]` in a usage line."""

    def one(m: re.Match) -> str:
        if m.group(1):
            name = m.group(1).upper()
            return f"{name.rstrip('S')}..." if m.group(2) else name
        name = m.group(3).upper()
        return f"[{name.rstrip('S')}...]" if m.group(4) else f"[{name}]"

    return _USAGE_ARG.sub(one, text)


def _keep_width(pattern: re.Pattern, replace, line: str) -> str:
    """Replace, padding with spaces where the help's columns would otherwise shift."""

    def one(m: re.Match) -> str:
        new = replace(m)
        follows = line[m.end():m.end() + 2]
        return new + " " * (len(m.group(0)) - len(new)) if follows == "  " and len(new) < len(m.group(0)) else new

    return pattern.sub(one, line)


def help_text(text: str) -> str:
    out, section = [], ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            section = line.rstrip(":")
        if line.lstrip().startswith("Usage:"):
            line = _usage(line)
        for pattern, replace in (_ARGUMENT_VALUES + _TYPE_LABELS) if section == "Arguments" else (_TYPE_LABELS + _OPTION_VALUES):
            line = _keep_width(pattern, replace, line)
        if section == "Arguments":
            line = _ARGUMENT_ROW.sub(lambda m: m.group(1) + m.group(2).upper() + m.group(3), line)
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def usage_message(message: str) -> str:
    """A usage error as one plain sentence, without the framework's wording."""
    m = re.match(r"No such command '(.+?)'\.(?: Did you mean (.+)\?)?", message)
    if m:
        close = [c.strip(" '") for c in (m.group(2) or "").split(",") if c.strip()]
        return f"unknown command {m.group(1)!r}" + (f"; did you mean {' or '.join(close)}?" if close else "")
    m = re.match(r"No such option: (\S+)(?: \(Possible options: (.+)\)| Did you mean (\S+)\?)?", message)
    if m:
        close = [c.strip() for c in (m.group(2) or m.group(3) or "").split(",") if c.strip()]
        return f"unknown option {m.group(1)}" + (f"; did you mean {close[0]}?" if close else "")
    m = re.match(r"Missing (argument|option) '(.+?)'", message)
    if m:
        name = _usage(m.group(2))
        return f"missing {m.group(1)} {name.upper() if m.group(1) == 'argument' else name}"
    m = re.match(r"Invalid value for '([^']+)'(?: / '[^']+')?: (.*)", message, re.S)
    if m:
        name, why = _usage(m.group(1)), m.group(2).strip().removeprefix("Value error, ").rstrip(".")
        if (c := re.match(r"(.+?) is not one of (.+)", why)) is not None:
            return f"{name}: {c.group(1)} is not one of {', '.join(x.strip(chr(39)) for x in c.group(2).split(', '))}"
        if (n := re.match(r"Input should be (greater|less) than or equal to (-?[\d.]+)", why)) is not None:
            return f"{name} must be {'≥' if n.group(1) == 'greater' else '≤'} {n.group(2)}"
        if why.startswith("Input should be a valid integer"):
            return f"{name} must be a whole number"
        if why.startswith("Input should be a valid number"):
            return f"{name} must be a number"
        return f"{name}: {why}"
    return message.rstrip(".")


def _fail(exc: Exception, ctx) -> None:
    """Print a usage error as hymem's one line and exit 2."""
    command = ctx.command_path if ctx is not None else "hymem"
    sys.stderr.write(f"hymem: error: {usage_message(exc.format_message())} (hint: see `{command} --help`)\n")
    sys.stderr.flush()
    raise typer.Exit(EXIT_USAGE)


def _usage_error(exc: Exception) -> bool:
    return isinstance(exc, TyperException) and getattr(exc, "exit_code", None) == EXIT_USAGE and hasattr(exc, "format_message")


class _HymemVoice:
    """Help in hymem's words, and a usage error as its one line (mixed into Typer's command and group classes)."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except TyperException as exc:
            if not _usage_error(exc):
                raise
            _fail(exc, getattr(exc, "ctx", None) or parent)

    def get_help(self, ctx) -> str:
        return help_text(super().get_help(ctx))

    def get_usage(self, ctx) -> str:
        return help_text(super().get_usage(ctx))


class HymemCommand(_HymemVoice, TyperCommand):
    pass


class HymemGroup(_HymemVoice, TyperGroup):
    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except TyperException as exc:
            if not _usage_error(exc):
                raise
            _fail(exc, ctx)
