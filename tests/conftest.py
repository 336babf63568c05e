"""Shared test helpers: where the fixtures are, and the small routines several test files need.

Test files live in subfolders that mirror the packages (tests/instrument for perfeq.instrument,
tests/fitting/regression for perfeq.fitting.regression, ...); C programs are under tests/c and data
files under tests/data.  Everything is found from this file's own path.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
C_PROGRAMS = TESTS / "c"
DATA = TESTS / "data"
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
BENCHMARK_DATA = ROOT / "benchmarks" / "data"  # kept calibration campaigns (runs CSVs)


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


def instrumented_program(source: Path, folder: Path, *libs: str):
    """Compile ``source`` with the perfeq runtime (and ``libs``, e.g. ``-lm``); returns
    ``trace(procs, name, *args)``, which runs it on ``procs`` processes (its output dropped), checks
    it exits 0 and gives the trace's path."""
    from perfeq.instrument.compile import compile_instrumented
    from perfeq.runtime.run import run_instrumented
    from perfeq.toolchain import find_mpi, mpi_env

    binary = folder / source.stem
    compile_instrumented([find_mpi().mpicc, "-std=c99", "-O1", str(source), "-o", str(binary), *libs], folder / "build")

    def trace(procs: int, name: str, *args: object) -> Path:
        command = [*find_mpi().launcher(procs), str(binary), *map(str, args)]
        result = run_instrumented(command, folder / name, env=mpi_env(), stdout=subprocess.DEVNULL)
        assert result.exit_status == 0
        return result.trace

    return trace


@pytest.fixture(scope="session")
def kernels(tmp_path_factory):
    """tests/c/symbolic/kernels.c (every loop form) instrumented: its model from two small runs on 2
    processes, and ``trace(n, steps, procs, name)`` for more runs."""
    from perfeq.symbolic.model import build_model

    run = instrumented_program(C_PROGRAMS / "symbolic" / "kernels.c", tmp_path_factory.mktemp("kernels"))

    def trace(n: int, steps: int, procs: int, name: str) -> Path:
        return run(procs, name, n, steps)

    small = [trace(24, 2, 2, "small.trace"), trace(48, 2, 2, "small2.trace")]
    model = build_model(small)
    return model, trace


def assert_same_output_as_plain(source: Path, instrumented: Path, folder: Path, *args: object, procs: int = 2,
                                libs: tuple[str, ...] = ()) -> str:
    """Build ``source`` without perfeq (mpicc -std=c99 -O1, then ``libs``), run it and the
    ``instrumented`` binary on ``procs`` processes with ``args``, and check both print the same,
    non-empty output."""
    from perfeq.toolchain import find_mpi, mpi_env

    plain = folder / "plain"
    subprocess.run([find_mpi().mpicc, "-std=c99", "-O1", str(source), "-o", str(plain), *libs], check=True)
    outputs = [subprocess.run([*find_mpi().launcher(procs), str(binary), *map(str, args)], env=mpi_env(),
                              capture_output=True, text=True, check=True, cwd=folder).stdout
               for binary in (plain, instrumented)]
    assert outputs[0] == outputs[1] and outputs[0].strip()
    return outputs[0]


def local_history_misses(outcomes: list[int], history_bits: int = 4) -> int:
    """Mispredictions of a two-level local-history predictor (Yeh & Patt), written plainly: what the
    runtime's PERFEQ_BRANCH (runtime/c/perfeq_rt.h) must count for these outcomes (1 taken, 0 not)."""
    history, counters, misses = 0, [0] * (1 << history_bits), 0
    for taken in outcomes:
        misses += (counters[history] >= 2) != bool(taken)
        counters[history] = min(counters[history] + 1, 3) if taken else max(counters[history] - 1, 0)
        history = ((history << 1) | taken) & ((1 << history_bits) - 1)
    return misses


def tiny_calibration_apps(folder: Path, sizes: dict[str, tuple[list[int], list[int]]] | None = None) -> Path:
    """``folder`` made into an ``--apps`` catalog: the bundled cg and ocean at two tiny sizes each (runs of a
    few milliseconds), for calibration campaigns that take seconds; ``sizes`` gives others, by name the
    calibration values of n and of the second parameter (iters, steps)."""
    folder.mkdir()
    entries = []
    sizes = sizes or {"cg": ([32, 48], [20, 20]), "ocean": ([32, 48], [10, 10])}
    for name, second, small in (("cg", "iters", 10), ("ocean", "steps", 5)):
        shutil.copy(EXAMPLES / f"{name}.c", folder / f"{name}.c")
        entries.append({
            "name": name, "source": f"{name}.c", "description": f"{name} (test sizes)", "openmp": False,
            "params": [{"name": "n", "argv": 1, "small": 16, "calibration": list(sizes[name][0])},
                       {"name": second, "argv": 2, "small": small, "calibration": list(sizes[name][1])}],
        })
    (folder / "catalog.json").write_text(json.dumps({"format": "perfeq-examples", "version": 1,
                                                     "examples": entries}))
    return folder
