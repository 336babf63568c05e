"""Shared test helpers: where the fixtures are, and the small routines several test files need.

Test files live in subfolders that mirror the packages (tests/instrument for perfeq.instrument,
tests/fitting/regression for perfeq.fitting.regression, ...); C programs are under tests/c and data
files under tests/data.  Everything is found from this file's own path.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
C_PROGRAMS = TESTS / "c"
DATA = TESTS / "data"
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"


def one_line_error(capsys) -> str:
    """The one ``perfeq: error: ...`` line a failing command printed, checked to be alone and
    traceback-free (on stderr and stdout)."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("perfeq: error: ")
    assert "Traceback" not in captured.err + captured.out
    return lines[0]


def run_traced(command: list[str], output: Path, **env: str):
    """Run ``command`` under ``perfeq run`` with the MPI environment: (exit status, merged trace)."""
    from perfeq.runtime.run import run_instrumented
    from perfeq.runtime.trace import read_trace
    from perfeq.toolchain import mpi_env

    result = run_instrumented(command, output, env={**mpi_env(), **env})
    return result.exit_status, read_trace(output)
