"""Subcommands of the symbolic stage: ``perfeq callgraph``, ``perfeq counts``, ``perfeq model``,
``perfeq machine`` (``perfeq equation`` is the analysis room's: it prices with a machine profile).

Part of perfeq stage 3 (symbolic/); registered by perfeq/cli.py after the runtime's ``perfeq run``.
``perfeq callgraph`` and ``perfeq counts --trace`` read a trace with the descriptors' costs
(perfeq.symbolic.measured); ``perfeq counts MODEL N=... P=...`` prints a model's predicted counts.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from pathlib import Path

from perfeq.arguments import parse_assignments, parse_param_names
from perfeq.errors import UsageError
from perfeq.files import write_atomic
from perfeq.runtime.callgraph import CallGraph
from perfeq.runtime.trace import IncompleteTraceWarning, Trace, read_trace
from perfeq.symbolic.chi import CHI_KEYS, SOURCE_KEYS
from perfeq.symbolic.export import FORMATTERS
from perfeq.symbolic.measured import count_trace, trace_costs


def register(subparsers: argparse._SubParsersAction) -> None:
    _register_trace_commands(subparsers)
    _register_model_commands(subparsers)


def _register_trace_commands(subparsers: argparse._SubParsersAction) -> None:
    graph = subparsers.add_parser(
        "callgraph", help="print the call graph of a trace",
        description="Print the call graph of a trace with its call and block counts.")
    graph.add_argument("trace", type=Path, help="a trace written by `perfeq run`")
    graph.add_argument("--json", action="store_true", help="print JSON instead of a tree")
    graph.add_argument("--hatchet", type=Path, metavar="OUT.json",
                       help="also write the graph in Hatchet's literal format (GraphFrame.from_literal)")
    graph.add_argument("--rank", type=int, metavar="R", help="only rank R (default: all ranks merged)")
    graph.set_defaults(func=run_callgraph)

    counts = subparsers.add_parser(
        "counts", help="print the counts of a traced run, or a model's predicted counts",
        description="With --trace: the counts the instrumented run actually performed (ops, par, startup = "
                    "messages on the critical path, sent = messages sent, "
                    "bytes, ...), per rank and in total.  With a model file: its predicted counts at a "
                    "problem size and processor count.  With both: the model at the run's own values "
                    "against what the run measured, key by key (a check of the model on a run it was not "
                    "built from).",
        epilog="examples:  perfeq counts --trace prog.trace\n           perfeq counts prog.model.json N=65536 P=64\n"
               "           perfeq counts prog.model.json --trace big.trace",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    counts.add_argument("model", nargs="?", type=Path, help="a model file written by `perfeq model`")
    counts.add_argument("assignments", nargs="*", metavar="NAME=VALUE",
                        help="parameter values, P (processes) and T (threads) for the model")
    counts.add_argument("--trace", type=Path, help="a trace written by `perfeq run`: its measured counts")
    counts.add_argument("--caches", type=Path, help="cache description for the model's cache and page counts "
                        "(perfeq machine -o; default: this machine)")
    # the cache description's old name, for one release (--machine means the machine profile)
    counts.add_argument("--machine", dest="caches_deprecated", type=Path, help=argparse.SUPPRESS)
    counts.add_argument("--json", action="store_true", help="print JSON")
    counts.set_defaults(func=run_counts)


def _register_model_commands(subparsers: argparse._SubParsersAction) -> None:
    m = subparsers.add_parser(
        "model",
        help="build the symbolic cost model of a program from instrumentation traces",
        description="Build symbolic operation counts chi(N, P) per basic block from one or more "
        "instrumentation traces of the same program (at small sizes).",
    )
    m.add_argument("traces", nargs="+", type=Path, help="traces written by perfeq run")
    m.add_argument("--param", action="append", metavar="SYMBOL=var", help="name a parameter, e.g. N=n")
    m.add_argument("-o", "--output", type=Path, help="model file (default: PROGRAM.model.json)")
    m.set_defaults(func=run_model)

    c = subparsers.add_parser("machine", help="describe this machine's caches, line, page and memory")
    c.add_argument("--detect", action="store_true", help="detect this machine (the default)")
    c.add_argument("-o", "--output", type=Path, help="write the description here (JSON; YAML when the name ends in .yaml or .yml)")
    c.set_defaults(func=run_machine)


# ---- traces ----------------------------------------------------------------------------------------
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


def run_callgraph(args: argparse.Namespace) -> int:
    trace = _read(args.trace)
    graph = CallGraph.from_trace(trace, rank=args.rank, costs=trace_costs(trace))
    if args.hatchet:
        text = json.dumps(graph.to_literal(), indent=1) + "\n"
        write_atomic(args.hatchet, text)
    if args.json:
        print(json.dumps(graph.to_dict(), indent=1))
    else:
        print(graph.render())
    return 0


def run_counts(args: argparse.Namespace) -> int:
    caches = _caches(args)
    if args.trace is None:
        if args.model is None:
            raise UsageError("perfeq counts: give --trace TRACE (measured counts) or MODEL NAME=VALUE... "
                             "(predicted counts)")
        return model_counts(args.model, args.assignments, caches, args.json)
    if args.model is not None:
        if args.assignments or caches is not None:
            raise UsageError("perfeq counts MODEL --trace TRACE: the values are the run's; give no NAME=VALUE "
                             "or --caches")
        return model_against_run(args.model, args.trace, args.json)
    if caches is not None:
        raise UsageError("perfeq counts: --trace takes no --caches")
    trace = _read(args.trace)
    counts = count_trace(trace)
    if args.json:
        print(json.dumps(counts.as_dict(), indent=1))
        return 0
    for note in counts.notes:
        print(f"perfeq: note: {note}", file=sys.stderr)
    columns = ("ops", "ops_total", "par", "startup", "sent", "bytes", "calls", "mpi_calls")
    rows = [("total", counts.total)] + [(f"rank {r}", c) for r, c in sorted(counts.ranks.items())]
    print(_table([("", *columns)] + [(name, *(_fmt(getattr(c, col)) for col in columns)) for name, c in rows]))
    if counts.total.mpi:
        header = ("MPI call", "calls", "elements", "bytes", "messages", "bytes_sent", "critical")
        print()
        print(_table([header] + [(name, *(str(v) for v in (c.calls, c.elements, c.bytes, c.messages,
                                                           c.bytes_sent, c.messages_critical)))
                                 for name, c in sorted(counts.total.mpi.items())]))
    return 0


def _caches(args: argparse.Namespace) -> Path | None:
    """``--caches``, or its deprecated spelling ``--machine`` (said in one warning line)."""
    if args.caches_deprecated is None:
        return args.caches
    print("perfeq: warning: --machine for the cache description is deprecated; use --caches", file=sys.stderr)
    if args.caches is not None:
        raise UsageError("perfeq counts: give the cache description once, with --caches")
    return args.caches_deprecated


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


# ---- models ----------------------------------------------------------------------------------------
def run_model(args: argparse.Namespace) -> int:
    from perfeq.symbolic.model import build_model

    model = build_model(args.traces, parse_param_names(args.param))
    output = args.output or Path(Path(model.program).stem + ".model.json")
    model.save(output)
    for fallback in model.fallbacks:
        print(f"perfeq: {fallback}", file=sys.stderr)
    totals = model.totals()
    names = [name if entry["variable"] == name else f"{name} ({entry['variable']})"
             for name, entry in model.parameters.items()]
    print(f"parameters: {', '.join(names) or '(none)'}, P (processes), T (threads), rank")
    if model.unused:
        print(f"  not parameters (no count depends on them): {', '.join(model.unused)}")
    for key in (*SOURCE_KEYS, "sent"):  # startup: messages on the critical path; sent: messages sent
        print(f"  {key:8s} = {FORMATTERS['text'](totals.get(key, 0))}")
    _print_self_check(model.self_check)
    print(f"wrote {output} ({len(model.items)} items, {len(model.fallbacks)} fallbacks)")
    return 0


def _print_self_check(check: dict) -> None:
    """The fidelity table (the model's error on each key at each training run, worst rank in
    brackets when it differs), the leave-one-out errors, and the warnings."""
    if not check:
        return
    keys = [k for k in dict.fromkeys(c["key"] for c in check["checks"])
            if any(c["measured"] or c["modelled"] for c in check["checks"] if c["key"] == k)]
    table = {(c["trace"], c["key"]): c for c in check["checks"]}
    traces = list(dict.fromkeys(c["trace"] for c in check["checks"]))
    rank = check.get("worst_rank_error")
    largest = f"; largest rank: {_percent(rank, 1)}" if rank else ""
    print(f"self-check: the model against its {len(traces)} training run(s), error per key "
          f"(worst: {_worst(check)}{largest}; warned above {check['tolerance']:.0%})")
    print("  " + f"{'trace':20s}" + "".join(f"{k:>9s}" for k in keys))
    for trace in traces:
        print("  " + f"{trace[:20]:20s}" + "".join(f"{_percent(table[trace, k]['error'], 1):>9s}" for k in keys))
    held = check.get("held_out", [])
    if held:
        print("leave-one-out: each run predicted by the model of the others (the extrapolation error to expect)")
        for trace in dict.fromkeys(row["trace"] for row in held):
            errors = ", ".join(f"{row['key']} {_percent(row['error'], 1)}" for row in held if row["trace"] == trace)
            print(f"  {trace}: {errors}")
    for c in check["checks"]:
        total, rank = c["error"], c["worst_rank_error"]
        if total is not None and abs(total) <= check["tolerance"] and (rank is None or abs(rank) > check["tolerance"]):
            print(f"  per rank: {c['trace']} {c['key']} {_percent(rank, 1)} on rank {c['worst_rank']}, exact in "
                  "total (a data-dependent count modelled with the ratio over all ranks)")
    for warning in check["warnings"]:
        print(f"perfeq: warning: {warning}", file=sys.stderr)


def _worst(check: dict) -> str:
    """The worst error, or where a run measured 0 that the model does not, that (no ratio)."""
    if check["worst_error"] is None and any(c["error"] is None for c in check["checks"]):
        return "a count the run measured as 0 is not 0 in the model"
    return _percent(check["worst_error"])


def _worst_rank(check) -> str:
    """The rank the model misses most on, with its error ("run 0": the rank ran none of it)."""
    if not check.worst_rank_error:
        return "-"
    error = check.worst_rank_error
    return f"{check.worst_rank} ({_percent(error, 2) if math.isfinite(error) else 'run 0'})"


def _percent(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else "0" if value == 0 else f"{value:+.{digits}%}"


def model_counts(model_path: Path, assignments: list[str], caches: Path | None, as_json: bool) -> int:
    """``perfeq counts MODEL NAME=VALUE...``: the predicted counts, cache misses with the cache
    description ``caches`` (default: this machine's)."""
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import load_model

    model = load_model(model_path)
    values, procs, threads = parse_assignments(assignments)
    machine = Machine.load(caches) if caches else Machine.detect()
    counts = model.counts(values, procs, threads, machine)
    if as_json:
        print(json.dumps({"model": str(model_path), "values": values, "P": procs, "T": threads,
                          "machine": machine.name, **counts,
                          "beyond_training": model.beyond_training(values, procs, threads)}, indent=1))
        return 0
    print(f"{model.program}: {', '.join(f'{k}={v:g}' for k, v in values.items())} P={procs} T={threads}")
    print(f"{'key':10s} {'total (all ranks)':>20s} {'slowest rank':>16s}")
    for key in (*CHI_KEYS, "mem", "sent"):  # startup: messages on the critical path; sent: sent (not priced)
        if key in counts["total"]:
            print(f"{key:10s} {counts['total'][key]:20.6g} {counts['slowest'][key]:16.6g}")
    print(f"slowest rank: {counts['slowest_rank']}")
    beyond = model.beyond_training(values, procs, threads)
    if beyond:
        print(f"perfeq: note: {beyond}", file=sys.stderr)
    return 0


def model_against_run(model_path: Path, trace: Path, as_json: bool) -> int:
    """``perfeq counts MODEL --trace TRACE``: the model at the run's own parameters (the values it
    recorded, the sizes its build compiled in), P and T, against what the run measured, key by key."""
    from perfeq.symbolic import fidelity
    from perfeq.symbolic.model import load_model
    from perfeq.symbolic.observe import add_bound_value, from_trace

    model = load_model(model_path)
    run = from_trace(trace)
    missing = [f"{name} ('{entry['variable']}')" for name, entry in model.parameters.items()
               if entry["variable"] not in run.params and not add_bound_value(run, entry["variable"])]
    if missing:
        raise UsageError(f"{trace}: the run has no value of the parameter(s) {', '.join(missing)}")
    check = fidelity.self_check(model, [run], [trace])
    values = fidelity.run_values(model, run) or {}
    rows = [c for c in check.checks if c.measured or c.modelled]
    if as_json:
        print(json.dumps({"model": str(model_path), "trace": str(trace), "values": values, "P": run.nranks,
                          "T": run.threads, "tolerance": fidelity.TOLERANCE,
                          "keys": {c.key: {"modelled": c.modelled, "measured": c.measured,
                                           "error": fidelity._finite(c.error), "culprits": c.culprits,
                                           "largest_rank": {"modelled": c.modelled_max, "measured": c.measured_max,
                                                            "error": fidelity._finite(c.max_error)},
                                           "worst_rank": c.worst_rank,
                                           "worst_rank_error": fidelity._finite(c.worst_rank_error)}
                                   for c in check.checks}}, indent=1))
        return 0
    shown = ", ".join(f"{k}={v:g}" for k, v in values.items())
    print(f"{model.program} at the values of {trace}: {shown} P={run.nranks} T={run.threads}".replace(":  P", ": P"))
    print(_table([("key", "model", "measured", "error", "max over ranks: model", "measured", "error", "worst rank")] +
                 [(c.key, f"{c.modelled:.6g}", f"{c.measured:.6g}", _percent(c.error, 2),
                   f"{c.modelled_max:.6g}", f"{c.measured_max:.6g}", _percent(c.max_error, 2),
                   _worst_rank(c)) for c in rows]))
    for c in rows:
        if c.off and c.culprits:
            print(f"perfeq: note: {c.key} off by {c.error:+.1%}; largest differences: {'; '.join(c.culprits)}",
                  file=sys.stderr)
        elif not c.off and abs(c.max_error) > fidelity.TOLERANCE and c.key == "ops":
            print(f"perfeq: note: ops within {fidelity.TOLERANCE:.0%} in total, but the largest rank's are "
                  f"{_percent(c.max_error, 1)} off (rank {c.worst_rank}: {_percent(c.worst_rank_error, 1)}): the model "
                  "shares the work among the ranks otherwise than the run did (a data-dependent ratio is the one "
                  "over all ranks), and the slowest rank's time is off with it", file=sys.stderr)
    return 0


def run_machine(args: argparse.Namespace) -> int:
    from perfeq.symbolic.machine import Machine

    machine = Machine.detect()
    text = machine.to_text(args.output)
    if args.output:
        write_atomic(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    print(text, end="")
    return 0
