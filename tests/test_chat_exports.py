"""`hymem import --from chatgpt|claude`: other products' chat exports read as transcripts, the active branch of ChatGPT's
message tree only, a conversation at a time, into the message layer and the writer's queue.

The fixtures follow the exports' documented shapes as those products wrote them in 2024-2026: ChatGPT's
conversations.json (a `mapping` tree of nodes with `message.author.role`, `content.content_type` and `parts`,
`current_node` the leaf last seen, hidden system and custom-instruction nodes, tool nodes, image parts) and Claude's
(`chat_messages` with `sender` human or assistant, `content` blocks of type text or tool_use, or `text`)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import one_error_line, snapshot

from hymem_cli._errors import InputError
from hymem_cli.ingest.chat_exports import read_export, stream_array

DATA = Path(__file__).parent / "data"
CHATGPT = DATA / "chatgpt-conversations.json"
CLAUDE = DATA / "claude-conversations.json"


def messages(path: Path, product: str, block: int = 1 << 20) -> list[tuple[str, str, str]]:
    with open(path, "rb") as f:
        return [(m.session, m.speaker, m.text) for m in read_export(f, product, path.name, block)]


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])  # bytes read at a time: a conversation, a character, cut anywhere
def test_chatgpt_the_branch_last_seen_without_system_tool_hidden_or_image_parts(block):
    assert messages(CHATGPT, "chatgpt", block) == [
        ("c-move", "user", "I'm moving from Seattle to Sydney in August."),
        ("c-move", "assistant", "Exciting! Do you need help with a checklist?"),
        ("c-move", "user", "Yes please, and my dog Biscuit comes along."),  # the edit, not the first prompt (the cat)
        ("c-move", "assistant", "Here is a checklist for moving with Biscuit."),  # the tool's note in between is not read
        ("c-food", "user", "I'm vegetarian, any curry ideas?"),
        ("c-food", "assistant", "Try a lentil dal."),  # no current_node: the latest regeneration
    ]


def test_claude_messages_in_order_from_their_text_blocks():
    assert messages(CLAUDE, "claude", 5) == [
        ("k-garden", "user", "My tomatoes in Porto keep splitting."),
        ("k-garden", "assistant", "Irregular watering splits them."),
        ("k-garden", "user", "I water them every other day."),
    ]
    with open(CLAUDE, "rb") as f:
        first = next(read_export(f, "claude", "c.json"))
    assert first.timestamp == "2024-06-03T09:00:10Z" and first.id == "k1"


@pytest.mark.parametrize("data, error", [
    (b"", "is empty"),
    (b'{"mapping": {}}', "is not a JSON array"),
    (b'[{"mapping": {}}, {"mapping": ', "ends before its array does"),
    (b'[{"mapping": {}} {"oops"}]', "is not valid JSON"),
    (b'["\xff\xfe"]', "is not UTF-8"),
    (b"[42]", "conversation 1 is not a JSON object"),
])
def test_what_is_not_an_export_is_one_clear_error(data, error):
    with pytest.raises(InputError, match=error):
        list(read_export(io.BytesIO(data), "chatgpt", "x.json", 4))


def test_each_product_names_the_other_when_given_its_export():
    with open(CLAUDE, "rb") as f, pytest.raises(InputError) as wrong:
        list(read_export(f, "chatgpt", "c.json"))
    assert wrong.value.hint == "this looks like a Claude export: --from claude"
    with open(CHATGPT, "rb") as f, pytest.raises(InputError) as other:
        list(read_export(f, "claude", "c.json"))
    assert other.value.hint == "this looks like a ChatGPT export: --from chatgpt"


def test_a_large_array_is_read_one_conversation_at_a_time():
    conversations = [{"chat_messages": [{"uuid": f"u{i}", "sender": "human", "text": "x" * 500}], "uuid": f"c{i}"} for i in range(2000)]
    data = json.dumps(conversations).encode()
    stream = io.BytesIO(data)
    seen = stream_array(stream, "big.json", block=4096)
    next(seen)
    assert stream.tell() < len(data) // 100  # the first conversation came long before the end of the file was read
    assert sum(1 for _ in seen) == 1999


def test_the_command_stores_the_messages_queues_them_and_a_second_run_adds_nothing(cli, home):
    first = cli("import", "--from", "chatgpt", str(CHATGPT))
    assert first.exit_code == 0, first.stderr
    assert "6 message(s) stored of 6 read" in first.stderr and "queued for the writer" in first.stderr
    hits = cli("search", "--layer", "message", "Biscuit dog", "-f", "jsonl").jsonl()
    assert hits and hits[0]["speaker"] == "user" and hits[0]["layer"] == "message" and hits[0]["pending"] is True
    elsewhere = cli("search", "--layer", "message", "Miso PetAir", "-f", "jsonl").jsonl()
    assert not any("cat Miso" in h["text"] or "PetAir" in h["text"] for h in elsewhere)  # another branch, a tool's text
    status = cli("status", "-f", "json").json()
    assert (status["messages"], status["queued_chunks"]) == (6, 2)  # two conversations: no chunk mixes them
    again = cli("import", "--from", "chatgpt", str(CHATGPT))
    assert again.exit_code == 0 and "0 message(s) stored" in again.stderr
    assert cli("import", "--from", "claude", str(CLAUDE)).exit_code == 0  # into a bank that holds memories already


def test_a_broken_export_leaves_the_bank_as_it_was(cli, home, tmp_path):
    assert cli("import", "--from", "claude", str(CLAUDE)).exit_code == 0
    before = snapshot(home / "bank.db")
    good = json.loads(CLAUDE.read_text())[0]
    broken = tmp_path / "conversations.json"
    renamed = [{**m, "uuid": m["uuid"] + "-new"} for m in good["chat_messages"]]
    broken.write_text(json.dumps([{**good, "uuid": "k-new", "chat_messages": renamed}])[:-1])  # cut short by one byte
    one_error_line(cli("import", "--from", "claude", str(broken)), 3, "ends before its array does")
    assert snapshot(home / "bank.db") == before
    one_error_line(cli("import", "--from", "claude", "--trusted", str(CLAUDE)), 2, "--trusted goes with a hymem export")
