"""The steps every workflow chains on the bundled examples: build, run small, model, time.

Used by ``perfeq tour``, ``perfeq calibrate``, the tests and the benchmarks, so they all drive the
real pipeline the same way a user does with ``perfeq cc`` / ``perfeq run`` / ``perfeq model``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from perfeq.errors import BuildError, RunError
from perfeq.examples.catalog import Example
from perfeq.toolchain import find_mpi, mpi_env

OPT_FLAGS = ("-O2",)  # the default build; perfeq calibrate --build NAME=FLAGS replaces these


def compile_command(example: Example, output: Path, opt_flags: tuple[str, ...] | None = None) -> list[str]:
    """``mpicc -std=c99 -O2 [-fopenmp] source -o output -lm``; ``opt_flags`` replace ``-O2``."""
    flags = ["-std=c99", *(OPT_FLAGS if opt_flags is None else opt_flags)]
    if example.openmp:
        flags.append("-fopenmp")
    return [find_mpi().mpicc, *flags, str(example.source), "-o", str(output), "-lm"]


def build_plain(example: Example, folder: Path, opt_flags: tuple[str, ...] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / example.name
    _run_compiler(compile_command(example, binary, opt_flags))
    return binary


def build_instrumented(example: Example, folder: Path) -> Path:
    """``perfeq cc -- mpicc ... example.c -o folder/NAME.inst``: the instrumented binary."""
    from perfeq.instrument.compile import compile_instrumented

    folder.mkdir(parents=True, exist_ok=True)
    binary = folder / f"{example.name}.inst"
    compile_instrumented(compile_command(example, binary), folder / f"{example.name}-build")
    return binary


MPI_SIZE_PROBE = r"""/* Written by perfeq: rank 0 prints how many processes its MPI job has. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("%d\n", size);
    MPI_Finalize();
    return 0;
}
"""


def build_size_probe(folder: Path) -> Path:
    """``folder/mpi_size_probe``: a program whose rank 0 prints the size of its MPI job.  A batch
    script runs it to check that its launcher starts one job of P processes: ``srun`` without the
    MPI plugin the MPI library needs starts P separate one-process jobs instead, which would time
    every P-process point as P copies of the one-process run."""
    folder.mkdir(parents=True, exist_ok=True)
    source, binary = folder / "mpi_size_probe.c", folder / "mpi_size_probe"
    source.write_text(MPI_SIZE_PROBE)
    _run_compiler([find_mpi().mpicc, "-std=c99", str(source), "-o", str(binary)])
    return binary


def _run_compiler(command: list[str]) -> None:
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(f"compiling failed: {' '.join(command)}: {proc.stderr.strip().splitlines()[-1:]}")


def launch_command(binary: Path, argv: list[str], procs: int, launcher: str | None = None) -> list[str]:
    """The command line that runs ``binary`` on ``procs`` processes (``{P}`` and ``{cmd}`` in a template)."""
    if launcher:
        return [part for word in launcher.split() for part in
                ([str(procs)] if word == "{P}" else [str(binary), *argv] if word == "{cmd}" else
                 [word.replace("{P}", str(procs))])]
    return [*find_mpi().launcher(procs), str(binary), *argv]


def environment(threads: int = 1) -> dict[str, str]:
    env = mpi_env()
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def run_small(example: Example, binary: Path, values: dict[str, float], procs: int, trace: Path,
              threads: int = 1) -> Path:
    """Run the instrumented binary and return its merged trace."""
    from perfeq.runtime.run import run_instrumented

    command = launch_command(binary, example.argv(values), procs)
    with open(os.devnull, "w") as sink:
        env = environment(threads)
        result = _quiet(lambda: run_instrumented(command, trace, env=env, stdout=subprocess.DEVNULL), sink)
    if result.exit_status != 0 or result.trace is None:
        raise RunError(f"{example.name}: the instrumented run failed (exit {result.exit_status}): {' '.join(command)}")
    return result.trace


def doubled(example: Example) -> dict[str, int]:
    """The small size with the main (first) parameter doubled: the second instrumentation run."""
    values = dict(example.small)
    first = example.params[0]["name"]
    values[first] = values[first] * 2
    return values


def model_example(example: Example, binary: Path, folder: Path, procs: int = 2):
    """The example's model from two small instrumentation runs (its small size and twice it), so
    that loops the symbolic step cannot resolve are fitted to a form of the problem size."""
    from perfeq.symbolic.model import build_model

    traces = [run_small(example, binary, example.small, procs, folder / f"{example.name}.trace"),
              run_small(example, binary, doubled(example), procs, folder / f"{example.name}.2.trace")]
    return build_model(traces)


def _quiet(action, sink):
    import contextlib

    with contextlib.redirect_stdout(sink):
        return action()


def time_run(binary: Path, argv: list[str], procs: int, threads: int = 1, launcher: str | None = None,
             timeout: float = 600) -> float:
    """Wall time in seconds of one plain run (the program's output is checked, not kept)."""
    command = launch_command(binary, argv, procs, launcher)
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, env=environment(threads), timeout=timeout,
                          check=False)
    elapsed = time.perf_counter() - start
    if _interrupted(proc):  # Ctrl-C reached the program (and mpiexec) before it reached perfeq
        raise KeyboardInterrupt
    if proc.returncode != 0:
        raise RunError(f"{' '.join(command)} failed (exit {proc.returncode}): {proc.stderr.strip()[:200]}")
    return elapsed


def _interrupted(proc: subprocess.CompletedProcess[str]) -> bool:
    """Whether the run ended by SIGINT: killed by it, exit 130, or mpiexec's report of it."""
    return (proc.returncode in (-signal.SIGINT, 128 + signal.SIGINT)
            or (proc.returncode != 0 and "Interrupt (signal 2)" in proc.stdout + proc.stderr))
