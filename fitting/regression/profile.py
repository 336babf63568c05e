"""The machine profile (format ``perfeq-machine`` version 2): fitted or hand-written machine costs.

Version 2 gives every cost its own ``source`` (:data:`COST_SOURCES`: fitted from runs, written by hand,
or measured by a probe), so that one profile can hold costs from several places; version 1 files are
read with every cost from the profile's ``source``.

Output of ``perfeq fit`` / ``perfeq machine-profile`` and input of predictions.  Plain data in a
versioned JSON file, written via temp file + rename; see docs/machine-profile.md.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from typing import Any

import numpy as np

from perfeq.errors import FitError
from perfeq.files import check_document, read_json, write_atomic
from perfeq.fitting.costs import COSTS, INTERCEPT, canonical_order

FORMAT = "perfeq-machine"
VERSION = 2  # 2: costs.NAME.source
READABLE = (1, VERSION)
WEIGHTINGS = ("relative", "none")
PROFILE_SOURCES = ("fit", "manual")  # how the profile was made
# Where one cost comes from: fitted from timed runs (perfeq fit), written by hand (perfeq machine-profile
# --manual, or a what-if --set), or measured by a machine probe (perfeq probe; for perfeq fit --probes).
COST_SOURCES = ("fit", "manual", "probe")


@dataclass(frozen=True)
class CostEstimate:
    """One machine cost in seconds per count; the statistics are None in a manual profile."""

    value: float
    stderr: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None  # two-sided t test of "this cost is zero"
    source: str = ""  # one of COST_SOURCES; "" means the profile's own source (MachineProfile.cost_source)
    detail: str = ""  # what measured it: a probed cost's curve (pingpong_intra, pingpong_inter); "" otherwise


@dataclass(frozen=True)
class RunSummary:
    """A calibration run as the fit saw it: what ran, measured and fitted time, standardized residual."""

    app: str
    params: str
    procs: int
    threads: int
    rep: int
    time_s: float
    fitted_s: float
    std_resid: float  # internally studentized residual (dimensionless)
    digest: str = ""  # the program's identity (runs CSV column digest), "" when unknown


def error_text(value: float, weighting: str | None, sign: bool = False) -> str:
    """An error in a profile's unit: percent of the run time under ``relative`` weighting, else
    seconds (``sign``: with + for positive values)."""
    spec = "+.3g" if sign else ".3g"
    return f"{100 * value:{spec}} %" if weighting == "relative" else f"{value:{spec}} s"


@dataclass(frozen=True)
class BetweenApp:
    """The error of a prediction for an application the fit never saw, beyond the fit's own intervals.

    Each calibration application is predicted from a fit on the others (leave one application out);
    its mean held-out error is its bias.  ``sigma`` is the standard deviation of that bias which the
    fit's covariance and run-to-run error do not already account for (same unit as the profile's
    ``sigma``: relative under ``relative`` weighting, seconds under ``none``), estimated from
    ``df`` applications.  ``app_bias`` is each application's mean held-out error in that unit.
    """

    sigma: float
    df: int
    app_bias: Mapping[str, float]
    method: str = "leave-one-application-out"


HELD_OUT = "held-out"  # selection criterion: leave-one-application-out mean |error|
LADDER = "ladder"  # selection criterion: the first admissible set (runs of one application)


@dataclass(frozen=True)
class Candidate:
    """One cost set tried: its held-out mean |error| and, when it cannot be used, why."""

    costs: tuple[str, ...]
    held_out: float | None = None  # leave-one-application-out mean |(predicted - measured) / measured|
    reason: str = ""  # why the set is not admissible; "" when it is

    @property
    def admissible(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class Selection:
    """The cost set chosen, by which criterion, and every candidate in the order tried."""

    chosen: tuple[str, ...]
    criterion: str  # HELD_OUT or LADDER
    candidates: tuple[Candidate, ...]
    intercept: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"chosen": list(self.chosen), "criterion": self.criterion, "intercept": self.intercept,
                "candidates": [{**asdict(c), "costs": list(c.costs)} for c in self.candidates]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str) -> Selection:
        try:
            candidates = tuple(Candidate(tuple(str(n) for n in c["costs"]),
                                         None if c.get("held_out") is None else float(c["held_out"]),
                                         str(c.get("reason", ""))) for c in data["candidates"])
            return cls(tuple(str(n) for n in data["chosen"]), str(data["criterion"]), candidates,
                       bool(data.get("intercept", False)))
        except (KeyError, TypeError, ValueError) as exc:
            raise FitError(f"'selection' is malformed ({exc})", location=where) from None


@dataclass(frozen=True)
class MachineProfile:
    """Machine costs for one machine, with their uncertainty when they were fitted.

    ``sigma`` is the residual standard error: a relative error (e.g. 0.03 = 3 %) under ``relative``
    weighting, seconds under ``none``.  ``covariance`` is the covariance of the cost estimates in
    s^2 per count^2, labelled by cost names.  A ``manual`` profile has values only.
    """

    costs: Mapping[str, CostEstimate]  # in the project's cost order, "const" last
    source: str  # "fit" or "manual"
    host: str = ""
    created: str = ""
    level: float = 0.95  # confidence level of ci_low/ci_high
    weighting: str | None = None
    covariance: Mapping[str, Mapping[str, float]] | None = None
    df_resid: int | None = None
    sigma: float | None = None
    rsquared: float | None = None
    rsquared_kind: str | None = None  # "uncentered" without const, "centered" with it
    condition_number: float | None = None
    vif: Mapping[str, float] | None = None
    n_runs: int | None = None
    runs: tuple[RunSummary, ...] = ()
    calibration_range: Mapping[str, tuple[float, float]] | None = None  # min, max count per cost
    # the largest share of loads missing l1, l2 (and faulting a page) in any calibration run
    miss_shares: Mapping[str, float] | None = None
    warnings: tuple[str, ...] = field(default=())
    between_app: BetweenApp | None = None  # None: one application, or not estimated
    selection: Selection | None = None  # how the cost set was chosen; None: given with --costs
    format_version: int = field(default=VERSION, compare=False)  # the version of the file it was read from

    @property
    def apps(self) -> frozenset[str]:
        """The applications whose runs were fitted."""
        return frozenset(run.app for run in self.runs)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.costs)

    def cost_source(self, name: str) -> str:
        """Where cost ``name`` comes from (:data:`COST_SOURCES`): its own source, else the profile's."""
        return self.costs[name].source or self.source

    @property
    def values(self) -> dict[str, float]:
        return {name: estimate.value for name, estimate in self.costs.items()}

    @property
    def beta(self) -> np.ndarray:
        """The costs as a vector in the order of ``names``."""
        return np.array([estimate.value for estimate in self.costs.values()])

    def covariance_matrix(self) -> np.ndarray | None:
        """The covariance of the costs as a matrix in the order of ``names``; None without one (manual)."""
        if self.covariance is None:
            return None
        return np.array([[self.covariance[row][col] for col in self.names] for row in self.names])

    @property
    def has_intervals(self) -> bool:
        """True when the profile carries the statistics needed for confidence and prediction intervals."""
        return self.covariance is not None and self.sigma is not None and bool(self.df_resid)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "source": self.source}
        data["host"], data["created"] = self.host, self.created
        data["costs"] = {
            name: {**{key: value for key, value in asdict(estimate).items() if value not in (None, "")},
                   "source": self.cost_source(name)}
            for name, estimate in self.costs.items()
        }
        if self.source == "manual":
            if self.warnings:
                data["warnings"] = list(self.warnings)
            return data
        data.update(
            level=self.level,
            weighting=self.weighting,
            covariance={row: dict(cols) for row, cols in (self.covariance or {}).items()},
            df_resid=self.df_resid,
            sigma=self.sigma,
            rsquared=self.rsquared,
            rsquared_kind=self.rsquared_kind,
            condition_number=self.condition_number,
            vif=dict(self.vif or {}),
            n_runs=self.n_runs,
            runs=[asdict(run) for run in self.runs],
            calibration_range={name: list(bounds) for name, bounds in (self.calibration_range or {}).items()},
            miss_shares=dict(self.miss_shares or {}),
            warnings=list(self.warnings),
        )
        if self.between_app is not None:
            data["between_app"] = {**asdict(self.between_app), "app_bias": dict(self.between_app.app_bias)}
        if self.selection is not None:
            data["selection"] = self.selection.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "machine profile") -> MachineProfile:
        """Validate and build a profile from its JSON form; FitError naming the bad field."""
        return _from_dict(data, where)


def manual_profile(values: Mapping[str, float], host: str = "") -> MachineProfile:
    """A hand-written profile (e.g. vendor figures): costs in seconds per count, no statistics."""
    for name, value in values.items():
        _check_cost_name(name, "manual costs")
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise FitError(f"cost {name}={value!r} is not a number >= 0 (seconds per count)")
    if not values:
        raise FitError(f"no costs given; name some of {', '.join((*COSTS, INTERCEPT))}")
    costs = {name: CostEstimate(float(values[name])) for name in canonical_order(list(values))}
    return MachineProfile(costs=costs, source="manual", host=host, created=now_iso())


def save_profile(profile: MachineProfile, path: str | os.PathLike[str]) -> None:
    """Write ``profile`` as JSON via a temp file and os.replace (never half-written)."""
    write_atomic(path, json.dumps(profile.to_dict(), indent=2) + "\n")


def load_profile(path: str | os.PathLike[str]) -> MachineProfile:
    """Read and validate a machine profile JSON; FitError naming the file and the bad field."""
    return _from_dict(read_json(path, error=FitError), str(path))


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _from_dict(data: Mapping[str, Any], where: str) -> MachineProfile:
    check_document(data, where, FORMAT, READABLE, error=FitError, what="machine profile")
    source = data.get("source")
    if source not in PROFILE_SOURCES:
        raise FitError(f'\'source\' is {source!r}; expected "fit" or "manual"', location=where)
    costs = _costs(data, where, source)
    common = dict(
        costs=costs,
        source=source,
        host=str(data.get("host", "")),
        created=str(data.get("created", "")),
        warnings=tuple(str(text) for text in data.get("warnings", ())),
        format_version=int(data["version"]),
    )
    if source == "manual":
        return MachineProfile(**common)
    return MachineProfile(**common, **_fit_fields(data, costs, where))


def _costs(data: Mapping[str, Any], where: str, source: str) -> dict[str, CostEstimate]:
    """The profile's ``costs``, checked, in the project's cost order; a cost without a ``source`` (every
    cost of a version 1 file) comes from the profile's ``source``."""
    raw_costs = _get(data, "costs", Mapping, where)
    if not raw_costs:
        raise FitError("'costs' is empty", location=where)
    costs = {}
    for name in raw_costs:
        _check_cost_name(name, f"{where}: 'costs'")
    for name in canonical_order(list(raw_costs)):
        entry = _get(raw_costs, name, Mapping, f"{where}: costs")
        costs[name] = CostEstimate(
            value=_number(entry, "value", f"{where}: costs.{name}"),
            **{
                key: _number(entry, key, f"{where}: costs.{name}", optional=True)
                for key in ("stderr", "ci_low", "ci_high", "p_value")
            },
            source=_cost_source(entry, source, f"{where}: costs.{name}"),
            detail=str(entry.get("detail", "")),
        )
    return costs


def _fit_fields(data: Mapping[str, Any], costs: Mapping[str, CostEstimate], where: str) -> dict[str, Any]:
    """The statistics of a fitted profile, checked, as MachineProfile fields."""
    weighting = data.get("weighting")
    if weighting not in WEIGHTINGS:
        raise FitError(
            f"'weighting' is {weighting!r}; expected one of {', '.join(WEIGHTINGS)}", location=where
        )
    covariance = _get(data, "covariance", Mapping, where)
    for row in costs:
        cols = _get(covariance, row, Mapping, f"{where}: covariance")
        for col in costs:
            _number(cols, col, f"{where}: covariance.{row}")
    df_resid = data.get("df_resid")
    if not isinstance(df_resid, int) or df_resid < 1:
        raise FitError(f"'df_resid' is {df_resid!r}; expected an integer >= 1", location=where)
    runs = tuple(
        _run_summary(run, f"{where}: runs[{i}]") for i, run in enumerate(_get(data, "runs", list, where))
    )
    ranges = {
        name: (float(low), float(high)) for name, (low, high) in data.get("calibration_range", {}).items()
    }
    return dict(
        level=_number(data, "level", where),
        weighting=weighting,
        covariance={row: {col: float(covariance[row][col]) for col in costs} for row in costs},
        df_resid=df_resid,
        sigma=_number(data, "sigma", where),
        rsquared=_number(data, "rsquared", where, optional=True),
        rsquared_kind=data.get("rsquared_kind"),
        condition_number=_number(data, "condition_number", where, optional=True),
        vif={name: float(value) for name, value in data.get("vif", {}).items()},
        n_runs=data.get("n_runs"),
        runs=runs,
        calibration_range=ranges,
        miss_shares={str(k): float(v) for k, v in (data.get("miss_shares") or {}).items()} or None,
        between_app=_between_app(data.get("between_app"), f"{where}: between_app"),
        selection=None if data.get("selection") is None else Selection.from_dict(data["selection"], where),
    )


def _cost_source(entry: Mapping[str, Any], default: str, where: str) -> str:
    """A cost's source as kept in a CostEstimate: "" when it is the profile's own."""
    source = entry.get("source", default)
    if source not in COST_SOURCES:
        raise FitError(f"'source' is {source!r}; expected one of {', '.join(COST_SOURCES)}", location=where)
    return "" if source == default else source


def _between_app(entry: Any, where: str) -> BetweenApp | None:
    if entry is None:
        return None
    if not isinstance(entry, Mapping):
        raise FitError("expected a mapping with sigma, df, app_bias and method", location=where)
    sigma = _number(entry, "sigma", where)
    df = entry.get("df")
    if not isinstance(df, int) or isinstance(df, bool) or df < 1 or sigma < 0:
        raise FitError(
            f"'df' is {df!r} and 'sigma' {sigma!r}; expected an integer >= 1 and sigma >= 0", location=where
        )
    bias = _get(entry, "app_bias", Mapping, where)
    return BetweenApp(
        sigma=sigma,
        df=df,
        app_bias={str(app): _number(bias, app, f"{where}: app_bias") for app in bias},
        method=str(entry.get("method", "leave-one-application-out")),
    )


def _run_summary(entry: Any, where: str) -> RunSummary:
    names = [item.name for item in fields(RunSummary)]
    if isinstance(entry, Mapping) and "digest" not in entry:  # written before programs had an identity
        entry = {**entry, "digest": ""}
    if not isinstance(entry, Mapping) or sorted(entry) != sorted(names):
        raise FitError(f"expected a mapping with keys {', '.join(names)}", location=where)
    try:
        return RunSummary(**entry)
    except TypeError as exc:
        raise FitError(str(exc), location=where) from None


def _check_cost_name(name: str, where: str) -> None:
    if name not in (*COSTS, INTERCEPT):
        raise FitError(f"{where}: unknown cost '{name}'; accepted: {', '.join((*COSTS, INTERCEPT))}")


def _get(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise FitError(f"'{key}' is missing or not a {'list' if kind is list else 'mapping'}", location=where)
    return value


def _number(data: Mapping[str, Any], key: str, where: str, optional: bool = False) -> float | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise FitError(f"'{key}' is {value!r}; expected a finite number", location=where)
    return float(value)
