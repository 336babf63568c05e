"""``perfeq cc``: the compiler wrapper (like ``scorep mpicc`` or ``tau_cc.sh``).

Instruments every ``.c`` file of a compile line into a build folder, compiles the instrumented
copies with the user's own compiler and flags, and links the runtime library.  Headers, -D/-I/-std
flags and the user's build system keep working: only the source paths on the line change, the
folder of each original source is added to the include path, and the runtime is appended at link.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from perfeq.errors import BuildError, UsageError
from perfeq.instrument.collect.calls import input_getters
from perfeq.instrument.instrumenter import Instrumented, instrument_file, parse_file
from perfeq.instrument.preprocess import preprocessor_flags
from perfeq.runtime.build import RUNTIME_DIR, build_runtime

_NO_LINK = ("-c", "-E", "-S", "-M", "-MM")


@dataclass(frozen=True)
class CompileLine:
    compiler: list[str]
    args: list[str]
    sources: list[int]  # indices into args of the .c files
    links: bool

    @classmethod
    def parse(cls, command: list[str]) -> CompileLine:
        if not command:
            raise UsageError("perfeq cc needs a compile command, e.g. perfeq cc mpicc prog.c -o prog")
        compiler, args = [command[0]], list(command[1:])
        sources = []
        skip = False
        for i, arg in enumerate(args):
            if skip:
                skip = False
                continue
            if arg in ("-o", "-I", "-D", "-U", "-include", "-isystem", "-L", "-l", "-x", "-MF", "-MT"):
                skip = True
                continue
            if arg.endswith(".c") and not arg.startswith("-"):
                sources.append(i)
        links = not any(a in _NO_LINK for a in args)
        return cls(compiler, args, sources, links)

    @property
    def flags(self) -> list[str]:
        return [a for i, a in enumerate(self.args) if i not in self.sources]


def compile_instrumented(
    command: list[str],
    build_dir: Path,
    params: dict[str, str] | None = None,
    verbose: bool = False,
) -> int:
    """Instrument, compile and link; returns the compiler's exit status."""
    line = CompileLine.parse(command)
    build_dir.mkdir(parents=True, exist_ok=True)
    new_args = list(line.args)
    units: list[Instrumented] = []
    seen: set[str] = set()
    parsed = {}
    for index in line.sources:
        source = Path(line.args[index])
        if not source.is_file():
            raise UsageError(f"{source}: no such file")
        parsed[index] = parse_file(source, line.compiler, line.flags)
    # one program: a call into another unit of the line is announced wherever its prototype is
    program = frozenset().union(*(p.defined_functions() for p in parsed.values()))
    getters = input_getters([fd for p in parsed.values() for fd in p.function_definitions()])
    for index in line.sources:
        source = Path(line.args[index])
        stem = _copy_stem(source, build_dir, line.flags)
        while stem in seen:
            stem = f"{stem}_{len(seen)}"
        seen.add(stem)
        result = instrument_file(source, build_dir / f"{stem}.perfeq.c", line.compiler, line.flags, params,
                                 parsed=parsed[index], program_functions=program,
                                 program_getters=getters)
        for warning in result.warnings:
            print(f"perfeq: {warning}", file=sys.stderr)
        units.append(result)
        new_args[index] = str(result.output)
    includes = sorted({str(Path(line.args[i]).resolve().parent) for i in line.sources})

    uses_mpi = any(u.descriptors.comms for u in units) or _compiler_has_mpi(line.compiler, line.flags)
    runtime = None
    if line.links:
        runtime = build_runtime(line.compiler + _runtime_flags(line.flags), build_dir / "runtime", mpi=uses_mpi)
    # the sources' folders go after the user's -I (the copies name their own folder's headers by
    # path): they serve an include a macro writes, which the copies cannot rename
    after = [f"-I{d}" for d in includes]
    for cmd in _commands(line, new_args):
        cmd = line.compiler + [f"-I{runtime_include_dir()}"] + cmd + after
        if runtime is not None:
            cmd += [str(o) for o in runtime.objects]
        if verbose:
            print("perfeq cc: " + " ".join(cmd), file=sys.stderr)
        try:
            proc = subprocess.run(cmd, check=False)
        except FileNotFoundError:
            raise BuildError(f"cannot run the compiler '{line.compiler[0]}'") from None
        if proc.returncode != 0:
            raise BuildError(f"the compiler failed on the instrumented sources (exit {proc.returncode}): "
                             + " ".join(cmd))
    return 0


def _copy_stem(source: Path, build_dir: Path, flags: list[str]) -> str:
    """The name of ``source``'s instrumented copy and descriptor file in the build folder: its own
    stem, unless the folder holds one of that name from another build: of a file of the same name
    in another folder (``a/util.c`` and ``b/util.c`` compiled one at a time, as make does: the
    second overwrote the first's descriptors and its unit was read with them, silently), or of this
    file with other preprocessor flags (``-DN=32`` then ``-DN=64``, one build per size: every trace
    read the last build's descriptors).  Then the stem and a digest of the path and those flags."""
    stem = source.stem
    preprocess = preprocessor_flags(flags)
    existing = build_dir / f"{stem}.perfeq.json"
    if existing.is_file():
        try:
            recorded = json.loads(existing.read_text(encoding="utf-8"))
            path, built = recorded.get("source"), recorded.get("preprocess")
        except (OSError, ValueError, AttributeError):
            path = built = None
        same_path = not path or Path(path).resolve() == source.resolve()
        if not same_path:
            return f"{stem}-{hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:8]}"
        if built is not None and built != preprocess:
            key = "\0".join([str(source.resolve()), *preprocess])
            return f"{stem}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"
    return stem


def _commands(line: CompileLine, new_args: list[str]) -> list[list[str]]:
    """The compiler's arguments, the instrumented copies in place of the sources: one command, or,
    for ``-c`` or ``-S`` without ``-o``, one per source with ``-o NAME.o`` (``.s``), the name the
    compiler gives the original ``NAME.c`` in the current folder (it would name the object after
    the copy, ``NAME.perfeq.o``, and the user's link line would not find ``NAME.o``)."""
    suffix = ".o" if "-c" in line.args else ".s" if "-S" in line.args else None
    if suffix is None or "-o" in line.args or any(a.startswith("-o") and len(a) > 2 for a in line.args) \
            or not line.sources:
        return [new_args]
    others = [a for i, a in enumerate(new_args) if i not in line.sources]
    return [others + [new_args[i], "-o", Path(line.args[i]).stem + suffix] for i in line.sources]


def runtime_include_dir() -> Path:
    """The folder of perfeq_rt.h, for ``-I`` (the runtime's own: perfeq.runtime.build.RUNTIME_DIR)."""
    return RUNTIME_DIR


def _runtime_flags(flags: list[str]) -> list[str]:
    """Flags of the user's line that the runtime must be built with too."""
    keep = []
    for flag in flags:
        if flag in ("-fopenmp", "-pthread", "-m32", "-m64", "-fPIC") or flag.startswith(("-march", "-fsanitize")):
            keep.append(flag)
    return keep


def _compiler_has_mpi(compiler: list[str], flags: list[str]) -> bool:

    probe = subprocess.run([*compiler, *preprocessor_flags(flags), "-E", "-x", "c", "-"], input="#include <mpi.h>\n",
                           capture_output=True, text=True, check=False)
    return probe.returncode == 0
