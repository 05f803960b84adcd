"""A memory version as a row of the bank and as the public JSON shape every reader of versions returns."""

from __future__ import annotations

import json

from hymem_cli.domain import memory_id

VERSION_SELECT = """
SELECT v.*, rv.time AS time, r.how AS retired_how, r.revision AS retired_revision,
       r.successor AS successor, r.reason AS retired_reason,
       (SELECT q.state FROM queued_messages qm JOIN queue q ON q.id = qm.queue WHERE qm.version = v.id) AS queue_state
FROM versions v
JOIN revisions rv ON rv.id = v.revision
LEFT JOIN retirements r ON r.version = v.id
"""


# A message whose chunk a writer has written: the facts it holds are in the bank, so what reads the current memories (search,
# a briefing, the Markdown view, evaluation) shows those, not it (docs/benchmarks.md, "Two layers"). Messages stored with
# --raw were never queued: they are the memories.
_WRITTEN_BY = "SELECT 1 FROM queued_messages qm JOIN queue q ON q.id = qm.queue WHERE qm.version = v.id AND q.state = 'done'"
WRITTEN = f"EXISTS ({_WRITTEN_BY})"
SHOWN = f"(v.layer IS NULL OR NOT {WRITTEN})"


# SHOWN as the bank stood after a revision (bound as its one parameter): a message is hidden only when a writer had
# written its chunk by then.
SHOWN_AS_OF = f"(v.layer IS NULL OR NOT EXISTS ({_WRITTEN_BY} AND q.revision <= ?))"


def version_dict(row, as_of: int | None = None) -> dict:
    """A version as the public JSON shape (ids as "m12"); `as_of` hides retirements after that revision."""
    retired = row["retired_how"] is not None and (as_of is None or row["retired_revision"] <= as_of)
    return {
        "id": memory_id(row["id"]),
        "chain": memory_id(row["chain"]),
        "text": row["text"],
        "speaker": row["speaker"],
        "op": row["op"],
        "reason": row["reason"],
        "evidence": row["evidence"],
        "status": row["retired_how"] if retired else "current",
        "revision": row["revision"],
        "time": row["time"],
        "event_time": row["event_time"],
        "source": row["source"],
        "source_ids": json.loads(row["source_ids"]),
        "retired_revision": row["retired_revision"] if retired else None,
        "retired_reason": row["retired_reason"] if retired else None,
        "successor": memory_id(row["successor"]) if retired and row["successor"] else None,
        "tags": json.loads(row["tags"]) if row["tags"] else [],
        "owner": row["owner"],
        "kind": row["kind"],
        "valid_until": row["valid_until"],
        "origin": row["origin"] or "said",
        # a message as it was said, or a fact; a message no writer has read yet (its chunk is queued) is pending
        "layer": "message" if row["layer"] == "message" else "fact",
        "pending": row["queue_state"] == "queued",
    }
