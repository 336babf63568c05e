"""Speed of the instrumenter against pycparser's parse alone, on every bundled example.

For each example: the preprocessed text is parsed by pycparser (parse only), and the whole
instrumenter runs (preprocess, parse, align with the original text, collect, insert, write both
files).  Printed per file: the best of ``--repeat`` runs of each, the instrumenter's time without
its preprocessor step (the user's compiler, not ours), and the throughput ratio parse / instrument.
Goal: a ratio of at least 0.7 (the instrumenter adds at most ~40 % to parsing).

    python benchmarks/instrument_speed.py [--repeat 5] [--cc mpicc] [files.c ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pycparser import c_parser

from perfeq.instrument.instrumenter import instrument_file
from perfeq.instrument.preprocess import preprocess

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GOAL = 0.7


def best_of(repeat: int, work) -> float:
    """The shortest of ``repeat`` wall-clock times of ``work()``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(path: Path, compiler: list[str], flags: list[str], repeat: int, folder: Path) -> dict[str, float]:
    pre = preprocess(path, compiler, flags)
    parse = best_of(repeat, lambda: c_parser.CParser().parse(pre.text, filename=pre.marker_name))
    preprocessing = best_of(repeat, lambda: preprocess(path, compiler, flags))
    output = folder / f"{path.stem}.perfeq.c"
    total = best_of(repeat, lambda: instrument_file(path, output, compiler, flags))
    instrument = max(total - preprocessing, 1e-9)
    return {"lines": float(len(pre.text.splitlines())), "parse": parse, "preprocess": preprocessing,
            "total": total, "instrument": instrument, "ratio": parse / instrument}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="C files (default: examples/*.c)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement; the best counts")
    parser.add_argument("--cc", default="mpicc", help="the preprocessor (default: mpicc)")
    args = parser.parse_args(argv)
    files = args.files or sorted(EXAMPLES.glob("*.c"))
    compiler = args.cc.split()
    print(f"{'file':<16} {'pp lines':>8} {'parse':>8} {'cc -E':>8} {'instr.':>8} {'instr-E':>8} {'ratio':>6}")
    ratios = []
    with tempfile.TemporaryDirectory(prefix="perfeq-speed-") as tmp:
        for path in files:
            m = measure(path, compiler, ["-fopenmp"], args.repeat, Path(tmp))
            ratios.append(m["ratio"])
            print(f"{path.name:<16} {int(m['lines']):>8} {m['parse'] * 1e3:>6.0f}ms {m['preprocess'] * 1e3:>6.0f}ms "
                  f"{m['total'] * 1e3:>6.0f}ms {m['instrument'] * 1e3:>6.0f}ms {m['ratio']:>6.2f}")
    median = statistics.median(ratios)
    print(f"median throughput ratio (parse only / instrumenter without cc -E): {median:.2f} "
          f"(goal >= {GOAL}: {'met' if median >= GOAL else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
