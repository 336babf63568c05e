"""The maximum of many independent task times (Fleischmann et al. 1994, section 4.1).

Exactly, from F_max = prod F_i by quadrature, and by the limit distributions: Gumbel for unbounded
task times (eqs. (1)-(6)), Weibull for a finite right end-point x0.  The paper's warning is built in:
for n >> 100 an unbounded model and a truncated one of almost the same density give different maxima.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy import special

from perfeq.fitting.variability.distributions import TaskTime

EULER_GAMMA = 0.5772156649015329
GUMBEL_VARIANCE = math.pi**2 / 6  # delta of eq. (1)
MASSIVE = 100  # the paper's n beyond which the right end-point decides (section 4.1.2)


class Distribution(Protocol):
    left_end: float
    right_end: float
    atoms: tuple[tuple[float, float], ...]

    def cdf(self, t: float | np.ndarray) -> np.ndarray: ...
    def sf(self, t: float | np.ndarray) -> np.ndarray: ...
    def upper_limit(self, tail: float = ...) -> float: ...


# --- exact: quadrature of the product of distribution functions -----------------------------------------

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(16)


def _panels(breaks: Sequence[float], count: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights over [breaks[0], breaks[-1]], panels split at every break."""
    breaks = np.unique(np.asarray(breaks, dtype=float))
    span = breaks[-1] - breaks[0]
    edges = [breaks[0]]
    for low, high in zip(breaks[:-1], breaks[1:], strict=True):
        pieces = max(1, int(math.ceil(count * (high - low) / span))) if span > 0 else 1
        edges += list(np.linspace(low, high, pieces + 1)[1:])
    edges = np.asarray(edges)
    low, high = edges[:-1, None], edges[1:, None]
    nodes = (low + high) / 2 + (high - low) / 2 * _NODES
    weights = (high - low) / 2 * _WEIGHTS
    return nodes.ravel(), np.broadcast_to(weights, nodes.shape).ravel()


def maximum_moments(parts: Sequence[tuple[Distribution, int]], panels: int = 600) -> tuple[float, float]:
    """Mean and variance of the maximum of independent times, ``count`` copies of each distribution.

    E[M] = lo + integral (1 - prod F_i^c_i) and Var[M] about that mean, both over Gauss-Legendre panels
    split at the atoms (where F jumps).  Times are >= 0.
    """
    low = max(dist.left_end for dist, _ in parts)
    high = max(dist.upper_limit(1e-17 / max(sum(c for _, c in parts), 1)) for dist, _ in parts)
    atoms = [at for dist, _ in parts for at, _ in dist.atoms if low <= at <= high]
    if high <= low:  # all deterministic at one point
        return low, 0.0

    def log_product(t: np.ndarray) -> np.ndarray:
        """sum_i c_i ln F_i(t), from 1 - F where F is near 1 (1 - F^n for n = 10^6 keeps its digits)."""
        total = np.zeros_like(t)
        with np.errstate(divide="ignore"):
            for dist, count in parts:
                tail = dist.sf(t)
                total = total + count * np.where(tail < 0.5, np.log1p(-np.minimum(tail, 0.5)),
                                                 np.log(dist.cdf(t)))
        return total

    nodes, weights = _panels([low, high, *atoms], panels)
    mean = low + float(weights @ -np.expm1(log_product(nodes)))
    nodes, weights = _panels([low, high, mean, *atoms], panels)
    logs = log_product(nodes)
    above = nodes >= mean
    integrand = np.where(above, 2 * (nodes - mean) * -np.expm1(logs), 2 * (mean - nodes) * np.exp(logs))
    return mean, max(float(weights @ integrand), 0.0)


# --- the limit distributions -----------------------------------------------------------------------------

@dataclass(frozen=True)
class MaximumEstimate:
    """The maximum of ``tasks`` independent task times: exact moments and the paper's approximations.

    ``gumbel_*`` is eq. (1) with alpha_n, beta_n from eqs. (2), (3) solved numerically; ``closed_form_*``
    eq. (1) with the special cases (4)-(6); ``weibull_*`` the limit for a finite right end-point;
    ``david_bound`` the distribution-free upper bound mu + sigma (n - 1) / sqrt(2n - 1) (David [18]).
    """

    tasks: int
    mean: float
    variance: float
    gumbel_mean: float | None
    gumbel_variance: float | None
    closed_form_mean: float | None
    closed_form_variance: float | None
    weibull_mean: float | None
    weibull_variance: float | None
    right_end: float
    david_bound: float
    warnings: tuple[str, ...] = ()


def gumbel_constants(task: TaskTime, count: int) -> tuple[float, float]:
    """(alpha_n, beta_n) of eqs. (2) and (3): 1 - F(beta_n) = 1/n, alpha_n = (1 - F)/F' at beta_n."""
    beta = task.quantile(1.0 - 1.0 / count)
    density = float(task.pdf(beta))
    if density <= 0:
        raise ValueError(f"{task.label}: no density at the 1 - 1/{count} quantile {beta:g}")
    return float(task.sf(beta)) / density, beta


def closed_form_constants(task: TaskTime, count: int) -> tuple[float, float] | None:
    """(alpha_n, beta_n) by eqs. (4)-(6) when every term shares one theta and there are no atoms:
    alpha_n = 1/lambda_min, beta_n = (ln n + k_max ln ln n)/lambda_min + theta, k_max the largest stage
    among the terms of the smallest rate (k = shape - 1: eq. (5) for Erlang-2 has k = 1)."""
    terms = task.density.terms
    if task.atoms or not terms or len({t[4] for t in terms}) != 1 or count < 3 or math.isfinite(task.right_end):
        return None
    smallest = min(t[3] for t in terms)
    if smallest <= 0:
        return None
    stage = max(t[2] for t in terms if t[3] == smallest)
    theta = terms[0][4]
    return 1.0 / smallest, (math.log(count) + stage * math.log(math.log(count))) / smallest + theta


def weibull_maximum(task: TaskTime, count: int) -> tuple[float, float]:
    """Mean and variance of the maximum from the Weibull limit at a finite x0 (section 4.1.2):
    M ~ x0 - a_n W, W Weibull of index alpha (1 - F(x0 - s) ~ c s^alpha), a_n = x0 - F^-1(1 - 1/n).
    Tends to x0 with variance 0."""
    end = task.right_end
    scale = end - task.quantile(1.0 - 1.0 / count)
    if scale <= 0:
        return end, 0.0
    near, far = float(task.sf(end - scale / 4)), float(task.sf(end - scale / 2))
    index = math.log(far / near) / math.log(2) if near > 0 and far > near else 1.0
    first, second = special.gamma(1 + 1 / index), special.gamma(1 + 2 / index)
    return end - scale * first, scale**2 * (second - first**2)


def david_bound(task: TaskTime, count: int) -> float:
    return task.mean + math.sqrt(task.variance) * (count - 1) / math.sqrt(2 * count - 1)


def expected_maximum(task: TaskTime, count: int) -> MaximumEstimate:
    """The maximum of ``count`` independent copies of ``task``: exact, Gumbel or Weibull, with warnings."""
    if count < 1:
        raise ValueError("the number of tasks must be at least 1")
    mean, variance = maximum_moments([(task, count)])
    warnings: list[str] = []
    gumbel = closed = weibull = (None, None)
    if math.isfinite(task.right_end):
        weibull = weibull_maximum(task, count)
        if count > MASSIVE:
            warnings.append(
                f"{count} tasks > {MASSIVE}: the maximum is near the right end-point x0 = {task.right_end:g} "
                "(Weibull limit: mean -> x0, variance -> 0); it depends on x0, so x0 must be measured, "
                "not guessed (section 4.1.2)")
    else:
        if count >= 2:
            try:
                alpha, beta = gumbel_constants(task, count)
                gumbel = (beta + alpha * EULER_GAMMA, alpha**2 * GUMBEL_VARIANCE)
            except ValueError:
                pass
            constants = closed_form_constants(task, count)
            if constants:
                closed = (constants[1] + constants[0] * EULER_GAMMA, constants[0] ** 2 * GUMBEL_VARIANCE)
        if count > MASSIVE:
            warnings.append(
                f"{count} tasks > {MASSIVE} with an unbounded task time: the maximum keeps growing like "
                "ln n (Gumbel limit); real task times have an upper limit x0, and a model truncated there "
                "gives a different maximum for n >> 100 (section 4.1.2): truncate at the largest time "
                "you measured (--dist ...@x0)")
    return MaximumEstimate(tasks=count, mean=mean, variance=variance, gumbel_mean=gumbel[0],
                           gumbel_variance=gumbel[1], closed_form_mean=closed[0], closed_form_variance=closed[1],
                           weibull_mean=weibull[0], weibull_variance=weibull[1], right_end=task.right_end,
                           david_bound=david_bound(task, count), warnings=tuple(warnings))

