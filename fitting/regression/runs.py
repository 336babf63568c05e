"""The runs CSV (format ``perfeq-runs`` version 2): one measured run per row, with its counts.

Version 2: ``startup`` is the messages on the critical path of the slowest rank (the count the
start-up cost prices).  perfeq's version 1 files stored the messages that rank sent there; they are
read only when that column is absent or its runs with start-ups are on one process (where the two
agree), see :data:`VERSION`.

The optional ``build`` column names the build configuration a run's binary was compiled with
(``perfeq calibrate --build O3=-O3``); it is written only when some run has one, so files of a
campaign without builds look exactly as before.

Input of the fitting stage: ``fit_machine`` regresses ``time_s`` on the count columns.  The reader
validates every field and names the line of the first bad one; see docs/runs-csv.md.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from perfeq.errors import FitError
from perfeq.files import write_atomic
from perfeq.fitting.costs import COSTS, INTERCEPT, canonical_order

FORMAT = "perfeq-runs"
VERSION = 2  # 2: "startup" is messages on the critical path (1: messages the slowest rank sent)
MAGIC = f"# {FORMAT} {VERSION}"
ID_COLUMNS = ("app", "params", "procs", "threads", "rep", "time_s")
TAIL_COLUMNS = ("host", "build", "timestamp", "digest")
OPTIONAL_TAIL = ("build", "digest")  # written only when some run has a value
DROPPABLE = ("digest",)  # a file without the column takes new runs without it
REQUIRED_COLUMNS = ("app", "params", "procs", "time_s")
_DEFAULTS = {"threads": "1", "rep": "0", "host": "", "build": "", "timestamp": "", "digest": ""}
_DIGEST_RE = re.compile(r"[0-9a-f]{64}$")
_MAGIC_RE = re.compile(r"#\s*perfeq-runs\s+(\S+)\s*$")
_PARAM_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
READABLE = ("1", str(VERSION))
OLD_STARTUP = ("perfeq-runs 1: its 'startup' column counts the messages a rank sends, not the messages on the "
               "critical path that the start-up cost prices (perfeq-runs 2); measure the campaign again with "
               "perfeq calibrate, recount it (benchmarks/recount_runs.py), or delete the column")


@dataclass(frozen=True)
class Run:
    """One measured run: what ran, how long it took, and its counts (one per cost column)."""

    app: str
    params: str  # "n=512;steps=10": the problem parameters, as written
    procs: int
    time_s: float
    counts: Mapping[str, float]
    threads: int = 1
    rep: int = 0
    host: str = ""
    timestamp: str = ""  # ISO 8601, or ""
    build: str = ""  # build configuration, e.g. "O3" (perfeq calibrate --build), or ""
    digest: str = ""  # the program's identity (perfeq.symbolic.model.program_digest), or ""
    where: str = field(default="", compare=False)  # "runs.csv:17" when read from a file

    @property
    def label(self) -> str:
        """A short name for tables and messages, e.g. ``jacobi[n=512] P=4 rep 0``."""
        build = f" build {self.build}" if self.build else ""
        return f"{self.app}[{self.params}] P={self.procs}{build} rep {self.rep}"


def parse_params(text: str) -> dict[str, str]:
    """Split ``"n=512;steps=10"`` into ``{"n": "512", "steps": "10"}``; ValueError when malformed."""
    params: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(";"))):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not _PARAM_NAME_RE.match(name) or not value:
            raise ValueError(f"'{item}' is not name=value")
        if name in params:
            raise ValueError(f"parameter '{name}' given twice")
        params[name] = value
    return params


def read_runs(path: str | os.PathLike[str], *, recount: bool = False) -> tuple[Run, ...]:
    """Read and validate a runs CSV.

    Parameters
    ----------
    path : path-like
        The runs CSV.  Its first line should be ``# perfeq-runs 2``; a file without it (e.g. exported
        from a spreadsheet, or written by hand) is read as version 2.  Other lines starting with ``#``
        and blank lines are ignored.  A version 1 file with start-ups in a run on more than one process
        is refused (its start-ups are messages sent, not the critical path's; on one process they agree).
    recount : bool
        Read such a version 1 file anyway, for its counts to be replaced (benchmarks/recount_runs.py).

    Returns
    -------
    tuple of Run
        In file order; every run has the same count keys (the file's count columns).

    Raises
    ------
    FitError
        ``runs.csv:17: ...`` for the first malformed line: unknown or missing column, a field that
        is not a number or out of range, another format version, no runs at all.
    """
    name = str(path)
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except UnicodeDecodeError as exc:
        raise FitError(f"not a runs CSV: byte {exc.start} is not text (UTF-8)", location=name) from None
    _check_not_json(text, name)
    lines = text.splitlines()
    header: list[str] | None = None
    header_line = 0
    version = VERSION
    runs: list[Run] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if line.startswith("#"):
            if lineno == 1:
                version = _check_magic(line, f"{name}:1")
            continue
        fields = next(csv.reader([line]))
        if header is None:
            header, header_line = _check_header(fields, f"{name}:{lineno}"), lineno
            continue
        runs.append(_parse_row(header, fields, f"{name}:{lineno}"))
    if header is None:
        raise FitError(f"no header row; expected {','.join(_columns(COSTS))}", location=name)
    if not runs:
        raise FitError(
            "no runs after the header row; add one row per measured run", location=f"{name}:{header_line}"
        )
    if version == 1 and not recount and any(run.counts.get("startup", 0.0) > 0 and run.procs > 1 for run in runs):
        raise FitError(OLD_STARTUP, location=f"{name}:1")
    return tuple(runs)


def write_runs(path: str | os.PathLike[str], runs: Iterable[Run]) -> None:
    """Write ``runs`` as a whole new runs CSV (temp file + rename: never half-written)."""
    runs = tuple(runs)
    costs = _count_columns(runs)
    columns = _columns(costs, _optional(runs))
    write_atomic(path, f"{MAGIC}\n{_format_rows(columns, runs, header=True)}")


def append_runs(path: str | os.PathLike[str], runs: Iterable[Run]) -> None:
    """Append ``runs`` to a runs CSV, creating it when missing.

    The rows go out in one write followed by fsync, so a crash leaves at most the rows of this call
    missing.  The file's count columns must be those of ``runs``; otherwise FitError.
    """
    runs = tuple(runs)
    target = Path(path)
    if not target.exists() or target.stat().st_size == 0:
        write_runs(target, runs)
        return
    columns = check_appendable(target, _count_columns(runs), _optional(runs))
    text = _format_rows(columns, runs, header=False)
    with open(target, "r+", encoding="utf-8", newline="") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(handle.tell() - 1)
            if handle.read(1) != "\n":
                text = "\n" + text
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def check_appendable(path: str | os.PathLike[str], costs: Iterable[str],
                     optional: Iterable[str] = ()) -> tuple[str, ...]:
    """The columns rows with these count columns and optional columns (``build``, ``digest``) go out
    with when appended to the runs CSV ``path``; FitError when its header has other columns (e.g. a
    file written before a count column existed).  A missing or empty file takes any.  Runs without a
    build go into a file with a build column (empty field), not the other way round; runs with a
    digest go into a file without the column without it (the file's programs stay known by name)."""
    target = Path(path)
    costs, optional = tuple(costs), set(optional)
    if not target.exists() or target.stat().st_size == 0:
        return _columns(costs, optional)
    existing = _header_of(target)
    if "startup" in existing and _version_of(target) == 1:
        raise FitError("written as perfeq-runs 1, whose 'startup' column counts the messages a rank sends, not "
                       "those on the critical path; write them to a new file", location=str(target))
    needed = optional - set(DROPPABLE)
    for extra in ((), *((name,) for name in OPTIONAL_TAIL), OPTIONAL_TAIL):
        if needed <= set(extra) and existing == _columns(costs, extra):
            return existing
    columns = _columns(costs, optional)
    raise FitError(
        f"columns are {','.join(existing)}; the new runs have {','.join(columns)}; write them to a new file",
        location=str(target),
    )


def _columns(costs: Iterable[str], optional: Iterable[str] = ()) -> tuple[str, ...]:
    """The header: the id columns, ``costs``, and the tail with the ``optional`` columns named."""
    tail = tuple(c for c in TAIL_COLUMNS if c not in OPTIONAL_TAIL or c in set(optional))
    return (*ID_COLUMNS, *costs, *tail)


def _optional(runs: tuple[Run, ...]) -> tuple[str, ...]:
    """The optional columns some of ``runs`` have a value for."""
    return tuple(name for name in OPTIONAL_TAIL if any(getattr(run, name) for run in runs))


def _check_not_json(text: str, name: str) -> None:
    """A JSON document or JSON Lines (a model, a trace, a profile) given where a runs CSV belongs."""
    first = text.lstrip()[:1]
    if first not in ("{", "["):
        return
    kind = None
    for candidate in (text, text.lstrip().split("\n", 1)[0]):  # a JSON document, or a trace's header line
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        kind = data.get("format") if isinstance(data, dict) else None
        break
    what = f"a {kind} file" if isinstance(kind, str) else "JSON"
    raise FitError(f"{what}, not a runs CSV (perfeq calibrate writes one; its format: docs/runs-csv.md)",
                   location=name)


def _check_magic(line: str, where: str) -> int:
    """The version the first line names (the current one for any other comment)."""
    match = _MAGIC_RE.match(line.strip())
    if not match:
        return VERSION
    if match.group(1) not in READABLE:
        raise FitError(
            f"format version {match.group(1)} is not supported; this perfeq reads '{MAGIC}' (and version 1)",
            location=where,
        )
    return int(match.group(1))


def _check_header(fields: list[str], where: str) -> list[str]:
    names = [name.strip() for name in fields]
    known = set(ID_COLUMNS) | set(TAIL_COLUMNS) | set(COSTS)
    for column in names:
        if column == INTERCEPT:
            raise FitError("'const' is not a column: it is the fit's --intercept term", location=where)
        if column not in known:
            raise FitError(
                f"unknown column '{column}'; accepted: {', '.join(_columns(COSTS, OPTIONAL_TAIL))}",
                location=where,
            )
    duplicates = sorted({column for column in names if names.count(column) > 1})
    if duplicates:
        raise FitError(f"column '{duplicates[0]}' appears twice", location=where)
    missing = [column for column in REQUIRED_COLUMNS if column not in names]
    if missing:
        raise FitError(
            f"missing column '{missing[0]}'; required: {', '.join(REQUIRED_COLUMNS)}", location=where
        )
    if not any(column in COSTS for column in names):
        raise FitError(f"no count column; give at least one of {', '.join(COSTS)}", location=where)
    return names


def _parse_row(header: list[str], fields: list[str], where: str) -> Run:
    if len(fields) != len(header):
        raise FitError(f"{len(fields)} fields; the header has {len(header)}", location=where)
    row = {**_DEFAULTS, **{name: value.strip() for name, value in zip(header, fields, strict=True)}}
    if not row["app"]:
        raise FitError("column 'app' is empty; give the program's name", location=where)
    try:
        parse_params(row["params"])
    except ValueError as exc:
        raise FitError(f"column 'params': {exc}; expected name=value;name=value", location=where) from None
    if row["timestamp"]:
        try:
            datetime.fromisoformat(row["timestamp"])
        except ValueError:
            raise FitError(
                f"column 'timestamp': '{row['timestamp']}' is not ISO 8601 (e.g. 2024-05-01T12:00:00Z)",
                location=where,
            ) from None
    time_s = _number(row, "time_s", where, "seconds > 0")
    if time_s <= 0:
        raise FitError(f"column 'time_s': {row['time_s']} is not > 0; a run takes some time", location=where)
    counts = {}
    for cost in (name for name in header if name in COSTS):
        counts[cost] = _number(row, cost, where, "a count >= 0")
        if counts[cost] < 0:
            raise FitError(f"column '{cost}': {row[cost]} is negative; counts are >= 0", location=where)
    return Run(
        app=row["app"],
        params=row["params"],
        procs=_integer(row, "procs", where, minimum=1),
        threads=_integer(row, "threads", where, minimum=1),
        rep=_integer(row, "rep", where, minimum=0),
        time_s=time_s,
        counts=dict(sorted(counts.items(), key=lambda item: COSTS.index(item[0]))),
        host=row["host"],
        timestamp=row["timestamp"],
        build=row["build"],
        digest=_digest(row["digest"], where),
        where=where,
    )


def _digest(text: str, where: str) -> str:
    if text and not _DIGEST_RE.match(text):
        raise FitError(f"column 'digest': '{text}' is not a SHA-256 digest (64 hexadecimal digits) or empty",
                       location=where)
    return text


def _number(row: dict[str, str], column: str, where: str, expected: str) -> float:
    try:
        value = float(row[column])
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise FitError(
            f"column '{column}': '{row[column]}' is not a number; expected {expected}", location=where
        )
    return value


def _integer(row: dict[str, str], column: str, where: str, minimum: int) -> int:
    try:
        value = int(row[column])
    except ValueError:
        raise FitError(
            f"column '{column}': '{row[column]}' is not a whole number; expected an integer >= {minimum}",
            location=where,
        ) from None
    if value < minimum:
        raise FitError(f"column '{column}': {value} is below {minimum}", location=where)
    return value


def _count_columns(runs: tuple[Run, ...]) -> tuple[str, ...]:
    if not runs:
        raise FitError("no runs to write")
    costs = canonical_order(list(runs[0].counts))
    for run in runs:
        if set(run.counts) != set(costs) or not costs:
            raise FitError(f"run {run.label} has counts {sorted(run.counts)}; every run needs {list(costs)}")
    return costs


def _format_rows(columns: tuple[str, ...], runs: tuple[Run, ...], *, header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header:
        writer.writerow(columns)
    for run in runs:
        text_fields = (run.app, run.params, run.host, run.build, run.timestamp)
        if any("\n" in text or "\r" in text for text in text_fields):
            raise FitError(f"run {run.label}: text fields cannot contain line breaks")
        fields = {
            "app": run.app,
            "params": run.params,
            "procs": run.procs,
            "threads": run.threads,
            "rep": run.rep,
            "time_s": repr(float(run.time_s)),
            "host": run.host,
            "build": run.build,
            "timestamp": run.timestamp,
            "digest": run.digest,
        }
        writer.writerow(
            [fields[name] if name in fields else _format_count(run.counts[name]) for name in columns]
        )
    return buffer.getvalue()


def _format_count(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def _version_of(path: Path) -> int:
    """The format version the file's first line names (the current one without that line)."""
    with open(path, encoding="utf-8", newline="") as handle:
        match = _MAGIC_RE.match(handle.readline().strip())
    return int(match.group(1)) if match and match.group(1).isdigit() else VERSION


def _header_of(path: Path) -> tuple[str, ...]:
    with open(path, encoding="utf-8", newline="") as handle:
        for line in handle:
            if line.strip() and not line.startswith("#"):
                return tuple(name.strip() for name in next(csv.reader([line])))
    return ()


def select_build(runs: list[Run], build: str | None, where: str) -> list[Run]:
    """The runs of one build configuration: ``build``, or the only one the file has.

    Costs of one machine do not mix builds (-O0 and -O3 runs of the same counts take very different
    times), so a file with several builds needs ``--build NAME``; FitError otherwise.
    """
    builds = sorted({run.build for run in runs})
    if build is not None:
        chosen = [run for run in runs if run.build == build]
        if not chosen:
            raise FitError(f"no runs of build {build!r} (the file has: {', '.join(repr(b) for b in builds)})",
                           location=where)
        return chosen
    if len(builds) > 1:
        raise FitError(f"the runs come from {len(builds)} builds ({', '.join(repr(b) for b in builds)}); "
                       "one machine profile per build: choose one with --build NAME", location=where)
    return runs

