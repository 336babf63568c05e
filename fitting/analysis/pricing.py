"""The time equation of one program on one machine, t(N, P) = sum_k chi_k(N, P) beta_k (paper 3.3, 5).

Joins the symbolic stage (a CostModel's counts chi, the cache description's miss counts) and the
fitting stage (a MachineProfile's costs beta).  Sensitivity, breakdown and the HTML report price a
model through this one class, as ``perfeq predict`` does: with the slowest rank's counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import sympy as sp

from perfeq.errors import UsageError
from perfeq.fitting.costs import COSTS, INTERCEPT, MISS_COSTS
from perfeq.fitting.regression.predict import priced_slowest
from perfeq.fitting.regression.profile import MachineProfile
from perfeq.symbolic import traffic
from perfeq.symbolic.chi import FOOTPRINT_KEYS
from perfeq.symbolic.machine import WORD, Machine
from perfeq.symbolic.model import CostModel
from perfeq.symbolic.symbols import cost_symbol, lambdify_numpy

DEFAULT_PROCS = (1, 2, 4, 8, 16, 32, 64)
DEFAULT_FACTORS = (1, 2, 4, 8, 16, 32, 64)  # the report's grid: the model's run size times these
CONST_LABEL = "fixed time per run (const)"
RANGE_FORMS = "expected LOW:HIGH[:COUNT] (geometric), a list like 1,2,4 or one value, all > 0"


@dataclass(frozen=True)
class Grid:
    """Where an analysis is evaluated: one problem-size parameter over ``sizes`` (the x axis), and P.

    ``parameter`` is None for a model without problem-size parameters (then only P varies).
    ``fixed`` holds every other parameter's value.
    """

    parameter: str | None
    sizes: tuple[float, ...]
    procs: tuple[int, ...]
    fixed: Mapping[str, float] = field(default_factory=dict)
    threads: int = 1

    def values(self, size: float) -> dict[str, float]:
        """The model's parameter values at one point of the x axis."""
        return dict(self.fixed) if self.parameter is None else {**self.fixed, self.parameter: float(size)}

    @property
    def along_procs(self) -> bool:
        """True when only P varies: plots then have P on the x axis."""
        return len(self.sizes) == 1 and len(self.procs) > 1


def parse_range(text: str) -> list[float]:
    """``1000:64000`` (8 geometric points), ``1000:64000:12``, ``1,2,4,8`` or one value ``512``."""
    try:
        if ":" in text:
            parts = text.split(":")
            if len(parts) > 3:
                raise ValueError
            low, high = float(parts[0]), float(parts[1])
            count = int(parts[2]) if len(parts) > 2 else 8
            if not (0 < low <= high < float("inf")) or count < 1:
                raise ValueError
            return [float(v) for v in np.unique(np.round(np.geomspace(low, high, count)))]
        values = [float(v) for v in text.split(",") if v.strip()]
        if not values or not all(np.isfinite(values)) or min(values) <= 0:
            raise ValueError
        return values
    except ValueError:
        raise UsageError(f"'{text}': {RANGE_FORMS}") from None


def match_parameter(model: CostModel, name: str, option: str) -> str:
    """The model's name for parameter ``name``: exact, or the only one equal ignoring case (N for n)."""
    if name in model.parameters or name in ("P", "T"):
        return name
    folded = [known for known in model.parameters if known.lower() == name.lower()]
    if len(folded) == 1 and name.upper() not in ("P", "T"):
        return folded[0]
    raise UsageError(
        f"{option}: unknown parameter '{name}' (the model's parameters are "
        f"{', '.join([*model.parameters, 'P'])})"
    )


def parse_over(model: CostModel, items: Sequence[str], option: str = "--over") -> Grid:
    """Build a Grid from ``NAME=SPEC`` items: one size parameter may vary, P is a list of counts.

    Every model parameter needs a value (a single value keeps it fixed); P defaults to 1, 2, ..., 64
    and T to 1.
    """
    given: dict[str, list[float]] = {}
    for item in items:
        name, sep, spec = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{option} '{item}': expected NAME=SPEC, e.g. n=1000:64000 or P=1,2,4")
        name = match_parameter(model, name.strip(), option)
        if name in given:
            raise UsageError(f"{option}: parameter '{name}' given twice")
        try:
            given[name] = parse_range(spec.strip())
        except UsageError:
            raise UsageError(f"{option} {item}: {RANGE_FORMS}") from None
    procs_given = given.pop("P", DEFAULT_PROCS)
    if any(p != int(p) or p < 1 for p in procs_given):
        raise UsageError(f"{option}: P must be whole numbers >= 1")
    procs = tuple(int(p) for p in procs_given)
    threads = given.pop("T", [1.0])
    if len(threads) != 1 or threads[0] != int(threads[0]):
        raise UsageError(f"{option}: T takes one whole number (OpenMP threads per process)")
    missing = [name for name in model.parameters if name not in given]
    if missing:
        raise UsageError(
            f"{option}: no value for {', '.join(missing)}; give "
            f"{' '.join(f'{m}=VALUE' for m in missing)} (one value keeps a parameter fixed)"
        )
    varying = [name for name, values in given.items() if len(values) > 1]
    if len(varying) > 1:
        raise UsageError(
            f"{option}: {' and '.join(varying)} both vary; give all but one problem-size "
            "parameter a single value"
        )
    parameter = varying[0] if varying else next(iter(model.parameters), None)
    fixed = {name: values[0] for name, values in given.items() if name != parameter}
    sizes = tuple(given[parameter]) if parameter else (0.0,)
    return Grid(parameter, sizes, procs, fixed, int(threads[0]))


def default_grid(
    model: CostModel, factors: Iterable[float] = DEFAULT_FACTORS, procs: Iterable[int] = DEFAULT_PROCS
) -> Grid:
    """The model's first parameter at its instrumentation-run value times ``factors``, others as run."""
    run = {name: float(info.get("value") or 1) for name, info in model.parameters.items()}
    parameter = next(iter(model.parameters), None)
    sizes = tuple(run[parameter] * f for f in factors) if parameter else (0.0,)
    fixed = {name: value for name, value in run.items() if name != parameter}
    return Grid(parameter, sizes, tuple(int(p) for p in procs), fixed)


def miss_expressions(model: CostModel, machine: Machine) -> list[tuple[dict, dict[str, sp.Expr]]]:
    """Per loop nest, its l1, l2 and page counts as expressions: the rule of Machine.misses, symbolic.

    A nest whose footprint exceeds a capacity misses on every word it accesses (streaming), otherwise
    once per line or page of its footprint (compulsory).
    """
    nests = []
    for nest in model.nests:
        footprint, accesses = nest["footprint"], nest["accesses"]
        misses = {}
        for key, capacity, unit in (
            ("l1", machine.l1_bytes, machine.line_bytes),
            ("l2", machine.l2_bytes, machine.line_bytes),
            ("page", machine.memory_bytes, machine.page_bytes),
        ):
            misses[key] = sp.Piecewise(
                (accesses * sp.Integer(WORD) / unit, footprint > capacity),
                (footprint / sp.Integer(unit), True),
            )
        nests.append((nest, misses))
    return nests


class TimeEquation:
    """t = sum_k chi_k beta_k (+ const) for one model, machine profile and cache description.

    ``chi`` and ``symbolic`` keep the rank free (the model's per-rank counts); numbers are the slowest
    rank's, the rank with the most operations, as in ``perfeq predict``.
    """

    def __init__(self, model: CostModel, profile: MachineProfile, machine: Machine, threads: int = 1):
        self.model, self.profile, self.machine, self.threads = model, profile, machine, threads
        self.betas = dict(profile.values)
        if not model.uses_mpi:  # const is the calibration runs' launch with mpiexec: not this program's
            self.betas.pop(INTERCEPT, None)
        self.priced = tuple(name for name in profile.names if name != INTERCEPT)
        model.require(*self.priced)
        self._nest_functions: list[dict] | None = None

    # ---- symbolic ---------------------------------------------------------------------------------
    @cached_property
    def nests(self) -> list[tuple[dict, dict[str, sp.Expr]]]:
        return miss_expressions(self.model, self.machine)

    @cached_property
    def chi(self) -> dict[str, sp.Expr]:
        """Every cost's count as an expression in the parameters, P, T and rank."""
        totals = self.model.totals()
        chi = {key: sp.sympify(totals.get(key, 0)) for key in COSTS if key not in MISS_COSTS}
        for key in FOOTPRINT_KEYS:
            chi[key] = sp.Add(*(misses[key] for _, misses in self.nests))
        chi["mem"] = traffic.expression(self.model, self.machine)  # printed; numbers: traffic.memory_lines
        return {key: chi[key] for key in COSTS}

    @cached_property
    def symbolic(self) -> sp.Expr:
        """t with the costs as symbols beta_k."""
        terms = [cost_symbol(key) * self.chi[key] for key in self.priced]
        if INTERCEPT in self.betas:
            terms.append(cost_symbol(INTERCEPT))
        return sp.Add(*terms)

    @cached_property
    def numeric(self) -> sp.Expr:
        """t with the profile's cost values substituted (seconds)."""
        return self.symbolic.subs({cost_symbol(k): sp.Float(v) for k, v in self.betas.items()})

    def equation_text(self, digits: int = 4) -> str:
        """``t = 5.96e-11*chi_ops + ... `` with the profile's values, one term per priced cost."""
        terms = [f"{self.betas[key]:.{digits}g}*chi_{key}" for key in self.priced]
        if INTERCEPT in self.betas:
            terms.append(f"{self.betas[INTERCEPT]:.{digits}g}")
        return "t = " + " + ".join(terms).replace("+ -", "- ")

    # ---- numbers ----------------------------------------------------------------------------------
    def slowest(self, values: Mapping[str, float], procs: int) -> tuple[dict[str, float], int]:
        """The slowest rank's counts for every cost, and that rank."""
        counts = self.model.counts(dict(values), int(procs), self.threads, self.machine)
        rank = priced_slowest(self.betas, counts)  # the rank predict prices
        return {key: float(counts["per_rank"][key][rank]) if key in counts["per_rank"] else 0.0
                for key in COSTS}, rank

    def cost_seconds(self, values: Mapping[str, float], procs: int) -> dict[str, float]:
        """Seconds per priced cost (and const) at one point: the predicted time is their sum."""
        counts, _ = self.slowest(values, procs)
        seconds = {key: self.betas[key] * counts[key] for key in self.priced}
        if INTERCEPT in self.betas:
            seconds[INTERCEPT] = self.betas[INTERCEPT]
        return seconds

    def time(self, values: Mapping[str, float], procs: int) -> float:
        """The predicted time in seconds (the same number ``predict`` gives for these counts)."""
        return float(sum(self.cost_seconds(values, procs).values()))

    def block_seconds(self, values: Mapping[str, float], procs: int) -> dict[str, float]:
        """Seconds per block on the slowest rank (label ``file:line function kind [context]``).

        Cache and page misses are counted per loop nest, so they get one entry per nest (lines from
        memory, ``mem``, per block with the block); the fixed
        per-run time is one more entry.  The entries add up to the predicted time.
        """
        _, rank = self.slowest(values, procs)
        ranks = np.array([rank])
        args = [float(values[name]) for name in self.model.parameters] + [procs, self.threads, ranks]
        lines = traffic.block_lines(self.machine, self.model, dict(values), procs, self.threads, rank) \
            if "mem" in self.priced else {}
        out: dict[str, float] = {}
        for index, item in enumerate(self.model.items):
            seconds = sum(
                self.betas[key]
                * float(self.model.per_rank(key, values, procs, self.threads, index, ranks)[0])
                for key in self.priced
                if key in self.model.item_keys(item) and key not in MISS_COSTS
            )
            if "mem" in self.priced and index in lines:
                seconds += self.betas["mem"] * lines[index]
            label = f"{item.label} [{item.context}]"
            out[label] = out.get(label, 0.0) + seconds
        missed = [key for key in self.priced if key in FOOTPRINT_KEYS]
        if missed:
            for (nest, _), functions in zip(self.nests, self._nest_lambdas(), strict=True):
                label = f"{Path(str(nest['unit'])).name}:{nest['line']} {nest['function']} loop nest: misses"
                seconds = sum(
                    self.betas[key] * float(np.asarray(functions[key](*args), dtype=float).ravel()[0])
                    for key in missed
                )
                out[label] = out.get(label, 0.0) + seconds
        if INTERCEPT in self.betas:
            out[CONST_LABEL] = self.betas[INTERCEPT]
        return out

    def _nest_lambdas(self) -> list[dict]:
        if self._nest_functions is None:
            self._nest_functions = [
                {
                    key: lambdify_numpy(self.model.arguments, expr)
                    for key, expr in misses.items()
                }
                for _, misses in self.nests
            ]
        return self._nest_functions
