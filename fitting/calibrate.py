"""``perfeq calibrate``: a measurement campaign over applications x sizes x process counts x repetitions.

Each application is instrumented and run once at its small size to build its model; then the
plain (uninstrumented) program is timed at every calibration point, and each run's predicted
counts (the slowest rank's chi) are stored beside its time in a runs CSV, the input of
``perfeq fit``.  A rerun skips the points the runs file already holds, so a campaign can be
resumed.  With ``builds`` (``--build O0=-O0 --build O3=-O3``) every point is timed once per build
configuration, its name stored in the runs' ``build`` column: the "systems" of ``perfeq scaling``.
On a cluster, ``--slurm`` writes a batch script (from a jinja2 template) instead.
"""

from __future__ import annotations

import random
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import jinja2

from perfeq.errors import UsageError
from perfeq.pipeline import Example, build_instrumented, build_plain, launch_command, run_small, time_run

from .costs import COSTS
from .runs import Run, append_runs, parse_params, read_runs

DEFAULT_LAUNCHER = "mpiexec -n {P} {cmd}"


@dataclass(frozen=True)
class Point:
    example: Example
    values: dict[str, int]
    procs: int
    rep: int
    build: str = ""  # build configuration name, "" for the default build

    @property
    def params(self) -> str:
        return ";".join(f"{k}={v}" for k, v in self.values.items())

    def key(self) -> tuple:
        return (self.example.name, tuple(sorted(self.values.items())), self.procs, self.rep, self.build)


ORDERS = ("shuffled", "grouped")


def plan(examples: list[Example], procs: list[int], reps: int, sizes: list[dict[str, int]] | None = None,
         builds: tuple[str, ...] = ("",), order: str = "grouped", seed: int = 0) -> list[Point]:
    """Every point.  ``grouped``: application by application, the builds alternating innermost.
    ``shuffled``: the same points in a random order fixed by ``seed``, so that slow drifts of a
    shared machine (minutes of a noisy neighbour) spread over every application's runs instead of
    shifting one application's times as a block (which a leave-one-application-out fit then reads
    as that application's own cost)."""
    points = []
    for example in examples:
        for values in sizes or example.calibration():
            for p in procs:
                for rep in range(reps):
                    for build in builds:
                        points.append(Point(example, dict(values), p, rep, build))
    if order == "shuffled":
        random.Random(seed).shuffle(points)
    elif order != "grouped":
        raise ValueError(f"unknown order {order!r}")
    return points


def _done(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    keys = set()
    for run in read_runs(path):
        values = {k: int(float(v)) for k, v in parse_params(run.params).items()}
        keys.add((run.app, tuple(sorted(values.items())), run.procs, run.rep, run.build))
    return keys


def run_campaign(examples: list[Example], output: Path, workdir: Path, procs: list[int], reps: int,
                 launcher: str | None = None, small_procs: int = 2,
                 progress: Callable[[str], None] | None = None,
                 builds: dict[str, tuple[str, ...]] | None = None,
                 order: str = "shuffled", seed: int = 0) -> list[Run]:
    """Time every calibration point not yet in ``output``; append each run as it finishes.

    ``builds`` maps build names to the flags that replace ``-O2`` (e.g. ``{"O0": ("-O0",)}``);
    every point is then timed once per build.  The model (counts) comes from one instrumented
    default build: the counts are those of the source and do not depend on the flags.  Every
    model and binary is made before the first run is timed, so that the timings are one
    uninterrupted stretch in the order ``order`` (see :func:`plan`).
    """
    from perfeq.symbolic.linearize import Machine
    from perfeq.symbolic.model import build_model

    say = progress or (lambda text: print(text, file=sys.stderr))
    done = _done(output)
    builds = builds or {"": None}
    points = [p for p in plan(examples, procs, reps, builds=tuple(builds), order=order, seed=seed)
              if p.key() not in done]
    if not points:
        say(f"calibrate: every point is already in {output}")
        return []
    machine = Machine.detect()
    models, binaries = {}, {}
    for point in points:
        example = point.example
        if example.name not in models:
            say(f"calibrate: {example.name}: instrument, run at {example.small} on {small_procs} processes, model")
            inst = build_instrumented(example, workdir)
            trace = run_small(example, inst, example.small, small_procs, workdir / f"{example.name}.trace")
            models[example.name] = build_model([trace])
            models[example.name].save(workdir / f"{example.name}.model.json")
        if (example.name, point.build) not in binaries:
            folder = workdir / "plain" / point.build if point.build else workdir / "plain"
            binaries[example.name, point.build] = build_plain(example, folder, builds[point.build])
    written: list[Run] = []
    host = machine.name
    for index, point in enumerate(points, start=1):
        example = point.example
        binary = binaries[example.name, point.build]
        seconds = time_run(binary, example.argv(point.values), point.procs, launcher=launcher)
        counts = models[example.name].counts({k: float(v) for k, v in point.values.items()}, point.procs, 1, machine)
        slowest = {cost: float(counts["slowest"].get(cost, 0.0)) for cost in COSTS}
        run = Run(example.name, point.params, point.procs, seconds, slowest, threads=1, rep=point.rep, host=host,
                  timestamp=datetime.now(timezone.utc).isoformat(timespec="seconds"), build=point.build)
        append_runs(output, [run])
        written.append(run)
        build = f" build {point.build}" if point.build else ""
        say(f"[{index:3d}/{len(points)}] {example.name} {point.params} P={point.procs}{build} rep {point.rep}: "
            f"{seconds:.3f} s")
    return written


SLURM_TEMPLATE = """#!/bin/bash
#SBATCH --job-name=perfeq-calibrate
#SBATCH --ntasks={{ max_procs }}
#SBATCH --time={{ time_limit }}
# Written by perfeq calibrate --slurm: times the plain programs at each calibration point.
# Each line appends "app,params,procs,rep,seconds" to {{ times }}; then run
#   perfeq calibrate --import-times {{ times }} -o runs.csv
set -euo pipefail
export OMP_NUM_THREADS=1  # the campaign's counts are for one thread per process
{% for point in points %}
start=$(date +%s.%N); {{ point.command }} > /dev/null; end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "{{ point.app }},{{ point.params }},{{ point.procs }},{{ point.rep }},%.6f\\n", e - s }' >> "{{ times }}"
{% endfor %}
"""


def write_slurm_script(points: list[Point], binaries: dict[str, Path], path: Path, times: Path,
                       launcher: str = "srun -n {P} {cmd}", time_limit: str = "01:00:00") -> None:
    from perfeq.files import write_atomic

    if not points:
        raise UsageError("no calibration points to write")
    rows = [{"app": p.example.name, "params": p.params, "procs": p.procs, "rep": p.rep,
             "command": shlex.join(launch_command(binaries[p.example.name], p.example.argv(p.values), p.procs, launcher))}
            for p in points]
    text = jinja2.Template(SLURM_TEMPLATE, undefined=jinja2.StrictUndefined).render(
        points=rows, max_procs=max(p.procs for p in points), times=times, time_limit=time_limit)
    write_atomic(path, text)
    path.chmod(0o755)

