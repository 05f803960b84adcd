"""What a bank holds and what it costs on disk: counts by status, source and speaker, revisions, rejections, size by part.

Everything here reads; on a million memories it takes about half a second (docs/benchmarks.md, "How cost grows"):
the counts are one scan of `versions`, and the sizes come from SQLite's `dbstat` table, walked on the bank's
second connection at the same time, except for the two largest parts (see `size_by_part`).
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from hymem_cli.domain import reason_kind

STATUSES = ("current", "updated", "superseded", "deleted")
# Which tables and indexes make up each part of the bank file, by name (a prefix ends in "*").
PARTS = {
    "memories": ("versions", "versions_chain", "versions_revision", "versions_event_time", "versions_origin"),
    "transcripts": ("chunks", "sqlite_autoindex_chunks_1"),
    "full-text index": ("versions_fts*", "versions_sources_fts*"),
    "vectors": ("versions_vec*",),
    "vector codes": ("versions_codes", "versions_code_blocks"),
    "vector copies": ("versions_f16", "versions_floats"),
    "history": ("revisions", "retirements", "retirements_revision", "rejections", "rejections_revision"),
}
OTHERS = "(others)"


def part_of(name: str) -> str:
    for part, names in PARTS.items():
        if any(name == n or (n.endswith("*") and name.startswith(n[:-1])) for n in names):
            return part
    return "other"


def _top(counts: Counter, limit: int) -> dict[str, int]:
    """The `limit` largest counts, the rest summed under OTHERS."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = dict(ranked[:limit])
    rest = sum(n for _, n in ranked[limit:])
    if rest:
        shown[OTHERS] = rest
    return shown


def stats(conn, reader, limit: int = 10) -> dict:
    """The bank open on `conn` in numbers; `reader` (a second connection, or None) measures sizes meanwhile.

    `limit` bounds the sources, speakers and rejection reasons listed; the rest are summed under "(others)"."""
    if reader is not None:
        with ThreadPoolExecutor(1) as pool:
            sizes = pool.submit(size_by_part, reader)
            counts = _counts(conn, limit)
            counts["size"] = sizes.result()
    else:
        counts = _counts(conn, limit)
        counts["size"] = size_by_part(conn)
    return counts


def _counts(conn, limit: int) -> dict:
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    total = conn.execute("SELECT count(*) FROM versions").fetchone()[0]
    retired = dict(conn.execute("SELECT how, count(*) FROM retirements GROUP BY how").fetchall())
    by_source, by_speaker = Counter(), Counter()
    # Current memories only (a fact's past versions would count it twice): every version in one scan, less the
    # retired ones, which are few and found through retirements rather than by a lookup per version.
    for sign, sql in ((1, "SELECT source, speaker, count(*) FROM versions GROUP BY source, speaker"),
                      (-1, "SELECT v.source, v.speaker, count(*) FROM retirements r JOIN versions v ON v.id = r.version GROUP BY 1, 2")):
        for source, speaker, n in conn.execute(sql):
            by_source[source or "(none)"] += sign * n
            by_speaker[speaker or "(none)"] += sign * n
    by_source, by_speaker = +by_source, +by_speaker  # sources and speakers left with no current memory
    by_command = dict(conn.execute("SELECT command, count(*) FROM revisions GROUP BY command ORDER BY 2 DESC, 1").fetchall())
    writers = [
        {"backend": w.get("backend"), "model": w.get("model"), "protocol": w.get("protocol"), "revisions": n}
        for w, n in ((json.loads(text), n) for text, n in conn.execute(
            "SELECT writer, count(*) FROM revisions WHERE writer IS NOT NULL GROUP BY writer ORDER BY 2 DESC"))
    ]
    reasons = Counter(reason_kind(r) for r, in conn.execute("SELECT reason FROM rejections"))
    oldest, newest = conn.execute("SELECT min(event_time), max(event_time) FROM versions").fetchone()
    return {
        "memories": {"current": total - sum(retired.values()), **{how: retired.get(how, 0) for how in STATUSES[1:]}, "versions": total},
        "sources": _top(by_source, limit),
        "speakers": _top(by_speaker, limit),
        "revisions": {"total": sum(by_command.values()), **by_command},
        "writers": _merge_writers(writers),
        "rejections": {"total": sum(reasons.values()), **_top(reasons, limit)},
        "embedder": {"model": meta.get("embed_model"), "dim": int(meta["embed_dim"]) if meta.get("embed_dim") else None},
        "event_time": {"oldest": oldest, "newest": newest},
    }


def _merge_writers(writers: list[dict]) -> list[dict]:
    """One entry per backend, model and protocol (their records also differ by file hash and prompt version)."""
    merged: dict[tuple, dict] = {}
    for w in writers:
        key = (w["backend"], w["model"], w["protocol"])
        if key in merged:
            merged[key]["revisions"] += w["revisions"]
        else:
            merged[key] = dict(w)
    return sorted(merged.values(), key=lambda w: -w["revisions"])


# The vector copies, one row of the same width per memory, are most of what dbstat would walk: their part is what
# the file holds besides everything else, which is measured.
REMAINDER = ("versions_f16", "versions_floats")


def size_by_part(conn) -> dict:
    """Bytes of the bank file by part (PARTS), free pages, and the whole file (pages in use plus free).

    dbstat walks every page of a table, so the two largest parts are not walked: sqlite-vec's vector chunks
    (overflow pages) are counted from their number and length, within a fraction of a percent of dbstat, and
    the vector copies are what remains of the file once every other part and the free pages are counted."""
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND rootpage > 0")]
    parts = dict.fromkeys([*PARTS, "other"], 0)
    try:
        for name in ["sqlite_schema", *names]:
            if name.startswith("versions_vec_vector_chunks"):
                parts[part_of(name)] += _blob_pages(conn, name, page) * page
            elif name not in REMAINDER:
                parts[part_of(name)] += conn.execute("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ? AND aggregate = TRUE",
                                                     (name,)).fetchone()[0]
        exact = True
    except Exception:  # noqa: BLE001 - a SQLite built without dbstat: the file's total is still known
        parts, exact = {}, False
    if exact and any(name in REMAINDER for name in names):
        parts[part_of(REMAINDER[0])] = max(0, (pages - free) * page - sum(parts.values()))
    return {"file": pages * page, **parts, "free": free * page, "by_part": "measured" if exact else "unavailable (no dbstat)"}


def _blob_pages(conn, table: str, page: int) -> int:
    """Pages of a table of one large blob per row: each blob fills overflow pages of page-4 bytes, plus the tree."""
    rows, payload = conn.execute(f'SELECT count(*), coalesce(sum(length(vectors)), 0) FROM "{table}"').fetchone()
    if not rows:
        return 1
    per_row = -(-(payload // rows) // (page - 4))
    return rows * per_row + 1 + rows // 100  # the b-tree's own pages: a few dozen cells each
