"""The runtime stage's subcommands: ``perfeq run``, ``perfeq callgraph``, ``perfeq counts``.

Part of perfeq stage 2 (runtime/); registered by perfeq/cli.py.  Handlers return the exit status
and raise perfeq errors for the CLI to print.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

from perfeq.errors import UsageError
from perfeq.runtime.callgraph import CallGraph
from perfeq.runtime.counts import count_trace
from perfeq.runtime.run import run_instrumented
from perfeq.runtime.trace import IncompleteTraceWarning, Trace, read_trace, write_lines_atomic


def register(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser(
        "run", help="run an instrumented program and collect its trace",
        description="Run an instrumented program (built with `perfeq cc`) and merge the traces of its "
                    "ranks into one trace.  The program's output and exit status pass through.",
        epilog="examples:  perfeq run -- ./prog 64\n           perfeq run -o prog.trace -- mpiexec -n 2 ./prog 64 10",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("-o", "--output", type=Path, metavar="TRACE",
                     help="the trace to write (default: <program>.trace in the current folder)")
    run.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    run.set_defaults(func=_run)

    graph = subparsers.add_parser(
        "callgraph", help="print the call graph of a trace",
        description="Print the call graph of a trace with its call and block counts.")
    graph.add_argument("trace", type=Path, help="a trace written by `perfeq run`")
    graph.add_argument("--json", action="store_true", help="print JSON instead of a tree")
    graph.add_argument("--hatchet", type=Path, metavar="OUT.json",
                       help="also write the graph in Hatchet's literal format (GraphFrame.from_literal)")
    graph.add_argument("--rank", type=int, metavar="R", help="only rank R (default: all ranks merged)")
    graph.set_defaults(func=_callgraph)

    counts = subparsers.add_parser(
        "counts", help="print the counts of a traced run, or a model's predicted counts",
        description="With --trace: the counts the instrumented run actually performed (ops, par, startup, "
                    "bytes, ...), per rank and in total.  With a model file: its predicted counts at a "
                    "problem size and processor count.",
        epilog="examples:  perfeq counts --trace prog.trace\n           perfeq counts prog.model.json N=65536 P=64",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    counts.add_argument("model", nargs="?", type=Path, help="a model file written by `perfeq model`")
    counts.add_argument("assignments", nargs="*", metavar="NAME=VALUE",
                        help="parameter values, P (processes) and T (threads) for the model")
    counts.add_argument("--trace", type=Path, help="a trace written by `perfeq run`: its measured counts")
    counts.add_argument("--machine", type=Path, help="machine file for the model's cache and page counts "
                        "(default: this machine)")
    counts.add_argument("--json", action="store_true", help="print JSON")
    counts.set_defaults(func=_counts)


def _run(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("perfeq run: no command given; usage: perfeq run [-o prog.trace] -- ./prog ARGS")
    return run_instrumented(command, args.output).exit_status


def _read(path: Path) -> Trace:
    """Read a trace; an incomplete trace is said in one line (no Python warning text)."""
    if not path.is_file():
        raise UsageError(f"{path}: no such trace file")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IncompleteTraceWarning)
        trace = read_trace(path)
    for warning in caught:
        print(f"perfeq: warning: {warning.message}", file=sys.stderr)
    return trace


def _callgraph(args: argparse.Namespace) -> int:
    trace = _read(args.trace)
    graph = CallGraph.from_trace(trace, rank=args.rank)
    if args.hatchet:
        text = json.dumps(graph.to_literal(), indent=1) + "\n"
        write_lines_atomic(args.hatchet, [text])
    if args.json:
        print(json.dumps(graph.to_dict(), indent=1))
    else:
        print(graph.render())
    return 0


def _counts(args: argparse.Namespace) -> int:
    if args.trace is None:
        if args.model is None:
            raise UsageError("perfeq counts: give --trace TRACE (measured counts) or MODEL NAME=VALUE... "
                             "(predicted counts)")
        from perfeq.symbolic.commands import model_counts  # the symbolic stage's predicted counts

        return model_counts(args.model, args.assignments, args.machine, args.json)
    if args.model is not None or args.machine is not None:
        raise UsageError("perfeq counts: --trace takes no model, values or --machine; give one or the other")
    trace = _read(args.trace)
    counts = count_trace(trace)
    if args.json:
        print(json.dumps(counts.as_dict(), indent=1))
        return 0
    for note in counts.notes:
        print(f"perfeq: note: {note}", file=sys.stderr)
    columns = ("ops", "ops_total", "par", "startup", "bytes", "messages_critical", "calls", "mpi_calls")
    rows = [("total", counts.total)] + [(f"rank {r}", c) for r, c in sorted(counts.ranks.items())]
    print(_table([("", *columns)] + [(name, *(_fmt(getattr(c, col)) for col in columns)) for name, c in rows]))
    if counts.total.mpi:
        header = ("MPI call", "calls", "elements", "bytes", "messages", "bytes_sent", "critical")
        print()
        print(_table([header] + [(name, *(str(v) for v in (c.calls, c.elements, c.bytes, c.messages,
                                                           c.bytes_sent, c.messages_critical)))
                                 for name, c in sorted(counts.total.mpi.items())]))
    return 0


def _fmt(value: float | int | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _table(rows: list[tuple[str, ...]]) -> str:
    """Rows as aligned text: the first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(width) if i else cell.ljust(width)
                               for i, (cell, width) in enumerate(zip(row, widths, strict=True)))
                     for row in rows)
