"""The MPI calls perfeq knows: one declarative table for the instrumenter, the runtime and the counts.

Part of perfeq stage 2 (runtime/).  Each :class:`MPICall` gives the MPI-3 prototype and which
argument is the count, datatype, peer, root, tag and communicator; the instrumenter builds its
communication descriptors from it, ``runtime/perfeq_mpi.c`` (the PMPI wrappers) is generated from
it with ``runtime/templates/perfeq_mpi.c.j2``, and ``perfeq counts`` turns the wrappers' records
into messages with each call's :class:`MessageModel`.

Regenerate the wrappers with ``python -m perfeq.runtime.mpi_spec``; ``--check`` fails when the
committed file is not current (the test suite runs it).

Message models (``P`` ranks in the communicator, ``v`` this rank's rank relative to the root,
``n`` this rank's block in bytes, i.e. count * type size of the call's count/datatype arguments):

=================  ==============================  =============================  ==================
call               algorithm                       messages (all ranks, one call)  critical path
=================  ==============================  =============================  ==================
send, isend, ...   one message                     1 per sending rank             1
bcast              binomial tree (MPICH)           P - 1                          ceil(log2 P)
reduce             binomial tree                   P - 1                          ceil(log2 P)
gather, scatter    binomial tree, subtree blocks   P - 1                          ceil(log2 P)
gatherv            linear (non-roots to the root)  P - 1                          P - 1
scatterv           linear (the root to the others) P - 1                          P - 1
allreduce, barrier recursive doubling (MPICH;      P' log2 P' + 2 (P - P'),       log2 P' + 2 [P > P']
                   P' = 2**floor(log2 P))          barrier with 0 bytes
scan, exscan       recursive doubling (MPICH: in   sum over k < ceil(log2 P) of   ceil(log2 P)
                   round k rank v exchanges with   #{v : v xor 2**k < P}
                   v xor 2**k if that is < P)
allgather(v)       ring                            P (P - 1)                      P - 1
alltoall           pairwise exchange               P (P - 1)                      P - 1
alltoallv          pairwise exchange               P (P - 1)                      P - 1
reduce_scatter     pairwise exchange (MPICH's      P (P - 1)                      P - 1
(_block)           long-message algorithm)
=================  ==============================  =============================  ==================

Bytes sent by a rank are its messages times ``n``, except gather (a non-root sends its subtree's
blocks) and scatter (a rank sends each child its subtree's blocks).  MPICH switches algorithms by
message size; perfeq keeps one model per call so that counts stay linear in ``n`` (documented
approximation; allgatherv and gatherv assume this rank's block for every rank).  Scan and exscan
count the exact recursive-doubling messages of each rank (at P = 3: 2, 1, 1), not ceil(log2 P)
for every rank, which is the critical path only.

Array counts (``count_sum``: alltoallv's ``sendcounts[]``, reduce_scatter's ``recvcounts[]``,
scatterv's ``sendcounts[]`` at the root): the wrapper sums the array over the communicator.  The
record's ``elements`` are the whole array (this rank's own block included: the data it holds,
e.g. n / P keys), its ``bytes`` the blocks for the OTHER ranks times the type size, i.e. exactly
the bytes this rank sends; so these models have ``blocks(P, v) = 1`` for a sending rank (0 for a
scatterv non-root, whose record holds its receive block like scatter's).  Messages count every
other rank, also when its block is empty (MPICH skips empty blocks).  The symbolic stage fits the
elements per call to the problem size and takes the bytes sent as type size *
floor(elements * :data:`OTHERS_SHARE`), the blocks for the others if the blocks are equal.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parent
TEMPLATE = RUNTIME_DIR / "templates" / "perfeq_mpi.c.j2"
GENERATED = RUNTIME_DIR / "perfeq_mpi.c"


# ---- message algorithms -----------------------------------------------------------------------


def _ceil_log2(p: int) -> int:
    return (p - 1).bit_length() if p > 1 else 0


def _floor_log2(p: int) -> int:
    return p.bit_length() - 1 if p >= 1 else 0


def _binomial_span(v: int, p: int) -> int:
    """The mask bound of relative rank ``v``: it sends to ``v + m`` for powers of two ``m`` below it."""
    return v & -v if v else 1 << _ceil_log2(p)


def _binomial_children(v: int, p: int) -> list[int]:
    span = _binomial_span(v, p)
    return [v + m for m in (1 << k for k in range(span.bit_length() - 1)) if v + m < p]


def _subtree(v: int, p: int) -> int:
    return min(_binomial_span(v, p), p - v)


def _rd_sent(p: int, v: int) -> int:
    """Messages a rank sends in MPICH's recursive doubling (allreduce, barrier)."""
    if p <= 1:
        return 0
    pof2 = 1 << _floor_log2(p)
    rem, rounds = p - pof2, _floor_log2(pof2)
    if v < 2 * rem:
        return 1 if v % 2 == 0 else rounds + 1
    return rounds


def _rd_critical(p: int) -> int:
    if p <= 1:
        return 0
    pof2 = 1 << _floor_log2(p)
    return _floor_log2(pof2) + (2 if p > pof2 else 0)


@dataclass(frozen=True)
class MessageModel:
    """How one call of an MPI operation turns into point-to-point messages.

    ``name`` identifies the model (unique in the table: the symbolic stage keys on it).
    ``sent(P, v)`` and ``blocks(P, v)`` are the messages and the bytes (in units of ``n``) that
    the rank at relative rank ``v`` sends; ``critical(P)`` the messages on the critical path.
    ``total`` and ``critical_formula`` are the same as sympy-parsable text in ``P`` (summed over
    ranks), for the symbolic stage and the documentation.
    """

    name: str
    sent: Callable[[int, int], int]
    blocks: Callable[[int, int], int]
    critical: Callable[[int], int]
    total: str
    critical_formula: str


NO_MESSAGES = MessageModel("none", lambda p, v: 0, lambda p, v: 0, lambda p: 0, "0", "0")
POINT_TO_POINT = MessageModel("point-to-point", lambda p, v: 1, lambda p, v: 1, lambda p: 1, "1", "1")
BINOMIAL_BCAST = MessageModel(
    "binomial bcast",
    lambda p, v: len(_binomial_children(v, p)),
    lambda p, v: len(_binomial_children(v, p)),
    _ceil_log2,
    "P - 1",
    "ceiling(log(P, 2))",
)
BINOMIAL_REDUCE = MessageModel(
    "binomial reduce", lambda p, v: int(v > 0), lambda p, v: int(v > 0), _ceil_log2, "P - 1", "ceiling(log(P, 2))"
)
BINOMIAL_GATHER = MessageModel(
    "binomial gather",
    lambda p, v: int(v > 0),
    lambda p, v: _subtree(v, p) if v > 0 else 0,
    _ceil_log2,
    "P - 1",
    "ceiling(log(P, 2))",
)
BINOMIAL_SCATTER = MessageModel(
    "binomial scatter",
    lambda p, v: len(_binomial_children(v, p)),
    lambda p, v: sum(_subtree(c, p) for c in _binomial_children(v, p)),
    _ceil_log2,
    "P - 1",
    "ceiling(log(P, 2))",
)
LINEAR_GATHER = MessageModel(
    "linear gather", lambda p, v: int(v > 0), lambda p, v: int(v > 0), lambda p: max(p - 1, 0), "P - 1", "P - 1"
)
_RD_TOTAL = "2**floor(log(P, 2))*floor(log(P, 2)) + 2*(P - 2**floor(log(P, 2)))"
_RD_CRITICAL = "floor(log(P, 2)) + 2*Min(1, P - 2**floor(log(P, 2)))"
RECURSIVE_DOUBLING = MessageModel("recursive doubling", _rd_sent, _rd_sent, _rd_critical, _RD_TOTAL, _RD_CRITICAL)
RING = MessageModel(
    "ring", lambda p, v: max(p - 1, 0), lambda p, v: max(p - 1, 0), lambda p: max(p - 1, 0), "P*(P - 1)", "P - 1"
)


def _scan_sent(p: int, v: int) -> int:
    """Messages rank ``v`` sends in MPICH's recursive-doubling scan/exscan: one per round ``k``
    (mask ``2**k < P``) whose partner ``v xor 2**k`` exists."""
    return sum(1 for k in range(_ceil_log2(p)) if v ^ (1 << k) < p)


# The messages of all ranks: in round k, with w = 2**(k + 1) and r = P mod w, every rank has a
# partner but the min(r, w - r) ranks v of the last, incomplete group of w whose v + w/2 >= P.
_SCAN_TOTAL = "Sum(P - Min(Mod(P, 2**(k + 1)), 2**(k + 1) - Mod(P, 2**(k + 1))), (k, 0, ceiling(log(P, 2)) - 1))"
SCAN = MessageModel("recursive doubling scan", _scan_sent, _scan_sent, _ceil_log2, _SCAN_TOTAL,
                    "ceiling(log(P, 2))")
PAIRWISE = MessageModel(
    "pairwise exchange",
    lambda p, v: max(p - 1, 0),
    lambda p, v: max(p - 1, 0),
    lambda p: max(p - 1, 0),
    "P*(P - 1)",
    "P - 1",
)
# Array counts: the record's bytes are already everything this rank sends (see the module notes).
PAIRWISE_SUMMED = MessageModel(
    "pairwise exchange, summed counts",
    lambda p, v: max(p - 1, 0),
    lambda p, v: int(p > 1),
    lambda p: max(p - 1, 0),
    "P*(P - 1)",
    "P - 1",
)
LINEAR_SCATTER_SUMMED = MessageModel(
    "linear scatter, summed counts",
    lambda p, v: max(p - 1, 0) if v == 0 else 0,
    lambda p, v: int(p > 1 and v == 0),
    lambda p: max(p - 1, 0),
    "P - 1",
    "P - 1",
)

# The share of an array count's sum that goes to the other ranks when every rank's block is the
# same (sympy text in P): what the symbolic stage scales a fitted array sum by.
OTHERS_SHARE = "(P - 1)/P"


# ---- the table --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """One parameter of an MPI prototype: C type (``const void *``), name, and whether it is ``x[]``."""

    type: str
    name: str
    is_array: bool = False

    @property
    def declaration(self) -> str:
        sep = "" if self.type.endswith("*") else " "
        return f"{self.type}{sep}{self.name}{'[]' if self.is_array else ''}"


_PROTOTYPE = re.compile(r"^\s*int\s+(MPI_\w+)\s*\((.*)\)\s*$")
_PARAMETER = re.compile(r"^(?P<type>.*?[\s*])(?P<name>\w+)\s*(?P<array>\[\s*\])?$")


def parse_prototype(prototype: str) -> tuple[str, tuple[Parameter, ...]]:
    """Split ``int MPI_X(type a, type *b, type c[])`` into the name and its parameters."""
    match = _PROTOTYPE.match(prototype)
    if not match:
        raise ValueError(f"not an MPI prototype: {prototype!r}")
    name, params = match.group(1), match.group(2).strip()
    if params in ("", "void"):
        return name, ()
    result = []
    for text in params.split(","):
        part = _PARAMETER.match(text.strip())
        if not part:
            raise ValueError(f"{name}: cannot read parameter {text.strip()!r}")
        ctype = part.group("type")
        stars = ctype.count("*")
        base = " ".join(ctype.replace("*", " ").split())
        ctype = f"{base} {'*' * stars}" if stars else base
        result.append(Parameter(ctype, part.group("name"), bool(part.group("array"))))
    return name, tuple(result)


@dataclass(frozen=True)
class MPICall:
    """One MPI function perfeq wraps, with the arguments that matter for counting messages.

    Argument fields are 0-based parameter indices, None when the call has no such argument.
    ``count``/``datatype`` give ``n``, this rank's block (for scatter the receive side, which is
    significant on every rank); when ``buffer`` is ``MPI_IN_PLACE`` the ``in_place_count`` /
    ``in_place_datatype`` pair is used instead (an array count is indexed by the rank).

    ``count_sum`` marks a count that is an array over the communicator's ranks (``sendcounts[]``):
    ``"others"`` when every rank sends the blocks of its array to the others (alltoallv,
    reduce_scatter), ``"root"`` when only the root does (scatterv; the other ranks record their
    ``recv_count`` / ``recv_datatype`` block).  The wrapper records the sum of the whole array as
    elements and the sum without this rank's own block times the type size as bytes.
    """

    name: str
    kind: str
    prototype: str
    count: int | None = None
    datatype: int | None = None
    buffer: int | None = None
    in_place_count: int | None = None
    in_place_datatype: int | None = None
    peer: int | None = None
    source: int | None = None
    root: int | None = None
    tag: int | None = None
    comm: int | None = None
    recv_count: int | None = None
    recv_datatype: int | None = None
    count_sum: str | None = None
    model: MessageModel = NO_MESSAGES
    parameters: tuple[Parameter, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        name, parameters = parse_prototype(self.prototype)
        if name != self.name:
            raise ValueError(f"{self.name}: the prototype declares {name}")
        object.__setattr__(self, "parameters", parameters)
        for attr in ("count", "datatype", "buffer", "in_place_count", "in_place_datatype", "peer",
                     "source", "root", "tag", "comm", "recv_count", "recv_datatype"):
            index = getattr(self, attr)
            if index is not None and not 0 <= index < len(parameters):
                raise ValueError(f"{self.name}: {attr} index {index} is out of range")
        if self.count_sum not in (None, "others", "root"):
            raise ValueError(f"{self.name}: count_sum {self.count_sum!r} is not 'others' or 'root'")
        array = self.count is not None and parameters[self.count].is_array
        if array != (self.count_sum is not None):
            raise ValueError(f"{self.name}: an array count needs count_sum, and count_sum an array count")
        if self.count_sum == "root" and (self.root is None or self.recv_count is None or self.recv_datatype is None):
            raise ValueError(f"{self.name}: count_sum 'root' needs root, recv_count and recv_datatype")

    @property
    def rooted(self) -> bool:
        return self.root is not None

    def argument(self, attr: str) -> str | None:
        """The parameter name of argument ``attr`` (e.g. ``"count"``), or None."""
        index = getattr(self, attr)
        return None if index is None else self.parameters[index].name

    # C snippets for the wrapper template.
    @property
    def c_parameters(self) -> str:
        return ", ".join(p.declaration for p in self.parameters) or "void"

    @property
    def c_arguments(self) -> str:
        return ", ".join(p.name for p in self.parameters)

    def _in_place(self, main: str, alt_index: int | None, alt_text: str | None = None) -> str:
        if self.buffer is None or alt_index is None:
            return main
        if alt_text is None:
            alt = self.parameters[alt_index]
            alt_text = f"(perfeq__rank >= 0 ? {alt.name}[perfeq__rank] : 0)" if alt.is_array else alt.name
        return f"({self.parameters[self.buffer].name} == MPI_IN_PLACE ? {alt_text} : {main})"

    def _summed(self, index: int, skip: str) -> str:
        return f"perfeq__sum_counts({self.parameters[index].name}, perfeq__size, {skip})"

    def _count(self, skip: str) -> str:
        """This rank's elements: the count, or the sum of an array count leaving out entry ``skip``."""
        assert self.count is not None
        if self.count_sum is None:
            return self._in_place(self.parameters[self.count].name, self.in_place_count)
        alt = None if self.in_place_count is None else self._summed(self.in_place_count, skip)
        return self._in_place(self._summed(self.count, skip), self.in_place_count, alt)

    def _at_root(self, root_text: str, other_text: str) -> str:
        return f"(perfeq__rank == {self.c_root} ? {root_text} : {other_text})"

    @property
    def c_elements(self) -> str:
        """C expression of this rank's elements (``perfeq__size``/``perfeq__rank`` are known)."""
        if self.count is None:
            return "0"
        text = self._count("-1")
        if self.count_sum == "root":
            assert self.recv_count is not None
            text = self._at_root(text, self.parameters[self.recv_count].name)
        return f"(long long){text}"

    @property
    def c_bytes(self) -> str:
        """C expression of this rank's bytes: elements times the type size; for an array count the
        blocks for the other ranks only (what this rank sends)."""
        if self.count is None:
            return "0"
        if self.count_sum is None:
            return f"perfeq__elements * perfeq__type_size({self.c_datatype})"
        sent = f"{self._count('perfeq__rank')} * perfeq__type_size({self.c_datatype})"
        if self.count_sum == "root":
            assert self.recv_count is not None and self.recv_datatype is not None
            block = (f"(long long){self.parameters[self.recv_count].name} * "
                     f"perfeq__type_size({self.parameters[self.recv_datatype].name})")
            return self._at_root(sent, block)
        return sent

    @property
    def c_datatype(self) -> str:
        if self.datatype is None:
            return "MPI_DATATYPE_NULL"
        return self._in_place(self.parameters[self.datatype].name, self.in_place_datatype)

    @property
    def c_root(self) -> str:
        return "-1" if self.root is None else self.parameters[self.root].name

    @property
    def c_comm(self) -> str | None:
        return None if self.comm is None else self.parameters[self.comm].name


def _table(*calls: MPICall) -> dict[str, MPICall]:
    return {call.name: call for call in calls}


_SEND = "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm"
_COLL = "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf"

MPI_CALLS: dict[str, MPICall] = _table(
    MPICall("MPI_Init", "init", "int MPI_Init(int *argc, char ***argv)"),
    MPICall("MPI_Init_thread", "init",
            "int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)"),
    MPICall("MPI_Finalize", "finalize", "int MPI_Finalize(void)"),
    MPICall("MPI_Comm_size", "comm_size", "int MPI_Comm_size(MPI_Comm comm, int *size)", comm=0),
    MPICall("MPI_Comm_rank", "comm_rank", "int MPI_Comm_rank(MPI_Comm comm, int *rank)", comm=0),
    MPICall("MPI_Send", "send", f"int MPI_Send({_SEND})",
            count=1, datatype=2, peer=3, tag=4, comm=5, model=POINT_TO_POINT),
    MPICall("MPI_Ssend", "send", f"int MPI_Ssend({_SEND})",
            count=1, datatype=2, peer=3, tag=4, comm=5, model=POINT_TO_POINT),
    MPICall("MPI_Recv", "recv",
            "int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, "
            "MPI_Comm comm, MPI_Status *status)",
            count=1, datatype=2, peer=3, tag=4, comm=5),
    MPICall("MPI_Sendrecv", "sendrecv",
            "int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, "
            "int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, "
            "int recvtag, MPI_Comm comm, MPI_Status *status)",
            count=1, datatype=2, peer=3, tag=4, recv_count=6, recv_datatype=7, source=8, comm=10,
            model=POINT_TO_POINT),
    MPICall("MPI_Isend", "isend", f"int MPI_Isend({_SEND}, MPI_Request *request)",
            count=1, datatype=2, peer=3, tag=4, comm=5, model=POINT_TO_POINT),
    MPICall("MPI_Irecv", "irecv",
            "int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, "
            "MPI_Comm comm, MPI_Request *request)",
            count=1, datatype=2, peer=3, tag=4, comm=5),
    MPICall("MPI_Wait", "wait", "int MPI_Wait(MPI_Request *request, MPI_Status *status)"),
    MPICall("MPI_Waitall", "waitall",
            "int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])"),
    MPICall("MPI_Barrier", "barrier", "int MPI_Barrier(MPI_Comm comm)", comm=0, model=RECURSIVE_DOUBLING),
    MPICall("MPI_Bcast", "bcast",
            "int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)",
            count=1, datatype=2, root=3, comm=4, model=BINOMIAL_BCAST),
    MPICall("MPI_Reduce", "reduce",
            "int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, "
            "MPI_Op op, int root, MPI_Comm comm)",
            count=2, datatype=3, root=5, comm=6, model=BINOMIAL_REDUCE),
    MPICall("MPI_Allreduce", "allreduce",
            "int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, "
            "MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, model=RECURSIVE_DOUBLING),
    MPICall("MPI_Gather", "gather",
            f"int MPI_Gather({_COLL}, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=5,
            recv_count=4, recv_datatype=5, root=6, comm=7, model=BINOMIAL_GATHER),
    MPICall("MPI_Gatherv", "gatherv",
            f"int MPI_Gatherv({_COLL}, const int recvcounts[], const int displs[], "
            "MPI_Datatype recvtype, int root, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=6,
            recv_count=4, recv_datatype=6, root=7, comm=8, model=LINEAR_GATHER),
    MPICall("MPI_Scatter", "scatter",
            f"int MPI_Scatter({_COLL}, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)",
            count=4, datatype=5, buffer=3, in_place_count=1, in_place_datatype=2,
            recv_count=4, recv_datatype=5, root=6, comm=7, model=BINOMIAL_SCATTER),
    MPICall("MPI_Allgather", "allgather",
            f"int MPI_Allgather({_COLL}, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=5,
            recv_count=4, recv_datatype=5, comm=6, model=RING),
    MPICall("MPI_Allgatherv", "allgatherv",
            f"int MPI_Allgatherv({_COLL}, const int recvcounts[], const int displs[], "
            "MPI_Datatype recvtype, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=6,
            recv_count=4, recv_datatype=6, comm=7, model=RING),
    MPICall("MPI_Alltoall", "alltoall",
            f"int MPI_Alltoall({_COLL}, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=5,
            recv_count=4, recv_datatype=5, comm=6, model=PAIRWISE),
    MPICall("MPI_Alltoallv", "alltoallv",
            "int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], "
            "MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], "
            "MPI_Datatype recvtype, MPI_Comm comm)",
            count=1, datatype=3, buffer=0, in_place_count=5, in_place_datatype=7,
            recv_count=5, recv_datatype=7, comm=8, count_sum="others", model=PAIRWISE_SUMMED),
    MPICall("MPI_Scatterv", "scatterv",
            "int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], "
            "MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, "
            "MPI_Comm comm)",
            count=1, datatype=3, recv_count=5, recv_datatype=6, root=7, comm=8, count_sum="root",
            model=LINEAR_SCATTER_SUMMED),
    MPICall("MPI_Scan", "scan",
            "int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, "
            "MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, model=SCAN),
    MPICall("MPI_Exscan", "exscan",
            "int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, "
            "MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, model=SCAN),
    MPICall("MPI_Reduce_scatter_block", "reduce_scatter_block",
            "int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, "
            "MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, model=PAIRWISE),
    MPICall("MPI_Reduce_scatter", "reduce_scatter",
            "int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], "
            "MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, count_sum="others", model=PAIRWISE_SUMMED),
)


# ---- messages from the wrappers' records ------------------------------------------------------


@dataclass(frozen=True)
class MessageCounts:
    """Messages and bytes one rank sent, and messages on the critical path, for some calls."""

    sent: int = 0
    bytes_sent: int = 0
    critical: int = 0

    def __add__(self, other: MessageCounts) -> MessageCounts:
        return MessageCounts(self.sent + other.sent, self.bytes_sent + other.bytes_sent,
                             self.critical + other.critical)


def relative_rank(comm_size: int | None, comm_rank: int | None, root: int | None) -> tuple[int, int]:
    """(P, v) of a record: the communicator's size (1 when unknown) and this rank's rank relative
    to the root (its rank when the call has no root), as the message models take them."""
    p = comm_size if comm_size and comm_size > 0 else 1
    rank = comm_rank if comm_rank is not None and comm_rank >= 0 else 0
    return p, (rank - root) % p if root is not None and root >= 0 else rank


def message_counts(call: str, *, calls: int, nbytes: int, comm_size: int | None,
                   comm_rank: int | None, root: int | None) -> MessageCounts:
    """The messages of ``calls`` calls of ``call`` by one rank, whose blocks total ``nbytes``.

    Raises KeyError for a call that is not in :data:`MPI_CALLS`.
    """
    spec = MPI_CALLS[call]
    p, v = relative_rank(comm_size, comm_rank, root)
    model = spec.model
    return MessageCounts(
        sent=calls * model.sent(p, v),
        bytes_sent=model.blocks(p, v) * nbytes,
        critical=calls * model.critical(p),
    )


# ---- generating perfeq_mpi.c ------------------------------------------------------------------


def render_wrappers() -> str:
    """The text of ``perfeq_mpi.c``, generated from :data:`MPI_CALLS`."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE.parent)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(TEMPLATE.name).render(calls=list(MPI_CALLS.values()))


def generated_is_current(path: Path = GENERATED) -> bool:
    """Whether the committed ``perfeq_mpi.c`` is what :func:`render_wrappers` gives."""
    try:
        return path.read_text(encoding="utf-8") == render_wrappers()
    except FileNotFoundError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfeq.runtime.mpi_spec",
                                     description="Generate runtime/perfeq_mpi.c from the MPI call table.")
    parser.add_argument("--check", action="store_true", help="fail if perfeq_mpi.c is not current")
    args = parser.parse_args(argv)
    if args.check:
        if generated_is_current():
            return 0
        print(f"{GENERATED}: out of date; run: python -m perfeq.runtime.mpi_spec", file=sys.stderr)
        return 1
    GENERATED.write_text(render_wrappers(), encoding="utf-8")
    print(f"wrote {GENERATED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
