"""``perfeq probe``: measure this machine with small C probes (MAPS- and PMB-like, Snavely et al. 2002)
and write the curves (``perfeq-probes``, docs/probes.md) with their plots.

Chains the stages: the caches from the machine description (symbolic), the plan, the build and the
reading of the probes' lines (runtime/probes), each launch with mpiexec or srun (pipeline), the
plots (fitting/analysis).  On a cluster, ``--slurm`` writes a batch script that runs this same
command inside the job, with srun as the launcher.
"""

from __future__ import annotations

import math
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import jinja2

from perfeq import __version__
from perfeq.errors import Interrupted, RunError, UsageError
from perfeq.files import write_atomic
from perfeq.progress import Progress
from perfeq.runtime.probes.build import CFLAGS, build_probes, compile_command, compiler_version, probe_sources
from perfeq.runtime.probes.curves import Curve, Point, curves_of, merge_over_procs, parse_point
from perfeq.runtime.probes.document import ProbeResults, save_probes
from perfeq.runtime.probes.plan import FULL, QUICK, Step, default_procs, node_cpus, plan_steps
from perfeq.toolchain import find_mpi
from perfeq.workflows.pipeline import environment, launch_command


@dataclass(frozen=True)
class Launchers:
    """Launch templates (``{P}`` processes, ``{cmd}`` the program and its arguments) by placement:
    ``spread`` for the collectives, ``node`` for what must stay on one node (memory, compute, the
    ping-pong within a node), ``across`` for the ping-pong across two nodes (None: not measured).
    None for ``spread`` or ``node`` is ``mpiexec -n {P} {cmd}`` with the MPI perfeq finds."""

    spread: str | None = None
    node: str | None = None
    across: str | None = None

    def template(self, step: Step) -> str | None:
        if step.placement == "across":
            return self.across
        return (self.node or self.spread) if step.placement == "node" else self.spread


def run_probes(output: Path, *, quick: bool = False, procs: list[int] | None = None, cores: int | None = None,
               launchers: Launchers = Launchers(), workdir: Path | None = None, plots: Path | None = None,
               say: Callable[[str], None] | None = None) -> tuple[ProbeResults, list[Path]]:
    """Build and run every probe, write ``output`` and the plots into ``plots``; returns the results
    and the plot files.  ``cores``: how many processes run the memory probe at once at most (default
    this node's physical cores); ``procs``: the collectives' process counts (default 2, 4, ... cores)."""
    from perfeq.fitting.analysis.probe_plots import plot_probes
    from perfeq.symbolic.machine import Machine, cache_levels, cache_ways

    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    settings = QUICK if quick else FULL
    machine, cpus = Machine.detect(), node_cpus()
    cores = cores or cpus["cores"]
    procs = default_procs(cores) if procs is None else procs
    steps = plan_steps(settings, llc_bytes=machine.l2_bytes, line_bytes=machine.line_bytes,
                       memory_bytes=machine.memory_bytes, cores=cores, procs=procs,
                       across=launchers.across is not None)
    notes = _notes(steps, cpus["cpus"], launchers)
    for note in notes:
        say(f"probe: {note}")
    mpi = find_mpi()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="perfeq-probe-") as temporary:
        folder = workdir or Path(temporary)
        binaries = build_probes(folder, mpi.mpicc)
        curves: list[Curve] = []
        commands: list[dict] = []
        launches = sorted({1, *procs})
        total = sum(step.points for step in steps) + len(launches) * settings.reps
        with Progress(total, "probe", say, unit="point") as progress:
            for step in steps:
                command = launch_command(binaries[step.program], list(step.args), step.procs, launchers.template(step))
                begin = time.perf_counter()
                points = _run_step(command, step, progress)
                commands.append({"what": step.what, "program": step.program, "procs": step.procs,
                                 "placement": step.placement, "command": _portable(command, folder),
                                 "seconds": round(time.perf_counter() - begin, 3)})
                curves += curves_of(points, step.procs, " ".join(command))
            for count in launches:
                command = launch_command(binaries["network"], [f"procs={count}"], count, launchers.spread)
                curves.append(_time_launches(command, count, settings.reps, progress))
                commands.append({"what": f"launch of {count}", "program": "network", "procs": count,
                                 "placement": "any", "command": _portable(command, folder),
                                 "seconds": round(sum(curves[-1].samples[0]), 3)})
    toolchain = {"mpicc": mpi.mpicc, "mpiexec": mpi.mpiexec, "cflags": list(CFLAGS),
                 "compiler": compiler_version(mpi.mpicc),
                 "compile": [_portable(compile_command(mpi.mpicc, source, Path(name), CFLAGS), source.parent)
                             for name, source in probe_sources().items()],
                 "launchers": {"spread": launchers.spread, "node": launchers.node, "across": launchers.across}}
    results = ProbeResults(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        machine={"name": machine.name, "model": cpus["model"], "cores": cores, "cpus": cpus["cpus"],
                 "l1_bytes": machine.l1_bytes, "l2_bytes": machine.l2_bytes, "line_bytes": machine.line_bytes,
                 "page_bytes": machine.page_bytes, "memory_bytes": machine.memory_bytes,
                 "caches": {str(level): size for level, size in cache_levels().items()},
                 "ways": {str(level): ways for level, ways in cache_ways().items()}},
        toolchain=toolchain, settings={**settings.to_json(), "procs": procs, "perfeq": __version__,
                                       "seconds": round(time.perf_counter() - started, 1)},
        commands=tuple(commands), curves=tuple(merge_over_procs(curves)), notes=tuple(notes))
    save_probes(output, results)
    written = plot_probes(results, plots) if plots is not None else []
    return results, written


def _notes(steps: list[Step], cpus: int, launchers: Launchers) -> list[str]:
    """What the reader of the file must know: launches here with more processes than this node's
    ``cpus`` (hardware threads), a network probe left out."""
    notes = []
    here = [s for s in steps if s.procs > cpus and launchers.template(s) is None]
    if here:
        notes.append(f"{', '.join(s.what for s in here)}: more processes than the {cpus} processors of this node; "
                     "their times include waiting for a core, not only the network")
    if not any(s.program == "network" for s in steps):
        notes.append("no network probe: one core, and no --procs (give --procs 2 to run it oversubscribed)")
    return notes


def _portable(command: list[str], folder: Path) -> list[str]:
    """The command with the work folder's binaries named by file name alone (the folder is temporary)."""
    prefix = str(folder) + os.sep
    return [word[len(prefix):] if word.startswith(prefix) else word for word in command]


def _time_launches(command: list[str], procs: int, reps: int, progress: Progress) -> Curve:
    """The ``launch`` curve's point on ``procs`` processes: wall seconds of ``reps`` launches of a
    program that only initialises and finalises MPI (what every MPI run pays before and after its
    work: the launcher, MPI_Init, MPI_Finalize)."""
    seconds = []
    for _ in range(reps):
        begin = time.perf_counter()
        try:
            done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  env=environment(1), check=False)
        except OSError as exc:
            raise RunError(f"cannot start {command[0]}: {exc.strerror or exc}") from None
        except KeyboardInterrupt:
            raise Interrupted("interrupted: nothing was written; run perfeq probe again") from None
        seconds.append(time.perf_counter() - begin)
        if done.returncode != 0:
            raise _failed(" ".join(command), done.returncode, done.stderr)
        progress.step(f"launch of {procs}")
    return Curve("launch", procs, (float(procs),), (tuple(seconds),), (1,))


def _failed(where: str, status: int, stderr: str) -> RunError:
    """A launch that exited with ``status``: its last ``perfeq probe:`` line (the probe's own
    message, e.g. an srun that started P jobs of one), else its last line of stderr."""
    said = [line.strip() for line in stderr.splitlines() if line.strip()]
    ours = [line for line in said if line.startswith("perfeq probe:")]
    return RunError(f"{where} failed (exit {status}): {(ours or said or ['no message'])[-1][:300]}")


def _run_step(command: list[str], step: Step, progress: Progress) -> list[Point]:
    """Run one launch, reading its points as they come (one progress step each)."""
    where = " ".join(command)
    points: list[Point] = []
    with tempfile.TemporaryFile(mode="w+") as errors:
        try:
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True, env=environment(1))
        except OSError as exc:
            raise RunError(f"cannot start {command[0]}: {exc.strerror or exc}") from None
        try:
            for line in proc.stdout:
                point = parse_point(line, where)
                if point is not None:
                    points.append(point)
                    x = f"{point.x:g}" if point.curve in ("barrier",) or step.program == "compute" else _size(point.x)
                    progress.step(f"{step.what}: {point.curve} {x}")
            status = proc.wait()
        except KeyboardInterrupt:
            proc.kill()
            proc.wait()
            raise Interrupted("interrupted: nothing was written; run perfeq probe again") from None
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        errors.seek(0)
        if status != 0:
            raise _failed(where, status, errors.read())
    if len(points) != step.points:
        raise RunError(f"{where}: printed {len(points)} points, expected {step.points}; did the launcher start "
                       f"one MPI job of {step.procs} processes?")
    return points


SLURM_TEMPLATE = """#!/bin/bash
#SBATCH --job-name=perfeq-probe
#SBATCH --nodes={{ nodes }}
#SBATCH --exclusive
#SBATCH --time={{ time_limit }}
# Written by perfeq probe --slurm.  perfeq runs inside the job, on its first node: it reads that
# node's caches and cores, compiles the probes with the mpicc on PATH, launches each one with srun
# (memory, compute and the ping-pong within a node on one node; {% if nodes > 1 %}the ping-pong
# across nodes on two; {% endif %}the collectives as srun spreads them) and writes
#   {{ output }}
# and its plots.  srun must start one MPI job of P processes: if it needs the MPI plugin of your
# MPI library, write the script again with --srun 'srun --mpi=pmi2' (srun --mpi=list lists them).
set -euo pipefail
export OMP_NUM_THREADS=1
{{ command }}
"""


def write_slurm_script(path: Path, output: Path, *, quick: bool, procs: list[int] | None, cores: int | None,
                       nodes: int, srun: str, time_limit: str, plots: Path | None) -> str:
    """Write the batch script that runs ``perfeq probe`` in the job with srun; returns its command."""
    words = shlex.split(srun)
    if not words:
        raise UsageError("--srun: empty launcher")
    launcher = shlex.join(words)
    command = [sys.executable, "-m", "perfeq", "probe", "--launcher", f"{launcher} -n {{P}} {{cmd}}",
               "--node-launcher", f"{launcher} -N 1 -n {{P}} {{cmd}}"]
    if nodes > 1:
        command += ["--across-launcher", f"{launcher} -N 2 -n 2 --ntasks-per-node=1 {{cmd}}"]
    if quick:
        command.append("--quick")
    if procs is not None:
        command += ["--procs", ",".join(map(str, procs))]
    if cores:
        command += ["--cores", str(cores)]
    if plots is not None:
        command += ["--plots", str(plots.resolve())]
    command += ["-o", str(output.resolve())]
    text = jinja2.Template(SLURM_TEMPLATE, undefined=jinja2.StrictUndefined, trim_blocks=True).render(
        nodes=nodes, time_limit=time_limit, output=output.resolve(), command=shlex.join(command))
    write_atomic(path, text)
    path.chmod(0o755)
    return shlex.join(command)


def describe(results: ProbeResults) -> list[str]:
    """A few lines of headline numbers for the terminal."""
    from perfeq.runtime.probes.document import summary

    s = summary(results)
    size = _size
    lines = []
    if "read_first" in s:
        line = (f"memory read {s['read_first'] / 1e9:.1f} GB/s at {size(s['read_first_bytes'])}, "
                f"{s['read_last'] / 1e9:.1f} GB/s at {size(s['read_last_bytes'])}")
        if "read_all_cores_last" in s:
            line += f" ({s['read_all_cores_last'] / 1e9:.1f} GB/s per process with {s['all_cores']} at once)"
        lines.append(line)
    if "chase_first" in s:
        lines.append(f"random access {s['chase_first'] * 1e9:.1f} ns at {size(s['chase_first_bytes'])}, "
                     f"{s['chase_last'] * 1e9:.0f} ns at {size(s['chase_last_bytes'])}")
    if "flops_chained" in s:
        lines.append(f"additions {s['flops_independent'] * 1e9:.2f} ns independent, {s['flops_chained'] * 1e9:.2f} ns "
                     f"chained; integer op {s['int_ops'] * 1e9:.2f} ns; "
                     + (f"division {s['divide'] * 1e9:.2f} ns; " if "divide" in s else "")
                     + (f"exp/log call {s['math'] * 1e9:.1f} ns; " if "math" in s else "")
                     + "random branch +"
                     f"{s['branch_difference'] * 1e9:.2f} ns over a predictable one")
    if "noise_rate" in s:
        lines.append(f"noise {s['noise_rate']:.0f} interruptions per second, {s['noise_length'] * 1e6:.1f} us each "
                     f"on average: a burst of T seconds varies by {math.sqrt(s['noise_variance']) * 1e3:.2f} ms x sqrt(T / s)")
    if "pingpong_latency" in s:
        lines.append(f"ping-pong within a node {s['pingpong_latency'] * 1e6:.2f} us at 0 B, "
                     f"{s.get('pingpong_bandwidth', 0) / 1e9:.2f} GB/s at most")
    if "launch_first" in s:
        lines.append(f"starting an MPI job of {s['launch_first_procs']:g} process"
                     f"{'es' if s['launch_first_procs'] > 1 else ''}: {s['launch_first'] * 1e3:.0f} ms")
    return lines


def _size(value: float) -> str:
    """``4 KiB``, ``5.04 KiB``, ``128 MiB``, ``0 B``: bytes for the terminal."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:g} B"
