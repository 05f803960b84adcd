"""The semantic mutants kept in scripts/mutants/ stay runnable: each patch says its bug in one line, names test files
that exist and the commit it was written against, and changes exactly one file of the package."""

from __future__ import annotations

import importlib.util
import re
import sys

from conftest import ROOT

FOLDER = ROOT / "scripts" / "mutants"


def runner():
    spec = importlib.util.spec_from_file_location("mutants_run", FOLDER / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_patch_names_its_bug_its_tests_and_its_base():
    run = runner()
    patches = sorted(FOLDER.glob("round-*/*.patch"))
    assert len(patches) >= 30
    for path in patches:
        mutant = run.read_mutant(path)
        assert re.fullmatch(r"\d{2}-[a-z0-9-]+", mutant.name), path
        assert len(mutant.bug) > 20 and not mutant.bug.startswith(("#", "diff")), path
        assert mutant.tests and all((ROOT / t).is_file() for t in mutant.tests), (path, mutant.tests)
        text = path.read_text(encoding="utf-8")
        assert re.search(r"^# base: [0-9a-f]{40}$", text, re.M), path
        changed = re.findall(r"^diff --git a/(\S+) b/", text, re.M)
        assert len(changed) == 1 and changed[0].startswith("src/hymem_cli/"), (path, changed)


def test_the_runner_reads_a_header_and_an_equivalence(tmp_path):
    patch = tmp_path / "01-x.patch"
    patch.write_text("A bug in one line.\n# tests: tests/test_a.py tests/test_b.py\n# equivalent: no caller can tell\n\n"
                     "diff --git a/src/hymem_cli/x.py b/src/hymem_cli/x.py\n", encoding="utf-8")
    mutant = runner().read_mutant(patch)
    assert (mutant.name, mutant.bug, mutant.tests, mutant.equivalent) == (
        "01-x", "A bug in one line.", ["tests/test_a.py", "tests/test_b.py"], "no caller can tell")
