"""The ``perfeq`` command line: one subcommand per pipeline step.

Each stage (and each room of fitting, and the workflows) contributes its subcommands through a
``commands`` module with a ``register(subparsers)`` function, listed here once; a subcommand
handler takes the parsed arguments and returns the exit status.  Errors are caught once, here, and printed as a single ``perfeq: error: ...`` line; a bug of perfeq's is one ``perfeq: internal error`` line
(exit 3) unless ``PERFEQ_DEBUG`` is set.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence

from perfeq import __version__
from perfeq.errors import PerfeqError

# The modules that register subcommands, in the order of the pipeline.
COMMAND_MODULES = ("perfeq.instrument.commands", "perfeq.runtime.commands", "perfeq.symbolic.commands",
                   "perfeq.fitting.regression.commands", "perfeq.workflows.commands",
                   "perfeq.fitting.analysis.commands", "perfeq.fitting.ranking.commands",
                   "perfeq.fitting.scaling.commands", "perfeq.fitting.variability.commands")
# The commands a build or a job launches many times (a compiler wrapper under make -j, the launcher
# of every run), by the light module that registers them: their parser leaves the others (sympy,
# statsmodels: two seconds to import) unimported.
LIGHT_COMMANDS = {"instrument": "perfeq.instrument.commands", "cc": "perfeq.instrument.commands",
                  "run": "perfeq.runtime.commands"}


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="perfeq",
        description="Predict the run time of C/MPI/OpenMP programs from one small instrumented run.",
    )
    parser.add_argument("--version", action="version", version=f"perfeq {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    light = LIGHT_COMMANDS.get(argv[0]) if argv else None
    parser = build_parser((light,) if light else COMMAND_MODULES)
    # `perfeq instrument prog.c -o out.c -- -Iinc`: what follows -- are the preprocessor flags,
    # wherever the options stand (argparse alone wants them before the positional arguments).
    tail: list[str] = []
    if argv[:1] == ["instrument"] and "--" in argv:
        cut = argv.index("--")
        argv, tail = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    if tail:
        args.flags = list(args.flags or []) + tail
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except PerfeqError as exc:
        print(f"perfeq: error: {exc}", file=sys.stderr)
        return exc.exit_status
    except BrokenPipeError:  # `perfeq ... | head`: the reader has gone, nothing to say
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("perfeq: error: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"perfeq: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug of perfeq's: one line, unless the developer asks for the traceback
        if os.environ.get("PERFEQ_DEBUG"):
            raise
        print(f"perfeq: internal error in {args.command}: {_where(exc)}{type(exc).__name__}: {exc}; "
              "please report it (PERFEQ_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 3


def _where(exc: BaseException) -> str:
    """``module.py:LINE: `` of the innermost frame that raised ``exc``."""
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}: " if frames else ""


if __name__ == "__main__":
    sys.exit(main())
