"""Readers for the inputs of machine ranking: benchmark tables, application run times, machine profiles.

Side branch of stage 4 (fitting): turns the files documented in ``docs/ranking.md`` into plain frozen
data (:class:`BenchmarkTable`, :class:`RuntimeTable`) that the other ranking modules compute on.
Every problem with a file is a :class:`~perfeq.errors.RankError` naming the file and line.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfeq.errors import RankError
from perfeq.files import read_json

BENCHMARKS_FORMAT = "perfeq-benchmarks"
RUNTIMES_FORMAT = "perfeq-runtimes"
PROFILE_FORMAT = "perfeq-machine"
FORMAT_VERSION = 1
PROFILE_VERSIONS = (1, 2)  # 2 adds costs.NAME.source, which ranking does not use

# What a benchmark column measures: a rate (bigger is faster: FLOPS, bandwidths) or a time (smaller is
# faster: latencies, seconds per operation).  Rates are inverted before any fitting (the paper's §5).
KINDS = ("rate", "time")

RUNTIME_FIELDS = ("application", "processors", "machine", "seconds")
MISSING = {"", "na", "nan", "-"}


@dataclass(frozen=True, eq=False)
class BenchmarkTable:
    """Benchmark measurements: one row per machine, one column per benchmark, each a rate or a time."""

    source: str
    machines: tuple[str, ...]
    columns: tuple[str, ...]
    kinds: tuple[str, ...]
    values: np.ndarray  # machines x columns, as measured (rates not yet inverted)

    def times(self) -> np.ndarray:
        """The table in time form: rates inverted, times as they are, so that smaller is faster everywhere."""
        rate = np.array([kind == "rate" for kind in self.kinds])
        return np.where(rate, 1.0 / self.values, self.values)

    def column_index(self, name: str) -> int:
        """Index of benchmark ``name``; a RankError listing the known columns if there is none."""
        if name not in self.columns:
            raise RankError(f"no benchmark column {name!r}; the columns are {', '.join(self.columns)}",
                            location=self.source)
        return self.columns.index(name)

    def select(self, names: Sequence[str]) -> BenchmarkTable:
        """The same machines with only the benchmark columns ``names``, in that order."""
        if not names:
            raise RankError("no benchmark columns selected", location=self.source)
        index = [self.column_index(name) for name in names]
        if len(set(index)) != len(index):
            raise RankError(f"a benchmark column is selected twice: {', '.join(names)}", location=self.source)
        return BenchmarkTable(self.source, self.machines, tuple(self.columns[i] for i in index),
                              tuple(self.kinds[i] for i in index), self.values[:, index])


@dataclass(frozen=True, eq=False)
class RuntimeCase:
    """Measured run times of one application on one processor count, on the machines it was run on."""

    application: str
    processors: int
    machines: tuple[str, ...]
    seconds: np.ndarray
    lines: tuple[int, ...]  # line of each machine's entry in the run-times file

    @property
    def label(self) -> str:
        return f"{self.application}/{self.processors}"


@dataclass(frozen=True, eq=False)
class RuntimeTable:
    """All run times of a run-times file, grouped into cases (application, processor count)."""

    source: str
    cases: tuple[RuntimeCase, ...]

    def check_machines(self, machines: Sequence[str], table_source: str) -> None:
        """Raise a RankError at the first run time whose machine is not among ``machines``."""
        known = set(machines)
        for case in self.cases:
            for machine, line in zip(case.machines, case.lines, strict=True):
                if machine not in known:
                    raise RankError(f"machine {machine!r} has no row in {table_source}; the machines there are "
                                    f"{', '.join(machines)}", location=f"{self.source}:{line}")

    def select(self, patterns: Sequence[str]) -> RuntimeTable:
        """Only the cases named by ``patterns``: ``APP`` (every processor count) or ``APP/PROCS``."""
        if not patterns:
            return self
        chosen = [case for case in self.cases
                  if any(pattern in (case.application, case.label) for pattern in patterns)]
        for pattern in patterns:
            if not any(pattern in (case.application, case.label) for case in self.cases):
                labels = ", ".join(case.label for case in self.cases)
                raise RankError(f"no case {pattern!r}; the cases are {labels}", location=self.source)
        return RuntimeTable(self.source, tuple(chosen))


def _data_rows(path: Path, format_name: str) -> Iterator[tuple[int, list[str]]]:
    """The CSV rows after the format line, as (line number, stripped fields); blank and # lines skipped."""
    with open(path, newline="", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    expected = f"# {format_name} {FORMAT_VERSION}"
    first = next(((number, text) for number, text in enumerate(lines, 1) if text.strip()), None)
    if first is None:
        raise RankError(f"empty file; expected the format line {expected!r}", location=str(path))
    number, text = first
    match = re.fullmatch(r"#\s*(\S+)\s+(\S+)\s*", text.strip())
    if not match or match.group(1) != format_name:
        raise RankError(f"expected the format line {expected!r} first, found {text.strip()[:60]!r}; "
                        "see docs/ranking.md", location=f"{path}:{number}")
    if match.group(2) != str(FORMAT_VERSION):
        raise RankError(f"{format_name} version {match.group(2)} is not supported; this perfeq reads "
                        f"version {FORMAT_VERSION}", location=f"{path}:{number}")
    reader = csv.reader(lines[number:], skipinitialspace=True)
    for fields in reader:
        fields = [field.strip() for field in fields]
        if not any(fields) or fields[0].startswith("#"):
            continue
        yield number + reader.line_num, fields


def _positive(text: str, where: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise RankError(f"{what} {text!r} is not a number", location=where) from None
    if not math.isfinite(value) or value <= 0:
        raise RankError(f"{what} {text!r} must be a positive finite number", location=where)
    return value


def read_benchmarks(path: str | Path) -> BenchmarkTable:
    """Read a ``perfeq-benchmarks`` version 1 CSV file (format in docs/ranking.md).

    Parameters
    ----------
    path
        The file: format line, header (``machine`` then benchmark names), ``kind`` row (``rate`` or
        ``time`` per benchmark), then one row per machine with every benchmark measured.

    Returns
    -------
    BenchmarkTable
    """
    path = Path(path)
    rows = _data_rows(path, BENCHMARKS_FORMAT)
    columns = _benchmark_columns(path, rows)
    kinds = _benchmark_kinds(path, rows, columns)
    machines, values = _machine_rows(path, rows, columns)
    matrix = np.array(values, dtype=float)
    matrix.setflags(write=False)
    return BenchmarkTable(str(path), tuple(machines), columns, kinds, matrix)


def _benchmark_columns(path: Path, rows: Iterator[tuple[int, list[str]]]) -> tuple[str, ...]:
    """The benchmark names of the header row (``machine`` first)."""
    header = next(rows, None)
    if header is None:
        raise RankError("no header row after the format line", location=str(path))
    header_line, names = header
    if len(names) < 2 or names[0].lower() != "machine":
        raise RankError("the header must be 'machine' followed by the benchmark names",
                        location=f"{path}:{header_line}")
    columns = tuple(names[1:])
    for index, name in enumerate(columns):
        if not name:
            raise RankError(f"benchmark column {index + 2} has no name", location=f"{path}:{header_line}")
        if name in columns[:index]:
            raise RankError(f"benchmark column {name!r} appears twice", location=f"{path}:{header_line}")
    return columns


def _benchmark_kinds(path: Path, rows: Iterator[tuple[int, list[str]]], columns: tuple[str, ...]) -> tuple[str, ...]:
    """The ``kind`` row after the header: ``rate`` or ``time`` for each benchmark."""
    kind_row = next(rows, None)
    if kind_row is None or kind_row[1][0].lower() != "kind":
        where = f"{path}:{kind_row[0]}" if kind_row else str(path)
        raise RankError("expected the kind row after the header: 'kind' then 'rate' or 'time' for each "
                        "benchmark", location=where)
    kind_line, kind_fields = kind_row
    if len(kind_fields) != len(columns) + 1:
        raise RankError(f"the kind row has {len(kind_fields)} fields, the header {len(columns) + 1}",
                        location=f"{path}:{kind_line}")
    kinds = tuple(kind.lower() for kind in kind_fields[1:])
    for name, kind in zip(columns, kinds, strict=True):
        if kind not in KINDS:
            raise RankError(f"kind of {name!r} is {kind!r}; use 'rate' (bigger is faster, inverted before "
                            "fitting) or 'time' (smaller is faster)", location=f"{path}:{kind_line}")
    return kinds


def _machine_rows(path: Path, rows: Iterator[tuple[int, list[str]]],
                  columns: tuple[str, ...]) -> tuple[list[str], list[list[float]]]:
    """The machines and their benchmark values, one row each, every benchmark measured."""
    machines: list[str] = []
    values: list[list[float]] = []
    first_line: dict[str, int] = {}
    for line, fields in rows:
        where = f"{path}:{line}"
        if len(fields) != len(columns) + 1:
            raise RankError(f"{len(fields)} fields, the header has {len(columns) + 1}", location=where)
        machine = fields[0]
        if machine in first_line:
            raise RankError(f"machine {machine!r} already has a row at line {first_line[machine]}",
                            location=where)
        first_line[machine] = line
        row = []
        for name, text in zip(columns, fields[1:], strict=True):
            if text.lower() in MISSING:
                raise RankError(f"{machine}: benchmark {name!r} is missing; every benchmark must be measured "
                                "on every machine (drop the column or the machine)", location=where)
            row.append(_positive(text, where, f"{machine}: {name}"))
        machines.append(machine)
        values.append(row)
    if not machines:
        raise RankError("no machine rows", location=str(path))
    return machines, values


def read_runtimes(path: str | Path) -> RuntimeTable:
    """Read a ``perfeq-runtimes`` version 1 CSV file: one row per (application, processors, machine).

    Missing entries are allowed (no row, or an empty ``seconds``); columns beyond the four named ones are
    ignored.  Cases keep the order of their first row.
    """
    path = Path(path)
    rows = _data_rows(path, RUNTIMES_FORMAT)
    header = next(rows, None)
    if header is None:
        raise RankError("no header row after the format line", location=str(path))
    header_line, names = header
    lowered = [name.lower() for name in names]
    missing = [field for field in RUNTIME_FIELDS if field not in lowered]
    if missing:
        raise RankError(f"the header lacks {', '.join(missing)}; it needs {', '.join(RUNTIME_FIELDS)}",
                        location=f"{path}:{header_line}")
    index = {field: lowered.index(field) for field in RUNTIME_FIELDS}
    entries: dict[tuple[str, int], dict[str, tuple[float, int]]] = {}
    for line, fields in rows:
        where = f"{path}:{line}"
        if len(fields) != len(names):
            raise RankError(f"{len(fields)} fields, the header has {len(names)}", location=where)
        application, machine = fields[index["application"]], fields[index["machine"]]
        if not application or not machine:
            raise RankError("empty application or machine", location=where)
        try:
            processors = int(fields[index["processors"]])
        except ValueError:
            raise RankError(f"processors {fields[index['processors']]!r} is not an integer",
                            location=where) from None
        if processors < 1:
            raise RankError(f"processors {processors} must be at least 1", location=where)
        text = fields[index["seconds"]]
        if text.lower() in MISSING:
            continue
        seconds = _positive(text, where, "seconds")
        case = entries.setdefault((application, processors), {})
        if machine in case:
            raise RankError(f"{application} on {processors} processors on {machine} already has a run time "
                            f"at line {case[machine][1]}; give one value per machine (e.g. the mean)",
                            location=where)
        case[machine] = (seconds, line)
    if not entries:
        raise RankError("no run times", location=str(path))
    cases = tuple(
        RuntimeCase(application, processors, tuple(machines),
                    np.array([seconds for seconds, _ in machines.values()]),
                    tuple(line for _, line in machines.values()))
        for (application, processors), machines in entries.items())
    return RuntimeTable(str(path), cases)


def profile_costs(name: str, profile: Any) -> dict[str, float]:
    """The ``costs[cost]["value"]`` of a ``perfeq-machine`` version 1 or 2 profile, checked.

    Only ``format``, ``version`` and ``costs[name]["value"]`` are relied on; anything else in the profile
    is ignored, so the reader keeps working while the profile format grows.
    """
    if not isinstance(profile, Mapping):
        raise RankError("a machine profile must be a JSON object", location=name)
    if profile.get("format") != PROFILE_FORMAT:
        raise RankError(f"format is {profile.get('format')!r}, expected {PROFILE_FORMAT!r}", location=name)
    if profile.get("version") not in PROFILE_VERSIONS:
        raise RankError(f"{PROFILE_FORMAT} version {profile.get('version')!r} is not supported; this "
                        f"perfeq reads versions {' and '.join(map(str, PROFILE_VERSIONS))}", location=name)
    costs = profile.get("costs")
    if not isinstance(costs, Mapping) or not costs:
        raise RankError("'costs' must be a non-empty object of cost name -> {\"value\": seconds per unit}",
                        location=name)
    values = {}
    for cost, entry in costs.items():
        value = entry.get("value") if isinstance(entry, Mapping) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise RankError(f"costs[{cost!r}] has no finite numeric 'value'", location=name)
        values[str(cost)] = float(value)
    return values


def read_profile(path: str | Path) -> dict[str, Any]:
    """Load one machine profile JSON file and check it with :func:`profile_costs`."""
    path = Path(path)
    profile = read_json(path, error=RankError)
    profile_costs(str(path), profile)
    return profile


def read_profiles(paths: Sequence[str | Path]) -> dict[str, dict[str, Any]]:
    """Load machine profiles, named by file stem (the name run-times files must use for them)."""
    profiles: dict[str, dict[str, Any]] = {}
    origin: dict[str, str] = {}
    for path in map(Path, paths):
        if path.stem in profiles:
            raise RankError(f"two profiles are named {path.stem!r} ({origin[path.stem]} and {path}); machines "
                            "are named by file stem", location=str(path))
        profiles[path.stem] = read_profile(path)
        origin[path.stem] = str(path)
    return profiles


def read_counts(path: str | Path) -> dict[str, float]:
    """Read predicted counts of an application: ``{"ops": 1.2e9, ...}`` or ``{"counts": {...}}``."""
    path = Path(path)
    data = read_json(path, error=RankError)
    if isinstance(data, Mapping) and isinstance(data.get("counts"), Mapping):
        data = data["counts"]
    if not isinstance(data, Mapping) or not data:
        raise RankError("counts must be a non-empty JSON object of cost name -> count", location=str(path))
    counts = {}
    for cost, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value < 0:
            raise RankError(f"count of {cost!r} is {value!r}; counts are non-negative numbers",
                            location=str(path))
        counts[str(cost)] = float(value)
    return counts


def benchmark_table_from_profiles(profiles: Mapping[str, Any], source: str = "profiles") -> BenchmarkTable:
    """A benchmark table whose columns are the costs every profile has (seconds per unit, kind ``time``)."""
    if not profiles:
        raise RankError("no machine profiles given", location=source)
    costs = {name: profile_costs(name, profile) for name, profile in profiles.items()}
    common = [cost for cost in next(iter(costs.values())) if all(cost in c for c in costs.values())]
    if not common:
        raise RankError("the profiles have no cost in common", location=source)
    values = np.array([[c[cost] for cost in common] for c in costs.values()])
    for name, row in zip(costs, values, strict=True):
        for cost, value in zip(common, row, strict=True):
            if value <= 0:
                raise RankError(f"costs[{cost!r}] value {value!r} must be positive to serve as a benchmark",
                                location=name)
    values.setflags(write=False)
    return BenchmarkTable(source, tuple(costs), tuple(common), ("time",) * len(common), values)
