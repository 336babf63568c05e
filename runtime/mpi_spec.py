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
allreduce, barrier recursive doubling (MPICH;      P' log2 P' + 2 (P - P'),       log2 P' + 2 [P > P']
                   P' = 2**floor(log2 P))          barrier with 0 bytes
allgather(v)       ring                            P (P - 1)                      P - 1
alltoall           pairwise exchange               P (P - 1)                      P - 1
=================  ==============================  =============================  ==================

Bytes sent by a rank are its messages times ``n``, except gather (a non-root sends its subtree's
blocks) and scatter (a rank sends each child its subtree's blocks).  MPICH switches algorithms by
message size; perfeq keeps one model per call so that counts stay linear in ``n`` (documented
approximation; allgatherv and gatherv assume this rank's block for every rank).
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
PAIRWISE = MessageModel(
    "pairwise exchange",
    lambda p, v: max(p - 1, 0),
    lambda p, v: max(p - 1, 0),
    lambda p: max(p - 1, 0),
    "P*(P - 1)",
    "P - 1",
)


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

    def _in_place(self, main: str, alt_index: int | None) -> str:
        if self.buffer is None or alt_index is None:
            return main
        alt = self.parameters[alt_index]
        alt_text = f"(perfeq__rank >= 0 ? {alt.name}[perfeq__rank] : 0)" if alt.is_array else alt.name
        return f"({self.parameters[self.buffer].name} == MPI_IN_PLACE ? {alt_text} : {main})"

    @property
    def c_elements(self) -> str:
        if self.count is None:
            return "0"
        return f"(long long){self._in_place(self.parameters[self.count].name, self.in_place_count)}"

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


def message_counts(call: str, *, calls: int, nbytes: int, comm_size: int | None,
                   comm_rank: int | None, root: int | None) -> MessageCounts:
    """The messages of ``calls`` calls of ``call`` by one rank, whose blocks total ``nbytes``.

    Raises KeyError for a call that is not in :data:`MPI_CALLS`.
    """
    spec = MPI_CALLS[call]
    p = comm_size if comm_size and comm_size > 0 else 1
    rank = comm_rank if comm_rank is not None and comm_rank >= 0 else 0
    v = (rank - root) % p if root is not None and root >= 0 else rank
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
