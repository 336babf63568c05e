"""Descriptor records: what the instrumenter found in one translation unit (plain, frozen data).

Written beside the instrumented source as versioned JSON (format ``perfeq-descriptors``, see
docs/descriptors.md) by :meth:`UnitDescriptors.to_json`, and read back by :func:`read_descriptors`,
the one reader every later stage uses; the runtime's trace refers to the same ids and slots, and
the symbolic stage reads both.  Ids are per unit; counter slots and value slots are per function.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import MISSING, asdict, dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

from perfeq.errors import PerfeqError, UsageError
from perfeq.files import read_json_document

FORMAT = "perfeq-descriptors"
VERSION = 2  # 2: blocks carry "refs" (array references); version 1 files are read without them


@dataclass(frozen=True)
class BlockDescriptor:
    id: int
    function: int
    slot: int | None  # counter slot; None for the entry block (its count is the context's calls)
    line: int
    kind: str  # entry, body, then, else, after, case, label, region, section, team-section, once
    loop: int | None  # innermost enclosing loop
    in_parallel: bool
    anchor: int | None  # the block this one's executions are relative to (see instrument/collect/)
    ops: dict[str, int]
    arrays: list[str]  # arrays and pointers the block reads or writes through
    once: bool = False  # under omp master/single/masked: one thread of a team runs it
    # its array and pointer references: {"array", "index" (subscript texts or None), "mode", "line"}
    # (instrument/collect/walk.py references); version 1 files have none (read as an empty list)
    refs: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class LoopDescriptor:
    id: int
    function: int
    kind: str  # for, while, do
    line: int
    col: int
    var: str | None  # iteration variable
    init: str | None  # initial value of var (original C text)
    cond: str  # termination condition (original C text)
    op: str | None  # relational operator of a canonical condition var OP bound
    bound: str | None  # the other side of the condition
    step: str | None  # increment expression (original C text)
    stride: str | None  # the amount added per iteration (+1 for i++, -1 for i--, s for i += s)
    depends: list[str]  # names the init, bound and stride refer to
    parent: int | None  # enclosing loop
    block: int | None  # the block the loop stands in (its entries are that block's executions)
    entry_slot: int | None
    body_block: int | None  # its executions are the iterations
    values: dict[str, int]  # value slots recorded at entry: init, bound
    ops_init: dict[str, int]
    ops_cond: dict[str, int]
    ops_step: dict[str, int]
    in_parallel: bool
    worksharing: bool  # associated with an OpenMP loop construct (entered once per thread)
    flags: list[str]  # var-modified, data-dependent, goto, collapsed, not-instrumented
    # data-dependent loops only: first slot of the branch predictor run on the condition (PERFEQ_BRANCH)
    predictor: int | None = None
    once: bool = False  # under omp master/single/masked: one thread of a team runs it
    # other variables the header steps with var (``for (ng = nn, n = 0; ...; n++, ng++)``), each
    # {"var", "init", "stride"} (C text): var's iteration t gives them init + t * stride
    inductions: list[dict[str, str]] = field(default_factory=list)
    # collapse(n): the n - 1 loops inside this one that the construct makes one iteration space with
    # it, outermost first, each {"var", "init", "op", "bound", "stride"} (C text, as this loop's);
    # body_block is the innermost body
    nest: list[dict[str, str | None]] = field(default_factory=list)


@dataclass(frozen=True)
class CondDescriptor:
    id: int
    function: int
    kind: str  # if, ternary, switch
    line: int
    text: str
    block: int | None  # the block it is evaluated in (evaluations = that block's executions)
    then_block: int | None
    else_block: int | None
    case_blocks: list[int]
    slot: int | None  # ternary only: slots (slot: false, slot+1: true)
    depends: list[str]
    ops: dict[str, int]
    # an if whose branches only assign plain variables (``if (d > change) change = d;``): compilers
    # turn it into a conditional move or max/min, so it is not a branch that can be mispredicted
    select: bool = False
    # if only (not a select): first slot of its branch predictor (runtime/c/perfeq_rt.h PERFEQ_BRANCH):
    # slot counts the mispredictions of a local-history predictor per context; the others are its state
    predictor: int | None = None
    # an if on the flag an MPI test or probe set before it in the function (``MPI_Testany(..., &flag,
    # ...); if (flag) process(...)``): whether a message has arrived, the waiting's timing
    polled: bool = False


@dataclass(frozen=True)
class RegionDescriptor:
    id: int
    function: int
    line: int
    pragma: str
    slot: int | None  # entries (serial-to-parallel transitions)
    block: int | None  # the block it stands in
    parent: int | None  # the enclosing region (the paper's linked list)
    loop: int | None  # the associated loop of a combined construct


@dataclass(frozen=True)
class CommDescriptor:
    id: int
    function: int
    call: str  # MPI function name
    line: int
    col: int
    args: list[str]
    count: str | None
    datatype: str | None
    peer: str | None
    root: str | None
    comm: str | None
    block: int | None
    loop: int | None
    instrumented: bool


@dataclass(frozen=True)
class DatatypeDescriptor:
    """An MPI derived datatype built in the source: ``MPI_Type_vector(ny, 1, nx + 2, MPI_DOUBLE, &column)``."""

    name: str  # the new type's variable, as a canonical lvalue (grid->column -> grid.column)
    function: int
    line: int
    constructor: str  # MPI_Type_contiguous, MPI_Type_vector, MPI_Type_create_subarray, ...
    args: list[str]  # the call's arguments, as written
    loop: int | None


@dataclass(frozen=True)
class CommunicatorDescriptor:
    """A communicator or process group built in the source: ``MPI_Comm_split(MPI_COMM_WORLD,
    rank / q, rank, &row)``, ``MPI_Group_incl(world, npcol, ranks, &g)``, ``MPI_Comm_create(...)``."""

    name: str  # the new handle's variable, as a canonical lvalue
    function: int
    line: int
    constructor: str  # MPI_Comm_split, MPI_Comm_create, MPI_Comm_dup, MPI_Group_incl, ...
    args: list[str]  # the call's arguments, as written
    loop: int | None


@dataclass(frozen=True)
class CallDescriptor:
    id: int
    function: int  # the caller
    callee: str
    line: int
    col: int
    args: list[str]
    block: int | None
    loop: int | None
    instrumented: bool
    # a call in a loop's header: {"loop": id, "part": "init" | "cond" | "step"}; ``block`` and
    # ``loop`` are then where that loop stands.  None: a call in a statement.
    header: dict | None = None


@dataclass(frozen=True)
class ArrayShape:
    id: int
    function: int | None  # None: a global
    name: str | None
    line: int
    kind: str  # fixed, vla, param (an array parameter's extents), malloc, calloc, realloc, call
    ndims: int
    extents: list[str]  # per dimension (fixed/vla) or the byte count expression (malloc...)
    element: str | None  # element type text
    value_slot: int | None  # the recorded size (allocations) or first non-constant extent
    loop: int | None = None  # innermost loop around an allocation or call, None outside loops


# sources of parameters that are macros: their value is the build's, kept in the descriptors
MACRO_SOURCES = ("define", "macro")
# candidates whose value MPI gives, P and the rank: described, not recorded (the trace has both; a
# program's `size` read from argv in main and set by MPI_Comm_size elsewhere recorded one value)
MPI_SOURCES = ("mpi_size", "mpi_rank")
_NUMBER = re.compile(r"^[(\s]*([-+]?)\s*(0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)[uUlLfF]*[)\s]*$")


@dataclass(frozen=True)
class ParamDescriptor:
    variable: str
    symbol: str  # the model symbol: the variable's name, P for the process count, ...
    source: str  # argv, input, mpi_size, mpi_rank, omp_threads, procgrid, define (-D), macro (#define), user
    function: int | None
    line: int
    text: str  # the expression it was set from (a macro's value)

    def build_value(self) -> float | None:
        """A macro's value in the build these descriptors come from (None: not a macro, or not a number)."""
        return macro_number(self.text) if self.source in MACRO_SOURCES else None


def macro_number(text: str) -> float | None:
    """The number a macro's value is (``1024``, ``(4096L)``, ``0x100``, ``1e-3``), else None."""
    match = _NUMBER.match(text)
    if not match:
        return None
    sign, digits = match.groups()
    value = float(int(digits, 16)) if digits[:2] in ("0x", "0X") else float(digits)
    return -value if sign == "-" else value


@dataclass(frozen=True)
class Assignment:
    variable: str
    op: str  # = += -= *= /= ...
    text: str  # right-hand side, original C text
    line: int
    block: int | None
    loop: int | None
    is_global: bool = False  # the variable (the root of the lvalue) is a global of the unit


@dataclass(frozen=True)
class FunctionDescriptor:
    id: int
    name: str
    line: int
    params: list[str]
    nslots: int
    nvalues: int
    entry_block: int
    recursive: bool
    assignments: list[Assignment]
    returns: str | None = None  # the expression, when the body is a single return statement
    inlined_ops: dict[str, int] | None = None  # straight-line function: operations added to each caller
    returned_names: list[str] | None = None  # every ``return NAME;`` names one of these; None: other returns
    # a body ending in ``return expr;``, its other returns ``if (cond) return expr;`` statements of the
    # body: each {"line", "text", "cond"} in order (cond None for the last); None for other bodies
    return_points: list[dict[str, Any]] | None = None
    locals: list[str] = field(default_factory=list)  # the names the body declares (they hide globals)
    file: str | None = None  # the .c file it is defined in when the unit includes it (None: the unit's own)


@dataclass
class UnitDescriptors:
    source: str
    digest: str
    instrumented: str
    functions: list[FunctionDescriptor] = field(default_factory=list)
    blocks: list[BlockDescriptor] = field(default_factory=list)
    loops: list[LoopDescriptor] = field(default_factory=list)
    conds: list[CondDescriptor] = field(default_factory=list)
    regions: list[RegionDescriptor] = field(default_factory=list)
    comms: list[CommDescriptor] = field(default_factory=list)
    calls: list[CallDescriptor] = field(default_factory=list)
    shapes: list[ArrayShape] = field(default_factory=list)
    params: list[ParamDescriptor] = field(default_factory=list)
    datatypes: list[DatatypeDescriptor] = field(default_factory=list)
    communicators: list[CommunicatorDescriptor] = field(default_factory=list)
    macros: dict[str, str] = field(default_factory=dict)
    function_macros: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {"params", "body"}
    enumerators: dict[str, int] = field(default_factory=dict)  # enumeration constants the code names
    warnings: list[str] = field(default_factory=list)
    # the compile line's flags that change what the preprocessor gives (-D, -U, -I, -include, -std=,
    # -fopenmp): two builds of one source that differ in them are two units (perfeq cc names them apart)
    preprocess: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        data = {"format": FORMAT, "version": VERSION, **asdict(self)}
        return json.dumps(data, indent=1, sort_keys=False) + "\n"


# ---- reading ------------------------------------------------------------------------------------

# The lists of a unit and the record each item is read into.
_RECORDS: dict[str, type] = {
    "functions": FunctionDescriptor, "blocks": BlockDescriptor, "loops": LoopDescriptor,
    "conds": CondDescriptor, "regions": RegionDescriptor, "comms": CommDescriptor, "calls": CallDescriptor,
    "shapes": ArrayShape, "params": ParamDescriptor, "datatypes": DatatypeDescriptor,
    "communicators": CommunicatorDescriptor,
}


def declaring_function(unit: UnitDescriptors, variable: str) -> int | None:
    """The one function of ``unit`` that declares ``variable`` (a local or a parameter); None when
    none does (a global) or several do."""
    owners = [f.id for f in unit.functions if variable in f.locals or variable in f.params]
    return owners[0] if len(owners) == 1 else None


def read_descriptors(path: str | os.PathLike[str], *, error: type[PerfeqError] = UsageError,
                     missing: str | None = None) -> UnitDescriptors:
    """The descriptors in the file at ``path`` (cached by path and modification time: do not modify).

    Errors are one ``error`` line naming the file (perfeq.files.read_json_document): not JSON, not a
    ``perfeq-descriptors`` file, another version, a list that is not a list of objects.  A missing
    file reads ``path: <missing>`` when ``missing`` is given, else the OSError passes up.  Fields the
    file does not have (hand-written subsets, fields added later) read as their default, or None;
    fields this perfeq does not know are ignored.
    """
    try:
        stat = Path(path).stat()
    except OSError:  # not there: read_json_document says so (or raises the OSError)
        return _unit(_read(path, error, missing), path, error)
    # the inode too: a file rewritten (atomically: a new inode) within one tick of a coarse clock
    return _read_cached(str(path), (stat.st_ino, stat.st_size, stat.st_mtime_ns), error, missing)


@lru_cache(maxsize=64)
def _read_cached(path: str, version: tuple[int, int, int], error: type[PerfeqError],
                 missing: str | None) -> UnitDescriptors:
    return _unit(_read(path, error, missing), path, error)


def _read(path: str | os.PathLike[str], error: type[PerfeqError], missing: str | None) -> dict[str, Any]:
    return read_json_document(path, FORMAT, (1, VERSION), error=error, what=f"{FORMAT} file", missing=missing,
                              hint="instrument the program again")


def _unit(data: dict[str, Any], path: str | os.PathLike[str], error: type[PerfeqError]) -> UnitDescriptors:
    lists = {}
    for key, record in _RECORDS.items():
        items = data.get(key, [])
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise error(f"{path}: '{key}' should be a list of objects")
        lists[key] = [_record(record, item) for item in items]
    return _record(UnitDescriptors, {**data, **lists})


def _record(cls: type, data: dict[str, Any]) -> Any:
    """``cls`` built by keyword from the fields ``data`` has (the others: their default, or None)."""
    values: dict[str, Any] = {}
    for item in fields(cls):
        if item.name in data:
            values[item.name] = data[item.name]
        elif item.default is not MISSING:
            values[item.name] = item.default
        elif item.default_factory is not MISSING:
            values[item.name] = item.default_factory()
        else:
            values[item.name] = None
    if cls is FunctionDescriptor and isinstance(values["assignments"], list):
        values["assignments"] = [_record(Assignment, a) if isinstance(a, dict) else a for a in values["assignments"]]
    return cls(**values)
