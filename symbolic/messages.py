"""How MPI calls turn into point-to-point messages: the collective algorithms, and a rank's messages.

Part of perfeq stage 3 (symbolic/).  The MPI call table (perfeq.runtime.mpi.calls) names each
call's algorithm; this module owns the algorithms.  The measured counts of a trace and the model's
message functions (symbolic/counts/comm.py) both count messages here.

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

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from perfeq.runtime.mpi.calls import MPI_CALLS

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

# Every algorithm by name: what the call table's ``messages`` field refers to.
MODELS: dict[str, MessageModel] = {model.name: model for model in (
    NO_MESSAGES, POINT_TO_POINT, BINOMIAL_BCAST, BINOMIAL_REDUCE, BINOMIAL_GATHER, BINOMIAL_SCATTER,
    LINEAR_GATHER, RECURSIVE_DOUBLING, RING, SCAN, PAIRWISE, PAIRWISE_SUMMED, LINEAR_SCATTER_SUMMED)}
_UNKNOWN = sorted({call.messages for call in MPI_CALLS.values()} - set(MODELS))
if _UNKNOWN:  # a table entry naming an algorithm this module does not have
    raise ImportError(f"perfeq.runtime.mpi.calls names message algorithms that do not exist: {_UNKNOWN}")


def model_of(call: str) -> MessageModel:
    """The message algorithm of MPI function ``call``; KeyError when the table does not know it."""
    return MODELS[MPI_CALLS[call].messages]


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

    Raises KeyError for a call that is not in :data:`MPI_CALLS`.  A point-to-point send recorded
    with communicator size 0 had no partner (``MPI_PROC_NULL``): no message.
    """
    model = model_of(call)
    if comm_size == 0 and MPI_CALLS[call].c_null is not None:
        return MessageCounts()
    p, v = relative_rank(comm_size, comm_rank, root)
    return MessageCounts(
        sent=calls * model.sent(p, v),
        bytes_sent=model.blocks(p, v) * nbytes,
        critical=calls * model.critical(p),
    )


def summed_messages(records: Iterable) -> MessageCounts:
    """The messages of MPI call records (``call``, ``calls``, ``bytes``, ``comm_size``,
    ``comm_rank``, ``root``: a trace's MPIRecord), summed."""
    total = MessageCounts()
    for rec in records:
        total = total + message_counts(rec.call, calls=rec.calls, nbytes=rec.bytes, comm_size=rec.comm_size,
                                       comm_rank=rec.comm_rank, root=rec.root)
    return total
