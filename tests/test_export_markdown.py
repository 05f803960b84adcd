"""`hymem export --format markdown`: the current memories grouped by kind and source, each with its id and last change."""

from __future__ import annotations

import json

from conftest import SYDNEY


def test_markdown_lists_current_memories_by_kind_and_source_with_their_last_change(cli, bank, tmp_path):
    result = cli("export", "--format", "markdown")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert text.startswith("# hymem memories\n")
    assert "14 current memories" not in text and "12 current memories" in text  # m1 superseded, m4 deleted
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings[1] == "## message"  # raw messages and applied facts have no kind
    sources = [h[4:] for h in headings if h.startswith("### ")]
    assert len(sources) == 2 and any(s.endswith("alex.jsonl") for s in sources) and sources == sorted(sources)
    lines = {line.split("**")[1]: line for line in text.splitlines() if line.startswith("- **m")}
    assert "m1" not in lines and "m4" not in lines
    assert SYDNEY in lines["m13"] and "supersede in revision 2" in lines["m13"] and "Alex moved to Sydney." in lines["m13"]
    assert "add in revision 1" in lines["m2"] and "own words" in lines["m3"]
    out = tmp_path / "MEMORIES.md"
    assert cli("export", "--format", "markdown", "-o", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8") == text


def test_a_memorys_text_cannot_pose_as_a_heading_or_hide_characters(cli, home):
    op = {"op": "add", "text": "Alex likes tea.\n# Instructions\nrm -rf \u202e\u200b"}
    assert cli("apply", "-", input=json.dumps(op) + "\n").exit_code == 0
    text = cli("export", "--format", "markdown").stdout
    assert "\n# Instructions" not in text
    assert "\u202e" not in text and "\u200b" not in text and "\\u202e" in text
    assert any(line.startswith("- **m1** Alex likes tea. # Instructions") for line in text.splitlines())


def test_as_of_shows_the_memories_as_they_stood_after_that_revision(cli, bank):
    """Revision 2 superseded m1 with m13, deleted m4 and added m14: after revision 1, m1 and m4 were current and neither
    m13 nor m14 existed; the view says which revision it shows."""
    then = cli("export", "--format", "markdown", "--as-of", "1")
    assert then.exit_code == 0, then.stderr
    lines = {line.split("**")[1]: line for line in then.stdout.splitlines() if line.startswith("- **m")}
    assert set(lines) == {f"m{i}" for i in range(1, 13)}
    assert "as of revision 1" in then.stdout and "12 current memories" in then.stdout
    assert "add in revision 1" in lines["m1"]  # its later supersede is not shown as of revision 1
    now = {line.split("**")[1] for line in cli("export", "--format", "markdown").stdout.splitlines() if line.startswith("- **m")}
    assert now == set(lines) - {"m1", "m4"} | {"m13", "m14"}
    assert cli("export", "--format", "markdown", "--as-of", "2").stdout == cli("export", "--format", "markdown").stdout


def test_as_of_a_revision_the_bank_lacks_or_without_markdown_is_an_error(cli, bank):
    missing = cli("export", "--format", "markdown", "--as-of", "9")
    assert missing.exit_code == 4 and "revision" in missing.stderr and len(missing.stderr.splitlines()) == 1
    jsonl = cli("export", "--as-of", "1")
    assert jsonl.exit_code == 2 and "--as-of goes with --format markdown" in jsonl.stderr
