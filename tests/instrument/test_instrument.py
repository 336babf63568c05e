"""The instrumenter (perfeq.instrument) on a corpus of small C programs and on every example.

Every program of tests/c/instrument/ and examples/ is instrumented once (two at a time), compiled with
-DPERFEQ_OFF and run for real: output and exit status must be those of the original, and the
instrumented file must add no compiler warning.  Golden files pin the inserted text of a few small
programs (regenerate with PERFEQ_REGEN_GOLDEN=1 and review the diff); round trips parse the
instrumented files again; the descriptors of the corpus are checked field by field.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import EXAMPLES, TESTS
from pycparser import c_ast

from perfeq import __version__
from perfeq.cli import main as cli_main
from perfeq.instrument.compile import runtime_include_dir
from perfeq.instrument.descriptors import FORMAT, VERSION, UnitDescriptors
from perfeq.instrument.instrumenter import Instrumented, instrument_file
from perfeq.instrument.preprocess import parse, preprocess
from perfeq.toolchain import find_program, mpi_env

HERE = TESTS
CORPUS = HERE / "c" / "instrument"
GOLDEN = CORPUS / "golden"
EXAMPLES = EXAMPLES
CATALOG = json.loads((EXAMPLES / "catalog.json").read_text())

REGEN_GOLDEN = os.environ.get("PERFEQ_REGEN_GOLDEN") == "1"
CFLAGS = ["-O1", "-Wall", "-Wextra", "-fopenmp"]
TIMEOUT = 60
WARNING = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):\d+: warning: .*\[(?P<flag>-W[^\]]+)\]$")


@dataclass(frozen=True)
class Program:
    """One C program of the suite and how to run it."""

    name: str
    source: Path
    args: tuple[str, ...] = ()
    nprocs: int | None = None  # run under mpiexec with this many ranks; None: run directly
    status: int = 0  # expected exit status


def _corpus() -> list[Program]:
    special = {
        "mpi": {"nprocs": 2, "args": ("12",)},
        "params": {"args": ("12", "2", "3", "5")},
        "memory": {"args": ("5",)},
        "exit3": {"status": 3},
    }
    return [Program(path.stem, path, **special.get(path.stem, {})) for path in sorted(CORPUS.glob("*.c"))]


def _examples() -> list[Program]:
    programs = []
    for entry in CATALOG["examples"]:
        args = tuple(str(p["small"]) for p in sorted(entry["params"], key=lambda p: p["argv"]))
        programs.append(Program("example_" + entry["name"], EXAMPLES / entry["source"], args, nprocs=2))
    return programs


CORPUS_PROGRAMS = {p.name: p for p in _corpus()}
PROGRAMS = {**CORPUS_PROGRAMS, **{p.name: p for p in _examples()}}


@dataclass
class Outcome:
    """What happened to one program: instrumented, both builds compiled and run."""

    program: Program
    instrumented: Instrumented | None = None
    error: str = ""
    unchanged: bool = True  # the source bytes are the same after instrumenting
    runs: dict[str, tuple[int, str]] = field(default_factory=dict)  # build -> (status, stdout)
    warnings: dict[str, set[tuple[str, int, str]]] = field(default_factory=dict)

    def check(self) -> Instrumented:
        assert self.instrumented is not None, self.error
        return self.instrumented


def _compile(mpicc: str, source: Path, binary: Path, extra: list[str]) -> tuple[bool, str]:
    command = [mpicc, *CFLAGS, *extra, str(source), "-o", str(binary), "-lm"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=mpi_env())
    return result.returncode == 0, result.stderr


def _warnings(stderr: str) -> set[tuple[str, int, str]]:
    found = set()
    for line in stderr.splitlines():
        match = WARNING.match(line.strip())
        if match:
            found.add((Path(match["file"]).name, int(match["line"]), match["flag"]))
    return found


def _run(program: Program, binary: Path, cwd: Path) -> tuple[int, str]:
    env = mpi_env()
    env["OMP_NUM_THREADS"] = "2"
    command = [str(binary), *program.args]
    if program.nprocs is not None:
        command = [find_program("mpiexec") or "mpiexec", "-n", str(program.nprocs), *command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=cwd)
    # the binaries differ in name only; a usage line naming argv[0] must not count as a difference
    return result.returncode, result.stdout.replace(str(binary), "PROGRAM")


def _build_and_run(program: Program, mpicc: str, folder: Path) -> Outcome:
    outcome = Outcome(program)
    work = folder / program.name
    work.mkdir()
    before = program.source.read_bytes()
    try:
        outcome.instrumented = instrument_file(program.source, work / f"{program.name}.perfeq.c", [mpicc],
                                               ["-fopenmp"])
    except Exception as exc:  # reported by the tests, with the message
        outcome.error = f"{type(exc).__name__}: {exc}"
        return outcome
    finally:
        outcome.unchanged = program.source.read_bytes() == before
    builds = {
        "original": (program.source, []),
        "instrumented": (outcome.instrumented.output, ["-DPERFEQ_OFF", f"-I{runtime_include_dir()}"]),
    }
    for build, (source, extra) in builds.items():
        binary = work / build / program.name
        binary.parent.mkdir()
        ok, stderr = _compile(mpicc, source, binary, extra)
        if not ok:
            outcome.error = f"{build} build failed:\n{stderr}"
            return outcome
        outcome.warnings[build] = _warnings(stderr)
        outcome.runs[build] = _run(program, binary, work)
    return outcome


@pytest.fixture(scope="module")
def mpicc() -> str:
    found = find_program("mpicc")
    if found is None or find_program("mpiexec") is None:
        pytest.skip("mpicc/mpiexec not found (install MPICH, or pip install 'perfeq[mpi]')")
    return found


@pytest.fixture(scope="module")
def outcomes(mpicc: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Every program instrumented, compiled both ways and run (two at a time)."""
    folder = tmp_path_factory.mktemp("instrument")
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda p: _build_and_run(p, mpicc, folder), PROGRAMS.values())
        return {outcome.program.name: outcome for outcome in results}


def descriptors(outcomes: dict[str, Outcome], name: str) -> UnitDescriptors:
    return outcomes[name].check().descriptors


def loop_at(unit: UnitDescriptors, line: int):
    (loop,) = [loop for loop in unit.loops if loop.line == line]
    return loop


def line_of(path: Path, text: str, nth: int = 0) -> int:
    """1-based line of the nth line of ``path`` containing ``text`` (so tests survive edits)."""
    lines = [i for i, line in enumerate(path.read_text().split("\n"), start=1) if text in line]
    assert len(lines) > nth, f"{text!r} not in {path.name}"
    return lines[nth]


# ---- the instrumented build behaves as the original ------------------------------------------


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_perfeq_off_build_behaves_as_the_original(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    outcome.check()
    assert not outcome.error, outcome.error
    original, instrumented = outcome.runs["original"], outcome.runs["instrumented"]
    assert original[0] == outcome.program.status, f"the original itself exits {original[0]}: {original[1]}"
    assert instrumented == original
    assert original[1].strip(), "the program prints something to compare"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_instrumented_source_adds_no_compiler_warning(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    outcome.check()
    assert not outcome.error, outcome.error
    added = outcome.warnings["instrumented"] - outcome.warnings["original"]
    assert not added, f"warnings of the instrumented file only: {sorted(added)}"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_source_file_is_never_modified(outcomes: dict[str, Outcome], name: str) -> None:
    assert outcomes[name].unchanged


# ---- golden files -----------------------------------------------------------------------------

GOLDEN_PROGRAMS = ["branches", "loops", "omp", "text"]


def _normalise(text: str, result: Instrumented) -> str:
    """The instrumented text without what depends on the machine or release: descriptor path,
    digest, perfeq version."""
    text = text.replace(f"Instrumented by perfeq {__version__} ", "Instrumented by perfeq <version> ")
    text = text.replace(str(result.descriptors_path), "<descriptors>")
    return text.replace(result.descriptors.digest, "<digest>")


@pytest.mark.parametrize("name", GOLDEN_PROGRAMS)
def test_golden_instrumented_text(name: str, mpicc: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CORPUS)  # the source is named as given: a relative name keeps goldens portable
    result = instrument_file(Path(f"{name}.c"), tmp_path / f"{name}.perfeq.c", [mpicc], ["-fopenmp"])
    got = _normalise(result.output.read_text(), result)
    golden = GOLDEN / f"{name}.perfeq.c"
    if REGEN_GOLDEN:
        golden.write_text(got)
        pytest.skip(f"regenerated {golden}; review the diff")
    assert golden.is_file(), f"no golden file {golden}; create it with PERFEQ_REGEN_GOLDEN=1"
    assert "<descriptors>" in got and "<digest>" in got and "<version>" in got
    assert got == golden.read_text(), f"{name}: instrumented text changed; if intended, PERFEQ_REGEN_GOLDEN=1"


# ---- round trip: the instrumented file parses again -------------------------------------------


def _shape(ast: c_ast.FileAST, main_file: str) -> Counter:
    """Kinds of control statements, conditionals and calls in the functions of one file."""
    kinds = (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Switch, c_ast.Case, c_ast.Label,
             c_ast.Goto, c_ast.Return, c_ast.TernaryOp, c_ast.FuncCall)
    found: Counter = Counter()

    def walk(node: c_ast.Node) -> None:
        if isinstance(node, kinds):
            found[type(node).__name__] += 1
        for child in node:
            walk(child)

    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and Path(ext.coord.file).name == main_file:
            found["FuncDef"] += 1
            walk(ext)
    return found


# every corpus program, and two examples (each takes a second: pycparser reads all of mpi.h)
ROUND_TRIP = sorted(CORPUS_PROGRAMS) + ["example_gauss", "example_omp_stencil"]


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_round_trip_parses_with_the_same_structure(outcomes: dict[str, Outcome], mpicc: str, name: str) -> None:
    result = outcomes[name].check()
    original_pre = preprocess(result.source, [mpicc], ["-fopenmp"])
    original = parse(original_pre, result.source.read_text().split("\n"), str(result.source))
    include = ["-I", str(runtime_include_dir()), "-fopenmp"]
    lines = result.output.read_text().split("\n")
    off = parse(preprocess(result.output, [mpicc], [*include, "-DPERFEQ_OFF"]), lines, str(result.output))
    main_file = result.source.name  # the #line directives name the original
    assert _shape(off, main_file) == _shape(original, main_file)
    if "PERFEQ_CALLED" not in result.output.read_text():  # a GNU statement expression: not for pycparser
        on = parse(preprocess(result.output, [mpicc], include), lines, str(result.output))
        twins = sum(isinstance(ext, c_ast.FuncDef) and ext.decl.name.startswith("perfeq__twin__")
                    and Path(ext.coord.file).name == main_file for ext in on.ext)  # (collect/twins.py)
        assert _shape(on, main_file)["FuncDef"] - twins == _shape(original, main_file)["FuncDef"]


# ---- descriptors ------------------------------------------------------------------------------


def test_descriptor_file_is_versioned_json(outcomes: dict[str, Outcome]) -> None:
    result = outcomes["loops"].check()
    data = json.loads(result.descriptors_path.read_text())
    assert (data["format"], data["version"]) == (FORMAT, VERSION) == ("perfeq-descriptors", 2)
    assert data["source"] == str(result.source)
    assert data["digest"] == hashlib.sha256(result.source.read_bytes()).hexdigest()
    assert data["instrumented"] == str(result.output)
    assert result.descriptors_path == result.output.with_name("loops.perfeq.json").resolve()
    for key in ("functions", "blocks", "loops", "conds", "regions", "comms", "calls", "shapes", "params",
                "macros", "warnings"):
        assert key in data
    assert [f["name"] for f in data["functions"]] == ["find", "main"]
    assert data["macros"] == {"N": "16", "STEP": "2"}


def test_canonical_loops(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "loops")
    source = CORPUS / "loops.c"
    first = loop_at(unit, line_of(source, "for (i = 0; i < N; i++)"))
    assert (first.kind, first.var, first.init, first.op, first.bound, first.step, first.stride) == \
        ("for", "i", "0", "<", "N", "i++", "1")  # the bound is the original text, not 16
    assert first.cond == "i < N" and first.flags == []
    assert first.depends == []  # names of variables: N is a macro, a constant after preprocessing
    assert first.values == {}  # 0 and N (a macro) are constants: nothing to record at each entry
    triangular = loop_at(unit, line_of(source, "for (j = 0; j < i; j++)"))
    assert set(triangular.values) == {"bound"}  # i is not a constant
    down = loop_at(unit, line_of(source, "i -= STEP"))
    assert (down.init, down.op, down.bound, down.stride) == ("N - 1", ">=", "0", "-(STEP)")
    assert down.depends == []
    two_vars = loop_at(unit, line_of(source, "for (int m = 0"))
    # the bound moves too (m++, n--): m runs toward n's first value at the difference of the strides
    assert (two_vars.var, two_vars.init, two_vars.bound, two_vars.step, two_vars.stride) == \
        ("m", "0", "2", "m++, n--", "2")


def test_triangular_loop_has_its_parent(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "loops")
    source = CORPUS / "loops.c"
    outer = loop_at(unit, line_of(source, "for (i = 0; i < N; i++)", 1))
    inner = loop_at(unit, line_of(source, "for (j = 0; j < i; j++)"))
    assert inner.parent == outer.id and outer.parent is None
    assert (inner.var, inner.init, inner.bound, inner.depends) == ("j", "0", "i", ["i"])
    body = unit.blocks[outer.body_block]
    assert body.kind == "body" and unit.blocks[inner.body_block].loop == inner.id
    assert inner.block == outer.body_block  # the inner loop is entered once per outer iteration


def test_loop_slots_and_body_blocks(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "loops")
    main = next(f for f in unit.functions if f.name == "main")
    slots = []
    for loop in unit.loops:
        if loop.function != main.id:
            continue
        body = unit.blocks[loop.body_block]
        assert body.function == main.id and body.kind == "body" and body.slot is not None
        slots += [loop.entry_slot, body.slot]
    blocks = [b.slot for b in unit.blocks if b.function == main.id and b.slot is not None]
    assert len(set(slots)) == len(slots) and set(blocks) | set(slots) <= set(range(main.nslots))
    assert unit.blocks[main.entry_block].kind == "entry" and unit.blocks[main.entry_block].slot is None


def test_while_and_do_loops(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "loops")
    source = CORPUS / "loops.c"
    loop = loop_at(unit, line_of(source, "while (i < N)"))
    # stepped once per iteration in its body: counted as ``for (; i < N; i += 3)`` from i's value at entry
    assert (loop.kind, loop.var, loop.op, loop.bound, loop.init, loop.step) == ("while", "i", "<", "N", "i", None)
    assert loop.stride == "3" and "var-modified" not in loop.flags
    do = loop_at(unit, line_of(source, "    do {"))
    assert (do.kind, do.cond, do.var, do.bound) == ("do", "count < 5", "count", "5")
    forever = loop_at(unit, line_of(source, "for (;;)"))
    assert "data-dependent" in forever.flags and forever.cond == "" and forever.var is None


def test_flags_for_modified_and_data_dependent_loops(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "params")
    source = CORPUS / "params.c"
    search = loop_at(unit, line_of(source, "while (data[i] != 63)"))
    assert "data-dependent" in search.flags
    skipping = loop_at(unit, line_of(source, "for (t = 0; t < n; t++)"))
    assert "var-modified" in skipping.flags and "data-dependent" not in skipping.flags
    plain = loop_at(unit, line_of(source, "for (i = 0; i < 64; i++)"))
    assert plain.flags == []
    stepped = loop_at(unit, line_of(source, "i += width"))
    assert (stepped.stride, stepped.depends) == ("width", ["n", "width"])
    messages = "\n".join(unit.warnings)
    assert f"params.c:{search.line}:" in messages and f"params.c:{skipping.line}:" in messages


def test_goto_is_flagged_with_a_warning(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "goto")
    (loop,) = unit.loops
    assert "goto" in loop.flags
    assert any("goto is not supported" in w for w in unit.warnings)
    assert {b.kind for b in unit.blocks} >= {"label"}


def test_recursion_is_flagged_with_a_warning(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "recursion")
    recursive = {f.name for f in unit.functions if f.recursive}
    assert recursive == {"fact", "is_even", "is_odd"}
    for name in recursive:
        assert any(f"'{name}' calls itself" in w for w in unit.warnings)


def test_call_sites_with_argument_texts(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "recursion")
    calls = {(c.callee, tuple(c.args)) for c in unit.calls}
    assert ("apply", ("ops[(i + 1) % 2]", "i")) in calls
    assert ("fact", ("n - 1",)) in calls and ("fact", ("10",)) in calls
    assert ("is_odd", ("n - 1",)) in calls and ("is_even", ("n - 1",)) in calls
    # calls through pointers are sites named by their expression (the runtime gives each to the
    # function it enters); the functions they reach are not callees
    assert ("f", ("x",)) in calls and ("ops[i % 2]", ("i",)) in calls
    assert all(c.callee not in ("twice", "square") for c in unit.calls)
    main = next(f for f in unit.functions if f.name == "main")
    (apply,) = [c for c in unit.calls if c.callee == "apply"]
    assert apply.function == main.id and apply.loop == unit.loops[0].id
    assert apply.block == unit.loops[0].body_block
    assert [c.id for c in unit.calls] == list(range(len(unit.calls)))
    functions = {f.name: f for f in unit.functions}
    for call in unit.calls:  # a call of a straight-line function is inlined: no hook, its ops counted
        assert call.instrumented == (call.callee not in functions or functions[call.callee].inlined_ops is None)
    inlined = {name for name, f in functions.items() if f.inlined_ops is not None}
    # not apply: f(x) through a pointer may reach a hooked function; not twice and square either,
    # straight-line as they are: apply calls them through that pointer, which adds no operations
    assert not inlined & {"apply", "twice", "square"}


def test_conditionals(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "branches")
    source = CORPUS / "branches.c"
    ifs = [c for c in unit.conds if c.kind == "if"]
    first, second, third = sorted((c for c in ifs if c.function == 0), key=lambda c: c.line)
    assert [c.text for c in (first, second, third)] == ["x < 0", "x == 0", "x < 10"]
    # else-if: the next if is evaluated in the else block of the previous one
    assert second.block == first.else_block and third.block == second.else_block
    assert third.else_block is not None and unit.blocks[third.else_block].kind == "else"
    (switch,) = [c for c in unit.conds if c.kind == "switch"]
    assert switch.text == "month" and len(switch.case_blocks) == 8  # case 4: case 6: are two labels
    assert all(unit.blocks[b].kind == "case" for b in switch.case_blocks)
    ternaries = [c for c in unit.conds if c.kind == "ternary"]
    assert sorted(c.text for c in ternaries) == ["(i % 2)", "i < 0", "i > 5"]
    # described, not hooked: both arms are counted in the block's operations, so no counter is read
    assert all(c.slot is None for c in ternaries)
    loop = loop_at(unit, line_of(source, "for (i = -2; i < 15; i++)"))
    assert all(c.block == loop.body_block for c in ternaries)


def test_parallel_regions_and_worksharing_loops(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "omp")
    source = CORPUS / "omp.c"
    assert [r.line for r in unit.regions] == [line_of(source, "#pragma omp parallel", n) for n in range(6)]
    combined = loop_at(unit, line_of(source, "#pragma omp parallel for private(j)") + 1)
    assert combined.worksharing and not combined.in_parallel
    assert unit.regions[0].loop == combined.id and "private(j)" in unit.regions[0].pragma
    inner = loop_at(unit, line_of(source, "for (j = 0; j < N; j++)"))
    assert inner.parent == combined.id and inner.in_parallel and not inner.worksharing
    collapsed = loop_at(unit, line_of(source, "#pragma omp parallel for collapse(2)") + 1)
    assert "collapsed" in collapsed.flags and collapsed.worksharing
    assert unit.blocks[collapsed.body_block].in_parallel
    region = unit.regions[2]
    assert region.pragma == "omp parallel" and region.loop is None
    for_loop = loop_at(unit, line_of(source, "#pragma omp for") + 1)
    assert for_loop.worksharing and for_loop.in_parallel and for_loop.values == {}
    parallel = {b.id for b in unit.blocks if b.in_parallel}
    assert {combined.body_block, inner.body_block, for_loop.body_block, collapsed.body_block} <= parallel
    last_combined = loop_at(unit, line_of(source, "#pragma omp parallel for reduction(+ : count)") + 1)
    assert unit.blocks[last_combined.block].in_parallel is False  # it stands in serial code
    (ternary,) = [c for c in unit.conds if c.kind == "ternary"]
    assert ternary.block in parallel
    # "#pragma omp parallel" on a loop: every thread runs the whole loop, entered in the region's block
    whole = loop_at(unit, line_of(source, "for (int k = 0; k < 4; k++)"))
    assert whole.in_parallel and not whole.worksharing
    assert unit.blocks[whole.block].kind == "region" and unit.regions[4].loop is None
    # "#pragma omp parallel" then "#pragma omp for" on the next line: a region and a worksharing loop
    split = loop_at(unit, line_of(source, "for (i = 0; i < N; i += 2)"))
    assert split.worksharing and split.in_parallel and unit.blocks[split.block].kind == "region"
    assert unit.regions[5].pragma == "omp parallel" and unit.blocks[split.block].id in parallel


def test_shapes_for_arrays_and_allocations(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "memory")
    shapes = {(s.name, s.kind): s for s in unit.shapes}
    vla = shapes["vla", "vla"]
    assert (vla.ndims, vla.extents, vla.element) == (2, ["n", "ROWS"], "double") and vla.value_slot is not None
    fixed = shapes["fixed", "fixed"]
    assert (fixed.extents, fixed.element, fixed.value_slot) == (["ROWS", "8"], "int", None)
    assert shapes["pts", "calloc"].extents == ["n", "sizeof *pts"]
    assert shapes["buf", "malloc"].extents == ["n * sizeof(int)"]
    assert shapes["buf", "realloc"].extents == ["2 * n * sizeof(int)"]
    assert all(s.value_slot is not None for s in unit.shapes if s.kind in ("malloc", "calloc", "realloc"))
    globals_ = [s for s in descriptors(outcomes, "omp").shapes if s.function is None]
    assert [(s.name, s.kind, s.extents) for s in globals_] == [("a", "fixed", ["N", "N"])]


def test_params_from_argv(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "params")
    params = {p.variable: p for p in unit.params}
    assert set(params) == {"n", "steps", "width", "m"}
    assert all(p.source == "argv" and p.symbol == p.variable for p in params.values())
    assert "atoi" in params["n"].text and "strtol" in params["width"].text and "sscanf" in params["m"].text
    text = outcomes["params"].check().output.read_text()
    assert 'PERFEQ_PARAM("n", n);' in text and 'PERFEQ_PARAM("m", m);' in text


def test_params_from_mpi(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "mpi")
    params = {p.variable: (p.symbol, p.source) for p in unit.params}
    # TAG (#define TAG 7) is a candidate too: a size compiled in, a parameter if it differs between builds
    assert params == {"rank": ("rank", "mpi_rank"), "size": ("P", "mpi_size"), "n": ("n", "argv"),
                      "TAG": ("TAG", "macro")}
    texts = {p.variable: p.text for p in unit.params}
    assert texts == {"rank": "MPI_Comm_rank(MPI_COMM_WORLD, &rank)", "size": "MPI_Comm_size(MPI_COMM_WORLD, &size)",
                     "n": "atoi(argv[1])", "TAG": "7"}  # as written, macros unexpanded


def test_param_option_renames_a_symbol(mpicc: str, tmp_path: Path) -> None:
    result = instrument_file(CORPUS / "params.c", tmp_path / "p.perfeq.c", [mpicc], [], params={"N": "n"})
    symbols = {p.variable: p.symbol for p in result.descriptors.params}
    assert symbols["n"] == "N" and symbols["steps"] == "steps"
    saved = json.loads(result.descriptors_path.read_text())
    assert {p["variable"]: p["symbol"] for p in saved["params"]}["n"] == "N"


SELECTS = """
#include <stdio.h>
static double g;
static double f(double x) { return 2 * x; }
int main(int argc, char **argv)
{
    double a[8] = {3, 1, 4, 1, 5, 9, 2, 6}, m = 0, lo = 9;
    int i, k = 0, j = 0;
    for (i = 0; i < 8; i++) {
        double d = a[i];
        if (d > m) m = d;                       /* select: a max */
        if (d < lo) { lo = d; k = i; }          /* select: two moves */
        if (d > 4) j = 1; else j = 2;           /* select: both branches move */
        if (a[i] > m) m = a[i];                 /* select: the load is in the condition too */
        if (d > 5) m = f(d);                    /* branch: a call */
        if (d > 6) a[i] = 0;                    /* branch: a store to memory */
        if (i > 0 && a[i - 1] > d) k = 0;       /* branch: && guards a load */
        if (d > 7) { m = 1; k = 2; j = 3; }     /* branch: more than two moves */
        if (d > 8) k++;                         /* branch: an increment */
        if (i < 7) m = a[i + 1];                /* branch: a load only when the condition holds */
        if (d > 1) k = i / (j + 1);             /* branch: a division */
        if (d > 2) g = d;                       /* branch: a store to a global */
    }
    printf("%g %g %d %d %g\\n", m, lo, k, j, g);
    return 0;
}
"""


def test_ifs_that_only_move_values_are_selects(mpicc: str, tmp_path: Path) -> None:
    source = tmp_path / "selects.c"
    source.write_text(SELECTS)
    result = instrument_file(source, tmp_path / "s.perfeq.c", [mpicc], [])
    ifs = sorted((c for c in result.descriptors.conds if c.kind == "if"), key=lambda c: c.line)
    assert [c.select for c in ifs] == [True] * 4 + [False] * 8
    saved = json.loads(result.descriptors_path.read_text())
    assert sum(c["select"] for c in saved["conds"]) == 4


def test_param_option_names_a_macro(mpicc: str, tmp_path: Path) -> None:
    result = instrument_file(CORPUS / "loops.c", tmp_path / "l.perfeq.c", [mpicc], [], params={"M": "N"})
    (param,) = [p for p in result.descriptors.params if p.symbol == "M"]
    assert (param.variable, param.source, param.text) == ("N", "macro", "16")


def test_comm_descriptors(outcomes: dict[str, Outcome]) -> None:
    unit = descriptors(outcomes, "mpi")
    comms = {}
    for comm in unit.comms:
        comms.setdefault(comm.call, []).append(comm)
    (bcast,) = comms["MPI_Bcast"]
    assert (bcast.count, bcast.datatype, bcast.root, bcast.peer, bcast.comm) == \
        ("n", "MPI_DOUBLE", "0", None, "MPI_COMM_WORLD")
    sends, recvs = comms["MPI_Send"], comms["MPI_Recv"]
    assert len(sends) == len(recvs) == 2
    assert {(s.count, s.datatype, s.peer) for s in sends} == {("n", "MPI_DOUBLE", "next")}
    assert {(r.count, r.datatype, r.peer) for r in recvs} == {("n", "MPI_DOUBLE", "prev")}
    (allreduce,) = comms["MPI_Allreduce"]
    assert (allreduce.count, allreduce.datatype, allreduce.root) == ("1", "MPI_DOUBLE", None)
    assert allreduce.args == ["&local", "&global", "1", "MPI_DOUBLE", "MPI_SUM", "MPI_COMM_WORLD"]
    step_loop = loop_at(unit, line_of(CORPUS / "mpi.c", "for (step = 0; step < 3; step++)"))
    assert all(c.loop == step_loop.id for c in sends + recvs) and bcast.loop is None
    assert all(c.instrumented for c in unit.comms)
    text = outcomes["mpi"].check().output.read_text()
    assert f"(PERFEQ_MPI({bcast.id}), MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD))" in text


def test_text_in_comments_strings_and_inactive_branches_is_untouched(outcomes: dict[str, Outcome]) -> None:
    result = outcomes["text"].check()
    text = result.output.read_text()
    original = result.source.read_text()
    for fixed in ('"if (x) { y; } else { z; }"', "/* a comment with { braces; and semicolons } */",
                  "// a line comment: for (;;) { while (1); }", "'{', close = '}', semi = ';'",
                  '"/* not a comment */ }"', "    for (;;) { s = -1; }\n#endif"):
        assert fixed in original and fixed in text
    inactive = original[original.index("#ifdef NEVER"): original.index("#else")]
    assert inactive in text, "the inactive #ifdef branch must not get hooks"
    unit = result.descriptors
    assert len(unit.loops) == 1  # the one in #if 0 is not there; the FOR_EACH macro is not instrumented
    assert any("written by a macro" in w for w in unit.warnings)
    assert "CLAMP(SQUARE(i),\n                   2,\n                   50);" in text  # no hook inside


def test_macros_and_spacing_do_not_move_hooks(tmp_path: Path) -> None:
    """The preprocessor collapses spaces and expands macros: hooks still land on the right tokens."""
    source = tmp_path / "spacing.c"
    source.write_text(
        "#include <stdio.h>\n"
        "#define AB 1\n"
        "#define LONGNAME 2\n"
        "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
        "int main(int argc, char **argv)\n"
        "{\n"
        "    int y, i, s = 0, c = argc;\n"
        "    y  =  AB + (c ? 1 : 2);   y +=  c  ?  3 : 4;\n"
        "    y += LONGNAME * c ? y : MAX(y, 3);\n"
        "\tfor (i = AB;\ti < c + AB;\ti += LONGNAME) s += (i > 1) ? i : -i;\n"
        "    s += ((c > 1) ? 1 : 2) ? 5 : 6;\n"
        "    printf(\"%d %d %s\\n\", y, s, argv[0] ? \"ok\" : \"no\");\n"
        "    return 0;\n"
        "}\n"
    )
    result = instrument_file(source, tmp_path / "spacing.perfeq.c", ["cc"], [])
    text = result.output.read_text()
    # conditional expressions are described, not hooked: the lines stay as written
    assert "    y  =  AB + (c ? 1 : 2);   y +=  c  ?  3 : 4;\n    y += LONGNAME * c ? y : MAX(y, 3);\n" in text
    assert "s += (i > 1) ? i : -i;" in text and "s += ((c > 1) ? 1 : 2) ? 5 : 6;" in text
    assert "PERFEQ_COND" not in text
    ternaries = sorted((c.line, c.text) for c in result.descriptors.conds if c.kind == "ternary")
    assert [t for _, t in ternaries] == ["c", "c", "LONGNAME * c", "(i > 1)", "((c > 1) ? 1 : 2)", "(c > 1)", "argv[0]"]
    (loop,) = result.descriptors.loops
    assert (loop.init, loop.bound, loop.stride) == ("AB", "c + AB", "LONGNAME")
    include = f"-I{runtime_include_dir()}"
    runs = []
    for build, flags in (("original", [str(source)]), ("instrumented", ["-DPERFEQ_OFF", include, str(result.output)])):
        binary = tmp_path / build
        compiled = subprocess.run(["cc", "-Wall", *flags, "-o", str(binary)], capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr
        runs.append(subprocess.run([str(binary), "x", "y"], capture_output=True, text=True).stdout)
    assert runs[0] == runs[1] == "10 7 ok\n"


# ---- errors -----------------------------------------------------------------------------------


def test_parse_error_is_one_line_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.c").write_text("int main(void)\n{\n    int x = 1;\n    x = x + ;\n    return x;\n}\n")
    before = Path("bad.c").read_bytes()
    status = cli_main(["instrument", "bad.c", "-o", "out/bad.perfeq.c"])
    err = capsys.readouterr().err
    assert status == 2
    lines = err.strip().split("\n")
    assert len(lines) == 1, err
    assert re.match(r"perfeq: error: bad\.c:4:\d+: ", lines[0]), lines[0]
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["bad.c"], "nothing may be written"
    assert Path("bad.c").read_bytes() == before


def test_preprocessor_error_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    Path("nohdr.c").write_text('#include "missing_header.h"\nint main(void) { return 0; }\n')
    status = cli_main(["instrument", "nohdr.c", "-o", "nohdr.perfeq.c"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and err.startswith("perfeq: error: ")
    assert "missing_header.h" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nohdr.c"]


@pytest.mark.parametrize("output", ["same.c", "./same.c", "../{folder}/same.c"])
def test_output_equal_to_the_input_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture, output: str) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(CORPUS / "exit3.c", "same.c")
    before = Path("same.c").read_bytes()
    status = cli_main(["instrument", "same.c", "-o", output.format(folder=tmp_path.name)])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("perfeq: error: ") and "overwrite" in err
    assert Path("same.c").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["same.c"]


def test_missing_input_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    status = cli_main(["instrument", str(tmp_path / "nothing.c"), "-o", str(tmp_path / "x.c")])
    err = capsys.readouterr().err
    assert status == 2 and "no such file" in err and not (tmp_path / "x.c").exists()


def test_cli_writes_both_files_and_reports_warnings(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    output = tmp_path / "goto.perfeq.c"
    status = cli_main(["instrument", str(CORPUS / "goto.c"), "-o", str(output)])
    err = capsys.readouterr().err
    assert status == 0
    assert output.is_file() and (tmp_path / "goto.perfeq.json").is_file()
    assert "warning: goto is not supported" in err and f"wrote {output}" in err


def test_while_loops_stepped_in_their_body(outcomes: dict[str, Outcome]) -> None:
    """A while loop whose body steps its variable once per iteration is counted like a for loop
    from the variable's value at entry (NPB FT's ilog2); not when the step is conditional, a
    ``continue`` can skip it, or the body reads the variable before a step that is not last."""
    unit = descriptors(outcomes, "whiles")
    source = CORPUS / "whiles.c"
    doubling = loop_at(unit, line_of(source, "while (nn < n)"))
    assert (doubling.init, doubling.op, doubling.bound, doubling.stride, doubling.flags) == ("nn", "<", "n", "<<=1", [])
    halving = loop_at(unit, line_of(source, "while (n > 1)"))
    assert (halving.init, halving.stride, halving.flags) == ("n", "/=2", [])
    for function in ("conditional_step", "skipping", "read_before_step"):
        index = next(f.id for f in unit.functions if f.name == function)
        (loop,) = [loop for loop in unit.loops if loop.function == index]
        assert loop.init is None and loop.stride is None and "var-modified" in loop.flags, function


def test_return_points(outcomes: dict[str, Outcome]) -> None:
    """The returns of a body that ends in ``return expr;`` with ``if (cond) return expr;`` before:
    each with its condition (the model evaluates such a function's calls); none for a return inside
    a loop."""
    unit = descriptors(outcomes, "whiles")
    source = CORPUS / "whiles.c"
    by_name = {f.name: f for f in unit.functions}
    assert by_name["ilog2"].return_points == [
        {"line": line_of(source, "return 0;"), "text": "0", "cond": "n == 1"},
        {"line": line_of(source, "return lg;"), "text": "lg", "cond": None}]
    assert [(p["text"], p["cond"]) for p in by_name["early"].return_points] == [
        ("-1", "n < 0"), ("0", "n == 0"), ("3", None)]
    assert by_name["find"].return_points is None
