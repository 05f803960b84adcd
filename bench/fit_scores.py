"""Fit the calibration of search scores (bank/scoring.py) on the retrieval development set, and check it.

Every dev question of bench/data/ (held-out questions are never used to fit) is searched with no floor and no
reordering; each of its candidates (up to 100) is labelled relevant when it cites one of the question's evidence
or updated messages (a stale message is left out: relevant by topic, wrong by date). A logistic regression of the
label on the candidate's signals (cosine, words, speaker) gives the bias, the scale and the weights that
bank/scoring.py and config.KEYS hold. Then the reliability of the shipped scores: per score band, the share of
results that were relevant, on the dev questions and on the held-out ones.

    python bench/fit_scores.py --workdir /tmp/rb        # banks shared with bench/retrieval.py
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import NOTHING, SETS, build_banks, parse_config  # noqa: E402

from hymem_cli.bank.memory_text import MemoryText  # noqa: E402
from hymem_cli.bank.search import Ranking, SearchFilter, search  # noqa: E402
from hymem_cli.bank.store import open_bank  # noqa: E402
from hymem_cli.eval import load_conversations, load_questions, match_questions  # noqa: E402

SIGNALS = ("cosine", "words", "speaker")
BANDS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.01)


def candidates(conversations, questions, banks, embedder, splits):
    """(split, signals, label, score) for every candidate of every question."""
    out = []
    loose = Ranking(min_score=0.0, newer_first=False)
    for conv in conversations:
        bank = open_bank(banks[conv.name], create=False)
        bank.bind_embedder(embedder)
        for q in (q for q in questions if q.conversation == conv.name):
            wanted, stale = set(q.evidence) | set(q.updated or ()), set(q.stale or ()) - set(q.evidence)
            for hit in search(bank, q.question, 100, SearchFilter(), loose, signals=True):
                cites = set(hit.get("source_ids") or [])
                if cites & stale and not cites & wanted:
                    continue
                out.append((splits.get(q.id, "dev"), [hit["signals"][s] for s in SIGNALS], int(bool(cites & wanted)), hit["score"]))
        bank.close()
    return out


def fit(rows):
    """Logistic regression by Newton's method (a little ridge keeps it stable): bias and one coefficient per signal."""
    import numpy as np

    x = np.array([[1.0, *signals] for _, signals, _, _ in rows])
    y = np.array([label for _, _, label, _ in rows], dtype=float)
    beta = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ beta))
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + 1e-3 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, x.T @ (y - p) - 1e-3 * beta)
        beta += step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def reliability(rows):
    table = []
    for low, high in zip(BANDS, BANDS[1:]):
        inside = [label for _, _, label, score in rows if low <= score < high]
        table.append((f"{low:.1f}-{min(high, 1.0):.1f}", len(inside), round(100 * sum(inside) / len(inside), 1) if inside else None))
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", help="keep the banks here between runs (default: a temporary folder)")
    args = parser.parse_args()
    conversations, questions, splits = [], [], {}
    for folder in SETS:
        convs = load_conversations(sorted(str(p) for p in folder.glob("*.jsonl") if p.name not in ("questions.jsonl", NOTHING)))
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip() and "split" in (q := json.loads(line)):
                splits[q["id"]] = q["split"]
        conversations += convs
        questions += match_questions(load_questions(folder / "questions.jsonl"), convs)
    _, settings = parse_config("after")
    from hymem_cli.embed import get_embedder

    embedder = get_embedder(settings.embed.model, prepare_fast=True)
    with tempfile.TemporaryDirectory(prefix="hymem-fit-") as tmp:
        workdir = Path(args.workdir or tmp)
        banks = build_banks(conversations, embedder, MemoryText(0, False), workdir / settings.embed.model.replace("/", "_"), False)
        rows = candidates(conversations, questions, banks, embedder, splits)
    dev = [r for r in rows if r[0] == "dev"]
    beta = fit(dev)
    scale = beta[1] + beta[2]
    print(f"candidates: dev {len(dev)} ({sum(r[2] for r in dev)} relevant), held-out {len(rows) - len(dev)}")
    print(f"fitted: bias {beta[0]:.3f}, " + ", ".join(f"{s} {b:.3f}" for s, b in zip(SIGNALS, beta[1:])))
    print(f"as bank/scoring.py and config.KEYS hold them: SCALE {scale:.2f}, BIAS {beta[0]:.2f}, vector_weight {beta[1] / scale:.2f}, "
          f"text_weight {beta[2] / scale:.2f}, speaker_weight {beta[3] / scale:.2f}")
    print("\n| score | dev: results | dev: relevant % | held-out: results | held-out: relevant % |\n|---|---|---|---|---|")
    for (band, n, share), (_, m, other) in zip(reliability(dev), reliability([r for r in rows if r[0] != "dev"])):
        print(f"| {band} | {n} | {share} | {m} | {other} |")


if __name__ == "__main__":
    main()
