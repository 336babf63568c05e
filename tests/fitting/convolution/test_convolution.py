"""The application signature and the convolution (issue 21, items 2 and 3): real C programs (a STREAM
triad, a column walk and a stencil, an indirect gather) instrumented, run and modelled for real;
their references classified and assigned to cache levels at sizes inside and outside each cache;
their time priced from a small probe file this test writes with perfeq's own writer, and checked
against the same prices computed by hand from that file; ``perfeq predict --machine probes.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import C_PROGRAMS, instrumented_program, one_line_error

from perfeq.cli import main
from perfeq.fitting.convolution.convolve import convolve
from perfeq.fitting.convolution.probecosts import ProbeCosts, is_probe_file
from perfeq.instrument.descriptors import read_descriptors
from perfeq.runtime.probes.curves import Curve
from perfeq.runtime.probes.document import ProbeResults, load_probes, save_probes
from perfeq.symbolic.machine import Machine
from perfeq.symbolic.model import build_model, load_model

KIB, MIB = 1 << 10, 1 << 20
L1, L2, L3 = 32 * KIB, 1 * MIB, 32 * MIB
# rates (B/s) of the fake machine per level: L1, L2, L3, memory
READ = (80e9, 40e9, 20e9, 10e9)
UPDATE = (60e9, 30e9, 16e9, 8e9)
STRIDE = (40e9, 10e9, 4e9, 1e9)
SIZES = [4 * KIB * 2**k for k in range(16)]  # 4 KiB .. 128 MiB
DIVIDE = 1.5e-9  # seconds per division of the fake machine


def _level_values(values: tuple[float, ...], sizes: list[int], share: float = 1.0) -> list[float]:
    """A stepped curve: the rate of the level each working set fits in."""
    return [values[0] if x <= L1 else values[1] if x <= L2 else values[2] if x <= L3 * share else values[3]
            for x in sizes]


def _curve(name: str, procs: int, x: list[float], values: list[float]) -> Curve:
    samples = tuple((v * 0.9, v, v * 1.1) for v in values)  # three repetitions: quartiles around the median
    return Curve(name, procs, tuple(float(v) for v in x), samples, tuple(1 for _ in x))


@pytest.fixture(scope="module")
def probes(tmp_path_factory) -> Path:
    """A small probe file written by perfeq's own writer: stepped memory curves on 1 and 2 processes,
    compute costs, a ping-pong and an allreduce."""
    curves = []
    for procs in (1, 2):
        for name, values in (("read", READ), ("update", UPDATE), ("stride", STRIDE)):
            curves.append(_curve(name, procs, SIZES, _level_values(values, SIZES, 1 / procs)))
    for name, seconds in (("flops_independent", 1e-10), ("flops_chained", 8e-10), ("int_ops", 1e-10),
                          ("divide", DIVIDE), ("math", 5e-9), ("branch_difference", 2e-9)):
        curves.append(_curve(name, 1, [1e6], [seconds]))
    sizes = [0, 64, 4096, 262144, 4194304]
    curves.append(_curve("pingpong_intra", 2, sizes, [1e-6 + s / 5e9 for s in sizes]))
    curves.append(_curve("allreduce", 2, [8, 1024, 65536], [2e-6, 3e-6, 30e-6]))
    curves.append(_curve("launch", 2, [1, 2], [0.07, 0.1]))
    results = ProbeResults(created="2026-01-01T00:00:00Z",
                           machine={"name": "fake", "model": "", "cores": 2, "cpus": 2, "l1_bytes": L1,
                                    "l2_bytes": L3, "line_bytes": 64, "page_bytes": 4096, "memory_bytes": 8 << 30,
                                    "caches": {"1": L1, "2": L2, "3": L3}},
                           toolchain={}, settings={}, commands=(), curves=tuple(curves))
    path = tmp_path_factory.mktemp("probes") / "probes.json"
    save_probes(path, results)
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The three programs' models, each from runs at two sizes on 2 processes, and their folders."""
    found = {}
    for name, small, second in (("triad", (1000, 3), (2000, 3)), ("strided", (40, 2), (60, 2)),
                                ("indirect", (1000, 2), (2000, 2)), ("rows", (40, 2), (60, 2)),
                                ("heat", (20, 2), (30, 2)), ("params", (40, 2), (60, 2))):
        folder = tmp_path_factory.mktemp(name)
        run = instrumented_program(C_PROGRAMS / "convolution" / f"{name}.c", folder)
        model = build_model([run(2, "a.trace", *small), run(2, "b.trace", *second)])
        model.save(folder / "model.json")
        found[name] = (load_model(folder / "model.json"), folder)  # as read back from its file
    return found


def _refs(model, function: str, line: int) -> list:
    item = next(i for i in model.items if i.kind == "block" and i.function == function and i.line == line
                and i.signature.get("refs"))
    return item.signature["refs"]


def _at(expr, **values: float) -> float:
    return float(expr.subs({s: values[s.name] for s in expr.free_symbols if s.name in values}))


def _priced(result, function: str, line: int) -> dict:
    label = next(i.label for i in result.items if f" {function} block" in i.label and f":{line} " in i.label)
    return {r["array"] + str(r["index"]) + r["mode"]: r for i in result.items if i.label == label for r in i.refs}


# ---- the signature -----------------------------------------------------------------------------
def test_the_descriptors_record_each_reference_with_its_subscripts_and_mode(models):
    _, folder = models["triad"]
    unit = read_descriptors(next((folder / "build").rglob("*.perfeq.json")))
    triad_block = next(b for b in unit.blocks if b.line == 12 and b.refs)
    assert [(r["array"], r["index"], r["mode"]) for r in triad_block.refs] == [
        ("a", ["i"], "write"), ("b", ["i"], "read"), ("c", ["i"], "read")]
    data = json.loads(next((folder / "build").rglob("*.perfeq.json")).read_text())
    assert data["version"] == 2


def test_a_version_1_descriptor_file_is_read_without_references(models, tmp_path):
    _, folder = models["triad"]
    data = json.loads(next((folder / "build").rglob("*.perfeq.json")).read_text())
    data["version"] = 1
    for block in data["blocks"]:
        del block["refs"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert all(block.refs == [] for block in read_descriptors(tmp_path / "old.json").blocks)


def test_references_are_classified_against_the_loops(models):
    triad, _ = models["triad"]
    assert {(r.array, r.mode, r.pattern) for r in _refs(triad, "triad", 12)} == {
        ("a", "write", "unit"), ("b", "read", "unit"), ("c", "read", "unit")}
    strided, _ = models["strided"]
    (column,) = _refs(strided, "column_sums", 14)
    assert column.pattern == "strided" and str(column.stride) == "n"  # a column of a row-major n x n matrix
    assert {r.pattern for r in _refs(strided, "stencil", 24)} == {"unit"}
    indirect, _ = models["indirect"]
    assert {(r.array, r.mode, r.pattern) for r in _refs(indirect, "gather", 11)} == {
        ("y", "update", "unit"), ("coef", "read", "invariant"), ("x", "read", "indirect"), ("perm", "read", "unit")}


def test_reuse_distances_follow_the_layer_conditions(models):
    strided, _ = models["strided"]
    refs = {tuple(r.index): r for r in _refs(strided, "stencil", 24)}
    above = refs[("((i - 1) * n) + j",)]
    below = refs[("((i + 1) * n) + j",)]
    left = refs[("((i * n) + j) - 1",)]
    # the row below leads; the row above reuses its lines two row sweeps later, the left neighbour
    # the right one's two iterations later; the leader only when the nest runs again
    assert [what for what, _ in below.reuse] == ["the next run of its nest"]
    assert any("after m[((i * n) + j) - 1]" in what or "after m[((i + 1) * n) + j]" in what for what, _ in above.reuse)
    assert min(_at(v, n=1000) for _, v in left.reuse) < 100  # bytes: a few iterations
    assert min(_at(v, n=1000) for _, v in above.reuse) > 8 * 1000  # bytes: about a row


# ---- levels at sizes inside and outside each cache ----------------------------------------------
@pytest.mark.parametrize(("n", "level"), [(1000, "L1"), (20000, "L2"), (400000, "L3"), (10_000_000, "memory")])
def test_the_triad_streams_from_the_level_its_arrays_fit_in(models, probes, n, level):
    triad, _ = models["triad"]
    result = convolve(triad, ProbeCosts.load(probes), {"n": n, "reps": 10}, 1)
    assert {r["level"] for r in _priced(result, "triad", 12).values()} == {level}


def test_the_column_walk_and_the_stencil_rows_change_level_with_n(models, probes):
    strided, _ = models["strided"]
    costs = ProbeCosts.load(probes)
    small = convolve(strided, costs, {"n": 100, "reps": 1}, 1)  # a column of lines: 6.4 KB
    large = convolve(strided, costs, {"n": 8000, "reps": 1}, 1)  # 512 KB: L2; the matrix 512 MB
    assert [r["level"] for r in _priced(small, "column_sums", 14).values()] == ["L1"]
    assert [r["level"] for r in _priced(large, "column_sums", 14).values()] == ["L2"]
    rows = _priced(large, "stencil", 24)
    assert rows["m['((i + 1) * n) + j']read"]["level"] == "memory"  # the leading row
    assert rows["m['((i * n) + j) - 1']read"]["level"] == "L1"  # two iterations behind its neighbour
    assert rows["m['((i - 1) * n) + j']read"]["level"] == "L2"  # two rows (128 KB) behind


def test_a_power_of_two_stride_keeps_a_fraction_of_the_sets(models, probes, tmp_path):
    """A column walk of a 256-double row-major matrix: its lines are 32 lines apart, so they map to
    one set in 32 of the fake 8-way L1 (64 sets) and L2 (2048 sets): the column's 16 KiB fit the
    L1 by capacity but not by its sets, and are served by the L2.  A 260-double row (not a multiple
    of a line apart) and a probe file without associativity stay in the L1."""
    strided, _ = models["strided"]
    data = json.loads(probes.read_text())
    data["machine"]["ways"] = {"1": 8, "2": 8, "3": 16}
    ways = tmp_path / "ways.json"
    ways.write_text(json.dumps(data))
    levels = {(file.name, n): [r["level"] for r in _priced(convolve(strided, ProbeCosts.load(file), {"n": n, "reps": 1}, 1),
                                                          "column_sums", 14).values()]
              for file in (probes, ways) for n in (256, 260)}
    assert levels == {(probes.name, 256): ["L1"], (probes.name, 260): ["L1"], (ways.name, 256): ["L2"],
                      (ways.name, 260): ["L1"]}
    reuse = _priced(convolve(strided, ProbeCosts.load(ways), {"n": 256, "reps": 1}, 1), "column_sums", 14)
    assert "stride 2048 B keeps L1 1/32 of the sets" in next(iter(reuse.values()))["reuse"]


def test_array_parameters_walk_rows_of_their_declared_length(models):
    """A variable-length parameter (double a[n][n]) and a macro-written one (POLYBENCH_2D-like, rows
    of M + PAD): their column walks have the declared row as stride, not a far-apart placeholder."""
    params, _ = models["params"]
    vla = next(r for r in _refs(params, "vla_columns", 17) if r.array == "a")
    macro = next(r for r in _refs(params, "macro_columns", 24) if r.array == "b")
    assert vla.pattern == macro.pattern == "strided"
    assert not any(s.name.startswith("row_") for s in vla.stride.free_symbols | macro.stride.free_symbols)
    assert _at(vla.stride, n=100) == 100 and _at(macro.stride) == 48


def test_a_strided_reference_whose_stride_the_model_cannot_express_is_priced(models, probes, tmp_path):
    """A strided reference with no stride (signature.py: not in the model's symbols; PRK DGEMM and PIC
    have them) is priced at a line per access, and the conflict rule leaves it alone (it crashed)."""
    import copy
    import dataclasses

    strided = copy.deepcopy(models["strided"][0])  # (the fixture's model is shared)
    item = next(i for i in strided.items if i.kind == "block" and i.function == "column_sums" and i.line == 14
                and i.signature.get("refs"))
    item.signature["refs"] = [dataclasses.replace(r, stride=None) for r in item.signature["refs"]]
    data = json.loads(probes.read_text())
    data["machine"]["ways"] = {"1": 8, "2": 8, "3": 16}
    ways = tmp_path / "ways.json"
    ways.write_text(json.dumps(data))
    result = convolve(strided, ProbeCosts.load(ways), {"n": 256, "reps": 1}, 1)
    assert result.seconds > 0 and [r["pattern"] for r in _priced(result, "column_sums", 14).values()] == ["strided"]


def test_rows_of_unknown_length_are_far_apart_and_priced(models, probes):
    """A column walk of a ``double **`` matrix: its stride is the length of a row the model does not
    know (a ``row_`` symbol alone, which the evaluator once turned into a Python int and crashed
    on, in CoMD's pair loop); the rows are taken far apart, so the walk is strided from L1 to
    memory by its footprint, and the prediction has a time."""
    rows, _ = models["rows"]
    (ref,) = _refs(rows, "column_sums", 14)
    assert ref.pattern == "strided" and str(ref.stride).startswith("row_")
    result = convolve(rows, ProbeCosts.load(probes), {"n": 2000, "reps": 1}, 1)
    priced = _priced(result, "column_sums", 14)
    assert [r["pattern"] for r in priced.values()] == ["strided"]
    assert result.seconds > 0 and np.isfinite(result.seconds)


def test_the_papers_rule_puts_a_whole_nest_where_its_footprint_fits(models, probes):
    strided, _ = models["strided"]
    result = convolve(strided, ProbeCosts.load(probes), {"n": 8000, "reps": 1}, 1, rule="footprint")
    assert {r["level"] for r in _priced(result, "stencil", 24).values()} == {"memory"}


def test_an_indirect_gather_is_served_where_the_gathered_array_fits(models, probes):
    indirect, _ = models["indirect"]
    costs = ProbeCosts.load(probes)
    for n, level in ((1000, "L1"), (100_000, "L2"), (1_000_000, "L3"), (20_000_000, "memory")):
        refs = _priced(convolve(indirect, costs, {"n": n, "reps": 1}, 1), "gather", 11)
        assert refs["x['perm[i]']read"]["level"] == level
        assert refs["coef['0']read"]["level"] == "L1"


# ---- prices -------------------------------------------------------------------------------------
def test_the_triad_out_of_cache_costs_its_accesses_at_the_memory_rates(models, probes):
    """Two loads at the read rate and a store at the update rate (a line in and out), per iteration,
    from the file's memory medians; the loop's compute is below that, so max() keeps the memory."""
    triad, _ = models["triad"]
    n, reps = 10_000_000, 10
    result = convolve(triad, ProbeCosts.load(probes), {"n": n, "reps": reps}, 1)
    block = next(i for i in result.items if "triad.c:12" in i.label)
    by_hand = n * reps * (2 * 8 / READ[3] + 16 / UPDATE[3])
    assert float(block.memory[0]) == pytest.approx(by_hand, rel=1e-9)
    assert float(block.time[0]) == pytest.approx(by_hand, rel=1e-9)
    summed = convolve(triad, ProbeCosts.load(probes), {"n": n, "reps": reps}, 1, overlap="sum")
    block_sum = next(i for i in summed.items if "triad.c:12" in i.label)
    assert float(block_sum.time[0]) == pytest.approx(float(block_sum.memory[0] + block_sum.compute[0]), rel=1e-9)
    low, high = result.band
    assert low < result.seconds < high


def test_messages_are_priced_from_the_collective_curve_on_that_many_processes(models, probes):
    triad, _ = models["triad"]
    result = convolve(triad, ProbeCosts.load(probes), {"n": 1000, "reps": 1}, 2)
    allreduce = next(i for i in result.items if i.kind == "comm" and np.any(i.comm > 0))
    assert allreduce.source.startswith("allreduce (P=2) at 8 B")
    assert float(allreduce.comm[0]) == pytest.approx(2e-6, rel=1e-9)  # one call at the 8-byte median


def test_index_arithmetic_is_free_and_divisions_cost_the_divide_probe(models, probes, tmp_path):
    """heat.c's point: its integer arithmetic all computes indices (``addr``: folded into addressing),
    two of its three divisions are by variables (``div``), the one by 2.0 is a multiplication.  The
    block's compute is its additions, its other integer operations and comparisons, and its divisions
    at the ``divide`` probe; a probe file without that curve leaves them out and says so."""
    heat, _ = models["heat"]
    (item,) = [i for i in heat.items if i.kind == "block" and i.function == "evolve" and i.signature.get("refs")]
    n, steps = 1000, 3
    count = {k: _at(item.counts[k], n=n, steps=steps, P=1) for k in ("flops", "chain", "iops", "addr", "div", "cmp")}
    points = n * n * steps
    assert count["iops"] == count["addr"] == 13 * points and count["div"] == 2 * points and count["chain"] == 0
    (header,) = [i for i in heat.items if i.kind == "loop" and i.signature.get("body") == item.id]
    loop = {k: _at(header.counts.get(k, 0), n=n, steps=steps, P=1) for k in ("flops", "iops", "addr", "cmp")}
    result = convolve(heat, ProbeCosts.load(probes), {"n": n, "steps": steps}, 1)
    block = next(i for i in result.items if f"heat.c:{item.line} " in i.label)  # priced with its loop header
    by_hand = ((count["flops"] + loop["flops"]) * 1e-10
               + (count["iops"] - count["addr"] + count["cmp"] + loop["iops"] - loop["addr"] + loop["cmp"]) * 1e-10
               + count["div"] * DIVIDE)
    assert float(block.compute[0]) == pytest.approx(by_hand, rel=1e-9)
    data = json.loads(probes.read_text())
    data["curves"] = [c for c in data["curves"] if c["name"] != "divide"]
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data))
    result = convolve(heat, ProbeCosts.load(older), {"n": n, "steps": steps}, 1)
    block = next(i for i in result.items if f"heat.c:{item.line} " in i.label)
    assert float(block.compute[0]) == pytest.approx(by_hand - count["div"] * DIVIDE, rel=1e-9)
    assert any("no 'divide' curve" in note for note in result.notes)


# ---- the command line ---------------------------------------------------------------------------
def test_predict_with_a_probe_file_is_fit_free_and_prints_the_block_table(models, probes, capsys):
    triad, folder = models["triad"]
    assert is_probe_file(probes) and not is_probe_file(folder / "model.json")
    status = main(["predict", str(folder / "model.json"), "--machine", str(probes), "n=10000000", "reps=10", "P=1"])
    out = capsys.readouterr().out
    assert status == 0
    assert "fit-free" in out and "band" in out
    row = next(line for line in out.splitlines() if line.startswith("triad.c:12 triad block"))
    assert " memory " in row and " unit " in row
    status = main(["predict", str(folder / "model.json"), "--machine", str(probes), "n=1000", "reps=10", "P=2",
                   "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["fit_free"] and data["seconds"] > 0 and data["P"] == 2
    assert {lv["name"] for lv in data["levels"]} == {"L1", "L2", "L3", "memory"}


def test_an_mpi_program_pays_the_launch_the_probe_measured(models, probes, tmp_path):
    """The ``launch`` curve (the launcher, MPI_Init, MPI_Finalize) is one row of the table, at the
    run's P, for a program whose runs initialised MPI; a probe file without it says so."""
    triad, _ = models["triad"]
    costs = ProbeCosts.load(probes)
    for procs, seconds in ((1, 0.07), (2, 0.1)):
        result = convolve(triad, costs, {"n": 1000, "reps": 3}, procs)
        (launch,) = [item for item in result.items if item.kind == "launch"]
        assert launch.time[0] == pytest.approx(seconds) and launch.source == f"launch (P={procs})"
        others = sum(float(item.time[result.slowest]) for item in result.items if item.kind != "launch")
        assert result.seconds == pytest.approx(others + seconds)
    data = json.loads(probes.read_text())
    data["curves"] = [c for c in data["curves"] if c["name"] != "launch"]
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data))
    result = convolve(triad, ProbeCosts.load(older), {"n": 1000, "reps": 3}, 2)
    assert not [item for item in result.items if item.kind == "launch"]
    assert any("no 'launch' curve" in note for note in result.notes)


def test_predict_with_probes_refuses_a_model_without_a_signature(models, probes, tmp_path, capsys):
    _, folder = models["triad"]
    data = json.loads((folder / "model.json").read_text())
    for item in data["items"]:
        item.pop("signature", None)
    (tmp_path / "old.model.json").write_text(json.dumps(data))
    assert main(["predict", str(tmp_path / "old.model.json"), "--machine", str(probes), "n=10", "reps=1",
                 "P=1"]) != 0
    assert "no application signature" in one_line_error(capsys)
    assert main(["predict", str(folder / "model.json"), "--machine", str(probes), "--caches", str(probes),
                 "n=10", "reps=1", "P=1"]) != 0
    assert "probe file" in one_line_error(capsys)
    # the fit-free prediction has no synchronisation term: said, not silently left out
    assert main(["predict", str(folder / "model.json"), "--machine", str(probes), "--sync", "n=10", "reps=1",
                 "P=2"]) != 0
    assert "has none" in one_line_error(capsys)


# ---- placement (issue 21, item 5) -----------------------------------------------------------------
@pytest.fixture(scope="module")
def across_probes(probes, tmp_path_factory) -> Path:
    """The probe file with a ping-pong across nodes ten times slower than within one."""
    import dataclasses

    results = load_probes(probes)
    intra = results.curve("pingpong_intra")
    inter = _curve("pingpong_inter", 2, list(intra.x), [10 * v for v in intra.median])
    path = tmp_path_factory.mktemp("across") / "probes.json"
    save_probes(path, dataclasses.replace(results, curves=(*results.curves, inter)))
    return path


def test_ranks_per_node_decide_the_share_of_the_last_level_cache(models, probes):
    """Four triads of 9.6 MB: on one node each gets 8 MiB of the 32 MiB last level (memory); one
    rank per node gets it all (L3)."""
    triad, _ = models["triad"]
    costs = ProbeCosts.load(probes)
    packed = convolve(triad, costs, {"n": 400000, "reps": 10}, 4)
    spread = convolve(triad, costs, {"n": 400000, "reps": 10}, 4, ranks_per_node=1)
    assert packed.per_node == 4 and spread.per_node == 1
    assert {r["level"] for r in _priced(packed, "triad", 12).values()} == {"memory"}
    assert {r["level"] for r in _priced(spread, "triad", 12).values()} == {"L3"}


def test_messages_between_nodes_are_priced_at_the_ping_pong_across_nodes(models, probes, across_probes):
    """The allreduce on 4 processes (no curve for P = 4): its critical path at the ping-pong, within a
    node when all four share one, across nodes when they are on two; said when the file lacks it."""
    triad, _ = models["triad"]
    values = {"n": 1000, "reps": 1}
    costs = ProbeCosts.load(across_probes)

    def comm(result):
        return next(i for i in result.items if i.kind == "comm" and np.any(i.comm > 0))

    one_node, two_nodes = (convolve(triad, costs, values, 4, ranks_per_node=k) for k in (4, 2))
    assert comm(one_node).source.startswith("pingpong_intra at 8 B")
    assert comm(two_nodes).source.startswith("pingpong_inter at 8 B")
    assert float(np.max(comm(two_nodes).comm)) == pytest.approx(10 * float(np.max(comm(one_node).comm)), rel=1e-9)
    assert any("2 nodes" in note for note in two_nodes.notes)
    # nodes are counted in ranks, whatever threads each rank runs: 4 ranks of 2 threads, 2 per node
    threaded = convolve(triad, costs, values, 4, 2, ranks_per_node=2)
    assert threaded.per_node == 4 and any("2 nodes" in note for note in threaded.notes)
    lacking = convolve(triad, ProbeCosts.load(probes), values, 4, ranks_per_node=2)
    assert "no ping-pong across nodes probed" in comm(lacking).source
    assert any("not in the probe file" in note for note in lacking.notes)


def test_predict_places_ranks_with_nodes_or_ranks_per_node(models, across_probes, capsys):
    triad, folder = models["triad"]
    base = ["predict", str(folder / "model.json"), "--machine", str(across_probes), "n=1000", "reps=1", "P=4"]
    assert main([*base, "--nodes", "2", "--json"]) == 0
    by_nodes = json.loads(capsys.readouterr().out)
    assert main([*base, "--ranks-per-node", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seconds"] == by_nodes["seconds"]
    assert by_nodes["processes_per_node"] == 2
    assert main([*base, "--nodes", "2", "--ranks-per-node", "2"]) == 2
    assert one_line_error(capsys) == "perfeq: error: give --nodes or --ranks-per-node, not both"
    assert main([*base, "--nodes", "0"]) == 2
    assert "--nodes must be at least 1" in one_line_error(capsys)


# ---- mem: the lines each reference moves from memory (symbolic/traffic.py) -------------------------
def _caches(shared_by: int) -> Machine:
    return Machine("test", L1, MIB, 64, 4096, 8 << 30, shared_by)


@pytest.mark.parametrize(("n", "shared_by", "lines"), [
    (10000, 1, 0.0),  # every nest fits the 1 MiB last level: no line from memory
    (40000, 1, 0.0),  # the init nest (b, c: 640 KB) and the triad (a, b, c: 960 KB) still fit
    (40000, 2, 2 * 40000),  # two ranks share it (512 KiB each): init and triad stream, the sum (a: 320 KB) fits
    (100000, 1, 2 * 100000),  # init and triad beyond 1 MiB, the sum's 800 KB within
    (100000, 2, 2.125 * 100000),  # and beyond 512 KiB the sum streams a too
])
def test_lines_from_memory_are_the_streams_whose_reuse_leaves_the_last_level(models, n, shared_by, lines):
    """The triad program on P = 2, reps = 3: init writes b and c (2 x 2 x 8 / 64 lines per element:
    stored lines are written back), each triad reads b, c and writes a (8/64 + 8/64 + 2 x 8/64), the
    checksum reads a (8/64): 0.5 n + 3 x 0.5 n = 2 n lines when all but the sum leave the cache."""
    triad, _ = models["triad"]
    counts = triad.counts({"n": n, "reps": 3}, 2, 1, _caches(shared_by))
    assert counts["per_rank"]["mem"] == pytest.approx([lines, lines], rel=1e-12, abs=1e-9)


def test_the_stencil_reads_each_row_from_memory_once_where_the_footprint_rule_counts_every_access(models):
    """strided.c's stencil at n = 2000 (32 MB per matrix, far beyond 1 MiB): of its four reads of m,
    only the row ahead (m[(i+1)n+j]) comes from memory, the others reuse rows a few KB back; out is
    written back.  Per point 8/64 + 2 x 8/64 lines; the footprint rule's l2 counts all five accesses."""
    strided, _ = models["strided"]
    caches = _caches(1)
    index = next(i for i, item in enumerate(strided.items) if item.kind == "block" and item.function == "stencil"
                 and any(r.array == "m" for r in item.signature.get("refs", [])))
    blocks = strided.block_counts({"n": 2000, "reps": 2}, 2, 1, 0, caches)
    label = f"{strided.items[index].label} [{strided.items[index].context}]"
    points = 2 * 1998 * 1998  # reps x interior points
    assert blocks[label]["mem"] == pytest.approx(points * 3 * 8 / 64, rel=1e-12)
    column = next(i for i, item in enumerate(strided.items) if item.kind == "block"
                  and item.function == "column_sums" and any(r.array == "m" for r in item.signature.get("refs", [])))
    label = f"{strided.items[column].label} [{strided.items[column].context}]"
    # the column walk: a whole line per access (stride n), reused one column later only when the n
    # lines of a column fit: at n = 2000 they do (128 KB), at n = 20000 (1.3 MB) they do not
    assert blocks[label]["mem"] == 0.0
    far = strided.block_counts({"n": 20000, "reps": 2}, 2, 1, 0, caches)[label]
    assert far["mem"] == pytest.approx(2 * 20000 * 20000, rel=1e-12)


def test_the_time_equation_prices_mem_per_block_and_in_total(models, tmp_path):
    """perfeq's time equation (fitting/analysis/pricing.py) with a profile that prices only mem: the
    blocks' seconds add up to the total, which is mem x its cost."""
    from perfeq.fitting.analysis.pricing import TimeEquation
    from perfeq.fitting.regression.profile import manual_profile

    triad, _ = models["triad"]
    equation = TimeEquation(triad, manual_profile({"mem": 2e-9}), _caches(1))
    values = {"n": 100000, "reps": 3}
    assert equation.time(values, 2) == pytest.approx(2e-9 * 2 * 100000, rel=1e-12)
    assert sum(equation.block_seconds(values, 2).values()) == pytest.approx(equation.time(values, 2), rel=1e-12)
    assert "Piecewise" in str(equation.chi["mem"])
