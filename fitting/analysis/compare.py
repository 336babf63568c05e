"""``perfeq compare A B``: two models, two runs CSVs, two predictions or two machine profiles side by
side, per cost and per block (before and after an optimisation; one program on two machines).

Collect (``load_side``: what each file is), transform (``compare``: rows of A, B and their ratio per
cost, per block, per run), print (``format_comparison``).  Models are evaluated at the same
parameter values, P and T, on the slowest rank; with a machine profile they are priced (and give
per-cost and per-block seconds), without one their counts are compared.  Two profiles with a model
price the one model on both machines.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfeq.errors import UsageError
from perfeq.fitting.regression.predict import predict_model
from perfeq.fitting.regression.profile import MachineProfile, load_profile
from perfeq.fitting.regression.runs import Run, read_runs

KINDS = ("model", "runs", "prediction", "profile")


@dataclass(frozen=True)
class Row:
    """One line of a comparison: a name, its value in A and in B (None: absent there)."""

    name: str
    a: float | None
    b: float | None

    @property
    def ratio(self) -> float | None:
        """B / A, None when either is absent or A is 0."""
        return None if self.a in (None, 0) or self.b is None else self.b / self.a


@dataclass
class Comparison:
    """Sections of rows (e.g. ``time``, ``per cost``, ``per block``) in the unit each names."""

    kind: str
    a: str
    b: str
    sections: dict[str, list[Row]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "a": self.a, "b": self.b, "units": self.units, "notes": self.notes,
                "sections": {name: [{**asdict(row), "ratio": row.ratio} for row in rows]
                             for name, rows in self.sections.items()}}


@dataclass(frozen=True)
class Side:
    """One of the two files: what it is and its content."""

    path: Path
    kind: str  # one of KINDS
    content: Any


def load_side(path: Path) -> Side:
    """Read ``path`` as whichever of a model, runs CSV, prediction (``perfeq predict --json``) or
    machine profile it is; one UsageError line when it is none of them."""
    from perfeq.symbolic.model import load_model

    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    head = path.read_bytes()[:4096]
    if b"\0" in head:
        raise UsageError(f"{path}: a binary file; compare takes models, runs CSVs, predictions or machine profiles")
    if not head.lstrip().startswith(b"{"):
        return Side(path, "runs", read_runs(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: not valid JSON ({exc})") from None
    kind = data.get("format") if isinstance(data, dict) else None
    if kind == "perfeq-model":
        return Side(path, "model", load_model(path))
    if kind == "perfeq-machine":
        return Side(path, "profile", load_profile(path))
    if isinstance(data, dict) and "time_s" in data and "contributions" in data:
        return Side(path, "prediction", data)
    raise UsageError(f"{path}: not a model, runs CSV, prediction (perfeq predict --json) or machine profile")


def compare(a: Side, b: Side, values: Mapping[str, float] | None = None, procs: int = 1, threads: int = 1,
            profile: MachineProfile | None = None, model=None, hardware=None, level: float = 0.95) -> Comparison:
    """The comparison of two files of one kind (see the module docstring); UsageError when they differ
    in kind or the comparison needs what was not given (parameter values, a model)."""
    if a.kind != b.kind:
        raise UsageError(f"{a.path} is a {a.kind} and {b.path} a {b.kind}: compare two of one kind")
    result = Comparison(a.kind, str(a.path), str(b.path))
    if a.kind == "runs":
        _runs(result, a.content, b.content)
    elif a.kind == "prediction":
        _predictions(result, a.content, b.content)
    elif a.kind == "profile" and model is None:
        _profiles(result, a.content, b.content)
    else:
        if values is None:
            raise UsageError("comparing models (or machines on a model) needs the point: NAME=VALUE ... P=..")
        if a.kind == "profile":
            pair = [(model, a.content), (model, b.content)]
        else:
            pair = [(a.content, profile), (b.content, profile)]
        _models(result, pair, values, procs, threads, hardware, level)
    return result


def _runs(result: Comparison, a: tuple[Run, ...], b: tuple[Run, ...]) -> None:
    """Median time per point (app, params, P, T, build) in A and B, and per application the geometric
    mean of the ratios over the points both have."""
    def medians(runs):
        points: dict[str, list[float]] = {}
        for run in runs:
            build = f" build {run.build}" if run.build else ""
            points.setdefault(f"{run.app}[{run.params}] P={run.procs} T={run.threads}{build}", []).append(run.time_s)
        return {name: float(np.median(times)) for name, times in points.items()}

    ma, mb = medians(a), medians(b)
    rows = [Row(name, ma.get(name), mb.get(name)) for name in dict.fromkeys([*ma, *mb])]
    result.sections["per run (median time)"] = rows
    result.units["per run (median time)"] = "s"
    apps: dict[str, list[tuple[float, float]]] = {}
    for row in rows:
        if row.ratio is not None:
            apps.setdefault(row.name.split("[", 1)[0], []).append((math.log(row.a), math.log(row.b)))
    title = "per application (geometric mean time over the points in both)"
    result.sections[title] = [Row(app, math.exp(float(np.mean([p[0] for p in logs]))),
                                  math.exp(float(np.mean([p[1] for p in logs])))) for app, logs in apps.items()]
    result.units[title] = "s"
    missing = sum(1 for row in rows if row.ratio is None)
    if missing:
        result.notes.append(f"{missing} point(s) are in only one of the two files")


def _predictions(result: Comparison, a: dict, b: dict) -> None:
    def section(key: str) -> dict[str, float]:
        return {part["name"]: part["seconds"] for part in (a.get(key) or [])}, {
            part["name"]: part["seconds"] for part in (b.get(key) or [])}

    result.sections["time"] = [Row("predicted", a["time_s"], b["time_s"])]
    for bound, index in (("95 % PI low", 0), ("95 % PI high", 1)):
        pa, pb = a.get("prediction_interval"), b.get("prediction_interval")
        result.sections["time"].append(Row(bound, pa[index] if pa else None, pb[index] if pb else None))
    for key, title in (("contributions", "per cost"), ("blocks", "per block")):
        ca, cb = section(key)
        result.sections[title] = _sorted_rows(ca, cb)
    result.units = {name: "s" for name in result.sections}
    for side, data in (("A", a), ("B", b)):
        if data.get("values") is not None:
            result.notes.append(f"{side} at {data.get('values')} P={data.get('P')} T={data.get('T')}")


def _profiles(result: Comparison, a: MachineProfile, b: MachineProfile) -> None:
    names = list(dict.fromkeys([*a.names, *b.names]))
    result.sections["per cost (seconds per count)"] = [
        Row(name, a.values.get(name), b.values.get(name)) for name in names]
    result.units["per cost (seconds per count)"] = "s"
    if set(a.names) != set(b.names):
        result.notes.append("the profiles price different costs: a count priced in one is free in the other")


def _models(result: Comparison, pair, values, procs, threads, hardware, level) -> None:
    predictions = []
    for model, profile in pair:
        if profile is None:
            counts = model.counts(dict(values), procs, threads, hardware)
            predictions.append((None, counts["slowest"], model, counts["slowest_rank"]))
        else:
            prediction, slowest, rank = predict_model(model, profile, values, procs, threads, hardware, level=level)
            predictions.append((prediction, slowest, model, rank))
    (pa, ca, ma, ra), (pb, cb, mb, rb) = predictions
    result.notes.append(f"at {', '.join(f'{k}={v:g}' for k, v in values.items())} P={procs} T={threads}; "
                        f"slowest rank {ra} in A, {rb} in B")
    result.sections["counts (slowest rank)"] = [
        Row(key, ca.get(key), cb.get(key)) for key in dict.fromkeys([*ca, *cb]) if ca.get(key) or cb.get(key)]
    result.units["counts (slowest rank)"] = "count"
    if pa is None:
        blocks_a, blocks_b = ({label: row.get("ops", 0.0) for label, row in
                               m.block_counts(dict(values), procs, threads, r).items()} for m, r in ((ma, ra), (mb, rb)))
        result.sections["per block (ops, slowest rank)"] = _sorted_rows(blocks_a, blocks_b)
        result.units["per block (ops, slowest rank)"] = "count"
        return
    result.sections["time"] = [Row("predicted", pa.time_s, pb.time_s)]
    if pa.prediction_interval and pb.prediction_interval:
        result.sections["time"] += [Row(f"{100 * level:g} % PI low", pa.prediction_interval[0],
                                         pb.prediction_interval[0]),
                                     Row(f"{100 * level:g} % PI high", pa.prediction_interval[1],
                                         pb.prediction_interval[1])]
    result.sections["per cost"] = _sorted_rows({c.name: c.seconds for c in pa.contributions},
                                               {c.name: c.seconds for c in pb.contributions})
    result.sections["per block"] = _sorted_rows({c.name: c.seconds for c in pa.blocks or ()},
                                                {c.name: c.seconds for c in pb.blocks or ()})
    for name in ("time", "per cost", "per block"):
        result.units[name] = "s"
    result.notes.extend(dict.fromkeys([*pa.warnings, *pb.warnings]))


def _sorted_rows(a: Mapping[str, float], b: Mapping[str, float]) -> list[Row]:
    """Rows of every name in A or B, the largest (in either) first; ``const`` stays a cost like the others."""
    names = list(dict.fromkeys([*a, *b]))
    names.sort(key=lambda name: -max(abs(a.get(name, 0.0)), abs(b.get(name, 0.0))))
    return [Row(name, a.get(name), b.get(name)) for name in names]


def format_comparison(result: Comparison, top: int = 15) -> str:
    """The comparison as text: per section, name, A, B, B/A; ``top`` rows per section at most."""
    lines = [f"A: {result.a}", f"B: {result.b}"]
    width = max([len(row.name) for rows in result.sections.values() for row in rows[:top]] + [20])
    width = min(width, 70)
    for title, rows in result.sections.items():
        unit = result.units.get(title, "")
        lines += ["", f"{title}" + (f" [{unit}]" if unit and unit != "x" else ""),
                  f"{'':<{width}} {'A':>12} {'B':>12} {'B/A':>8}"]
        for row in rows[:top]:
            name = row.name if len(row.name) <= width else "..." + row.name[-(width - 3):]
            ratio = "-" if row.ratio is None else f"{row.ratio:.3f}"
            lines.append(f"{name:<{width}} {_value(row.a):>12} {_value(row.b):>12} {ratio:>8}")
        if len(rows) > top:
            lines.append(f"... {len(rows) - top} more (--json has them all)")
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines)


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"

