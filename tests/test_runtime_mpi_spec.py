"""The MPI call table: argument indices, prototypes, and the message algorithms."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from perfeq.runtime.mpi_spec import (
    MPI_CALLS,
    MessageCounts,
    Parameter,
    message_counts,
    parse_prototype,
)

COLLECTIVES = [name for name, call in MPI_CALLS.items() if call.comm is not None and call.model.name != "none"
               and call.kind not in ("send", "sendrecv", "isend")]


def test_argument_indices_name_the_right_parameters() -> None:
    for call in MPI_CALLS.values():
        if call.comm is not None:
            assert call.argument("comm") == "comm"
        if call.root is not None:
            assert call.argument("root") == "root"
        if call.datatype is not None:
            assert call.argument("datatype") in ("datatype", "sendtype", "recvtype")
            assert call.argument("count") in ("count", "sendcount", "recvcount")
        if call.peer is not None:
            assert call.argument("peer") in ("dest", "source")
        if call.tag is not None:
            assert call.argument("tag") in ("tag", "sendtag")
    assert MPI_CALLS["MPI_Send"].argument("peer") == "dest"
    assert MPI_CALLS["MPI_Recv"].argument("peer") == "source"
    assert MPI_CALLS["MPI_Scatter"].argument("count") == "recvcount"  # significant on every rank
    assert MPI_CALLS["MPI_Sendrecv"].argument("source") == "source"


def test_model_names_identify_one_model() -> None:
    models: dict[str, object] = {}
    for call in MPI_CALLS.values():
        assert models.setdefault(call.model.name, call.model) is call.model, call.model.name
    assert MPI_CALLS["MPI_Bcast"].model.name != MPI_CALLS["MPI_Reduce"].model.name


def test_required_calls_are_known() -> None:
    kinds = {call.kind for call in MPI_CALLS.values()}
    assert kinds >= {"send", "recv", "sendrecv", "isend", "irecv", "wait", "waitall", "bcast", "reduce",
                     "allreduce", "gather", "gatherv", "scatter", "allgather", "allgatherv", "alltoall",
                     "barrier", "comm_size", "comm_rank", "init", "finalize"}


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
    model = MPI_CALLS[name].model
    return [model.sent(p, v) for v in range(p)]


@pytest.mark.parametrize("name", COLLECTIVES)
@pytest.mark.parametrize("p", list(range(1, 18)))
def test_message_models_match_their_formulas(name: str, p: int) -> None:
    model = MPI_CALLS[name].model
    symbol = sympy.Symbol("P", positive=True, integer=True)
    total = sympy.sympify(model.total, locals={"P": symbol}).subs(symbol, p)
    critical = sympy.sympify(model.critical_formula, locals={"P": symbol}).subs(symbol, p)
    assert sum(_sent(name, p)) == int(total)
    assert model.critical(p) == int(critical)


@given(st.integers(min_value=1, max_value=200))
def test_binomial_trees_reach_every_rank_once(p: int) -> None:
    bcast = _sent("MPI_Bcast", p)
    assert sum(bcast) == p - 1
    scatter, gather = MPI_CALLS["MPI_Scatter"].model, MPI_CALLS["MPI_Gather"].model
    assert scatter.blocks(p, 0) == p - 1  # the root sends every other rank's block once
    # the root's children (ranks 1, 2, 4, ...) bring it every other rank's block
    root_children = [1 << k for k in range(p.bit_length()) if 1 << k < p]
    assert sum(gather.blocks(p, v) for v in root_children) == p - 1
    assert [gather.sent(p, v) for v in range(p)] == [0] + [1] * (p - 1)


@given(st.integers(min_value=1, max_value=300))
def test_recursive_doubling_sends_a_message_per_partner(p: int) -> None:
    sent = _sent("MPI_Allreduce", p)
    assert len(set(sent)) <= 3
    assert max(sent) <= MPI_CALLS["MPI_Allreduce"].model.critical(p)


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
    with pytest.raises(KeyError):
        message_counts("MPI_Nope", calls=1, nbytes=0, comm_size=1, comm_rank=0, root=None)
