"""Compiled cycles per loop iteration (llvm-mca) as the unit of work: a study for issue 6, no timing.

perfeq prices source operations (one cost per load, per store, ...), and the held-out error of the
kept campaigns is limited by each application's price per load being its own (docs/accuracy.md).
This script asks whether a per-loop core model would be a better unit: every example is compiled
as the campaigns built it (``mpicc -std=c99 -O2``, plus ``-g -S`` for line numbers), each innermost
source loop is found in the assembly by the source line of its backward branch, and llvm-mca gives
its cycles per iteration (throughput and loop-carried latency of the compiled body; no cache misses,
no branch mispredictions).  Then, on the kept campaigns (benchmarks/data):

* the price of one unit per application, from its P = 1 runs (one start-up term shared by all
  applications, one slope per application), per load, per load or store, and per estimated cycle,
  with the spread (coefficient of variation) across the applications that are not branchy, then
  also without the one that streams from memory; a linear model needs this price to be one number
  for every application;
* leave-one-application-out mean |error| (perfeq's cross-validation) with the cycles as a cost,
  and beside them a memory-stream count from the source: per iteration of an innermost loop, the
  arrays it references with an index that moves with that loop and with the loop around it (a row
  reused across the outer loop, matmul's ``c[i][j]`` inside ``k``, or gauss's pivot row, stays in
  cache; the rows of one array a stencil touches count once), one cache line per 8 elements;
  on all eight applications, then on the six loop codes alone (no branch cost).

The cycles of a run: mapped loops' iterations x their cycles, plus the operations outside mapped
loops at the cycles per operation of the application's own mapped loops (from llvm-mca, not from
any timing).  Loops with a call or with several backward branches in the body are not mapped.
The cycles ride in the ``ops`` slot of the runs and the stream lines in the ``l2`` slot, which the
cost sets here do not otherwise use.

    python benchmarks/core_cycles.py [RUNS.csv ...] [--cpu znver3]

Needs llvm-mca (Debian: llvm) and the examples' MPI compiler; builds the models as ``perfeq
calibrate`` does (about 40 s).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
from pycparser import c_ast

from perfeq.examples.catalog import load_catalog
from perfeq.fitting.analysis.validate import cross_validate
from perfeq.fitting.regression.runs import parse_params, read_runs
from perfeq.instrument.collect.walk import names as _names  # the IDs an expression mentions
from perfeq.instrument.preprocess import parse, preprocess
from perfeq.workflows.calibrate import example_model
from perfeq.workflows.pipeline import compile_command, find_mpi

DATA = Path(__file__).parent / "data"
COST_SETS = ("loads,stores,branch", "ops,branch", "ops,loads,branch", "ops,l1,branch", "ops,l2,branch")
LOOP_CODE_SETS = ("loads", "loads,stores", "ops", "ops,l2", "loads,l2")
_C_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)
BRANCHY = {"sharks", "samplesort"}  # mispredicted branches: their price per unit carries these too
STREAMING = {"shallow"}  # 13 grids streamed from L3/memory every step: llvm-mca assumes L1 hits
_LOC = re.compile(r"\s*\.loc\s+(\d+)\s+(\d+)")
_LABEL = re.compile(r"^(\.L\w+):")
_JUMP = re.compile(r"^(j\w+)\s+(\.L\w+)$")


def assembly_loops(text: str) -> list[tuple[int, list[str], bool]]:
    """Innermost loops of gcc ``-g -S`` output: (source line of the backward branch, body, tangled).

    A loop is a conditional or unconditional jump to a label earlier in the file; it is innermost
    when no other such loop lies inside it.  Lines are those of the main file (``.loc 1``).
    ``tangled``: another backward branch overlaps the body without enclosing it from an earlier
    label (a second latch, as gcc emits for an ``if`` in the body): the body is then one path only.
    """
    instructions: list[tuple[str, tuple[int, int]]] = []
    labels: dict[str, int] = {}
    loc = (0, 0)
    for raw in text.splitlines():
        if match := _LOC.match(raw):
            loc = (int(match[1]), int(match[2]))
        elif match := _LABEL.match(raw):
            labels[match[1]] = len(instructions)
        elif (line := raw.strip()) and not line.startswith(".") and not line.endswith(":"):
            instructions.append((line, loc))
    spans = []
    for end, (line, (file, source_line)) in enumerate(instructions):
        match = _JUMP.match(line)
        if match and labels.get(match[2], end + 1) <= end and file == 1:
            spans.append((labels[match[2]], end, source_line))
    inner = [s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]
    loops = []
    for start, end, line in inner:
        tangled = any(
            o != (start, end, line) and o[0] <= end and start <= o[1] and not (o[0] < start and end <= o[1])
            for o in spans
        )
        loops.append((line, [text for text, _ in instructions[start : end + 1]], tangled))
    return loops


def mca_cycles(body: list[str], cpu: str) -> float | None:
    """llvm-mca's cycles per iteration of a loop body (steady state over 200 iterations)."""
    proc = subprocess.run(
        ["llvm-mca", f"-mcpu={cpu}", "-iterations=200"],
        input="\n".join(body) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    match = re.search(r"Total Cycles:\s+(\d+)", proc.stdout)
    return int(match[1]) / 200 if proc.returncode == 0 and match else None


def _loop_variable(loop: c_ast.Node) -> str | None:
    if isinstance(loop, c_ast.For) and loop.next is not None:
        target = (
            loop.next.expr if isinstance(loop.next, c_ast.UnaryOp) else getattr(loop.next, "lvalue", None)
        )
        if isinstance(target, c_ast.ID):
            return target.name
    return None


def _has_loop(node: c_ast.Node) -> bool:
    return any(isinstance(child, _C_LOOPS) or _has_loop(child) for _, child in node.children())


def _definitions(node: c_ast.Node | None, out: dict[str, set[str]]) -> None:
    """Scalar definitions in a loop body (``int c = j * w + i;``): name -> the names it is made of."""
    if isinstance(node, c_ast.Decl) and node.init is not None and node.name:
        out.setdefault(node.name, set()).update(_names(node.init))
    elif isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
        out.setdefault(node.lvalue.name, set()).update(_names(node.rvalue))
    for _, child in node.children() if node is not None else ():
        _definitions(child, out)


def _streamed(body: c_ast.Node, inner: str | None, outer: str | None, defs: dict[str, set[str]]) -> set[str]:
    """Arrays referenced with an index that moves with the inner loop and with the loop around it."""
    arrays: set[str] = set()

    def visit(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.ArrayRef):
            index, base = set(), node
            while isinstance(base, c_ast.ArrayRef):
                index |= _names(base.subscript)
                base = base.name
            todo = list(index)
            while todo:  # through the body's scalar definitions
                for name in defs.get(todo.pop(), ()):
                    if name not in index:
                        index.add(name)
                        todo.append(name)
            if isinstance(base, c_ast.ID) and inner in index and (outer is None or outer in index):
                arrays.add(base.name)
        for _, child in node.children():
            visit(child)

    visit(body)
    return arrays


def loop_streams(example) -> dict[int, int]:
    """Source line of each innermost loop -> arrays it streams per iteration (see the module text)."""
    pre = preprocess(example.source, [find_mpi().mpicc], ["-fopenmp"] if example.openmp else [])
    tree = parse(pre, example.source.read_text().splitlines(), str(example.source))
    streams: dict[int, int] = {}

    def walk(node: c_ast.Node, enclosing: list[c_ast.Node]) -> None:
        for _, child in node.children():
            if isinstance(child, _C_LOOPS) and not _has_loop(child.stmt):
                defs: dict[str, set[str]] = {}
                for scope in [child.stmt] + [loop.stmt for loop in enclosing[-1:]]:
                    _definitions(scope, defs)
                outer = _loop_variable(enclosing[-1]) if enclosing else None
                streams[child.coord.line] = len(_streamed(child.stmt, _loop_variable(child), outer, defs))
            walk(child, [*enclosing, child] if isinstance(child, _C_LOOPS) else enclosing)

    for node in tree.ext:
        if isinstance(node, c_ast.FuncDef) and Path(node.coord.file).name == example.source.name:
            walk(node.body, [])
    return streams


@dataclasses.dataclass
class Mapped:
    """One example: its model, descriptors, and cycles per iteration of its mapped innermost loops."""

    model: object
    loops: dict[int, dict]  # descriptor loop id -> loop
    block_loop: dict[int, int | None]
    block_ops: dict[int, int]  # block id -> its operations per execution
    cycles: dict[int, float]  # innermost loop id -> cycles per iteration
    skipped: dict[int, str]  # innermost loop id -> why it has no cycles
    streams: dict[int, int]  # source line of an innermost loop -> arrays streamed per iteration


def map_example(example, workdir: Path, cpu: str) -> Mapped:
    model = example_model(example, workdir)
    unit = json.loads(next((workdir / f"{example.name}-build").glob("*.perfeq.json")).read_text())
    asm = workdir / f"{example.name}.s"
    subprocess.run(compile_command(example, asm, ("-O2", "-g", "-S")), check=True, capture_output=True)
    per_line: dict[int, list[float]] = {}
    left: dict[int, str] = {}
    for line, body, tangled in assembly_loops(asm.read_text()):
        if any(text.startswith("call") for text in body):
            left[line] = "call in the body"  # the callee's work is not in the body
            continue
        if tangled:
            left[line] = "several backward branches"  # one path of a branchy body
            continue
        cycles = mca_cycles(body, cpu)
        if cycles is not None:
            per_line.setdefault(line, []).append(cycles)  # inlined twice: one entry per copy
    loops = {loop["id"]: loop for loop in unit["loops"]}
    block_ops = {block["id"]: block["ops"]["total"] for block in unit["blocks"]}
    parents = {loop["parent"] for loop in unit["loops"]}
    cycles, skipped = {}, {}
    for loop_id, loop in loops.items():
        if loop_id in parents:
            continue
        if loop["line"] in left:
            skipped[loop_id] = left[loop["line"]]
        elif loop["line"] not in per_line:
            skipped[loop_id] = "not found in the assembly"
        elif not block_ops[loop["body_block"]]:
            skipped[loop_id] = "empty body block"  # its executions are read from its operations
        else:
            cycles[loop_id] = float(np.mean(per_line[loop["line"]]))
    return Mapped(
        model,
        loops,
        {b["id"]: b["loop"] for b in unit["blocks"]},
        block_ops,
        cycles,
        skipped,
        loop_streams(example),
    )


def loop_work(mapped: Mapped, values: dict[str, float], procs: int) -> tuple[float, float, float, float]:
    """Mapped cycles, operations inside mapped loops, all operations, stream lines: busiest rank."""
    best = (0.0, 0.0, -1.0, 0.0)
    for rank in range(procs):
        rows = mapped.model.item_counts(values, procs, 1, rank)
        cycles = inside = lines = 0.0
        for item, row in zip(mapped.model.items, rows, strict=True):
            loop = mapped.loops.get(mapped.block_loop.get(item.id)) if item.kind == "block" else None
            if loop and item.id == loop["body_block"] and mapped.block_ops[item.id]:
                lines += (
                    row["ops_total"] / mapped.block_ops[item.id] * mapped.streams.get(loop["line"], 0) / 8
                )
        for item, row in zip(mapped.model.items, rows, strict=True):
            loop_id = (
                item.id
                if item.kind == "loop"
                else mapped.block_loop.get(item.id)
                if item.kind == "block"
                else None
            )
            if loop_id not in mapped.cycles:
                continue
            inside += row.get("ops_total", 0.0)
            if item.kind == "block" and item.id == mapped.loops[loop_id]["body_block"]:
                executions = row["ops_total"] / mapped.block_ops[item.id]  # chi.block_item: executions x ops
                cycles += executions * mapped.cycles[loop_id]
        total = sum(row.get("ops_total", 0.0) for row in rows)
        if total > best[2]:
            best = (cycles, inside, total, lines)
    return best


def unit_prices(runs, unit) -> dict[str, float]:
    """Seconds per unit of each application from its P = 1 runs: t = c + b_app x units(run), c shared."""
    ones = [run for run in runs if run.procs == 1]
    apps = sorted({run.app for run in ones})
    design = np.array([[1.0] + [unit(run) if run.app == app else 0.0 for app in apps] for run in ones])
    times = np.array([run.time_s for run in ones])
    weights = 1 / times  # relative error, as perfeq fits
    beta = np.linalg.lstsq(design * weights[:, None], times * weights, rcond=None)[0]
    return dict(zip(apps, beta[1:], strict=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="runs CSVs (default: benchmarks/data/*.runs.csv)")
    parser.add_argument("--cpu", default="znver3", help="llvm-mca -mcpu (default znver3, the development VM)")
    args = parser.parse_args(argv)
    if not shutil.which("llvm-mca"):
        print("core_cycles: llvm-mca not found (Debian: apt-get install llvm)", file=sys.stderr)
        return 2
    paths = args.runs or sorted(DATA.glob("*.runs.csv"))
    campaigns = {path.name.removesuffix(".runs.csv"): read_runs(path) for path in paths}
    apps = {run.app for runs in campaigns.values() for run in runs}
    examples = [e for e in load_catalog(None) if e.name in apps]
    with tempfile.TemporaryDirectory(prefix="perfeq-core-") as tmp:
        mapped = {e.name: map_example(e, Path(tmp) / e.name, args.cpu) for e in examples}

    print(
        f"cycles per iteration of the innermost loops (llvm-mca -mcpu={args.cpu}, gcc -O2 as the campaigns):"
    )
    for name, m in mapped.items():
        done = " ".join(
            f"{m.loops[i]['line']}:{c:.2f}"
            for i, c in sorted(m.cycles.items(), key=lambda x: m.loops[x[0]]["line"])
        )
        left = " ".join(f"{m.loops[i]['line']}({why})" for i, why in sorted(m.skipped.items()))
        print(f"  {name:12s} {done}" + (f"   not mapped: {left}" if left else ""))

    work: dict[tuple, tuple[float, float, float, float]] = {}
    for runs in campaigns.values():
        for run in runs:
            key = (run.app, run.params, run.procs)
            if key not in work:
                values = {k: float(v) for k, v in parse_params(run.params).items()}
                work[key] = loop_work(mapped[run.app], values, run.procs)
    per_op = {  # each application's mapped loops together: sharks' run at 0.6, the FP kernels' at 0.15-0.2
        app: sum(w[0] for k, w in work.items() if k[0] == app)
        / sum(w[1] for k, w in work.items() if k[0] == app)
        for app in sorted(apps)
    }
    print(
        "\noutside mapped loops, cycles per source operation (those of the application's mapped loops): "
        + ", ".join(f"{app} {v:.2f}" for app, v in per_op.items())
    )
    share = {app: np.mean([w[1] / w[2] for k, w in work.items() if k[0] == app]) for app in sorted(apps)}
    print(
        "share of each application's operations in mapped loops: "
        + ", ".join(f"{app} {100 * s:.0f} %" for app, s in share.items())
    )

    def cycles(run) -> float:
        mapped_cycles, inside, total, _ = work[run.app, run.params, run.procs]
        return mapped_cycles + per_op[run.app] * (total - inside)

    recounted = {
        name: [
            dataclasses.replace(
                run, counts={**run.counts, "ops": cycles(run), "l2": work[run.app, run.params, run.procs][3]}
            )
            for run in runs
        ]
        for name, runs in campaigns.items()
    }
    units = {
        "load": lambda r: r.counts["loads"],
        "load or store": lambda r: r.counts["loads"] + r.counts["stores"],
        "cycle": lambda r: r.counts["ops"],
    }
    print(
        "\nprice per unit, ns, from the P = 1 runs (start-up shared, one slope per application); spread = CV across"
    )
    print(
        f"the applications that are not branchy ({', '.join(sorted(BRANCHY))} excluded), then also without the"
    )
    print("one that streams its data from beyond the caches:")
    for name, runs in recounted.items():
        print(f"  {name}")
        for label, unit in units.items():
            prices = unit_prices(runs, unit)
            plain = [v for app, v in prices.items() if app not in BRANCHY]
            core = [v for app, v in prices.items() if app not in BRANCHY | STREAMING]
            print(
                f"    {label:14s} "
                + " ".join(f"{app[:8]} {1e9 * v:.3f}" for app, v in prices.items())
                + f"   spread {100 * np.std(plain) / np.mean(plain):.0f} %,"
                + f" without {', '.join(sorted(STREAMING))} {100 * np.std(core) / np.mean(core):.0f} %"
            )

    print("\narrays streamed per iteration of each innermost loop (source line: arrays):")
    for name, m in mapped.items():
        print(f"  {name:12s} " + " ".join(f"{line}:{n}" for line, n in sorted(m.streams.items())))
    loop_codes = {name: [run for run in runs if run.app not in BRANCHY] for name, runs in recounted.items()}
    print(
        "\nleave-one-application-out mean |error| (+ const); 'ops' = estimated cycles, 'l2' = stream lines:"
    )
    for text, sets in [(text, recounted) for text in COST_SETS] + [
        (text, loop_codes) for text in LOOP_CODE_SETS
    ]:
        if sets is loop_codes and text == LOOP_CODE_SETS[0]:
            print(f" the six loop codes alone ({', '.join(sorted(BRANCHY))} left out, no branch cost):")
        errors, bias, pooled = [], {}, []
        for runs in sets.values():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = cross_validate(runs, costs=text.split(","), intercept=True, between_app=False)
            errors.append(result.overall.average_error)
            pooled.append(np.nan if result.floors.pooled is None else result.floors.pooled)
            for summary in result.summaries:
                bias.setdefault(summary.app, []).append(summary.mean_error)
        print(
            f"  {text:20s}"
            + " ".join(f"{100 * e:5.1f}" for e in errors)
            + f"   mean {100 * np.mean(errors):.1f} %, pooled (nothing held out) {100 * np.mean(pooled):.1f} %"
        )
        print(
            "    mean bias " + ", ".join(f"{app} {100 * np.mean(v):+.0f}" for app, v in sorted(bias.items()))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
