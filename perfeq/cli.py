"""The ``perfeq`` command line: one subcommand per pipeline step.

Each stage (and each room of fitting, and the workflows) contributes its subcommands through a
``commands`` module with a ``register(subparsers)`` function, listed here once; a subcommand
handler takes the parsed arguments and returns the exit status.  Errors are caught once, here, and printed as a single ``perfeq: error: ...`` line; a bug of perfeq's is one ``perfeq: internal error`` line
(exit 3) unless ``PERFEQ_DEBUG`` is set.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence

from perfeq import __version__
from perfeq.errors import PerfeqError
from perfeq.fitting.analysis import commands as analysis
from perfeq.fitting.ranking import commands as ranking
from perfeq.fitting.regression import commands as regression
from perfeq.fitting.scaling import commands as scaling
from perfeq.fitting.variability import commands as variability
from perfeq.instrument import commands as instrument
from perfeq.runtime import commands as runtime
from perfeq.symbolic import commands as symbolic
from perfeq.workflows import commands as workflows

# The modules that register subcommands, in the order of the pipeline.
COMMAND_MODULES = (instrument, runtime, symbolic, regression, workflows, analysis, ranking, scaling, variability)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="perfeq",
        description="Predict the run time of C/MPI/OpenMP programs from one small instrumented run.",
    )
    parser.add_argument("--version", action="version", version=f"perfeq {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
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
