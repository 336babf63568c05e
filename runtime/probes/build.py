"""Compiling the machine probes with the user's MPI compiler wrapper.

Part of perfeq stage 2 (runtime/probes/).  The C sources ship with perfeq as package data beside
this file; they are compiled at probe time, ``-O2``, into a work folder, so that the probes measure
what the user's compiler makes of plain loops.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from perfeq.errors import BuildError

SOURCE_DIR = Path(__file__).resolve().parent  # probe.h, memory.c, compute.c, network.c
PROGRAMS = ("memory", "compute", "network")
CFLAGS = ("-std=c99", "-O2")


def probe_sources() -> dict[str, Path]:
    """Each probe program's C source, checked to be there (a broken install says so in one line)."""
    sources = {name: SOURCE_DIR / f"{name}.c" for name in PROGRAMS}
    missing = [str(path) for path in [*sources.values(), SOURCE_DIR / "probe.h"] if not path.is_file()]
    if missing:
        raise BuildError(f"the probes' C sources are missing ({', '.join(missing)}); reinstall perfeq")
    return sources


def compile_command(mpicc: str, source: Path, binary: Path, cflags: tuple[str, ...] = CFLAGS) -> list[str]:
    """``mpicc -std=c99 -O2 source -o binary -lm``."""
    return [mpicc, *cflags, str(source), "-o", str(binary), "-lm"]


def build_probes(folder: Path, mpicc: str, cflags: tuple[str, ...] = CFLAGS) -> dict[str, Path]:
    """Compile every probe into ``folder``; returns program name -> binary."""
    folder.mkdir(parents=True, exist_ok=True)
    binaries = {}
    for name, source in probe_sources().items():
        binary = folder / name
        command = compile_command(mpicc, source, binary, cflags)
        try:
            proc = subprocess.run(command, capture_output=True, text=True, check=False)
        except OSError as exc:
            raise BuildError(f"cannot run {mpicc}: {exc.strerror or exc}") from None
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            raise BuildError(f"compiling the {name} probe failed: {' '.join(command)}: {last}")
        binaries[name] = binary
    return binaries


def compiler_version(mpicc: str) -> str:
    """The first line of ``mpicc --version`` (the compiler under the wrapper), or "" if it says nothing."""
    try:
        proc = subprocess.run([mpicc, "--version"], capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (proc.stdout.strip().splitlines() or [""])[0]
