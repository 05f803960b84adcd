"""Export a bank as JSON Lines and import such a file into an empty bank, ids and history intact.

The format (version 2), one JSON object a line, in this order:

  {"type": "hymem-export", "format": 2, "embed_model": ..., "embed_dim": ...}
  {"type": "revision", ...}    every table's columns, by id; JSON columns as JSON values
  {"type": "chunk", ...}
  {"type": "version", ...}     its id and chain as every command shows them ("m12")
  {"type": "retirement", ...}  by version id ("m12"), with its successor ("m13")
  {"type": "rejection", ...}

Format 1 (hymem before 0.2) wrote memory ids as integers and keyed writer chunks by content alone;
it is still read, and its writer chunks are keyed as this version keys them (domain.chunk_key).

Vectors are not exported: importing recomputes them from the text with the bank's own embedder,
so an export also moves a bank to another embedding model.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Callable, Iterable, Iterator

from hymem_cli._errors import BankError, InputError
from hymem_cli.bank import db
from hymem_cli.bank.operations import MAX_ID, MAX_TEXT, id_problem, parse_time, time_problem
from hymem_cli.bank.queue import payload_problem
from hymem_cli.bank.store import Bank
from hymem_cli.domain import chunk_key, memory_id
from hymem_cli.screen.provenance import ALL_ORIGINS

FORMAT = 2
READS = (1, 2)
# Columns holding memory ids, written in their public form ("m12") from format 2 on.
MEMORY_ID_COLUMNS = {"version": ("id", "chain"), "retirement": ("version", "successor"), "queued_message": ("version",)}
HEADER_TYPE = "hymem-export"
EMBED_BATCH = 256  # texts per embedder call while importing; progress is reported per batch

_INT, _STR, _OPT_INT, _OPT_STR = (int,), (str,), (int, type(None)), (str, type(None))
_LIST, _DICT, _OPT_DICT, _OPT_LIST = (list,), (dict,), (dict, type(None)), (list, type(None))

# Every record type: its table, and each column with the JSON types it may hold. A column listed in
# JSON_COLUMNS is stored as JSON text and exported as the JSON value itself.
TABLES: dict[str, tuple[str, dict[str, tuple[type, ...]]]] = {
    "revision": ("revisions", {
        "id": _INT, "time": _STR, "command": _STR, "source": _OPT_STR, "writer": _OPT_DICT, "counts": _DICT, "state": _STR,
    }),
    "chunk": ("chunks", {
        "id": _INT, "hash": _STR, "revision": _INT, "source": _STR, "message_ids": _LIST, "first_line": _OPT_INT,
        "last_line": _OPT_INT, "start_time": _OPT_STR, "end_time": _OPT_STR, "text": _STR,
    }),
    "version": ("versions", {
        "id": _INT, "chain": _INT, "op": _STR, "text": _STR, "speaker": _OPT_STR, "reason": _OPT_STR, "evidence": _OPT_STR,
        "revision": _INT, "chunk": _OPT_INT, "source": _OPT_STR, "source_ids": _LIST, "event_time": _OPT_STR, "created_at": _STR,
        "tags": _OPT_LIST, "owner": _OPT_STR, "kind": _OPT_STR, "valid_until": _OPT_STR, "origin": _OPT_STR,
        "context": _OPT_STR, "layer": _OPT_STR,
    }),
    "retirement": ("retirements", {
        "version": _INT, "revision": _INT, "how": _STR, "successor": _OPT_INT, "reason": _OPT_STR,
    }),
    "rejection": ("rejections", {
        "id": _INT, "revision": _INT, "chunk": _OPT_INT, "operation": _DICT, "reason": _STR,
    }),
    # the writer's queue (bank/queue.py); who holds a chunk is no part of an export
    "queue": ("queue", {
        "id": _INT, "content": _STR, "source": _STR, "messages": _DICT, "queued_at": _STR, "state": _STR, "attempts": _INT,
        "last_error": _OPT_STR, "failed_at": _OPT_STR, "next_try": _OPT_STR, "done_at": _OPT_STR, "revision": _OPT_INT,
        "seconds": (int, float, type(None)),
    }),
    "queued_message": ("queued_messages", {"version": _INT, "queue": _INT}),
}
JSON_COLUMNS = {"writer", "counts", "message_ids", "source_ids", "operation", "tags", "messages"}
# Columns a record may leave out (written only when set; files from before they existed lack them).
OPTIONAL_COLUMNS = {"version": ("tags", "owner", "kind", "valid_until", "origin", "context", "layer")}
KEY_COLUMN = {"retirement": "version", "queued_message": "version"}  # the primary key where it is not `id`
ALLOWED = {("version", "op"): ("add", "update", "supersede"), ("retirement", "how"): ("updated", "superseded", "deleted"),
           ("queue", "state"): ("queued", "done")}
# Columns holding a row's id or a reference to one: SQLite's integers, from 1 up (hymem never writes 0 or less).
ID_COLUMNS = {"revision": ("id",), "chunk": ("id", "revision"), "version": ("id", "chain", "revision", "chunk"),
              "retirement": ("version", "revision", "successor"), "rejection": ("id", "revision", "chunk"),
              "queue": ("id", "revision"), "queued_message": ("version", "queue")}
# Times every hymem writes, and when they may be absent; none lies more than a day ahead of the importing clock.
TIME_COLUMNS = {"revision": ("time",), "chunk": ("start_time", "end_time"), "version": ("created_at", "event_time"),
                "queue": ("queued_at", "failed_at", "next_try", "done_at")}
# Every origin but "said", which is stored as NULL (a participant's own words)
VERSION_ORIGINS = tuple(o for o in ALL_ORIGINS if o != "said")
# The commands a revision records (ingest/pipeline.py, commands/apply.py, bank/revert.py, memory_service.py), with the
# screens switched off while it ran (Screen.label).
COMMAND = re.compile(r"(?P<base>add --raw|add --queue|add|write|apply|forget|revert (?P<reverted>[0-9]{1,19})|mcp [a-z_]{1,40})"
                     r"(?: \(unscreened: (?:secrets|instructions)(?:, (?:secrets|instructions))?\))?")
CLOCK_SLACK = timedelta(minutes=5)  # revisions are stamped in id order; a clock set back by a little is no forgery
INGESTS = ("add", "add --raw", "add --queue", "write")  # the only commands that store chunks and rejections
WRITERS = ("add", "write")  # the commands whose revision names its writer


# -- export -----------------------------------------------------------------------------------


def export_records(bank: Bank, current: bool = False) -> Iterator[dict]:
    """The bank as export records, header first, from one consistent snapshot.

    current=True keeps revisions and chunks but only current versions, and no retirements or
    rejections: it imports, but the facts' history is gone.
    """
    bank.conn.execute("BEGIN")  # one read snapshot, so a concurrent writer cannot tear the export
    try:
        dim = bank.meta("embed_dim")
        yield {"type": HEADER_TYPE, "format": FORMAT, "embed_model": bank.meta("embed_model"), "embed_dim": int(dim) if dim else None}
        for kind, (table, columns) in TABLES.items():
            if current and kind in ("retirement", "rejection"):
                continue
            where = ""
            if current and kind in ("version", "queued_message"):
                where = f" WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = {table}.{'id' if kind == 'version' else 'version'})"
            key = KEY_COLUMN.get(kind, "id")
            for row in bank.conn.execute(f"SELECT {', '.join(columns)} FROM {table}{where} ORDER BY {key}"):
                record = {"type": kind}
                for col in columns:
                    value = row[col]
                    record[col] = json.loads(value) if col in JSON_COLUMNS and value is not None else value
                for col in MEMORY_ID_COLUMNS.get(kind, ()):
                    record[col] = memory_id(record[col]) if record[col] is not None else None
                for col in OPTIONAL_COLUMNS.get(kind, ()):
                    if record[col] is None:
                        del record[col]
                yield record
    finally:
        bank.conn.execute("COMMIT")


def dumps(record: dict) -> str:
    """One export line; keys in column order, so export → import → export is byte-identical."""
    return json.dumps(record, ensure_ascii=False)


# -- import -----------------------------------------------------------------------------------


@dataclass
class ExportFile:
    """A parsed, checked export: records grouped by type, each group in key order."""

    header: dict
    records: dict[str, list[dict]] = field(default_factory=lambda: {kind: [] for kind in TABLES})
    lines: dict[tuple[str, int], int] = field(default_factory=dict)  # (type, key) -> its line in the file

    def where(self, name: str, kind: str, key: int) -> str:
        return f"{name} line {self.lines[(kind, key)]}"

    @property
    def counts(self) -> dict[str, int]:
        return {kind: len(rows) for kind, rows in self.records.items()}


def parse_export(lines: Iterable[str], name: str) -> ExportFile:
    """Parse and check every line of an export before anything is written; errors name the line."""
    header: dict | None = None
    rows: list[tuple[int, str, dict]] = []  # (line, type, record)
    defined: dict[tuple[str, int], int] = {}  # (type, key) -> line: duplicates and references
    hashes: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{name} line {n}"
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:  # RecursionError: nested too deeply
            raise InputError(f"{where}: invalid JSON ({getattr(exc, 'msg', 'nested too deeply')})", hint="each line must be one JSON object from `hymem export`") from None
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object with a 'type' key", hint="give a file written by `hymem export`")
        if header is None:
            header = _check_header(obj, where)
            continue
        kind = obj.get("type")
        if kind == HEADER_TYPE:
            raise InputError(f"{where}: a second export header", hint="import one export at a time")
        if kind not in TABLES:
            raise InputError(f"{where}: unknown record type {kind!r}", hint=f"known types: {', '.join(TABLES)}")
        record = _check_record(kind, obj, where, public_ids=header["format"] >= 2)
        key = (kind, record[KEY_COLUMN.get(kind, "id")])
        if key in defined:
            raise InputError(f"{where}: duplicate {kind} {key[1]} (first on line {defined[key]})")
        defined[key] = n
        if kind == "chunk":
            if record["hash"] in hashes:
                raise InputError(f"{where}: duplicate chunk hash (first on line {hashes[record['hash']]})")
            hashes[record["hash"]] = n
        rows.append((n, kind, record))
    if header is None:
        raise InputError(f"{name} is empty", hint="give a file written by `hymem export`")
    export = ExportFile(header=header, lines=defined)
    for n, kind, record in rows:
        _check_references(kind, record, defined, f"{name} line {n}")
        export.records[kind].append(record)
    for kind, records in export.records.items():
        records.sort(key=lambda r, key=KEY_COLUMN.get(kind, "id"): r[key])
    _check_limits(export, defined, name)
    _check_chains(export, defined, name)
    _check_provenance(export, name)
    if header["format"] == 1:  # writer chunks were keyed by content alone then
        writers = {r["id"]: r["writer"] for r in export.records["revision"]}
        for chunk in export.records["chunk"]:
            chunk["hash"] = chunk_key(chunk["hash"], writers.get(chunk["revision"]))
    return export


def _memory_ids_as_numbers(kind: str, obj: dict, where: str) -> dict:
    """A format-2 record with its memory ids ("m12") as the bank's numbers; anything else is named."""
    obj = dict(obj)
    for col in MEMORY_ID_COLUMNS.get(kind, ()):
        value = obj.get(col)
        if value is None:
            continue
        if not isinstance(value, str) or not re.fullmatch(r"m[0-9]{1,19}", value) or int(value[1:]) > MAX_ID:
            raise InputError(f"{where}: {kind} {col} must be a memory id such as \"m12\"", hint="give a file written by `hymem export`")
        obj[col] = int(value[1:])
    return obj


def _check_header(obj: dict, where: str) -> dict:
    if obj.get("type") != HEADER_TYPE:
        raise InputError(f"{where}: expected the export header {{\"type\": \"{HEADER_TYPE}\", ...}}", hint="give a file written by `hymem export`")
    if obj.get("format") not in READS or isinstance(obj.get("format"), bool):
        raise InputError(f"{where}: unsupported export format {obj.get('format')!r} (this hymem reads formats {', '.join(map(str, READS))})",
                         hint="import it with the hymem that exported it, or upgrade: pip install -U hymem")
    return obj


def _check_record(kind: str, obj: dict, where: str, public_ids: bool = True) -> dict:
    columns = TABLES[kind][1]
    given = set(obj) - {"type"}
    if unknown := given - set(columns):
        raise InputError(f"{where}: unknown key(s) in {kind}: {', '.join(sorted(unknown))}")
    if missing := [c for c in columns if c not in given and c not in OPTIONAL_COLUMNS.get(kind, ())]:
        raise InputError(f"{where}: {kind} lacks {', '.join(missing)}")
    obj = {**{c: None for c in OPTIONAL_COLUMNS.get(kind, ())}, **obj}
    if public_ids:
        obj = _memory_ids_as_numbers(kind, obj, where)
    for col, types in columns.items():
        value = obj[col]
        # bool is an int to Python, never to hymem
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            wanted = " or ".join("null" if t is type(None) else {int: "integer", str: "string", list: "list", dict: "object"}[t] for t in types)
            raise InputError(f"{where}: {kind} {col} must be {wanted}")
        if (kind, col) in ALLOWED and value not in ALLOWED[(kind, col)]:
            raise InputError(f"{where}: {kind} {col} {value!r} is not one of {', '.join(ALLOWED[(kind, col)])}")
    for col in ("message_ids", "source_ids", "tags"):
        if col in columns and obj[col] is not None and not all(isinstance(s, str) for s in obj[col]):
            raise InputError(f"{where}: {kind} {col} must be a list of strings")
    for col in ID_COLUMNS[kind]:
        if obj[col] is not None and (why := id_problem(obj[col], f"{kind} {col}")):
            raise InputError(f"{where}: {why}", hint="give a file written by `hymem export`")
    for col in ("first_line", "last_line"):
        if col in columns and obj[col] is not None and not -MAX_ID - 1 <= obj[col] <= MAX_ID:
            raise InputError(f"{where}: {kind} {col} {obj[col]} is out of range", hint="give a file written by `hymem export`")
    for col in TIME_COLUMNS.get(kind, ()):
        if obj[col] is not None and (why := time_problem(obj[col], f"{kind} {col}")):
            raise InputError(f"{where}: {why}", hint="a time is ISO 8601 and no later than now; fix or drop the record")
    if kind == "version" and obj["origin"] is not None and obj["origin"] not in VERSION_ORIGINS:
        raise InputError(f"{where}: version origin {obj['origin'][:40]!r} is not one of {', '.join(VERSION_ORIGINS)}",
                         hint="leave origin out for a participant's own words; hymem writes no other value")
    if kind == "version" and not obj["text"].strip():
        raise InputError(f"{where}: version text is empty")
    if kind == "version" and obj["layer"] not in (None, "message"):
        raise InputError(f"{where}: version layer {obj['layer'][:40]!r} is not message", hint="leave layer out for a fact")
    if kind == "queue" and (why := payload_problem(obj["messages"])):
        raise InputError(f"{where}: queue messages {why}", hint="give a file written by `hymem export`")
    return {col: obj[col] for col in columns}


def _check_limits(export: ExportFile, defined: dict[tuple[str, int], int], name: str) -> None:
    """The limits `apply` holds: no NUL in any text, and a fact no longer than MAX_TEXT unless raw ingest stored it
    (a raw memory is a whole message, however long)."""
    raw = {r["id"] for r in export.records["revision"] if r["command"].startswith("add --raw")}
    messages = {v["id"] for v in export.records["version"] if v["layer"] == "message"}
    for kind, fields in (("version", ("text", "reason", "evidence", "speaker")), ("chunk", ("text", "source")), ("revision", ("source",))):
        for record in export.records[kind]:
            where = f"{name} line {defined[(kind, record['id'])]}"
            for col in fields:
                if isinstance(record.get(col), str) and "\x00" in record[col]:
                    raise InputError(f"{where}: {kind} {col} holds a NUL character", hint="an export written by hymem never does; fix or drop the record")
            if kind == "version" and record["revision"] not in raw and record["id"] not in messages and len(record["text"]) > MAX_TEXT:
                raise InputError(f"{where}: version text is {len(record['text'])} characters; the limit is {MAX_TEXT}",
                                 hint="only raw ingest stores longer texts")


def _check_chains(export: ExportFile, defined: dict[tuple[str, int], int], name: str) -> None:
    """The rules every bank holds (Bank.verify), checked on the file before anything is written: a retirement is
    no older than its version, a successor is newer and in the same chain (so no cycle), a chain's root is its own
    chain and its one add, and each chain keeps one current version, or ends in a deletion."""
    versions = {v["id"]: v for v in export.records["version"]}
    retired = {r["version"]: r for r in export.records["retirement"]}
    for v in versions.values():
        where = f"{name} line {defined[('version', v['id'])]}: version {memory_id(v['id'])}"
        root = versions.get(v["chain"])
        if root is not None and root["chain"] != root["id"]:
            raise InputError(f"{where} is in chain {memory_id(v['chain'])}, which is itself in chain {memory_id(root['chain'])}",
                             hint="a chain is named after its first version")
        if (v["op"] == "add") != (v["chain"] == v["id"]):
            raise InputError(f"{where} says op {v['op']!r} but " + ("is not the first of its chain" if v["op"] == "add" else "starts a chain"),
                             hint="a chain starts with an add; its later versions are updates or supersedes")
    for r in export.records["retirement"]:
        where = f"{name} line {defined[('retirement', r['version'])]}"
        v = versions[r["version"]]
        if r["revision"] < v["revision"]:
            raise InputError(f"{where}: {memory_id(v['id'])} is retired by revision {r['revision']}, before revision {v['revision']} made it",
                             hint="a version is retired after it is made")
        if r["successor"] is not None:
            s = versions[r["successor"]]
            if s["chain"] != v["chain"] or s["id"] <= v["id"]:
                raise InputError(f"{where}: the successor of {memory_id(v['id'])}, {memory_id(s['id'])}, is "
                                 + ("in another chain" if s["chain"] != v["chain"] else "not newer than it"),
                                 hint="a successor is the newer version of the same fact")
            if r["how"] == "deleted":
                raise InputError(f"{where}: {memory_id(v['id'])} is deleted yet has a successor", hint="a deletion has none")
    chains: dict[int, list[dict]] = {}
    for v in versions.values():
        chains.setdefault(v["chain"], []).append(v)
    for chain, members in chains.items():
        current = [v for v in members if v["id"] not in retired]
        if len(current) > 1:
            raise InputError(f"{name} line {defined[('version', current[1]['id'])]}: chain {memory_id(chain)} has several current versions "
                             f"({', '.join(memory_id(v['id']) for v in current[:5])})", hint="retire all but the newest")
        if not current and not any(retired[v["id"]]["how"] == "deleted" for v in members):
            last = max(members, key=lambda v: v["id"])
            raise InputError(f"{name} line {defined[('retirement', last['id'])]}: chain {memory_id(chain)} has no current version "
                             "and was never deleted", hint="a retirement loop, or a retirement too many")


def _check_provenance(export: ExportFile, name: str) -> None:
    """The records agree with what each revision's command could have written, so a file cannot pass off its own
    facts as a participant's words, a writer's output or a raw message: a command hymem writes, a writer record with
    `add` and only there, chunks and rejections only in an ingest and of that ingest, versions of an ingest in one of
    its chunks, none of a `forget`, raw ingest only adding; revisions in the order of their times, versions made
    after their revision."""
    revisions = {r["id"]: r for r in export.records["revision"]}
    base: dict[int, str] = {}
    previous = None
    for r in export.records["revision"]:
        where = export.where(name, "revision", r["id"])
        match = COMMAND.fullmatch(r["command"])
        if match is None:
            raise InputError(f"{where}: revision command {r['command'][:60]!r} is not one hymem writes",
                             hint="add, add --raw, apply, forget, revert N or mcp TOOL, with the screens switched off in brackets")
        base[r["id"]] = match["base"].split(" ")[0] if match["base"].startswith(("revert", "mcp")) else match["base"]
        if (base[r["id"]] in WRITERS) != (r["writer"] is not None):
            raise InputError(f"{where}: revision {r['id']} ({r['command']}) " + ("has no writer record" if r["writer"] is None else "has a writer record"),
                             hint="a writer record belongs to `add` with a writer and to `write`, and to nothing else")
        if r["writer"] is not None and not isinstance(r["writer"].get("backend"), str):
            raise InputError(f"{where}: revision {r['id']}'s writer record names no backend", hint="give a file written by `hymem export`")
        if match["reverted"] is not None and int(match["reverted"]) >= r["id"]:
            raise InputError(f"{where}: revision {r['id']} reverts revision {match['reverted']}, which is not older",
                             hint="a revert undoes an earlier revision")
        time = parse_time(r["time"])
        if previous is not None and time < previous[1] - CLOCK_SLACK:
            raise InputError(f"{where}: revision {r['id']} is dated {r['time']}, before revision {previous[0]} ({revisions[previous[0]]['time']})",
                             hint="revisions are numbered in the order they were made")
        previous = (r["id"], max(time, previous[1]) if previous else time)
    chunk_revision = {c["id"]: c["revision"] for c in export.records["chunk"]}
    for c in export.records["chunk"]:
        if base[c["revision"]] not in INGESTS:
            raise InputError(f"{export.where(name, 'chunk', c['id'])}: chunk {c['id']} belongs to revision {c['revision']}, "
                             f"a{'n' if base[c['revision']][0] in 'aeiou' else ''} {base[c['revision']]}", hint="only add stores chunks")
    for v in export.records["version"]:
        where = f"{export.where(name, 'version', v['id'])}: version {memory_id(v['id'])}"
        made_by = base[v["revision"]]
        if made_by in INGESTS and (v["chunk"] is None or chunk_revision[v["chunk"]] != v["revision"]):
            raise InputError(f"{where} of revision {v['revision']} ({made_by}) is in no chunk of that revision", hint="an ingest stores each fact with its chunk")
        if made_by in ("apply", "mcp") and v["chunk"] is not None:
            raise InputError(f"{where} of revision {v['revision']} ({made_by}) names chunk {v['chunk']}", hint=f"{made_by} stores no chunks")
        if made_by == "forget":
            raise InputError(f"{where} was made by revision {v['revision']}, a forget", hint="forget only retires")
        message = made_by == "add --raw" or v["layer"] == "message"
        if message and (v["op"] != "add" or made_by not in ("add --raw", "add --queue", "add", "mcp")):
            raise InputError(f"{where} of revision {v['revision']} ({made_by}) is a message made by an {v['op']}",
                             hint="a message is stored as it is, by an add: each message as it is")
        # A raw message is stored "Speaker: text" (ingest/processors.py), unless its speaker stands for its origin (MCP).
        if message and v["speaker"] and v["speaker"] != v["origin"] and not v["text"].startswith(f"{v['speaker']}: "):
            raise InputError(f"{where} of revision {v['revision']} ({made_by}) does not begin with its speaker {v['speaker'][:40]!r}",
                             hint="raw ingest stores each message as it is, \"Speaker: text\"")
        if parse_time(v["created_at"]) < parse_time(revisions[v["revision"]]["time"]) - CLOCK_SLACK:
            raise InputError(f"{where} was created at {v['created_at']}, before its revision {v['revision']} ({revisions[v['revision']]['time']})",
                             hint="a version is made within its revision")
    for r in export.records["retirement"]:
        made_by = base[r["revision"]]
        if made_by in ("add --raw", "add --queue") or (made_by == "forget" and r["how"] != "deleted"):
            raise InputError(f"{export.where(name, 'retirement', r['version'])}: {memory_id(r['version'])} is {r['how']} by revision {r['revision']} ({made_by})",
                             hint="raw ingest retires nothing; forget only deletes")
    for r in export.records["rejection"]:
        where = export.where(name, "rejection", r["id"])
        if base[r["revision"]] not in INGESTS or (r["chunk"] is not None and chunk_revision[r["chunk"]] != r["revision"]):
            raise InputError(f"{where}: rejection {r['id']} is not of a chunk of its revision {r['revision']} ({base[r['revision']]})",
                             hint="only an ingest records refused operations, each with its chunk")


# Every column of free text an import stores, JSON ones with all their strings (object keys too). The rest is checked by
# form (ids, times, op, how, origin, command) or a digest (a chunk's hash), and has no room for a secret.
FREE_TEXT = {
    "revision": ("source", "writer", "counts"),
    "chunk": ("source", "message_ids", "text"),
    "version": ("text", "speaker", "reason", "evidence", "source", "source_ids", "tags", "owner", "kind", "valid_until", "context"),
    "retirement": ("reason",),
    "rejection": ("operation", "reason"),
    "queue": ("source", "messages", "last_error"),
}
# What add's guards and apply screen for instructions to the agent: a fact's text, reason and quote (and its tags, shown
# with it), and a retirement's reason. Chunks, contexts and rejections are transcripts and refusals, not facts; a raw
# ingest's versions are quoted speech with their speaker (ingest/processors.py), so they are not screened either.
FACT_FIELDS = {"version": ("text", "reason", "evidence", "tags"), "retirement": ("reason",)}


def redact_records(export: ExportFile, redact: Callable[[str], str]) -> None:
    """Every free text the import would store (FREE_TEXT) passed through `redact` (a screen's secret redaction), in place."""

    def clean(value):
        if isinstance(value, str):
            return redact(value)
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {clean(k): clean(v) for k, v in value.items()}
        return value

    for kind, cols in FREE_TEXT.items():
        for record in export.records[kind]:
            for col in cols:
                record[col] = clean(record[col])


def refuse_instructions(export: ExportFile, refusal: Callable[[dict[str, str | None]], str | None], name: str) -> None:
    """Refuse the file at the first fact that would store an instruction to the agent, naming its line.

    `refusal(fields)` is the screens' verdict on a fact's fields (Screen.refusal): a reason, or None to store it."""
    raw = {r["id"] for r in export.records["revision"] if COMMAND.fullmatch(r["command"])["base"] == "add --raw"}
    for kind, cols in FACT_FIELDS.items():
        for record in export.records[kind]:
            if record["revision"] in raw or record.get("layer") == "message":
                continue
            fields = {col: "\n".join(record[col]) if isinstance(record[col], list) else record[col] for col in cols}  # a tag a line
            if why := refusal(fields):
                key = record[KEY_COLUMN.get(kind, "id")]
                what = f"version {memory_id(key)}" if kind == "version" else f"the retirement of {memory_id(key)}"
                raise InputError(f"{export.where(name, kind, key)}: {what} {why}",
                                 hint="nothing was imported; a memory is a fact, not an order for the agent (import your own backup with --trusted)")


def _check_references(kind: str, record: dict, defined: dict[tuple[str, int], int], where: str) -> None:
    """What a record points at must be in the file too (a version's chain may not be: see --current)."""
    for col, target in (("revision", "revision"), ("chunk", "chunk"), ("version", "version"), ("successor", "version"), ("queue", "queue")):
        value = record.get(col)
        if value is not None and (target, value) not in defined:
            raise InputError(f"{where}: {kind} refers to {target} {value}, which the file lacks",
                             hint="give a whole file written by `hymem export`")


def import_export(bank: Bank, export: ExportFile, on_progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Write a checked export into an empty bank in one transaction, keeping every id.

    The bank's embedder must be bound: vectors are computed (in batches, before the transaction)
    from each version's text, and the bank's meta keeps its own embedder, not the file's.
    """
    require_empty(bank)
    versions = export.records["version"]
    blobs: list[bytes] = []
    for start in range(0, len(versions), EMBED_BATCH):
        blobs += bank.embed_texts([bank.memory_text.embedded(v["text"], v.get("event_time"), v.get("context"))
                                   for v in versions[start : start + EMBED_BATCH]])
        if on_progress:
            on_progress(len(blobs), len(versions))
    conn = bank.conn
    try:
        with db.transaction(conn):
            require_empty(bank)  # another process may have written while we embedded
            for kind, (table, columns) in TABLES.items():
                sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
                for record in export.records[kind]:
                    conn.execute(sql, [_stored(col, record[col]) for col in columns])
                if kind == "version":  # the derived indexes, as Bank.insert_version builds them
                    for record, blob in zip(versions, blobs):
                        bank.index_version(record["id"], record["text"], blob)
                        bank.index_sources(record["id"], record["revision"], record["context"])
    except Exception as exc:
        from hymem_cli.bank.store import _db_error

        raise _db_error(exc, bank.path) from None
    return export.counts


def _stored(col: str, value):
    """JSON columns encoded as Bank writes them, so an imported bank holds the very same rows."""
    if col not in JSON_COLUMNS or value is None:
        return value
    return json.dumps(value, ensure_ascii=col not in ("operation", "messages", "tags"))  # tags: as Bank.insert_version writes them


def require_empty(bank: Bank) -> None:
    if bank.conn.execute("SELECT 1 FROM revisions LIMIT 1").fetchone():
        raise BankError(
            f"import needs an empty bank; {bank.path} already has revisions",
            hint="import into a new bank with --bank new.db (or HYMEM_BANK=new.db)",
        )
