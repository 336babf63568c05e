"""Subcommands of the symbolic stage: ``perfeq model``, ``perfeq equation``, ``perfeq machine``.

``perfeq counts MODEL N=... P=...`` (predicted counts) shares the ``counts`` command with the
measured counts of a trace; see perfeq.runtime.commands.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import sympy as sp

from perfeq.errors import UsageError
from perfeq.instrument.commands import parse_params


def register(subparsers: argparse._SubParsersAction) -> None:
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

    e = subparsers.add_parser("equation", help="print the symbolic counts and the time equation of a model")
    e.add_argument("model", type=Path)
    e.add_argument("--format", choices=("text", "latex", "python", "maple"), default="text")
    e.add_argument("--blocks", action="store_true", help="also print every block's counts")
    e.set_defaults(func=run_equation)

    c = subparsers.add_parser("machine", help="describe this machine's caches, line, page and memory")
    c.add_argument("--detect", action="store_true", help="detect this machine (the default)")
    c.add_argument("-o", "--output", type=Path, help="write the description here (JSON; YAML when the name ends in .yaml or .yml)")
    c.set_defaults(func=run_machine)


def run_model(args: argparse.Namespace) -> int:
    from perfeq.symbolic.model import build_model

    model = build_model(args.traces, parse_params(args.param))
    output = args.output or Path(Path(model.program).stem + ".model.json")
    model.save(output)
    for fallback in model.fallbacks:
        print(f"perfeq: {fallback}", file=sys.stderr)
    totals = model.totals()
    print(f"parameters: {', '.join(model.parameters) or '(none)'}, P (processes), T (threads), rank")
    for key in ("ops", "par", "startup", "bytes"):
        print(f"  {key:8s} = {_show(totals.get(key, 0))}")
    print(f"wrote {output} ({len(model.items)} items, {len(model.fallbacks)} fallbacks)")
    return 0


def parse_assignments(items: list[str]) -> tuple[dict[str, float], int, int]:
    """``N=65536 P=64 T=2`` -> (parameter values, P, T)."""
    values: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"{item}: expected NAME=VALUE, e.g. N=65536 P=64")
        try:
            values[name] = float(value)
        except ValueError:
            raise UsageError(f"{item}: {value!r} is not a number") from None
    procs = int(values.pop("P", 1))
    threads = int(values.pop("T", 1))
    if procs < 1 or threads < 1:
        raise UsageError("P and T must be at least 1")
    return values, procs, threads


def model_counts(model_path: Path, assignments: list[str], machine_path: Path | None, as_json: bool) -> int:
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import load_model

    model = load_model(model_path)
    values, procs, threads = parse_assignments(assignments)
    machine = Machine.load(machine_path) if machine_path else Machine.detect()
    counts = model.counts(values, procs, threads, machine)
    if as_json:
        print(json.dumps({"model": str(model_path), "values": values, "P": procs, "T": threads,
                          "machine": machine.name, **counts}, indent=1))
        return 0
    print(f"{model.program}: {', '.join(f'{k}={v:g}' for k, v in values.items())} P={procs} T={threads}")
    print(f"{'key':10s} {'total (all ranks)':>20s} {'slowest rank':>16s}")
    for key in ("ops", "par", "l1", "l2", "page", "startup", "bytes"):
        print(f"{key:10s} {counts['total'][key]:20.6g} {counts['slowest'][key]:16.6g}")
    print(f"slowest rank: {counts['slowest_rank']}")
    return 0


def run_equation(args: argparse.Namespace) -> int:
    from perfeq.symbolic.model import load_model
    from perfeq.symbolic.symbols import cost_symbol

    model = load_model(args.model)
    totals = model.totals()
    costs = ("ops", "par", "l1", "l2", "page", "startup", "bytes")
    chi = {key: totals.get(key, sp.Integer(0)) for key in costs}
    chi["l1"] = chi["l2"] = chi["page"] = sp.Symbol("see_machine")  # linearized at evaluation
    time = sum(sp.Symbol(f"chi_{k}") * cost_symbol(k) for k in costs)
    fmt = {"text": _show, "latex": sp.latex, "python": _python, "maple": _maple}[args.format]
    for key in ("ops", "par", "startup", "bytes"):
        print(f"chi_{key} = {fmt(chi[key])}")
    print("chi_l1, chi_l2, chi_page: from loop-nest footprints and the machine (perfeq counts --machine)")
    print(f"t = {fmt(time)}")
    if args.blocks:
        for item in model.items:
            shown = ", ".join(f"{k}={fmt(v)}" for k, v in item.counts.items() if k in ("ops", "par", "startup", "bytes"))
            print(f"{item.label} [{item.context}]: {shown}")
    return 0


def run_machine(args: argparse.Namespace) -> int:
    from perfeq.files import write_atomic
    from perfeq.symbolic.machine import Machine

    machine = Machine.detect()
    text = machine.to_text(args.output)
    if args.output:
        write_atomic(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    print(text, end="")
    return 0


def _show(expr) -> str:
    return str(sp.factor(expr)) if isinstance(expr, sp.Expr) and not expr.has(sp.Function) else str(expr)


def _python(expr) -> str:
    """Python source; the MPI message functions stay calls (perfeq.symbolic.comm implements them)."""
    return sp.pycode(expr, strict=False)


def _maple(expr) -> str:
    return str(expr).replace("**", "^")
