"""The MPI calls perfeq knows: one declarative table for the instrumenter, the runtime and the counts.

Part of perfeq stage 2 (runtime/).  Each :class:`MPICall` gives the MPI-3 prototype and which
argument is the count, datatype, peer, root, tag and communicator; the instrumenter builds its
communication descriptors from it, ``runtime/c/perfeq_mpi.c`` (the PMPI wrappers) is generated from
it by runtime/mpi/wrappers.py, and the symbolic stage turns the wrappers' records into messages with
the algorithm each call names (``messages``; the algorithms are perfeq.symbolic.messages).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

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
    messages: str = "none"  # the message algorithm, by name (perfeq.symbolic.messages.MODELS)
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
    def synchronisation(self) -> str | None:
        """How the call synchronises ranks: ``"global"`` (a collective: every rank of the
        communicator waits for the slowest), ``"local"`` (a blocking point-to-point call: it waits
        for its partner) or None (it does not wait for another rank: init, queries, non-blocking
        starts).  The wrappers time the synchronising calls (docs/trace.md, version 2)."""
        if self.kind in GLOBAL_SYNC_KINDS:
            return "global"
        if self.kind in LOCAL_SYNC_KINDS:
            return "local"
        return None

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

    @property
    def c_null(self) -> str | None:
        """C test that a point-to-point send has no partner (``MPI_PROC_NULL``, the edge of a
        non-periodic Cartesian grid): no message, recorded with communicator size 0."""
        if self.messages != "point-to-point" or self.peer is None:
            return None
        return f"{self.parameters[self.peer].name} == MPI_PROC_NULL"


# Kinds of calls that wait for other ranks (MPICall.synchronisation).
GLOBAL_SYNC_KINDS = frozenset({"barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
                               "allgather", "allgatherv", "alltoall", "alltoallv", "scan", "exscan",
                               "reduce_scatter", "reduce_scatter_block"})
LOCAL_SYNC_KINDS = frozenset({"send", "recv", "sendrecv", "wait", "waitall"})


def _table(*calls: MPICall) -> dict[str, MPICall]:
    return {call.name: call for call in calls}


def _nonblocking(call: MPICall) -> MPICall:
    """The non-blocking twin of a blocking collective (MPI_Ibcast of MPI_Bcast): its arguments and
    a request after them.  It sends what the blocking call does; it returns at once (the wait for
    its request is where a rank waits), so it is not timed as synchronising (kind ``i`` + kind)."""
    rest = call.name[len("MPI_"):]
    name = f"MPI_I{rest[0].lower()}{rest[1:]}"
    head, params = call.prototype.split("(", 1)
    params = params.rsplit(")", 1)[0]
    prototype = f"{head.replace(call.name, name)}({params}, MPI_Request *request)"
    return replace(call, name=name, kind="i" + call.kind, prototype=prototype)


# the collectives whose non-blocking twins (MPI-3) perfeq counts
NONBLOCKING = ("MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Scatter",
               "MPI_Allgather", "MPI_Alltoall")


_SEND = "const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm"
_COLL = "const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf"

_BLOCKING: dict[str, MPICall] = _table(
    MPICall("MPI_Init", "init", "int MPI_Init(int *argc, char ***argv)"),
    MPICall("MPI_Init_thread", "init",
            "int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)"),
    MPICall("MPI_Finalize", "finalize", "int MPI_Finalize(void)"),
    MPICall("MPI_Comm_size", "comm_size", "int MPI_Comm_size(MPI_Comm comm, int *size)", comm=0),
    MPICall("MPI_Comm_rank", "comm_rank", "int MPI_Comm_rank(MPI_Comm comm, int *rank)", comm=0),
    MPICall("MPI_Send", "send", f"int MPI_Send({_SEND})",
            count=1, datatype=2, peer=3, tag=4, comm=5, messages="point-to-point"),
    MPICall("MPI_Ssend", "send", f"int MPI_Ssend({_SEND})",
            count=1, datatype=2, peer=3, tag=4, comm=5, messages="point-to-point"),
    MPICall("MPI_Recv", "recv",
            "int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, "
            "MPI_Comm comm, MPI_Status *status)",
            count=1, datatype=2, peer=3, tag=4, comm=5),
    MPICall("MPI_Sendrecv", "sendrecv",
            "int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, "
            "int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, "
            "int recvtag, MPI_Comm comm, MPI_Status *status)",
            count=1, datatype=2, peer=3, tag=4, recv_count=6, recv_datatype=7, source=8, comm=10,
            messages="point-to-point"),
    MPICall("MPI_Bsend", "send", f"int MPI_Bsend({_SEND})",
            count=1, datatype=2, peer=3, tag=4, comm=5, messages="point-to-point"),
    MPICall("MPI_Rsend", "send", f"int MPI_Rsend({_SEND})",
            count=1, datatype=2, peer=3, tag=4, comm=5, messages="point-to-point"),
    MPICall("MPI_Sendrecv_replace", "sendrecv",
            "int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, "
            "int source, int recvtag, MPI_Comm comm, MPI_Status *status)",
            count=1, datatype=2, peer=3, tag=4, source=5, comm=7, messages="point-to-point"),
    MPICall("MPI_Isend", "isend", f"int MPI_Isend({_SEND}, MPI_Request *request)",
            count=1, datatype=2, peer=3, tag=4, comm=5, messages="point-to-point"),
    MPICall("MPI_Issend", "isend", f"int MPI_Issend({_SEND}, MPI_Request *request)",
            count=1, datatype=2, peer=3, tag=4, comm=5, messages="point-to-point"),
    MPICall("MPI_Irsend", "isend", f"int MPI_Irsend({_SEND}, MPI_Request *request)",
            count=1, datatype=2, peer=3, tag=4, comm=5, messages="point-to-point"),
    MPICall("MPI_Irecv", "irecv",
            "int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, "
            "MPI_Comm comm, MPI_Request *request)",
            count=1, datatype=2, peer=3, tag=4, comm=5),
    MPICall("MPI_Wait", "wait", "int MPI_Wait(MPI_Request *request, MPI_Status *status)"),
    MPICall("MPI_Waitall", "waitall",
            "int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])"),
    MPICall("MPI_Barrier", "barrier", "int MPI_Barrier(MPI_Comm comm)", comm=0, messages="recursive doubling"),
    MPICall("MPI_Bcast", "bcast",
            "int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)",
            count=1, datatype=2, root=3, comm=4, messages="binomial bcast"),
    MPICall("MPI_Reduce", "reduce",
            "int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, "
            "MPI_Op op, int root, MPI_Comm comm)",
            count=2, datatype=3, root=5, comm=6, messages="binomial reduce"),
    MPICall("MPI_Allreduce", "allreduce",
            "int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, "
            "MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, messages="recursive doubling"),
    MPICall("MPI_Gather", "gather",
            f"int MPI_Gather({_COLL}, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=5,
            recv_count=4, recv_datatype=5, root=6, comm=7, messages="binomial gather"),
    MPICall("MPI_Gatherv", "gatherv",
            f"int MPI_Gatherv({_COLL}, const int recvcounts[], const int displs[], "
            "MPI_Datatype recvtype, int root, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=6,
            recv_count=4, recv_datatype=6, root=7, comm=8, messages="linear gather"),
    MPICall("MPI_Scatter", "scatter",
            f"int MPI_Scatter({_COLL}, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)",
            count=4, datatype=5, buffer=3, in_place_count=1, in_place_datatype=2,
            recv_count=4, recv_datatype=5, root=6, comm=7, messages="binomial scatter"),
    MPICall("MPI_Allgather", "allgather",
            f"int MPI_Allgather({_COLL}, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=5,
            recv_count=4, recv_datatype=5, comm=6, messages="ring"),
    MPICall("MPI_Allgatherv", "allgatherv",
            f"int MPI_Allgatherv({_COLL}, const int recvcounts[], const int displs[], "
            "MPI_Datatype recvtype, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=6,
            recv_count=4, recv_datatype=6, comm=7, messages="ring"),
    MPICall("MPI_Alltoall", "alltoall",
            f"int MPI_Alltoall({_COLL}, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)",
            count=1, datatype=2, buffer=0, in_place_count=4, in_place_datatype=5,
            recv_count=4, recv_datatype=5, comm=6, messages="pairwise exchange"),
    MPICall("MPI_Alltoallv", "alltoallv",
            "int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], "
            "MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], "
            "MPI_Datatype recvtype, MPI_Comm comm)",
            count=1, datatype=3, buffer=0, in_place_count=5, in_place_datatype=7,
            recv_count=5, recv_datatype=7, comm=8, count_sum="others", messages="pairwise exchange, summed counts"),
    MPICall("MPI_Scatterv", "scatterv",
            "int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], "
            "MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, "
            "MPI_Comm comm)",
            count=1, datatype=3, recv_count=5, recv_datatype=6, root=7, comm=8, count_sum="root",
            messages="linear scatter, summed counts"),
    MPICall("MPI_Scan", "scan",
            "int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, "
            "MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, messages="recursive doubling scan"),
    MPICall("MPI_Exscan", "exscan",
            "int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, "
            "MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, messages="recursive doubling scan"),
    MPICall("MPI_Reduce_scatter_block", "reduce_scatter_block",
            "int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, "
            "MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, messages="pairwise exchange"),
    MPICall("MPI_Reduce_scatter", "reduce_scatter",
            "int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], "
            "MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)",
            count=2, datatype=3, comm=5, count_sum="others", messages="pairwise exchange, summed counts"),
)
MPI_CALLS: dict[str, MPICall] = {**_BLOCKING, **_table(*(_nonblocking(_BLOCKING[n]) for n in NONBLOCKING))}
