"""Building the runtime: warning-free C, object reuse, errors, the generated wrappers, ASan."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import C_PROGRAMS, local_history_misses

from perfeq.errors import BuildError
from perfeq.instrument.hooks import BRANCH_SLOTS
from perfeq.runtime.build import HEADER, MPI_SOURCE, RT_SOURCE, RUNTIME_DIR, build_runtime, runtime_flags
from perfeq.runtime.mpi import wrappers
from perfeq.toolchain import find_mpi

PROGRAMS = C_PROGRAMS / "runtime"
STRICT = ["-Wall", "-Wextra", "-std=c99", "-pedantic", "-Werror"]


def compiles(command: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command, "-o", str(tmp_path / "out.o")], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("extra", [[], ["-fopenmp"], ["-O2", "-fopenmp"], ["-DPERFEQ_OFF"]])
def test_runtime_is_warning_free(tmp_path: Path, extra: list[str]) -> None:
    result = compiles(["gcc", *STRICT, *extra, "-c", str(RT_SOURCE)], tmp_path)
    assert result.returncode == 0 and result.stderr == ""


def test_mpi_wrappers_are_warning_free(tmp_path: Path) -> None:
    try:
        mpicc = find_mpi().mpicc
    except BuildError as exc:
        pytest.skip(str(exc))
    result = compiles([mpicc, *STRICT, "-I", str(RUNTIME_DIR), "-c", str(MPI_SOURCE)], tmp_path)
    assert result.returncode == 0 and result.stderr == ""


@pytest.mark.parametrize("program", ["calls.c", "misnest.c", "escape.c", "recurse.c", "crash.c"])
@pytest.mark.parametrize("off", [False, True])
def test_instrumented_code_is_warning_free(tmp_path: Path, program: str, off: bool) -> None:
    flags = ["-DPERFEQ_OFF"] if off else []
    result = compiles(["gcc", *STRICT, *flags, "-I", str(RUNTIME_DIR), "-c", str(PROGRAMS / program)], tmp_path)
    assert result.returncode == 0 and result.stderr == ""


def test_generated_wrappers_are_current() -> None:
    assert wrappers.generated_is_current(), "run: python -m perfeq.runtime.mpi.wrappers"
    assert wrappers.main(["--check"]) == 0


def test_check_reports_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "perfeq_mpi.c"
    stale.write_text("/* old */\n")
    assert not wrappers.generated_is_current(stale)


def test_objects_are_reused_until_the_command_changes(tmp_path: Path) -> None:
    first = build_runtime(["gcc", "-O1"], tmp_path, mpi=False)
    (obj,) = first.objects
    stamp = obj.stat().st_mtime_ns
    again = build_runtime(["gcc", "-O1", "-c", "prog.c", "-o", "prog.o"], tmp_path, mpi=False)
    assert again.objects == first.objects and obj.stat().st_mtime_ns == stamp
    build_runtime(["gcc", "-O2"], tmp_path, mpi=False)
    assert obj.stat().st_mtime_ns != stamp
    assert first.compile_args == ["-I", str(HEADER.parent)] and first.link_args == [str(obj)]
    assert not first.mpi


def test_runtime_flags_drop_inputs_outputs_and_the_off_switch() -> None:
    assert runtime_flags(["cc", "-O2", "-c", "a.c", "-o", "a.o", "-DPERFEQ_OFF", "-fopenmp", "-MF", "d"]) == [
        "cc", "-O2", "-fopenmp"]


def test_mpi_detection(tmp_path: Path) -> None:
    try:
        mpicc = find_mpi().mpicc
    except BuildError as exc:
        pytest.skip(str(exc))
    assert build_runtime([mpicc], tmp_path / "mpi", mpi=None).mpi
    plain_can_mpi = compiles(["gcc", "-I", str(RUNTIME_DIR), "-c", str(MPI_SOURCE)], tmp_path).returncode == 0
    assert build_runtime(["gcc"], tmp_path / "plain", mpi=None).mpi == plain_can_mpi
    if not plain_can_mpi:
        with pytest.raises(BuildError, match=r"perfeq_mpi\.c: compiling the perfeq runtime with gcc -O2 failed"):
            build_runtime(["gcc"], tmp_path / "plain", mpi=True)


def test_missing_compiler_is_a_build_error(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="cannot run no-such-cc"):
        build_runtime(["no-such-cc"], tmp_path)
    with pytest.raises(BuildError, match="no compiler"):
        build_runtime([], tmp_path)


def _asan_works(tmp_path: Path) -> bool:
    source = tmp_path / "probe.c"
    source.write_text("int main(void) { return 0; }\n")
    built = subprocess.run(["gcc", "-fsanitize=address", str(source), "-o", str(tmp_path / "probe")],
                           capture_output=True, check=False)
    return built.returncode == 0 and subprocess.run([str(tmp_path / "probe")], check=False).returncode == 0


@pytest.mark.parametrize("flags", [["-fsanitize=address,undefined"], ["-fsanitize=address", "-fopenmp"]])
def test_runs_clean_under_address_sanitizer(tmp_path: Path, flags: list[str]) -> None:
    if not _asan_works(tmp_path):
        pytest.skip("AddressSanitizer is not available here")
    compiler = ["gcc", "-g", "-O1", *flags]
    build = build_runtime(compiler, tmp_path / "rt", mpi=False)
    env = {**os.environ, "PERFEQ_TRACE": str(tmp_path / "asan.%r.trace"), "OMP_NUM_THREADS": "2",
           "ASAN_OPTIONS": "abort_on_error=0:exitcode=99", "UBSAN_OPTIONS": "halt_on_error=1:exitcode=98"}
    programs = [("calls.c", ["8", "exit3"], 3), ("calls.c", ["8"], 0), ("misnest.c", [], 0)]
    if "-fopenmp" in flags:
        programs.append(("omp_loop.c", ["10", "3"], 0))
    for source, args, status in programs:
        exe = tmp_path / source.replace(".c", "")
        subprocess.run([*compiler, *build.compile_args, str(PROGRAMS / source), *build.link_args, "-o", str(exe)],
                       check=True, capture_output=True)
        result = subprocess.run([str(exe), *args], env=env, capture_output=True, text=True, check=False)
        assert result.returncode == status, result.stderr
        assert "Sanitizer" not in result.stderr and "runtime error" not in result.stderr


def _run_main(tmp_path: Path, name: str, declarations: str, body: list[str], status: int = 0) -> dict[str, int]:
    """Compile ``int main(void) { declarations; body }`` against perfeq_rt.h (strict flags), run it,
    check its exit status, and read the ``name value`` lines it prints."""
    source, binary = tmp_path / f"{name}.c", tmp_path / name
    lines = ["#include <stdio.h>", '#include "perfeq_rt.h"', "int main(void)", "{", f"    {declarations};", *body, "}"]
    source.write_text("\n".join(lines) + "\n")
    built = subprocess.run(["gcc", *STRICT, "-I", str(RUNTIME_DIR), str(source), "-o", str(binary)],
                           capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    done = subprocess.run([str(binary)], capture_output=True, text=True)
    assert done.returncode == status
    return {key: int(value) for key, value in (line.split() for line in done.stdout.splitlines())}


def test_branch_predictor_hook_matches_its_definition(tmp_path: Path) -> None:
    """PERFEQ_BRANCH's predictor counts what the plain definition counts, on outcomes at random,
    alternating, in long runs and with a period of 3, and returns the condition; skipping the update
    in a steady state leaves every slot as the full update (perfeq__branch_update) does."""
    import random

    rng = random.Random(7)
    sequences = {
        "random": [rng.randint(0, 1) for _ in range(4000)],
        "alternating": [i % 2 for i in range(4000)],
        "runs": [int(i // 500 % 2 == 0) for i in range(4000)],
        "period3": [int(i % 3 == 0) for i in range(4000)],
        "biased": [int(rng.random() < 0.9) for _ in range(4000)],
    }
    body = []
    for name, outcomes in sequences.items():
        body += [f"    {{ static const char o[] = \"{''.join(map(str, outcomes))}\";",
                 "      perfeq_count_t s[PERFEQ_BRANCH_SLOTS] = {0}, u[PERFEQ_BRANCH_SLOTS] = {0};",
                 "      for (i = 0; o[i]; i++) {",
                 "          back += perfeq__branch(s, o[i] == '1') != (o[i] == '1');",
                 "          perfeq__branch_update(u, o[i] == '1');",
                 "          for (k = 0; k < PERFEQ_BRANCH_SLOTS; k++) differ += s[k] != u[k];",
                 "      }",
                 f"      printf(\"{name} %llu\\n\", s[0]); }}"]
    body += ["    printf(\"slots %d\\n\", PERFEQ_BRANCH_SLOTS);", "    printf(\"differ %d\\n\", differ);",
             "    return back;"]
    counted = _run_main(tmp_path, "predict", "int i, k, back = 0, differ = 0", body)  # status 0: the hook returns the condition
    assert counted.pop("slots") == BRANCH_SLOTS  # the instrumenter reserves as many as the header uses
    assert counted.pop("differ") == 0
    expected = {name: local_history_misses(outcomes) for name, outcomes in sequences.items()}
    assert counted == expected
    assert 1600 < counted["random"] < 2400 and counted["alternating"] < 10 and counted["period3"] < 10
    assert counted["runs"] < 100 and counted["biased"] < 0.2 * 4000


def test_a_loop_exit_told_at_the_exit_leaves_the_predictor_as_every_test_would(tmp_path: Path) -> None:
    """perfeq__exit_branch(s, n) (PERFEQ_EXIT_BRANCH: n taken outcomes and one not taken, told once at
    a loop's exit) leaves every predictor slot, not only the mispredictions, as n + 1 calls of
    perfeq__branch do: on trip counts at random (0 to 40, short ones learnable), constant, and in runs."""
    import random

    rng = random.Random(11)
    sequences = {
        "random": [rng.randint(0, 40) for _ in range(3000)],
        "short": [rng.randint(0, 3) for _ in range(3000)],
        "constant": [3] * 3000,  # period 4: within the 4-bit history, learnt
        "runs": [2 if i // 100 % 2 else 30 for i in range(3000)],
    }
    body = []
    for name, trips in sequences.items():
        body += [f"    {{ static const int n[] = {{{', '.join(map(str, trips))}, -1}};",
                 "      perfeq_count_t a[PERFEQ_BRANCH_SLOTS] = {0}, b[PERFEQ_BRANCH_SLOTS] = {0};",
                 "      for (i = 0; n[i] >= 0; i++) {",
                 "          for (k = 0; k < n[i]; k++) perfeq__branch(a, 1);",
                 "          perfeq__branch(a, 0);",
                 "          perfeq__exit_branch(b, (perfeq_count_t)n[i]);",
                 "      }",
                 "      for (k = 0; k < PERFEQ_BRANCH_SLOTS; k++) same += a[k] == b[k];",
                 f"      printf(\"{name} %llu\\n\", b[0]); }}"]
    body += ["    printf(\"same %d\\n\", same);", "    return 0;"]
    counted = _run_main(tmp_path, "exits", "int i, k, same = 0", body)
    assert counted.pop("same") == len(sequences) * BRANCH_SLOTS
    expected = {name: local_history_misses([o for n in trips for o in [1] * n + [0]])
                for name, trips in sequences.items()}
    assert counted == expected
    assert counted["constant"] < 10 and counted["random"] > 1000
