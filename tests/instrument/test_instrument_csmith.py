"""Random C programs from Csmith through the instrumenter: the instrumented builds behave as the original.

Csmith programs print a checksum of all their global state, so any change of behaviour the
instrumentation causes shows.  Both builds of the instrumented file are checked: with -DPERFEQ_OFF,
and linked with the runtime (counting) when the runtime's builder is there.  A fixed batch of seeds with small sizes keeps this fast and
reproducible.  Needs Debian's ``csmith`` and ``libcsmith-dev`` packages (the generator and its
headers in /usr/include/csmith); skipped without them.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from perfeq.instrument.compile import runtime_include_dir
from perfeq.instrument.instrumenter import instrument_file

CSMITH = shutil.which("csmith")
CSMITH_INCLUDE = Path("/usr/include/csmith")
SEEDS = range(1, 11)
OPTIONS = ["--no-packed-struct", "--max-funcs", "3", "--max-block-depth", "3", "--max-block-size", "3",
           "--max-expr-complexity", "5", "--max-array-dim", "2", "--max-array-len-per-dim", "4"]
CFLAGS = ["-O0", "-w", f"-I{CSMITH_INCLUDE}"]
RUN_TIMEOUT = 10

pytestmark = pytest.mark.skipif(
    CSMITH is None or not (CSMITH_INCLUDE / "csmith.h").is_file(),
    reason="csmith not installed (Debian: apt-get install csmith libcsmith-dev)",
)


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    """The runtime compiled for gcc, or None while runtime/build.py is not there."""
    if importlib.util.find_spec("perfeq.runtime.build") is None:
        return None
    from perfeq.runtime.build import build_runtime

    return build_runtime(["gcc", "-O0"], tmp_path_factory.mktemp("csmith-runtime"), mpi=False)


def _compile(source: Path, binary: Path, extra: list[str]) -> None:
    result = subprocess.run(["gcc", *CFLAGS, *extra, str(source), "-o", str(binary)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{source.name} does not compile:\n{result.stderr[:2000]}"


def _run(binary: Path, **env: str) -> tuple[int, str]:
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=RUN_TIMEOUT,
                            env={**os.environ, **env})
    return result.returncode, result.stdout


@pytest.mark.parametrize("seed", SEEDS)
def test_csmith_program_behaves_the_same(seed: int, tmp_path: Path, runtime) -> None:
    source = tmp_path / f"random{seed}.c"
    subprocess.run([CSMITH, "--seed", str(seed), *OPTIONS, "-o", str(source)], check=True,
                   capture_output=True, timeout=60)
    original = tmp_path / "original"
    _compile(source, original, [])
    try:
        expected = _run(original)
    except subprocess.TimeoutExpired:
        pytest.skip(f"csmith seed {seed} runs longer than {RUN_TIMEOUT} s")
    before = source.read_bytes()
    result = instrument_file(source, tmp_path / f"random{seed}.perfeq.c", ["gcc"], [f"-I{CSMITH_INCLUDE}"])
    assert source.read_bytes() == before
    instrumented = tmp_path / "instrumented"
    _compile(result.output, instrumented, ["-DPERFEQ_OFF", f"-I{runtime_include_dir()}"])
    assert _run(instrumented) == expected
    assert expected[1].startswith("checksum = ")
    assert result.descriptors.functions, "the functions were instrumented"
    if runtime is not None:
        counting = tmp_path / "counting"
        _compile(result.output, counting, [*runtime.compile_args, *runtime.link_args])
        trace = tmp_path / "random.trace"
        assert _run(counting, PERFEQ_TRACE=str(trace)) == expected
        assert trace.is_file()
