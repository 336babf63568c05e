"""Task times on a lattice: the numerical fallback when closed-form sums lose their digits.

A sum of many uniform (or hyperexponential) task times is, in closed form, a polynomial whose terms
are huge and cancel; on a fine lattice (4096 cells per task) the same sum is an FFT power and keeps
its accuracy.  Used by :mod:`scheduling` for the column sums of static scheduling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfeq.fitting.variability.distributions import TaskTime

CELLS_PER_TASK = 4096


@dataclass(frozen=True, eq=False)
class LatticeTime:
    """Probability ``masses[i]`` spread evenly over [x_i - step/2, x_i + step/2], x_i = origin + i step."""

    origin: float
    step: float
    masses: np.ndarray
    name: str = ""

    @property
    def left_end(self) -> float:
        return self.origin - self.step / 2

    @property
    def right_end(self) -> float:
        return self.origin + (len(self.masses) - 0.5) * self.step

    @property
    def label(self) -> str:
        return self.name or "lattice distribution"

    @property
    def points(self) -> np.ndarray:
        return self.origin + self.step * np.arange(len(self.masses))

    @property
    def mean(self) -> float:
        return float(self.masses @ self.points)

    @property
    def variance(self) -> float:
        centred = self.points - self.mean
        return float(self.masses @ centred**2) + self.step**2 / 12

    @property
    def atoms(self) -> tuple[tuple[float, float], ...]:
        return ()

    def cdf(self, t: float | np.ndarray) -> np.ndarray:
        edges = self.origin + self.step * (np.arange(len(self.masses) + 1) - 0.5)
        return np.interp(t, edges, np.concatenate([[0.0], np.cumsum(self.masses)]), left=0.0, right=1.0)

    def sf(self, t: float | np.ndarray) -> np.ndarray:
        return 1.0 - self.cdf(t)

    def upper_limit(self, tail: float = 1e-17) -> float:
        return self.right_end


def discretise(task: TaskTime, step: float) -> LatticeTime:
    """The task's probability per cell, each cell centred on origin + i step, the first on the left end."""
    origin = task.left_end
    cells = int(math.ceil((task.upper_limit(1e-16) - origin) / step)) + 1
    edges = origin + step * (np.arange(cells + 1) - 0.5)
    cumulative = task.cdf(edges)
    masses = np.diff(cumulative)
    masses[0] += cumulative[0]
    masses = np.clip(masses, 0.0, None)
    return LatticeTime(origin=origin, step=step, masses=masses / masses.sum(), name=task.label)


def lattice_step(task: TaskTime) -> float:
    width = task.upper_limit(1e-16) - task.left_end
    return width / CELLS_PER_TASK if width > 0 else 1.0


def _trim(origin: float, step: float, masses: np.ndarray) -> tuple[float, np.ndarray]:
    masses = np.clip(masses, 0.0, None)
    significant = np.nonzero(masses > 1e-18 * masses.max())[0]
    first, last = significant[0], significant[-1]
    kept = masses[first:last + 1]
    return origin + first * step, kept / kept.sum()


def lattice_sum(parts: list[tuple[LatticeTime, int]]) -> LatticeTime:
    """The sum of ``count`` independent copies of each lattice time (all on one step), by FFT."""
    step = parts[0][0].step
    length = sum((len(part.masses) - 1) * count for part, count in parts) + 1
    size = 1 << (length - 1).bit_length()
    spectrum = np.ones(size // 2 + 1, dtype=complex)
    origin = 0.0
    for part, count in parts:
        spectrum *= np.fft.rfft(part.masses, size) ** count
        origin += part.origin * count
    masses = np.fft.irfft(spectrum, size)[:length]
    origin, masses = _trim(origin, step, masses)
    return LatticeTime(origin=origin, step=step, masses=masses)
