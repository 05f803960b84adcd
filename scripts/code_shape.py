"""The shape of the package, for a reviewer: lines per package, the largest functions, and which package imports which.

    python scripts/code_shape.py            # all three, as text
    python scripts/code_shape.py --top 20   # the 20 largest functions
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "hymem_cli"


def unit(path: Path) -> str:
    """bank/store.py -> bank; config.py -> config; embed_onnx.py -> embed*."""
    parts = path.relative_to(PACKAGE).parts
    if len(parts) > 1:
        return parts[0]
    return "embed*" if parts[0].startswith("embed") else parts[0].removesuffix(".py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=12, help="how many of the largest functions to list")
    args = parser.parse_args()
    lines: dict[str, int] = defaultdict(int)
    functions: list[tuple[int, str]] = []
    edges: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        here = unit(path)
        lines[here] += sum(1 for line in text.splitlines() if line.strip())
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append((node.end_lineno - node.lineno + 1, f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}"))
            elif isinstance(node, ast.ImportFrom) and node.module and (node.module == "hymem_cli" or node.module.startswith("hymem_cli.")):
                target = node.module.split(".")[1] if "." in node.module else ""
                names = [a.name for a in node.names]
                if node.module == "hymem_cli":
                    targets = names
                else:
                    targets = [target]
                for t in targets:
                    t = "embed*" if t.startswith("embed") else t
                    if t != here and ((PACKAGE / t).is_dir() or (PACKAGE / f"{t}.py").exists() or t == "embed*"):
                        edges[here].add(t)
    out = sys.stdout
    out.write("non-blank lines per package\n")
    for name, n in sorted(lines.items(), key=lambda kv: -kv[1]):
        out.write(f"  {name:16} {n:6,}\n")
    out.write(f"  {'total':16} {sum(lines.values()):6,}\n\nlargest functions (lines)\n")
    for size, where in sorted(functions, reverse=True)[: args.top]:
        out.write(f"  {size:4}  {where}\n")
    out.write("\nwho imports whom (lazy imports included)\n")
    for name in sorted(edges):
        out.write(f"  {name:16} -> {', '.join(sorted(edges[name]))}\n")


if __name__ == "__main__":
    main()
