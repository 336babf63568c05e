"""The probes' measurements as curves: one declarative table of every curve the C probes print, the
reader of their JSON lines, and the statistics over repetitions (median, quartiles, extremes).

Part of perfeq stage 2 (runtime/probes/).  A probe program prints one line per point,
``{"curve": NAME, "x": X, "iters": N, "samples": [[per rank] per repetition]}``; the values of the
ranks of one repetition become one sample (their mean for the memory probe, whose k processes each
report their own rate; the one value otherwise), and the samples of a point its statistics.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from perfeq.errors import RunError


@dataclass(frozen=True)
class CurveSpec:
    """What a curve is: its probe, what ``x`` counts, the unit of its values, and how the ranks'
    values of one repetition make one sample (``mean``: the per-process rate of k processes at once;
    ``one``: the program printed a single value)."""

    probe: str
    x_name: str
    unit: str
    ranks: str
    what: str


# Every curve perfeq-probes holds, in the order they are written; docs/probes.md describes each.
CURVES: dict[str, CurveSpec] = {
    "read": CurveSpec("memory", "working_set_bytes", "B/s", "mean",
                      "s += a[i], unit stride, 8 accumulators: bytes loaded per second per process"),
    "update": CurveSpec("memory", "working_set_bytes", "B/s", "mean",
                        "a[i] = a[i] * s, unit stride: bytes loaded and stored (16 per element) per second per process"),
    "stride": CurveSpec("memory", "working_set_bytes", "B/s", "mean",
                        "s += a[i], one double every 512 B: bytes loaded (8 per load) per second per process"),
    "chase": CurveSpec("memory", "working_set_bytes", "s", "mean",
                       "p = *p through a random cycle of cache lines: seconds per dependent load"),
    "flops_independent": CurveSpec("compute", "iterations", "s", "one",
                                   "8 independent double additions per iteration: seconds per addition"),
    "flops_chained": CurveSpec("compute", "iterations", "s", "one",
                               "double additions each on the result of the last: seconds per addition (latency)"),
    "int_ops": CurveSpec("compute", "iterations", "s", "one",
                         "4 independent xorshift streams (shift, xor): seconds per integer operation"),
    "divide": CurveSpec("compute", "iterations", "s", "one",
                        "8 independent double divisions per iteration: seconds per division"),
    "math": CurveSpec("compute", "iterations", "s", "one",
                      "8 independent chains of exp(-q) and log(q + 2): seconds per call"),
    "branch_predictable": CurveSpec("compute", "iterations", "s", "one",
                                    "if (d[i]) over sorted random bytes: seconds per branch"),
    "branch_random": CurveSpec("compute", "iterations", "s", "one",
                               "if (d[i]) over the same bytes unsorted, half mispredicted: seconds per branch"),
    "branch_difference": CurveSpec("compute", "iterations", "s", "one",
                                   "branch_random - branch_predictable, per repetition: seconds per branch"),
    "noise_rate": CurveSpec("compute", "quantum_seconds", "1/s", "one",
                            "fixed work quanta back to back: interruptions (a quantum's excess over the fastest) per second"),
    "noise_length": CurveSpec("compute", "quantum_seconds", "s", "one",
                              "the same: mean length of an interruption, seconds"),
    "noise_variance": CurveSpec("compute", "quantum_seconds", "s", "one",
                                "the same: sum of squared interruptions per second (a burst's variance per second of it)"),
    "pingpong_intra": CurveSpec("network", "message_bytes", "s", "one",
                                "half a round trip between ranks 0 and 1 on one node: seconds per message"),
    "pingpong_intra_bandwidth": CurveSpec("network", "message_bytes", "B/s", "one",
                                          "message bytes / pingpong_intra, per repetition (sizes above 0)"),
    "pingpong_inter": CurveSpec("network", "message_bytes", "s", "one",
                                "half a round trip between ranks 0 and 1 on two nodes: seconds per message"),
    "pingpong_inter_bandwidth": CurveSpec("network", "message_bytes", "B/s", "one",
                                          "message bytes / pingpong_inter, per repetition (sizes above 0)"),
    "bcast": CurveSpec("network", "message_bytes", "s", "one",
                       "MPI_Bcast from rank 0: seconds per call, the slowest rank's"),
    "allreduce": CurveSpec("network", "message_bytes", "s", "one",
                           "MPI_Allreduce of doubles, MPI_SUM: seconds per call, the slowest rank's"),
    "alltoall": CurveSpec("network", "message_bytes", "s", "one",
                          "MPI_Alltoall, x bytes per pair of processes: seconds per call, the slowest rank's"),
    "barrier": CurveSpec("network", "procs", "s", "one", "MPI_Barrier: seconds per call, the slowest rank's"),
    "launch": CurveSpec("launch", "procs", "s", "one",
                        "the launcher starting P processes of a program that initialises and finalises MPI: seconds "
                        "from the launch to its exit, timed by perfeq"),
}


@dataclass(frozen=True)
class Curve:
    """A measured curve: the samples (one per repetition) at each ``x``, for ``procs`` processes."""

    name: str
    procs: int
    x: tuple[float, ...]
    samples: tuple[tuple[float, ...], ...]
    iters: tuple[int, ...]

    @property
    def spec(self) -> CurveSpec:
        return CURVES[self.name]

    def statistic(self, kind: str) -> list[float]:
        """Per point: ``median``, ``q1``, ``q3`` (quartiles, linear interpolation), ``min`` or ``max``."""
        quantile = {"min": 0.0, "q1": 0.25, "median": 0.5, "q3": 0.75, "max": 1.0}[kind]
        return [float(np.quantile(values, quantile)) for values in self.samples]

    @property
    def median(self) -> list[float]:
        return self.statistic("median")

    def at(self, x: float) -> float:
        """The median at ``x`` (KeyError when the curve has no such point)."""
        for where, value in zip(self.x, self.median, strict=True):
            if where == x:
                return value
        raise KeyError(x)

    def to_json(self) -> dict:
        spec = self.spec
        return {"name": self.name, "probe": spec.probe, "procs": self.procs, "x_name": spec.x_name,
                "unit": spec.unit, "x": [_number(x) for x in self.x],
                **{kind: self.statistic(kind) for kind in ("median", "q1", "q3", "min", "max")},
                "reps": [len(values) for values in self.samples], "iters": list(self.iters),
                "samples": [list(values) for values in self.samples]}

    @classmethod
    def from_json(cls, data: dict) -> Curve:
        """The curve of a ``perfeq-probes`` file (its statistics are recomputed from the samples)."""
        if data["name"] not in CURVES:
            raise ValueError(f"unknown curve {data['name']!r}")
        x, samples = tuple(float(v) for v in data["x"]), tuple(tuple(float(v) for v in s) for s in data["samples"])
        iters = tuple(int(n) for n in data["iters"])
        if not (len(x) == len(samples) == len(iters)) or not all(samples):
            raise ValueError(f"curve {data['name']}: x, samples and iters differ in length, or a point has no sample")
        return cls(data["name"], int(data["procs"]), x, samples, iters)


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


@dataclass(frozen=True)
class Point:
    """One JSON line of a probe program: per repetition, the values of the ranks."""

    curve: str
    x: float
    iters: int
    samples: tuple[tuple[float, ...], ...]


def parse_point(line: str, where: str) -> Point | None:
    """The point on one line of a probe's output; None for a line that is no JSON object (an MPI
    library's notice); a RunError naming ``where`` for a point perfeq cannot read."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
        point = Point(str(data["curve"]), float(data["x"]), int(data["iters"]),
                      tuple(tuple(float(v) for v in rep) for rep in data["samples"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise RunError(f"{where}: cannot read the probe's line {text[:80]!r}: {exc}") from None
    if point.curve not in CURVES:
        raise RunError(f"{where}: the probe printed an unknown curve {point.curve!r} (a probe newer than this perfeq?)")
    if not point.samples or not all(point.samples) or not all(math.isfinite(v) and v > 0
                                                                  for rep in point.samples for v in rep):
        raise RunError(f"{where}: {point.curve} at {point.x:g}: a value is missing, not positive or not finite")
    return point


def curves_of(points: Iterable[Point], procs: int, where: str) -> list[Curve]:
    """The curves of one launch on ``procs`` processes, in the order their points came, with the
    curves derived from them (branch_difference, ping-pong bandwidth)."""
    grouped: dict[str, list[Point]] = {}
    for point in points:
        grouped.setdefault(point.curve, []).append(point)
    curves = []
    for name, group in grouped.items():
        samples = []
        for point in group:
            if CURVES[name].ranks == "mean":
                if any(len(rep) != procs for rep in point.samples):
                    raise RunError(f"{where}: {name} at {point.x:g} has values of {len(point.samples[0])} ranks, not "
                                   f"{procs}: the launcher did not start one MPI job of {procs} processes")
                samples.append(tuple(sum(rep) / len(rep) for rep in point.samples))
            else:
                samples.append(tuple(rep[0] for rep in point.samples))
        curves.append(Curve(name, procs, tuple(p.x for p in group), tuple(samples), tuple(p.iters for p in group)))
    return curves + _derived(curves)


def _derived(curves: list[Curve]) -> list[Curve]:
    by_name = {curve.name: curve for curve in curves}
    derived = []
    random, predictable = by_name.get("branch_random"), by_name.get("branch_predictable")
    if random and predictable and random.x == predictable.x:
        differences = tuple(tuple(r - p for r, p in zip(rs, ps, strict=False))
                            for rs, ps in zip(random.samples, predictable.samples, strict=True))
        derived.append(Curve("branch_difference", random.procs, random.x, differences, random.iters))
    for name in ("pingpong_intra", "pingpong_inter"):
        curve = by_name.get(name)
        keep = [k for k, x in enumerate(curve.x) if x > 0] if curve else []
        if keep:
            derived.append(Curve(f"{name}_bandwidth", curve.procs, tuple(curve.x[k] for k in keep),
                                 tuple(tuple(curve.x[k] / t for t in curve.samples[k]) for k in keep),
                                 tuple(curve.iters[k] for k in keep)))
    return derived


def merge_over_procs(curves: list[Curve]) -> list[Curve]:
    """The curves whose ``x`` is the process count (barrier), one per launch, merged into one curve
    over the launches (its ``procs`` the largest); the others as they are."""
    merged: dict[str, list[Curve]] = {}
    kept: list[Curve] = []
    for curve in curves:
        if curve.spec.x_name == "procs":
            if curve.name not in merged:
                kept.append(curve)  # placeholder: keeps the position of the first
            merged.setdefault(curve.name, []).append(curve)
        else:
            kept.append(curve)
    result = []
    for curve in kept:
        group = merged.get(curve.name) if curve.spec.x_name == "procs" else None
        if group is None:
            result.append(curve)
            continue
        points = sorted((x, s, n) for c in group for x, s, n in zip(c.x, c.samples, c.iters, strict=True))
        result.append(Curve(curve.name, max(c.procs for c in group), tuple(p[0] for p in points),
                            tuple(p[1] for p in points), tuple(p[2] for p in points)))
    return result
