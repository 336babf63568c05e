"""``perfeq calibrate --for MODEL N=.. P=..``: the calibration runs that tighten one prediction most.

Candidates are the calibration applications at their catalog sizes and at one size per level of
this machine's memory hierarchy (:func:`level_sizes`: the size whose working set, the largest loop
nest's footprint per process, lies in the middle of L1, of each cache, and a few times past the last
level), each at the campaign's process counts, priced by the current profile.  The choice among them
is perfeq.fitting.regression.optimal's (c-optimal for the target by default, D-optimal on request),
within a budget of seconds.  Documented in docs/calibration-design.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from perfeq.errors import UsageError
from perfeq.examples.catalog import Example
from perfeq.fitting.costs import INTERCEPT
from perfeq.fitting.regression.optimal import choose_runs, target_variance
from perfeq.fitting.regression.predict import count_vector, fitted_application
from perfeq.symbolic.symbols import lambdify_numpy
from perfeq.workflows.calibrate import Point

SCAN = 240  # sizes tried per example when looking for each level's size (log-spaced)
ROUGH_SECONDS_PER_OP = 0.3e-9
MEMORY_FACTOR = 3.0  # the memory level's working set: this many times the last level per process


@dataclass(frozen=True)
class Level:
    name: str  # "L1", "L2", ..., "memory"
    capacity: float  # bytes per process (a shared last level divided among the node's processes)


@dataclass(frozen=True)
class Candidate:
    point: Point
    level: str
    working_set: float  # bytes per process
    seconds: float  # predicted by the profile
    counts: np.ndarray  # in the order of the profile's names


@dataclass
class Plan:
    target_seconds: float
    chosen: list[tuple[Candidate, float]]  # the candidate and the target's mean variance once it is added
    variance_now: float  # of the predicted mean: x0' C x0 over every cost (probed ones included)
    variance_after: float
    run_floor: float  # sigma^2 t^2 (relative) or sigma^2: a run's own error, not lowered by more runs
    between_floor: float  # tau^2 t^2 for a program the fit never saw, else 0
    notes: list[str] = field(default_factory=list)

    def half_width(self, variance: float, floors: bool = False) -> float:
        """The 95 % half-width (normal quantile) as a fraction of the predicted time."""
        total = variance + (self.run_floor + self.between_floor if floors else 0.0)
        return 1.96 * math.sqrt(max(total, 0.0)) / self.target_seconds if self.target_seconds > 0 else math.inf


def levels_of(caches: dict[int, int], procs: int) -> list[Level]:
    """The hierarchy as each of ``procs`` processes on one node sees it: private levels whole, the last
    level (shared) divided among them, then memory."""
    out = []
    for number in sorted(caches):
        capacity = caches[number] / (procs if number == max(caches) else 1)
        if out and capacity <= out[-1].capacity:
            continue  # a shared last level smaller per process than the level below: no room of its own
        out.append(Level(f"L{number}", float(capacity)))
    out.append(Level("memory", math.inf))
    return out


def level_name(levels: list[Level], working_set: float) -> str:
    return next(level.name for level in levels if working_set <= level.capacity)


def level_targets(levels: list[Level]) -> dict[str, float]:
    """The working set to aim at for each level: half of L1, the geometric middle of each further cache,
    :data:`MEMORY_FACTOR` times the last cache for memory."""
    targets, below = {}, None
    for level in levels:
        if level.name == "memory":
            targets[level.name] = MEMORY_FACTOR * below
        else:
            targets[level.name] = level.capacity / 2 if below is None else math.sqrt(below * level.capacity)
        below = level.capacity
    return targets


class WorkingSet:
    """The largest loop nest's footprint per process of one model, vectorised over sizes."""

    def __init__(self, model):
        self.model = model
        self.functions = [lambdify_numpy(model.arguments, nest["footprint"]) for nest in model.nests]

    def __call__(self, values: dict[str, np.ndarray | float], procs: int) -> np.ndarray:
        shape = np.broadcast(*[np.asarray(v) for v in values.values()]).shape
        args = [np.asarray(values[name], dtype=float) for name in self.model.parameters]
        out = np.zeros(shape)
        ranks = np.arange(procs).reshape((procs,) + (1,) * len(shape))
        with np.errstate(all="ignore"):
            for function in self.functions:
                value = np.broadcast_to(np.asarray(function(*args, procs, 1, ranks), dtype=float), (procs, *shape))
                out = np.fmax(out, np.nanmax(value, axis=0))
        return out


def size_parameter(example: Example) -> str:
    """The parameter that sets the problem size: the first whose calibration values differ."""
    for param in example.params:
        if len(set(param["calibration"])) > 1:
            return param["name"]
    return example.params[0]["name"]


def _round(value: float) -> int:
    """Two significant digits (sizes a user would type)."""
    if value < 100:
        return max(1, int(round(value)))
    digits = 10 ** (int(math.floor(math.log10(value))) - 1)
    return int(round(value / digits) * digits)


def level_sizes(example: Example, working_set: WorkingSet, levels: list[Level], procs: int
                ) -> dict[str, dict[str, int]]:
    """For each level, the example's values whose working set lies nearest its target (within a factor
    of 2 and inside the level), the other parameters from the nearest catalog size; a level no size
    reaches is left out."""
    name = size_parameter(example)
    known = example.calibration()
    low = min(example.small[name], *(v[name] for v in known))
    sizes = np.unique(np.round(np.geomspace(max(low, 1), 1000 * max(v[name] for v in known), SCAN)))
    volumes = working_set({**known[0], name: sizes}, procs)
    good = np.isfinite(volumes) & (volumes > 0)
    if not good.any():
        return {}
    found = {}
    for level, aim in level_targets(levels).items():
        index = int(np.argmin(np.where(good, np.abs(np.log(np.where(good, volumes, 1.0) / aim)), np.inf)))
        size = _round(float(sizes[index]))
        values = dict(min(known, key=lambda v: abs(math.log(v[name] / size))))
        values[name] = size
        volume = float(working_set(values, procs))
        if level_name(levels, volume) == level and abs(math.log(volume / aim)) <= math.log(2.0):
            found[level] = values
    return found


def fit_time(example: Example, values: dict[str, int], seconds, max_seconds: float) -> dict[str, int] | None:
    """``values`` with the parameters other than the size halved (down to their small value) until the
    predicted time ``seconds(values)`` is at most ``max_seconds``; None when that cannot be reached."""
    size = size_parameter(example)
    values = dict(values)
    while seconds(values) > max_seconds:
        others = [p["name"] for p in example.params if p["name"] != size and values[p["name"]] > p["small"]]
        if not others:
            return None
        for other in others:
            small = next(p["small"] for p in example.params if p["name"] == other)
            values[other] = max(small, values[other] // 2)
    return values


def rough_seconds(model, values: dict[str, float], procs: int) -> float:
    """A campaign's guess of a run's time before any fit: 0.3 ns per operation of the slowest rank (about
    what the examples take on a recent core: gauss at n = 1400 is 1.8e9 operations in 0.28 s on 2)."""
    return ROUGH_SECONDS_PER_OP * float(model.counts({k: float(v) for k, v in values.items()}, procs)["slowest"]["ops"])


class Pricer:
    """A model's counts at a point in the profile's order, and the profile's time for them."""

    def __init__(self, profile, hardware):
        self.profile, self.hardware = profile, hardware

    def counts(self, model, values: dict[str, float], procs: int, threads: int = 1) -> np.ndarray:
        slowest = model.counts({k: float(v) for k, v in values.items()}, procs, threads, self.hardware)["slowest"]
        return count_vector(self.profile, {c: slowest.get(c, 0.0) for c in self.profile.names if c != INTERCEPT})

    def seconds(self, model, values: dict[str, float], procs: int) -> float:
        return float(self.profile.beta @ self.counts(model, values, procs))


def spanning_sizes(examples: list[Example], working_sets: dict[str, WorkingSet], procs: list[int],
                   caches: dict[int, int], seconds, max_seconds: float
                   ) -> tuple[dict[tuple[str, int], list[dict[str, int]]], list[str]]:
    """Each example's sizes for each process count that put its working set (``working_sets``, by
    example name) in each level of the hierarchy (:func:`level_sizes`), the other parameters lowered
    until ``seconds(model, values, P)`` is at most ``max_seconds`` (:func:`fit_time`); and a note per
    level an example does not reach."""
    sizes, notes = {}, []
    for example in examples:
        working_set = working_sets[example.name]
        model = working_set.model
        unreached: dict[str, list[int]] = {}
        for p in procs:
            levels = levels_of(caches, p)
            by_level = level_sizes(example, working_set, levels, p)
            sizes[example.name, p] = []
            for level, values in by_level.items():
                fitted = fit_time(example, values, lambda v, m=model, p=p: seconds(m, v, p), max_seconds)
                if fitted is None:
                    notes.append(f"{example.name} P={p}: {level} needs {_text(values)}, predicted "
                                 f"{seconds(model, values, p):.3g} s > --max-seconds {max_seconds:g}")
                else:
                    sizes[example.name, p].append(fitted)
            for level in levels:
                if level.name not in by_level:
                    unreached.setdefault(level.name, []).append(p)
        if unreached:
            notes.append(f"{example.name}: no size of {size_parameter(example)} puts the working set of its loop "
                         "nests in " + ", ".join(f"{level} (P={', '.join(map(str, ps))})"
                                                 for level, ps in unreached.items()))
    return sizes, notes


def candidates(examples: list[Example], models: dict, pricer: Pricer, procs: list[int], caches: dict[int, int],
               max_seconds: float) -> tuple[list[Candidate], list[str]]:
    """Every example at its catalog sizes and its level sizes, at each process count, predicted to take
    at most ``max_seconds``; and the notes of :func:`spanning_sizes`."""
    working_sets = {e.name: WorkingSet(models[e.name]) for e in examples}
    spanning, notes = spanning_sizes(examples, working_sets, procs, caches, pricer.seconds, max_seconds)
    out = []
    for example in examples:
        for p in procs:
            tried = [dict(v) for v in example.calibration()] + spanning[example.name, p]
            out += _priced(example, working_sets[example.name], tried, p, levels_of(caches, p), pricer, max_seconds)
    return out, notes


def _priced(example: Example, working_set: WorkingSet, tried: list[dict[str, int]], procs: int,
            levels: list[Level], pricer: Pricer, max_seconds: float) -> list[Candidate]:
    out, seen = [], set()
    for values in tried:
        key = tuple(sorted(values.items()))
        if key in seen:
            continue
        seen.add(key)
        counts = pricer.counts(working_set.model, values, procs)
        seconds = float(pricer.profile.beta @ counts)
        if seconds > max_seconds:
            continue
        volume = float(working_set(values, procs))
        out.append(Candidate(Point(example, values, procs, 0), level_name(levels, volume), volume, seconds, counts))
    return out


def plan_runs(profile, target: np.ndarray, target_digest: str, pool: list[Candidate], *, budget: float,
              max_runs: int, criterion: str = "target") -> Plan:
    """The runs among ``pool`` that tighten the prediction at counts ``target`` most (module docstring)."""
    if not profile.has_intervals:
        raise UsageError("calibrate --for needs a fitted profile (with a covariance): a hand-written one has none")
    if not pool:
        raise UsageError("calibrate --for: no candidate run is predicted to take at most --max-seconds")
    names = list(profile.names)
    free = [i for i, name in enumerate(names) if profile.cost_source(name) == "fit"]
    cov = profile.covariance_matrix()
    seconds_now = float(profile.beta @ target)
    relative = profile.weighting == "relative"
    rows = np.array([c.counts for c in pool])
    times = np.array([c.seconds for c in pool])
    if relative and (times <= 0).any():
        raise UsageError("calibrate --for: the profile predicts a non-positive time for some candidate runs; "
                         "refit it (perfeq fit) before choosing runs with it")
    weights = 1.0 / (profile.sigma**2 * (times**2 if relative else 1.0))
    sub = cov[np.ix_(free, free)]
    chosen = choose_runs(sub, rows[:, free], weights, times, target[free], budget=budget, max_runs=max_runs,
                         criterion=criterion)
    fixed = [i for i in range(len(names)) if i not in free]
    held = target_variance(cov[np.ix_(fixed, fixed)], target[fixed]) if fixed else 0.0
    after = chosen[-1].variance if chosen else target_variance(sub, target[free])
    unit = seconds_now**2 if relative else 1.0
    tau = None if fitted_application(profile, None, target_digest) else (
        profile.between_app.sigma if profile.between_app else None)
    return Plan(target_seconds=seconds_now, chosen=[(pool[c.index], c.variance + held) for c in chosen],
                variance_now=target_variance(cov, target), variance_after=after + held,
                run_floor=profile.sigma**2 * unit, between_floor=(tau or 0.0) ** 2 * unit)


def numbered(plan: Plan, done: set[tuple]) -> list[Point]:
    """The chosen runs as campaign points, each repetition numbered after those already in the runs file."""
    points, taken = [], set(done)
    for candidate, _ in plan.chosen:
        point = candidate.point
        while point.key() in taken:
            point = Point(point.example, dict(point.values), point.procs, point.rep + 1)
        taken.add(point.key())
        points.append(point)
    return points


def plan_text(plan: Plan, target: str) -> str:
    """The plan as the lines ``perfeq calibrate --for`` prints."""
    total = sum(c.seconds for c, _ in plan.chosen)
    lines = [f"calibrate --for {target}: predicted {plan.target_seconds:.4g} s",
             f"  its mean, 95 %: +-{100 * plan.half_width(plan.variance_now):.1f} % now, "
             f"+-{100 * plan.half_width(plan.variance_after):.1f} % with the {len(plan.chosen)} runs below "
             f"(about {total:.0f} s)",
             f"  a run, 95 %: +-{100 * plan.half_width(plan.variance_now, True):.1f} % now, "
             f"+-{100 * plan.half_width(plan.variance_after, True):.1f} % after; no runs lower it below "
             f"+-{100 * plan.half_width(0.0, True):.1f} % (the fit's run-to-run error"
             + (", the between-application error" if plan.between_floor else "") + ")"]
    if not plan.chosen:
        lines.append("  no candidate run lowers the variance of this prediction's mean: the runs so far identify it")
        return "\n".join(lines) + "\n"
    lines.append(f"  {'runs':>4}  {'application':<12} {'sizes':<22} {'P':>3}  {'level':<7} {'working set':>11} "
                 f"{'seconds':>8}  {'mean +-% after':>14}")
    for count, candidate, variance in _repeated(plan.chosen):
        point = candidate.point
        lines.append(f"  {count:>4}  {point.example.name:<12} {_text(point.values):<22} {point.procs:>3}  "
                     f"{candidate.level:<7} {_bytes(candidate.working_set):>11} {candidate.seconds:>8.3g}  "
                     f"{100 * plan.half_width(variance):>14.1f}")
    return "\n".join(lines) + "\n"


def _repeated(chosen: list[tuple[Candidate, float]]) -> list[tuple[int, Candidate, float]]:
    """The chosen runs in the order chosen, one row per run of repetitions of one candidate: how many,
    the candidate, and the variance once the last of them is added."""
    rows: list[tuple[int, Candidate, float]] = []
    for candidate, variance in chosen:
        if rows and rows[-1][1] is candidate:
            rows[-1] = (rows[-1][0] + 1, candidate, variance)
        else:
            rows.append((1, candidate, variance))
    return rows


def _text(values: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in values.items())


def _bytes(value: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value:.0f} B"
