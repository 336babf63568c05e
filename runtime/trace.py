"""The perfeq trace: format "perfeq-trace" version 2 (JSON Lines), its records and its reader.

Part of perfeq stage 2 (runtime/).  The C runtime writes one trace per rank (``c/perfeq_rt.c``);
``perfeq run`` merges them into one trace (runtime/merge.py); :func:`read_trace` reads either kind
into plain data (:class:`Trace`) for the call graph and the counts.  The format is documented field
by field in ``docs/trace.md``.  Kept whole (about 510 lines): the record classes, the field schema
and the reader that checks it are one format and change together.

Errors in a trace raise :class:`~perfeq.errors.TraceError` with ``file:line:``; a trace without
footer (the program crashed) is read with a one-line warning and marked incomplete.  Version 1
traces (written before synchronising MPI calls were timed) are read too: their MPI records carry
no times.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from perfeq.errors import TraceError

TRACE_FORMAT = "perfeq-trace"
TRACE_VERSION = 2  # what this perfeq writes
READ_VERSIONS = (1, 2)  # what it reads: version 2 added the optional times of MPI records


class IncompleteTraceWarning(UserWarning):
    """A trace has no footer: the program (or a rank) ended without writing it."""


# ---- plain data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FunctionInfo:
    """One function of a unit, as the instrumenter declared it."""

    name: str
    nslots: int
    nvalues: int


@dataclass(frozen=True)
class Unit:
    """One instrumented translation unit of one rank."""

    id: int
    source: str
    descriptors: str | None
    digest: str | None
    abi: int
    functions: tuple[FunctionInfo, ...]


@dataclass(frozen=True)
class ValueStat:
    """Statistics of one value slot (loop bound, allocation size) in one context."""

    n: int
    first: float | None
    last: float | None
    min: float | None
    max: float | None
    sum: float | None

    @property
    def mean(self) -> float | None:
        return None if self.sum is None or not self.n else self.sum / self.n

    def merge(self, other: ValueStat) -> ValueStat:
        """The statistics of both sets of values (``first`` from self, ``last`` from other)."""

        def pick(a: float | None, b: float | None, fn: Any) -> float | None:
            return a if b is None else b if a is None else fn(a, b)

        total = None if self.sum is None or other.sum is None else self.sum + other.sum
        return ValueStat(self.n + other.n, self.first, other.last, pick(self.min, other.min, min),
                         pick(self.max, other.max, max), total)


@dataclass(frozen=True)
class TimeStats:
    """Moments of a set of times in seconds (compute bursts, time inside MPI calls) and their log2
    histogram: ``bins[k]`` counts the times in [2^k, 2^(k+1)) ns (bin 0 also 0 ns)."""

    n: int
    sum: float
    sum2: float
    min: float
    max: float
    bins: tuple[tuple[int, int], ...] = ()
    sdiff2: float | None = None  # sum of squared differences of consecutive times (None: not recorded)

    @property
    def mean(self) -> float:
        return self.sum / self.n if self.n else 0.0

    @property
    def variance(self) -> float:
        """The sample variance (0 for fewer than two times)."""
        if self.n < 2:
            return 0.0
        return max(self.sum2 - self.sum * self.sum / self.n, 0.0) / (self.n - 1)

    @property
    def successive_variance(self) -> float | None:
        """Von Neumann's estimate of the variance from consecutive differences, sdiff2 / (2 (n - 1)):
        a trend over the calls (more work at early steps) barely enters it, random spread does."""
        if self.sdiff2 is None or self.n < 2:
            return None
        return self.sdiff2 / (2.0 * (self.n - 1))

    def merge(self, other: TimeStats) -> TimeStats:
        """The statistics of both sets of times (``sdiff2`` adds up: the junction's one difference is
        left out, as if the sets were two runs)."""
        if not self.n or not other.n:
            return self if self.n else other
        bins: dict[int, int] = dict(self.bins)
        for k, count in other.bins:
            bins[k] = bins.get(k, 0) + count
        sdiff2 = None if self.sdiff2 is None or other.sdiff2 is None else self.sdiff2 + other.sdiff2
        return TimeStats(self.n + other.n, self.sum + other.sum, self.sum2 + other.sum2, min(self.min, other.min),
                         max(self.max, other.max), tuple(sorted(bins.items())), sdiff2)


@dataclass(frozen=True)
class MPIRecord:
    """The calls of one MPI function at one site of one context, with one communicator shape.

    ``burst`` and ``inside`` (trace version 2, synchronising calls only; None otherwise): the compute
    before each call, from the return of the rank's previous synchronising call (or of MPI_Init) to
    this call's entry, and the time inside the call (wait and transfer)."""

    call: str
    site: int | None
    calls: int
    elements: int
    bytes: int
    comm_size: int | None
    comm_rank: int | None
    root: int | None
    burst: TimeStats | None = None
    inside: TimeStats | None = None

    @property
    def is_root(self) -> bool:
        return self.root is not None and self.root == self.comm_rank


@dataclass
class Context:
    """One call-graph context of one rank: a function entered from a call site of its parent."""

    rank: int
    id: int
    parent: int | None
    unit: int
    func: int
    caller_unit: int | None
    site: int | None
    thread: int
    calls: int
    regions: int
    recursive: bool = False  # recursive calls of the function were folded into this context
    counters: dict[int, int] = field(default_factory=dict)
    values: dict[int, ValueStat] = field(default_factory=dict)
    mpi: list[MPIRecord] = field(default_factory=list)


@dataclass
class RankTrace:
    """What one rank recorded."""

    rank: int
    header: dict[str, Any]
    units: dict[int, Unit] = field(default_factory=dict)
    contexts: dict[int, Context] = field(default_factory=dict)
    orphan_mpi: list[MPIRecord] = field(default_factory=list)  # MPI calls outside every context
    params: dict[str, float | None] = field(default_factory=dict)
    footer: dict[str, Any] | None = None

    @property
    def incomplete(self) -> bool:
        return self.footer is None or bool(self.footer.get("incomplete", False))

    @property
    def stopped(self) -> bool:
        return bool(self.footer and self.footer.get("stopped"))

    @property
    def threads(self) -> int:
        """The OpenMP threads the rank ran on: the largest team of its parallel constructs (footer
        ``team``), else ``omp_get_max_threads()`` at its start (header ``nthreads``), else 1."""
        team = self.footer.get("team") if self.footer else None
        if type(team) is int and team > 0:
            return team
        threads = self.header.get("nthreads")
        return threads if type(threads) is int and threads > 0 else 1

    def function(self, context: Context) -> FunctionInfo:
        return self.units[context.unit].functions[context.func]


@dataclass
class Trace:
    """A whole trace: one rank's file as the runtime wrote it, or a merged trace of all ranks."""

    path: Path
    header: dict[str, Any]
    ranks: dict[int, RankTrace]
    footer: dict[str, Any] | None
    merged: bool

    @property
    def nranks(self) -> int:
        return int(self.header.get("nranks", len(self.ranks)))

    @property
    def program(self) -> str:
        return str(self.header.get("program", ""))

    @property
    def incomplete(self) -> bool:
        if self.footer is None or self.footer.get("incomplete"):
            return True
        return any(rank.incomplete for rank in self.ranks.values())

    @property
    def stopped(self) -> bool:
        return any(rank.stopped for rank in self.ranks.values())

    @property
    def params(self) -> dict[str, float | None]:
        """The problem-size parameters (PERFEQ_PARAM) of the lowest rank."""
        for rank in sorted(self.ranks):
            if self.ranks[rank].params:
                return dict(self.ranks[rank].params)
        return dict(self.header.get("params") or {})


# ---- record validation ------------------------------------------------------------------------

_INT, _OPT_INT, _STR, _OPT_STR, _BOOL, _LIST, _DICT = "int", "int|null", "str", "str|null", "bool", "list", "dict"

# Required fields of each record kind (other fields are allowed and kept).
RECORD_FIELDS: dict[str, dict[str, str]] = {
    "header": {"format": _STR, "version": _INT, "nranks": _INT},
    "rank": {"rank": _INT, "nranks": _INT},
    "unit": {"id": _INT, "source": _STR, "descriptors": _OPT_STR, "digest": _OPT_STR, "functions": _LIST},
    "context": {"id": _INT, "parent": _OPT_INT, "unit": _INT, "func": _INT, "caller_unit": _OPT_INT,
                "site": _OPT_INT, "thread": _INT, "calls": _INT},
    "counters": {"context": _INT, "counts": _LIST},
    "values": {"context": _INT, "values": _LIST},
    "mpi": {"context": _OPT_INT, "site": _OPT_INT, "call": _STR, "calls": _INT, "elements": _INT,
            "bytes": _INT, "comm_size": _OPT_INT, "comm_rank": _OPT_INT, "root": _OPT_INT},
    "params": {"params": _DICT},
    "rank_end": {"rank": _INT, "incomplete": _BOOL},
    "footer": {"records": _INT, "errors": _INT, "stopped": _BOOL},
}


def _is(value: Any, kind: str) -> bool:
    if kind == _INT:
        return type(value) is int
    if kind == _OPT_INT:
        return value is None or type(value) is int
    if kind == _STR:
        return isinstance(value, str)
    if kind == _OPT_STR:
        return value is None or isinstance(value, str)
    if kind == _BOOL:
        return type(value) is bool
    if kind == _LIST:
        return isinstance(value, list)
    return isinstance(value, dict)


def _check_fields(record: dict[str, Any], where: str) -> None:
    kind = record.get("record")
    if kind not in RECORD_FIELDS:
        known = ", ".join(RECORD_FIELDS)
        raise TraceError(f"{where}: unknown record kind {kind!r} (known: {known})")
    for name, expected in RECORD_FIELDS[kind].items():
        if name not in record:
            raise TraceError(f"{where}: {kind} record without field {name!r}")
        if not _is(record[name], expected):
            raise TraceError(f"{where}: {kind} field {name!r} should be {expected}, not {record[name]!r}")
    if kind == "header":
        _check_header(record, where)


def _check_header(record: dict[str, Any], where: str) -> None:
    if record["format"] != TRACE_FORMAT:
        raise TraceError(f"{where}: not a perfeq trace (format {record['format']!r})")
    if record["version"] not in READ_VERSIONS:
        readable = " and ".join(map(str, READ_VERSIONS))
        raise TraceError(f"{where}: trace version {record['version']} is not supported; this perfeq reads "
                         f"versions {readable}: use the perfeq that wrote it, or record the run again")


# ---- streaming reader -------------------------------------------------------------------------


def iter_records(path: str | os.PathLike[str], *, tolerant: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, record)`` for each line of a trace, checking each record's fields.

    The first record must be the header, of a known version.  A last line cut short (no newline,
    not JSON) is a :class:`TraceError`, unless ``tolerant`` (used when merging the traces of
    crashed ranks), in which case it is dropped with a warning.
    """
    name = str(path)
    with open(path, encoding="utf-8", errors="strict", newline="\n") as handle:
        yield from _iter_lines(handle, name, tolerant)


def _iter_lines(handle: TextIO, name: str, tolerant: bool) -> Iterator[tuple[int, dict[str, Any]]]:
    lineno = 0
    try:
        lines = iter(handle)
        for lineno, line in enumerate(lines, start=1):
            where = f"{name}:{lineno}"
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                if not line.endswith("\n"):
                    if tolerant:
                        warnings.warn(f"{where}: dropped the last record, cut short", IncompleteTraceWarning,
                                      stacklevel=3)
                        return
                    raise TraceError(f"{where}: the file ends inside a record (truncated trace)") from None
                raise TraceError(f"{where}: not JSON: {exc.msg} (column {exc.colno})") from None
            if not isinstance(record, dict):
                raise TraceError(f"{where}: expected a JSON object, got {type(record).__name__}")
            if lineno == 1 and record.get("record") != "header":
                raise TraceError(f"{where}: the first record must be the header, not {record.get('record')!r}")
            _check_fields(record, where)
            yield lineno, record
    except UnicodeDecodeError as exc:
        raise TraceError(f"{name}:{lineno + 1}: not UTF-8 text ({exc.reason})") from None
    if lineno == 0:
        raise TraceError(f"{name}:1: empty trace: no header")


class _Builder:
    """Turns records into :class:`RankTrace` objects, checking that references are defined first."""

    def __init__(self, name: str, header: dict[str, Any]):
        self.name = name
        self.header = header
        self.merged = bool(header.get("merged"))
        self.ranks: dict[int, RankTrace] = {}
        self.ended: set[int] = set()
        self.footer: dict[str, Any] | None = None
        self.count = 1  # records before the footer, the header included
        if not self.merged:
            rank = header.get("rank", 0)
            self.ranks[rank] = RankTrace(rank=rank, header=header)

    def rank_of(self, record: dict[str, Any], where: str) -> RankTrace:
        if not self.merged:
            if "rank" in record and record["rank"] not in self.ranks:
                raise TraceError(f"{where}: record of rank {record['rank']} in the trace of one rank")
            return next(iter(self.ranks.values()))
        rank = record.get("rank")
        if type(rank) is not int:
            raise TraceError(f"{where}: record without its rank in a merged trace")
        if rank not in self.ranks:
            raise TraceError(f"{where}: rank {rank} has no rank record before this one")
        if rank in self.ended:
            raise TraceError(f"{where}: record of rank {rank} after its rank_end record")
        return self.ranks[rank]

    def add(self, lineno: int, record: dict[str, Any]) -> None:
        where = f"{self.name}:{lineno}"
        kind = record["record"]
        if self.footer is not None:
            raise TraceError(f"{where}: {kind} record after the footer")
        if kind == "footer":
            if record["records"] != self.count:
                raise TraceError(f"{where}: the footer counts {record['records']} records but "
                                 f"{self.count} precede it (lines lost?)")
            self.footer = record
            if not self.merged:
                next(iter(self.ranks.values())).footer = record
            return
        self.count += 1
        if kind == "header":
            raise TraceError(f"{where}: a second header")
        if kind == "rank":
            if not self.merged:
                raise TraceError(f"{where}: rank record in the trace of one rank")
            if record["rank"] in self.ranks:
                raise TraceError(f"{where}: rank {record['rank']} appears twice")
            self.ranks[record["rank"]] = RankTrace(rank=record["rank"], header=record)
            return
        rank = self.rank_of(record, where)
        getattr(self, f"_add_{kind}")(rank, record, where)

    def _add_rank_end(self, rank: RankTrace, record: dict[str, Any], where: str) -> None:
        rank.footer = record
        self.ended.add(rank.rank)

    def _add_unit(self, rank: RankTrace, record: dict[str, Any], where: str) -> None:
        if record["id"] in rank.units:
            raise TraceError(f"{where}: unit {record['id']} is defined twice")
        functions = []
        for item in record["functions"]:
            if not (isinstance(item, dict) and isinstance(item.get("name"), str)
                    and _is(item.get("nslots"), _INT) and _is(item.get("nvalues"), _INT)):
                raise TraceError(f"{where}: bad function entry {item!r} (needs name, nslots, nvalues)")
            functions.append(FunctionInfo(item["name"], item["nslots"], item["nvalues"]))
        rank.units[record["id"]] = Unit(record["id"], record["source"], record["descriptors"],
                                        record["digest"], int(record.get("abi", 0)), tuple(functions))

    def _add_context(self, rank: RankTrace, record: dict[str, Any], where: str) -> None:
        cid = record["id"]
        if cid in rank.contexts:
            raise TraceError(f"{where}: context {cid} is defined twice")
        unit = rank.units.get(record["unit"])
        if unit is None:
            raise TraceError(f"{where}: context {cid} refers to unit {record['unit']}, not defined before it")
        if not 0 <= record["func"] < len(unit.functions):
            raise TraceError(f"{where}: context {cid}: unit {unit.source} has no function {record['func']}")
        if record["parent"] is not None and record["parent"] not in rank.contexts:
            raise TraceError(f"{where}: context {cid} refers to parent {record['parent']}, not defined before it")
        if record["caller_unit"] is not None and record["caller_unit"] not in rank.units:
            raise TraceError(f"{where}: context {cid} refers to caller unit {record['caller_unit']}, not defined")
        rank.contexts[cid] = Context(rank.rank, cid, record["parent"], record["unit"], record["func"],
                                     record["caller_unit"], record["site"], record["thread"],
                                     record["calls"], int(record.get("regions", 0)),
                                     bool(record.get("recursive", False)))

    def _context(self, rank: RankTrace, cid: int, where: str) -> Context:
        try:
            return rank.contexts[cid]
        except KeyError:
            raise TraceError(f"{where}: refers to context {cid}, not defined before it") from None

    def _add_counters(self, rank: RankTrace, record: dict[str, Any], where: str) -> None:
        context = self._context(rank, record["context"], where)
        nslots = rank.function(context).nslots
        for item in record["counts"]:
            if not (isinstance(item, list) and len(item) == 2 and all(_is(x, _INT) for x in item)):
                raise TraceError(f"{where}: bad counter {item!r} (expected [slot, count])")
            slot, count = item
            if not 0 <= slot < nslots:
                raise TraceError(f"{where}: counter slot {slot} out of range (function has {nslots} slots)")
            context.counters[slot] = context.counters.get(slot, 0) + count

    def _add_values(self, rank: RankTrace, record: dict[str, Any], where: str) -> None:
        context = self._context(rank, record["context"], where)
        nvalues = rank.function(context).nvalues
        for item in record["values"]:
            if not isinstance(item, dict) or not _is(item.get("slot"), _INT) or not _is(item.get("n"), _INT):
                raise TraceError(f"{where}: bad value entry {item!r} (needs slot, n, first, last, min, max, sum)")
            if not 0 <= item["slot"] < nvalues:
                raise TraceError(f"{where}: value slot {item['slot']} out of range (function has {nvalues})")
            stats = []
            for key in ("first", "last", "min", "max", "sum"):
                value = item.get(key)
                if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                    raise TraceError(f"{where}: value field {key!r} should be a number, not {value!r}")
                stats.append(None if value is None else float(value))
            context.values[item["slot"]] = ValueStat(item["n"], *stats)

    def _add_mpi(self, rank: RankTrace, record: dict[str, Any], where: str) -> None:
        mpi = MPIRecord(record["call"], record["site"], record["calls"], record["elements"], record["bytes"],
                        record["comm_size"], record["comm_rank"], record["root"],
                        _times(record.get("burst"), "burst", where), _times(record.get("inside"), "inside", where))
        if record["context"] is None:
            rank.orphan_mpi.append(mpi)
        else:
            self._context(rank, record["context"], where).mpi.append(mpi)

    def _add_params(self, rank: RankTrace, record: dict[str, Any], where: str) -> None:
        for key, value in record["params"].items():
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise TraceError(f"{where}: parameter {key!r} should be a number, not {value!r}")
            rank.params[key] = value


def _times(entry: Any, name: str, where: str) -> TimeStats | None:
    """An MPI record's ``burst`` or ``inside`` object (absent or null: None)."""
    if entry is None:
        return None
    bad = f"{where}: mpi field {name!r} should be {{n, sum, sum2, sdiff2, min, max, bins}}"
    if not isinstance(entry, dict) or not _is(entry.get("n"), _INT) or not isinstance(entry.get("bins", []), list):
        raise TraceError(f"{bad}, not {entry!r}")
    numbers = []
    for key in ("sum", "sum2", "min", "max", *(("sdiff2",) if "sdiff2" in entry else ())):
        value = entry.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise TraceError(f"{bad}: {key!r} is {value!r}")
        numbers.append(float(value))
    bins = []
    for item in entry.get("bins", []):
        if not (isinstance(item, list) and len(item) == 2 and all(_is(x, _INT) and x >= 0 for x in item)):
            raise TraceError(f"{bad}: bad bin {item!r} (expected [k, count])")
        bins.append((item[0], item[1]))
    return TimeStats(entry["n"], *numbers[:4], tuple(bins), numbers[4] if len(numbers) > 4 else None)


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Read a trace (one rank's, or merged) into a :class:`Trace`.

    Raises :class:`TraceError` (``file:line: ...``) on a malformed trace; warns with
    :class:`IncompleteTraceWarning` when the footer is missing.
    """
    name = str(path)
    builder: _Builder | None = None
    for lineno, record in iter_records(path):
        if builder is None:
            builder = _Builder(name, record)
            continue
        builder.add(lineno, record)
    if builder is None:  # iter_records raises on an empty file; kept for type checkers
        raise TraceError(f"{name}:1: empty trace: no header")
    if builder.footer is None:
        warnings.warn(f"{name}: incomplete trace: no footer (the program crashed or was killed?)",
                      IncompleteTraceWarning, stacklevel=2)
    return Trace(path=Path(path), header=builder.header, ranks=builder.ranks, footer=builder.footer,
                 merged=builder.merged)
