"""The queue of chunks waiting for a writer, in the bank file itself (table `queue`, migration m011).

`hymem add` stores a chunk's messages at once (the message layer) and queues the chunk; a writer (`hymem write`,
`hymem serve --write`, or the add itself) takes chunks one at a time and writes their facts. The rules:

- a source's chunks are written in the order they were read (supersede chains depend on it): a chunk is taken only
  when every earlier chunk of its source is done;
- two writers never take the same chunk: taking is one write transaction, and a taken chunk carries its writer
  ("host:pid") until it is done or given back;
- a writer that dies (kill -9) leaves its chunk taken by a process that no longer exists: the next writer on the same
  host takes it over; one on another host after LEASE_HOURS;
- a chunk is done in the transaction that stores its facts, so it is never half written;
- a failure is recorded on the chunk (attempts, the last error, when it may be tried again) and the chunk stays queued.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from hymem_cli.domain import Chunk, Message

LEASE_HOURS = 6  # a chunk taken by a writer on another host is taken over after this long
BACKOFF_S = (30, 120, 600, 3600)  # wait before the n-th retry of a failed chunk (serve --write, write --follow)


def worker() -> str:
    """This process, as a queue records who took a chunk."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _now() -> datetime:
    return datetime.now(timezone.utc)


def stamp(when: datetime | None = None) -> str:
    return (when or _now()).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def chunk_json(chunk: Chunk, agent_words: bool = False) -> str:
    """A chunk as the queue keeps it: its messages and the ones before it (as stored: secrets redacted), its owner, and
    whether words of no person in it are an agent's (ingest/attribution.py: what MCP add_memory hands in)."""
    def msgs(items: list[Message]) -> list[dict]:
        return [{"id": m.id, "speaker": m.speaker, "text": m.text, "timestamp": m.timestamp, "session": m.session, "line": m.line}
                for m in items]

    doc = {"messages": msgs(chunk.messages), "earlier": msgs(chunk.earlier), "owner": chunk.owner}
    return json.dumps({**doc, "agent_words": True} if agent_words else doc, ensure_ascii=False)


def chunk_from(source: str, text: str) -> tuple[Chunk, bool]:
    doc = json.loads(text)
    chunk = Chunk(source, [Message(**m) for m in doc["messages"]], [Message(**m) for m in doc["earlier"]], doc["owner"], screened=True)
    return chunk, doc.get("agent_words", False)


_MESSAGE_FIELDS = {"id": (str,), "speaker": (str, type(None)), "text": (str,), "timestamp": (str, type(None)), "session": (str, type(None)),
                   "line": (int, type(None))}


def payload_problem(doc: object) -> str | None:
    """Why `doc` (a queue row's messages, as JSON) is not what `chunk_json` writes, or None: an import checks it, so a
    writer never meets a chunk it cannot read."""
    if not isinstance(doc, dict) or not {"messages", "earlier", "owner"} <= set(doc) <= {"messages", "earlier", "owner", "agent_words"}:
        return "must be an object with messages, earlier, owner (and agent_words)"
    if doc.get("agent_words", True) is not True:
        return "agent_words, when given, must be true"
    if not isinstance(doc["owner"], (str, type(None))):
        return "owner must be a string or null"
    for key in ("messages", "earlier"):
        items = doc[key]
        if not isinstance(items, list) or (key == "messages" and not items):
            return f"{key} must be a list" + (" of at least one message" if key == "messages" else "")
        for m in items:
            if not isinstance(m, dict) or set(m) != set(_MESSAGE_FIELDS):
                return f"each of {key} must be an object with {', '.join(_MESSAGE_FIELDS)}"
            if any(not isinstance(m[f], t) or isinstance(m[f], bool) for f, t in _MESSAGE_FIELDS.items()):
                return f"a message in {key} has a field of the wrong type"
    return None


@dataclass
class Queued:
    """A chunk taken from the queue by this process."""

    id: int
    content: str  # the chunk's content hash in writer mode: with the writer's identity, its key (domain.chunk_key)
    chunk: Chunk
    attempts: int
    agent_words: bool = False  # write it through ingest.attribution.Attributed


def enqueue(conn, chunk: Chunk, content: str, agent_words: bool = False, *, versions: list[int]) -> int:
    """Queue `chunk` (inside the caller's transaction) unless its content is queued already, and link its message
    versions to it; the queue row's id."""
    row = conn.execute("SELECT id FROM queue WHERE content = ?", (content,)).fetchone()
    if row is None:
        qid = conn.execute("INSERT INTO queue (content, source, messages, queued_at) VALUES (?, ?, ?, ?)",
                           (content, chunk.source, chunk_json(chunk, agent_words), stamp())).lastrowid
    else:
        qid = row[0]
    conn.executemany("INSERT OR IGNORE INTO queued_messages (version, queue) VALUES (?, ?)", [(v, qid) for v in versions])
    return qid


def _alive(holder: str) -> bool:
    host, _, pid = holder.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True  # another host's writer: its lease runs out instead
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def take(conn, me: str, *, sources: set[str] | None = None, skip: frozenset[int] | set[int] = frozenset(),
         wait_backoff: bool = False) -> Queued | None:
    """Take the next chunk a writer may write (inside the caller's write transaction): the oldest queued chunk whose
    source has no earlier chunk still to write, not taken by a live writer, of `sources` when given, not in `skip`;
    with `wait_backoff`, not before its next try. None when there is none."""
    now = _now()
    held = conn.execute("SELECT id, taken_by, taken_at FROM queue WHERE state = 'queued' AND taken_by IS NOT NULL").fetchall()
    for qid, holder, taken_at in held:
        if holder == me:
            continue
        expired = taken_at is not None and taken_at < stamp(now - timedelta(hours=LEASE_HOURS))
        if expired or not _alive(holder):
            conn.execute("UPDATE queue SET taken_by = NULL, taken_at = NULL WHERE id = ?", (qid,))
    waited = "AND (q.next_try IS NULL OR q.next_try <= ?) " if wait_backoff else ""
    rows = conn.execute(
        "SELECT q.id, q.content, q.source, q.messages, q.attempts FROM queue q WHERE q.state = 'queued' AND q.taken_by IS NULL "
        + waited + "AND NOT EXISTS (SELECT 1 FROM queue e WHERE e.source = q.source AND e.id < q.id AND e.state = 'queued') ORDER BY q.id",
        (stamp(now),) if wait_backoff else (),
    )
    for qid, content, source, text, attempts in rows:
        if qid in skip or (sources is not None and source not in sources):
            continue
        conn.execute("UPDATE queue SET taken_by = ?, taken_at = ? WHERE id = ?", (me, stamp(now), qid))
        chunk, agent_words = chunk_from(source, text)
        return Queued(qid, content, chunk, attempts, agent_words)
    return None


def done(conn, qid: int, revision: int | None, seconds: float) -> None:
    """The chunk is written (inside the transaction that stores its facts, or that finds them stored already)."""
    conn.execute("UPDATE queue SET state = 'done', done_at = ?, revision = ?, seconds = ?, taken_by = NULL, taken_at = NULL, "
                 "next_try = NULL WHERE id = ?", (stamp(), revision, round(seconds, 3), qid))


def failed(conn, qid: int, error: str, attempts: int) -> None:
    """The writer could not write the chunk: on record, given back, tried again after a wait that grows."""
    wait = BACKOFF_S[min(attempts, len(BACKOFF_S)) - 1] if attempts else 0
    conn.execute("UPDATE queue SET attempts = ?, last_error = ?, failed_at = ?, next_try = ?, taken_by = NULL, taken_at = NULL "
                 "WHERE id = ?", (attempts, error[:2000], stamp(), stamp(_now() + timedelta(seconds=wait)), qid))


def requeue(conn, qid: int) -> None:
    """A written chunk queued again, for another writer to read."""
    conn.execute("UPDATE queue SET state = 'queued', done_at = NULL, revision = NULL, seconds = NULL, attempts = 0, last_error = NULL, "
                 "failed_at = NULL, next_try = NULL WHERE id = ?", (qid,))


def give_back(conn, qid: int) -> None:
    """Untaken, as it was (an interrupted writer)."""
    conn.execute("UPDATE queue SET taken_by = NULL, taken_at = NULL WHERE id = ?", (qid,))


EMPTY: dict[str, object] = {"queued_chunks": 0, "oldest_queued": None, "failed_chunks": 0, "writing": [], "written_chunks": 0,
                            "seconds_per_chunk": None, "eta_seconds": None, "sources": [], "failures": []}


def status(conn, recent: int = 20) -> dict:
    """The queue as `hymem status` shows it: chunks queued (by source, oldest first), failed, being written, the
    seconds per chunk of the recent writes and the time the backlog would take at that pace."""
    queued = conn.execute("SELECT count(*), min(queued_at) FROM queue WHERE state = 'queued'").fetchone()
    by_source = [{"source": s, "chunks": n, "oldest": oldest} for s, n, oldest in conn.execute(
        "SELECT source, count(*), min(queued_at) FROM queue WHERE state = 'queued' GROUP BY source ORDER BY min(queued_at), source")]
    failures = [{"chunk": qid, "source": s, "attempts": a, "error": e, "failed_at": at, "next_try": nt}
                for qid, s, a, e, at, nt in conn.execute("SELECT id, source, attempts, last_error, failed_at, next_try FROM queue "
                                                         "WHERE state = 'queued' AND last_error IS NOT NULL ORDER BY id")]
    writing = [{"chunk": qid, "source": s, "writer": by, "since": at} for qid, s, by, at in conn.execute(
        "SELECT id, source, taken_by, taken_at FROM queue WHERE state = 'queued' AND taken_by IS NOT NULL ORDER BY id")]
    seconds = [r[0] for r in conn.execute("SELECT seconds FROM queue WHERE state = 'done' AND seconds IS NOT NULL "
                                          "ORDER BY done_at DESC LIMIT ?", (recent,))]
    per_chunk = round(statistics.median(seconds), 3) if seconds else None
    return {
        "queued_chunks": queued[0],
        "oldest_queued": queued[1],
        "failed_chunks": len(failures),
        "writing": writing,
        "written_chunks": conn.execute("SELECT count(*) FROM queue WHERE state = 'done'").fetchone()[0],
        "seconds_per_chunk": per_chunk,
        "eta_seconds": round(per_chunk * queued[0], 1) if per_chunk is not None else None,
        "sources": by_source,
        "failures": failures,
    }
