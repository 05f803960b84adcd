"""Transcript readers: turn text, speaker, JSON, JSONL and Markdown chat files into Messages.

All readers except `json` stream: they yield each message as soon as it is complete, so a
live pipe (`tail -f agent.jsonl | hymem ingest -`) works. Every malformed input raises
InputError with one line saying what is wrong and where ("chat.jsonl line 7: ...").

Common rules: trailing "\\n"/"\\r" are stripped from each line, the text of every message is
stripped of outer whitespace (inner text is kept as is), and messages whose text ends up
empty are skipped.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from hymem_cli._errors import ConfigError, InputError
from hymem_cli.domain import Message
from hymem_cli.ingest.timeutil import normalize_timestamp

FORMATS = ("text", "speaker", "json", "jsonl", "markdown", "claude-code", "codex")

_SAMPLE_LINES = 50  # non-blank lines peeked to detect the format

_EMPTY_HINT = "give a transcript file or pipe text on stdin"
_SHAPE_HINT = (
    'each message must be an object with a "text" or "content" string, e.g. {"role": "user", "content": "hi"}'
)
_TIME_HINT = "use ISO 8601 (2024-05-01T10:00:00Z, 2024-05-01 10:00) or epoch seconds"

# A speaker name: 1-40 chars, a letter first, then letters, digits, spaces and . _ ' -
_NAME = r"[^\W\d_][\w .'-]{0,39}"

# "Alex: text", optionally after a bracketed time: "[2024-05-01 10:00] Alex: text".
_SPEAKER_PREFIX = re.compile(r"(?:\[(?P<ts>[0-9][0-9 ./:+,TZtz-]{0,38})\][ \t]*)?(?P<speaker>" + _NAME + r"):\s")

# "## User", "### **Assistant**", "# Alex:" -- a heading whose whole text is a speaker name.
_MD_HEADING = re.compile(
    r" {0,3}(?P<hashes>#{1,6})[ \t]+(?:\*\*|__)?(?P<speaker>" + _NAME + r")(?:\*\*|__)?[ \t]*:?[ \t]*#*[ \t]*"
)

# "**Alex:** text" or "**Alex**: text".
_MD_BOLD = re.compile(r"\*\*(?P<speaker>" + _NAME + r")(?::\*\*|\*\*:)[ \t]*")

# A JSON array of messages starts "[" then "{", "[", "]" or a string; "[2024-05-01 10:00] Alex:" does not.
_JSON_ARRAY_START = re.compile(r'\[\s*(?:[\[{\]"]|$)')

_SURROGATES = re.compile(r"[\ud800-\udfff]")  # JSON "\ud83d" escapes can leave lone halves
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")


# ---------------------------------------------------------------------------- public API


def read_messages(lines: Iterable[str], fmt: str | None = None, *, name: str = "<stdin>",
                  redact_line: Callable[[str], str] | None = None) -> Iterator[Message]:
    """Yield messages from decoded text lines (each line may or may not end with '\\n').

    fmt=None (or "auto") detects the format from the first lines (up to 50 non-blank ones, or
    just the first when it starts with "{"), then keeps streaming. `name` is used in error
    messages ("chat.jsonl line 7: ..."). Input without any non-blank line raises InputError.

    `redact_line` (a screen's redaction) is applied to each line that opens a message in the
    speaker and Markdown formats before the speaker is split off: "Password: hunter2" is one
    secret on one line, not a speaker named Password saying "hunter2".
    """
    if fmt == "auto":
        fmt = None
    # Checked now, not on the first next(): a bad --format is a usage error, not a bad input.
    if fmt is not None and fmt not in FORMATS:
        raise ConfigError(f"unknown transcript format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}")
    return _read(iter(lines), fmt, name, redact_line)


def detect_format(sample_lines: list[str], *, name: str = "<stdin>") -> str:
    """Guess the format of a transcript from its first lines; raise InputError if they are all blank.

    Rules, first match wins:
      0. a first line of a coding agent's session log: "claude-code" (an object with "sessionId" or
         "leafUuid", or a file-history snapshot) or "codex" ({"type": "session_meta" ..., "payload": {...}});
      1. first non-blank char "{": "jsonl" if the first non-blank line is a JSON object on its own
         (and not a one-line {"messages"/"conversation"/"sessions": [...]} document), else "json";
      2. first non-blank char "[" followed by "{", "[", "]" or '"', or a sample that is one whole JSON
         document: "json" (so "[2024-05-01 10:00] Alex: hi" is not taken for JSON);
      3. a speaker heading ("## User") or bold name ("**Alex:** hi") outside code fences: "markdown"
         (a level-1 heading on the first line alone is a document title, not evidence);
      4. at least half of the non-blank lines start with "Name: ": "speaker";
      5. otherwise "text".
    """
    lines = [_chomp(line) for line in _without_bom(iter(sample_lines))]
    content = [line for line in lines if line.strip()]
    if not content:
        raise InputError(f"{_one_line(name)} is empty", hint=_EMPTY_HINT)
    first = content[0].lstrip()
    if first.startswith("{") and (session := _session_log_format(first)):
        return session
    if first.startswith("{"):
        return "jsonl" if _is_message_line(first) else "json"
    joined = "\n".join(content).lstrip()
    if first.startswith("[") and (_JSON_ARRAY_START.match(joined) or _parses_as_json(joined)):
        return "json"
    if _has_markdown_speaker(lines):
        return "markdown"
    speaker_lines = sum(1 for line in content if _SPEAKER_PREFIX.match(line))
    if speaker_lines * 2 >= len(content):
        return "speaker"
    return "text"


# File signatures of formats people drop on a command by mistake: named in the error rather than read as Latin-1 text.
_MAGIC = [(b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF87a", "a GIF image"), (b"GIF89a", "a GIF image"), (b"%PDF-", "a PDF document"),
          (b"PK\x03\x04", "a zip archive (or a .docx, .xlsx, .odt)"), (b"\x1f\x8b", "a gzip file"), (b"\x7fELF", "a program"),
          (b"SQLite format 3\x00", "an SQLite database"), (b"\xfd7zXZ\x00", "an xz file")]
_CONTROL_BYTES = frozenset(range(0x09)) | frozenset(range(0x0e, 0x1b)) | frozenset(range(0x1c, 0x20))


def _binary_kind(start: bytes) -> str | None:
    """What a file that starts with these bytes is, when it is no text: "a PNG image", "binary data", or None for text."""
    for magic, kind in _MAGIC:
        if start.startswith(magic):
            return kind
    head = start[:512]
    if b"\x00" not in head and head and sum(b in _CONTROL_BYTES for b in head) * 20 > len(head):  # no text encoding has these (a NUL says it itself)
        return "binary data"
    return None


def decode_lines(raw: Iterable[bytes], *, name: str) -> Iterator[str]:
    """Decode byte lines as UTF-8 (a BOM at the start is dropped), yielding one str per line.

    Chunks holding several lines are split ("\\n", "\\r\\n" or "\\r"), so line numbers in later
    errors match the file. Invalid UTF-8 raises InputError naming the line; a NUL byte raises
    InputError saying the input looks binary.
    """
    label = _one_line(name)
    line_no = 1  # line number at which the current chunk starts
    at_start = True
    for chunk in raw:
        if not chunk:
            continue
        if at_start and chunk.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise InputError(
                f"{label} is UTF-16 text, not UTF-8", hint=f"convert it first: iconv -f UTF-16 -t UTF-8 {label}"
            )
        if at_start and (kind := _binary_kind(chunk)) is not None:
            raise InputError(f"{label} is not text: it looks like {kind}", hint="give a UTF-8 text transcript (.txt, .md, .json, .jsonl)")
        if b"\x00" in chunk:
            where = line_no + _count_breaks(chunk[: chunk.index(b"\x00")])
            raise InputError(
                f"{label} looks like a binary file (NUL byte on line {where})",
                hint="give a UTF-8 text transcript (.txt, .md, .json, .jsonl)",
            )
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as err:
            where = line_no + _count_breaks(chunk[: err.start])
            raise InputError(
                f"{label} line {where}: not valid UTF-8 (byte 0x{chunk[err.start]:02x})",
                hint=f"convert it to UTF-8, e.g. iconv -f LATIN1 -t UTF-8 {label}",
            ) from None
        if at_start:
            text = text.removeprefix("\ufeff")
            at_start = False
        yield from _split_keep_ends(text)
        line_no += _count_breaks(chunk)


# ---------------------------------------------------------------------------- driver


def _read(it: Iterator[str], fmt: str | None, name: str, redact_line: Callable[[str], str] | None = None) -> Iterator[Message]:
    label = _one_line(name)
    it = _without_bom(it)
    if fmt is None:
        sample = _peek(it)
        fmt = detect_format(sample, name=label)
        it = itertools.chain(sample, it)
    if redact_line is not None and fmt in _OPENS_MESSAGE:
        it = _redacting(it, _OPENS_MESSAGE[fmt], redact_line)
    numbered = _NumberedLines(it)
    yield from _READERS[fmt](numbered, label)
    # Reached only with an explicit format: detection already rejected empty input.
    if not numbered.saw_content:
        raise InputError(f"{label} is empty", hint=_EMPTY_HINT)


def _speaker_opening(line: str) -> tuple[str, str] | None:
    m = _SPEAKER_PREFIX.match(line)
    return (m["speaker"], line[m.end():]) if m else None


def _markdown_opening(line: str) -> tuple[str, str] | None:
    marker = _markdown_marker(_chomp(line))
    return (marker[0], marker[2]) if marker else None


# format -> (speaker, rest of the line) when a line opens a message with a speaker
_OPENS_MESSAGE: dict[str, Callable[[str], tuple[str, str] | None]] = {"speaker": _speaker_opening, "markdown": _markdown_opening}


def _redacting(lines: Iterator[str], opening: Callable[[str], tuple[str, str] | None], redact_line: Callable[[str], str]) -> Iterator[str]:
    """Lines with secrets redacted where a speaker is split off: the opening line whole ("Password: hunter2"), and
    when it holds nothing after the speaker ("## Password"), the next line read as if it followed the label."""
    label = None
    for line in lines:
        if not isinstance(line, str):
            yield line
            continue
        if (opened := opening(line)) is not None:
            line = redact_line(line)
            label = opened[0] if not opened[1].strip() else None
        elif label is not None and line.strip():
            prefix = f"{label}: "
            line = redact_line(prefix + line).removeprefix(prefix)
            label = None
        yield line


def _peek(it: Iterator[str]) -> list[str]:
    """Read just enough lines to detect the format, without consuming a live pipe to its end."""
    sample: list[str] = []
    seen = 0
    for line in it:
        sample.append(line)
        if not line.strip():
            continue
        seen += 1
        # A first line starting with "{" decides json vs jsonl on its own: stop so `tail -f` streams.
        if (seen == 1 and line.lstrip().startswith("{")) or seen >= _SAMPLE_LINES:
            break
    return sample


class _NumberedLines:
    """Yields (1-based line number, line without its line ending) and notes whether any line had content."""

    def __init__(self, lines: Iterator[str]):
        self._lines = lines
        self.saw_content = False

    def __iter__(self) -> Iterator[tuple[int, str]]:
        for n, raw in enumerate(self._lines, 1):
            if not isinstance(raw, str):
                got = type(raw).__name__
                raise TypeError(f"read_messages wants str lines, got {got}; use decode_lines for bytes")
            line = _chomp(raw)
            if not self.saw_content and line.strip():
                self.saw_content = True
            yield n, line


Numbered = Iterable[tuple[int, str]]


# ---------------------------------------------------------------------------- text and speaker


def _read_text(numbered: Numbered, name: str) -> Iterator[Message]:
    for n, line in numbered:
        text = line.strip()
        if text:
            yield Message(id=f"LINE:{n}", speaker=None, text=text, line=n)


@dataclass
class _Draft:
    """A message still collecting lines: it is complete when the next speaker marker arrives."""

    speaker: str | None
    line: int
    timestamp: str | None = None
    maybe_title: bool = False  # markdown: a leading "# Heading" that may be the document title
    parts: list[str] = field(default_factory=list)

    def finish(self) -> Message | None:
        text = "\n".join(self.parts).strip()
        if not text:
            return None
        return Message(
            id=f"LINE:{self.line}", speaker=self.speaker, text=text, timestamp=self.timestamp, line=self.line
        )


def _read_speaker(numbered: Numbered, name: str) -> Iterator[Message]:
    draft: _Draft | None = None
    for n, line in numbered:
        match = _SPEAKER_PREFIX.match(line)
        if match is None:
            # Continuation line (blank ones too, to keep paragraphs); text before any speaker gets speaker None.
            if draft is None and line.strip():
                draft = _Draft(speaker=None, line=n)
            if draft is not None:
                draft.parts.append(line)
            continue
        if draft is not None and (message := draft.finish()):
            yield message
        # An unparseable bracket ("[10:00]", no date) is dropped rather than fatal: it is only a prefix.
        timestamp = normalize_timestamp(match["ts"]) if match["ts"] else None
        draft = _Draft(speaker=match["speaker"].strip(), line=n, timestamp=timestamp)
        draft.parts.append(line[match.end() :])
    if draft is not None and (message := draft.finish()):
        yield message


# ---------------------------------------------------------------------------- markdown


def _markdown_marker(line: str) -> tuple[str, int, str] | None:
    """(speaker, heading level or 0 for a bold name, text after the marker) if `line` starts a message."""
    if heading := _MD_HEADING.fullmatch(line):
        return heading["speaker"].strip(), len(heading["hashes"]), ""
    if bold := _MD_BOLD.match(line):
        return bold["speaker"].strip(), 0, line[bold.end() :]
    return None


def _fence_after(fence: str | None, line: str) -> str | None:
    """Track ``` / ~~~ code fences: headings inside code are content, not speakers."""
    stripped = line.lstrip(" ")
    if fence is None:
        for marker in ("```", "~~~"):
            if stripped.startswith(marker):
                return marker
        return None
    return None if stripped.startswith(fence) else fence


def _has_markdown_speaker(lines: list[str]) -> bool:
    fence: str | None = None
    first = True
    for line in lines:
        if fence is None and (marker := _markdown_marker(line)):
            _, level, _ = marker
            if not (first and level == 1):  # a lone leading "# Title" is no evidence of a chat
                return True
        fence = _fence_after(fence, line)
        if line.strip():
            first = False
    return False


def _read_markdown(numbered: Numbered, name: str) -> Iterator[Message]:
    draft: _Draft | None = None
    fence: str | None = None
    first = True
    for n, line in numbered:
        marker = _markdown_marker(line) if fence is None else None
        fence = _fence_after(fence, line)
        if marker is None:
            if draft is None and line.strip():
                draft = _Draft(speaker=None, line=n)  # preamble before the first speaker
            if draft is not None:
                draft.parts.append(line)
            if line.strip():
                first = False
            continue
        speaker, level, rest = marker
        if draft is not None:
            # Title rule: "# Chat export" on the first line followed by "## User" or "**Alex:**" is the
            # document's title, not a speaker; any text under it is kept as a speaker-less message.
            if draft.maybe_title and level != 1:
                draft.speaker = None
            if message := draft.finish():
                yield message
        draft = _Draft(speaker=speaker, line=n, maybe_title=(first and level == 1))
        if rest:
            draft.parts.append(rest)
        first = False
    if draft is not None and (message := draft.finish()):
        yield message


# ---------------------------------------------------------------------------- jsonl and json


def _read_jsonl(numbered: Numbered, name: str) -> Iterator[Message]:
    for n, line in numbered:
        if not line.strip():
            continue
        obj = _loads(line, name, first_line=n)
        message = _message_from_object(obj, where=f"{name} line {n}", default_id=f"LINE:{n}", line=n)
        if message is not None:
            yield message


def _read_json(numbered: Numbered, name: str) -> Iterator[Message]:
    text = "\n".join(line for _, line in numbered)
    if not text.strip():
        return  # the driver reports the empty input
    doc = _loads(text, name, first_line=1)
    for index, (obj, session) in enumerate(_json_message_objects(doc, name), 1):
        where = f"{name} message {index}"  # parsed documents have no per-object line numbers
        message = _message_from_object(obj, where=where, default_id=f"MSG:{index}", session=session)
        if message is not None:
            yield message


def _loads(text: str, name: str, *, first_line: int) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        line = first_line + err.lineno - 1
        raise InputError(
            f"{name} line {line}: invalid JSON ({err.msg} at column {err.colno})",
            hint="fix or remove that line, or force another format with --input-format",
        ) from None
    except (ValueError, RecursionError) as err:  # e.g. a number with more than 4300 digits, or [[[[...
        reason = "nested too deeply" if isinstance(err, RecursionError) else _one_line(str(err))
        raise InputError(
            f"{name} line {first_line}: unreadable JSON ({reason})", hint="fix or remove that line"
        ) from None


def _conversation_list(obj: object) -> list | None:
    """The message list of a conversation object ({"messages": [...]} / {"conversation": [...]}), else None.

    An object with a text of its own is a message, whatever else it holds ("text": null is no text)."""
    if not isinstance(obj, dict) or obj.get("text") is not None or obj.get("content") is not None:
        return None
    for key in ("messages", "conversation"):
        if isinstance(obj.get(key), list):
            return obj[key]
    return None


def _json_message_objects(doc: object, name: str) -> Iterator[tuple[object, str | None]]:
    """Yield (message object, session id) for every message in a JSON document, in order."""
    if isinstance(doc, dict) and isinstance(doc.get("sessions"), list):
        for i, session in enumerate(doc["sessions"], 1):
            messages = _conversation_list(session)
            if messages is None:
                raise InputError(
                    f'{name}: session {i} is not an object with a "messages" list',
                    hint='write sessions as {"sessions": [{"id": "s1", "messages": [...]}]}',
                )
            for obj in messages:
                yield obj, _session_id(session)
        return
    messages = _conversation_list(doc)
    if messages is not None:
        for obj in messages:
            yield obj, _session_id(doc)
        return
    if not isinstance(doc, list):
        raise InputError(
            f'{name}: expected a list of messages or an object with a "messages" list, got {_json_type(doc)}',
            hint='write [{"role": "user", "content": "hi"}, ...] or {"messages": [...]}',
        )
    # A top-level list may hold messages, or conversations each with their own messages.
    for item in doc:
        inner = _conversation_list(item)
        if inner is None:
            yield item, None
        else:
            for obj in inner:
                yield obj, _session_id(item)


def _session_id(container: dict) -> str | None:
    for key in ("session", "session_id", "id"):
        if (value := _scalar_str(container.get(key))) is not None:
            return value
    return None


def _message_from_object(
    obj: object, *, where: str, default_id: str, line: int | None = None, session: str | None = None
) -> Message | None:
    """Build a Message from one JSON message object; None when it carries no text (e.g. a tool call)."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected a message object, got {_json_type(obj)}", hint=_SHAPE_HINT)
    text = _object_text(obj, where)
    if not text:
        return None
    return Message(
        id=_object_id(obj, where) or default_id,
        speaker=_object_speaker(obj),
        text=text,
        timestamp=_object_timestamp(obj, where),
        session=_object_session(obj) or session,
        line=line,
    )


def _object_text(obj: dict, where: str) -> str | None:
    keys = [key for key in ("text", "content") if key in obj]
    if not keys:
        if "tool_calls" in obj or "function_call" in obj:
            return None  # an OpenAI tool call without text: nothing to remember
        raise InputError(f'{where}: message has no "text" or "content" field', hint=_SHAPE_HINT)
    values = [(key, obj[key]) for key in keys if obj[key] is not None]
    if not values:
        return None  # "content": null, e.g. a tool call
    key, value = values[0]
    if isinstance(value, str):
        text = value
    elif isinstance(value, list):
        text = _join_text_parts(value)
    else:
        raise InputError(
            f'{where}: "{key}" must be a string or a list of text parts, got {_json_type(value)}', hint=_SHAPE_HINT
        )
    return _clean(text).strip()


def _join_text_parts(parts: list) -> str:
    """OpenAI/Anthropic content parts: keep the text ones, skip images, tool uses and the like."""
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, dict)
            and part.get("type", "text") in ("text", "input_text", "output_text")
            and isinstance(part.get("text"), str)
        ):
            texts.append(part["text"])
    return "\n".join(texts)


_TOOL_ROLES = frozenset({"tool", "function", "ipython"})


def _object_speaker(obj: dict) -> str | None:
    # A tool's or function's output is a tool's, whatever "name" it carries (a tool named after the user is no user).
    role = obj.get("role")
    if isinstance(role, str) and role.strip().casefold() in _TOOL_ROLES:
        return role.strip().casefold()
    # OpenAI's optional "name" is more specific than its "role"; "speaker" is hymem's own field.
    for key in ("speaker", "name", "role"):
        value = obj.get(key)
        if isinstance(value, str) and value.strip():
            return _clean(value.strip())
    return None


def _object_id(obj: dict, where: str) -> str | None:
    value = obj.get("id")
    if value is None or isinstance(value, str):
        return _scalar_str(value)  # a blank one: None
    if (text := _scalar_str(value)) is None:
        raise InputError(f'{where}: "id" must be a string or a number, got {_json_type(value)}', hint=_SHAPE_HINT)
    return text


def _object_session(obj: dict) -> str | None:
    for key in ("session", "session_id"):
        if (value := _scalar_str(obj.get(key))) is not None:
            return value
    return None


def _object_timestamp(obj: dict, where: str) -> str | None:
    for key in ("timestamp", "time", "date", "created_at"):
        value = obj.get(key)
        if value is None or value == "":
            continue
        # An explicit time we cannot read is an error, not a silent None: it would break --since/--until.
        if (normalized := normalize_timestamp(value)) is None:
            raise InputError(f'{where}: cannot read "{key}" value {_short_repr(value)} as a time', hint=_TIME_HINT)
        return normalized
    return None


def _scalar_str(value: object) -> str | None:
    """A JSON string or number as str (3 -> "3", 3.0 -> "3"); None for anything else, blank strings too."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return _clean(value) if value.strip() else None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    return None


# ---------------------------------------------------------------------------- small helpers


def _chomp(line: str) -> str:
    return line.rstrip("\r\n")


def _without_bom(lines: Iterator[str]) -> Iterator[str]:
    """The lines with a byte-order mark at the start of the first one dropped (one later in the text is kept)."""
    first = next(lines, None)
    if first is None:
        return
    yield first.removeprefix("\ufeff") if isinstance(first, str) else first
    yield from lines


def _parses_as_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _is_message_line(line: str) -> bool:
    """True if `line` alone is a JSON object that is not a whole one-line document ({"messages": [...]})."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and _conversation_list(obj) is None and not isinstance(obj.get("sessions"), list)


def _clean(text: str) -> str:
    # Lone UTF-16 halves from JSON escapes cannot be stored as UTF-8; mark them instead of failing later.
    return _SURROGATES.sub("\ufffd", text)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _short_repr(value: object, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _one_line(text: str) -> str:
    # Error messages are one line: a file name or JSON error must not break that.
    return " ".join(text.splitlines())


def _count_breaks(data: bytes) -> int:
    return len(_LINE_BREAK_BYTES.findall(data))


def _split_keep_ends(text: str) -> Iterator[str]:
    start = 0
    for match in _LINE_BREAK.finditer(text):
        yield text[start : match.end()]
        start = match.end()
    if start < len(text):
        yield text[start:]


# ---------------------------------------------------------------------------- coding-agent session logs
#
# Claude Code (~/.claude/projects/<project>/<session>.jsonl) and Codex CLI
# (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) log a session one JSON object a line. What the user
# typed and what the assistant answered become messages (speakers "user" and "assistant"); tool calls,
# tool results, thinking, context the client injects (system reminders, AGENTS.md, environment) and
# subagent conversations are dropped: they are not statements of the user, and never reach the writer.

_CLAUDE_TYPES = {"user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation", "progress"}
_CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}

# Text the client wraps around a user's turn that the user did not say (slash commands, shell escapes, reminders).
_INJECTED = re.compile(r"\s*(?:<(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr|bash-input|"
                       r"bash-stdout|bash-stderr|user_instructions|environment_context|user_shell_command|turn_aborted|"
                       r"permissions instructions)>|# AGENTS\.md instructions|Caveat: The messages below were generated by the user|"
                       r"\[Request interrupted by user)")


def _drop_reminders(text: str, start: str = "<system-reminder>", end: str = "</system-reminder>") -> str:
    """`text` without the <system-reminder> blocks a client inserts into a turn (an unclosed one runs to the end);
    a scan with str.find, linear in the text however many openers it holds."""
    parts, at = [], 0
    while (opened := text.find(start, at)) >= 0:
        parts.append(text[at:opened])
        closed = text.find(end, opened + len(start))
        if closed < 0:
            return "".join(parts)
        at = closed + len(end)
    return "".join(parts) + text[at:]


def _session_log_format(line: str) -> str | None:
    """"claude-code" or "codex" when `line` is a line of that agent's session log, else None."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        return None
    if obj["type"] in _CODEX_TYPES and isinstance(obj.get("payload"), dict):
        return "codex"
    if obj["type"] in _CLAUDE_TYPES and ("sessionId" in obj or "leafUuid" in obj or obj["type"] == "file-history-snapshot"):
        return "claude-code"
    return None


def _log_objects(numbered: Numbered, name: str) -> Iterator[tuple[int, dict]]:
    for n, line in numbered:
        if not line.strip():
            continue
        obj = _loads(line, name, first_line=n)
        if not isinstance(obj, dict):
            raise InputError(f"{name} line {n}: expected a JSON object, got {_json_type(obj)}",
                             hint="a session log has one JSON object a line; force another format with --input-format")
        yield n, obj


def _block_text(content: object, kinds: tuple[str, ...]) -> str:
    """The text of a message's content: a string, or the blocks of the given kinds (tool calls, results, thinking and
    images are other kinds, and left out)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") in kinds and isinstance(b.get("text"), str))


def _spoken(text: str, speaker: str) -> str:
    """What the speaker said: reminders the client inserted removed; nothing when the whole turn was injected."""
    text = _clean(_drop_reminders(text)).strip()
    return "" if speaker == "user" and _INJECTED.match(text) else text


def _read_claude_code(numbered: Numbered, name: str) -> Iterator[Message]:
    for n, obj in _log_objects(numbered, name):
        kind, message = obj.get("type"), obj.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue  # summaries, snapshots, system events
        if obj.get("isSidechain") or obj.get("isMeta") or obj.get("isCompactSummary") or obj.get("isApiErrorMessage"):
            continue  # a subagent's conversation, client notes, a compaction summary, an API error: not the user's words
        text = _spoken(_block_text(message.get("content"), ("text",)), kind)
        if text:
            yield Message(id=_scalar_str(obj.get("uuid")) or f"LINE:{n}", speaker=kind, text=text,
                          timestamp=normalize_timestamp(obj.get("timestamp")), session=_scalar_str(obj.get("sessionId")), line=n)


def _read_codex(numbered: Numbered, name: str) -> Iterator[Message]:
    session = None
    for n, obj in _log_objects(numbered, name):
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            continue
        if obj.get("type") == "session_meta":
            session = _scalar_str(payload.get("id")) or session
            continue
        role = payload.get("role")
        if obj.get("type") != "response_item" or payload.get("type") != "message" or role not in ("user", "assistant"):
            continue  # tool calls and their output, reasoning, events, turn context, developer instructions
        text = _spoken(_block_text(payload.get("content"), ("input_text", "output_text", "text")), role)
        if text:
            yield Message(id=f"LINE:{n}", speaker=role, text=text, timestamp=normalize_timestamp(obj.get("timestamp")),
                          session=session, line=n)


_READERS: dict[str, Callable[[Numbered, str], Iterator[Message]]] = {
    "text": _read_text,
    "speaker": _read_speaker,
    "json": _read_json,
    "jsonl": _read_jsonl,
    "markdown": _read_markdown,
    "claude-code": _read_claude_code,
    "codex": _read_codex,
}
