"""Generate runtime/c/perfeq_mpi.c, the PMPI wrappers, from the MPI call table.

Part of perfeq stage 2 (runtime/).  ``python -m perfeq.runtime.mpi.wrappers`` regenerates the file
from perfeq.runtime.mpi.calls with templates/perfeq_mpi.c.j2; ``--check`` fails when the committed
file is not current (the test suite runs it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from perfeq.runtime.mpi.calls import MPI_CALLS

TEMPLATE = Path(__file__).resolve().parent / "templates" / "perfeq_mpi.c.j2"
GENERATED = Path(__file__).resolve().parent.parent / "c" / "perfeq_mpi.c"


def render_wrappers() -> str:
    """The text of ``perfeq_mpi.c``, generated from :data:`MPI_CALLS`."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE.parent)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(TEMPLATE.name).render(calls=list(MPI_CALLS.values()))


def generated_is_current(path: Path = GENERATED) -> bool:
    """Whether the committed ``perfeq_mpi.c`` is what :func:`render_wrappers` gives."""
    try:
        return path.read_text(encoding="utf-8") == render_wrappers()
    except FileNotFoundError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfeq.runtime.mpi.wrappers",
                                     description="Generate runtime/c/perfeq_mpi.c from the MPI call table.")
    parser.add_argument("--check", action="store_true", help="fail if perfeq_mpi.c is not current")
    args = parser.parse_args(argv)
    if args.check:
        if generated_is_current():
            return 0
        print(f"{GENERATED}: out of date; run: python -m perfeq.runtime.mpi.wrappers", file=sys.stderr)
        return 1
    GENERATED.write_text(render_wrappers(), encoding="utf-8")
    print(f"wrote {GENERATED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
