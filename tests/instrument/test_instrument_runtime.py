"""Instrumented corpus programs linked with the perfeq runtime and run for real (instrument + runtime).

The counters and values of the trace are checked against what the descriptors promise: a loop's
entries in its entry slot, its iterations in its body block's slot, its bound in its value slot,
call sites as the contexts' sites, MPI call sites in the MPI records.  The program's output and
exit status stay those of the original.  Skipped until the runtime's builder is importable.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import C_PROGRAMS, local_history_misses, run_traced

from perfeq.instrument.descriptors import UnitDescriptors
from perfeq.instrument.instrumenter import Instrumented, instrument_file
from perfeq.runtime import build
from perfeq.symbolic.measured import count_trace
from perfeq.toolchain import find_program, mpi_env

CORPUS = C_PROGRAMS / "instrument"


def line_of(path: Path, text: str, nth: int = 0) -> int:
    lines = [i for i, line in enumerate(path.read_text().split("\n"), start=1) if text in line]
    return lines[nth]


def build_program(name: str, compiler: list[str], folder: Path, mpi: bool) -> tuple[Instrumented, Path, Path]:
    """The instrumented program linked with the runtime, and the original, both compiled."""
    result = instrument_file(CORPUS / f"{name}.c", folder / f"{name}.perfeq.c", compiler[:1], compiler[1:])
    runtime = build.build_runtime(compiler, folder / "rt", mpi=mpi)
    binary, original = folder / name, folder / f"{name}.original"
    for command in ([*compiler, *runtime.compile_args, str(result.output), *runtime.link_args, "-o", str(binary)],
                    [*compiler, str(CORPUS / f"{name}.c"), "-o", str(original)]):
        compiled = subprocess.run(command, capture_output=True, text=True, env=mpi_env())
        assert compiled.returncode == 0, compiled.stderr
    return result, binary, original


def traced(command: list[str], output: Path, **env: str):
    """Run under ``perfeq run``: exit status, stdout, the merged trace."""
    plain = subprocess.run(command, capture_output=True, text=True, env={**mpi_env(), **env, "PERFEQ_ENABLE": "0"})
    status, trace = run_traced(command, output, **env)
    return status, plain.stdout, trace


def contexts(trace, function: str, rank: int = 0) -> list:
    ranks = trace.ranks[rank]
    return [c for c in ranks.contexts.values() if ranks.function(c).name == function]


def original_output(binary: Path, args: list[str], launcher: list[str] = (), **env: str) -> tuple[int, str]:
    done = subprocess.run([*launcher, str(binary), *args], capture_output=True, text=True, env={**mpi_env(), **env})
    return done.returncode, done.stdout


def loop_slots(unit: UnitDescriptors, line: int) -> tuple[int, int, dict[str, int]]:
    (loop,) = [loop for loop in unit.loops if loop.line == line]
    return loop.entry_slot, unit.blocks[loop.body_block].slot, loop.values


def test_loop_counts_and_values(tmp_path: Path) -> None:
    result, binary, original = build_program("loops", ["gcc", "-O1"], tmp_path, mpi=False)
    status, stdout, trace = traced([str(binary)], tmp_path / "loops.trace")
    assert (status, stdout) == original_output(original, [])
    unit = result.descriptors
    source = CORPUS / "loops.c"
    (main,) = contexts(trace, "main")
    fill_entry, fill_body, fill_values = loop_slots(unit, line_of(source, "for (i = 0; i < N; i++)"))
    assert (main.counters[fill_entry], main.counters[fill_body]) == (1, 16)
    assert fill_values == {}  # constant bounds (0 and the macro N) are not recorded at each entry
    outer_entry, outer_body, _ = loop_slots(unit, line_of(source, "for (i = 0; i < N; i++)", 1))
    inner_entry, inner_body, inner_values = loop_slots(unit, line_of(source, "for (j = 0; j < i; j++)"))
    assert main.counters[outer_body] == 16 and main.counters[inner_entry] == 16
    assert main.counters[inner_body] == sum(range(16))  # triangular
    bound = main.values[inner_values["bound"]]
    assert (bound.n, bound.min, bound.max, bound.sum) == (16, 0, 15, sum(range(16)))
    _, while_body, _ = loop_slots(unit, line_of(source, "while (i < N)"))
    assert main.counters[while_body] == 6  # i = 0, 3, ..., 15
    _, moving_body, _ = loop_slots(unit, line_of(source, "for (i = 0; i < k; i++)"))
    assert main.counters[moving_body] == 15  # the bound k drops from 16 to 15 at i == 5
    finds = contexts(trace, "find")
    sites = {c.site for c in finds}
    assert sites == {c.id for c in unit.calls if c.callee == "find"} and len(finds) == 2
    assert all(c.calls == 1 for c in finds)


def test_exit_status_and_trace_of_a_program_calling_exit(tmp_path: Path) -> None:
    result, binary, original = build_program("exit3", ["gcc", "-O1"], tmp_path, mpi=False)
    status, stdout, trace = traced([str(binary)], tmp_path / "exit3.trace")
    assert (status, stdout) == original_output(original, []) == (3, "failing with 3\n")
    (main,) = contexts(trace, "main")
    _, body, _ = loop_slots(result.descriptors, line_of(CORPUS / "exit3.c", "for (i = 0; i < 10; i++)"))
    assert main.counters[body] == 5 and len(contexts(trace, "fail")) == 1
    assert not trace.incomplete


def test_openmp_counts_sum_over_threads(tmp_path: Path) -> None:
    result, binary, original = build_program("omp", ["gcc", "-O1", "-fopenmp"], tmp_path, mpi=False)
    status, stdout, trace = traced([str(binary)], tmp_path / "omp.trace", OMP_NUM_THREADS="2")
    assert (status, stdout) == original_output(original, [], OMP_NUM_THREADS="2")
    unit = result.descriptors
    source = CORPUS / "omp.c"
    (main,) = contexts(trace, "main")
    combined = line_of(source, "#pragma omp parallel for private(j)") + 1
    _, body, _ = loop_slots(unit, combined)
    assert main.counters[body] == 32
    _, inner_body, _ = loop_slots(unit, line_of(source, "for (j = 0; j < N; j++)"))
    assert main.counters[inner_body] == 32 * 32
    (collapsed,) = [loop for loop in unit.loops if "collapsed" in loop.flags]
    assert main.counters[unit.blocks[collapsed.body_block].slot] == 32 * 32
    assert all(main.counters[r.slot] == 1 for r in unit.regions)  # each region entered once
    _, whole_body, _ = loop_slots(unit, line_of(source, "for (int k = 0; k < 4; k++)"))
    assert main.counters[whole_body] == 2 * 4  # every thread runs the whole loop
    split = line_of(source, "for (i = 0; i < N; i += 2)")
    split_entry, split_body, _ = loop_slots(unit, split)
    assert (main.counters[split_entry], main.counters[split_body]) == (2, 16)  # entered by each thread


def test_mpi_sites_and_params(tmp_path: Path) -> None:
    mpicc, mpiexec = find_program("mpicc"), find_program("mpiexec")
    if not mpicc or not mpiexec:
        pytest.skip("no MPI")
    result, binary, original = build_program("mpi", [mpicc, "-O1"], tmp_path, mpi=True)
    launcher = [mpiexec, "-n", "2"]
    status, stdout, trace = traced([*launcher, str(binary), "12"], tmp_path / "mpi.trace")
    assert (status, stdout) == original_output(original, ["12"], launcher)
    unit = result.descriptors
    assert trace.params["n"] == 12
    # MPI_Comm_size's variable is described (P) and not recorded: the trace holds P itself
    assert "size" not in trace.params and trace.nranks == 2
    assert [(p.variable, p.source) for p in unit.params if p.source == "mpi_size"] == [("size", "mpi_size")]
    by_site = {}
    for rank in (0, 1):
        for context in contexts(trace, "main", rank):
            for record in context.mpi:
                by_site.setdefault(record.site, []).append(record)
    (bcast,) = [c for c in unit.comms if c.call == "MPI_Bcast"]
    assert [(r.call, r.calls, r.elements) for r in by_site[bcast.id]] == [("MPI_Bcast", 1, 12)] * 2
    for send in (c for c in unit.comms if c.call == "MPI_Send"):
        records = by_site[send.id]
        assert {r.call for r in records} == {"MPI_Send"} and sum(r.calls for r in records) == 3


def test_hooks_starting_at_one_offset_nest_as_the_expressions(tmp_path: Path) -> None:
    """``f(i) > 0 ? ...``, ``if (f(s) > 1)``, ``malloc(g(4) * sizeof(double))``: the condition and
    size hooks wrap the whole expression around the call's announcement, so the program computes
    what it did (a condition hook around ``f(i)`` alone once made ``f(i) > 0`` always true) and the
    allocation records 32 bytes, not g(4)."""
    result, binary, original = build_program("nesting", ["gcc", "-O1"], tmp_path, mpi=False)
    status, stdout, trace = traced([str(binary)], tmp_path / "nesting.trace")
    assert (status, stdout) == original_output(original, []) == (0, "111124 111124\n")
    text = result.output.read_text()
    # f and g call no function of the program: leaf calls (entries 0, 1 of the unit's leaf table),
    # of their twins (collect/twins.py)
    twin = "PERFEQ_LEAF_TWIN(perfeq__unit, {k}, {f})(PERFEQ_LEAF_ARGS(perfeq__unit, {k}) {arg})"
    assert f"s += {twin.format(k=0, f='f', arg='i')} > 0 ? 10 : 1;" in text  # a ?: is not hooked
    assert f"PERFEQ_BRANCH(3, ({twin.format(k=1, f='f', arg='s')} > 1))" in text
    assert f"PERFEQ_SIZE(0, {twin.format(k=3, f='g', arg='4')} * sizeof(double))" in text
    (main,) = contexts(trace, "main")
    (shape,) = [s for s in result.descriptors.shapes if s.kind == "malloc"]
    assert main.values[shape.value_slot].first == 4 * 8
    ifs = [c for c in result.descriptors.conds if c.kind == "if"]
    assert [c.predictor is None for c in ifs] == [False, False, False, True]  # the last has an #ifdef inside
    for cond in ifs:
        assert main.counters[result.descriptors.blocks[cond.then_block].slot] == 1
        if cond.predictor is not None:
            assert main.counters.get(cond.predictor, 0) == 1  # one evaluation, taken: counters start at not taken


def test_loops_the_predictor_hook_leaves_alone(tmp_path: Path) -> None:
    """``while (1)`` left by return keeps its constant condition (with the hook around it the
    compiler saw a function that could reach its end: a -Werror build failed), and a loop under
    an OpenMP construct perfeq does not list (``teams distribute``) keeps its canonical condition."""
    flags = ["gcc", "-O1", "-fopenmp", "-std=c99", "-Wall", "-Wextra", "-Werror"]
    result, binary, original = build_program("loopforms", flags, tmp_path, mpi=False)
    status, stdout, _ = traced([str(binary)], tmp_path / "loopforms.trace")
    assert (status, stdout) == original_output(original, []) == (0, "3 4950\n")
    assert "while (1)" in result.output.read_text()
    assert all(loop.predictor is None for loop in result.descriptors.loops)


def test_openmp_sections(tmp_path: Path) -> None:
    """``parallel sections`` and ``sections`` in a parallel region, orphaned, nested: no hook before
    the first section or between sections (the instrumented program did not compile), each section
    is counted as a body of its own, and the program prints what the original does."""
    flags = ["gcc", "-O1", "-fopenmp", "-std=c99", "-Wall", "-Wextra", "-Werror"]
    result, binary, original = build_program("sections", flags, tmp_path, mpi=False)
    for threads in ("1", "3"):
        status, stdout, trace = traced([str(binary)], tmp_path / f"sections{threads}.trace", OMP_NUM_THREADS=threads)
        assert (status, stdout) == original_output(original, [], OMP_NUM_THREADS=threads) == (0, "24 4950 60 57 1 28 25 1\n")
        sections = [b for b in result.descriptors.blocks if b.kind in ("section", "team-section")]
        assert [b.kind for b in sections] == ["team-section"] * 2 + ["section"] * 4 + ["team-section"] * 2 + [
            "section"] * 2
        (main,) = contexts(trace, "main")
        # parallel sections: once per entry (the nested one once per outer thread); a team's: once
        assert [main.counters.get(b.slot, 0) for b in sections[2:]] == [1] * 6 + [int(threads)] * 2
    # the model of the 1-thread run gives the operations of the 3-thread run: sections once per
    # entry, the parallel region's own blocks once per thread
    from perfeq.symbolic.measured import measured_counts
    from perfeq.symbolic.model import build_model
    from perfeq.symbolic.observe import from_trace

    model = build_model([tmp_path / "sections1.trace"])
    measured = measured_counts(from_trace(tmp_path / "sections3.trace"))["total"]
    assert model.counts({}, 1, 3)["total"]["ops_total"] == pytest.approx(measured["ops_total"], rel=1e-12)
    text = result.output.read_text()
    assert re.search(r"#pragma omp parallel sections private\(i\)\s*\{\s*\{\s*PERFEQ_BLOCK_MT", text)
    assert re.search(r"#pragma omp sections\s*\{\s*#pragma omp section", text)


@pytest.mark.parametrize("threads", ["1", "2"])
def test_loop_exits_told_at_the_exit_count_as_every_test_would(threads: str, tmp_path: Path) -> None:
    """The sparse-row loop and the halving loop (nothing leaves them early) have no hook in their
    condition, and their predictors count the mispredictions of the plain predictor definition over
    the tests' outcomes; the loop left by break and the one whose body recurses keep PERFEQ_BRANCH.
    The if by which a search loop leaves (break, return) has no hook in its condition either and
    counts what every test would; an if that is not the loop's only way out keeps PERFEQ_BRANCH."""
    result, binary, original = build_program("exits", ["gcc", "-O2", "-fopenmp"], tmp_path, mpi=False)
    status, stdout, trace = traced([str(binary), "300"], tmp_path / "exits.trace", OMP_NUM_THREADS=threads)
    assert (status, stdout) == original_output(original, ["300"], OMP_NUM_THREADS=threads)
    text, source, unit = result.output.read_text(), CORPUS / "exits.c", result.descriptors
    assert "k < row[j + 1]; k++)" in text and "while (m > len[0])" in text  # conditions as written
    assert text.count("PERFEQ_EXIT_BRANCH(") == 4 and text.count("PERFEQ_EXIT_BRANCH_L(") == 1  # 4 serial loops
    assert re.search(r"PERFEQ_BRANCH\(\d+, \(k < len\[d\]\)\)", text) and re.search(r"PERFEQ_BRANCH\(\d+, \(k < row\[n\]\)\)", text)
    (main,) = contexts(trace, "main")
    lengths = [(j * 7) % 11 for j in range(300)]

    def predictor(line: int) -> int:
        (loop,) = [loop for loop in unit.loops if loop.line == line]
        return main.counters[loop.predictor]

    rows = [o for n in lengths for o in [1] * n + [0]]
    assert predictor(line_of(source, "sparse row: told at the exit")) == local_history_misses(rows) > 100
    halvings = [1] * (sum(lengths).bit_length() - 2) + [0]  # 1359 -> 679 -> ... -> 2
    assert predictor(line_of(source, "halving: told at the exit")) == local_history_misses(halvings)
    assert predictor(line_of(source, "left by break: per test")) == local_history_misses([1] * 5)  # k = 0..4, then break
    if threads == "1":  # one thread: the slab's predictor saw every row in order
        assert predictor(line_of(source, "in a parallel region")) == local_history_misses(rows)
    # guards: no hook in the condition, told when taken (before break / return) and at the exit
    assert "if (row[j + 1] > v)" in text and "if (a[k] > 3.5)" in text
    assert re.search(r"PERFEQ_BRANCH\(\d+, \(row\[k\] > 50\)\)", text)  # two ways out: per test
    assert text.count("PERFEQ_GUARD_TAKEN(") == 2 and text.count("PERFEQ_GUARD_EXIT(") == 2

    def guard(context, line: int) -> int:
        (cond,) = [c for c in unit.conds if c.line == line]
        assert cond.predictor is not None
        return context.counters.get(cond.predictor, 0)

    assert guard(main, line_of(source, "its guard: told when taken")) == local_history_misses([0, 0, 0, 0, 1])
    row = [0]
    for n in lengths:
        row.append(row[-1] + n)
    searches = [o for v in range(0, row[-1] + 40, 37)
                for o in next(([0] * j + [1] for j in range(300) if row[j + 1] > v), [0] * 300)]
    assert searches.count(1) == len(range(0, row[-1] + 40, 37)) - 1  # the last one leaves by the condition
    (search,) = contexts(trace, "search")
    assert guard(search, line_of(source, "search: told when taken")) == local_history_misses(searches) > 10


@pytest.mark.parametrize("threads", ["1", "2"])
def test_leaves_called_in_parallel_constructs_use_the_threads_slabs(threads: str, tmp_path: Path) -> None:
    """A leaf that records no values, called in a parallel loop, calls its twin with the calling
    thread's slab (PERFEQ_LEAF_ARGS_MT, or _L where the body declared perfeq__cm), loops bounded by
    its parameters included (sum_to and around were announced: a game of life's neighbour count per
    cell 2.5-2.9x).  It builds with -Wall -Wextra -Werror, prints what the original prints, counts what
    the announced calls count (-DPERFEQ_NO_LEAVES), and its trace's team is the threads' (it was 1
    for a parallel loop whose body only called functions)."""
    compiler = ["gcc", "-O2", "-fopenmp", "-std=c99", "-Wall", "-Wextra", "-Werror"]
    result, binary, original = build_program("teamleaf", compiler, tmp_path, mpi=False)
    text = result.output.read_text()
    assert text.count("(PERFEQ_LEAF_ARGS_MT(perfeq__unit, ") == 2 and text.count("(PERFEQ_LEAF_ARGS_L(perfeq__unit, ") == 3
    assert "PERFEQ_CALLED(" not in text
    status, stdout, trace = traced([str(binary), "3000"], tmp_path / "twins.trace", OMP_NUM_THREADS=threads)
    assert (status, stdout) == original_output(original, ["3000"], OMP_NUM_THREADS=threads) and status == 0
    runtime = build.build_runtime(compiler, tmp_path / "rt", mpi=False)
    other = tmp_path / "announced"
    subprocess.run([*compiler, "-DPERFEQ_NO_LEAVES", *runtime.compile_args, str(result.output), *runtime.link_args,
                    "-o", str(other)], check=True, env=mpi_env())
    _, _, announced = traced([str(other), "3000"], tmp_path / "announced.trace", OMP_NUM_THREADS=threads)
    counted = [count_trace(t) for t in (trace, announced)]
    assert [(c.total.ops, c.total.ops_total, c.total.calls) for c in counted] == [
        (counted[1].total.ops, counted[1].total.ops_total, counted[1].total.calls)] * 2
    clamped = sum(1 for i in range(3000) if (i % 1000) * 0.37 > 50.0)
    assert counted[0].total.calls == 1 + 2 * 3000 + clamped + 2 * 64  # main, round_half, clampd, sum_to, around
    assert [t.ranks[0].threads for t in (trace, announced)] == [int(threads)] * 2
    if threads == "2":
        assert counted[0].total.ops < 0.75 * counted[0].total.ops_total  # the loops' work divided by 2


def test_leaves_declared_without_a_prototype_keep_their_calls(tmp_path: Path) -> None:
    """tests/c/instrument/unprototyped.c: ``void fill(), show();`` and a ``float (*)[N][N]`` passed for
    a ``float *``.  The plain build has no diagnostic, and neither has the instrumented one with
    -Werror=incompatible-pointer-types (GCC 14's default): fill keeps its own call, announced (its
    twin's prototype refused the argument: LLNL's mpi_heat2D); sum, declared with a prototype and
    called before its definition, still calls its twin.  Same output."""
    compiler = ["gcc", "-O2", "-std=gnu99", "-Wall", "-Werror", "-Werror=incompatible-pointer-types"]
    result, binary, original = build_program("unprototyped", compiler, tmp_path, mpi=False)
    text = result.output.read_text()
    assert "PERFEQ_LEAF_CALLED(perfeq__unit, 0, fill(n, u))" in text and "twin__fill" not in text
    assert re.search(r"PERFEQ_LEAF_TWIN\(perfeq__unit, \d+, sum\)", text)
    status, stdout, _ = traced([str(binary), "12"], tmp_path / "u.trace")
    assert (status, stdout) == original_output(original, ["12"]) and status == 0 and "total 10296" in stdout


def test_leaf_calls_go_to_twins_with_the_same_counts(tmp_path: Path) -> None:
    """A leaf function called from a leaf call site is called through its twin, a copy taking the
    caller's slots (instrument/collect/twins.py): it builds with -Wall -Wextra -Werror, prints what the
    original prints, and its trace counts what the announced leaf calls count (-DPERFEQ_NO_LEAVES);
    a function with a static local keeps PERFEQ_LEAF_CALLED; -DPERFEQ_OFF builds too."""
    compiler = ["gcc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror"]
    result, binary, original = build_program("twins", compiler, tmp_path, mpi=False)
    text = result.output.read_text()
    for name, arguments in (("scale", "PERFEQ_LEAF_ARGS("), ("zero", "PERFEQ_LEAF_ARGS0(")):
        assert re.search(rf"PERFEQ_LEAF_TWIN\(perfeq__unit, \d+, {name}\)\({re.escape(arguments)}", text), name
        assert text.count(f" perfeq__twin__{name}(") == (2 if name == "scale" else 1)  # scale: a prototype too
    assert text.index("perfeq__twin__scale(") < text.index("\ndouble run(")
    assert "PERFEQ_LEAF_CALLED(perfeq__unit, 2, count_seen(i))" in text and "twin__count_seen" not in text
    assert "twin__where" not in text  # (straight-line: counted in its callers, no call hooks)
    status, stdout, trace = traced([str(binary), "12"], tmp_path / "twins.trace")
    assert (status, stdout) == original_output(original, ["12"]) and status == 0
    runtime = build.build_runtime(compiler, tmp_path / "rt", mpi=False)
    for flag in ("-DPERFEQ_NO_LEAVES", "-DPERFEQ_OFF"):
        other = tmp_path / flag
        subprocess.run([*compiler, flag, *runtime.compile_args, str(result.output), *runtime.link_args, "-o",
                        str(other)], check=True, env=mpi_env())
        if flag == "-DPERFEQ_OFF":
            assert original_output(other, ["12"]) == (status, stdout)
            continue
        _, _, announced = traced([str(other), "12"], tmp_path / "announced.trace")
        counted = [count_trace(t).total for t in (trace, announced)]
        assert [(c.ops, c.calls) for c in counted] == [(counted[1].ops, counted[1].calls)] * 2
        assert counted[0].calls == 1 + 1 + 12 * 3  # main, run, the three leaves the loop calls
