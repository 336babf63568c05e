"""``perfeq run``: run an instrumented program once and collect its trace.

Part of perfeq stage 2 (runtime/).  Points ``PERFEQ_TRACE`` at a private folder (next to the
output, so ranks on other nodes of a shared file system can write there), runs the command with
its output passed through, merges the per-rank traces into one trace (written atomically) and
returns the program's exit status.  A failed program still gets its traces merged, and is said so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfeq.errors import RunError, TraceError, UsageError
from perfeq.runtime.merge import MergeResult, merge_rank_traces
from perfeq.runtime.trace import IncompleteTraceWarning
from perfeq.toolchain import mpi_env

# Launchers whose arguments precede the program (used to name the default trace).
LAUNCHERS = frozenset({"mpiexec", "mpirun", "mpiexec.hydra", "srun", "aprun", "jsrun", "env", "time", "nice"})


@dataclass(frozen=True)
class RunResult:
    """The outcome of :func:`run_instrumented`."""

    exit_status: int
    trace: Path | None          # the merged trace, None when no rank wrote one
    merge: MergeResult | None


def default_trace_path(command: Sequence[str], folder: Path | None = None) -> Path:
    """``<program>.trace`` in ``folder`` (the current folder), the program being the first argument
    that is an existing executable file and not a launcher; ``perfeq.trace`` if there is none."""
    for arg in command:
        path = Path(arg)
        if path.name in LAUNCHERS or arg.startswith("-"):
            continue
        if path.is_file() and os.access(path, os.X_OK):
            return (folder or Path.cwd()) / f"{path.name}.trace"
    return (folder or Path.cwd()) / "perfeq.trace"


def exit_status_of(returncode: int) -> int:
    """The shell's view of a status: 128 + signal number for a program killed by a signal."""
    return 128 - returncode if returncode < 0 else returncode


def run_instrumented(command: Sequence[str], output: Path | None = None, *,
                     env: Mapping[str, str] | None = None, stdout: Any = None) -> RunResult:
    """Run ``command`` (``['mpiexec', '-n', '2', './prog', '64']`` or ``['./prog', '64']``) and
    merge the traces its ranks write into ``output`` (default: :func:`default_trace_path`).
    ``stdout`` is passed to :func:`subprocess.run` (``subprocess.DEVNULL`` to drop the program's
    output; by default it is the caller's).

    Raises :class:`RunError` when the command cannot be started, or when it succeeds without
    writing any trace (not built with the perfeq runtime).
    """
    command = list(command)
    if not command:
        raise UsageError("perfeq run: no command given; usage: perfeq run [-o prog.trace] -- ./prog ARGS")
    output = Path(output) if output is not None else default_trace_path(command)
    if output.is_dir():
        raise UsageError(f"{output}: is a folder; give the trace file to write with -o")
    output.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=".perfeq-run-", dir=output.parent))
    try:
        run_env = dict(mpi_env() if env is None else env)
        run_env["PERFEQ_TRACE"] = str(folder / "rank.%r.trace")
        try:
            completed = subprocess.run(command, env=run_env, check=False, stdout=stdout)
        except OSError as exc:
            raise RunError(f"cannot run {command[0]}: {exc.strerror or exc}") from None
        status = exit_status_of(completed.returncode)
        # A rank that died before its first record leaves an empty file: a missing rank, not a trace.
        rank_files = [f for f in sorted(folder.glob("rank.*.trace")) if f.stat().st_size > 0]
        if not rank_files:
            if status != 0:
                _say(f"the program exited with status {status} and wrote no trace")
                return RunResult(status, None, None)
            raise RunError(f"{command[0]} wrote no trace: build it with `perfeq cc` (instrumented and linked "
                           "with the perfeq runtime), and do not set PERFEQ_ENABLE=0")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IncompleteTraceWarning)
            try:
                merge = merge_rank_traces(rank_files, output, command=command, exit_status=status)
            except TraceError as exc:
                if status == 0:
                    raise
                _say(f"the program exited with status {status}; what it recorded is not a trace ({exc})")
                return RunResult(status, None, None)
        for warning in caught:
            _say(f"warning: {warning.message}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    what = f"{len(merge.ranks)} rank{'s' if len(merge.ranks) != 1 else ''}"
    problems = []
    if merge.missing_ranks:
        problems.append(f"no trace from rank(s) {_ranks(merge.missing_ranks)}")
    if merge.incomplete_ranks:
        problems.append(f"incomplete trace from rank(s) {_ranks(merge.incomplete_ranks)}")
    if merge.stopped_ranks:
        problems.append(f"recording stopped early in rank(s) {_ranks(merge.stopped_ranks)}")
    if status != 0:
        _say(f"the program exited with status {status}; {output} holds what it recorded ({what}"
             + ("; " + "; ".join(problems) if problems else "") + ")")
    elif problems:
        _say(f"wrote {output} ({what}; " + "; ".join(problems) + ")")
    else:
        _say(f"wrote {output} ({what})")
    return RunResult(status, output, merge)


def _ranks(ranks: Sequence[int]) -> str:
    return ", ".join(str(r) for r in ranks)


def _say(message: str) -> None:
    print(f"perfeq: {message}", file=sys.stderr)
