"""The call graph from literal traces: merging threads and ranks, inclusive counts, exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from perfeq.errors import UsageError
from perfeq.runtime.callgraph import CallGraph
from perfeq.runtime.merge import merge_rank_traces
from perfeq.runtime.trace import ValueStat, read_trace
from perfeq.symbolic.measured import count_trace, load_unit_costs, unit_costs

FUNCTIONS = [{"name": "main", "nslots": 3, "nvalues": 1}, {"name": "work", "nslots": 3, "nvalues": 0},
             {"name": "leaf", "nslots": 1, "nvalues": 0}]


def ctx(cid: int, parent: int | None, func: int, site: int | None, calls: int, thread: int = 0,
        regions: int = 0) -> dict[str, Any]:
    return {"record": "context", "id": cid, "parent": parent, "unit": 0, "func": func,
            "caller_unit": None if site is None else 0, "site": site, "thread": thread, "calls": calls,
            "regions": regions}


def counters(cid: int, *pairs: tuple[int, int]) -> dict[str, Any]:
    return {"record": "counters", "context": cid, "counts": [list(p) for p in pairs]}


def rank_file(folder: Path, rank: int, nranks: int, body: list[dict[str, Any]], descriptors: str | None) -> Path:
    records = [
        {"record": "header", "format": "perfeq-trace", "version": 1, "program": "./prog", "argv": ["./prog"],
         "rank": rank, "nranks": nranks},
        {"record": "unit", "id": 0, "source": "prog.c", "descriptors": descriptors, "digest": None,
         "functions": FUNCTIONS},
        *body,
    ]
    records.append({"record": "footer", "records": len(records), "errors": 0, "stopped": False})
    path = folder / f"rank.{rank}.trace"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# main
# ├─ work @1          rank 0: thread 0 and thread 1; rank 1: thread 0
# │  └─ leaf @3
# └─ work @2          rank 0 only
RANK0 = [
    ctx(0, None, 0, None, 1, regions=2), counters(0, (0, 1), (2, 10)),
    {"record": "values", "context": 0, "values": [{"slot": 0, "n": 1, "first": 64, "last": 64, "min": 64,
                                                    "max": 64, "sum": 64}]},
    ctx(1, 0, 1, 1, 2), counters(1, (0, 2), (1, 6)),
    ctx(2, 1, 2, 3, 6), counters(2, (0, 6)),
    ctx(3, 0, 1, 1, 3, thread=1), counters(3, (0, 3), (1, 9)),
    ctx(4, 0, 1, 2, 1), counters(4, (0, 1)),
    {"record": "mpi", "context": 4, "site": 7, "call": "MPI_Send", "calls": 1, "elements": 8, "bytes": 64,
     "comm_size": 2, "comm_rank": 0, "root": None},
]
RANK1 = [
    ctx(0, None, 0, None, 1), counters(0, (0, 1), (2, 5)),
    {"record": "values", "context": 0, "values": [{"slot": 0, "n": 1, "first": 32, "last": 32, "min": 32,
                                                    "max": 32, "sum": 32}]},
    ctx(1, 0, 1, 1, 4), counters(1, (0, 4)),
    {"record": "mpi", "context": None, "site": None, "call": "MPI_Recv", "calls": 1, "elements": 8, "bytes": 64,
     "comm_size": 2, "comm_rank": 1, "root": None},
]
DESCRIPTORS = {
    "format": "perfeq-descriptors", "version": 1,
    "functions": [{"id": 0, "name": "main"}, {"id": 1, "name": "work"}, {"id": 2, "name": "leaf"}],
    "blocks": [
        {"id": 0, "function": 0, "slot": 0, "ops": {"flops": 2, "total": 2}, "in_parallel": False},
        {"id": 1, "function": 1, "slot": 0, "ops": {"total": 1}, "in_parallel": False},
        {"id": 2, "function": 1, "slot": 1, "ops": {"total": 2}, "in_parallel": True},
        {"id": 3, "function": 2, "slot": 0, "ops": {"total": 0}, "in_parallel": False},
    ],
    "loops": [],
}


@pytest.fixture()
def trace_path(tmp_path: Path) -> Path:
    descriptors = tmp_path / "prog.perfeq.json"
    descriptors.write_text(json.dumps(DESCRIPTORS))
    paths = [rank_file(tmp_path, r, 2, body, str(descriptors)) for r, body in ((0, RANK0), (1, RANK1))]
    return merge_rank_traces(paths, tmp_path / "prog.trace").path


def test_merged_graph_as_hatchet_literal(trace_path: Path) -> None:
    graph = CallGraph.from_trace(read_trace(trace_path), costs=unit_costs)

    def m(calls: int, inc: int, blocks: int, blocks_inc: int, ops: float, ops_inc: float, regions: int = 0,
          mpi: int = 0) -> dict[str, Any]:
        return {"calls": calls, "calls (inc)": inc, "regions": regions, "mpi calls": mpi, "blocks": blocks,
                "blocks (inc)": blocks_inc, "ops": ops, "ops (inc)": ops_inc}

    assert graph.to_literal() == [
        {"frame": {"name": "main", "type": "function"}, "metrics": m(2, 18, 2, 33, 4.0, 44.0, regions=2),
         "children": [
             {"frame": {"name": "work", "type": "function"}, "metrics": m(9, 15, 24, 30, 39.0, 39.0),
              "children": [{"frame": {"name": "leaf", "type": "function"}, "metrics": m(6, 6, 6, 6, 0.0, 0.0)}]},
             {"frame": {"name": "work", "type": "function"}, "metrics": m(1, 1, 1, 1, 1.0, 1.0, mpi=1)},
         ]},
    ]


def test_nodes_keep_ranks_threads_and_values(trace_path: Path) -> None:
    graph = CallGraph.from_trace(read_trace(trace_path))
    work1 = graph.find("main/work @1")
    assert work1.calls == 9 and work1.counters == {0: 9, 1: 15}
    assert {r: c.calls for r, c in work1.by_rank.items()} == {0: 5, 1: 4}
    assert work1.contexts == [(0, 1), (0, 3), (1, 1)]
    assert work1.path == ("main", "work @1")
    main = graph.find("main")
    assert main.values[0] == ValueStat(2, 64.0, 32.0, 32.0, 64.0, 96.0)
    assert [(rank, r.call) for rank, r in graph.find("main/work @2").mpi] == [(0, "MPI_Send")]
    assert [(rank, r.call) for rank, r in graph.orphan_mpi] == [(1, "MPI_Recv")]
    with pytest.raises(KeyError):
        graph.find("main/work @9")


def test_per_rank_view(trace_path: Path) -> None:
    trace = read_trace(trace_path)
    rank1 = CallGraph.from_trace(trace, rank=1)
    assert rank1.ranks == (1,)
    assert [node.path for node in rank1.traverse()] == [("main",), ("main", "work @1")]
    assert rank1.find("main").calls_inclusive == 5
    with pytest.raises(UsageError, match=r"prog\.trace: no rank 5 in this trace \(ranks: 0, 1\)"):
        CallGraph.from_trace(trace, rank=5)


def test_the_symbolic_observation_is_this_graph(trace_path: Path, tmp_path: Path) -> None:
    """perfeq.symbolic.observe arranges a run from this graph: the same tree (without units that have
    no descriptor file), each rank's calls, counters, values, and MPI records by call site."""
    from perfeq.symbolic.observe import from_trace

    run = from_trace(trace_path)
    graph = CallGraph.from_trace(read_trace(trace_path))
    contexts = list(run.contexts())
    assert [(c.function, c.site) for c in contexts] == [(n.func, n.site) for n in graph.traverse()]
    main, work1, leaf, work2 = contexts
    assert (run.nranks, run.threads, list(run.units)) == (2, 1, [str(trace_path.parent / "prog.perfeq.json")])
    assert work1.calls == {0: 5, 1: 4} and work1.counters == {0: {0: 5, 1: 15}, 1: {0: 4}}
    assert leaf.parent is work1 and leaf.calls == {0: 6}
    assert main.values == {0: {0: ValueStat(1, 64.0, 64.0, 64.0, 64.0, 64.0)},
                           1: {0: ValueStat(1, 32.0, 32.0, 32.0, 32.0, 32.0)}}
    assert [(rank, {site: [r.call for r in records] for site, records in sites.items()})
            for rank, sites in work2.mpi.items()] == [(0, {7: ["MPI_Send"]})]
    (tmp_path / "alone").mkdir()
    alone = from_trace(rank_file(tmp_path / "alone", 0, 1, RANK0, None))
    assert alone.roots == [] and alone.units == {}


def test_render_and_json(trace_path: Path) -> None:
    graph = CallGraph.from_trace(read_trace(trace_path), costs=unit_costs)
    assert graph.render().splitlines() == [
        "./prog: 2 ranks",
        "main           calls 2 (inc 18)  blocks 2 (inc 33)  regions 2",
        "├─ work @1     calls 9 (inc 15)  blocks 24 (inc 30)",
        "│  └─ leaf @3  calls 6 (inc 6)  blocks 6 (inc 6)",
        "└─ work @2     calls 1 (inc 1)  blocks 1 (inc 1)  mpi MPI_Send:1",
        "(MPI calls outside every instrumented function: 1)",
    ]
    data = json.loads(json.dumps(graph.to_dict()))
    assert data["ranks"] == [0, 1]
    assert data["roots"][0]["children"][0]["by_rank"]["1"] == {"calls": 4, "regions": 0, "counters": {"0": 4}}


def test_without_descriptors_blocks_are_unknown(tmp_path: Path) -> None:
    path = rank_file(tmp_path, 0, 1, RANK0, "/no/such/prog.perfeq.json")
    trace = read_trace(path)
    graph = CallGraph.from_trace(trace, costs=unit_costs)
    assert graph.find("main").block_executions is None
    assert set(graph.to_literal()[0]["metrics"]) == {"calls", "calls (inc)", "regions", "mpi calls"}
    counts = count_trace(trace)
    assert counts.total.ops is None and counts.total.par == 2 and counts.total.calls == 13
    assert any("no descriptor file /no/such/prog.perfeq.json" in note for note in counts.notes)


def test_counts_per_rank_and_total(trace_path: Path) -> None:
    counts = count_trace(read_trace(trace_path))
    assert counts.ranks[0].ops == 2.0 + 14.0 + 21.0 + 1.0 and counts.ranks[1].ops == 2.0 + 4.0
    assert counts.total.ops == counts.ranks[0].ops + counts.ranks[1].ops
    assert (counts.ranks[0].sent, counts.ranks[0].bytes, counts.ranks[1].sent) == (1, 64, 0)
    assert (counts.ranks[0].startup, counts.ranks[1].startup) == (1, 0)  # the send is rank 0's critical path
    assert counts.total.mpi["MPI_Send"].messages == 1 and counts.total.mpi["MPI_Recv"].calls == 1
    assert counts.total.startup == 1 and counts.total.sent == 1
    assert counts.as_dict()["ranks"]["1"]["mpi_calls"] == 1


def test_hatchet_reads_the_literal(trace_path: Path) -> None:
    hatchet = pytest.importorskip("hatchet")
    graph = CallGraph.from_trace(read_trace(trace_path), costs=unit_costs)
    frame = hatchet.GraphFrame.from_literal(graph.to_literal())
    assert "calls (inc)" in frame.inc_metrics


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", r"x\.json:1:2: not valid JSON"),
        ('{"format": "other"}', r"x\.json: not a perfeq-descriptors file"),
        ('{"format": "perfeq-descriptors", "version": 9}', r"x\.json: perfeq-descriptors file version 9 is not supported"),
        ('{"format": "perfeq-descriptors", "version": 1, "functions": [{"name": "f"}], '
         '"blocks": [{"id": 0, "function": 0, "slot": 0, "ops": {"add": 1}}]}',
         r"x\.json: block 0: ops should be an object with a numeric 'total'"),
    ],
)
def test_bad_descriptor_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(UsageError, match=message):
        load_unit_costs(path)
    assert load_unit_costs(tmp_path / "missing.json") is None


def test_parallel_ops_are_shared_by_threads(trace_path: Path) -> None:
    costs = load_unit_costs(trace_path.parent / "prog.perfeq.json")
    ops = costs.ops("work", {0: 2, 1: 6}, calls=2, threads=2)
    assert (ops.ops, ops.ops_total) == (2 + 12 / 2, 2 + 12)
    assert costs.executions("work", {0: 2, 1: 6}, calls=2) == 8
