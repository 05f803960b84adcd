"""The bank's schema, as an ordered list of named migrations; never edit one that has shipped."""

from __future__ import annotations


def run_script(conn, script: str) -> None:
    """Run statements one by one: executescript() would COMMIT the migration's open transaction."""
    import sqlite3

    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""


def m001_initial(conn) -> None:
    run_script(
        conn,
        """
        -- Bank-wide facts: embedding model and dimension, creation time.
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        -- One row per ingest, apply or revert; counts are kept current chunk by chunk.
        CREATE TABLE revisions (
            id INTEGER PRIMARY KEY,
            time TEXT NOT NULL,
            command TEXT NOT NULL,
            source TEXT,
            writer TEXT,            -- JSON: backend, model, model_hash, prompt_version; NULL for raw/apply
            counts TEXT NOT NULL,   -- JSON counters
            state TEXT NOT NULL     -- 'open' while running, 'done' when finished
        );

        -- Transcript chunks already ingested; `hash` makes a re-run skip them.
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            hash TEXT NOT NULL UNIQUE,
            revision INTEGER NOT NULL REFERENCES revisions(id),
            source TEXT NOT NULL,
            message_ids TEXT NOT NULL,   -- JSON list
            first_line INTEGER,
            last_line INTEGER,
            start_time TEXT,
            end_time TEXT,
            text TEXT NOT NULL
        );

        -- Memory versions: insert-only. A chain is a fact's versions; `chain` is its first version's id.
        CREATE TABLE versions (
            id INTEGER PRIMARY KEY,
            chain INTEGER NOT NULL,
            op TEXT NOT NULL CHECK (op IN ('add', 'update', 'supersede')),
            text TEXT NOT NULL,
            speaker TEXT,
            reason TEXT,
            evidence TEXT,
            revision INTEGER NOT NULL REFERENCES revisions(id),
            chunk INTEGER REFERENCES chunks(id),
            source TEXT,
            source_ids TEXT NOT NULL,    -- JSON list of source message ids
            event_time TEXT,             -- transcript time of the evidence, ISO 8601 UTC
            created_at TEXT NOT NULL
        );
        -- history: all versions of a chain
        CREATE INDEX versions_chain ON versions(chain, id);
        -- diff/log/as-of: versions created by a revision
        CREATE INDEX versions_revision ON versions(revision);
        -- search --since/--until
        CREATE INDEX versions_event_time ON versions(event_time);

        -- Retirement of a version: insert-only too. No row means the version is current.
        CREATE TABLE retirements (
            version INTEGER PRIMARY KEY REFERENCES versions(id),
            revision INTEGER NOT NULL REFERENCES revisions(id),
            how TEXT NOT NULL CHECK (how IN ('updated', 'superseded', 'deleted')),
            successor INTEGER REFERENCES versions(id),
            reason TEXT
        );
        -- diff/as-of: retirements made by a revision
        CREATE INDEX retirements_revision ON retirements(revision);

        -- Writer operations the guards refused, with why: visible in `log` and `show`.
        CREATE TABLE rejections (
            id INTEGER PRIMARY KEY,
            revision INTEGER NOT NULL REFERENCES revisions(id),
            chunk INTEGER REFERENCES chunks(id),
            operation TEXT NOT NULL,   -- JSON of the proposed operation
            reason TEXT NOT NULL
        );
        -- log/show: rejections of a revision
        CREATE INDEX rejections_revision ON rejections(revision);

        -- Full-text search over version text (external content: versions is the source of truth).
        CREATE VIRTUAL TABLE versions_fts USING fts5(
            text, content='versions', content_rowid='id', tokenize='porter unicode61'
        );
        """
    )


def m002_vector_codes(conn, progress=None) -> None:
    """Sign-bit codes and a plain copy of each vector, for the binary prefilter of large banks (bank/codes.py)."""
    # Narrow rows, so loading every code reads a few MB, not every vector.
    conn.execute("CREATE TABLE versions_codes (version INTEGER PRIMARY KEY REFERENCES versions(id), bits BLOB NOT NULL)")
    # float32, the same bytes as versions_vec, where reading a few hundred by id is cheap. Left empty since m008
    # replaced it with float16 copies (which m008 makes, then drops this table): filling it here only cost time.
    conn.execute("CREATE TABLE versions_floats (version INTEGER PRIMARY KEY REFERENCES versions(id), embedding BLOB NOT NULL)")
    # The same codes, BLOCK to a row, so a new process loads them in a few reads (bank/codes.py compact).
    conn.execute("CREATE TABLE versions_code_blocks (last INTEGER PRIMARY KEY, ids BLOB NOT NULL, bits BLOB NOT NULL)")
    from hymem_cli.bank import codes

    # Read from sqlite-vec's chunks in bulk: a scan of the vec0 table took minutes for a million vectors.
    codes.derive(conn, codes=True, halves=False, progress=progress)
    codes.compact(conn)


def m003_writer_chunk_keys(conn) -> None:
    """A chunk a writer processed is keyed by its content and that writer (domain.chunk_key), so another model or
    protocol is not told "already stored"; raw chunks keep their content hash."""
    import json

    from hymem_cli.domain import chunk_key

    rows = conn.execute("SELECT c.id, c.hash, r.writer FROM chunks c JOIN revisions r ON r.id = c.revision WHERE r.writer IS NOT NULL")
    for chunk_id, old, writer in rows.fetchall():
        conn.execute("UPDATE chunks SET hash = ? WHERE id = ?", (chunk_key(old, json.loads(writer)), chunk_id))


def m005_version_details(conn) -> None:
    """What Hy-Memory's protocol says of a memory besides its text: tags (JSON list), whose fact it is (owner:
    user|agent), its kind (memory|intention|profile) and an intention's deadline. NULL for older versions."""
    for column in ("tags TEXT", "owner TEXT", "kind TEXT", "valid_until TEXT"):
        conn.execute(f"ALTER TABLE versions ADD COLUMN {column}")


def m006_version_origin(conn) -> None:
    """Where a version's evidence sat when it was not a participant's own words: quoted, document, comment, code
    or tool (screen/provenance.py). NULL: said in the conversation itself, or written before m006."""
    conn.execute("ALTER TABLE versions ADD COLUMN origin TEXT")
    # `search --origin` filters on it; most rows are NULL, so the index stays small.
    conn.execute("CREATE INDEX versions_origin ON versions(origin) WHERE origin IS NOT NULL")


def m007_version_context(conn) -> None:
    """What a version's vector was embedded with besides its text (bank/memory_text.py): the previous turn of a
    raw message, or the source messages of a writer's fact. NULL: none, or written before m007."""
    conn.execute("ALTER TABLE versions ADD COLUMN context TEXT")


def m008_half_vectors(conn, progress=None) -> None:
    """The large-bank rescoring copy of each vector in float16 instead of float32: 820 bytes a memory instead of
    2,048 (bank/codes.py says why). The file keeps the freed pages until the upgrade compacts it (db.migrate)."""
    # float16 of versions_vec's vectors, by version: the binary prefilter's candidates are rescored from these.
    conn.execute("CREATE TABLE versions_f16 (version INTEGER PRIMARY KEY REFERENCES versions(id), embedding BLOB NOT NULL)")
    from hymem_cli.bank import codes

    codes.derive(conn, codes=False, halves=True, progress=progress)
    if progress is not None:
        progress("dropping the float32 copies", 0, None)
    conn.execute("DROP TABLE versions_floats")


def m009_fact_sources_index(conn) -> None:
    """A full-text index of writers' facts' source messages (their stored context), so that search can rank a fact by
    the words it came from as well as its own. Facts only: a raw message's context is the previous turn, which
    floods BM25 in chats with long answers. Fills in the facts already stored (found through their revisions, a
    writer's; a bank of raw messages costs one walk over its revisions)."""
    # search.sources_ranked: BM25 over a fact's source messages; versions.context is the content.
    conn.execute("CREATE VIRTUAL TABLE versions_sources_fts USING fts5("
                 "context, content='versions', content_rowid='id', tokenize='porter unicode61')")
    conn.execute("INSERT INTO versions_sources_fts (rowid, context) SELECT v.id, v.context FROM revisions r "
                 "JOIN versions v ON v.revision = r.id WHERE r.writer IS NOT NULL AND v.context IS NOT NULL")


def m010_speaker_index(conn) -> None:
    """An index of who said each memory, so that search can tell in a few lookups whether a query's word names a
    speaker of the bank ("Where does Nadia live?"; bank/search.named_speakers)."""
    conn.execute("CREATE INDEX versions_speaker ON versions(speaker COLLATE NOCASE) WHERE speaker IS NOT NULL")


def m011_messages_and_queue(conn) -> None:
    """Two layers in one bank: the messages as they were said (`versions.layer` = 'message'; NULL: a fact) and the
    facts a writer derives from them; and the queue of chunks waiting for a writer (bank/queue.py). The raw
    memories stored before it are messages. A message a queued chunk holds is linked to it, so search can tell
    whether a writer has read it yet."""
    conn.execute("ALTER TABLE versions ADD COLUMN layer TEXT")
    conn.execute("UPDATE versions SET layer = 'message' WHERE revision IN "
                 "(SELECT id FROM revisions WHERE writer IS NULL AND command LIKE 'add --raw%')")
    run_script(
        conn,
        """
        -- Chunks waiting for a writer, in the order they were read; a source's chunks are written in that order.
        CREATE TABLE queue (
            id INTEGER PRIMARY KEY,
            content TEXT NOT NULL UNIQUE,     -- the chunk's content hash in writer mode (domain.Chunk.hash)
            source TEXT NOT NULL,
            messages TEXT NOT NULL,           -- JSON: the messages (screened, as stored), the ones before, the owner
            queued_at TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done')),
            taken_by TEXT,                    -- "host:pid" of the writer working on it
            taken_at TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            failed_at TEXT,
            next_try TEXT,
            done_at TEXT,
            revision INTEGER REFERENCES revisions(id),
            seconds REAL
        );
        CREATE INDEX queue_waiting ON queue(state, source, id);
        -- The message versions a queued chunk holds.
        CREATE TABLE queued_messages (
            version INTEGER PRIMARY KEY REFERENCES versions(id),
            queue INTEGER NOT NULL REFERENCES queue(id)
        );
        CREATE INDEX queued_messages_queue ON queued_messages(queue);
        """,
    )


def m012_recall_counts(conn) -> None:
    """How often each fact was handed to an agent as relevant to what it was asked (Memory.recall, MCP search), per
    chain, so a fact keeps its count across its versions: a briefing puts what agents keep needing first. Usage, not
    history: export leaves it out."""
    conn.execute("CREATE TABLE recalls (chain INTEGER PRIMARY KEY REFERENCES versions(id), times INTEGER NOT NULL, last_at TEXT NOT NULL)")


MIGRATIONS = [m001_initial, m002_vector_codes, m003_writer_chunk_keys, m005_version_details, m006_version_origin,
              m007_version_context, m008_half_vectors, m009_fact_sources_index, m010_speaker_index, m011_messages_and_queue,
              m012_recall_counts]

# The vector table is created when the bank first meets its embedder, since its width is the
# model's dimension: see Bank.bind_embedder.
