"""Observations for the scaling analysis: read runs, map them to (code, system, p), transform the scale.

Reads the project's runs CSV (``# perfeq-runs 1``: app, params, procs, threads, rep, time_s) or a
plain table of published results (code, system, p, time), applies the paper's scale
transformations t' = t * p / W_c * r_peak (Strohmaier 1997, Eq. 11) and screens outliers.  The
result, :class:`ScalingObservations`, is what :mod:`perfeq.fitting.scaling.analysis` fits.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from perfeq.errors import FitError, UsageError

RUNS_COLUMNS = ("app", "params", "procs", "threads", "rep", "time_s")
TABLE_COLUMNS = ("code", "system", "p", "time")
CODE_KEYS = ("app", "app+params")
P_FROM = ("procs", "procs*threads")
AGGREGATES = ("none", "mean", "median", "min")
WEIGHTINGS = ("none", "relative")
DEFAULT_SYSTEM = "this"
OBSERVATION_COLUMNS = (
    "code", "system", "p", "n", "time", "work", "peak", "p_factor", "scale", "response", "weight", "line",
)  # fmt: skip
_MAGIC = re.compile(r"#\s*perfeq-runs\s+(\S+)")


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


# --------------------------------------------------------------------------------------------------
# Reading files


def read_scaling_csv(
    path: str | Path,
    *,
    code_key: str = "app+params",
    system_column: str | None = None,
    size_param: str | None = None,
    p_from: str = "procs*threads",
) -> pd.DataFrame:
    """Read a runs CSV or a published-results table into the canonical frame.

    The canonical frame has columns ``code, system, p, time, n, line`` and, when the file has them,
    ``work`` and ``peak``.  See :func:`scaling_frame_from_runs` for the mapping of runs.
    """
    table, lines, version = _read_csv_with_lines(Path(path))
    source = str(path)
    if version is not None and version != "1":
        raise UsageError(f"{source}:1: perfeq-runs version {version}; this perfeq reads version 1")
    columns = set(table.columns)
    if {"app", "procs", "time_s"} <= columns:
        return scaling_frame_from_runs(
            table,
            code_key=code_key,
            system_column=system_column,
            size_param=size_param,
            p_from=p_from,
            source=source,
            lines=lines,
        )
    if {"code", "p", "time"} <= columns:
        return scaling_frame_from_table(
            table,
            system_column=system_column or "system",
            size_column=size_param or "n",
            source=source,
            lines=lines,
        )
    raise UsageError(
        f"{source}: columns {', '.join(table.columns)} are neither a runs CSV "
        f"({', '.join(RUNS_COLUMNS)}) nor a results table ({', '.join(TABLE_COLUMNS)})"
    )


def scaling_frame_from_runs(
    runs: pd.DataFrame,
    *,
    code_key: str = "app+params",
    system_column: str | None = None,
    size_param: str | None = None,
    p_from: str = "procs*threads",
    source: str = "<runs>",
    lines: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Map a runs table (perfeq-runs 1 columns) to the canonical frame.

    code = ``app``, or ``app[params]`` with ``code_key="app+params"`` (the size parameter, when
    given, is left out of the code and becomes ``n``); system = ``system_column`` (default: the
    ``build`` column when it names builds, as ``host/build`` when there are several hosts; else
    ``host`` if present; else the single system ``"this"``); p = ``procs``, times ``threads`` when
    ``p_from="procs*threads"`` and threads > 1.
    """
    if code_key not in CODE_KEYS:
        raise UsageError(f"--code-key {code_key}: accepted values are {', '.join(CODE_KEYS)}")
    if p_from not in P_FROM:
        raise UsageError(f"--p-from {p_from}: accepted values are {', '.join(P_FROM)}")
    _require_columns(runs, ("app", "procs", "time_s"), source)
    line_numbers = _line_numbers(runs, lines)
    apps = runs["app"].astype(str).str.strip()
    params = [
        _parse_params(text, source, line)
        for text, line in zip(_column_or(runs, "params", ""), line_numbers, strict=True)
    ]
    procs = _numeric(runs, "procs", source, line_numbers, minimum=1.0)
    p = procs
    if p_from == "procs*threads" and "threads" in runs.columns:
        threads = _numeric(runs, "threads", source, line_numbers, minimum=0.0, allow_missing=True)
        p = procs * np.where(np.isnan(threads) | (threads < 1), 1.0, threads)
    size = np.full(len(runs), np.nan)
    if size_param is not None:
        for index, (values, line) in enumerate(zip(params, line_numbers, strict=True)):
            if size_param not in values:
                raise UsageError(
                    f"{location(source, line)}: params has no '{size_param}' (--size-param); "
                    f"found: {', '.join(values) or 'none'}"
                )
            size[index] = _positive_number(values[size_param], f"param {size_param}", source, line)
    if code_key == "app":
        codes = list(apps)
    else:
        codes = [
            _code_name(app, {k: v for k, v in values.items() if k != size_param})
            for app, values in zip(apps, params, strict=True)
        ]
    systems = _run_system_names(runs, system_column, source)
    frame = pd.DataFrame(
        {
            "code": codes,
            "system": systems,
            "p": p,
            "time": _numeric(runs, "time_s", source, line_numbers, minimum=None),
            "n": size,
            "line": line_numbers,
        }
    )
    frame = _with_optional_rates(frame, runs, source, line_numbers)
    if system_column is None and any(name.strip() for name in _column_or(runs, "build", "")):
        frame.attrs["systems_from"] = "build"  # said in the report: the systems are build configurations
    return frame


def scaling_frame_from_table(
    table: pd.DataFrame,
    *,
    system_column: str = "system",
    size_column: str = "n",
    source: str = "<table>",
    lines: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Map a published-results table (code, system, p, time[, n, work, peak]) to the canonical frame."""
    _require_columns(table, ("code", "p", "time"), source)
    line_numbers = _line_numbers(table, lines)
    size = (
        _numeric(table, size_column, source, line_numbers, minimum=None)
        if size_column in table.columns
        else np.full(len(table), np.nan)
    )
    if np.any(size <= 0):
        line = line_numbers[int(np.argmax(size <= 0))]
        raise UsageError(f"{location(source, line)}: column '{size_column}' must be positive")
    frame = pd.DataFrame(
        {
            "code": table["code"].astype(str).str.strip(),
            "system": _system_names(table, system_column, "system", source),
            "p": _numeric(table, "p", source, line_numbers, minimum=1.0),
            "time": _numeric(table, "time", source, line_numbers, minimum=None),
            "n": size,
            "line": line_numbers,
        }
    )
    return _with_optional_rates(frame, table, source, line_numbers)


def read_rate_table(path: str | Path, key: str, value: str) -> dict[str, float]:
    """Read a two-column CSV such as ``code,work`` or ``system,peak`` into a dict."""
    table, lines, _ = _read_csv_with_lines(Path(path))
    source = str(path)
    _require_columns(table, (key, value), source)
    numbers = _numeric(table, value, source, lines, minimum=None)
    rates: dict[str, float] = {}
    for name, number, line in zip(table[key].astype(str).str.strip(), numbers, lines, strict=True):
        if not number > 0:
            raise UsageError(
                f"{location(source, line)}: {value} of '{name}' must be positive, not {number:g}"
            )
        if name in rates:
            raise UsageError(f"{location(source, line)}: '{name}' is given twice")
        rates[name] = float(number)
    return rates


# --------------------------------------------------------------------------------------------------
# Preparing observations


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
    if weighting not in WEIGHTINGS:
        raise UsageError(f"--weighting {weighting}: accepted values are {', '.join(WEIGHTINGS)}")
    if aggregate not in AGGREGATES:
        raise UsageError(f"--aggregate {aggregate}: accepted values are {', '.join(AGGREGATES)}")
    if outlier_factor != 0 and not outlier_factor > 1:
        raise UsageError(
            f"--outlier-factor {outlier_factor:g}: give a factor above 1, or 0 to keep every point"
        )
    _require_columns(frame, ("code", "system", "p", "time"), source)
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
    data = _select(data, "code", codes, "--codes", source)
    data = _select(data, "system", systems, "--systems", source)
    if data.empty:
        raise FitError(f"{source}: no runs to fit")

    notes: list[str] = []
    data["work"] = _rates(data, "code", "work", work, source)
    data["peak"] = _rates(data, "system", "peak", peak, source)
    work_given = work is not None or ("work" in frame.columns)
    peak_given = peak is not None or ("peak" in frame.columns)
    if aggregate != "none":
        data = _aggregate(data, aggregate)
        notes.append(f"repetitions combined by their {aggregate}")
    data["p_factor"] = data["p"] if p_scaling else 1.0
    data["scale"] = data["p_factor"] * data["peak"] / data["work"]
    data["response"] = data["time"] * data["scale"]
    data["weight"] = 1.0 / data["response"] if weighting == "relative" else 1.0
    kept, removed = _screen_outliers(data, outlier_factor)
    if len(removed):
        notes.append(
            f"{len(removed)} outlier(s) removed (t' more than {outlier_factor:g}x off the pair median)"
        )
    return ScalingObservations(
        frame=kept[list(OBSERVATION_COLUMNS)].reset_index(drop=True),
        removed=removed[[*OBSERVATION_COLUMNS, "ratio"]].reset_index(drop=True),
        source=source,
        p_scaling=p_scaling,
        weighting=weighting,
        work_given=work_given,
        peak_given=peak_given,
        notes=tuple(notes),
    )


def location(source: str, line: int | float | None) -> str:
    """``source:line`` when the line is known, else ``source``."""
    return f"{source}:{int(line)}" if line is not None and line == line and int(line) > 0 else source


# --------------------------------------------------------------------------------------------------
# Helpers


def _read_csv_with_lines(path: Path) -> tuple[pd.DataFrame, list[int], str | None]:
    """Read a CSV, skipping ``#`` comment lines and blank lines, keeping the file line of each row."""
    text = path.read_text(encoding="utf-8")
    kept: list[str] = []
    numbers: list[int] = []
    version = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            match = _MAGIC.match(stripped)
            if match and version is None and not kept:
                version = match.group(1)
            continue
        if stripped:
            kept.append(line)
            numbers.append(number)
    if not kept:
        raise UsageError(
            f"{path}: no header line; expected a CSV with columns such as {', '.join(TABLE_COLUMNS)}"
        )
    try:
        table = pd.read_csv(
            io.StringIO("\n".join(kept)), dtype=str, keep_default_na=False, skipinitialspace=True
        )
    except pd.errors.ParserError as exc:
        message = str(exc).strip().splitlines()[0]
        match = re.search(r"line (\d+)", message)
        if match and int(match.group(1)) <= len(numbers):
            line = numbers[int(match.group(1)) - 1]
            raise UsageError(f"{path}:{line}: {message.replace(match.group(0), 'this line')}") from None
        raise UsageError(f"{path}: {message}") from None
    table.columns = [str(column).strip() for column in table.columns]
    rows = numbers[1:] if len(table) == len(numbers) - 1 else [-1] * len(table)
    return table, rows, version


def _line_numbers(table: pd.DataFrame, lines: Sequence[int] | None) -> list[int]:
    if lines is not None and len(lines) == len(table):
        return [int(line) for line in lines]
    if "line" in table.columns:
        return [int(line) for line in pd.to_numeric(table["line"], errors="coerce").fillna(-1)]
    return [-1] * len(table)


def _require_columns(table: pd.DataFrame, columns: Sequence[str], source: str) -> None:
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise UsageError(
            f"{source}: missing column(s) {', '.join(missing)}; found {', '.join(map(str, table.columns))}"
        )


def _column_or(table: pd.DataFrame, column: str, default: str) -> list[str]:
    if column not in table.columns:
        return [default] * len(table)
    return ["" if value is None or value != value else str(value) for value in table[column]]


def _numeric(
    table: pd.DataFrame,
    column: str,
    source: str,
    lines: Sequence[int],
    *,
    minimum: float | None,
    allow_missing: bool = False,
) -> np.ndarray:
    """A column as floats; the first bad value raises UsageError at its line."""
    raw = table[column]
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    for value, text, line in zip(values, raw, lines, strict=True):
        blank = text is None or text != text or str(text).strip() == ""  # text != text: NaN
        if allow_missing and blank:
            continue
        if not np.isfinite(value):
            raise UsageError(f"{location(source, line)}: column '{column}' is '{text}', not a finite number")
        if minimum is not None and value < minimum:
            raise UsageError(
                f"{location(source, line)}: column '{column}' is {value:g}; it must be at least {minimum:g}"
            )
    return values


def _positive_number(text: str, what: str, source: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (np.isfinite(value) and value > 0):
        raise UsageError(f"{location(source, line)}: {what} is '{text}'; it must be a positive number")
    return value


def _parse_params(text: str, source: str, line: int) -> dict[str, str]:
    """``n=512;steps=10`` -> {"n": "512", "steps": "10"}."""
    values: dict[str, str] = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            raise UsageError(f"{location(source, line)}: params item '{item.strip()}' is not name=value")
        values[name.strip()] = value.strip()
    return values


def _code_name(app: str, params: Mapping[str, str]) -> str:
    if not params:
        return app
    return f"{app}[{';'.join(f'{k}={v}' for k, v in params.items())}]"


def _run_system_names(runs: pd.DataFrame, column: str | None, source: str) -> list[str]:
    """Systems of runs: ``column`` if given; else the build configuration (``perfeq calibrate
    --build``), prefixed by the host when the runs come from more than one host; else the host."""
    builds = _column_or(runs, "build", "")
    if column is not None or not any(name.strip() for name in builds):
        return _system_names(runs, column, "host", source)
    hosts = [name.strip() for name in _column_or(runs, "host", "")]
    several = len({name for name in hosts if name}) > 1
    names = []
    for build, host in zip((name.strip() for name in builds), hosts, strict=True):
        if several:
            names.append(f"{host or DEFAULT_SYSTEM}/{build}" if build else host or DEFAULT_SYSTEM)
        else:
            names.append(build or host or DEFAULT_SYSTEM)
    return names


def _system_names(table: pd.DataFrame, column: str | None, default_column: str, source: str) -> list[str]:
    if column is None:
        column = default_column if default_column in table.columns else None
    elif column not in table.columns:
        raise UsageError(
            f"{source}: --system-column {column}: no such column; found {', '.join(table.columns)}"
        )
    if column is None:
        return [DEFAULT_SYSTEM] * len(table)
    return [
        DEFAULT_SYSTEM if value != value else str(value).strip() or DEFAULT_SYSTEM for value in table[column]
    ]


def _with_optional_rates(
    frame: pd.DataFrame, table: pd.DataFrame, source: str, lines: Sequence[int]
) -> pd.DataFrame:
    """Copy ``work`` and ``peak`` columns from the input when it has them (must be positive)."""
    for column in ("work", "peak"):
        if column in table.columns:
            values = _numeric(table, column, source, lines, minimum=None)
            if np.any(values <= 0):
                line = lines[int(np.argmax(values <= 0))]
                raise UsageError(f"{location(source, line)}: column '{column}' must be positive")
            frame[column] = values
    return frame


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
