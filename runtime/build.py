"""Compiling the perfeq runtime library for one user compiler command.

Part of perfeq stage 2 (runtime/).  ``perfeq cc`` (and the tests) call :func:`build_runtime` with
the user's compiler and flags; it compiles ``perfeq_rt.c`` (always) and the PMPI wrappers
``perfeq_mpi.c`` (for MPI programs) with the same command, so the objects match the program's
ABI and OpenMP setting, and returns what to add to the compile and link lines.  Objects are reused
while the sources and the command are unchanged.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfeq.errors import BuildError

RUNTIME_DIR = Path(__file__).resolve().parent / "c"  # the C library: perfeq_rt.[ch], perfeq_mpi.c
HEADER = RUNTIME_DIR / "perfeq_rt.h"
RT_SOURCE = RUNTIME_DIR / "perfeq_rt.c"
MPI_SOURCE = RUNTIME_DIR / "perfeq_mpi.c"
_HEADERS = (HEADER, RUNTIME_DIR / "perfeq_rt_internal.h")

# Flags of the user's command that must not reach the runtime's compile line.
_DROP_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
_DROP = {"-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MP", "-DPERFEQ_OFF"}


@dataclass(frozen=True)
class RuntimeBuild:
    """The compiled runtime: the folder of ``perfeq_rt.h`` and the object files to link."""

    include_dir: Path
    objects: tuple[Path, ...]
    mpi: bool

    @property
    def compile_args(self) -> list[str]:
        """Arguments for compiling instrumented sources (``-I`` for ``perfeq_rt.h``)."""
        return ["-I", str(self.include_dir)]

    @property
    def link_args(self) -> list[str]:
        """Arguments for the link line: the runtime's objects."""
        return [str(obj) for obj in self.objects]


# The runtime is always optimised, whatever the user's -O (last -O wins): its hooks run on every call
# and loop entry; unoptimised they made tiny hot functions 14x slower (tests/c/real/leafcalls.c).
RUNTIME_OPTIMISATION = ("-O2",)


def runtime_flags(compiler: Sequence[str]) -> list[str]:
    """The user's command without what names inputs/outputs or turns perfeq off."""
    command = list(compiler)
    if not command:
        raise BuildError("no compiler given to build the perfeq runtime")
    kept: list[str] = [command[0]]
    skip = False
    for arg in command[1:]:
        if skip:
            skip = False
            continue
        if arg in _DROP_WITH_VALUE:
            skip = True
            continue
        if arg in _DROP or arg.startswith("-o") or arg.endswith((".c", ".o", ".a", ".so")):
            continue
        kept.append(arg)
    return kept


def build_runtime(compiler: Sequence[str], outdir: Path, mpi: bool | None = None) -> RuntimeBuild:
    """Compile the runtime with ``compiler`` (e.g. ``['mpicc', '-O2', '-fopenmp']``) into ``outdir``.

    Parameters
    ----------
    compiler
        The user's compiler command with its flags; sources, ``-c``, ``-o`` and ``-DPERFEQ_OFF``
        are ignored.
    outdir
        Folder for the objects (created if needed); objects there are reused while the runtime's
        sources and the command are unchanged.
    mpi
        True: the program uses MPI, compile the PMPI wrappers (a :class:`BuildError` if that
        fails); False: do not; None: compile them when ``compiler`` can (it finds ``mpi.h``).

    Returns
    -------
    RuntimeBuild
        ``include_dir`` (add ``compile_args`` to the program's compile line) and ``objects``
        (add ``link_args`` to its link line).
    """
    command = [*runtime_flags(compiler), *RUNTIME_OPTIMISATION]
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    objects = [_compile(command, RT_SOURCE, outdir)]
    use_mpi = False
    if mpi is None:
        try:
            objects.append(_compile(command, MPI_SOURCE, outdir))
            use_mpi = True
        except BuildError:
            use_mpi = False
    elif mpi:
        objects.append(_compile(command, MPI_SOURCE, outdir))
        use_mpi = True
    return RuntimeBuild(include_dir=RUNTIME_DIR, objects=tuple(objects), mpi=use_mpi)


def _fingerprint(command: Sequence[str], source: Path) -> str:
    digest = hashlib.sha256()
    digest.update("\0".join(command).encode())
    for path in (source, *_HEADERS):
        digest.update(b"\0" + path.read_bytes())
    return digest.hexdigest()


def _compile(command: Sequence[str], source: Path, outdir: Path) -> Path:
    """Compile one runtime source to ``outdir/<name>.o`` unless an identical build is there."""
    obj = outdir / (source.stem + ".o")
    stamp = outdir / (source.stem + ".o.stamp")
    fingerprint = _fingerprint(command, source)
    if obj.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == fingerprint:
        return obj
    fd, temp_name = tempfile.mkstemp(prefix=f".{source.stem}.", suffix=".o", dir=outdir)
    os.close(fd)
    argv = [*command, "-I", str(RUNTIME_DIR), "-c", str(source), "-o", temp_name]
    try:
        try:
            result = subprocess.run(argv, capture_output=True, text=True, check=False)
        except OSError as exc:
            raise BuildError(f"cannot run {command[0]}: {exc.strerror or exc}") from None
        if result.returncode != 0:
            lines = [line for line in result.stderr.splitlines() if "error" in line] or result.stderr.splitlines()
            first = lines[0].strip() if lines else f"exit status {result.returncode}"
            raise BuildError(f"{source.name}: compiling the perfeq runtime with {' '.join(command)} failed: {first}")
        os.replace(temp_name, obj)
    finally:
        if os.path.exists(temp_name):
            os.unlink(temp_name)
    stamp.write_text(fingerprint + "\n", encoding="utf-8")
    return obj
