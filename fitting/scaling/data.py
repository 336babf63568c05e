"""Runs for the scaling analysis: read a runs CSV or a results table into one canonical frame.

Reads the project's runs CSV (``# perfeq-runs 2`` or 1: app, params, procs, threads, rep, time_s) or a
plain table of published results (code, system, p, time) and maps its rows to (code, system, p,
time, n, line), every bad value an error at its line.  :mod:`perfeq.fitting.scaling.observations`
prepares the frame for :mod:`perfeq.fitting.scaling.analysis`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from perfeq.errors import UsageError

# perfeq-runs versions read (docs/runs-csv.md): they differ in the 'startup' count only, which scaling
# does not read (the id columns and the times are the same)
RUNS_VERSIONS = ("1", "2")
RUNS_COLUMNS = ("app", "params", "procs", "threads", "rep", "time_s")
TABLE_COLUMNS = ("code", "system", "p", "time")
CODE_KEYS = ("app", "app+params")
P_FROM = ("procs", "procs*threads")
DEFAULT_SYSTEM = "this"
_MAGIC = re.compile(r"#\s*perfeq-runs\s+(\S+)")


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
    if version is not None and version not in RUNS_VERSIONS:
        raise UsageError(f"{source}:1: perfeq-runs version {version}; this perfeq reads versions "
                         f"{' and '.join(RUNS_VERSIONS)}")
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
    """Map a runs table (perfeq-runs columns) to the canonical frame.

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
    require_columns(runs, ("app", "procs", "time_s"), source)
    line_numbers = _line_numbers(runs, lines)
    apps = runs["app"].astype(str).str.strip()
    params = [
        _parse_params(text, source, line)
        for text, line in zip(_column_or(runs, "params", ""), line_numbers, strict=True)
    ]
    p = _run_processors(runs, p_from, source, line_numbers)
    size = _run_sizes(params, size_param, source, line_numbers)
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


def _run_processors(runs: pd.DataFrame, p_from: str, source: str, lines: Sequence[int]) -> np.ndarray:
    """p of each run: ``procs``, times ``threads`` (when >= 1) with ``p_from="procs*threads"``."""
    procs = _numeric(runs, "procs", source, lines, minimum=1.0)
    if p_from == "procs*threads" and "threads" in runs.columns:
        threads = _numeric(runs, "threads", source, lines, minimum=0.0, allow_missing=True)
        return procs * np.where(np.isnan(threads) | (threads < 1), 1.0, threads)
    return procs


def _run_sizes(
    params: Sequence[Mapping[str, str]], size_param: str | None, source: str, lines: Sequence[int]
) -> np.ndarray:
    """The problem size n of each run from its params (NaN without ``size_param``)."""
    size = np.full(len(params), np.nan)
    if size_param is not None:
        for index, (values, line) in enumerate(zip(params, lines, strict=True)):
            if size_param not in values:
                raise UsageError(
                    f"{location(source, line)}: params has no '{size_param}' (--size-param); "
                    f"found: {', '.join(values) or 'none'}"
                )
            size[index] = _positive_number(values[size_param], f"param {size_param}", source, line)
    return size


def scaling_frame_from_table(
    table: pd.DataFrame,
    *,
    system_column: str = "system",
    size_column: str = "n",
    source: str = "<table>",
    lines: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Map a published-results table (code, system, p, time[, n, work, peak]) to the canonical frame."""
    require_columns(table, ("code", "p", "time"), source)
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
    require_columns(table, (key, value), source)
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


def require_columns(table: pd.DataFrame, columns: Sequence[str], source: str) -> None:
    """UsageError naming the columns ``table`` lacks."""
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
