"""Finding the C compiler and MPI on this machine.

A system MPI found on PATH is used first; otherwise the ``mpich`` wheel installed with
``pip install 'perfeq[mpi]'`` (its ``mpicc``/``mpiexec`` sit in this Python's scripts folder, which is
not on PATH when a venv is used without activating it).
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from perfeq.errors import BuildError


def _scripts_dirs() -> list[str]:
    dirs = [sysconfig.get_path("scripts")]
    import sys

    exe_dir = str(Path(sys.executable).parent)
    if exe_dir not in dirs:
        dirs.append(exe_dir)
    return dirs


def find_program(name: str) -> str | None:
    """Return the path of ``name``: PATH first, then this Python's scripts folder."""
    found = shutil.which(name)
    if found:
        return found
    for folder in _scripts_dirs():
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@dataclass(frozen=True)
class MPIToolchain:
    mpicc: str
    mpiexec: str

    def launcher(self, nprocs: int) -> list[str]:
        return [self.mpiexec, "-n", str(nprocs)]


def find_mpi() -> MPIToolchain:
    """The MPI compiler wrapper and launcher, or a :class:`BuildError` saying how to get them."""
    mpicc = find_program("mpicc")
    mpiexec = find_program("mpiexec")
    if not mpicc or not mpiexec:
        raise BuildError(
            "no MPI found: mpicc and mpiexec are neither on PATH nor in this Python's scripts folder; "
            "install one with: pip install 'perfeq[mpi]'"
        )
    return MPIToolchain(mpicc=mpicc, mpiexec=mpiexec)


def mpi_env() -> dict[str, str]:
    """Environment for running MPI programs: the launcher's folder on PATH (hydra needs its proxy)."""
    env = dict(os.environ)
    extra = os.pathsep.join(_scripts_dirs())
    env["PATH"] = env.get("PATH", "") + os.pathsep + extra
    return env
