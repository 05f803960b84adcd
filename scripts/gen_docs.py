#!/usr/bin/env python3
"""Generate hymem's man page, static shell completions and README command reference from the Typer app.

    python scripts/gen_docs.py           # write man/hymem.1, completions/hymem.{bash,zsh,fish}, README.md
    python scripts/gen_docs.py --check   # exit 1, naming the stale files, when any differs (CI drift check)

Everything comes from one walk of `typer.main.get_command(app)`: commands, subcommands, their
docstrings (which carry the examples), arguments and options. The completion scripts are static,
so completing never starts Python and never imports a model library.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import typer.main
from typer import _click  # Typer's own Click copy: only for a Context to ask params for completions

from hymem_cli import __version__, config
from hymem_cli._errors import EXIT_CODES
from hymem_cli.app import app
from hymem_cli.ingest.readers import FORMATS
from hymem_cli.screen.provenance import ALL_ORIGINS
from hymem_cli.writer import models

README_START, README_END = "<!-- commands:start -->", "<!-- commands:end -->"

# Choices that the code checks itself (the options are typed str), by parameter name.
EXTRA_CHOICES: dict[str, list[str]] = {
    "input_format": list(FORMATS),
    "backend": [c for c in config.CHOICES["writer.backend"] if c],
    "pipeline": list(config.CHOICES["writer.pipeline"]),
    "key": list(config.KEYS),  # `hymem config get|set|unset KEY`
    "protocol": list(config.CHOICES["writer.protocol"]),
    "origin": list(ALL_ORIGINS),  # `hymem search --origin`
}


def config_values() -> dict[str, tuple[str, list[str]]]:
    """What `hymem config set KEY <TAB>` offers, by key: ("words", choices), ("models", []) or ("files", [])."""
    from hymem_cli.embed import ALIASES

    values: dict[str, tuple[str, list[str]]] = {}
    for key, (default, _) in config.KEYS.items():
        if key in config.CHOICES:
            values[key] = ("words", [c for c in config.CHOICES[key] if c])
        elif isinstance(default, bool):
            values[key] = ("words", ["true", "false"])
    values["writer.model"] = ("models", [])
    values["embed.model"] = ("words", [a for a, name in ALIASES.items() if a != name.lower() and "/" not in a])  # minilm, mpnet
    values["bank.path"] = ("files", [])
    return values
# Parameters that name files (the code takes them as str), by parameter name.
FILE_PARAMS = {"files", "file", "ops_file", "output", "bank", "model", "name"}
# Parameters that name a writer model: completed from the models directory (a directory listing, no Python).
MODEL_PARAMS = {"model", "name"}
MODELS_ROOT = '"${HYMEM_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/hymem}/models"'
MODELS_FIND = "find . -name '*.gguf' ! -path '*/.cache/*' 2>/dev/null | sed 's|^\\./||'"
# Typer's own dynamic-completion installers: the static scripts here replace them.
SKIPPED_PARAMS = {"install_completion", "show_completion"}

EXAMPLES = [
    ("Store a chat as it is, then search it",
     "hymem add --raw examples/alex.jsonl\nhymem search \"where does Alex live\" --format jsonl | jq -r .text"),
    ("Let a local memory-writer model decide what to keep",
     "MODEL=$(hymem model pull --quant Q4_K_M -f json | jq -r .path)\nhymem add --model \"$MODEL\" chat.jsonl"),
    ("Or a served one (vLLM, llama-server)",
     "hymem config set writer.backend openai\nhymem config set writer.base_url http://localhost:8000/v1\ncat chat.jsonl | hymem add -"),
    ("See how a fact changed, and what the last ingest did", "hymem history m12\nhymem diff"),
    ("Check the installation and the bank", "hymem doctor -f jsonl | jq -c 'select(.status != \"ok\")'"),
]


# -- the command tree -------------------------------------------------------------------------


@dataclass
class Param:
    kind: str  # "option" or "argument"
    name: str
    opts: list[str]
    help: str
    required: bool
    flag: bool
    variadic: bool
    metavar: str
    choices: list[str]
    is_file: bool
    is_model: bool = False  # completes model names (packaged, and GGUFs in the models directory) as well as files

    @property
    def long(self) -> str:
        return next((o for o in self.opts if o.startswith("--")), self.opts[0])

    @property
    def short(self) -> str | None:
        return next((o for o in self.opts if not o.startswith("--")), None)


@dataclass
class Command:
    path: list[str]
    help: str
    params: list[Param]
    subcommands: list[Command] = field(default_factory=list)

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def is_group(self) -> bool:
        return bool(self.subcommands)

    @property
    def summary(self) -> str:
        return paragraphs(self.help)[0][1] if self.help else ""

    @property
    def options(self) -> list[Param]:
        return [p for p in self.params if p.kind == "option"]

    @property
    def arguments(self) -> list[Param]:
        return [p for p in self.params if p.kind == "argument"]

    def usage(self) -> str:
        words = ["hymem", *self.path]
        if self.options:
            words.append("[OPTIONS]")
        if self.is_group:
            words.append("COMMAND [ARGS]...")
        for a in self.arguments:
            shown = a.metavar + ("..." if a.variadic else "")
            words.append(shown if a.required else f"[{shown}]")
        return " ".join(words)

    def walk(self):
        yield self
        for sub in self.subcommands:
            yield from sub.walk()


def _param(click_param, ctx) -> Param:
    kind = click_param.param_type_name
    items = click_param.shell_complete(ctx, "")
    choices = [i.value for i in items if i.type == "plain"] or EXTRA_CHOICES.get(click_param.name, [])
    is_file = any(i.type in ("file", "dir") for i in items) or click_param.name in FILE_PARAMS
    opts = list(click_param.opts) + list(click_param.secondary_opts)
    if kind == "option":
        opts.sort(key=lambda o: (o.startswith("--"), o))  # -b before --bank
        metavar = click_param.metavar or opts[-1].lstrip("-").upper().replace("-", "_")
    else:
        metavar = click_param.metavar or click_param.name.upper()
    return Param(
        kind=kind,
        name=click_param.name,
        opts=opts,
        help=" ".join((click_param.help or "").split()),
        required=bool(click_param.required),
        flag=bool(getattr(click_param, "is_flag", False)),
        variadic=click_param.nargs == -1 or bool(getattr(click_param, "multiple", False)),
        metavar=metavar,
        choices=list(choices),
        is_file=is_file,
        is_model=click_param.name in MODEL_PARAMS,
    )


def build_tree() -> Command:
    root = typer.main.get_command(app)

    def convert(cmd, path: list[str]) -> Command:
        ctx = _click.Context(cmd, info_name=path[-1] if path else "hymem")
        params = [_param(p, ctx) for p in cmd.params if not p.hidden and p.name not in SKIPPED_PARAMS]
        node = Command(path=path, help=(cmd.help or "").strip(), params=params)
        for name, sub in getattr(cmd, "commands", {}).items():
            if not sub.hidden:
                node.subcommands.append(convert(sub, [*path, name]))
        return node

    return convert(root, [])


def paragraphs(text: str) -> list[tuple[str, str]]:
    """A docstring as ("text", joined paragraph) and ("example", literal lines) blocks."""
    blocks: list[tuple[str, str]] = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if all(line.startswith((" ", "\t")) for line in lines if line.strip()):
            blocks.append(("example", "\n".join(line.strip() for line in lines)))
        else:
            blocks.append(("text", " ".join(line.strip() for line in lines)))
    return blocks or [("text", "")]


# -- man page -----------------------------------------------------------------------------------


def roff(text: str) -> str:
    """Text safe for a roff text line: backslashes, hyphens, and a leading dot or quote escaped."""
    out = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line for line in out.split("\n"))


def roff_arg(text: str) -> str:
    """Text for a quoted macro argument."""
    return '"' + roff(text).replace('"', "\\(dq") + '"'


def _man_help(help_text: str) -> list[str]:
    out = []
    for kind, body in paragraphs(help_text):
        if kind == "example":
            out += [".PP", ".RS 4", ".nf", roff(body), ".fi", ".RE"]
        elif body == "Examples:":
            out += [".PP", "Examples:"]
        else:
            out += [".PP", roff(body)]
    return out


def _choices_note(p: Param) -> str:
    """" One of: a, b." unless the help already names every choice (or they are config keys)."""
    if not p.choices or p.name == "key" or all(c in p.help for c in p.choices):
        return ""
    return f" One of: {', '.join(p.choices)}."


def _man_param(p: Param) -> list[str]:
    if p.kind == "argument":
        head = f"\\fI{roff(p.metavar)}\\fR" + ("..." if p.variadic else "")
    else:
        head = ", ".join(f"\\fB{roff(o)}\\fR" for o in p.opts)
        if not p.flag:
            head += f" \\fI{roff(p.metavar)}\\fR"
    text = p.help
    text += _choices_note(p)
    if p.required and p.kind == "option":
        text += " Required."
    return [".TP", head, roff(text)]


def man_page(tree: Command) -> str:
    lines = [
        f'.TH HYMEM 1 "" "hymem {roff(__version__)}" "User Commands"',
        ".nh",  # no hyphenation: keys, paths and options must stay whole
        ".ad l",
        ".SH NAME",
        f"hymem \\- {roff(tree.help[0].lower() + tree.help[1:].rstrip('.'))}",
        ".SH SYNOPSIS",
        ".B hymem",
        "[\\fB\\-\\-version\\fR] [\\fB\\-h\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]...",
        ".SH DESCRIPTION",
        roff(
            "hymem reads conversation transcripts, asks a memory-writer model what to add, refine, supersede "
            "or retract, and keeps every version of every memory in one SQLite file with full-text and vector "
            "indexes. Nothing is overwritten: history, diff and log show every change, and revert undoes one."
        ),
        ".PP",
        roff("Records go to stdout: a table on a terminal, JSON Lines in a pipe, or what --format asks for. "
             "Messages, hints and progress go to stderr. Every command accepts -h and --help."),
        ".SH OPTIONS",
    ]
    for p in tree.options:
        lines += _man_param(p)
    lines += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "Show help and exit."]
    lines.append(".SH COMMANDS")
    for cmd in tree.walk():
        if not cmd.path:
            continue
        lines += [f".SS {roff_arg(cmd.usage())}"]
        lines += _man_help(cmd.help)
        if cmd.is_group:
            lines += [".PP", "Commands: " + roff(", ".join(s.path[-1] for s in cmd.subcommands)) + "."]
        if cmd.params:
            lines += [".PP", "Arguments and options:" if cmd.arguments else "Options:", ".RS 4"]
            for p in cmd.params:
                lines += _man_param(p)
            lines.append(".RE")
    lines += [".SH ENVIRONMENT"]
    env = [
        ("HYMEM_HOME",
         "Keep everything (config.toml, bank.db, models/) in this directory instead of the platform's config and data directories."),
    ]
    env += [(config.env_name(k), f"{doc} (config key {k}, default: {default if default != '' else 'empty'})") for k,
            (default, doc) in config.KEYS.items()]
    env += [
        (models.REPO_ENV, f"Repository `hymem model pull` downloads from when none is given (default: {models.DEFAULT_REPO})."),
        ("HF_ENDPOINT, HF_TOKEN", "Hugging Face Hub mirror and access token, for `hymem model pull`."),
        ("NO_COLOR", "When set, no colours in tables and messages."),
        ("HYMEM_DEBUG", "When set, errors show their Python traceback instead of one line."),
    ]
    for name, doc in env:
        lines += [".TP", f"\\fB{roff(name)}\\fR", roff(doc)]
    lines += [
        ".SH FILES",
        ".TP", "\\fI$HYMEM_HOME/config.toml\\fR",
              roff("Settings (else the platform config directory, e.g. ~/.config/hymem/config.toml); see hymem config."),
        ".TP", "\\fI$HYMEM_HOME/bank.db\\fR",
              roff("The default bank (else bank.db in the platform data directory, e.g. ~/.local/share/hymem)."),
        ".TP", "\\fI$HYMEM_HOME/models/\\fR", roff("GGUF writer models; hymem model pull downloads here, hymem model list shows them."),
        ".TP", "\\fI.hymem/\\fR",
              roff("A project (hymem init): its bank.db, used by every command in that directory or below unless --bank or HYMEM_BANK "
                   "says otherwise, and its config.toml, which overrides the user's settings (HYMEM_* and flags override it)."),
        ".TP", "\\fI$HYMEM_HOME/cache/\\fR",
              roff("Files hymem can rebuild: the embedder's torch-free copies and the writer's saved KV state "
                   "(HYMEM_CACHE moves it; else the platform cache directory, e.g. ~/.cache/hymem)."),
        ".SH EXIT STATUS",
    ]
    for code, meaning in EXIT_CODES.items():
        lines += [".TP", f"\\fB{code}\\fR", roff(meaning)]
    lines.append(".SH EXAMPLES")
    for title, body in EXAMPLES:
        lines += [".PP", roff(title + ":"), ".RS 4", ".nf", roff(body), ".fi", ".RE"]
    lines += [".SH SEE ALSO", "\\fBsqlite3\\fR(1), \\fBjq\\fR(1)", ""]
    return "\n".join(lines)


# -- completions ----------------------------------------------------------------------------------


def _bash_words(items) -> str:
    return " ".join(items)


def bash_completion(tree: Command) -> str:
    cmds = [c for c in tree.walk()]
    subs = [f'        "{c.name}") echo "{_bash_words(s.path[-1] for s in c.subcommands)}" ;;' for c in cmds if c.is_group]
    opts = [f'        "{c.name}") echo "{_bash_words(o for p in c.options for o in p.opts)} -h --help" ;;' for c in cmds]
    takes = [f'        "{c.name}") echo "{_bash_words(o for p in c.options if not p.flag for o in p.opts)}" ;;' for c in cmds
             if any(not p.flag for p in c.options)]
    values = []
    for c in cmds:
        for p in c.options:
            if p.flag:
                continue
            pattern = "|".join(f'"{c.name}:{o}"' for o in p.opts)
            if p.choices:
                values.append(f"        {pattern}) echo \"words {_bash_words(p.choices)}\" ;;")
            elif p.is_model:
                values.append(f'        {pattern}) echo "models" ;;')
            elif p.is_file:
                values.append(f'        {pattern}) echo "files" ;;')
            else:
                values.append(f'        {pattern}) echo "none" ;;')
    args = []
    for c in cmds:
        if c.is_group or not c.arguments:
            continue
        a = c.arguments[0]
        if a.choices:
            args.append(f'        "{c.name}") echo "words {_bash_words(a.choices)}" ;;')
        elif a.is_model:
            args.append(f'        "{c.name}") echo "models" ;;')
        elif any(x.is_file for x in c.arguments):
            args.append(f'        "{c.name}") echo "files" ;;')
    config_set = []
    for key, (kind, words) in config_values().items():
        config_set.append(f'        "{key}") echo "{kind}{" " + _bash_words(words) if words else ""}" ;;')
    return f"""# bash completion for hymem                                  -*- shell-script -*-
# Generated by scripts/gen_docs.py from the Typer app; do not edit. Static: completing never runs Python
# (model names come from a listing of the models directory).
# Install: source this file, or copy it to ~/.local/share/bash-completion/completions/hymem

_hymem_subcommands() {{
    case "$1" in
{chr(10).join(subs)}
    esac
}}

_hymem_options() {{
    case "$1" in
{chr(10).join(opts)}
    esac
}}

_hymem_value_options() {{
    case "$1" in
{chr(10).join(takes)}
    esac
}}

_hymem_option_values() {{
    case "$1:$2" in
{chr(10).join(values)}
        *) echo "none" ;;
    esac
}}

_hymem_arguments() {{
    case "$1" in
{chr(10).join(args)}
        *) echo "none" ;;
    esac
}}

_hymem_config_values() {{
    case "$1" in
{chr(10).join(config_set)}
        *) echo "none" ;;
    esac
}}

_hymem_models() {{
    echo "{' '.join(models.PACKAGED_MODELS)}"
    (cd {MODELS_ROOT} 2>/dev/null && {MODELS_FIND})
}}

_hymem_in() {{
    local word="$1" item
    shift
    for item in $*; do
        [[ "$item" == "$word" ]] && return 0
    done
    return 1
}}

_hymem() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" path="" word i first="" npos=0
    (( COMP_CWORD > 0 )) && prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    COMPREPLY=()
    # Find the (sub)command typed so far, skipping options and the values they take, and count its arguments.
    for (( i = 1; i < COMP_CWORD; i++ )); do
        word="${{COMP_WORDS[i]}}"
        if [[ "$word" == -* ]]; then
            _hymem_in "$word" "$(_hymem_value_options "$path")" && (( i++ ))
            continue
        fi
        if _hymem_in "$word" "$(_hymem_subcommands "$path")"; then
            path="${{path:+$path }}$word"
        else
            (( npos == 0 )) && first="$word"
            npos=$((npos + 1))
        fi
    done

    local spec
    if [[ "$prev" == -* ]] && _hymem_in "$prev" "$(_hymem_value_options "$path")"; then
        spec="$(_hymem_option_values "$path" "$prev")"
        case "$spec" in
            words\\ *) COMPREPLY=( $(compgen -W "${{spec#words }}" -- "$cur") ) ;;
            files) compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$cur") ) ;;
            models) COMPREPLY=( $(compgen -W "$(_hymem_models)" -- "$cur") $(compgen -f -- "$cur") ) ;;
        esac
        return 0
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=( $(compgen -W "$(_hymem_options "$path")" -- "$cur") )
        return 0
    fi
    local subs
    subs="$(_hymem_subcommands "$path")"
    if [[ -n "$subs" ]]; then
        COMPREPLY=( $(compgen -W "$subs" -- "$cur") )
        return 0
    fi
    spec="$(_hymem_arguments "$path")"
    [[ "$path" == "config set" ]] && (( npos == 1 )) && spec="$(_hymem_config_values "$first")"  # the value of the key typed
    case "$spec" in
        words\\ *) COMPREPLY=( $(compgen -W "${{spec#words }}" -- "$cur") ) ;;
        files) compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$cur") ) ;;
        models) COMPREPLY=( $(compgen -W "$(_hymem_models)" -- "$cur") $(compgen -f -- "$cur") ) ;;
    esac
    return 0
}}

complete -F _hymem hymem
"""


def _zq(text: str) -> str:
    """Inside single quotes in zsh."""
    return text.replace("'", "'\\''")


def _zdesc(text: str) -> str:
    """An _arguments description: brackets and colons escaped."""
    return _zq(text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:"))


def _zaction(p: Param) -> str:
    if p.choices:
        return "(" + " ".join(_zq(c) for c in p.choices) + ")"
    if p.is_model:
        return "_hymem_models"
    if p.is_file:
        return "_files"
    return " "


def _zvalues(kind: str, words: list[str]) -> str:
    """What zsh offers for a config key's value: its words, the models, or files."""
    return "compadd -- " + " ".join(_zq(w) for w in words) if kind == "words" else "_hymem_models" if kind == "models" else "_files"


def _zfunc(c: Command) -> str:
    return "_hymem" + "".join("_" + re.sub(r"\W", "_", w) for w in c.path)


def zsh_completion(tree: Command) -> str:
    out = [
        "#compdef hymem",
        "# zsh completion for hymem. Generated by scripts/gen_docs.py from the Typer app; do not edit.",
        "# Static: completing never runs Python. Install: put this file on $fpath as _hymem.",
        "",
        "_hymem_models() {",
        f"  local -a names; names=({' '.join(models.PACKAGED_MODELS)} ${{(f)\"$(cd {MODELS_ROOT} 2>/dev/null && {MODELS_FIND})\"}})",
        "  _alternative 'models:model:compadd -a names' 'files:file:_files'",
        "}",
        "",
        "# `hymem config set KEY <TAB>`: the values the key takes (the key is the first word after set that is no option)",
        "_hymem_config_value() {",
        "  local key w",
        "  for w in ${words[2,-1]}; do [[ $w == -* ]] || { key=$w; break; }; done",
        "  case $key in",
        *[f"    {key}) {_zvalues(kind, words)} ;;" for key, (kind, words) in config_values().items()],
        "  esac",
        "}",
        "",
    ]
    for c in tree.walk():
        specs = []
        for p in c.options:
            exclusive = f"({' '.join(p.opts)})" if len(p.opts) > 1 else ""
            names = "{" + ",".join(p.opts) + "}" if len(p.opts) > 1 else p.opts[0]
            value = "" if p.flag else f":{_zdesc(p.metavar.lower())}:{_zaction(p)}"
            lead = f"'{exclusive}'" if exclusive else ""
            if len(p.opts) > 1:
                specs.append(f"{lead}{names}'[{_zdesc(p.help)}]{value}'")
            else:
                specs.append(f"'{names}[{_zdesc(p.help)}]{value}'")
        specs.append("'(- *)'{-h,--help}'[Show help and exit.]'")
        if c.is_group:
            specs += ["'1: :->command'", "'*:: :->args'"]
        else:
            for a in c.arguments:
                prefix = "*" if a.variadic else ("" if a.required else ":")
                action = "_hymem_config_value" if c.path == ["config", "set"] and a.metavar == "VALUE" else _zaction(a)
                specs.append(f"'{prefix}:{_zdesc(a.metavar.lower())}:{action}'")
        out.append(f"{_zfunc(c)}() {{")
        out.append("  local curcontext=\"$curcontext\" state line ret=1")
        out.append("  typeset -A opt_args")
        out.append("  _arguments -C -s \\\n    " + " \\\n    ".join(specs) + " && ret=0")
        if c.is_group:
            described = " ".join(f"'{_zq(s.path[-1])}:{_zq(s.summary.replace(':', ' -'))}'" for s in c.subcommands)
            out += [
                "  case $state in",
                "    command)",
                f"      local -a commands=({described})",
                "      _describe -t commands 'hymem command' commands && ret=0",
                "      ;;",
                "    args)",
                "      case $words[1] in",
            ]
            for s in c.subcommands:
                out.append(f"        {s.path[-1]}) {_zfunc(s)} && ret=0 ;;")
            out += ["      esac", "      ;;", "  esac"]
        out += ["  return ret", "}", ""]
    out += ['_hymem "$@"', ""]
    return "\n".join(out)


def _fq(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish_completion(tree: Command) -> str:
    out = [
        "# fish completion for hymem. Generated by scripts/gen_docs.py from the Typer app; do not edit.",
        "# Static: completing never runs Python. Install: copy to ~/.config/fish/completions/hymem.fish",
        "",
        "complete -c hymem -f",
        "function __hymem_models",
        f"    printf '%s\\n' {' '.join(models.PACKAGED_MODELS)}",
        "    set -l root (set -q HYMEM_HOME; and echo $HYMEM_HOME; "
        "or echo (set -q XDG_DATA_HOME; and echo $XDG_DATA_HOME; or echo $HOME/.local/share)/hymem)/models",
        "    find $root -name '*.gguf' ! -path '*/.cache/*' 2>/dev/null | string replace -- \"$root/\" ''",
        "end",
    ]

    def condition(c: Command) -> str:
        if not c.path:
            return "__fish_use_subcommand"
        parts = [f"__fish_seen_subcommand_from {w}" for w in c.path]
        if c.is_group:
            parts.append("not __fish_seen_subcommand_from " + " ".join(s.path[-1] for s in c.subcommands))
        return "; and ".join(parts)

    for c in tree.walk():
        cond = condition(c)
        out.append("")
        out.append(f"# hymem {' '.join(c.path)}".rstrip())
        for s in c.subcommands:
            out.append(f"complete -c hymem -n {_fq(cond)} -a {_fq(s.path[-1])} -d {_fq(s.summary)}")
        for p in c.options:
            words = []
            for o in p.opts:
                words.append(f"-l {o[2:]}" if o.startswith("--") else f"-s {o[1:]}")
            if not p.flag:
                if p.choices:
                    words.append(f"-x -a {_fq(' '.join(p.choices))}")
                elif p.is_model:
                    words.append("-r -F -a '(__hymem_models)'")
                elif p.is_file:
                    words.append("-r -F")
                else:
                    words.append("-x")
            out.append(f"complete -c hymem -n {_fq(cond)} {' '.join(words)} -d {_fq(p.help)}")
        if not c.is_group and c.arguments:
            a = c.arguments[0]
            if a.choices:
                out.append(f"complete -c hymem -n {_fq(cond)} -a {_fq(' '.join(a.choices))}")
            elif a.is_model:
                out.append(f"complete -c hymem -n {_fq(cond)} -F -a '(__hymem_models)'")
            elif any(x.is_file for x in c.arguments):
                out.append(f"complete -c hymem -n {_fq(cond)} -F")
    out += ["", "# hymem config set KEY <TAB>: the values the key takes"]
    for key, (kind, words) in config_values().items():
        cond = f"__fish_seen_subcommand_from config; and __fish_seen_subcommand_from set; and __fish_seen_subcommand_from {key}"
        what = f"-x -a {_fq(' '.join(words))}" if kind == "words" else "-r -F -a '(__hymem_models)'" if kind == "models" else "-r -F"
        out.append(f"complete -c hymem -n {_fq(cond)} {what}")
    out.append("")
    return "\n".join(out)


# -- README ---------------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Prose for Markdown: a `*` would start emphasis, a `|` would split a table cell."""
    return text.replace("*", "\\*").replace("|", "&#124;")


def readme_reference(tree: Command) -> str:
    out = [
        README_START,
        "## Command reference",
        "",
        "Generated by `scripts/gen_docs.py` from the commands' own help; `hymem COMMAND --help` shows the same,",
        "with examples, and `man ./man/hymem.1` all of it.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for c in tree.walk():
        if c.path and not c.is_group:
            out.append(f"| [`hymem {c.name}`](#hymem-{'-'.join(c.path)}) | {_md(c.summary)} |")
    for c in tree.walk():
        if not c.path or c.is_group:
            continue
        out += ["", f"### hymem {c.name}", "", _md(c.summary), "", "```", c.usage(), "```"]
        if c.params:
            out.append("")
        for p in c.params:
            if p.kind == "argument":
                head = f"`{p.metavar}{'...' if p.variadic else ''}`"
            else:
                head = "`" + ", ".join(p.opts) + ("" if p.flag else f" {p.metavar}") + "`"
            out.append(f"- {head}: {_md(p.help)}{_choices_note(p)}")
        examples = [b for kind, b in paragraphs(c.help) if kind == "example"]
        if examples:
            out += ["", "```sh", *[line for b in examples for line in b.splitlines()], "```"]
    out.append(README_END)
    return "\n".join(out)


def with_reference(readme: str, reference: str, start: str = README_START, end: str = README_END) -> str:
    if start in readme and end in readme:
        head, rest = readme.split(start, 1)
        tail = rest.split(end, 1)[1]
        return head + reference + tail
    return readme.rstrip("\n") + "\n\n" + reference + "\n"


MCP_START, MCP_END = "<!-- mcp-tools:start -->", "<!-- mcp-tools:end -->"


def mcp_tools() -> str | None:
    """The README's table of MCP tools, from the tools `hymem mcp` serves: each one's arguments as its input schema
    names them (optional ones with `?`), the first sentence of its description, and its annotations. None without
    the MCP SDK (an extra): the README's table is then left as it is."""
    try:
        from hymem_cli.mcp_server import build_server
    except ImportError:
        return None
    import asyncio

    from hymem_cli import config
    from hymem_cli.memory import Memory
    from hymem_cli.memory_service import MemoryService

    server, worker = build_server(MemoryService(Memory(config.defaults())), warm=False)
    try:
        tools = asyncio.run(server.list_tools())
    finally:
        worker.shutdown()
    yes = lambda flag: "yes" if flag else "no"  # noqa: E731
    out = [MCP_START, "| tool | what it does | read-only | destructive | idempotent |", "|---|---|---|---|---|"]
    for tool in tools:
        schema = tool.input_schema
        required = set(schema.get("required", []))
        args = ", ".join(name + ("" if name in required else "?") for name in schema.get("properties", {}))
        first = re.split(r"(?<=\.)\s", tool.description or "", maxsplit=1)[0]
        a = tool.annotations
        hints = " | ".join(yes(flag) for flag in (a.read_only_hint, a.destructive_hint, a.idempotent_hint))
        out.append(f"| `{tool.name}({args})` | {_md(first)} | {hints} |")
    out.append(MCP_END)
    return "\n".join(out)


# -- main ---------------------------------------------------------------------------------------


def outputs() -> dict[Path, str]:
    tree = build_tree()
    readme = ROOT / "README.md"
    current = readme.read_text(encoding="utf-8") if readme.exists() else "# hymem\n"
    if (tools := mcp_tools()) is not None and MCP_START in current:
        current = with_reference(current, tools, MCP_START, MCP_END)
    return {
        ROOT / "man" / "hymem.1": man_page(tree),
        ROOT / "completions" / "hymem.bash": bash_completion(tree),
        ROOT / "completions" / "hymem.zsh": zsh_completion(tree),
        ROOT / "completions" / "hymem.fish": fish_completion(tree),
        readme: with_reference(current, readme_reference(tree)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a generated file is stale; write nothing")
    args = parser.parse_args(argv)
    stale = []
    for path, text in outputs().items():
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            continue
        stale.append(path.relative_to(ROOT).as_posix())
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if args.check:
        if stale:
            print(f"gen_docs: stale: {', '.join(stale)} (run: python scripts/gen_docs.py)", file=sys.stderr)
            return 1
        print("gen_docs: man page, completions and README reference are up to date", file=sys.stderr)
        return 0
    print(f"gen_docs: wrote {', '.join(stale) if stale else 'nothing (all up to date)'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
