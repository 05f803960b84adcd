"""SIGKILL during `hymem add` (raw, and through a scripted writer that forms supersede chains), at
seeded random moments: after every kill the bank passes SQLite's integrity check and hymem's own
invariants, no chunk is half applied, and re-running the command to completion gives the same bank as
a run that was never interrupted.

Kills land either after a random sleep (0.05-1.5 s, capped to the uninterrupted run's length so the
kill falls inside the run) or as soon as a random number of chunks is visible in the bank. Each bank
is killed twice (the second kill interrupts the resume), then finished.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import sqlean

pytestmark = pytest.mark.slow

SEED = 20240611
BANKS_PER_MODE = 5
KILLS_PER_BANK = 2
CITIES = ["Oslo", "Lima", "Cairo", "Perth", "Quito", "Tunis"]
HYMEM = [sys.executable, "-m", "hymem_cli"]


def raw_transcript(path: Path, n: int = 400) -> None:
    rng = random.Random(7)
    with path.open("w") as f:
        for i in range(n):
            who = rng.choice(["Alex", "Sam", "Priya"])
            f.write(json.dumps({"id": f"r{i}", "session": f"s{i // 25}", "speaker": who,
                                "timestamp": f"2024-{1 + i // 40:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
                                "text": f"note {i}: {rng.choice(CITIES)} trip day {i % 9}"}) + "\n")


def writer_transcript(path: Path, n: int = 120) -> None:
    """Alex moves city each session; the writer supersedes the fact it is shown, so chains form."""
    with path.open("w") as f:
        for i in range(n):
            city = CITIES[i % len(CITIES)]
            for j, (who, text) in enumerate([("Alex", f"I moved to {city} this week."), ("Sam", f"Noted, {city} it is ({i}).")]):
                f.write(json.dumps({"id": f"w{i}-{j}", "session": f"s{i}", "speaker": who,
                                    "timestamp": f"2024-{1 + i // 28:02d}-{1 + i % 28:02d}T{10 + j:02d}:00:00Z",
                                    "text": text}) + "\n")


def universal_reply() -> dict:
    """One answer for every chunk: only the operations whose evidence is in the chunk survive the guards,
    so the outcome depends on the chunk and the bank alone, never on which reply line a resumed run is at."""
    ops = []
    for city in CITIES:
        ops.append({"op": "supersede", "target": 1, "text": f"Alex lives in {city}.", "reason": f"Alex moved to {city}.",
                    "evidence": f"I moved to {city}"})
        ops.append({"op": "add", "text": f"Alex moved to {city}.", "evidence": f"I moved to {city}"})
    return {"operations": ops}


def open_checked(path: Path):
    import sqlite_vec

    conn = sqlean.connect(str(path), isolation_level=None)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    return conn


def chunks_visible(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        conn = sqlean.connect(f"file:{path}?mode=ro", uri=True, timeout=0.05)
        try:
            return conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        finally:
            conn.close()
    except Exception:  # not created yet, or mid-migration
        return 0


def check_invariants(path: Path, mode: str, ops_per_reply: int) -> None:
    if not path.exists():
        return  # killed before the bank was created: nothing to check
    conn = open_checked(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "versions" not in tables:
            return  # killed during the first migration (which is one transaction): an empty file or no tables

        def q(sql, *a):
            return conn.execute(sql, a).fetchall()

        # every chain has at most one current version
        assert q("SELECT chain FROM versions v WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id) "
                 "GROUP BY chain HAVING count(*) > 1") == []
        # every successor continues the chain it retires, and is an update or supersede
        assert q("SELECT r.version FROM retirements r JOIN versions a ON a.id = r.version JOIN versions b ON b.id = r.successor "
                 "WHERE a.chain != b.chain OR b.op NOT IN ('update', 'supersede')") == []
        assert q("SELECT v.id FROM versions v "
                 "WHERE v.op != 'add' AND (SELECT count(*) FROM retirements r WHERE r.successor = v.id) != 1") == []
        # the indexes hold exactly the versions
        ids = {r[0] for r in q("SELECT id FROM versions")}
        conn.execute("INSERT INTO versions_fts(versions_fts) VALUES ('integrity-check')")
        assert q("SELECT count(*) FROM versions_fts_docsize")[0][0] == len(ids)
        if "versions_vec" in tables:
            assert {r[0] for r in q("SELECT rowid FROM versions_vec")} == ids
            assert {r[0] for r in q("SELECT version FROM versions_codes")} == ids == {r[0] for r in q("SELECT version FROM versions_f16")}
        else:
            assert not ids
        # no chunk half applied; no version without its chunk
        assert q("SELECT id FROM versions WHERE chunk IS NULL OR chunk NOT IN (SELECT id FROM chunks)") == []
        # a chunk of messages (every add stores them first; layer "message") holds one version a message, whole; a
        # writer's chunk holds what its reply proposed, stored or refused
        for chunk_id, message_ids in q("SELECT id, message_ids FROM chunks"):
            messages = q("SELECT count(*) FROM versions WHERE chunk = ? AND layer = 'message'", chunk_id)[0][0]
            facts = q("SELECT count(*) FROM versions WHERE chunk = ? AND layer IS NULL", chunk_id)[0][0]
            rejected = q("SELECT count(*) FROM rejections WHERE chunk = ?", chunk_id)[0][0]
            if mode == "raw" or messages:
                assert (messages, facts) == (len(json.loads(message_ids)), 0), chunk_id
            else:
                assert facts + rejected == ops_per_reply, (chunk_id, facts, rejected)
        # the queue: a chunk is done in the transaction that stores its facts, so a chunk done by a revision has a writer's
        # chunk of that revision on record (a bank written without the queue has writer chunks and no queue rows)
        of_writers = "FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.chunk = c.id AND v.layer = 'message')"
        if "queue" in tables:
            assert q(f"SELECT q.id FROM queue q WHERE q.state = 'done' AND q.revision IS NOT NULL AND NOT EXISTS (SELECT 1 {of_writers} "
                     "AND c.revision = q.revision)") == []
            assert q("SELECT id FROM queue WHERE (state = 'done') != (done_at IS NOT NULL)") == []
        # each revision's counts are exactly what it holds (they are saved in the chunk's transaction); the messages an
        # add stores for the writer are counted as messages_stored, its chunks and memories are the writer's
        for rev, counts in q("SELECT id, counts FROM revisions"):
            c = json.loads(counts)
            everything = "SELECT count(*) FROM chunks c WHERE c.revision = ?"
            chunks = f"SELECT count(*) {of_writers} AND c.revision = ?" if mode == "writer" else everything
            assert c["chunks"] == q(chunks, rev)[0][0]
            assert c["added"] == q("SELECT count(*) FROM versions WHERE revision = ? AND op = 'add' AND (layer IS NULL OR ? = 'raw')",
                                   rev, mode)[0][0]
            assert c.get("messages_stored", 0) == (0 if mode == "raw" else q(
                "SELECT count(*) FROM versions WHERE revision = ? AND layer = 'message'", rev)[0][0])
            assert c["superseded"] == q("SELECT count(*) FROM retirements WHERE revision = ? AND how = 'superseded'", rev)[0][0]
            assert c["rejected"] == q("SELECT count(*) FROM rejections WHERE revision = ?", rev)[0][0]
    finally:
        conn.close()


def bank_state(path: Path) -> dict:
    conn = open_checked(path)
    try:
        current = Counter(conn.execute(
            "SELECT text, source_ids, event_time FROM versions v WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id)"
        ).fetchall())
        history = Counter(conn.execute(
            "SELECT v.text, v.op, v.source_ids, r.how, s.text FROM versions v LEFT JOIN retirements r ON r.version = v.id "
            "LEFT JOIN versions s ON s.id = r.successor").fetchall())
        hashes = {r[0] for r in conn.execute("SELECT hash FROM chunks")}
        return {"current": current, "history": history, "chunks": hashes}
    finally:
        conn.close()


def run_to_end(args: list[str], env: dict) -> float:
    started = time.monotonic()
    done = subprocess.run([*HYMEM, *args], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return time.monotonic() - started


def kill_at_random(args: list[str], env: dict, bank: Path, rng: random.Random, span: float, total_chunks: int) -> str:
    """Start the command and SIGKILL it; says how the kill was timed and whether it landed mid-run."""
    proc = subprocess.Popen([*HYMEM, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if rng.random() < 0.5:
            delay = rng.uniform(0.05, max(0.1, min(1.5, span)))
            time.sleep(delay)
            how = f"after {delay:.2f}s"
        else:
            want = chunks_visible(bank) + rng.randint(1, max(1, total_chunks // 3))
            deadline = time.monotonic() + 60
            while chunks_visible(bank) < want and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)
            how = f"at {want} chunks"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
        err = proc.stderr.read().decode()
        proc.stderr.close()
    if proc.returncode == 0:
        return f"{how}: finished first"
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, err)
    return f"{how}: killed"


@pytest.mark.parametrize("mode", ["raw", "writer"])
def test_sigkill_at_random_moments(tmp_path, mode):
    rng = random.Random(f"{SEED}-{mode}")
    chat = tmp_path / "chat.jsonl"
    if mode == "raw":
        raw_transcript(chat)
        args, ops = ["add", "--raw", "--chunk-tokens", "40", str(chat)], 0
    else:
        writer_transcript(chat)
        replies = tmp_path / "replies.jsonl"
        replies.write_text((json.dumps(universal_reply()) + "\n") * 400)
        args, ops = ["add", "--backend", "scripted", "--model", str(replies), "--chunk-tokens", "40",
                     str(chat)], len(universal_reply()["operations"])

    def env_for(home: Path) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HYMEM_")}
        return {**env, "HYMEM_HOME": str(home), "HYMEM_EMBED_MODEL": "hash"}

    ref_home = tmp_path / "reference"
    span = run_to_end(args, env_for(ref_home))
    reference = bank_state(ref_home / "bank.db")
    check_invariants(ref_home / "bank.db", mode, ops)
    total_chunks = len(reference["chunks"])
    assert total_chunks >= 60
    if mode == "writer":  # chains really formed
        assert sum(n for (_, _, _, how, _), n in reference["history"].items() if how == "superseded") >= 20

    log = []
    for b in range(BANKS_PER_MODE):
        home = tmp_path / f"bank{b}"
        bank = home / "bank.db"
        for _ in range(KILLS_PER_BANK):
            log.append(kill_at_random(args, env_for(home), bank, rng, span, total_chunks))
            check_invariants(bank, mode, ops)
        run_to_end(args, env_for(home))
        check_invariants(bank, mode, ops)
        state = bank_state(bank)
        assert state["chunks"] == reference["chunks"]
        assert state["current"] == reference["current"]
        assert state["history"] == reference["history"]
    killed = sum(entry.endswith("killed") for entry in log)
    print(f"\n{mode}: {killed}/{len(log)} kills landed mid-run, all survived: " + "; ".join(log))
    assert killed >= len(log) // 2, log
