"""Observations for the scaling analysis: select, aggregate, transform the scale and screen outliers.

Takes the canonical frame of :mod:`perfeq.fitting.scaling.data`, applies the paper's scale
transformations t' = t * p / W_c * r_peak (Strohmaier 1997, Eq. 11) and screens outliers.  The
result, :class:`ScalingObservations`, is what :mod:`perfeq.fitting.scaling.analysis` fits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from perfeq.errors import FitError, UsageError
from perfeq.fitting.scaling.data import location, require_columns

AGGREGATES = ("none", "mean", "median", "min")
WEIGHTINGS = ("none", "relative")
OBSERVATION_COLUMNS = (
    "code", "system", "p", "n", "time", "work", "peak", "p_factor", "scale", "response", "weight", "line",
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class ScalingObservations:
    """The runs to fit, on the transformed scale, with the points screened out.

    ``frame`` has one row per observation: ``code``, ``system``, ``p``, ``n`` (problem size or
    NaN), ``time`` (seconds), ``work`` and ``peak`` (1.0 when not given), ``p_factor`` (p, or 1
    without p scaling), ``scale`` = p_factor * peak / work, ``response`` = time * scale (the value
    that is fitted), ``weight`` (1, or 1/response for relative weighting: each row of the least
    squares problem is multiplied by it) and ``line`` (line in the input file, or -1).
    ``removed`` has the same columns plus ``ratio``, the screening statistic of each removed point.
    """

    frame: pd.DataFrame
    removed: pd.DataFrame
    source: str
    p_scaling: bool
    weighting: str
    work_given: bool
    peak_given: bool
    notes: tuple[str, ...] = ()

    @property
    def codes(self) -> list[str]:
        return sorted(self.frame["code"].unique())

    @property
    def systems(self) -> list[str]:
        return sorted(self.frame["system"].unique())

    @property
    def has_size(self) -> bool:
        return bool(self.frame["n"].notna().any())


def prepare_observations(
    frame: pd.DataFrame,
    *,
    work: Mapping[str, float] | None = None,
    peak: Mapping[str, float] | None = None,
    codes: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
    p_scaling: bool = True,
    outlier_factor: float = 10.0,
    aggregate: str = "none",
    weighting: str = "none",
    source: str = "<data>",
) -> ScalingObservations:
    """Select, aggregate, transform (Eq. 11) and screen the canonical frame.

    Parameters
    ----------
    frame
        Columns ``code, system, p, time`` and optionally ``n, work, peak, line``.
    work, peak
        Operation count W_c per code and peak rate per system; they override ``work``/``peak``
        columns.  Missing ones mean no such transformation.
    p_scaling
        Multiply times by p (the paper's first transformation).
    outlier_factor
        Remove points whose t' = t p r / W is more than this factor above or below the median t'
        of their (code, system) pair (pairs of three or more points; 0 disables).
    aggregate
        ``none`` keeps every repetition; ``mean``/``median``/``min`` combine repetitions of the same
        (code, system, p, n).
    weighting
        ``none`` (the paper: least squares on t') or ``relative`` (least squares on relative
        errors, for data whose noise grows with the time, such as several problem sizes).
    """
    _check_options(weighting, aggregate, outlier_factor)
    data = _checked_copy(frame, source)
    data = _select(_select(data, "code", codes, "--codes", source), "system", systems, "--systems", source)
    if data.empty:
        raise FitError(f"{source}: no runs to fit")
    notes: list[str] = []
    data["work"] = _rates(data, "code", "work", work, source)
    data["peak"] = _rates(data, "system", "peak", peak, source)
    if aggregate != "none":
        data = _aggregate(data, aggregate)
        notes.append(f"repetitions combined by their {aggregate}")
    _transform(data, p_scaling, weighting)
    kept, removed = _screen_outliers(data, outlier_factor)
    if len(removed):
        notes.append(
            f"{len(removed)} outlier(s) removed (t' more than {outlier_factor:g}x off the pair median)"
        )
    return ScalingObservations(
        frame=kept[list(OBSERVATION_COLUMNS)].reset_index(drop=True),
        removed=removed[[*OBSERVATION_COLUMNS, "ratio"]].reset_index(drop=True),
        source=source, p_scaling=p_scaling, weighting=weighting,
        work_given=work is not None or ("work" in frame.columns),
        peak_given=peak is not None or ("peak" in frame.columns),
        notes=tuple(notes),
    )


def _check_options(weighting: str, aggregate: str, outlier_factor: float) -> None:
    if weighting not in WEIGHTINGS:
        raise UsageError(f"--weighting {weighting}: accepted values are {', '.join(WEIGHTINGS)}")
    if aggregate not in AGGREGATES:
        raise UsageError(f"--aggregate {aggregate}: accepted values are {', '.join(AGGREGATES)}")
    if outlier_factor != 0 and not outlier_factor > 1:
        raise UsageError(
            f"--outlier-factor {outlier_factor:g}: give a factor above 1, or 0 to keep every point"
        )


def _checked_copy(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    """A copy of the canonical frame with text codes and systems, numeric p, time and n, and lines."""
    require_columns(frame, ("code", "system", "p", "time"), source)
    data = frame.copy()
    data["code"] = data["code"].astype(str)
    data["system"] = data["system"].astype(str)
    if "n" not in data.columns:
        data["n"] = np.nan
    if "line" not in data.columns:
        data["line"] = -1
    for column in ("p", "time", "n"):
        data[column] = pd.to_numeric(data[column], errors="coerce").astype(float)
    _check_values(data, source)
    return data


def _transform(data: pd.DataFrame, p_scaling: bool, weighting: str) -> None:
    """Add Eq. 11's columns in place: p_factor, scale = p_factor * peak / work, response, weight."""
    data["p_factor"] = data["p"] if p_scaling else 1.0
    data["scale"] = data["p_factor"] * data["peak"] / data["work"]
    data["response"] = data["time"] * data["scale"]
    data["weight"] = 1.0 / data["response"] if weighting == "relative" else 1.0


def _check_values(data: pd.DataFrame, source: str) -> None:
    checks = (
        ("p", data["p"].notna() & np.isfinite(data["p"]) & (data["p"] >= 1), "it must be a number >= 1"),
        (
            "time",
            data["time"].notna() & np.isfinite(data["time"]) & (data["time"] > 0),
            "it must be positive",
        ),
        ("n", data["n"].isna() | (data["n"] > 0), "it must be positive"),
    )
    for column, good, message in checks:
        if not good.all():
            row = data.loc[~good].iloc[0]
            raise UsageError(f"{location(source, row['line'])}: {column} is {row[column]:g}; {message}")


def _select(
    data: pd.DataFrame, column: str, names: Sequence[str] | None, option: str, source: str
) -> pd.DataFrame:
    if not names:
        return data
    available = sorted(data[column].unique())
    unknown = [name for name in names if name not in available]
    if unknown:
        raise UsageError(f"{option}: {', '.join(unknown)} not in {source}; available: {', '.join(available)}")
    return data[data[column].isin(names)]


def _rates(
    data: pd.DataFrame, key: str, column: str, given: Mapping[str, float] | None, source: str
) -> np.ndarray:
    """W_c per code or r_peak per system: from ``given``, else from the column, else 1."""
    if given is None:
        if column in data.columns:
            values = pd.to_numeric(data[column], errors="coerce").to_numpy(dtype=float)
            bad = ~(np.isfinite(values) & (values > 0))
            if bad.any():
                line = data["line"].to_numpy()[np.argmax(bad)]
                raise UsageError(f"{location(source, line)}: column '{column}' must be a positive number")
            spread = data.assign(_v=values).groupby(key)["_v"].nunique()
            if (spread > 1).any():
                name = spread[spread > 1].index[0]
                raise UsageError(f"{source}: column '{column}' differs between rows of {key} '{name}'")
            return values
        return np.ones(len(data))
    missing = sorted(set(data[key]) - set(given))
    if missing:
        option = "--work" if column == "work" else "--peak"
        raise UsageError(
            f"{option}: no {column} for {key}(s) {', '.join(missing)}; add a line '{missing[0]},<{column}>'"
        )
    return data[key].map(given).to_numpy(dtype=float)


def _aggregate(data: pd.DataFrame, how: str) -> pd.DataFrame:
    keys = ["code", "system", "p", "n"]
    grouped = data.groupby(keys, dropna=False, sort=True)
    combined = grouped.agg(
        time=("time", how), work=("work", "first"), peak=("peak", "first"), line=("line", "min")
    )
    return combined.reset_index()


def _screen_outliers(data: pd.DataFrame, factor: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split off points whose t' (time * p * peak / work) is far from their pair's median t'."""
    t_prime = data["time"] * data["p"] * data["peak"] / data["work"]
    groups = data.groupby(["code", "system"], sort=False)["time"]
    median = t_prime.groupby([data["code"], data["system"]]).transform("median")
    ratio = t_prime / median
    size = groups.transform("size")
    if factor == 0:
        outlier = pd.Series(False, index=data.index)
    else:
        outlier = (size >= 3) & ((ratio > factor) | (ratio < 1.0 / factor))
    removed = data.loc[outlier].assign(ratio=ratio[outlier])
    return data.loc[~outlier], removed
