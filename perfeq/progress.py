"""Progress of the long loops (``perfeq calibrate``, ``perfeq validate``): a bar with the time left
(tqdm) when stderr is a terminal; otherwise one line per step through ``say`` (a log, a Slurm output
file, a pipe), so a run that is not watched keeps its record and draws nothing.

    with Progress(len(points), "calibrate", say) as progress:
        for point in points:
            ...
            progress.step(f"{name} P={procs}: {seconds:.3f} s")
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from tqdm import tqdm


class Progress:
    """``total`` steps of ``what``: a tqdm bar on a terminal, ``[k/total] text`` lines otherwise."""

    def __init__(self, total: int, what: str, say: Callable[[str], None] | None = None,
                 stream: TextIO | None = None, unit: str = "run"):
        self.total, self.done = total, 0
        stream = stream or sys.stderr
        self._say = say or (lambda text: print(text, file=stream, flush=True))
        interactive = hasattr(stream, "isatty") and stream.isatty()
        self._bar = tqdm(total=total, desc=what, unit=unit, file=stream, dynamic_ncols=True, leave=True,
                         bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                                    "[{elapsed} elapsed, {remaining} left] {postfix}") if interactive else None

    def step(self, text: str) -> None:
        """One step done; ``text`` says what it was (the bar's postfix, or a line)."""
        self.done += 1
        if self._bar is None:
            self._say(f"[{self.done:3d}/{self.total}] {text}")
            return
        self._bar.set_postfix_str(text, refresh=False)
        self._bar.update(1)

    def note(self, text: str) -> None:
        """A message that is not a step (printed above the bar, not through it)."""
        if self._bar is None:
            self._say(text)
        else:
            self._bar.write(text, file=self._bar.fp)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
