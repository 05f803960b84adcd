"""docs/testing.md's map of the rules a user relies on cannot drift: every row names where the rule is promised and at
least one test, and every test it names exists (read from the test files with `ast`, not by collecting them)."""

from __future__ import annotations

import ast
import re
from functools import cache

from conftest import ROOT

DOC = ROOT / "docs" / "testing.md"
START, END = "<!-- rule-map:start -->", "<!-- rule-map:end -->"
REFERENCE = re.compile(r"`(test_\w+\.py)::(\w+(?:::\w+)?)`")


def rows() -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    assert text.count(START) == 1 and text.count(END) == 1, "the rule map's markers"
    table = text.split(START, 1)[1].split(END, 1)[0]
    lines = [line.strip() for line in table.splitlines() if line.strip().startswith("|")]
    assert lines[0] == "| rule | promised in | tests |" and set(lines[1]) <= set("|- ")
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]


@cache
def functions_in(name: str) -> frozenset[str]:
    """The test functions of tests/`name`, as pytest names them: `test_x`, and `Class::test_x` for methods."""
    path = ROOT / "tests" / name
    if not path.is_file():
        return frozenset()
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            found.update(f"{node.name}::{f.name}" for f in node.body
                         if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name.startswith("test"))
    return frozenset(found)


def test_every_rule_names_its_promise_and_a_test():
    table = rows()
    assert len(table) >= 40
    for cells in table:
        assert len(cells) == 3, cells
        rule, promised, tests = cells
        assert rule and promised, cells
        assert REFERENCE.findall(tests), f"no test pins: {rule}"
        assert not REFERENCE.sub("", tests).strip(" ,"), f"only test names in the tests column: {tests}"
    assert len({cells[0] for cells in table}) == len(table), "a rule listed twice"


def test_every_test_the_map_names_exists():
    missing = [f"{name}::{test}" for cells in rows() for name, test in REFERENCE.findall(cells[2]) if test not in functions_in(name)]
    assert missing == []


def test_the_checker_reads_names_as_pytest_does():
    assert "test_each_place_a_setting_comes_from_overrides_the_one_before" in functions_in("test_config_rules.py")
    assert "test_no_such_test" not in functions_in("test_config_rules.py")
    assert functions_in("test_no_such_file.py") == frozenset()
