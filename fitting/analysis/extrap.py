"""A runs CSV as Extra-P's text input (``perfeq export --extrap``), so its empirical scaling models
can be set beside perfeq's: one experiment per application (and build).

Extra-P's text format (extrap/fileio/file_reader/text_file_reader.py): ``PARAMETER`` lines, one
``POINTS`` line with every measurement point as ``( v1 v2 )``, then per ``REGION`` and ``METRIC`` one
``DATA`` line per point, in the order of ``POINTS``, holding the repetitions.  The parameters are
those that vary among the application's runs: its problem parameters (``n``, ``steps``), ``p`` (MPI
processes) and ``t`` (threads), at most four.  The metrics are ``time`` (seconds) and every count
column that is not zero in all the application's runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfeq.files import write_atomic
from perfeq.fitting.regression.runs import Run, parse_params

MAX_PARAMETERS = 4  # what Extra-P's text format takes


@dataclass(frozen=True)
class ExtrapFile:
    """One experiment: its file name, its text, and what was left out."""

    name: str
    text: str
    parameters: tuple[str, ...]
    points: int


def extrap_experiments(runs: Sequence[Run], source: str = "") -> tuple[list[ExtrapFile], list[str]]:
    """The experiments of ``runs`` (one per application and build) and a note per one left out."""
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.app, run.build), []).append(run)
    files, notes = [], []
    for (app, build), mine in groups.items():
        label = f"{app} build {build}" if build else app
        coords = [_coordinates(run) for run in mine]
        varying = [name for name in coords[0] if len({c.get(name) for c in coords}) > 1]
        if not varying:
            notes.append(f"{label}: every run has the same parameters, P and T: nothing to model")
            continue
        if len(varying) > MAX_PARAMETERS:
            notes.append(f"{label}: {len(varying)} parameters vary ({', '.join(varying)}); Extra-P's text format "
                         f"takes at most {MAX_PARAMETERS}")
            continue
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{app}-{build}" if build else app)
        files.append(_experiment(f"{stem}.extrap.txt", label, mine, coords, varying, source))
    return files, notes


def write_extrap(files: Sequence[ExtrapFile], folder: Path) -> list[Path]:
    """Write each experiment into ``folder`` (each file whole, never half-written)."""
    return [write_atomic(Path(folder) / f.name, f.text) for f in files]


def _coordinates(run: Run) -> dict[str, float]:
    values = {name: float(value) for name, value in parse_params(run.params).items()}
    return {**values, "p": float(run.procs), "t": float(run.threads)}


def _experiment(name: str, label: str, runs: list[Run], coords: list[dict[str, float]], varying: list[str],
                source: str) -> ExtrapFile:
    points = sorted({tuple(c[p] for p in varying) for c in coords})
    index = {point: k for k, point in enumerate(points)}
    metrics = ["time", *(key for key in runs[0].counts if any(run.counts[key] for run in runs))]
    data: dict[str, list[list[float]]] = {metric: [[] for _ in points] for metric in metrics}
    for run, c in zip(runs, coords, strict=True):
        k = index[tuple(c[p] for p in varying)]
        data["time"][k].append(run.time_s)
        for metric in metrics[1:]:
            data[metric][k].append(run.counts[metric])
    lines = [f"# {label}, from perfeq export --extrap {source}".rstrip(),
             "# metrics: time in seconds, counts per run (the slowest rank's, as perfeq fit uses them)"]
    lines += [f"PARAMETER {p}" for p in varying]
    lines.append("POINTS " + " ".join("( " + " ".join(_number(v) for v in point) + " )" for point in points))
    lines.append("REGION " + re.sub(r"\s+", "_", label))
    for metric in metrics:
        lines.append(f"METRIC {metric}")
        lines += ["DATA " + " ".join(_number(v) for v in values) for values in data[metric]]
    return ExtrapFile(name, "\n".join(lines) + "\n", tuple(varying), len(points))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))
