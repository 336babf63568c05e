"""The bundled example programs (``examples/*.c``) and their catalogue (``examples/catalog.json``).

Every example is compiled once per session with ``mpicc -std=c99 -O2 -Wall -Wextra -Werror`` and
run under ``mpiexec`` at its small size and a slightly larger, odd size (uneven row blocks), with 1
and 2 processes.  Each run must exit 0, print exactly one ``checksum`` line, print ``verify ok``
when the program verifies itself, and give the same checksum for every process count.
"""

from __future__ import annotations

import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import EXAMPLES

from perfeq.errors import BuildError
from perfeq.toolchain import MPIToolchain, find_mpi, mpi_env

EXAMPLES_DIR = EXAMPLES
CATALOG_PATH = EXAMPLES_DIR / "catalog.json"
CATALOG = json.loads(CATALOG_PATH.read_text())
ENTRIES = {entry["name"]: entry for entry in CATALOG["examples"]}

CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"]
RUN_TIMEOUT = 60  # seconds per mpiexec run; the runs here take well under one second
COMPILE_TIMEOUT = 120
RTOL = 1e-9

CHECKSUM_LINE = re.compile(r"^checksum (\S+)$")


@dataclass
class Build:
    binary: Path | None
    log: str


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def checksums(self) -> list[float]:
        found = []
        for line in self.stdout.splitlines():
            match = CHECKSUM_LINE.match(line.strip())
            if match:
                found.append(float(match.group(1)))
        return found

    @property
    def verify_lines(self) -> list[str]:
        return [line.strip() for line in self.stdout.splitlines() if line.startswith("verify")]


@pytest.fixture(scope="session")
def mpi() -> MPIToolchain:
    try:
        return find_mpi()
    except BuildError as exc:
        pytest.skip(f"no MPI toolchain: {exc}")


@pytest.fixture(scope="session")
def builds(mpi: MPIToolchain, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Build]:
    """Every catalogued example compiled once (two compilers at a time)."""
    out_dir = tmp_path_factory.mktemp("examples")
    env = mpi_env()

    def compile_one(entry: dict) -> tuple[str, Build]:
        source = EXAMPLES_DIR / entry["source"]
        binary = out_dir / entry["name"]
        flags = CFLAGS + (["-fopenmp"] if entry["openmp"] else [])
        command = [mpi.mpicc, *flags, str(source), "-o", str(binary), "-lm"]
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
        log = f"$ {' '.join(command)}\n{result.stdout}{result.stderr}"
        ok = result.returncode == 0 and binary.is_file()
        return entry["name"], Build(binary if ok else None, log)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(compile_one, CATALOG["examples"]))


def run_example(mpi: MPIToolchain, binary: Path, nprocs: int, args: list[str], threads: int = 1) -> Run:
    env = mpi_env()
    env["OMP_NUM_THREADS"] = str(threads)
    result = subprocess.run(
        [*mpi.launcher(nprocs), str(binary), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    return Run(result.returncode, result.stdout, result.stderr)


def binary_of(builds: dict[str, Build], name: str) -> Path:
    build = builds[name]
    assert build.binary is not None, f"{name} did not compile warning-free:\n{build.log}"
    return build.binary


def argv_for(entry: dict, which: str) -> list[str]:
    """Command-line arguments for the ``small`` size, or ``bigger``: 2 n + 1 (uneven blocks)."""
    params = sorted(entry["params"], key=lambda p: p["argv"])
    args = []
    for param in params:
        value = param["small"]
        if which == "bigger" and param["argv"] == 1:
            value = 2 * value + 1
        args.append(str(value))
    return args


def check_run(entry: dict, run: Run, label: str) -> float:
    context = f"{entry['name']} {label}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    assert run.returncode == 0, f"exit status {run.returncode}: {context}"
    assert len(run.checksums) == 1, f"expected exactly one checksum line: {context}"
    if entry["expected"]["verify"]:
        assert run.verify_lines == ["verify ok"], f"verification: {context}"
    else:
        assert run.verify_lines == [], f"unexpected verify line: {context}"
    return run.checksums[0]


# ----------------------------------------------------------------------------------------------
# The catalogue


def test_catalog_header() -> None:
    assert CATALOG["format"] == "perfeq-examples"
    assert CATALOG["version"] == 1
    assert isinstance(CATALOG["examples"], list) and len(CATALOG["examples"]) >= 7


def test_catalog_lists_exactly_the_sources() -> None:
    sources = sorted(path.name for path in EXAMPLES_DIR.glob("*.c"))
    listed = [entry["source"] for entry in CATALOG["examples"]]
    assert sorted(listed) == sources
    assert len(set(listed)) == len(listed)
    assert len(ENTRIES) == len(CATALOG["examples"]), "example names must be unique"


def test_catalog_has_the_required_examples() -> None:
    required = {"gauss", "matmul", "shallow", "ocean", "sharks", "cg", "omp_stencil"}
    assert required <= set(ENTRIES)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_catalog_entry_is_valid(name: str) -> None:
    entry = ENTRIES[name]
    required = {"name", "source", "description", "openmp", "params", "communication", "expected"}
    assert required <= set(entry) <= required | {"calibrate", "calibrate_note"}
    if entry.get("calibrate", True) is False:
        assert entry["calibrate_note"].strip()  # say why it is left out of calibration
    assert re.fullmatch(r"[a-z][a-z0-9_]*", name)
    assert entry["source"] == f"{name}.c"
    assert isinstance(entry["description"], str) and entry["description"].strip()
    assert "\n" not in entry["description"]
    assert isinstance(entry["openmp"], bool)
    assert isinstance(entry["communication"], str) and "MPI_" in entry["communication"]
    assert isinstance(entry["expected"], dict) and isinstance(entry["expected"]["verify"], bool)

    params = entry["params"]
    assert isinstance(params, list) and params
    assert [p["argv"] for p in params] == list(range(1, len(params) + 1))
    assert len({p["name"] for p in params}) == len(params)
    for param in params:
        assert set(param) == {"name", "argv", "meaning", "small", "calibration"}
        assert re.fullmatch(r"[a-z][a-z0-9_]*", param["name"])
        assert isinstance(param["meaning"], str) and param["meaning"].strip()
        small, calibration = param["small"], param["calibration"]
        assert isinstance(small, int) and not isinstance(small, bool) and small >= 1
        assert isinstance(calibration, list) and len(calibration) == 3
        assert all(isinstance(v, int) and not isinstance(v, bool) for v in calibration)
        assert all(v >= small for v in calibration)
    main = params[0]["calibration"]
    assert main == sorted(main) and len(set(main)) == 3, "main size must grow"
    assert params[0]["small"] < main[0], "the instrumentation size is smaller than calibration"


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_source_follows_the_conventions(name: str) -> None:
    entry = ENTRIES[name]
    text = (EXAMPLES_DIR / entry["source"]).read_text()
    assert text.startswith("/*"), "header comment first"
    header = text[: text.index("*/")]
    assert "Complexity" in header and "Communication" in header and "Parameters" in header
    for param in entry["params"]:
        assert f"argv[{param['argv']}]" in header
    assert "#include <mpi.h>" in text
    assert "MPI_Comm_size(MPI_COMM_WORLD" in text
    assert 'printf("checksum %.12e\\n"' in text
    assert ("#pragma omp" in text) == entry["openmp"]
    code = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    assert not re.search(r"\bgoto\b", code)
    assert not re.search(r"\brand\s*\(", code)


# ----------------------------------------------------------------------------------------------
# Building and running


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_compiles_warning_free(builds: dict[str, Build], name: str) -> None:
    binary_of(builds, name)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_checksum_is_independent_of_process_count(
    mpi: MPIToolchain, builds: dict[str, Build], name: str
) -> None:
    entry = ENTRIES[name]
    binary = binary_of(builds, name)
    for which in ("small", "bigger"):
        args = argv_for(entry, which)
        sums = {}
        for nprocs in (1, 2):
            run = run_example(mpi, binary, nprocs, args)
            sums[nprocs] = check_run(entry, run, f"{args} P={nprocs}")
        assert sums[2] == pytest.approx(sums[1], rel=RTOL), f"{name} {args}: {sums}"


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_uneven_blocks_with_three_processes(mpi: MPIToolchain, builds: dict[str, Build], name: str) -> None:
    entry = ENTRIES[name]
    binary = binary_of(builds, name)
    args = argv_for(entry, "small")
    one = check_run(entry, run_example(mpi, binary, 1, args), f"{args} P=1")
    three = check_run(entry, run_example(mpi, binary, 3, args), f"{args} P=3")
    assert three == pytest.approx(one, rel=RTOL)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_bad_arguments_exit_2(mpi: MPIToolchain, builds: dict[str, Build], name: str) -> None:
    binary = binary_of(builds, name)
    for args in (["abc"], ["0"], ["16x"]):
        run = run_example(mpi, binary, 1, args)
        assert run.returncode == 2, f"{name} {args}: {run.returncode}\n{run.stderr}"
        assert "usage" in run.stderr
        assert run.checksums == []


def test_defaults_run(mpi: MPIToolchain, builds: dict[str, Build]) -> None:
    """Without arguments every example runs at its default size and verifies."""
    for name, entry in sorted(ENTRIES.items()):
        run = run_example(mpi, binary_of(builds, name), 1, [])
        check_run(entry, run, "defaults P=1")


@pytest.mark.parametrize("nprocs", [1, 2])
def test_omp_stencil_checksum_is_independent_of_threads(
    mpi: MPIToolchain, builds: dict[str, Build], nprocs: int
) -> None:
    entry = ENTRIES["omp_stencil"]
    binary = binary_of(builds, "omp_stencil")
    args = argv_for(entry, "bigger")
    sums = {}
    for threads in (1, 2):
        run = run_example(mpi, binary, nprocs, args, threads=threads)
        sums[threads] = check_run(entry, run, f"{args} P={nprocs} threads={threads}")
    assert sums[2] == pytest.approx(sums[1], rel=RTOL)
    serial = check_run(entry, run_example(mpi, binary, 1, args, threads=1), "reference")
    assert sums[1] == pytest.approx(serial, rel=RTOL)
