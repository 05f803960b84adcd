"""scripts/mutate.py stays in step with the code and with docs/testing.md, and calls no mutant equivalent
that a test could tell apart. (The mutation run itself is not part of the test suite: it takes hours.)"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mutate():
    spec = importlib.util.spec_from_file_location("mutate", ROOT / "scripts" / "mutate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_every_core_module_exists(mutate):
    missing = [m for m in mutate.CORE if not (ROOT / mutate.PACKAGE / m).is_file()]
    assert not missing, f"scripts/mutate.py names modules that are gone: {missing}"


@pytest.mark.parametrize("removed,added,equivalent", [
    (['"SELECT 1 FROM revisions WHERE id = ?"'], ['"select 1 from revisions where id = ?"'], True),  # keywords and names
    (["\"UPDATE revisions SET state = 'open'\""], ["\"UPDATE revisions SET state = 'OPEN'\""], False),  # a quoted value
    (['"Alex lives in Seattle."'], ['"alex lives in seattle."'], False),  # not SQL
    (['conn.execute("PRAGMA journal_mode = WAL")'], ['conn.execute("pragma journal_mode = wal")'], True),  # a pragma and its value
    (['if op.op != "delete":'], ['if op.op != "DELETE":'], False),  # a value that is also an SQL word
    (['"r.revision AS retired_by FROM versions v "'], ['"r.revision as retired_by from versions v "'], True),
    # dict(row) keeps an alias's case
    (['"r.revision AS retired_by FROM versions v "'], ['"R.REVISION AS RETIRED_BY FROM VERSIONS V "'], False),
    (['hint="give --bank a path in a writable folder, or set HYMEM_HOME")'],
     ['hint="give --bank a path in a writable folder, or set hymem_home")'], False),
    (['return os.path.join(locations[0], "vec0")'], ['return os.path.join(locations[0], "VEC0")'], False),  # join outside any string
    (['rows = conn.execute("SELECT id FROM versions WHERE text = ?", (text.lower(),))'],
     ['rows = conn.execute("SELECT id FROM versions WHERE text = ?", (text.upper(),))'], False),  # code beside the SQL
])
def test_only_the_case_of_sql_is_taken_for_equivalent(mutate, removed, added, equivalent):
    assert mutate.sql_case_only(removed, added) is equivalent


@pytest.mark.parametrize("removed,added,equivalent", [
    (['"reason": r["reason"]}'], ['"reason": r["REASON"]}'], True),  # a sqlite3.Row
    (['{"reason": r["reason"]}'], ['{"REASON": r["reason"]}'], False),  # a dict's key
    (['if v["chain"] == chain'], ['if v["CHAIN"] == chain'], False),  # a dict made from a row
])
def test_only_a_rows_column_case_is_taken_for_equivalent(mutate, removed, added, equivalent):
    assert mutate.row_key_case_only(removed, added) is equivalent


def test_every_named_equivalent_points_at_code_that_is_there(mutate):
    """An entry of EQUIVALENT names a function of its module and, where it gives the line it changes ("OLD => NEW"),
    a line the function holds: an entry left behind by code that changed would excuse nothing, or the wrong mutant."""
    import ast

    bodies_of: dict[str, dict[str, str]] = {}
    for module in {entry[0] for entry in mutate.EQUIVALENT}:
        source = (ROOT / mutate.PACKAGE / module).read_text()
        if "__mutmut_orig" in source:
            pytest.skip("the mutation run's copy of the code: its functions have other names")
        functions = {}
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                functions.update({f"{node.name}ǁ{m.name}": m for m in node.body if isinstance(m, ast.FunctionDef)})
        lines = source.splitlines()
        bodies_of[module] = {name: "\n".join(lines[f.lineno - 1:f.end_lineno]) for name, f in functions.items()}
    stale = []
    for module, func, line, _ in mutate.EQUIVALENT:
        found = [body for name, body in bodies_of[module].items() if (func in name if func.endswith("ǁ") else name.endswith(func))]
        olds = [spec.rpartition(" => ")[0] for spec in ((line,) if isinstance(line, str) else line or ()) if " => " in spec]
        if not found or any(not any(old in body for body in found) for old in olds):
            stale.append((module, func, line))
    assert not stale, f"EQUIVALENT entries for code that is gone: {stale}"
