"""The first hour, again (issue 33): pipes, settings refused when set, project banks, hints, completion, and the exit-code
table in the README as a contract that every command keeps."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import one_error_line

ROOT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"


@pytest.fixture
def hashed(monkeypatch):
    monkeypatch.setenv("HYMEM_EMBED_MODEL", "hash")


def test_show_prints_jsonl_into_a_pipe(cli, hashed):
    assert cli("add", "--raw", "-", input="Alex: I live in Seattle.\n").exit_code == 0
    shown = cli("show", "m1")  # stdout is no terminal here, as in `hymem show m1 | jq .`
    assert shown.exit_code == 0, shown.stderr
    assert len(shown.stdout.splitlines()) == 1 and json.loads(shown.stdout)["text"] == "Alex: I live in Seattle."
    assert "m1" in cli("show", "m1", "-f", "table").stdout and "{" not in cli("show", "m1", "-f", "table").stdout


# -- settings checked when they are set ---------------------------------------------------------------------------


@pytest.mark.parametrize("key,value,needles", [
    ("embed.model", "bogus", ["'bogus' is neither a known embedding model nor a folder", "minilm, mpnet"]),
    ("writer.model", "/no/such/dir/model.gguf", ["/no/such/dir/model.gguf does not exist", "hymem model list"]),
    ("writer.model", "./missing.gguf", ["./missing.gguf does not exist"]),
    ("search.fusion", "foo", ["expected one of calibrated, minmax, rrf", "e.g. hymem config set search.fusion calibrated"]),
    ("search.limit", "-5", ["invalid value '-5' for search.limit"]),
])
def test_config_set_refuses_what_would_break_later(cli, home, key, value, needles):
    done = cli("config", "set", key, value)
    one_error_line(done, 2, *needles)
    assert "TEXT" not in done.stderr and "huggingface" not in done.stderr
    assert not (home / "config.toml").exists()  # nothing saved


def test_config_set_keeps_what_can_be_right(cli, home, tmp_path):
    import tomllib

    folder = tmp_path / "my-embedder"
    folder.mkdir()
    gguf = tmp_path / "w.gguf"
    gguf.write_bytes(b"GGUF")
    for key, value in [("embed.model", "mpnet"), ("embed.model", "all-MiniLM-L6-v2"), ("embed.model", str(folder)),
                       ("writer.model", str(gguf)), ("writer.model", "Qwen/Qwen2.5-7B-Instruct"), ("writer.model", "smollm2"),
                       ("writer.n_gpu_layers", "-1")]:
        done = cli("config", "set", key, value)
        assert done.exit_code == 0, (key, value, done.stderr)
        section, name = key.split(".")
        assert str(tomllib.loads((home / "config.toml").read_text())[section][name]) == value


# -- project banks ------------------------------------------------------------------------------------------------


def test_a_second_init_is_idempotent_and_keeps_trust(cli, tmp_path, monkeypatch, hashed):
    from hymem_cli import config

    monkeypatch.chdir(tmp_path)
    assert cli("init").exit_code == 0
    config_text = (tmp_path / ".hymem" / "config.toml").read_text()
    again = cli("init", "-f", "json")
    assert again.exit_code == 0, again.stderr
    assert "already a project" in again.stderr and again.json()["bank"] == str(tmp_path / ".hymem" / "bank.db")
    assert (tmp_path / ".hymem" / "config.toml").read_text() == config_text
    assert config.project_trust(tmp_path / ".hymem").config_trusted
    assert cli("config", "set", "--project", "search.limit",
               "5").exit_code == 0  # the README's `hymem init && hymem config set --project ...`


def test_init_in_a_project_someone_else_made_does_not_trust_it(cli, tmp_path, monkeypatch, hashed):
    from hymem_cli import config

    (tmp_path / ".hymem").mkdir()
    (tmp_path / ".hymem" / "config.toml").write_text('[writer]\nbase_url = "http://example.com/v1"\n')
    monkeypatch.chdir(tmp_path)
    done = cli("init")
    assert done.exit_code == 0 and "not trusted yet" in done.stderr and "hymem trust" in done.stderr
    assert not config.project_trust(tmp_path / ".hymem").config_trusted


def test_init_inside_a_project_warns_and_says_how_to_use_the_outer_bank(cli, tmp_path, monkeypatch, hashed):
    monkeypatch.chdir(tmp_path)
    assert cli("init").exit_code == 0
    inner = tmp_path / "sub"
    done = cli("init", str(inner))
    assert done.exit_code == 0, done.stderr
    warning = next(line for line in done.stderr.splitlines() if line.startswith("warning:"))
    assert f"inside the project {tmp_path}" in warning and f"--bank {tmp_path / '.hymem' / 'bank.db'}" in warning
    assert (inner / ".hymem" / "bank.db").exists()


# -- hints ----------------------------------------------------------------------------------------------------------


def test_a_mistyped_option_gets_the_closest(cli):
    one_error_line(cli("add", "--rwa", "x"), 2, "unknown option --rwa; did you mean --raw?")


def test_a_binary_file_is_named_as_such(cli, tmp_path, hashed):
    image = tmp_path / "photo.png"
    image.write_bytes(PNG)
    done = cli("add", "--raw", str(image))
    one_error_line(done, 3, "photo.png is not text: it looks like a PNG image", "UTF-8 text transcript")
    assert "iconv" not in done.stderr and "LATIN1" not in done.stderr


def test_model_info_suggests_a_close_name(cli):
    one_error_line(cli("model", "info", "smollm3"), 3, "no model 'smollm3'", "did you mean smollm2?")


def test_a_dry_run_sums_up_many_rejections_in_one_line(cli, tmp_path, hashed):
    chat = tmp_path / "chat.txt"
    chat.write_text("Alex: I live in Seattle.\n")
    replies = tmp_path / "replies.jsonl"
    bad = [{"op": "delete", "target": n, "reason": "gone", "evidence": "Seattle"} for n in range(1, 8)]
    replies.write_text(json.dumps({"operations": bad}) + "\n")
    done = cli("add", "--backend", "scripted", "--model", str(replies), "--dry-run", str(chat))
    assert done.exit_code == 0, done.stderr
    lines = done.stderr.splitlines()
    assert not [line for line in lines if line.startswith("rejected ")], done.stderr
    why = [line for line in lines if line.startswith("the guards rejected 7 operation(s), why: 7× a delete must name")]
    assert len(why) == 1, done.stderr


# -- completion ------------------------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_protocol_origin_and_config_values():
    from test_docs import _bash_complete

    assert _bash_complete("hymem", "add", "--protocol", "") == ["auto", "hy-memory", "hymem"]
    assert _bash_complete("hymem", "search", "--origin", "a") == ["agent"]
    assert _bash_complete("hymem", "config", "set", "writer.protocol", "") == ["auto", "hy-memory", "hymem"]
    assert _bash_complete("hymem", "config", "set", "--project", "search.server", "") == ["true", "false"]
    assert _bash_complete("hymem", "config", "set", "writer.pro") == ["writer.protocol"]  # the key itself still completes
    assert _bash_complete("hymem", "config", "set", "search.limit", "") == []  # a number: nothing to offer


def test_zsh_and_fish_complete_config_values_too():
    """No zsh or fish here to run them: the generated scripts say, key by key, what `config set KEY <TAB>` offers."""
    zsh = (ROOT / "completions" / "hymem.zsh").read_text(encoding="utf-8")
    fish = (ROOT / "completions" / "hymem.fish").read_text(encoding="utf-8")
    assert "    writer.protocol) compadd -- auto hy-memory hymem ;;" in zsh and "    writer.model) _hymem_models ;;" in zsh
    assert "    search.server) compadd -- true false ;;" in zsh and "':value:_hymem_config_value'" in zsh
    seen = "__fish_seen_subcommand_from config; and __fish_seen_subcommand_from set; and __fish_seen_subcommand_from"
    assert f"complete -c hymem -n '{seen} writer.protocol' -x -a 'auto hy-memory hymem'" in fish
    assert f"complete -c hymem -n '{seen} bank.path' -r -F" in fish and f"'{seen} search.limit'" not in fish  # a number: nothing


# -- the README's exit codes, as a contract -----------------------------------------------------------------------


def _readme_codes() -> set[int]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    return {int(m.group(1)) for m in re.finditer(r"^\| (\d+) \|", table, re.MULTILINE)}


def _bank(cli) -> None:
    assert cli("add", "--raw", "-", input="Alex: I live in Seattle.\nSam: Nice.\n").exit_code == 0


def _revised(cli) -> None:
    _bank(cli)
    op = {"op": "supersede", "target": "m1", "text": "Alex lives in Sydney.", "reason": "moved"}
    assert cli("apply", "-", input=json.dumps(op) + "\n").exit_code == 0
    assert cli("revert", "2").exit_code == 0


def _corrupt(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "bank.db").write_bytes(b"this is not an SQLite database, but it is where the bank should be" * 100)


def _png(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "photo.png").write_bytes(PNG)


# (code, what happens, set-up, command); the 130 of an interrupt is checked by the Ctrl-C tests in test_first_hour.py.
CONTRACT = [
    (1, "diff --exit-code with differences", _bank, ["diff", "0", "--exit-code"]),
    (3, "a revert refused: already reverted", _revised, ["revert", "2"]),
    (2, "unknown option", None, ["search", "x", "--limt", "3"]),
    (2, "bad config value", None, ["config", "set", "search.fusion", "foo"]),
    (2, "unknown config key", None, ["config", "get", "writer.modle"]),
    (3, "missing file", None, ["add", "--raw", "no-such-chat.txt"]),
    (3, "binary file", _png, ["add", "--raw", "{home}/photo.png"]),
    (3, "empty input", None, ["add", "--raw", "-"]),
    (3, "unknown model", None, ["model", "info", "smollm3"]),
    (4, "unknown memory id: show", _bank, ["show", "m99"]),
    (4, "unknown memory id: history", _bank, ["history", "m99"]),
    (4, "unknown revision: diff", _bank, ["diff", "99"]),
    (4, "unknown revision: revert", _bank, ["revert", "99"]),
    (5, "corrupt bank", _corrupt, ["search", "x"]),
    (6, "no writer configured", None, ["write"]),
    (6, "writer server unreachable", None, ["add", "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "-"]),
]


def _case_code(case) -> int:
    return case.values[0] if hasattr(case, "values") else case[0]


def test_every_code_in_the_readme_table_is_checked():
    documented = _readme_codes()
    checked = {_case_code(c) for c in CONTRACT} | {0, 130}
    assert documented == checked, (documented, checked)


@pytest.mark.parametrize("code,what,setup,args", CONTRACT, ids=lambda v: v if isinstance(v, str) else None)
def test_each_documented_failure_exits_with_its_code(cli, home, hashed, code, what, setup, args):
    if setup is not None:
        setup(home) if setup in (_corrupt, _png) else setup(cli)
    stdin = ("" if code == 3 else "Alex: I live in Seattle.\n") if args[-1] == "-" else None
    done = cli(*[a.replace("{home}", str(home)) for a in args], input=stdin)
    if code == 1 and "--exit-code" in args:
        assert done.exit_code == 1 and done.stderr == "", done.stderr  # a difference is an answer, not an error
    else:
        one_error_line(done, code)


def test_an_unreachable_writer_server_loses_no_message(cli, home, hashed):
    done = cli("add", "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "-", input="Alex: hi\n")
    one_error_line(done, 6, "unreachable", "1 message(s) stored", "1 chunk(s) stay queued")
    status = cli("status", "-f", "json").json()
    assert (status["messages"], status["queued_chunks"], status["failed_chunks"]) == (1, 1, 1)
