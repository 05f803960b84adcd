"""The shape of the code: the core never imports the CLI layer, and no package imports a package that imports it back."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "hymem_cli"
CLI_LAYER = {"app", "commands", "_output", "__main__"}
CORE = ["domain", "config", "bank", "ingest", "screen", "writer", "embed", "eval", "server"]


def unit_of(module: str) -> str | None:
    """hymem_cli.bank.store -> "bank"; hymem_cli.config -> "config"; other packages -> None."""
    parts = module.split(".")
    if parts[0] != "hymem_cli" or len(parts) == 1:
        return None
    return parts[1]


def imports_of(path: Path, modules: set[str] | None = None) -> set[str]:
    """Every hymem_cli module `path` imports, at the top or inside functions (lazy imports count too). With `modules`,
    `from hymem_cli.bank import codes` names the module hymem_cli.bank.codes only; without, the package as well."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(("hymem_cli", *path.relative_to(PACKAGE).with_suffix("").parts[:-1]))
    found = set()
    # What is imported only for type checking is no import at run time: no edge.
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If) and getattr(block.test, "id", "") == "TYPE_CHECKING"
                   for n in ast.walk(block)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:  # `from hymem_cli import config` names a module
                full = f"{base}.{alias.name}"
                found |= {base, full} if modules is None else {full if full in modules else base}
    return {m for m in found if m.startswith("hymem_cli")}


def unit_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        source = unit_of(".".join(("hymem_cli", *path.relative_to(PACKAGE).with_suffix("").parts)))
        if source is None or source == "__init__":
            continue
        targets = {unit_of(m) for m in imports_of(path)} - {None, source, "__init__"}
        graph.setdefault(source, set()).update(t for t in targets if (PACKAGE / t).exists() or (PACKAGE / f"{t}.py").exists())
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_no_package_imports_a_package_that_imports_it_back():
    assert cycles(unit_graph()) == []


def module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(("hymem_cli", *(parts[:-1] if parts[-1] == "__init__" else parts)))


def module_graph() -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports, lazy imports included.

    `from hymem_cli.bank import Bank` is an edge to the package's __init__; `from hymem_cli.bank import codes` is one
    to the module hymem_cli.bank.codes only."""
    modules = {module_of(p): p for p in PACKAGE.rglob("*.py")}
    return {name: (imports_of(path, set(modules)) & set(modules)) - {name} for name, path in modules.items()}


def tangles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The groups of modules that import each other round a cycle (strongly connected components of 2 or more)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.add(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


# Module cycles that remain, each to be removed; this may only shrink: a new or larger tangle fails, and so does
# one that is gone but still listed.
KNOWN_TANGLES: set[frozenset[str]] = set()


def test_no_module_imports_a_module_that_imports_it_back():
    assert tangles(module_graph()) == KNOWN_TANGLES


def test_the_module_cycle_check_sees_lazy_imports_and_can_fail():
    assert "hymem_cli.config" in module_graph()["hymem_cli.embed"]  # imported inside a function only
    planted = {"hymem_cli.config": {"hymem_cli.trust"}, "hymem_cli.trust": {"hymem_cli.embed"}, "hymem_cli.embed": {"hymem_cli.config"}}
    assert tangles(planted) == {frozenset(planted)}
    assert tangles({"hymem_cli.config": {"hymem_cli.trust"}, "hymem_cli.trust": set()}) == set()


def test_no_core_module_imports_the_cli_layer_typer_or_rich():
    """Every module outside the CLI layer, found on disk (not a list that a new module can miss)."""
    for path in PACKAGE.rglob("*.py"):
        name = module_of(path)
        if unit_of(name) in CLI_LAYER or name == "hymem_cli":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
        assert not imported & {"typer", "rich", "click"}, (name, imported & {"typer", "rich", "click"})
        assert not {unit_of(m) for m in imports_of(path)} & CLI_LAYER, name


def test_the_cycle_check_can_fail():
    assert cycles({"ingest": {"writer"}, "writer": {"bank"}, "bank": {"ingest"}}) == [["bank", "ingest", "writer", "bank"]]


def test_domain_types_are_a_leaf():
    assert unit_graph()["domain"] == set()


def test_writer_and_screen_know_no_bank_and_no_ingest():
    graph = unit_graph()
    assert not graph["writer"] & {"bank", "ingest", "commands"}, graph["writer"]
    assert not graph["screen"] & {"bank", "ingest", "writer", "commands"}, graph["screen"]


def test_the_core_never_imports_the_cli_layer_statically():
    graph = unit_graph()
    for unit in CORE:
        assert not graph.get(unit, set()) & CLI_LAYER, (unit, graph.get(unit))


def test_importing_the_core_loads_neither_typer_nor_rich():
    """Imported in a fresh interpreter, as a library user would: sys.modules must hold neither."""
    modules = [
        "hymem_cli.domain", "hymem_cli.config", "hymem_cli.bank", "hymem_cli.bank.search", "hymem_cli.bank.history",
        "hymem_cli.bank.revert", "hymem_cli.bank.transfer", "hymem_cli.ingest.pipeline", "hymem_cli.ingest.processors",
        "hymem_cli.ingest.readers", "hymem_cli.ingest.sources", "hymem_cli.screen", "hymem_cli.writer.factory",
        "hymem_cli.writer.models", "hymem_cli.writer.llama_backend", "hymem_cli.writer.openai_backend", "hymem_cli.embed",
        "hymem_cli.eval", "hymem_cli.server",
    ]
    code = f"import importlib, json, sys\nfor m in {modules!r}: importlib.import_module(m)\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert not {m for m in loaded if m.split(".")[0] in ("typer", "rich", "click")}
    assert not {m for m in loaded if m.startswith(("hymem_cli.commands", "hymem_cli._output", "hymem_cli.app"))}


def test_the_architecture_page_names_every_module_and_only_modules_that_exist():
    """docs/architecture.md is drawn from the code: a new module must be placed on the map, a removed one taken off."""
    import re

    page = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    listing = page.split("## The packages", 1)[1].split("## ", 1)[0]
    files = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}
    named_in_listing = set()
    folder = ""
    for line in listing.splitlines():
        if m := re.match(r"\s{2}(\w+)/\s", line):
            folder = m.group(1) + "/"
        elif re.match(r"\s{2}[\w*]+\.py", line):
            folder = ""
        named_in_listing |= {(folder + n if folder and f"{folder}{n}" in files else n) for n in re.findall(r"\b([\w]+\.py)\b", line)}
    named_in_listing |= {f for f in files if f.startswith("embed") and "embed*.py" in listing}
    one_per_command = {f for f in files if f.startswith("commands/") and not f.split("/")[1].startswith("_")}  # "one module per command"
    missing = {f for f in files - one_per_command if f not in named_in_listing and f.rsplit("/", 1)[-1] != "__init__.py"}
    assert missing == set(), f"modules not on the map in docs/architecture.md: {sorted(missing)}"
    for dotted in set(re.findall(r"`((?:bank|ingest|screen|writer|commands)/\w+\.py)`", page)):
        assert dotted in files, f"docs/architecture.md names {dotted}, which does not exist"
