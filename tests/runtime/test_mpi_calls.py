"""The MPI call table: argument indices, prototypes, and the message algorithms."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from perfeq.runtime.mpi.calls import MPI_CALLS, MPICall, Parameter, parse_prototype
from perfeq.symbolic.messages import MessageCounts, message_counts, model_of

COLLECTIVES = [name for name, call in MPI_CALLS.items() if call.comm is not None and model_of(call.name).name != "none"
               and call.kind not in ("send", "sendrecv", "isend")]


def test_argument_indices_name_the_right_parameters() -> None:
    for call in MPI_CALLS.values():
        if call.comm is not None:
            assert call.argument("comm") == "comm"
        if call.root is not None:
            assert call.argument("root") == "root"
        if call.datatype is not None:
            assert call.argument("datatype") in ("datatype", "sendtype", "recvtype")
            assert call.argument("count") in ("count", "sendcount", "recvcount", "sendcounts", "recvcounts")
            assert call.parameters[call.count].is_array == (call.count_sum is not None)
        if call.peer is not None:
            assert call.argument("peer") in ("dest", "source")
        if call.tag is not None:
            assert call.argument("tag") in ("tag", "sendtag")
    assert MPI_CALLS["MPI_Send"].argument("peer") == "dest"
    assert MPI_CALLS["MPI_Recv"].argument("peer") == "source"
    assert MPI_CALLS["MPI_Scatter"].argument("count") == "recvcount"  # significant on every rank
    assert MPI_CALLS["MPI_Sendrecv"].argument("source") == "source"
    assert MPI_CALLS["MPI_Alltoallv"].argument("count") == "sendcounts"
    assert MPI_CALLS["MPI_Alltoallv"].argument("in_place_count") == "recvcounts"
    assert MPI_CALLS["MPI_Scatterv"].argument("recv_count") == "recvcount"
    assert MPI_CALLS["MPI_Reduce_scatter"].argument("count") == "recvcounts"


def test_model_names_identify_one_model() -> None:
    models: dict[str, object] = {}
    for call in MPI_CALLS.values():
        assert models.setdefault(model_of(call.name).name, model_of(call.name)) is model_of(call.name), model_of(call.name).name
    assert model_of("MPI_Bcast").name != model_of("MPI_Reduce").name


def test_required_calls_are_known() -> None:
    kinds = {call.kind for call in MPI_CALLS.values()}
    assert kinds >= {"send", "recv", "sendrecv", "isend", "irecv", "wait", "waitall", "bcast", "reduce",
                     "allreduce", "gather", "gatherv", "scatter", "allgather", "allgatherv", "alltoall",
                     "barrier", "comm_size", "comm_rank", "init", "finalize", "alltoallv", "scan", "exscan",
                     "scatterv", "reduce_scatter", "reduce_scatter_block"}


def test_prototypes_are_the_mpi3_ones() -> None:
    assert MPI_CALLS["MPI_Alltoallv"].c_parameters == (
        "const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, "
        "void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm")
    for name in ("MPI_Scan", "MPI_Exscan"):
        assert MPI_CALLS[name].c_parameters == ("const void *sendbuf, void *recvbuf, int count, "
                                                "MPI_Datatype datatype, MPI_Op op, MPI_Comm comm")
    assert MPI_CALLS["MPI_Scatterv"].c_parameters == (
        "const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, "
        "void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm")
    assert MPI_CALLS["MPI_Reduce_scatter"].c_parameters == (
        "const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, "
        "MPI_Comm comm")


def test_array_counts_are_summed_in_the_wrapper() -> None:
    """elements: the whole array; bytes: without this rank's block (what it sends)."""
    alltoallv = MPI_CALLS["MPI_Alltoallv"]
    assert "perfeq__sum_counts(sendcounts, perfeq__size, -1)" in alltoallv.c_elements
    assert "perfeq__sum_counts(sendcounts, perfeq__size, perfeq__rank)" in alltoallv.c_bytes
    assert "sendbuf == MPI_IN_PLACE ? perfeq__sum_counts(recvcounts" in alltoallv.c_bytes
    scatterv = MPI_CALLS["MPI_Scatterv"]
    assert scatterv.c_elements.startswith("(long long)(perfeq__rank == root ? perfeq__sum_counts(sendcounts")
    assert MPI_CALLS["MPI_Send"].c_bytes == "perfeq__elements * perfeq__type_size(datatype)"
    with pytest.raises(ValueError, match="count_sum"):
        MPICall("MPI_Alltoallv", "alltoallv", alltoallv.prototype, count=1, datatype=3, comm=8)


def test_prototypes_are_parsed() -> None:
    name, params = parse_prototype("int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *s)")
    assert name == "MPI_Waitall"
    assert params == (Parameter("int", "count"), Parameter("MPI_Request", "array_of_requests", True),
                      Parameter("MPI_Status *", "s"))
    assert [p.declaration for p in params] == ["int count", "MPI_Request array_of_requests[]", "MPI_Status *s"]
    assert parse_prototype("int MPI_Finalize(void)") == ("MPI_Finalize", ())
    assert MPI_CALLS["MPI_Init"].c_parameters == "int *argc, char ***argv"
    with pytest.raises(ValueError):
        parse_prototype("void MPI_X(int a)")


def _sent(name: str, p: int) -> list[int]:
    model = model_of(name)
    return [model.sent(p, v) for v in range(p)]


@pytest.mark.parametrize("name", COLLECTIVES)
@pytest.mark.parametrize("p", list(range(1, 18)))
def test_message_models_match_their_formulas(name: str, p: int) -> None:
    model = model_of(name)
    symbol = sympy.Symbol("P", positive=True, integer=True)
    total = sympy.sympify(model.total, locals={"P": symbol}).subs(symbol, p)
    critical = sympy.sympify(model.critical_formula, locals={"P": symbol}).subs(symbol, p)
    assert sum(_sent(name, p)) == int(total)
    assert model.critical(p) == int(critical)


@given(st.integers(min_value=1, max_value=200))
def test_binomial_trees_reach_every_rank_once(p: int) -> None:
    bcast = _sent("MPI_Bcast", p)
    assert sum(bcast) == p - 1
    scatter, gather = model_of("MPI_Scatter"), model_of("MPI_Gather")
    assert scatter.blocks(p, 0) == p - 1  # the root sends every other rank's block once
    # the root's children (ranks 1, 2, 4, ...) bring it every other rank's block
    root_children = [1 << k for k in range(p.bit_length()) if 1 << k < p]
    assert sum(gather.blocks(p, v) for v in root_children) == p - 1
    assert [gather.sent(p, v) for v in range(p)] == [0] + [1] * (p - 1)


@given(st.integers(min_value=1, max_value=300))
def test_recursive_doubling_sends_a_message_per_partner(p: int) -> None:
    sent = _sent("MPI_Allreduce", p)
    assert len(set(sent)) <= 3
    assert max(sent) <= model_of("MPI_Allreduce").critical(p)


def test_message_counts_at_two_and_four_ranks() -> None:
    # Bcast of 128 bytes from root 0: at P=4 rank 0 sends to 2 and 1, rank 2 to 3.
    per_rank = [message_counts("MPI_Bcast", calls=3, nbytes=384, comm_size=4, comm_rank=r, root=0) for r in range(4)]
    assert per_rank == [MessageCounts(6, 768, 6), MessageCounts(0, 0, 6), MessageCounts(3, 384, 6),
                        MessageCounts(0, 0, 6)]
    # the same tree relative to root 1
    assert [message_counts("MPI_Bcast", calls=1, nbytes=8, comm_size=4, comm_rank=r, root=1).sent
            for r in range(4)] == [0, 2, 0, 1]
    assert message_counts("MPI_Allreduce", calls=2, nbytes=16, comm_size=2, comm_rank=1, root=None) == \
        MessageCounts(2, 16, 2)
    assert message_counts("MPI_Allreduce", calls=1, nbytes=8, comm_size=4, comm_rank=3, root=None) == \
        MessageCounts(2, 16, 2)
    assert message_counts("MPI_Send", calls=5, nbytes=40, comm_size=4, comm_rank=0, root=None) == \
        MessageCounts(5, 40, 5)
    assert message_counts("MPI_Recv", calls=5, nbytes=40, comm_size=4, comm_rank=1, root=None) == MessageCounts()
    assert message_counts("MPI_Alltoall", calls=1, nbytes=8, comm_size=4, comm_rank=2, root=None) == \
        MessageCounts(3, 24, 3)
    # array counts: the record's bytes are everything the rank sends, in P - 1 messages
    assert message_counts("MPI_Alltoallv", calls=2, nbytes=300, comm_size=4, comm_rank=1, root=None) == \
        MessageCounts(6, 300, 6)
    assert message_counts("MPI_Alltoallv", calls=1, nbytes=0, comm_size=1, comm_rank=0, root=None) == MessageCounts()
    assert [message_counts("MPI_Scatterv", calls=1, nbytes=40, comm_size=3, comm_rank=r, root=1)
            for r in range(3)] == [MessageCounts(0, 0, 2), MessageCounts(2, 40, 2), MessageCounts(0, 0, 2)]
    assert message_counts("MPI_Reduce_scatter_block", calls=1, nbytes=8, comm_size=3, comm_rank=0,
                          root=None) == MessageCounts(2, 16, 2)
    with pytest.raises(KeyError):
        message_counts("MPI_Nope", calls=1, nbytes=0, comm_size=1, comm_rank=0, root=None)


def test_scan_is_mpich_recursive_doubling() -> None:
    # round k pairs v with v xor 2**k when that rank exists: at P = 3, rank 0 talks to 1 and 2
    assert _sent("MPI_Scan", 3) == [2, 1, 1]
    assert _sent("MPI_Exscan", 5) == [3, 2, 2, 2, 1]
    assert _sent("MPI_Scan", 8) == [3] * 8
    assert model_of("MPI_Exscan").critical(5) == 3
    assert message_counts("MPI_Exscan", calls=1, nbytes=8, comm_size=3, comm_rank=0, root=None) == \
        MessageCounts(2, 16, 2)


@given(st.integers(min_value=1, max_value=200))
def test_scan_messages_pair_up(p: int) -> None:
    # every exchange is a sendrecv: rank v sends to w in round k exactly when w sends to v
    model = model_of("MPI_Scan")
    assert sum(_sent("MPI_Scan", p)) % 2 == 0
    assert max(_sent("MPI_Scan", p)) == model.critical(p)
