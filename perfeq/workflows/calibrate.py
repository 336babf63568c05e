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
from perfeq.examples.catalog import Example
from perfeq.fitting.costs import COSTS
from perfeq.fitting.regression.runs import Run, append_runs, check_appendable, parse_params, read_runs
from perfeq.progress import Progress
from perfeq.workflows.pipeline import build_instrumented, build_plain, launch_command, run_small, time_run

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


def plan(examples: list[Example], procs: list[int], reps: int,
         extra: dict[tuple[str, int], list[dict[str, int]]] | None = None,
         builds: tuple[str, ...] = ("",), order: str = "shuffled", seed: int = 0) -> list[Point]:
    """Every point, each one's builds next to each other (so slow drifts of the machine hit the
    builds of a point alike: ``perfeq scaling`` compares them).  ``grouped``: application by
    application.  ``shuffled``: the points in a random order fixed by ``seed`` (the builds of a
    point in a rotating order), so that a drift of a shared machine over tens of seconds spreads
    over every application's runs instead of shifting one application's times as a block, which a
    leave-one-application-out fit reads as that application's own cost.  ``extra`` adds sizes for an
    application at a process count (``calibrate --levels``: one per cache level) to its catalog sizes."""
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}")
    groups = []
    for example in examples:
        catalog = example.calibration()
        for values in catalog:
            for p in procs:
                for rep in range(reps):
                    groups.append([Point(example, dict(values), p, rep, build) for build in builds])
        for p in procs:
            for values in (extra or {}).get((example.name, p), []):
                if values in catalog:
                    continue
                for rep in range(reps):
                    groups.append([Point(example, dict(values), p, rep, build) for build in builds])
    if order == "shuffled":
        random.Random(seed).shuffle(groups)
        groups = [group[i % len(group):] + group[:i % len(group)] for i, group in enumerate(groups)]
    return [point for group in groups for point in group]


def example_model(example: Example, workdir: Path, small_procs: int = 2):
    """The model a campaign prices its runs with: one instrumented run at the small size."""
    from perfeq.symbolic.model import build_model

    inst = build_instrumented(example, workdir)
    return build_model([run_small(example, inst, example.small, small_procs, workdir / f"{example.name}.trace")])


def example_models(examples: list[Example], workdir: Path, say: Callable[[str], None], small_procs: int = 2) -> dict:
    """Each example's model (:func:`example_model`), by name, each said as it is made."""
    models = {}
    for example in examples:
        say(f"calibrate: {example.name}: instrument, run at {example.small} on {small_procs} processes, model")
        models[example.name] = example_model(example, workdir, small_procs)
    return models


def run_counts(model, params: str | dict[str, float], procs: int, threads: int, machine) -> dict[str, float]:
    """The counts stored beside a run's time: the slowest rank's, one per cost column."""
    values = {k: float(v) for k, v in (parse_params(params) if isinstance(params, str) else params).items()}
    slowest = model.counts(values, procs, threads, machine)["slowest"]
    return {cost: float(slowest.get(cost, 0.0)) for cost in COSTS}


def done_points(path: Path) -> set[tuple]:
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
                 order: str = "shuffled", seed: int = 0, points: list[Point] | None = None,
                 models: dict | None = None, extra: dict | None = None) -> list[Run]:
    """Time every calibration point not yet in ``output``; append each run as it finishes.

    ``builds`` maps build names to the flags that replace ``-O2`` (e.g. ``{"O0": ("-O0",)}``);
    every point is then timed once per build.  ``points`` (``calibrate --for``'s choice) replace the
    plan of every example's catalog sizes, and ``models`` (by example name) those the campaign would
    make; ``extra`` sizes are added to the plan's (:func:`plan`).  The model (counts) comes from one instrumented
    default build: the counts are those of the source and do not depend on the flags.  Every
    model and binary is made before the first run is timed, so that the timings are one
    uninterrupted stretch in the order ``order`` (see :func:`plan`).
    """
    from perfeq.symbolic.machine import Machine

    say = progress or (lambda text: print(text, file=sys.stderr))
    done = done_points(output)
    builds = builds or {"": None}
    # before anything is built or timed: the file must take rows with every cost column (run_counts)
    check_appendable(output, COSTS, ("build", "digest") if any(builds) else ("digest",))
    if points is None:
        points = plan(examples, procs, reps, extra, builds=tuple(builds), order=order, seed=seed)
    points = [p for p in points if p.key() not in done]
    if not points:
        say(f"calibrate: every point is already in {output}")
        return []
    machine = Machine.detect()
    models, binaries = dict(models or {}), {}
    for point in points:
        example = point.example
        if example.name not in models:
            models.update(example_models([example], workdir, say, small_procs))
        if not (workdir / f"{example.name}.model.json").exists():
            models[example.name].save(workdir / f"{example.name}.model.json")
        if (example.name, point.build) not in binaries:
            folder = workdir / "plain" / point.build if point.build else workdir / "plain"
            binaries[example.name, point.build] = build_plain(example, folder, builds[point.build])
    written: list[Run] = []
    host = machine.name
    with Progress(len(points), "calibrate", say) as progress:
        for point in points:
            example = point.example
            binary = binaries[example.name, point.build]
            seconds = time_run(binary, example.argv(point.values), point.procs, launcher=launcher)
            counts = run_counts(models[example.name], point.values, point.procs, 1, machine)
            run = Run(example.name, point.params, point.procs, seconds, counts, threads=1, rep=point.rep, host=host,
                      timestamp=datetime.now(timezone.utc).isoformat(timespec="seconds"), build=point.build,
                      digest=models[example.name].digest)
            append_runs(output, [run])
            written.append(run)
            build = f" build {point.build}" if point.build else ""
            progress.step(f"{example.name} {point.params} P={point.procs}{build} rep {point.rep}: {seconds:.3f} s")
    return written


SLURM_TEMPLATE = """#!/bin/bash
#SBATCH --job-name=perfeq-calibrate
#SBATCH --ntasks={{ max_procs }}
#SBATCH --time={{ time_limit }}
# Written by perfeq calibrate --slurm: times the plain programs at each calibration point.
# Each line appends "app,params,procs,rep,seconds" to {{ times }}; then run
#   {{ import_command }}
set -euo pipefail
export OMP_NUM_THREADS=1  # the campaign's counts are for one thread per process
{% if checks %}
# The launcher must start one MPI job of P processes, not P jobs of one process each (what srun
# does without the MPI plugin the MPI library needs; srun --mpi=list lists the plugins).
{% endif %}
{% for check in checks %}
size=$({{ check.command }})
if [ "$size" != {{ check.procs }} ]; then
    printf '%s (rank 0 of each job printed its size: %s)\\n' {{ check.message }} "$(echo $size)" >&2
    exit 1
fi
{% endfor %}
{% for point in points %}
start=$(date +%s.%N); {{ point.command }} > /dev/null; end=$(date +%s.%N)
printf '%s,%s\\n' {{ point.row }} "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f", e - s }')" >> {{ times_quoted }}
{% endfor %}
"""


def write_slurm_script(points: list[Point], binaries: dict[str, Path], path: Path, times: Path,
                       launcher: str = "srun -n {P} {cmd}", time_limit: str = "01:00:00",
                       probe: Path | None = None, import_command: str | None = None) -> None:
    """Write the batch script that times ``points`` and appends them to ``times``.  With ``probe``
    (:func:`perfeq.workflows.pipeline.build_size_probe`) the script first checks, for every process
    count above one, that the launcher starts one MPI job of that many processes, and stops with a
    message saying what to change if it does not."""
    from perfeq.files import write_atomic

    if not points:
        raise UsageError("no calibration points to write")
    rows = [{"row": shlex.quote(f"{p.example.name},{p.params},{p.procs},{p.rep}"),
             "command": shlex.join(launch_command(binaries[p.example.name], p.example.argv(p.values), p.procs, launcher))}
            for p in points]
    checks = []
    for procs in sorted({p.procs for p in points if p.procs > 1}) if probe else []:
        command = shlex.join(launch_command(Path(probe).resolve(), [], procs, launcher))
        checks.append({"command": command, "procs": procs, "message": shlex.quote(
            f"perfeq: {command} did not start one MPI job of {procs} processes; give the launcher the MPI "
            f"plugin your MPI library needs, e.g. perfeq calibrate --slurm ... --launcher "
            f"'srun --mpi=pmi2 -n {{P}} {{cmd}}' (srun --mpi=list lists them)")})
    times = Path(times).resolve()  # the job may start in another folder
    text = jinja2.Template(SLURM_TEMPLATE, undefined=jinja2.StrictUndefined, trim_blocks=True).render(
        points=rows, checks=checks, max_procs=max(p.procs for p in points), times=times,
        times_quoted=shlex.quote(str(times)), time_limit=time_limit,
        import_command=import_command or f"perfeq calibrate --import-times {shlex.quote(str(times))} -o runs.csv")
    write_atomic(path, text)
    path.chmod(0o755)


def parse_procs(text: str) -> list[int]:
    """``"1,2,4"`` -> ``[1, 2, 4]``: the process counts of a campaign (``--procs``)."""
    try:
        procs = [int(p) for p in text.split(",") if p]
    except ValueError:
        raise UsageError(f"--procs {text}: expected numbers like 1,2,4") from None
    if not procs or min(procs) < 1:
        raise UsageError(f"--procs {text}: process counts must be at least 1")
    return procs
