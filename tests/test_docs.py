"""Docs that derive from code: man page, static completions and the README reference are current, and every command has examples."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from hymem_cli import config
from hymem_cli._errors import EXIT_CODES
from hymem_cli.app import app

ROOT = Path(__file__).resolve().parent.parent
GEN = ROOT / "scripts" / "gen_docs.py"
BASH_COMPLETION = ROOT / "completions" / "hymem.bash"
# A line of an example that runs hymem: `hymem …`, `VAR=x hymem …`, `… | hymem …`, `"$(hymem …)"`.
EXAMPLE_LINE = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*hymem\s|\|\s*hymem\s|\$\(hymem\s")


def _commands(cmd=None, path=()):
    cmd = cmd or typer.main.get_command(app)
    for name, sub in getattr(cmd, "commands", {}).items():
        yield " ".join((*path, name)), sub
        yield from _commands(sub, (*path, name))


def _gen_docs_module():
    spec = importlib.util.spec_from_file_location("gen_docs", GEN)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_docs"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_generated_docs_are_current():
    done = subprocess.run([sys.executable, str(GEN), "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, f"{done.stderr}\nregenerate with: python scripts/gen_docs.py"


def test_check_names_the_stale_files(tmp_path, monkeypatch, capsys):
    gen = _gen_docs_module()
    for rel in ("man/hymem.1", "completions/hymem.bash", "completions/hymem.zsh", "completions/hymem.fish", "README.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 0
    (tmp_path / "completions" / "hymem.zsh").write_text("# edited by hand\n")
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text().replace("### hymem search", "### hymem find"))
    capsys.readouterr()
    assert gen.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "completions/hymem.zsh" in err and "README.md" in err and "man/hymem.1" not in err
    # Writing mode repairs them; the README outside the markers is kept.
    before = readme.read_text().split("<!-- commands:start -->")[0]
    assert gen.main([]) == 0
    assert gen.main(["--check"]) == 0
    assert readme.read_text().split("<!-- commands:start -->")[0] == before


@pytest.mark.parametrize("name", [name for name, _ in _commands()])
def test_every_command_has_a_docstring_with_examples(name):
    command = dict(_commands())[name]
    help_text = command.help or ""
    assert help_text.strip(), f"`hymem {name}` has no docstring"
    examples = [line.strip() for line in help_text.splitlines() if EXAMPLE_LINE.search(line.strip())]
    assert len(examples) >= 2, f"`hymem {name}` needs at least two example lines, has {examples}"


def test_readme_reference_lists_every_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("<!-- commands:start -->") == 1 and readme.count("<!-- commands:end -->") == 1
    section = readme.split("<!-- commands:start -->")[1].split("<!-- commands:end -->")[0]
    assert "## Command reference" in section
    for name, command in _commands():
        if not getattr(command, "commands", None):
            assert f"### hymem {name}\n" in section, name


def test_man_page_covers_commands_environment_and_exit_codes():
    page = (ROOT / "man" / "hymem.1").read_text(encoding="utf-8")
    for name, _ in _commands():
        assert f'.SS "hymem {name} ' in page or f'.SS "hymem {name}"' in page, name
    for key in config.KEYS:
        assert f"\\fB{config.env_name(key)}\\fR" in page, key
    for var in ("HYMEM_HOME", "HYMEM_BANK", "NO_COLOR", "HYMEM_DEBUG"):
        assert f"\\fB{var}\\fR" in page
    for code in EXIT_CODES:
        assert f".TP\n\\fB{code}\\fR" in page
    # roff hygiene: no line starts with a quote (a control line by accident); hyphens are escaped.
    assert not [line for line in page.splitlines() if line.startswith("'")]
    assert "--format" not in page and "\\-\\-format" in page


def test_roff_escaping():
    gen = _gen_docs_module()
    assert gen.roff(".hidden") == "\\&.hidden"
    assert gen.roff("'quoted") == "\\&'quoted"
    assert gen.roff("a\\nb --x") == "a\\enb \\-\\-x"
    assert gen.roff_arg('say "hi"') == '"say \\(dqhi\\(dq"'


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_man_page_renders_without_warnings():
    done = subprocess.run(["groff", "-man", "-Tascii", "-ww", str(ROOT / "man" / "hymem.1")], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stderr == "", done.stderr
    text = re.sub(r".\x08", "", done.stdout)  # drop overstrike bold/underline
    for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"):
        assert re.search(rf"^{heading}$", text, re.MULTILINE), heading
    assert "hymem model pull" in text and "hymem config set" in text and "hymem doctor" in text


def _bash_complete(*words: str) -> list[str]:
    script = (
        f"source {BASH_COMPLETION}\n"
        f"COMP_WORDS=({' '.join(_sh(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_hymem\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=10)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


def _sh(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_commands_options_and_values():
    assert _bash_complete("hymem", "se") == ["search", "serve"]
    assert _bash_complete("hymem", "sea") == ["search"]
    assert _bash_complete("hymem", "search", "--fo") == ["--format"]
    assert _bash_complete("hymem", "search", "--format", "js") == ["json", "jsonl"]
    assert _bash_complete("hymem", "--version", "sea") == ["search"]
    assert _bash_complete("hymem", "add", "--input-format", "m") == ["markdown"]
    assert set(_bash_complete("hymem", "model", "")) == {"list", "info", "rm", "pull"}
    assert _bash_complete("hymem", "config", "get", "writer.ba") == ["writer.backend", "writer.base_url"]
    assert _bash_complete("hymem", "search", "-b", "x.db", "--for") == ["--format"]
    assert "README.md" in _bash_complete("hymem", "apply", "READ")  # file arguments complete files


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_model_names_from_the_models_directory(tmp_path, monkeypatch):
    pulled = tmp_path / "models" / "Hy-Memory-30B-A3B-GGUF" / "Hy-Q4_K_M.gguf"
    pulled.parent.mkdir(parents=True)
    pulled.write_bytes(b"GGUF")
    monkeypatch.setenv("HYMEM_HOME", str(tmp_path))
    assert _bash_complete("hymem", "add", "--model", "Hy") == ["Hy-Memory-30B-A3B-GGUF/Hy-Q4_K_M.gguf"]
    assert _bash_complete("hymem", "add", "-m", "sm") == ["smollm2"]
    assert _bash_complete("hymem", "model", "info", "Hy-M") == ["Hy-Memory-30B-A3B-GGUF/Hy-Q4_K_M.gguf"]
    assert "README.md" in _bash_complete("hymem", "add", "--model", "READ")  # a path still completes


def test_completion_scripts_are_static_and_cover_every_command():
    for shell in ("bash", "zsh", "fish"):
        text = (ROOT / "completions" / f"hymem.{shell}").read_text(encoding="utf-8")
        code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        # Nothing runs Python or hymem itself (Typer's dynamic completion would, on every TAB).
        assert "python" not in code.lower() and "_HYMEM_COMPLETE" not in code, shell
        assert not re.search(r"\$\(\s*hymem|`hymem|\(\(hymem", code), shell
        for name, _ in _commands():
            assert name.split()[-1] in text, (shell, name)


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_parse(shell):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    done = subprocess.run([shell, "-n", str(ROOT / "completions" / f"hymem.{shell}")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completion_offers_commands_and_choices():
    def complete(line: str) -> list[str]:
        done = subprocess.run(["fish", "-c", f"source {ROOT / 'completions' / 'hymem.fish'}; complete -C {_sh(line)}"],
                              capture_output=True, text=True, timeout=10)
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert complete("hymem se") == ["search", "serve"]
    assert complete("hymem search --fo") == ["--format"]
    assert sorted(complete("hymem search --format ")) == ["json", "jsonl", "plain", "table"]
