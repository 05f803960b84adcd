"""One query's embedding with numpy's BLAS on its own threads and on one (bank/search.one_thread), quiet and with a core busy.

The busy case starts a process that spins on one core for the whole measurement, as any other work on a laptop does.
Each case embeds 40 different short queries one at a time, after one warm-up, and prints the median and p90.

    python bench/query_threads.py
"""

from __future__ import annotations

import contextlib
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from hymem_cli.bank.search import one_thread  # noqa: E402
from hymem_cli.embed import get_embedder  # noqa: E402

QUERIES = [f"where did person number {i} say they would move after the summer of {2000 + i}" for i in range(40)]


def spin(stop) -> None:
    while not stop.is_set():
        pass


def timed(embedder, limit) -> list[float]:
    times = []
    for query in QUERIES:
        with limit():
            started = time.perf_counter()
            embedder.embed([query])
            times.append(1000 * (time.perf_counter() - started))
    return times


def main() -> None:
    embedder = get_embedder("all-MiniLM-L6-v2", prepare_fast=True)
    embedder.embed(["warm up"])
    from threadpoolctl import threadpool_info

    print("BLAS:", ", ".join(f"{i['internal_api']} {i['num_threads']} threads" for i in threadpool_info() if i["user_api"] == "blas"))
    print("| machine | BLAS threads | median ms | p90 ms |\n|---|---|---|---|")
    for busy in (False, True):
        stop = multiprocessing.Event()
        spinner = multiprocessing.Process(target=spin, args=(stop,)) if busy else None
        if spinner:
            spinner.start()
            time.sleep(0.5)
        try:
            for name, limit in (("its own", contextlib.nullcontext), ("one (search)", one_thread)):
                times = sorted(timed(embedder, limit))
                load = "one core busy" if busy else "quiet"
                print(f"| {load} | {name} | {statistics.median(times):.1f} | {times[int(0.9 * len(times))]:.1f} |")
        finally:
            if spinner:
                stop.set()
                spinner.join()


if __name__ == "__main__":
    main()
