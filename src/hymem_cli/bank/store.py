"""The Bank: revisions, chunks and immutable memory versions, changed only inside transactions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Sequence

from hymem_cli._errors import BankError, InputError, NotFoundError
from hymem_cli.bank import codes, db
from hymem_cli.bank.memory_text import MemoryText, kept
from hymem_cli.bank.operations import id_problem, parse_memory_id
from hymem_cli.bank.rows import SHOWN, SHOWN_AS_OF, VERSION_SELECT, version_dict  # noqa: F401 - history reads them from here too
from hymem_cli.bank.sqlite import create_vector_table
from hymem_cli.bank.verify import Finding
from hymem_cli.bank.verify import verify as verify_bank
from hymem_cli.domain import Chunk, ChunkRecord, Operation, Proposal, Rejection, memory_id
from hymem_cli.embed import Embedder, canonical_model, to_blob

COUNTERS = ("chunks", "messages", "proposed", "applied", "rejected", "added", "updated", "superseded", "deleted")
RETIRED_AS = {"update": "updated", "supersede": "superseded", "delete": "deleted"}


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class RevisionDraft:
    """A revision that is created with its first chunk, so an ingest that adds nothing records nothing."""

    command: str
    source: str
    writer: dict | None = None
    id: int | None = None
    counts: dict = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))


UNKNOWN = object()  # _check_target's row when the target names no memory of this bank


class OperationRefused(Exception):
    """An operation the bank's state does not allow (unknown or retired target, two ops on one target)."""

    def __init__(self, index: int, reason: str, unknown: bool = False):
        super().__init__(reason)
        self.index = index
        self.reason = reason
        self.unknown = unknown  # the target is no memory of this bank: exit 4, like every unknown id


class Bank:
    def __init__(self, conn, path: Path, busy_timeout: float):
        self.conn = conn
        self.path = path
        self.busy_timeout = busy_timeout
        self._reader = None
        self.embedder: Embedder | None = None
        self.memory_text = MemoryText()  # what is embedded for a new memory (config embed.context, embed.date)
        self.codes: codes.BinaryCodes | None = None  # this bank's sign-bit codes, loaded by code_index() on the first large search

    # -- meta and embedder -------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def bind_embedder(self, embedder: Embedder, memory_text: MemoryText | None = None) -> None:
        """Record the embedder on first use; refuse one of another model or dimension later.

        `memory_text` is the recipe of what new memories embed (default: MemoryText())."""
        if memory_text is not None:
            self.memory_text = memory_text
        if self.meta("embed_model") is None:  # no write once it is known: a bank on read-only storage can be searched
            with db.transaction(self.conn):
                if self.meta("embed_model") is None:  # unless another process recorded one meanwhile
                    self.conn.execute("INSERT INTO meta VALUES ('embed_model', ?), ('embed_dim', ?)", (embedder.name, str(embedder.dim)))
                    create_vector_table(self.conn, embedder.dim)
        self.check_embedder(embedder.name, embedder.dim)
        self.embedder = embedder

    def check_embedder(self, name: str, dim: int | None = None) -> None:
        """Refuse an embedder other than the one this bank's vectors came from (dim None: name only)."""
        model, stored_dim = self.meta("embed_model"), self.meta("embed_dim")
        if model is None:
            return
        name = canonical_model(name)
        if model != name or (dim is not None and int(stored_dim or 0) != dim):
            shown = f"{name} ({dim}-d)" if dim is not None else name
            raise BankError(
                f"bank {self.path} holds {model} vectors ({stored_dim}-d); the configured embedder is {shown}",
                hint=f"set embed.model to {model} (HYMEM_EMBED_MODEL={model}), or move the bank to {name} with `hymem reembed --model {name}`",
            )

    @property
    def embed_model(self) -> str | None:
        return self.meta("embed_model")

    def reembed(self, embedder: Embedder, memory_text: MemoryText | None = None, progress=None):
        """Rebuild every vector with `embedder` and record it; history is untouched (bank/reembed.py). Resumable."""
        from hymem_cli.bank.reembed import reembed

        return reembed(self, embedder, memory_text or self.memory_text, progress)

    # -- reading --------------------------------------------------------------------------

    def reader(self):
        """A second connection to this bank, for reading alongside `conn` (search ranks words on it)."""
        if self._reader is None:
            self._reader = db.connect(self.path, self.busy_timeout)
        return self._reader

    def chunk_seen(self, chunk_key: str) -> int | None:
        """The revision that stored the chunk known by `chunk_key` (domain.chunk_key), or None."""
        row = self.conn.execute("SELECT revision FROM chunks WHERE hash = ?", (chunk_key,)).fetchone()
        return row[0] if row else None

    def latest_revision(self) -> int:
        return self.conn.execute("SELECT coalesce(max(id), 0) FROM revisions").fetchone()[0]

    def check_revision(self, rev: int) -> int:
        if rev == 0:
            return 0
        if id_problem(rev, "revision") or rev > self.latest_revision() or not self.conn.execute("SELECT 1 FROM revisions WHERE id = ?", (rev,)).fetchone():
            raise NotFoundError(f"no revision {rev} in this bank", hint="list revisions with `hymem log`")
        return rev

    def version_row(self, vid: int):
        row = self.conn.execute(VERSION_SELECT + " WHERE v.id = ?", (vid,)).fetchone()
        if row is None:
            raise NotFoundError(f"no memory {memory_id(vid)} in this bank", hint="find memory ids with `hymem search`")
        return row

    def version(self, ref: str | int) -> dict:
        vid = ref if isinstance(ref, int) else parse_memory_id(ref)
        return version_dict(self.version_row(vid))

    def head_of(self, vid: int) -> int | None:
        """The current version of the chain `vid` belongs to; None when the chain was deleted."""
        chain = self.version_row(vid)["chain"]
        row = self.conn.execute(
            "SELECT v.id FROM versions v LEFT JOIN retirements r ON r.version = v.id "
            "WHERE v.chain = ? AND r.version IS NULL",
            (chain,),
        ).fetchone()
        return row[0] if row else None

    def current(self, limit: int, as_of: int | None = None) -> list[dict]:
        """Up to `limit` current versions, the latest revision's first (an agent's briefing picks from them); no message
        a writer has read. `as_of`: the versions current just after that revision."""
        where, args = f"r.version IS NULL AND {SHOWN}", ()
        if as_of is not None:
            where, args = f"v.revision <= ? AND (r.version IS NULL OR r.revision > ?) AND {SHOWN_AS_OF}", (as_of, as_of, as_of)
        rows = self.conn.execute(VERSION_SELECT + f" WHERE {where} ORDER BY v.revision DESC, v.id DESC LIMIT ?", (*args, limit))
        return [version_dict(row, as_of=as_of) for row in rows]

    def documents_of(self, source: str) -> list[tuple[int, str]]:
        """(id, text) of the current memories of origin document that `source` (a file's real path) holds, oldest first."""
        return [(r[0], r[1]) for r in self.conn.execute(
            "SELECT v.id, v.text FROM versions v WHERE v.source = ? AND v.origin = 'document' AND v.layer IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id) ORDER BY v.id", (source,))]

    def count_recalls(self, chains: Iterable[str]) -> bool:
        """Count one recall for each fact (`chains`: its chain, "m3", as every version names it), in a short
        transaction of its own. Usage, not history: a bank that is busy or read-only just goes uncounted (False);
        nothing waits for it."""
        ids = sorted({int(c[1:]) for c in chains})
        if not ids:
            return True
        waits = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
        try:
            self.conn.execute("PRAGMA busy_timeout = 50")
            with db.transaction(self.conn):
                self.conn.executemany("INSERT INTO recalls (chain, times, last_at) VALUES (?, 1, ?) "
                                      "ON CONFLICT (chain) DO UPDATE SET times = times + 1, last_at = excluded.last_at",
                                      [(chain, now()) for chain in ids])
            return True
        except Exception:  # noqa: BLE001 - locked, read-only, full: a count is not worth an agent's wait or an error
            return False
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(waits)}")

    def recall_counts(self, chains: Iterable[str]) -> dict[str, int]:
        """How often each chain ("m3") was recalled; chains never recalled are left out."""
        wanted = [int(c[1:]) for c in chains]
        counts = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            rows = self.conn.execute(f"SELECT chain, times FROM recalls WHERE chain IN ({','.join('?' * len(part))})", part)
            counts.update({memory_id(chain): times for chain, times in rows})
        return counts

    def code_index(self) -> codes.BinaryCodes:
        """The in-memory codes of this bank's vectors (bank/codes.py), made on first use and kept with the bank."""
        if self.codes is None:
            self.codes = codes.BinaryCodes()
        return self.codes

    def rejection_reasons(self) -> list[str]:
        """Why each refused operation was refused, oldest first."""
        return [r[0] for r in self.conn.execute("SELECT reason FROM rejections ORDER BY id")]

    def current_source_ids(self) -> list[list[str]]:
        """The source message ids of every current memory (a message a writer has read is no memory of its own)."""
        rows = self.conn.execute(
            f"SELECT v.source_ids FROM versions v WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id) AND {SHOWN}"
        )
        return [json.loads(r[0]) for r in rows]

    def verify(self) -> list[Finding]:
        """The bank's self-checks (bank/verify.py): integrity, migrations, chain invariants, index rows. Changes nothing."""
        return verify_bank(self.conn, self.path)

    def stats(self, limit: int = 10) -> dict:
        """What this bank holds and its size by part (bank/stats.py); `limit` bounds each list. Changes nothing."""
        from hymem_cli.bank.stats import stats

        return {"bank": str(self.path), **stats(self.conn, self.reader(), limit)}

    def close(self) -> None:
        for conn in (self.conn, self._reader):
            if conn is not None:
                conn.close()
        self._reader = None

    def related(self, texts: list[str], limit: int) -> list[dict]:
        """Current memories closest to any of `texts`: what the writer is shown for a chunk."""
        from hymem_cli.bank.search import related

        return related(self, texts, limit)

    # -- writing ---------------------------------------------------------------------------

    def embed_operations(self, ops: Sequence[Operation]) -> list[bytes]:
        """Vectors for the versions `ops` will insert (all but deletes), each of its text as memory_text embeds it."""
        return self.embed_texts([self.memory_text.embedded(op.text or "", op.event_time, op.context) for op in ops if op.op != "delete"])

    def embed_texts(self, texts: Sequence[str]) -> list[bytes]:
        if not texts:
            return []
        if self.embedder is None:
            raise BankError("no embedder bound to the bank")  # a programming error, not a user's
        return [to_blob(v) for v in self.embedder.embed(list(texts))]

    def apply_operations(self, ops: list[Operation], command: str, source: str, writer: dict | None = None) -> RevisionDraft:
        """Apply `ops` as one revision, all or nothing: the first refused operation aborts everything."""
        draft = RevisionDraft(command=command, source=source, writer=writer)
        vectors = self.embed_operations(ops)
        try:
            with db.transaction(self.conn):
                self._open_revision(draft)
                self._apply(draft, None, ops, vectors, strict=True)
                self._finish(draft)
        except OperationRefused as exc:
            error = NotFoundError if exc.unknown else InputError
            raise error(f"{source} operation {exc.index + 1}: {exc.reason}", hint="nothing was applied; fix the operation and retry") from None
        except Exception as exc:
            raise _db_error(exc, self.path) from None
        return draft

    def commit_chunk(self, draft: RevisionDraft, chunk: ChunkRecord, proposal: Proposal, messages: int = 0, *,
                     layer: str | None = None, queue: tuple[Chunk, str, bool] | None = None, written: tuple[int, float] | None = None) -> bool:
        """Store one chunk and its accepted operations in one transaction. False if it was already there.

        The proposal carries the operations, the rejections, the count proposed and the writer's stats. `layer`
        "message": its versions are the messages as they were said (raw ingest), and with `queue` (the chunk, its
        content hash in writer mode, and whether its speakerless words are an agent's) they wait for a writer: the chunk is queued, and the run counts them as
        messages stored, not as memories added. `written` (a queue row, the seconds it took): this chunk's facts
        finish that row of the queue, in the same transaction (one already stored finishes it too).
        """
        from hymem_cli.bank import queue as chunk_queue

        ops, rejections = proposal.operations, proposal.rejections
        vectors = self.embed_operations(ops)
        saved = (draft.id, dict(draft.counts))  # restored if the transaction rolls back
        try:
            with db.transaction(self.conn):
                if self.chunk_seen(chunk.hash):  # another process got here first
                    if written is not None:
                        chunk_queue.done(self.conn, written[0], None, written[1])
                    return False
                self._open_revision(draft)
                cur = self.conn.execute(
                    "INSERT INTO chunks (hash, revision, source, message_ids, first_line, last_line, start_time, end_time, text) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (chunk.hash, draft.id, chunk.source, json.dumps(chunk.message_ids), chunk.first_line,
                     chunk.last_line, chunk.start_time, chunk.end_time, chunk.text),
                )
                chunk_id = cur.lastrowid
                created: list[int] = []
                refused = self._apply(draft, chunk_id, ops, vectors, strict=False, layer=layer, created=created, counted=queue is None)
                for rej in list(rejections) + refused:
                    self.conn.execute(
                        "INSERT INTO rejections (revision, chunk, operation, reason) VALUES (?, ?, ?, ?)",
                        (draft.id, chunk_id, json.dumps(rej.operation.to_json(), ensure_ascii=False), rej.reason),
                    )
                if queue is not None:
                    chunk_queue.enqueue(self.conn, *queue, versions=created)
                if written is not None:
                    chunk_queue.done(self.conn, written[0], draft.id, written[1])
                c = draft.counts
                if queue is not None:  # the writer's input, stored: the write counts the chunk and its messages
                    c["messages_stored"] = c.get("messages_stored", 0) + len(created)
                else:
                    c["chunks"] += 1
                    c["messages"] += messages
                    c["proposed"] += len(ops) + len(rejections) if proposal.proposed is None else proposal.proposed
                c["rejected"] += len(rejections) + len(refused)
                for key, value in proposal.stats.items():
                    c[key] = round(c.get(key, 0) + value, 3)
                self._save_counts(draft)
        except BaseException as exc:
            draft.id, draft.counts = saved
            if isinstance(exc, Exception):
                raise _db_error(exc, self.path) from None
            raise
        return True

    def enqueue_stored(self, stored: Callable[[], Chunk], content: str, key: str, requeue: bool = False,
                       agent_words: bool = False) -> None:
        """Queue for a writer a chunk whose messages raw ingest stored before (known by `key`; `stored()` makes it as the
        queue keeps it), unless its content is queued already; `requeue`: queued again if it was written (by another
        writer: this one has not read it). Nothing to do costs one read, no write lock."""
        from hymem_cli.bank import queue as chunk_queue

        def waiting():
            return self.conn.execute("SELECT id, state FROM queue WHERE content = ?", (content,)).fetchone()

        row = waiting()
        if row is not None and not (requeue and row[1] == "done"):
            return
        chunk = stored() if row is None else None  # screened before the write lock is taken
        with db.transaction(self.conn):
            row = waiting()  # another process may have queued or written it meanwhile
            if row is not None:
                if requeue and row[1] == "done":
                    chunk_queue.requeue(self.conn, row[0])
                return
            versions = [r[0] for r in self.conn.execute(
                "SELECT v.id FROM versions v JOIN chunks c ON c.id = v.chunk WHERE c.hash = ? AND v.layer = 'message'", (key,))]
            chunk_queue.enqueue(self.conn, chunk or stored(), content, agent_words, versions=versions)  # rows are never deleted

    def finish(self, draft: RevisionDraft, state: str = "done") -> None:
        if draft.id is None:
            return
        with db.transaction(self.conn):
            self._finish(draft, state)

    def _open_revision(self, draft: RevisionDraft) -> None:
        if draft.id is None:
            cur = self.conn.execute(
                "INSERT INTO revisions (time, command, source, writer, counts, state) VALUES (?, ?, ?, ?, ?, 'open')",
                (now(), draft.command, draft.source, json.dumps(draft.writer) if draft.writer else None, json.dumps(draft.counts)),
            )
            draft.id = cur.lastrowid

    def _save_counts(self, draft: RevisionDraft) -> None:
        self.conn.execute("UPDATE revisions SET counts = ?, source = ? WHERE id = ?", (json.dumps(draft.counts), draft.source, draft.id))

    def _finish(self, draft: RevisionDraft, state: str = "done") -> None:
        self._save_counts(draft)
        self.conn.execute("UPDATE revisions SET state = ? WHERE id = ?", (state, draft.id))

    def _apply(self, draft: RevisionDraft, chunk_id, ops, vectors, strict: bool, layer: str | None = None,
               created: list[int] | None = None, counted: bool = True) -> list[Rejection]:
        """Insert versions (of `layer`) and retirements for `ops`, the new versions' ids appended to `created`, each
        counted in the revision unless not `counted`. Refusals raise (strict) or are returned."""
        refused: list[Rejection] = []
        targeted: set[int] = set()
        vec = iter(vectors)
        created_at = now()
        for i, op in enumerate(ops):
            blob = next(vec) if op.op != "delete" else None
            why, target_row = (None, None) if op.op == "add" else self._check_target(op.target, targeted)
            merged_rows = []
            for ref in op.merges if not why else []:
                more_why, row = self._check_target(ref, targeted | {target_row["id"]} | {r["id"] for r in merged_rows})
                if more_why:
                    why, target_row = more_why, row
                    break
                merged_rows.append(row)
            if why:
                if strict:
                    raise OperationRefused(i, why, unknown=target_row is UNKNOWN)
                refused.append(Rejection(op, why))
                continue
            targeted.update(r["id"] for r in merged_rows)
            chain = None
            if target_row is not None:
                targeted.add(target_row["id"])
                chain = target_row["chain"]
            new_id = None
            if op.op != "delete":
                new_id = self.insert_version(
                    chain, op.op, op.text.strip(), blob, speaker=op.speaker, reason=op.reason, evidence=op.evidence,
                    revision=draft.id, chunk=chunk_id, source=draft.source, source_ids=op.source_ids,
                    event_time=op.event_time, created_at=created_at, details=op, layer=layer,
                )
                if created is not None and new_id is not None:
                    created.append(new_id)
            if target_row is not None:
                self.conn.execute(
                    "INSERT INTO retirements (version, revision, how, successor, reason) VALUES (?, ?, ?, ?, ?)",
                    (target_row["id"], draft.id, RETIRED_AS[op.op], new_id, op.reason),
                )
            for row in merged_rows:  # a fold: the other chains end here (a chain holds one fact); the reason names the successor
                self.conn.execute(
                    "INSERT INTO retirements (version, revision, how, successor, reason) VALUES (?, ?, 'deleted', NULL, ?)",
                    (row["id"], draft.id, f"{op.reason} (folded into {memory_id(new_id)})"),
                )
            if counted:
                draft.counts["applied"] += 1
                draft.counts[{"add": "added", **RETIRED_AS}[op.op]] += 1
        return refused

    def insert_version(self, chain: int | None, op: str, text: str, blob: bytes, *, revision: int, speaker=None, reason=None,
                       evidence=None, chunk=None, source=None, source_ids=(), event_time=None, created_at=None, details=None,
                       layer: str | None = None) -> int:
        """Insert one version and its search entries (inside the caller's transaction); chain None starts a chain.

        `details` (an Operation, or a version row) carries tags, owner, kind, valid_until, origin and context; `layer`
        "message" makes it a message as it was said (None: a fact)."""
        tags = list(_detail(details, "tags") or [])
        if self.embedder is not None and self.meta("embed_model") != self.embedder.name:  # re-embedded while this ran
            raise BankError(f"bank {self.path} now holds {self.meta('embed_model')} vectors, not {self.embedder.name}'s",
                            hint="it was re-embedded while this command ran; run it again with the bank's model")
        cur = self.conn.execute(
            "INSERT INTO versions (chain, op, text, speaker, reason, evidence, revision, chunk, source, source_ids, event_time, created_at, "
            "tags, owner, kind, valid_until, origin, context, layer) VALUES (coalesce(?, -1), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (chain, op, text, speaker, reason, evidence, revision, chunk, source, json.dumps(list(source_ids)), event_time, created_at or now(),
             json.dumps(tags, ensure_ascii=False) if tags else None, _detail(details, "owner"), _detail(details, "kind"), _detail(details, "valid_until"),
             _detail(details, "origin"), kept(_detail(details, "context")), layer),
        )
        vid = cur.lastrowid
        if chain is None:
            self.conn.execute("UPDATE versions SET chain = id WHERE id = ?", (vid,))
        self.index_version(vid, text, blob)
        self.index_sources(vid, revision, kept(_detail(details, "context")))
        return vid

    def index_sources(self, vid: int, revision: int, context: str | None) -> None:
        """A writer's fact's source messages go into their own full-text index (bank/search.py's sources_ranked); import
        calls it too, after the version's revision is stored."""
        # a fact only: a message's context is its previous turn, not the words a fact came from
        if context and self.conn.execute("SELECT rv.writer IS NOT NULL AND v.layer IS NULL FROM versions v JOIN revisions rv "
                                         "ON rv.id = v.revision WHERE v.id = ?", (vid,)).fetchone()[0]:
            self.conn.execute("INSERT INTO versions_sources_fts (rowid, context) VALUES (?, ?)", (vid, context))

    def index_version(self, vid: int, text: str, blob: bytes) -> None:
        """Every version has exactly one full-text row, one vector (with its code and float16 copy), under its own id."""
        self.conn.execute("INSERT INTO versions_fts (rowid, text) VALUES (?, ?)", (vid, text))
        self.conn.execute("INSERT INTO versions_vec (rowid, embedding) VALUES (?, ?)", (vid, blob))
        self.conn.execute("INSERT INTO versions_codes (version, bits) VALUES (?, vec_quantize_binary(?))", (vid, blob))
        self.conn.execute("INSERT INTO versions_f16 (version, embedding) VALUES (?, ?)", (vid, codes.half_blob(blob)))
        if vid % 256 == 0:  # cheap to ask; compact() copies full blocks only
            codes.compact(self.conn)

    def _check_target(self, target: str | None, targeted: set[int]):
        """Why an operation may not retire `target` (None if it may), and its row (UNKNOWN: no such memory)."""
        try:
            vid = parse_memory_id(target)  # None too: it is no memory id
        except NotFoundError:
            return f"target {target!r} is not a memory id", UNKNOWN
        row = self.conn.execute(
            "SELECT v.id, v.chain, r.how, r.successor FROM versions v LEFT JOIN retirements r ON r.version = v.id WHERE v.id = ?",
            (vid,),
        ).fetchone()
        if row is None:
            return f"no memory {memory_id(vid)} in this bank", UNKNOWN
        if vid in targeted:
            return f"{memory_id(vid)} is already the target of another operation here", None
        if row["how"] is not None:
            head = self.head_of(vid)
            current = f"; the current version is {memory_id(head)}" if head else ""
            return f"{memory_id(vid)} was already {row['how']}{current}", None
        return None, row


def _detail(details, name: str):
    """A version detail from an Operation or a row; None when absent (versions written before m005)."""
    if details is None:
        return None
    if isinstance(details, Operation):
        return getattr(details, name)
    value = details[name] if name in details.keys() else None
    return json.loads(value) if name == "tags" and value else value


def _db_error(exc: Exception, path: Path) -> Exception:
    from hymem_cli._errors import HymemError

    if isinstance(exc, HymemError):
        return exc
    name = type(exc).__name__
    if name in ("OperationalError", "DatabaseError", "IntegrityError"):
        return db.translate(exc, path)
    return exc


# One place that knows how a version row is read, so every command shows the same fields.
def open_bank(path: Path, busy_timeout: float = 30.0, create: bool = True, on_upgrade=None, progress=None) -> Bank:
    """Open the bank at `path`; with create=False a missing bank is an error instead of a new file.

    `on_upgrade(migration names)` is told before an existing bank is brought to this version's schema, and
    `progress(migration, phase, done, total)` while it is (db.migrate).
    """
    db.check_path(path)
    if not create and not path.exists():
        raise BankError(f"no bank at {path}", hint="store memories first with `hymem add` or `hymem apply`, or pick a bank with --bank")
    return Bank(db.connect(path, busy_timeout, on_upgrade, progress), path, busy_timeout)
