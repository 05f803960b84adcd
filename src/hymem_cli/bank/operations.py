"""Reading and checking memory operations (the public format that `apply` reads) and memory ids."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

from hymem_cli._errors import InputError, NotFoundError
from hymem_cli.domain import OPS, Operation

KNOWN_KEYS = {"op", "target", "text", "reason", "evidence", "source_ids", "event_time", "speaker"}
MAX_TEXT = 2000  # characters; a "fact" longer than this is a runaway, not a memory
MAX_ID = 2**63 - 1  # SQLite's largest integer: no memory or revision id of a bank is larger
FUTURE_SLACK = timedelta(days=1)  # a clock a day ahead (time zones, skew) is not yet "the future"
# ISO 8601's extended form, as hymem writes and compares times: a date, then optionally a time and a zone.
_ISO_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]{1,9})?)?(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?)?")


def parse_memory_id(value: str) -> int:
    """'m12' or '12' -> 12. ASCII digits only, and small enough for SQLite's integers."""
    match = re.fullmatch(r"[mM]?([0-9]{1,19})", str(value).strip())
    if match is None:
        raise NotFoundError(f"{value!r} is not a memory id", hint="memory ids look like m12; find them with `hymem search`")
    if int(match.group(1)) > MAX_ID:
        raise NotFoundError(f"{str(value).strip()} is not a memory id: ids end at m{MAX_ID}", hint="find memory ids with `hymem search`")
    return int(match.group(1))


def id_problem(value: int, what: str) -> str | None:
    """Why `value` cannot be a bank's id (revision, chunk, memory), or None: ids run from 1 to 2^63-1."""
    if not 1 <= value <= MAX_ID:
        return f"{what} {value} is out of range (ids run from 1 to {MAX_ID})"
    return None


def parse_time(value: str) -> datetime | None:
    """An ISO 8601 time ("2024-06-20T09:15:00Z", "2024-06-20 09:15", "2024-06-20") in UTC; None if it is none.
    A time without a zone is taken as UTC, as hymem stores times."""
    if not isinstance(value, str) or not _ISO_TIME.fullmatch(value):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace(",", "."))
    except ValueError:  # 2024-02-30, 25:00
        return None
    return parsed.replace(tzinfo=timezone.utc) if parsed.tzinfo is None else parsed.astimezone(timezone.utc)


def time_problem(value: str | None, what: str = "event_time", allow_future: bool = False) -> str | None:
    """Why `value` cannot be stored as the time `what`, or None: it must be a real ISO 8601 time and, unless
    `allow_future`, no more than a day ahead of now (a fact from the future could never be superseded by newer evidence)."""
    if value is None:
        return None
    parsed = parse_time(value)
    if parsed is None:
        return f"{what} {value[:40]!r} is not an ISO 8601 time such as 2024-06-20T09:15:00Z"
    if not allow_future and parsed > datetime.now(timezone.utc) + FUTURE_SLACK:
        return f"{what} {value} is in the future"
    return None


def problem(op: Operation) -> str | None:
    """What is structurally wrong with an operation, or None. Bank-state checks come later."""
    if op.op not in OPS:
        return f"unknown op {op.op!r} (expected one of {', '.join(OPS)})"
    if op.op == "add" and op.target:
        return "add takes no target"
    if op.op != "add" and not op.target:
        return f"{op.op} needs a target memory id"
    if op.op != "delete":
        if not op.text or not op.text.strip():
            return f"{op.op} needs non-empty text"
        if len(op.text) > MAX_TEXT:
            return f"text is {len(op.text)} characters; the limit is {MAX_TEXT}"
    if op.op in ("supersede", "delete") and not (op.reason and op.reason.strip()):
        return f"{op.op} needs a reason"
    if not all(isinstance(s, str) for s in op.source_ids):
        return "source_ids must be a list of strings"
    if (why := time_problem(op.event_time)) is not None:
        return why
    strings = (op.op, op.target, op.text, op.reason, op.evidence, op.event_time, op.speaker, *op.source_ids)
    if any(isinstance(v, str) and re.search("[\ud800-\udfff]", v) for v in strings):  # SQLite cannot store these
        return "text is not valid Unicode (it holds a lone surrogate)"
    return None


def from_dict(obj: object, where: str) -> Operation:
    """Build an operation from one decoded JSON object; `where` names it in errors ("ops.jsonl line 3")."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected a JSON object with an 'op' key", hint="see `hymem apply --help` for the format")
    unknown = set(obj) - KNOWN_KEYS
    if unknown:
        raise InputError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))}",
            hint=f"known keys: {', '.join(sorted(KNOWN_KEYS))}",
        )
    for key in ("op", "text", "reason", "evidence", "event_time", "speaker"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise InputError(f"{where}: {key} must be a string")
    if obj.get("target") is not None and not isinstance(obj["target"], (str, int)):
        raise InputError(f"{where}: target must be a memory id such as \"m12\"")
    source_ids = obj.get("source_ids") or []
    if not isinstance(source_ids, list):
        raise InputError(f"{where}: source_ids must be a list of strings")
    op = Operation(
        op=str(obj.get("op", "")),
        target=None if obj.get("target") is None else str(obj["target"]),
        text=obj.get("text"),
        reason=obj.get("reason"),
        evidence=obj.get("evidence"),
        source_ids=[str(s) for s in source_ids],
        event_time=obj.get("event_time"),
        speaker=obj.get("speaker"),
    )
    if (why := problem(op)) is not None:
        raise InputError(f"{where}: {why}", hint="see `hymem apply --help` for the format")
    return op


def parse_lines(lines, name: str) -> list[Operation]:
    """Parse JSONL operations; blank lines are skipped; every error names its line."""
    ops = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:  # RecursionError: "[[[[..." nested too deeply
            raise InputError(f"{name} line {n}: invalid JSON ({getattr(exc, 'msg', 'nested too deeply')})", hint="each line must be one JSON object") from None
        ops.append(from_dict(obj, f"{name} line {n}"))
    if not ops:
        raise InputError(f"{name} has no operations", hint="give one JSON object per line")
    return ops
