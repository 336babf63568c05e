"""Subcommands of the instrument stage: ``perfeq instrument`` and ``perfeq cc``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from perfeq.arguments import parse_param_names


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "instrument",
        help="instrument a C file (source to source) and write its descriptors",
        description="Instrument one C file: the output is the original source with counting hooks and "
        "#line directives, plus a descriptor JSON beside it. Flags after -- go to the preprocessor.",
    )
    p.add_argument("source", type=Path)
    p.add_argument("-o", "--output", type=Path, help="instrumented file (default: SOURCE.perfeq.c)")
    p.add_argument("--cc", default=None, help="compiler used as the preprocessor (default: mpicc, else cc)")
    p.add_argument("--param", action="append", metavar="SYMBOL=var", help="name a problem-size parameter")
    p.add_argument("flags", nargs="*", help="-- then preprocessor flags (-I, -D, -std=...)")
    p.set_defaults(func=run_instrument)

    c = subparsers.add_parser(
        "cc",
        help="compiler wrapper: instrument, compile and link with the runtime",
        description="Instrument every .c file of a compile line into a build folder, compile the "
        "instrumented copies with your compiler and flags, and link the perfeq runtime. "
        "Example: perfeq cc mpicc -O2 prog.c -o prog -lm (a -- before the compiler is allowed)",
    )
    c.add_argument("--build-dir", type=Path, default=Path("perfeq-build"), help="where instrumented copies go")
    c.add_argument("--param", action="append", metavar="SYMBOL=var", help="name a problem-size parameter")
    c.add_argument("-v", "--verbose", action="store_true", help="print the compile command")
    c.add_argument("command", nargs=argparse.REMAINDER, help="the compile command (optionally after --)")
    c.set_defaults(func=run_cc)


def _after_dashes(items: list[str]) -> list[str]:
    return items[1:] if items and items[0] == "--" else items


def run_instrument(args: argparse.Namespace) -> int:
    from perfeq.instrument.instrumenter import instrument_file

    source: Path = args.source
    output = args.output or source.with_name(source.stem + ".perfeq.c")
    compiler = args.cc.split() if args.cc else None
    result = instrument_file(source, output, compiler, _after_dashes(args.flags), parse_param_names(args.param))
    for warning in result.warnings:
        print(f"perfeq: {warning}", file=sys.stderr)
    print(f"perfeq: wrote {result.output} and {result.descriptors_path}", file=sys.stderr)
    return 0


def run_cc(args: argparse.Namespace) -> int:
    from perfeq.instrument.compile import compile_instrumented

    return compile_instrumented(_after_dashes(args.command), args.build_dir, parse_param_names(args.param), args.verbose)
