"""Tiny hand-instrumented C programs (tests/c/runtime/) compiled with the runtime and run for real.

Their counters are checked against hand-computed values; their output and exit status must be
the same as without perfeq.  Serial, MPI (1, 2 and 4 ranks, oversubscribed) and OpenMP (2 threads).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import C_PROGRAMS, run_traced

from perfeq.cli import main as cli_main
from perfeq.errors import BuildError, RunError
from perfeq.runtime.build import RuntimeBuild, build_runtime
from perfeq.runtime.callgraph import CallGraph
from perfeq.runtime.run import run_instrumented
from perfeq.runtime.trace import Trace, iter_records
from perfeq.symbolic.measured import count_trace, unit_costs
from perfeq.toolchain import find_mpi

PROGRAMS = C_PROGRAMS / "runtime"


def compile_program(build: RuntimeBuild, compiler: list[str], source: str, out: Path,
                    extra: tuple[str, ...] = ()) -> Path:
    command = [*compiler, *build.compile_args, *extra, str(PROGRAMS / source), *build.link_args, "-o", str(out)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("serial")
    build = build_runtime(["gcc", "-O1"], folder / "rt", mpi=False)
    descriptors = f'-DPERFEQ_TEST_DESCRIPTORS="{PROGRAMS / "calls.perfeq.json"}"'
    return {
        "calls": compile_program(build, ["gcc", "-O1"], "calls.c", folder / "calls", (descriptors,)),
        "calls_off": compile_program(build, ["gcc", "-O1"], "calls.c", folder / "calls_off", ("-DPERFEQ_OFF",)),
        "misnest": compile_program(build, ["gcc", "-O1"], "misnest.c", folder / "misnest"),
        "escape": compile_program(build, ["gcc", "-O1"], "escape.c", folder / "escape"),
        "recurse": compile_program(build, ["gcc", "-O1"], "recurse.c", folder / "recurse"),
        "crash": compile_program(build, ["gcc", "-O1"], "crash.c", folder / "crash"),
    }


def _mpi_program(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """tests/c/runtime/NAME.c built with mpicc against the runtime with its PMPI wrappers."""
    try:
        mpi = find_mpi()
    except BuildError as exc:
        pytest.skip(str(exc))
    folder = tmp_path_factory.mktemp(name)
    build = build_runtime([mpi.mpicc, "-O1"], folder / "rt", mpi=True)
    return compile_program(build, [mpi.mpicc, "-O1"], f"{name}.c", folder / name)


@pytest.fixture(scope="module")
def mpi_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _mpi_program(tmp_path_factory, "mpi_comm")


@pytest.fixture(scope="module")
def vcoll_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _mpi_program(tmp_path_factory, "mpi_vcoll")


@pytest.fixture(scope="module")
def omp_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("omp")
    build = build_runtime(["gcc", "-O1", "-fopenmp"], folder / "rt", mpi=False)
    return compile_program(build, ["gcc", "-O1", "-fopenmp"], "omp_loop.c", folder / "omp_loop")


def traced(command: list[str], tmp_path: Path, **env: str) -> tuple[int, Trace]:
    """Run ``command`` under ``perfeq run`` and read the merged trace."""
    return run_traced(command, tmp_path / "run.trace", **env)


def contexts_by_path(trace: Trace, rank: int = 0) -> dict[str, list]:
    """Contexts of one rank keyed by their path of ``function@site`` labels."""
    rank_trace = trace.ranks[rank]
    paths: dict[int, str] = {}
    found: dict[str, list] = {}
    for context in rank_trace.contexts.values():
        label = rank_trace.function(context).name + ("" if context.site is None else f"@{context.site}")
        paths[context.id] = label if context.parent is None else f"{paths[context.parent]}/{label}"
        found.setdefault(paths[context.id], []).append(context)
    return found


# ---- serial -----------------------------------------------------------------------------------


def test_counters_calls_and_values_are_exact(serial: dict[str, Path], tmp_path: Path, capfd) -> None:
    status, trace = traced([str(serial["calls"]), "8"], tmp_path)
    assert status == 0
    assert capfd.readouterr().out == "s1=56 s2=12\n"
    contexts = contexts_by_path(trace)
    assert sorted(contexts) == ["main", "main/work@1", "main/work@1/scale@3", "main/work@2", "main/work@2/scale@3"]
    (main,) = contexts["main"]
    assert main.calls == 1
    # slots: 0 entry, 1/2 malloc check, 4 loop entry, 5/6 exits/iterations, 7 body, 8/9 mode check, 11 return
    assert main.counters == {0: 1, 1: 1, 4: 1, 5: 1, 6: 8, 7: 8, 8: 1, 11: 1}
    assert main.values[0].n == 1 and main.values[0].first == 64.0  # malloc(8 * sizeof(double))
    (work1,) = contexts["main/work@1"]
    (work2,) = contexts["main/work@2"]
    assert work1.counters == {0: 1, 1: 1, 2: 1, 3: 8, 4: 8, 5: 8}
    assert work2.counters == {0: 1, 1: 1, 2: 1, 3: 4, 4: 4, 5: 4}
    assert (work1.values[0].first, work2.values[0].first) == (8.0, 4.0)
    assert [c.calls for c in contexts["main/work@1/scale@3"]] == [8]
    assert [c.calls for c in contexts["main/work@2/scale@3"]] == [4]
    assert trace.params == {"n": 8}
    header = trace.ranks[0].header
    assert header["argv"][1:] == ["8"] and header["mpi"] is False
    footer = trace.ranks[0].footer
    assert footer is not None and footer["ended"] == "exit" and footer["stopped"] is False
    assert not trace.incomplete


def test_ops_and_calls_from_descriptors(serial: dict[str, Path], tmp_path: Path) -> None:
    _, trace = traced([str(serial["calls"]), "8"], tmp_path)
    counts = count_trace(trace)
    # calls.perfeq.json: blocks (entry blocks once per call) plus loop headers (init per entry,
    # condition per test, step per iteration): main 7 + 8*2 + (1 + 9 + 8); work@1 1 + 8*2 + (1 + 9 + 8);
    # work@2 1 + 4*2 + (1 + 5 + 4); scale 8 + 4
    assert counts.total.ops == counts.total.ops_total == 41 + 35 + 19 + 12
    assert counts.total.calls == 1 + 2 + 12
    assert (counts.total.par, counts.total.startup, counts.total.bytes) == (0, 0, 0)
    graph = CallGraph.from_trace(trace, costs=unit_costs)
    assert graph.find("main").block_executions == 1 + 8 + 1
    assert graph.find("main").block_executions_inclusive == 10 + 9 + 8 + 5 + 4


def test_exit_early_still_writes_the_trace(serial: dict[str, Path], tmp_path: Path, capfd) -> None:
    status, trace = traced([str(serial["calls"]), "8", "exit3"], tmp_path)
    assert status == 3
    assert capfd.readouterr().out == "exit(3) in work\n"
    (work2,) = contexts_by_path(trace)["main/work@2"]
    assert work2.counters == {0: 1, 1: 1, 3: 3, 4: 3, 5: 2, 6: 1, 7: 1}
    assert trace.header["exit_status"] == 3
    assert trace.ranks[0].footer["ended"] == "exit" and not trace.incomplete


def test_return_status_passes_through(serial: dict[str, Path], tmp_path: Path, capfd) -> None:
    status, trace = traced([str(serial["calls"]), "8", "ret5"], tmp_path)
    assert status == 5
    assert capfd.readouterr().out == "s1=56 s2=12\n"
    (main,) = contexts_by_path(trace)["main"]
    assert (main.counters.get(9), main.counters.get(10), main.counters.get(11)) == (1, 1, None)


def test_perfeq_off_build_runs_the_same_and_writes_nothing(serial: dict[str, Path], tmp_path: Path) -> None:
    env = {**os.environ, "PERFEQ_TRACE": str(tmp_path / "off.%r.trace")}
    for mode, status in (("ok", 0), ("exit3", 3), ("ret5", 5)):
        off = subprocess.run([str(serial["calls_off"]), "8", mode], env=env, capture_output=True, text=True)
        on = subprocess.run([str(serial["calls"]), "8", mode], env={**env, "PERFEQ_TRACE": str(tmp_path / "on.trace")},
                            capture_output=True, text=True)
        assert (off.returncode, off.stdout, off.stderr) == (status, on.stdout, "")
        assert on.returncode == status
    assert not list(tmp_path.glob("off.*"))


def test_enable_0_records_nothing(serial: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(RunError, match="wrote no trace"):
        run_instrumented([str(serial["calls"]), "4"], tmp_path / "x.trace", env={**os.environ, "PERFEQ_ENABLE": "0"})
    assert not (tmp_path / "x.trace").exists()


def test_unwritable_trace_path_leaves_the_program_alone(serial: dict[str, Path], tmp_path: Path) -> None:
    env = {**os.environ, "PERFEQ_TRACE": str(tmp_path / "no" / "such" / "folder.trace")}
    result = subprocess.run([str(serial["calls"]), "8"], env=env, capture_output=True, text=True)
    assert (result.returncode, result.stdout) == (0, "s1=56 s2=12\n")
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("perfeq: cannot write the trace")


def test_misnesting_stops_recording_and_flags_the_trace(serial: dict[str, Path], tmp_path: Path, capfd) -> None:
    status, trace = traced([str(serial["misnest"])], tmp_path)
    captured = capfd.readouterr()
    assert status == 0 and captured.out == "after longjmp\n"
    runtime_lines = [line for line in captured.err.splitlines() if line.endswith("; recording stopped")]
    assert len(runtime_lines) == 1 and runtime_lines[0].startswith("perfeq: misnested hooks: leaving main")
    assert trace.stopped
    assert "misnested" in trace.ranks[0].footer["stop_reason"]


def test_context_limit_stops_recording(serial: dict[str, Path], tmp_path: Path) -> None:
    _, trace = traced([str(serial["calls"]), "8"], tmp_path, PERFEQ_MAX_CONTEXTS="2")
    assert trace.stopped and "PERFEQ_MAX_CONTEXTS" in trace.ranks[0].footer["stop_reason"]
    assert sorted(contexts_by_path(trace)) == ["main", "main/work@1"]


def test_strings_are_escaped(serial: dict[str, Path], tmp_path: Path) -> None:
    _, trace = traced([str(serial["escape"]), 'a"b\\c'], tmp_path)
    unit = trace.ranks[0].units[0]
    assert unit.source == 'we"ird\\name\n\t\u00e9\ufffd.c'
    assert unit.functions[0].name == "main"
    assert trace.header["argv"][1] == 'a"b\\c'


def test_a_crash_leaves_an_incomplete_trace(serial: dict[str, Path], tmp_path: Path, capfd) -> None:
    status, trace = traced([str(serial["crash"])], tmp_path)
    captured = capfd.readouterr()
    assert status == 128 + 6 and captured.out == "about to abort\n"  # SIGABRT
    assert "exited with status 134" in captured.err and "incomplete trace from rank(s) 0" in captured.err
    assert trace.incomplete and trace.ranks[0].incomplete and trace.ranks[0].contexts == {}
    assert trace.ranks[0].header["argv"] == [str(serial["crash"])]


def test_a_rank_that_died_before_its_header_passes_the_status_through(tmp_path: Path, capfd) -> None:
    """A process killed between opening its trace and writing the header leaves an empty file (a
    program's global named `time` crashed the runtime there): `perfeq run` exited 2 on "empty trace:
    no header" instead of with the program's status.  Now: the program's status, said once, and no
    trace written.  (The shell stands in for the dying process: the moment cannot be hit at will.)"""
    output = tmp_path / "t.trace"
    dying = 'f=$(printf %s "$PERFEQ_TRACE" | sed s/%r/0/); : > "$f"; exit 11'
    assert run_instrumented(["sh", "-c", dying], output).exit_status == 11
    assert "exited with status 11 and wrote no trace" in capfd.readouterr().err
    assert not output.exists()
    # a rank cut off in the middle of its header: the status, said once, no trace
    half = 'printf \'{"record":"header"\' > "$(printf %s "$PERFEQ_TRACE" | sed s/%r/0/)"; exit 12'
    assert run_instrumented(["sh", "-c", half], output).exit_status == 12
    assert "exited with status 12; what it recorded is not a trace" in capfd.readouterr().err
    assert not output.exists()


def test_recursion_is_folded(serial: dict[str, Path], tmp_path: Path, capfd) -> None:
    status, trace = traced([str(serial["recurse"]), "20"], tmp_path)
    assert status == 0 and capfd.readouterr().out == "fib(20)=6765\n"
    contexts = contexts_by_path(trace)
    assert sorted(contexts) == ["main", "main/fib@1"]
    (fib,) = contexts["main/fib@1"]
    calls = 2 * 10946 - 1  # fib(20) makes 2 F(21) - 1 calls
    assert fib.recursive and fib.calls == calls
    assert fib.counters == {0: calls - 10946, 1: 10946, 2: 10946}  # slot 1/2: the 10946 leaves (n < 2)
    assert "recursive (folded)" in CallGraph.from_trace(trace).render()


# ---- MPI --------------------------------------------------------------------------------------


def mpi_run(program: Path, nranks: int, tmp_path: Path) -> Trace:
    mpi = find_mpi()
    status, trace = traced([*mpi.launcher(nranks), str(program), "16"], tmp_path)
    assert status == 0
    assert sorted(trace.ranks) == list(range(nranks)) and not trace.incomplete
    return trace


# Hand-computed messages sent and bytes sent per rank for mpi_comm.c with n = 16 doubles: Send
# rank 0 -> every other rank; 3 x Bcast (binomial, root 0); 3 x Allreduce of 1 double and one
# Barrier (recursive doubling); Reduce of 1 double to root P-1; Gather of 2 doubles to root 0.
EXPECTED_MESSAGES = {
    1: {0: (0, 0)},
    2: {0: (1 + 3 + 3 + 1 + 1, 128 + 384 + 24 + 8), 1: (3 + 1 + 1, 24 + 16)},
    4: {0: (3 + 6 + 6 + 2 + 1, 384 + 768 + 48 + 8), 1: (6 + 2 + 1 + 1, 48 + 8 + 16),
        2: (3 + 6 + 2 + 1 + 1, 384 + 48 + 8 + 32), 3: (6 + 2 + 1, 48 + 16)},
}
EXPECTED_CRITICAL = {1: 0, 2: 1 + 3 + 3 + 1 + 1 + 1, 4: 3 + 6 + 6 + 2 + 2 + 2}


@pytest.mark.parametrize("nranks", [1, 2, 4])
def test_mpi_messages_and_bytes(mpi_program: Path, tmp_path: Path, nranks: int) -> None:
    trace = mpi_run(mpi_program, nranks, tmp_path)
    counts = count_trace(trace)
    measured = {rank: (c.sent, c.bytes) for rank, c in counts.ranks.items()}
    assert measured == EXPECTED_MESSAGES[nranks]
    assert counts.total.sent == sum(m for m, _ in EXPECTED_MESSAGES[nranks].values())
    assert counts.total.startup == EXPECTED_CRITICAL[nranks]
    for rank, rank_trace in trace.ranks.items():
        assert (rank_trace.header["rank"], rank_trace.header["nranks"]) == (rank, nranks)
        assert rank_trace.footer["ended"] == "finalize"


def test_synchronising_calls_are_timed(mpi_program: Path, tmp_path: Path) -> None:
    """Trace version 2: bursts and times inside for collectives and blocking point-to-point calls
    (one per call, consistent moments), none for MPI_Init, queries and MPI_Finalize."""
    trace = mpi_run(mpi_program, 2, tmp_path)
    for rank_trace in trace.ranks.values():
        assert rank_trace.header["times"] is True and rank_trace.header["clock"] == "CLOCK_MONOTONIC"
        for context in rank_trace.contexts.values():
            for record in context.mpi:
                if record.call in ("MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize"):
                    assert record.burst is None and record.inside is None
                    continue
                for stats in (record.burst, record.inside):
                    assert stats.n == record.calls and sum(c for _, c in stats.bins) == stats.n
                    assert 0 <= stats.min <= stats.mean <= stats.max < 60
                    assert stats.sum2 >= stats.sum**2 / stats.n * (1 - 1e-12)
                    assert stats.sdiff2 is not None and stats.sdiff2 >= 0
                    assert all(2.0**k * 1e-9 <= stats.max * (1 + 1e-9) for k, _ in stats.bins)


def test_mpi_records_are_attributed_to_call_sites(mpi_program: Path, tmp_path: Path) -> None:
    trace = mpi_run(mpi_program, 2, tmp_path)
    for rank in (0, 1):
        contexts = contexts_by_path(trace, rank)
        (main,) = contexts["main"]
        (exchange,) = contexts["main/exchange@4"]
        main_calls = {(r.call, r.site): r for r in main.mpi}
        assert {key: r.calls for key, r in main_calls.items()} == {
            ("MPI_Init", 1): 1, ("MPI_Comm_rank", 2): 1, ("MPI_Comm_size", 3): 1, ("MPI_Bcast", 5): 3,
            ("MPI_Allreduce", 6): 3, ("MPI_Barrier", 7): 1, ("MPI_Reduce", 9): 1, ("MPI_Gather", 12): 1,
            ("MPI_Finalize", 8): 1}
        bcast = main_calls[("MPI_Bcast", 5)]
        assert (bcast.elements, bcast.bytes, bcast.comm_size, bcast.comm_rank, bcast.root) == (48, 384, 2, rank, 0)
        assert bcast.is_root == (rank == 0)
        assert main_calls[("MPI_Reduce", 9)].is_root == (rank == 1)
        (p2p,) = exchange.mpi
        expected = ("MPI_Send", 10) if rank == 0 else ("MPI_Recv", 11)
        assert (p2p.call, p2p.site, p2p.calls, p2p.elements, p2p.bytes) == (*expected, 1, 16, 128)
        assert main.values[0].first == 128.0
    graph = CallGraph.from_trace(trace)
    assert graph.find("main/exchange @4").by_rank[0].counters == {0: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1}


def _scan_partners(p: int, r: int) -> int:
    """MPICH's recursive-doubling (ex)scan: in round k rank r exchanges with r xor 2**k if it exists."""
    return len([m for m in (1 << k for k in range(p.bit_length())) if m < p and r ^ m < p])


def vcoll_expected(p: int, r: int) -> dict[str, tuple[int, int, int, int, int]]:
    """(calls, elements, bytes, messages, bytes sent) of rank r's calls in mpi_vcoll.c on p ranks.

    Array counts: elements are the whole array, bytes the blocks for the other ranks (4-byte ints,
    8-byte doubles and long longs), sent in one message to every other rank.
    """
    others = [j for j in range(p) if j != r]
    ints = [(r + 1) * (j + 2) for j in range(p)]
    inplace = [r + j + 1 for j in range(p)]
    sent = sum(ints[j] for j in others) * 4
    sent_inplace = sum(inplace[j] for j in others) * 8
    vcounts = [j + 1 for j in range(p)]
    if r == 0:  # the scatterv root sends j + 1 ints to every rank j != 0
        scatterv = (1, sum(vcounts), 4 * sum(vcounts[1:]), p - 1, 4 * sum(vcounts[1:]))
    else:  # another rank records its receive block and sends nothing
        scatterv = (1, r + 1, 4 * (r + 1), 0, 0)
    scan = _scan_partners(p, r)
    reduce_scatter = 8 * sum(vcounts[j] for j in others)
    return {
        "MPI_Alltoallv@4": (1, sum(ints), sent, p - 1, sent),
        "MPI_Alltoallv@5": (1, sum(inplace), sent_inplace, p - 1, sent_inplace),
        "MPI_Exscan@6": (1, 2, 16, scan, 16 * scan),
        "MPI_Scan@7": (2, 6, 48, 2 * scan, 48 * scan),
        "MPI_Scatterv@8": scatterv,
        "MPI_Reduce_scatter@9": (1, sum(vcounts), reduce_scatter, p - 1, reduce_scatter),
        "MPI_Reduce_scatter_block@10": (1, 2, 8, p - 1, 8 * (p - 1)),
    }


@pytest.mark.parametrize("nranks", [2, 3])
def test_mpi_array_counts_and_scans(vcoll_program: Path, tmp_path: Path, nranks: int, capfd) -> None:
    """Alltoallv (also in place), Exscan, Scan, Scatterv, Reduce_scatter(_block) are recorded with
    the elements and bytes the program sends, and ``perfeq counts`` turns them into messages."""
    mpi = find_mpi()
    status, trace = traced([*mpi.launcher(nranks), str(vcoll_program)], tmp_path)
    assert status == 0 and capfd.readouterr().out == "ok\n"
    assert sorted(trace.ranks) == list(range(nranks)) and not trace.incomplete
    counts = count_trace(trace)
    for rank in range(nranks):
        (main,) = contexts_by_path(trace, rank)["main"]
        records = {f"{rec.call}@{rec.site}": rec for rec in main.mpi}
        expected = vcoll_expected(nranks, rank)
        for key, (calls, elements, nbytes, _, _) in expected.items():
            rec = records[key]
            assert (rec.calls, rec.elements, rec.bytes, rec.comm_size, rec.comm_rank) == \
                (calls, elements, nbytes, nranks, rank), key
        per_call = counts.ranks[rank].mpi
        for name in ("MPI_Alltoallv", "MPI_Exscan", "MPI_Scan", "MPI_Scatterv", "MPI_Reduce_scatter",
                     "MPI_Reduce_scatter_block"):
            mine = [v for k, v in expected.items() if k.split("@")[0] == name]
            assert (per_call[name].messages, per_call[name].bytes_sent) == \
                (sum(m[3] for m in mine), sum(m[4] for m in mine)), name
    assert cli_main(["counts", "--trace", str(tmp_path / "run.trace"), "--json"]) == 0
    shown = json.loads(capfd.readouterr().out)
    for rank in range(nranks):
        alltoallv = shown["ranks"][str(rank)]["mpi"]["MPI_Alltoallv"]
        expected = vcoll_expected(nranks, rank)
        assert alltoallv["calls"] == 2 and alltoallv["messages"] == 2 * (nranks - 1)
        assert alltoallv["bytes_sent"] == expected["MPI_Alltoallv@4"][4] + expected["MPI_Alltoallv@5"][4] > 0
        assert shown["ranks"][str(rank)]["mpi"]["MPI_Exscan"]["messages"] == _scan_partners(nranks, rank)
    assert shown["total"]["mpi"]["MPI_Scan"]["messages_critical"] == 2 * (nranks - 1).bit_length()


# ---- OpenMP -----------------------------------------------------------------------------------


def test_openmp_threads_are_counted_and_merged(omp_program: Path, tmp_path: Path, capfd) -> None:
    status, trace = traced([str(omp_program), "10", "3"], tmp_path, OMP_NUM_THREADS="2", OMP_DYNAMIC="false")
    assert status == 0 and capfd.readouterr().out == "s=855\n"
    contexts = contexts_by_path(trace)
    (main,) = contexts["main"]
    # slots: 1/2/3 reps loop, 4 its body, 5 entry and 6/7 exits/iterations of the omp for loop,
    # 8 and 10 region entries, 9 omp body block, 11/12 per-thread loop in the second region
    assert main.counters == {0: 1, 1: 1, 2: 1, 3: 3, 4: 3, 5: 3, 6: 3, 7: 30, 8: 3, 9: 30, 10: 1, 11: 2, 12: 6}
    assert main.regions == 4
    assert main.values[0].n == 3
    # every thread's records into main's context, through the lock: i = 0..9, three times
    assert (main.values[1].n, main.values[1].sum, main.values[1].min, main.values[1].max) == (30, 135, 0, 9)
    squares = contexts["main/square@1"]
    assert sorted(c.thread for c in squares) == [0, 1]
    assert sum(c.calls for c in squares) == 30
    assert trace.ranks[0].header["nthreads"] == 2
    graph = CallGraph.from_trace(trace)
    assert graph.find("main/square @1").calls == 30
    assert count_trace(trace).total.par == 4


# ---- the command line -------------------------------------------------------------------------


def test_cli_run_callgraph_counts(serial: dict[str, Path], tmp_path: Path, capfd) -> None:
    output = tmp_path / "calls.trace"
    assert cli_main(["run", "-o", str(output), "--", str(serial["calls"]), "8", "ret5"]) == 5
    captured = capfd.readouterr()
    assert captured.out == "s1=56 s2=12\n"
    assert "exited with status 5" in captured.err
    hatchet = tmp_path / "graph.json"
    assert cli_main(["callgraph", str(output), "--hatchet", str(hatchet)]) == 0
    text = capfd.readouterr().out
    assert "work @2" in text and "scale @3" in text
    literal = json.loads(hatchet.read_text())
    assert literal[0]["frame"] == {"name": "main", "type": "function"}
    assert literal[0]["metrics"]["calls (inc)"] == 15
    assert cli_main(["counts", "--trace", str(output), "--json"]) == 0
    counts = json.loads(capfd.readouterr().out)
    assert counts["total"]["calls"] == 15 and counts["ranks"]["0"]["ops"] == counts["total"]["ops"]
    assert cli_main(["callgraph", str(output), "--rank", "3"]) == 2
    assert "no rank 3" in capfd.readouterr().err


def test_rank_traces_are_valid_json_lines(serial: dict[str, Path], tmp_path: Path) -> None:
    env = {**os.environ, "PERFEQ_TRACE": str(tmp_path / "p.%r.trace")}
    subprocess.run([str(serial["calls"]), "4"], env=env, check=True, capture_output=True)
    records = [record for _, record in iter_records(tmp_path / "p.0.trace")]
    assert records[0]["record"] == "header" and records[-1]["record"] == "footer"
    assert records[-1]["records"] == len(records) - 1


@pytest.mark.parametrize("slots", ["256", "1"])
def test_contexts_are_told_apart_by_call_site(tmp_path: Path, slots: str) -> None:
    """The runtime keeps recently entered contexts in a per-thread direct-mapped cache (256 slots);
    built with one slot, every lookup collides with another site's context.  Either way each of
    the three sites that call leaf() in turn is its own context with exactly its calls."""
    build = build_runtime(["gcc", "-O1", f"-DPERFEQ__HIT_SLOTS={slots}"], tmp_path / "rt", mpi=False)
    binary = compile_program(build, ["gcc", "-O1"], "sites.c", tmp_path / "sites")
    _, trace = traced([str(binary), "50"], tmp_path)
    (main,) = CallGraph.from_trace(trace).roots
    assert sorted((child.site, child.calls) for child in main.children) == [(1, 50), (2, 100), (3, 150)]


def test_callbacks_and_direct_calls_keep_their_contexts(tmp_path: Path) -> None:
    """cmp() entered from qsort (nothing announced: an unknown site) under sort(), pair_sort()
    and main() itself, and from main() directly (sites 2 and 5, in a row) and through a pointer
    (site 3), in turn, and from qsort in main() with a call of a function without hooks announced
    and pending: each context has exactly the calls the program counted itself, whichever entry
    path found it."""
    build = build_runtime(["gcc", "-O2"], tmp_path / "rt", mpi=False)
    binary = compile_program(build, ["gcc", "-O2"], "callback.c", tmp_path / "callback")
    plain = subprocess.run([str(binary), "300"], capture_output=True, text=True, check=True,
                           env={**os.environ, "PERFEQ_ENABLE": "0"})
    sorted_, paired, direct, stale, _ = map(int, plain.stdout.split())
    _, trace = traced([str(binary), "300"], tmp_path)
    calls = {path: sum(c.calls for c in found) for path, found in contexts_by_path(trace).items()}
    assert sorted_ > 300 and paired == direct == stale == 299
    assert calls == {"main": 1, "main/sort@1": 1, "main/sort@1/cmp": sorted_, "main/cmp@2": 299,
                     "main/cmp@5": 299, "main/pair_sort@4": 299, "main/pair_sort@4/cmp": paired, "main/cmp@3": 299,
                     "main/cmp": direct + stale}
