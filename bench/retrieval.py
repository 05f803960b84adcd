"""Retrieval quality of raw memories: all@k, any@k, any-session@k and update ordering, per category and chat kind.

Each conversation is stored as raw messages in a fresh bank (once per embedding recipe), every question is
searched, and results are scored only from their `source_ids`, the way `hymem eval` scores (src/hymem_cli/eval.py):

- all@k: the top k together cite every evidence message; any@k: at least one; session@k: one from an evidence session;
- update: knowledge updates whose updated message ranks above the stale one (20 results), overall and per chat kind.

With `--writer SCRIPT` the banks hold a writer's facts instead (bench/writer_script.py replays a hand-written
script through the scripted backend and the real write path), for the conversations the script covers. A result
citing several messages counts as retrieving each of them, in its one slot. Search shows current facts only,
so "update" there means a result citing an updated message ranks above every result citing a stale one
(none at all is best: the stale fact was superseded).

Chat kinds: "people" (no speaker named Assistant) and "assistant" (a user and an assistant).
A configuration is a name and settings, `NAME:key=value,key=value` (the keys of `hymem config list`); built in:
bm25, vector, before (the ranking before min-max fusion: RRF 1.0/0.5, no update rule, text alone embedded) and
after (the defaults).

    python bench/retrieval.py                                  # before, after, bm25, vector on both sets
    python bench/retrieval.py --config 'w7:search.text_weight=0.7,search.vector_weight=0.3' --config after
    python bench/retrieval.py --shared --json results.json     # one bank for all conversations: more distractors
    python bench/retrieval.py --writer bench/data/writer/facts.jsonl --config after --config 'ctx:embed.context=1000'
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from writer_script import FactScript, load_facts  # noqa: E402

from hymem_cli import config  # noqa: E402
from hymem_cli.bank.memory_text import MemoryText  # noqa: E402
from hymem_cli.bank.search import Ranking, SearchFilter, search  # noqa: E402
from hymem_cli.bank.store import open_bank  # noqa: E402
from hymem_cli.eval import load_conversations, load_questions, match_questions, score_question  # noqa: E402
from hymem_cli.ingest.pipeline import ingest  # noqa: E402
from hymem_cli.ingest.processors import RawProcessor, WriterProcessor  # noqa: E402
from hymem_cli.ingest.sources import Source  # noqa: E402
from hymem_cli.screen import Screen  # noqa: E402

SETS = [ROOT / "bench/data/eval", ROOT / "bench/data/retrieval"]
BUILT_IN = {
    "before": "search.fusion=rrf,search.text_weight=1.0,search.vector_weight=0.5,search.newer_first=false,search.speaker_weight=0,"
              "embed.context=0,embed.date=false",
    "minmax": "search.fusion=minmax,search.vector_weight=0.4,search.text_weight=0.6",  # the ranking of 2026-12-01
    "after": "",
    "bm25": "search.vector_weight=0,search.newer_first=false,search.speaker_weight=0",
    "vector": "search.text_weight=0,search.newer_first=false,search.speaker_weight=0",
}
LIMIT = 20
NOTHING = "nothing.jsonl"  # queries about nothing the conversations hold: the floor should leave them empty


def parse_config(spec: str) -> tuple[str, config.Settings]:
    name, _, body = spec.partition(":")
    body = body if ":" in spec else BUILT_IN.get(name, "")
    if ":" not in spec and name not in BUILT_IN:
        raise SystemExit(f"unknown configuration {name!r}: give NAME:key=value,... or one of {', '.join(BUILT_IN)}")
    overrides = dict(pair.split("=", 1) for pair in body.split(",") if pair)
    defaults = config._build({k: d for k, (d, _) in config.KEYS.items()})  # the shipped defaults, whatever this machine's config says
    return name, defaults.replace(**overrides)


def kind_of(conversation) -> str:
    return "assistant" if any((m.speaker or "").lower() == "assistant" for m in conversation.messages) else "people"


def build_banks(conversations, embedder, recipe: MemoryText, workdir: Path, shared: bool,
                facts: list[dict] | None = None, layers: bool = False) -> dict[str, Path]:
    """A bank of raw messages per conversation (or one for all, `shared`), embedded with `recipe`; with `facts`, a
    bank of the facts the script holds for each conversation, written through the scripted writer; with `layers`
    too, as `hymem add` stores them: the messages first (queued), then the facts the writer writes from the queue."""
    banks = {}
    for conv in conversations:
        kind = ("-facts" if facts else "") + ("-layers" if layers else "")
        path = workdir / f"{'all' if shared else conv.name}-{recipe.context}-{int(recipe.date)}{kind}.db"
        if not path.exists():
            bank = open_bank(path)
            bank.bind_embedder(embedder, recipe)
            for c in (conversations if shared else [conv]):
                if facts is None:
                    processor = RawProcessor(Screen())
                else:
                    script = FactScript(facts, {m.id: m.text for m in c.messages})
                    processor = WriterProcessor(script.backend(), Screen())
                if layers and facts is not None:
                    from hymem_cli.ingest.writing import write_queue

                    ingest(bank, [Source(c.name, c.messages)], RawProcessor(Screen()), queue=True)
                    report = write_queue(bank, processor)
                else:
                    report = ingest(bank, [Source(c.name, c.messages)], processor)
                if facts is not None and (script.unshown or report.counts.get("rejected")):
                    print(f"{c.name}: {report.counts.get('rejected', 0)} facts refused, changes written as adds (old fact not shown): "
                          f"{', '.join(script.unshown) or 'none'}", file=sys.stderr)
            bank.close()
        banks[conv.name] = path
    return banks


LAYER_RULES = ("hidden", "all", "below", "deduplicated")  # how a message a writer has read ranks beside the facts


def by_layer(hits: list[dict], rule: str) -> list[dict]:
    """`hits` of both layers (SearchFilter(layer="all")) as a layer rule would show them: "below": the facts first, the
    messages after them, each in rank order; "deduplicated": a message dropped when a fact above it cites it."""
    if rule == "below":
        return [h for h in hits if h["layer"] == "fact"] + [h for h in hits if h["layer"] != "fact"]
    if rule == "deduplicated":
        cited: set[str] = set()
        kept = []
        for h in hits:
            if h["layer"] == "fact":
                cited |= set(h["source_ids"])
            elif cited & set(h["source_ids"]):
                continue
            kept.append(h)
        return kept
    return hits


def layer_filter(rule: str) -> SearchFilter:
    return SearchFilter() if rule == "hidden" else SearchFilter(layer="all")


def score(conversations, questions, banks, embedder, settings, splits: dict[str, str],
          nothing: list[dict], rule: str = "hidden") -> tuple[list[dict], list[dict]]:
    """Each question's ranks, scored without the floor (all@k compares orderings), and whether the floor keeps its
    evidence; then each query about nothing per conversation, and whether the floor leaves it empty. `rule`: how the
    messages a writer has read rank beside its facts (LAYER_RULES; "hidden" is what search does)."""
    rows, empty = [], []
    ranking = Ranking.of(settings.search)
    unfloored = ranking.changed({"min_score": 0.0})
    for conv in conversations:
        bank = open_bank(banks[conv.name], create=False)
        bank.bind_embedder(embedder)
        session_of, kind = conv.session_of(), kind_of(conv)
        for q in (q for q in questions if q.conversation == conv.name):
            wider = 3 * LIMIT if rule in ("below", "deduplicated") else LIMIT  # room for what the rule moves down or drops
            hits = by_layer(search(bank, q.question, wider, layer_filter(rule), unfloored), rule)[:LIMIT]
            s = score_question(q, hits, session_of, [])
            wanted = set(q.evidence)
            kept = [h for h in hits[:10] if h["score"] >= ranking.min_score]
            found = {i for h in hits[:10] for i in h.get("source_ids") or []} & wanted
            rows.append({"id": q.id, "split": splits.get(q.id, "dev"), "category": q.category, "kind": kind, "all": s.all_rank["message"],
                         "any": s.any_rank["message"], "session": s.any_rank["session"], "updated": s.updated_rank, "stale": s.stale_rank,
                         "found": len(found), "kept": len(found & {i for h in kept for i in h.get("source_ids") or []}),
                         "first": hits[0]["score"] if hits else None})
        for n in nothing:
            hits = search(bank, n["question"], LIMIT, layer_filter(rule), ranking)
            empty.append({"split": n.get("split", "dev"), "conversation": conv.name, "question": n["question"], "empty": not hits,
                          "top": max([h["score"] for h in search(bank, n["question"], 1, layer_filter(rule), unfloored)], default=0.0)})
        bank.close()
    return rows, empty


def summary(rows: list[dict], empty: list[dict]) -> dict:
    def rate(flags):
        flags = list(flags)
        return round(100 * sum(flags) / len(flags), 1) if flags else None

    def within(r, k):
        return r is not None and r <= k

    out = {"questions": len(rows), "all@5": rate(within(r["all"], 5) for r in rows), "all@10": rate(within(r["all"], 10) for r in rows),
           "any@10": rate(within(r["any"], 10) for r in rows), "session@10": rate(within(r["session"], 10) for r in rows)}
    updates = [r for r in rows if r["category"] == "knowledge-update"]
    def ordered(r):
        return r["updated"] is not None and (r["stale"] is None or r["updated"] < r["stale"])

    out["update"] = rate(ordered(r) for r in updates)
    out["update first"] = rate(r["updated"] == 1 for r in updates)
    out["nothing empty"] = rate(e["empty"] for e in empty)
    found = sum(r["found"] for r in rows)
    out["evidence dropped"] = round(100 * (found - sum(r["kept"] for r in rows)) / found, 1) if found else None
    for kind in sorted({r["kind"] for r in updates}):
        out[f"update {kind}"] = rate(ordered(r) for r in updates if r["kind"] == kind)
    for key in ("category", "kind"):
        for value in sorted({r[key] for r in rows}):
            out[f"{value}"] = rate(within(r["all"], 10) for r in rows if r[key] == value)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="sets", action="append", help="a folder with conversations and questions.jsonl (repeatable)")
    parser.add_argument("--config", action="append", help="NAME or NAME:key=value,... (repeatable)")
    parser.add_argument("--model", default=None, help="embed.model for every configuration (default: the settings')")
    parser.add_argument("--shared", action="store_true", help="one bank holding every conversation (default: a bank each)")
    parser.add_argument("--workdir", help="keep the banks here between runs (default: a temporary folder)")
    parser.add_argument("--json", help="write every figure (and each question's ranks) to this file")
    parser.add_argument("--writer", metavar="SCRIPT", help="store facts from this script (bench/writer_script.py) instead of raw messages")
    parser.add_argument("--layers", action="store_true", help="with --writer: store the messages too, as `hymem add` does, and score each "
                                                              "way the messages a writer has read may rank beside its facts")
    args = parser.parse_args()
    facts = load_facts(args.writer) if args.writer else None

    conversations, questions, splits, nothing = [], [], {}, []
    for folder in map(Path, args.sets or SETS):
        convs = load_conversations(sorted(str(p) for p in folder.glob("*.jsonl") if p.name not in ("questions.jsonl", NOTHING)))
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip() and "split" in (q := json.loads(line)):
                splits[q["id"]] = q["split"]
        if (folder / NOTHING).exists():
            nothing += [json.loads(line) for line in (folder / NOTHING).read_text(encoding="utf-8").splitlines() if line.strip()]
        if facts is not None:  # only the conversations the script covers
            cited = {f["cites"] for f in facts}
            convs = [c for c in convs if any(m.id in cited for m in c.messages)]
        conversations += convs
        questions += match_questions(load_questions(folder / "questions.jsonl"), convs) if convs else []
    configs = [parse_config(c) for c in (args.config or ["before", "after", "bm25", "vector"])]

    from hymem_cli.embed import get_embedder

    embedders, results = {}, {}
    with tempfile.TemporaryDirectory(prefix="hymem-retrieval-") as tmp:
        workdir = Path(args.workdir or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        for name, settings in configs:
            model = args.model or settings.embed.model
            if model not in embedders:
                embedders[model] = get_embedder(model, prepare_fast=True)
            recipe = MemoryText(settings.embed.context, settings.embed.date)
            started = time.perf_counter()
            banks = build_banks(conversations, embedders[model], recipe, workdir / model.replace("/", "_"), args.shared, facts, args.layers)
            built = time.perf_counter() - started
            for rule in LAYER_RULES if args.layers else ("hidden",):
                started = time.perf_counter()
                rows, empty = score(conversations, questions, banks, embedders[model], settings, splits, nothing, rule)
                label = f"{name} ({rule})" if args.layers else name
                results[label] = {"summary": {split: summary([r for r in rows if r["split"] == split],
                                                             [e for e in empty if e["split"] == split]) for split in ("dev", "held-out")},
                                  "questions": rows, "nothing": empty, "model": model,
                                  "seconds": {"ingest": round(built, 2), "queries": round(time.perf_counter() - started, 2)}}
                print(f"{label}: {json.dumps(results[label]['summary'])}", file=sys.stderr)

    columns = list(next(iter(results.values()))["summary"]["dev"])
    print("| config | split | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for name, result in results.items():
        for split, figures in result["summary"].items():
            print(f"| {name} | {split} | " + " | ".join(str(figures.get(c)) for c in columns) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
