"""The runtime stage's subcommand: ``perfeq run``.

Part of perfeq stage 2 (runtime/); registered by perfeq/cli.py.  Handlers return the exit status
and raise perfeq errors for the CLI to print.  The commands that read a trace (``perfeq callgraph``,
``perfeq counts``) need the descriptors' costs, so the symbolic stage registers them
(perfeq.symbolic.commands), right after this one.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from perfeq.errors import UsageError
from perfeq.runtime.run import run_instrumented


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


def _run(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("perfeq run: no command given; usage: perfeq run [-o prog.trace] -- ./prog ARGS")
    return run_instrumented(command, args.output).exit_status
