"""The symbolic stage on real programs: counts from small instrumented runs reproduce the counts of
a real instrumented run at 8x the size on 4 processes (oversubscribed; counting does not care)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from conftest import TESTS, assert_same_output_as_plain, instrumented_program
from hypothesis import given, settings
from hypothesis import strategies as st

from perfeq.cli import main
from perfeq.examples.catalog import find_example, load_catalog
from perfeq.symbolic.cexpr import Unresolved, to_sympy
from perfeq.symbolic.counts import CountModel
from perfeq.symbolic.measured import measured_counts
from perfeq.symbolic.model import build_model, load_model
from perfeq.symbolic.observe import from_trace
from perfeq.symbolic.symbols import RANK, P, size_symbol
from perfeq.workflows.pipeline import build_instrumented, model_example, run_small

HERE = TESTS
KERNELS = HERE / "c" / "symbolic" / "kernels.c"
KEYS = ("ops", "par", "startup", "sent", "bytes")


# ---- C expressions ------------------------------------------------------------------------------
def test_c_integer_semantics():
    env = {"n": size_symbol("n"), "size": P, "rank": RANK}
    assert to_sympy("rank * n / size", env.__getitem__) == sp.floor(size_symbol("n") * RANK / P)
    assert to_sympy("n % size", env.__getitem__) == sp.Mod(size_symbol("n"), P)
    assert to_sympy("n * sizeof(double)", env.__getitem__) == 8 * size_symbol("n")
    assert to_sympy("0x10 + 010 + 'a'", env.__getitem__) == 16 + 8 + 97


def _resolver(env: dict):
    def resolve(name: str):
        if name not in env:
            raise Unresolved(name)
        return env[name]
    return resolve


def test_unknown_name_is_unresolved():
    with pytest.raises(Unresolved):
        to_sympy("count[3] + n", _resolver({"n": size_symbol("n")}))
    with pytest.raises(Unresolved):
        to_sympy("count[i] + n", _resolver({"n": size_symbol("n"), "i": size_symbol("i")}))


def test_struct_fields_and_elements_resolve_by_their_canonical_spelling():
    n, p = size_symbol("n"), size_symbol("p")
    env = _resolver({"cmd.nx": n, "in.particles": p, "sizes[0]": n, "cfg.grid.n": p})
    assert to_sympy("cmd.nx * in->particles", env) == n * p
    assert to_sympy("(&cmd)->nx + sizes[ 0 ] + (*in).particles", env) == 2 * n + p
    assert to_sympy("cfg.grid.n / 2", env) == sp.floor(p / 2)


# ---- a test program with every loop form ----------------------------------------------------------
def test_kernels_resolve_symbolically(kernels):
    model, _ = kernels
    loops = [f for f in model.fallbacks if " loop " in f]
    assert loops == [], loops
    assert set(model.parameters) == {"n", "steps"}


@pytest.mark.parametrize("n,steps,procs", [(192, 5, 4), (200, 3, 3), (97, 4, 1)])
def test_kernels_counts_exact_at_larger_sizes(kernels, n, steps, procs):
    model, trace = kernels
    measured = measured_counts(from_trace(trace(n, steps, procs, f"big-{n}-{procs}.trace")))
    predicted = model.counts({"n": n, "steps": steps}, procs)
    for key in KEYS:
        assert predicted["total"][key] == pytest.approx(measured["total"][key], rel=1e-12, abs=1e-9), key
        for rank in range(procs):
            assert predicted["per_rank"][key][rank] == pytest.approx(measured["per_rank"][rank][key], rel=1e-12,
                                                                      abs=1e-9), (key, rank)


def test_triangular_loop_is_summed_exactly(kernels):
    model, _ = kernels
    line = next(i for i, text in enumerate(KERNELS.read_text().splitlines(), 1) if "s += a[i] * a[j]" in text)
    triangle = [it for it in model.items if it.function == "triangle" and it.kind == "block" and it.line == line]
    assert triangle, [it.label for it in model.items]
    n, steps = size_symbol("n"), size_symbol("steps")
    local_n = sp.floor(n * (RANK + 1) / P) - sp.floor(n * RANK / P)
    per_iteration = triangle[0].counts["ops_total"].subs({n: 10, steps: 1, P: 1, RANK: 0}) / 45  # n(n-1)/2 = 45
    executions = triangle[0].counts["ops_total"] / per_iteration
    expected = steps * sp.Piecewise((1, sp.Eq(RANK, 0)), (0, True)) * local_n * (local_n - 1) / 2
    for values in ({n: 100, steps: 3, P: 4, RANK: 0}, {n: 37, steps: 2, P: 3, RANK: 0}, {n: 37, steps: 2, P: 3, RANK: 1}):
        assert sp.simplify(executions.subs(values) - expected.subs(values)) == 0


def test_model_file_round_trips(kernels, tmp_path):
    model, _ = kernels
    path = tmp_path / "kernels.model.json"
    model.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == "perfeq-model" and data["version"] == 4
    again = load_model(path)
    for key in KEYS:
        assert again.counts({"n": 300, "steps": 7}, 5)["total"][key] == pytest.approx(
            model.counts({"n": 300, "steps": 7}, 5)["total"][key], rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(min_value=8, max_value=100_000), steps=st.integers(min_value=1, max_value=1000),
       procs=st.integers(min_value=1, max_value=256))
def test_counts_are_nonnegative_integers_and_monotone(kernels, n, steps, procs):
    model, _ = kernels
    counts = model.counts({"n": n, "steps": steps}, procs)
    bigger = model.counts({"n": 2 * n, "steps": steps}, procs)
    for key in KEYS:
        values = np.array(counts["per_rank"][key])
        assert (values >= 0).all(), key
        assert np.allclose(values, np.round(values)), key
        assert bigger["total"][key] >= counts["total"][key] - 1e-9, key


# ---- the bundled examples ------------------------------------------------------------------------
EXACT = ["matmul", "shallow", "ocean", "cg", "gram"]
# sharks is irregular: its branch and call ratios follow the fish and shark population (the paper's
# constant-true-ratio assumption), and its helpers leave early from data-dependent branches
# samplesort's partition sizes are data received by MPI (fitted values, relaxed merge-sort sums)
WITHIN_ONE_PERCENT = ["gauss", "omp_stencil", "sharks", "samplesort"]
# bytes that depend on data sent by MPI calls with array counts (see test_example_counts_at_8x_size)
DATA_BYTES_TOLERANCE = {"samplesort": 0.02}


@pytest.fixture(scope="module")
def example_runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("examples")
    cache = {}

    def get(name: str):
        if name not in cache:
            example = find_example(name)
            binary = build_instrumented(example, folder)
            model = model_example(example, binary, folder)
            values = dict(example.small)
            first = example.params[0]["name"]
            values[first] *= 8
            big = run_small(example, binary, values, 4, folder / f"{name}.big.trace")
            cache[name] = (model, values, measured_counts(from_trace(big))["total"])
            get.traces[name] = big
        return cache[name]

    get.traces = {}
    return get


@pytest.mark.parametrize("name", EXACT + WITHIN_ONE_PERCENT)
def test_example_counts_at_8x_size(example_runs, name):
    model, values, measured = example_runs(name)
    predicted = model.counts({k: float(v) for k, v in values.items()}, 4)["total"]
    tolerance = 1e-12 if name in EXACT else 0.01
    for key in ("par", "startup", "sent", "bytes"):
        # samplesort's MPI_Alltoallv sends the pieces of each rank's keys that belong to the other
        # ranks; their sizes are data (where the splitters cut), so its bytes are the fitted n / P
        # keys times the others' share (P - 1) / P: 0.9 % off at 8x on 4 ranks (messages stay exact)
        rel = DATA_BYTES_TOLERANCE.get(name, 1e-12) if key == "bytes" else 1e-12
        assert predicted[key] == pytest.approx(measured[key], rel=rel, abs=1e-9), key
    assert predicted["ops"] == pytest.approx(measured["ops"], rel=tolerance), "ops"
    assert predicted["chain"] == pytest.approx(measured["chain"], rel=tolerance), "chain"
    if name in EXACT:
        assert not [f for f in model.fallbacks if " loop " in f]


def test_samplesort_data_values_are_fitted(example_runs):
    """samplesort's partition sizes are data (they arrive by MPI_Alltoall): the values recorded at
    the loops they bound are fitted to a form of n and P, and the merge sort of what arrived stays
    symbolic in that form (within 1 % at 8x, tested above)."""
    model, values, measured = example_runs("samplesort")
    data = [f for f in model.fallbacks if " value modeled as fit" in f]
    assert any("'received'" in f and "n/P" in f for f in data), model.fallbacks
    # MPI_Alltoallv's sendcounts[] are data too: its elements per call (the n / P keys of a rank)
    # are fitted and scale the bytes; the keys it moves are nearly all the bytes, 4 n (P - 1) / P
    comms = [f for f in model.fallbacks if " communication modeled as fit" in f]
    assert any("samplesort.c:" in f and "send_counts" in f and "= floor(n/P)" in f for f in comms), model.fallbacks
    assert measured["bytes"] > 0.9 * 4 * values["n"] * 3 / 4


@pytest.mark.parametrize("name", [e.name for e in load_catalog()])
def test_example_counts_properties(example_runs, name):
    """For every example's model: counts are non-negative, messages, bytes and transitions are
    whole numbers in total (per rank too, unless a collective's root moves through the ranks and
    its messages are averaged over them, as gauss's pivot broadcasts), and every count grows (or
    stays) with the main problem size."""
    model, _, _ = example_runs(name)
    averaged = any("averaged over ranks" in f for f in model.fallbacks)
    example = find_example(name)
    first = example.params[0]["name"]

    @settings(max_examples=15, deadline=None)
    @given(scale=st.integers(min_value=1, max_value=512), procs=st.integers(min_value=1, max_value=64))
    def check(scale, procs):
        values = {k: float(v) for k, v in example.small.items()}
        values[first] = float(max(example.small[first] * scale, 4 * procs))  # the examples need n >= 3 P
        counts = model.counts(values, procs)
        bigger = model.counts({**values, first: 2 * values[first]}, procs)
        for key in KEYS:
            per_rank = np.array(counts["per_rank"][key])
            assert (per_rank >= -1e-9).all(), (key, per_rank)
            if key != "ops":
                assert np.isclose(per_rank.sum(), np.round(per_rank.sum())), (key, per_rank)
                if not averaged:
                    assert np.allclose(per_rank, np.round(per_rank)), (key, per_rank)
            assert bigger["total"][key] >= counts["total"][key] * (1 - 1e-12) - 1e-9, key

    check()


def test_mispredicted_branches(kernels, example_runs):
    """Data-dependent conditionals are mispredicted at min(r, 1 - r) per evaluation, or at the rate
    the run's branch predictor missed if lower: samplesort's merge comparison at 8x on 4 ranks as
    its own run's ratios and predictor give it (the local sort's random keys miss about every
    other step, the sort of received sorted pieces far less); rank conditions never."""
    model, values, _ = example_runs("samplesort")
    run = from_trace(example_runs.traces["samplesort"])
    expected = 0.0
    for ctx in run.contexts():
        unit = run.units[ctx.unit]
        if unit.functions[ctx.function].name != "merge":
            continue
        (cond,) = [c for c in unit.conds if c.function == ctx.function and c.kind == "if"]
        then_slot = unit.blocks[cond.then_block].slot
        at_slot = unit.blocks[cond.block].slot
        then = sum(ctx.counter(r, then_slot) for r in range(run.nranks))
        evaluated = sum(ctx.counter(r, at_slot) for r in range(run.nranks))
        missed = sum(ctx.counter(r, cond.predictor) for r in range(run.nranks))
        expected += min(evaluated * min(then / evaluated, 1 - then / evaluated), missed)
    predicted = sum(model.per_rank("branch", values, 4, index=i).sum()
                    for i, item in enumerate(model.items) if item.function == "merge" and "branch" in item.counts)
    assert expected > 0.3 * values["n"] * 8  # about one miss per merge step: n log2(n/P) steps
    # r holds across sizes to 2 %; the predictor's miss rate, also taken from the small runs (on 2
    # ranks, received data in two sorted pieces instead of four), to about 5 %
    assert predicted == pytest.approx(expected, rel=0.08)
    kernel_model, _ = kernels
    assert kernel_model.counts({"n": 1000, "steps": 3}, 4)["total"]["branch"] == 0
    # ocean's `if (d > change) change = d;` is a select (the compiler's maxsd), not a branch
    ocean, ocean_values, _ = example_runs("ocean")
    assert ocean.counts(ocean_values, 4)["total"]["branch"] == 0


def test_fallbacks_name_file_and_line(example_runs):
    model, _, _ = example_runs("sharks")
    assert model.fallbacks
    for note in model.fallbacks:
        assert "sharks.c:" in note.split()[0]


# ---- the commands ----------------------------------------------------------------------------------
def test_model_counts_equation_commands(kernels, tmp_path, capsys):
    model, trace = kernels
    traces = [trace(24, 2, 2, "cli-small.trace"), trace(48, 2, 2, "cli-small2.trace")]
    out = tmp_path / "k.model.json"
    assert main(["model", *map(str, traces), "--param", "N=n", "-o", str(out)]) == 0
    assert "N" in json.loads(out.read_text())["parameters"]
    assert main(["counts", str(out), "N=1000", "steps=10", "P=8", "--json"]) == 0
    printed = capsys.readouterr().out
    data = json.loads(printed[printed.index("{"):])
    assert data["total"]["ops"] > 0 and len(data["per_rank"]["ops"]) == 8
    for fmt in ("text", "latex", "python", "maple"):
        assert main(["equation", str(out), "--format", fmt]) == 0
        assert "chi_ops" in capsys.readouterr().out
    assert main(["counts", str(out), "N=10"]) == 2
    assert "missing parameter value: steps=" in capsys.readouterr().err


@pytest.mark.parametrize("small", [(30,), (31, 62)])
def test_sum_without_closed_form_is_relaxed_and_named(tmp_path, small):
    """sum over i of floor(i / 2) has no closed form in sympy: floor is replaced by its mean over
    consecutive i, the loop is named in the fallbacks, and the count stays within a fraction of an
    iteration per entry at larger sizes, odd and even."""
    source = HERE / "c" / "symbolic" / "relaxed.c"
    run = instrumented_program(source, tmp_path)

    def trace(n: int) -> Path:
        return run(2, f"r{n}.trace", n)

    model = build_model([trace(n) for n in small])
    line = next(i for i, text in enumerate(source.read_text().splitlines(), 1) if "for (j = 0; j < i / 2" in text)
    assert any(f"relaxed.c:{line}:" in f and ("relaxed" in f.split(":", 2)[2]) for f in model.fallbacks), model.fallbacks
    for n in (1000, 1001):
        measured = measured_counts(from_trace(trace(n)))["total"]["ops"]
        assert model.counts({"n": float(n)}, 2)["total"]["ops"] == pytest.approx(measured, rel=2e-3)


def test_fit_refuses_samples_that_are_not_positive(kernels):
    """A form is c * f(N): a run with zero or negative trips has none (and must not divide by zero)."""
    _, trace = kernels
    counter = CountModel(from_trace(trace(24, 2, 2, "fit-zero.trace")))
    n, steps = size_symbol("n"), size_symbol("steps")
    small, large = {n: 64, steps: 3, P: 2}, {n: 128, steps: 3, P: 2}
    assert counter._fit([(small, sp.Integer(32)), (large, sp.Integer(0))]) == (None, "")
    assert counter._fit([(small, sp.Integer(32)), (large, sp.Integer(-4))]) == (None, "")
    fitted, _ = counter._fit([(small, sp.Integer(32)), (large, sp.Integer(64))])
    assert fitted is not None and fitted.subs({n: 256, steps: 3, P: 2}) == 128


def test_footprints_of_arrays_from_helper_functions(tmp_path):
    """The cache rule sizes an array returned by a helper that allocates it once, with the call's
    arguments; it does not take a scratch allocation or one made in a loop for the returned array,
    and an array passed twice to the same function counts once."""
    model = build_model([instrumented_program(HERE / "c" / "symbolic" / "helpers.c", tmp_path)(1, "h.trace", 40)])
    n = size_symbol(next(iter(model.parameters)))
    footprints = {}
    for nest in model.nests:
        footprints.setdefault(nest["function"], []).append(sp.expand(nest["footprint"]))
    # dot(a, a): one vector of n doubles; dot(a, b): that one and b (2n doubles from new_vector(2 * n))
    assert sorted(footprints["dot"], key=str) == sorted([8 * n, 24 * n], key=str)
    # total(w) with w = use_scratch(a, n) (returns its argument) and total(g) with g = grown(n)
    # (allocated in a loop): unknown, so no footprint rather than a wrong one
    assert footprints["total"] == [0, 0]
    # main's loop over a and b sizes both; the one over g does not
    assert sp.expand(8 * n + 16 * n) in footprints["main"] and 0 in footprints["main"]


def test_branch_predictability_from_the_run(tmp_path):
    """Three ifs true for half of their evaluations: the one on hashed keys is mispredicted about
    every other time, the ones on sorted keys (one run of each outcome) and on alternating values
    (a pattern a local-history predictor learns) almost never: a few per cent, the predictor's
    warm-up in the small run kept as a ratio, at 8x the run's size."""
    source = HERE / "c" / "symbolic" / "branches.c"
    run = instrumented_program(source, tmp_path)
    model = build_model([run(2, "small.trace", 400)])
    lines = {name: next(i for i, text in enumerate(source.read_text().splitlines(), 1) if text.strip().startswith(f"if ({name}["))
             for name in ("random", "sorted", "alternating")}
    n, procs = 3200, 2
    evaluations = n * procs
    missed = {}
    for name, line in lines.items():
        items = [i for i, item in enumerate(model.items) if item.line == line + 1 and "branch" in item.counts]
        assert len(items) == 1, (name, [it.label for it in model.items if it.line == line])
        missed[name] = model.per_rank("branch", {"n": n}, procs, index=items[0]).sum() / evaluations
    assert 0.4 < missed["random"] < 0.6, missed
    assert missed["sorted"] < 0.03 and missed["alternating"] < 0.03, missed
    # the true ratios alone (min(r, 1 - r) = 1/2 for all three) could not tell them apart
    trace = from_trace(run(2, "big.trace", n))
    ratios = []
    for ctx in trace.contexts():
        unit = trace.units[ctx.unit]
        for cond in unit.conds:
            if cond.function == ctx.function and cond.kind == "if" and cond.text != "rank == 0":
                then = sum(ctx.counter(r, unit.blocks[cond.then_block].slot) for r in range(2))
                ratios.append(then / evaluations)
    assert len(ratios) == 3 and all(0.45 < r < 0.55 for r in ratios), ratios
    # loops whose trip count is data: the exit of one that always runs 3 times is learnt, one that
    # runs 0-3 times at random misses about once per entry (the estimate without a predictor: 1)
    per_entry = {}
    for name in ("steady", "random"):
        line = next(i for i, text in enumerate(source.read_text().splitlines(), 1)
                    if text.strip().startswith("while (k < (int)") and name in text)
        (index,) = [i for i, item in enumerate(model.items) if item.line == line and item.kind == "loop"]
        per_entry[name] = model.per_rank("branch", {"n": n}, procs, index=index).sum() / evaluations
    assert per_entry["steady"] < 0.05 and 0.6 < per_entry["random"] < 1.5, per_entry


def test_chained_flops_of_loop_carried_accumulations(tmp_path):
    """Floating-point accumulations into a scalar declared outside the loop are counted as chained
    flops (they run at the latency of the addition); a scalar the body sets afresh, an integer, an
    array element or a pointer target are not; in a loop's condition or step, carried by that loop.  The model of one small run gives the exact count at
    8x the size on 2 processes, and the instrumented program prints what the plain one does."""
    source = HERE / "c" / "symbolic" / "chains.c"
    run = instrumented_program(source, tmp_path)
    model = build_model([run(2, "small.trace", 64, 2)])
    n, reps, procs = 512, 3, 2
    # per rank and repetition: dot n, four forms n each, rows n + n / 8, headers 6 n (n and 2 n in
    # loop steps), and main's 4 additions
    total = model.per_rank("chain", {"n": n, "reps": reps}, procs)
    assert list(total) == [reps * (12 * n + n // 8 + 4)] * procs, total
    assert_same_output_as_plain(source, tmp_path / "chains", tmp_path, 40, 2)


def test_address_arithmetic_and_divisions(tmp_path):
    """Integer operations that compute an address (subscripts, pointer arithmetic, an index set afresh
    from scalars) are counted as ``addr`` among the iops; divisions the compiler keeps (a variable
    divisor, a floating constant not a power of two) as ``div``; neither again in ``ops``.  The model
    of one small run gives the exact counts at 8x on 2 processes; the output is the plain program's."""
    source = HERE / "c" / "symbolic" / "addressing.c"
    run = instrumented_program(source, tmp_path, "-lm")
    model = build_model([run(2, "small.trace", 64, 2)])
    n, reps, procs, width = 512, 3, 2, 8
    # per inner iteration: 6 addr, 3 iops that are not, 3 divisions; the outer loop's test n / w;
    # the pointer walk: its step and its test's x + n
    walk = n // width + (n // width + 1)
    assert list(model.per_rank("addr", {"n": n, "reps": reps}, procs)) == [reps * (6 * n + walk)] * procs
    assert list(model.per_rank("div", {"n": n, "reps": reps}, procs)) == [reps * (3 * n + n // width + 1 + n // width)] * procs
    assert list(model.per_rank("math", {"n": n, "reps": reps}, procs)) == [reps * (n // width)] * procs
    iops = model.per_rank("iops", {"n": n, "reps": reps}, procs)
    assert all(i >= reps * 9 * n for i in iops)
    assert_same_output_as_plain(source, tmp_path / "addressing", tmp_path, 40, 2, libs=("-lm",))


def test_model_written_before_chained_flops(kernels, tmp_path, capsys):
    """A version-1 model file (no chained flops) still predicts with costs it has counts for; with a
    profile that prices 'chain' it is refused in one line that says to rebuild it, not priced at 0."""
    model, _ = kernels
    data = model.to_dict()
    assert data["version"] == 4 and any("chain" in item["counts"] for item in data["items"])
    data = _as_version_2(data)
    data["version"] = 1
    for item in data["items"]:
        item["counts"].pop("chain", None)
    old = tmp_path / "old.model.json"
    old.write_text(json.dumps(data))
    loads, chained = tmp_path / "loads.json", tmp_path / "chain.json"
    assert main(["machine-profile", "--manual", "loads=1e-9", "const=0.01", "-o", str(loads)]) == 0
    assert main(["machine-profile", "--manual", "loads=1e-9", "chain=2e-9", "-o", str(chained)]) == 0
    capsys.readouterr()
    values = ["n=4096", "steps=10", "P=4"]
    assert main(["predict", str(old), "--machine", str(loads), *values, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["time_s"] > 0.01
    assert main(["predict", str(old), "--machine", str(chained), *values]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "older perfeq" in err and "'chain'" in err and "Traceback" not in err
    for command in (["breakdown", "--over", "n=1024,2048", "P=2,4"],
                    ["sensitivity", "--wrt", "chain", "--over", "n=1024,2048", "P=2,4"]):
        assert main([*command, "steps=10", "--machine", str(chained), "-o", str(tmp_path / "x.png"), str(old)]) != 0
        err = capsys.readouterr().err.strip()
        assert "older perfeq" in err and len(err.splitlines()) == 1, err


def _as_version_2(data: dict) -> dict:
    """A model file as perfeq wrote it before version 3: the messages a rank sends under 'startup', the
    messages on the critical path under 'critical'."""
    old_names = {"sent": "startup", "startup": "critical"}
    items = [{**item, "counts": {old_names.get(k, k): v for k, v in item["counts"].items()}} for item in data["items"]]
    check = {**data["self_check"], "checks": [{**c, "key": old_names.get(c["key"], c["key"])}
                                              for c in data["self_check"]["checks"]]}
    return {**{k: v for k, v in data.items() if k != "sync"}, "version": 2, "items": items, "self_check": check}


def test_model_written_before_critical_path_startup(kernels, tmp_path):
    """A version-2 model file (startup = messages sent, critical = the critical path) is read with its keys
    renamed: the same counts under their current names, so its start-ups are the critical path's."""
    model, _ = kernels
    old = tmp_path / "v2.model.json"
    old.write_text(json.dumps(_as_version_2(model.to_dict())))
    again = load_model(old)
    values, procs = {"n": 300, "steps": 7}, 5
    now, before = model.counts(values, procs)["per_rank"], again.counts(values, procs)["per_rank"]
    assert any(v > 0 for v in now["startup"]) and now["startup"] != now["sent"]
    for key in ("startup", "sent", "bytes", "ops"):
        assert before[key] == pytest.approx(now[key], rel=1e-12), key
    assert {c["key"] for c in again.self_check["checks"]} == {c["key"] for c in model.self_check["checks"]}


def test_loads_on_a_shared_node(kernels):
    """'shared' is the rank's loads when the program runs more than one process or thread, else 0,
    for the whole model, per item (breakdowns) and on the plotting grid."""
    model, _ = kernels
    values = {"n": 96, "steps": 3}
    for procs, threads, shared in ((1, 1, False), (2, 1, True), (1, 2, True), (4, 3, True)):
        counts = model.counts(values, procs, threads)
        loads = np.array(counts["per_rank"]["loads"])
        assert loads.sum() > 0
        assert np.array_equal(np.array(counts["per_rank"]["shared"]), loads if shared else 0 * loads)
        rows = model.item_counts(values, procs, threads, counts["slowest_rank"])
        assert sum(row.get("shared", 0) for row in rows) == pytest.approx(counts["slowest"]["shared"])
    grid = model.grid("shared", "n", [96, 192], [1, 2], {"steps": 3})
    assert (grid[0] == 0).all() and (grid[1] == model.grid("loads", "n", [96, 192], [2], {"steps": 3})[0]).all()


def test_calls_in_loop_headers_are_counted_per_test(tmp_path):
    """A function called in a loop's header runs once per entry (initialization, and the first test
    of a for or while condition) and once per iteration (the other tests, the step); a do-while
    condition once per iteration.  Announced like other call sites, the callees' operations of two
    small runs give those of a run at 8x the size exactly (they came from an unknown call site and
    did not scale: 2472 predicted against 11992 measured for a while (more(i, n)) loop)."""
    source = HERE / "c" / "symbolic" / "header_calls.c"
    run = instrumented_program(source, tmp_path)
    model = build_model([run(2, "small.trace", 16), run(2, "small2.trace", 32)])
    assert not [f for f in model.fallbacks if "unknown call site" in f], model.fallbacks
    measured = measured_counts(from_trace(run(2, "big.trace", 128)))["total"]
    predicted = model.counts({"n": 128.0}, 2)["total"]
    assert predicted["ops"] == pytest.approx(measured["ops"], rel=1e-12)
    assert predicted["calls"] == pytest.approx(measured["calls"], rel=1e-12)
    assert_same_output_as_plain(source, tmp_path / "header_calls", tmp_path, 40)


def test_a_trace_given_for_a_model_says_so(kernels, tmp_path, capsys):
    """perfeq counts/predict take a model; given a trace (JSON lines) they say what to do instead of
    'not valid JSON: Extra data'."""
    _, trace = kernels
    path = trace(24, 2, 2, "given.trace")
    capsys.readouterr()
    assert main(["counts", str(path), "n=64", "steps=2", "P=2"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is a trace, not a model" in err and "perfeq model" in err, err


def test_a_call_in_a_short_circuit_loop_condition_keeps_its_measured_ratio(tmp_path):
    """A header call that does not run on every test (right operand of &&/||) keeps the run's
    calls per test, named once as a measured ratio, instead of being assumed on every test."""
    source = tmp_path / "shortcut.c"
    source.write_text(
        "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\nstatic long spent;\n"
        "static int flat(int i, int n) { int k; for (k = 0; k < 10; k++) spent += k; return i < n; }\n"
        "int main(int argc, char **argv)\n{\n    int i, n = argc > 1 ? atoi(argv[1]) : 16;\n    long t = 0;\n"
        "    MPI_Init(&argc, &argv);\n"
        "    for (i = 0; i < n && (i % 2 == 0 || flat(i, n)); i++)\n        t += i;\n"
        "    printf(\"%ld %ld\\n\", t, spent);\n    MPI_Finalize();\n    return 0;\n}\n")
    run = instrumented_program(source, tmp_path)
    model = build_model([run(2, "small.trace", 16), run(2, "small2.trace", 32)])
    notes = [f for f in model.fallbacks if "flat in a loop cond" in f]
    assert len(notes) == 1 and "measured ratio" in notes[0], model.fallbacks
    measured = measured_counts(from_trace(run(2, "big.trace", 256)))["total"]
    predicted = model.counts({"n": 256.0}, 2)["total"]
    # every test would be 257 calls per rank; the run's ratio (about one in two) is 8/17 at n = 16
    assert predicted["calls"] == pytest.approx(measured["calls"], rel=0.05)
    assert predicted["ops"] == pytest.approx(measured["ops"], rel=0.05)


def test_latex_keeps_names_with_underscores_whole():
    """``perfeq equation --format latex``: the MPI message functions and parameters such as
    ``current_nx`` are names, not a base with a subscript (sympy's default: mpi_{\\mathcal{criti} send})."""
    from perfeq.symbolic.export import FORMATTERS

    current_nx = sp.Symbol("current_nx", positive=True)
    critical = sp.Function("mpi_critical_send")
    text = FORMATTERS["latex"](2 * current_nx * critical(P) + sp.floor(current_nx / P))
    assert r"\operatorname{mpi\_critical\_send}{\left(P \right)}" in text
    assert r"\mathit{current\_nx}" in text and "_{" not in text
    assert r"\left\lfloor" in text  # everything else as sympy prints it


def test_a_flag_set_under_many_branches_is_not_decided_symbolically(tmp_path):
    """NPB LU's ``if (*verified)``: a flag cleared under a chain of class branches resolves to a
    Piecewise of hundreds of terms, which sympy did not decide in ten minutes.  The model takes its
    measured ratio and says so, and still counts exactly at another size.  The class letter's tests
    (``if (*class == 'U')``) are as large since the letter is resolved through the whole else-if
    chain (before, through its last ``if`` alone, which was right only where no class matched)."""
    run = instrumented_program(HERE / "c" / "symbolic" / "flags.c", tmp_path, "-lm")
    model = build_model([run(1, "s8.trace", 8, 5), run(1, "s16.trace", 16, 5)])
    notes = [f for f in model.fallbacks if "too large to decide symbolically" in f]
    assert [re.search(r"flags\.c:(\d+):", f).group(1) for f in notes] == ["43", "47", "51", "55", "57"], notes
    assert len(notes) == len(model.fallbacks), model.fallbacks
    measured = measured_counts(from_trace(run(1, "s32.trace", 32, 5)))["total"]
    predicted = model.counts({"n": 32.0, "steps": 5.0}, 1)["total"]
    assert predicted["ops"] == measured["ops"] and predicted["calls"] == measured["calls"]


def test_level_sizes_kept_in_arrays_are_symbolic(tmp_path):
    """NPB MG's level hierarchy: the finest size read into ``nx[lt]``, the others by a recurrence,
    the extents ``m1[k]`` by a loop, the finest extent through ``setup(&n1, lt)`` called twice.  Every
    loop is counted from its bounds (none fitted; the sums over the levels of floor(n / 2^(lt - k))
    are relaxed, exact where n = 2^lt), and the counts are exact at a level not run."""
    run = instrumented_program(HERE / "c" / "symbolic" / "levels.c", tmp_path)

    def trace(lt: int, steps: int) -> Path:
        (tmp_path / f"in{lt}").write_text(f"{lt}\n{2**lt}\n{steps}\n")
        return run(1, f"l{lt}.trace", tmp_path / f"in{lt}")

    model = build_model([trace(4, 2), trace(5, 3)])
    fitted = [f for f in model.fallbacks if "levels.c" in f and ("as fit" in f or "as constant" in f)]
    assert fitted == [], fitted
    assert {"lt", "nx_lt"} <= {s.name for s in model.size_symbols}
    measured = measured_counts(from_trace(trace(8, 4)))["total"]
    predicted = model.counts({"lt": 8.0, "nx_lt": 256.0, "steps": 4.0}, 1)["total"]
    for key in ("ops", "calls", "loads"):
        assert predicted[key] == pytest.approx(measured[key], rel=1e-12), key


def test_recurrences_over_array_elements_are_symbolic(tmp_path):
    """A doubling recurrence from an element set alone, an additive one, a local array filled by a
    loop, a halving one from an element read with sscanf: every loop from its bounds, exact at
    more levels and a larger n than the runs had."""
    run = instrumented_program(HERE / "c" / "symbolic" / "recurrences.c", tmp_path)
    model = build_model([run(1, "a.trace", 16, 3), run(1, "b.trace", 32, 4)])
    fitted = [f for f in model.fallbacks if "recurrences.c" in f and ("as fit" in f or "as constant" in f)]
    assert fitted == [], fitted
    measured = measured_counts(from_trace(run(1, "c.trace", 128, 6)))["total"]
    predicted = model.counts({"n": 128.0, "levels": 6.0, "half_top": 128.0}, 1)["total"]
    for key in ("ops", "calls", "loads"):
        assert predicted[key] == pytest.approx(measured[key], rel=1e-12), key


def test_values_counted_by_loops_are_symbolic(tmp_path):
    """NPB FT's ``m = ilog2(n)`` (a while loop doubling ``nn`` and counting ``lg``, an early
    ``return 0``), a level count ``while (n > 1) { count += 1; n /= 2; }``, a tally ``m++`` in a
    for loop and a width ``width *= 2`` once per level: each value after its loop is its first value plus the steps times the iterations, so
    every loop bound that uses them is symbolic and the counts are exact at 32x the first run.  A
    variable a completed loop assigns with ``=`` (``last = i`` under a condition) is no longer taken
    at its value from before that loop: its bound is fitted, and says why."""
    run = instrumented_program(HERE / "c" / "symbolic" / "counters.c", tmp_path)
    model = build_model([run(1, "a.trace", 64), run(1, "b.trace", 128)])
    fitted = [f for f in model.fallbacks if "counters.c" in f]
    assert len(fitted) == 1 and "counters.c:63:" in fitted[0], fitted
    assert "'last' changes in the loop at line 60 before this point" in fitted[0]
    measured = measured_counts(from_trace(run(1, "c.trace", 2048)))["total"]
    predicted = model.counts({"n": 2048.0}, 1)["total"]
    for key in ("ops", "calls", "loads", "chain"):
        assert predicted[key] == pytest.approx(measured[key], rel=1e-12), key


def test_scalars_an_enclosing_loop_steps_are_symbolic(tmp_path):
    """``ln = 2 * ln`` after an inner loop to ``ln - 1`` (NPB FT's fft_init), ``size /= 2`` before an
    inner loop to ``size``, ``w += 2`` after one to ``w * n``: each inner bound is the recurrence's
    closed form at the outer loop's iteration, so no loop is fitted and the counts are exact at
    (n, m) = (1024, 9) from runs at (64, 5) and (128, 6)."""
    run = instrumented_program(HERE / "c" / "symbolic" / "stages.c", tmp_path, "-lm")
    model = build_model([run(1, "a.trace", 64, 5), run(1, "b.trace", 128, 6)])
    fitted = [f for f in model.fallbacks if "stages.c" in f and ("as fit" in f or "as constant" in f)]
    assert fitted == [], fitted
    measured = measured_counts(from_trace(run(1, "c.trace", 1024, 9)))["total"]
    predicted = model.counts({"n": 1024.0, "m": 9.0}, 1)["total"]
    for key in ("ops", "calls", "loads", "math"):
        assert predicted[key] == pytest.approx(measured[key], rel=1e-12), key


def test_sizes_in_a_two_dimensional_array_and_its_rows(tmp_path):
    """NPB FT's sizes: ``dims[i][0] = nx`` ... in a loop over the rows, ``dims[2][0]`` read in
    main, a row passed as ``int d[3]`` and read as ``d[1]``, the stage count ``logd[0]`` of
    ``logd[i] = ilog2(d[i])``: all symbolic (the rows per call site), only ilog2's own loop, called
    with each ``d[i]`` in a loop, is fitted; ops within 1e-4 at 16x the first run."""
    run = instrumented_program(HERE / "c" / "symbolic" / "dims.c", tmp_path)
    model = build_model([run(1, "a.trace", 16), run(1, "b.trace", 32)])
    fitted = {f.split(": ")[0].rsplit("/", 1)[-1] for f in model.fallbacks if "dims.c" in f}
    assert fitted == {"dims.c:15"}, model.fallbacks
    measured = measured_counts(from_trace(run(1, "c.trace", 256)))["total"]
    predicted = model.counts({"n": 256.0}, 1)["total"]
    assert predicted["ops"] == pytest.approx(measured["ops"], rel=1e-4)
    for key in ("flops", "loads", "calls"):
        assert predicted[key] == pytest.approx(measured[key], rel=1e-12), key


def test_a_complex_infinity_in_a_branch_not_taken_evaluates():
    """NPB MG's model held Piecewise((..., nx_lt != 1 ...), (zoo, True)) (a function's value after its
    early returns, infinite where none is taken): lambdify cannot print zoo, and the model stage
    stopped with an internal error (KeyError: 'ComplexInfinity') in session 27's corpus run.  The
    branch taken evaluates; the infinite one is no number."""
    from perfeq.symbolic.counts.base import _number
    from perfeq.symbolic.symbols import lambdify_numpy

    n = sp.Symbol("n", positive=True, integer=True)
    expr = sp.Piecewise((2 * n, sp.Ne(n, 1)), (sp.zoo, True))
    assert float(lambdify_numpy([n], expr)(3)) == 6.0
    assert _number(expr, {n: 3.0}) == 6.0 and _number(expr, {n: 1.0}) is None
