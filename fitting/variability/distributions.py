"""Task-time distributions of Fleischmann et al. (1994), section 3: (truncated) theta-exponential polynomials.

A :class:`TaskTime` is a theta-exponential polynomial density, point masses (deterministic parts) and a
right end-point x0 (finite for the truncated class of section 3.2).  The class is closed under
:func:`series` (convolution: tasks one after the other) and :func:`parallel` (maximum of independent
tasks), so series-parallel task graphs are evaluated exactly in semi-symbolic form, as GIANT does.
:func:`fit_moments` fits one to a measured mean, variance, minimum and support end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
from scipy import optimize, special

from perfeq.fitting.variability.polynomials import ThetaExpPolynomial

MASS_TOLERANCE = 1e-6  # how far from 1 the total probability of a user's terms may be


@dataclass(frozen=True, eq=False)
class TaskTime:
    """The distribution of one task's run time: density terms, point masses and a right end-point.

    ``atoms`` are (position, probability) pairs; ``right_end`` is x0 = sup{y : F(y) < 1} when finite
    (math.inf otherwise); ``left_end`` is the smallest possible time.  ``truncation`` remembers the
    untruncated distribution and the cut, so that it can be sampled exactly.
    """

    density: ThetaExpPolynomial
    atoms: tuple[tuple[float, float], ...] = ()
    left_end: float = 0.0
    right_end: float = math.inf
    name: str = ""
    truncation: tuple[TaskTime, float] | None = field(default=None, repr=False)

    # --- the distribution function ----------------------------------------------------------------

    @cached_property
    def cdf_function(self) -> ThetaExpPolynomial:
        """F as a theta-exponential polynomial: the density's antiderivative plus a step per atom."""
        steps = ThetaExpPolynomial.from_coefficients([(weight, 0, 0.0, at) for at, weight in self.atoms])
        return self.density.antiderivative() + steps

    def cdf(self, t: float | np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        values = np.clip(self.cdf_function(t), 0.0, 1.0)
        values = np.where(t < self.left_end, 0.0, values)
        return np.where(t >= self.right_end, 1.0, values)

    def sf(self, t: float | np.ndarray) -> np.ndarray:
        """1 - F(t); beyond the last shift of an unbounded F, minus its decaying terms (no cancellation,
        so tails far below 1e-16 keep their digits: eq. (2) for large n needs them)."""
        t = np.asarray(t, dtype=float)
        values = 1.0 - self.cdf(t)
        if self._tail is not None:
            start, decaying = self._tail
            values = np.where(t >= start, np.clip(-decaying(t), 0.0, 1.0), values)
        return values

    @cached_property
    def _tail(self) -> tuple[float, ThetaExpPolynomial] | None:
        terms = self.cdf_function.terms
        if math.isfinite(self.right_end) or not terms:
            return None
        return max(term[4] for term in terms), ThetaExpPolynomial(tuple(t for t in terms if t[3] > 0))

    def pdf(self, t: float | np.ndarray) -> np.ndarray:
        """The density of the continuous part (atoms are not in it)."""
        t = np.asarray(t, dtype=float)
        values = self.density(t)
        return np.where((t < self.left_end) | (t > self.right_end), 0.0, values)

    def atom_weight(self, at: float) -> float:
        return sum(weight for position, weight in self.atoms if position == at)

    def quantile(self, probability: float) -> float:
        """The smallest t with F(t) >= probability."""
        if probability <= 0:
            return self.left_end
        high = self.upper_limit(1.0 - probability) if probability < 1 else self.upper_limit(1e-16)
        low = self.left_end
        if self.cdf(low) >= probability:
            return low
        return float(optimize.brentq(lambda t: float(self.cdf(t)) - probability, low, high, xtol=1e-13 * max(1, high),
                                     rtol=1e-14))

    def upper_limit(self, tail: float = 1e-17) -> float:
        """A time beyond which the probability left is below ``tail`` (the right end-point if finite)."""
        if math.isfinite(self.right_end):
            return self.right_end
        spread = math.sqrt(max(self.variance, 0.0))
        scale = max(self.mean - self.left_end + spread, 1e-9)
        t = self.mean + 10 * spread
        for _ in range(200):
            if self.sf(t) < tail:
                return float(t)
            t += scale
            scale *= 1.5
        raise ValueError(f"{self.label}: no time found beyond which less than {tail:g} probability is left")

    def rounding_bound(self) -> float:
        """An upper estimate of the rounding error of F(t) at any t: 1e-14 times the largest sum of
        |terms| of F.  The closed form adds terms that cancel when rates differ and stages are high
        (Erlang-8 of rate 1.5 plus Erlang-8 of rate 2 keeps about 4 digits of its mean); this says how many."""
        terms = self.cdf_function.terms
        if not terms:
            return 0.0
        if math.isfinite(self.right_end):
            reach = self.right_end
        else:
            slowest = min((term[3] for term in terms if term[3] > 0), default=1.0)
            reach = max(term[4] for term in terms) + 40.0 * (max(term[2] for term in terms) + 1) / slowest
        probe = np.linspace(self.left_end, reach, 1024)
        return 1e-14 * float(self.cdf_function.magnitude(probe).max())

    # --- moments ----------------------------------------------------------------------------------

    def moment(self, order: int) -> float:
        """E[X^order], in closed form from the terms (regularised incomplete gamma up to x0)."""
        from_atoms = sum(weight * at**order for at, weight in self.atoms)
        return from_atoms + self.density.integral_moment(order, self.right_end)

    @cached_property
    def mass(self) -> float:
        return self.moment(0)

    @cached_property
    def mean(self) -> float:
        return self.moment(1)

    @cached_property
    def variance(self) -> float:
        """E[(X - mean)^2], from the moments about the left end-point (fewer digits lost)."""
        shifted = TaskTime(density=self.density.shifted(-self.left_end),
                           atoms=tuple((at - self.left_end, w) for at, w in self.atoms), left_end=0.0,
                           right_end=self.right_end - self.left_end)
        m1, m2 = shifted.moment(1), shifted.moment(2)
        return max(m2 - m1 * m1, 0.0)

    @property
    def label(self) -> str:
        return self.name or f"theta-exponential polynomial with {len(self.density)} terms"

    # --- derived distributions --------------------------------------------------------------------

    def truncate(self, end: float) -> TaskTime:
        """The task time conditioned on X <= end (section 3.2's H_omega = xi H with xi = 1 / H(omega))."""
        if end <= self.left_end:
            raise ValueError(f"{self.label}: the support end {end:g} must be above the smallest time "
                             f"{self.left_end:g}")
        if end >= self.right_end:
            return self
        kept = float(self.cdf(end))
        if kept <= 0:
            raise ValueError(f"{self.label}: no probability below the support end {end:g}")
        density = (self.density - self.density.times(ThetaExpPolynomial.step(end))).scaled(1.0 / kept)
        atoms = tuple((at, w / kept) for at, w in self.atoms if at <= end)
        parent = self.truncation[0] if self.truncation else self
        return TaskTime(density=density, atoms=atoms, left_end=self.left_end, right_end=end,
                        name=f"{self.label} truncated at {end:g}", truncation=(parent, end))

    def shifted(self, by: float) -> TaskTime:
        """X + by: a deterministic part added."""
        return TaskTime(density=self.density.shifted(by), atoms=tuple((at + by, w) for at, w in self.atoms),
                        left_end=self.left_end + by, right_end=self.right_end + by,
                        name=f"{by:g} + {self.label}")

    # --- sampling ---------------------------------------------------------------------------------

    @cached_property
    def erlang_mixture(self) -> list[tuple[float, int, float, float]] | None:
        """(probability, shape, rate, shift) components if the density is a positive mixture of shifted
        Erlang densities (shape 0: an atom), else None.  Such a task time is sampled exactly."""
        components = [(w, 0, 0.0, at) for at, w in self.atoms]
        for sign, log_coef, stage, rate, shift in self.density.terms:
            if sign < 0 or rate <= 0:
                return None
            components.append((math.exp(log_coef + math.lgamma(stage + 1) - (stage + 1) * math.log(rate)),
                               stage + 1, rate, shift))
        if any(w < 0 for w, *_ in components) or abs(sum(w for w, *_ in components) - 1) > 1e-9:
            return None
        return components

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        """Independent draws: exact for (truncated) Erlang mixtures, else by inverting F on a fine grid."""
        if self.truncation is not None and self.truncation[0].erlang_mixture is not None:
            parent, end = self.truncation
            if float(parent.cdf(end)) >= 0.25:  # rejection: redraw what falls beyond the end
                out = _sample_mixture(parent.erlang_mixture, rng, size)
                beyond = out > end
                while beyond.any():
                    out[beyond] = _sample_mixture(parent.erlang_mixture, rng, int(beyond.sum()))
                    beyond = out > end
                return out
            return _sample_truncated_mixture(parent.erlang_mixture, end, rng, size)
        if self.erlang_mixture is not None:
            return _sample_mixture(self.erlang_mixture, rng, size)
        return self._inverse_grid(rng.random(size))

    @cached_property
    def _inverse_table(self) -> tuple[np.ndarray, np.ndarray]:
        low, high = self.left_end, self.upper_limit(1e-13)
        grid = np.linspace(low, high, 2**16 + 1)
        jumps = [at for at, _ in self.atoms if low <= at <= high]
        width = (high - low) * 1e-12
        grid = np.unique(np.concatenate([grid, jumps, [at - width for at in jumps]]))
        values = np.maximum.accumulate(self.cdf(grid))
        return values, grid

    def _inverse_grid(self, uniform: np.ndarray) -> np.ndarray:
        values, grid = self._inverse_table
        keep = np.concatenate([[True], np.diff(values) > 0])
        return np.interp(uniform, values[keep], grid[keep])


def _sample_mixture(components: list[tuple[float, int, float, float]], rng: np.random.Generator,
                    size: int | tuple[int, ...]) -> np.ndarray:
    weights = np.array([c[0] for c in components])
    if len(components) == 1:
        chosen = np.zeros(size, dtype=int)
    else:
        chosen = rng.choice(len(components), size=size, p=weights / weights.sum())
    out = np.empty(size)
    for index, (_, shape, rate, shift) in enumerate(components):
        mask = chosen == index
        count = int(mask.sum())
        if count:
            out[mask] = shift + (rng.gamma(shape, 1.0 / rate, size=count) if shape > 0 else 0.0)
    return out


def _sample_truncated_mixture(components: list[tuple[float, int, float, float]], end: float,
                              rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
    """Each component cut at ``end``: its weight times P(component <= end), drawn by the inverse gamma."""
    kept = []
    for weight, shape, rate, shift in components:
        if shift > end:
            kept.append(0.0)
        elif shape == 0:
            kept.append(weight)
        else:
            kept.append(weight * float(special.gammainc(shape, rate * (end - shift))))
    weights = np.array(kept)
    chosen = rng.choice(len(components), size=size, p=weights / weights.sum())
    out = np.empty(size)
    for index, (_, shape, rate, shift) in enumerate(components):
        mask = chosen == index
        count = int(mask.sum())
        if not count:
            continue
        if shape == 0:
            out[mask] = shift
        else:
            top = float(special.gammainc(shape, rate * (end - shift)))
            out[mask] = shift + special.gammaincinv(shape, rng.random(count) * top) / rate
    return out


@dataclass(frozen=True)
class Communication:
    """Section 4.3: K1 before each task (from T1) and K0 after it (to T0), asynchronous."""

    before: TaskTime
    after: TaskTime


# --- the families of the paper and of the command line -----------------------------------------------

def _checked_rate(rate: float) -> float:
    if not (rate > 0 and math.isfinite(rate)):
        raise ValueError(f"the rate must be a positive number, not {rate:g}")
    return float(rate)


def exponential(rate: float) -> TaskTime:
    rate = _checked_rate(rate)
    return TaskTime(density=ThetaExpPolynomial.from_coefficients([(rate, 0, rate, 0.0)]), name=f"exp({rate:g})")


def erlang(shape: int, rate: float) -> TaskTime:
    """Erlang-``shape`` with rate lambda: stage k = shape - 1 in the paper's notation."""
    rate = _checked_rate(rate)
    if shape < 1 or int(shape) != shape:
        raise ValueError(f"the Erlang shape must be a whole number of at least 1, not {shape}")
    shape = int(shape)
    log_coef = shape * math.log(rate) - math.lgamma(shape)
    density = ThetaExpPolynomial.from_terms([(1.0, log_coef, shape - 1, rate, 0.0)])
    return TaskTime(density=density, name=f"erlang({shape}, {rate:g})")


def deterministic(value: float) -> TaskTime:
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(f"a task time cannot be negative: {value:g}")
    return TaskTime(density=ThetaExpPolynomial.zero(), atoms=((float(value), 1.0),), left_end=float(value),
                    right_end=float(value), name=f"det({value:g})")


def uniform(low: float, high: float) -> TaskTime:
    if not (0 <= low < high and math.isfinite(high)):
        raise ValueError(f"uniform({low:g}, {high:g}): need 0 <= low < high")
    height = 1.0 / (high - low)
    density = ThetaExpPolynomial.from_coefficients([(height, 0, 0.0, low), (-height, 0, 0.0, high)])
    return TaskTime(density=density, left_end=float(low), right_end=float(high), name=f"uniform({low:g}, {high:g})")


def from_terms(terms: Sequence[tuple[float, int, float, float]], atoms: Sequence[tuple[float, float]] = (),
               name: str = "") -> TaskTime:
    """A task time from density terms (a, k, lambda, theta) and atoms (position, probability).

    Raises ValueError unless every theta >= 0, every rate > 0, the total probability is 1 and the
    density is nowhere clearly negative.
    """
    for coef, stage, rate, shift in terms:
        if int(stage) != stage or stage < 0:
            raise ValueError(f"term ({coef:g}, {stage}, {rate:g}, {shift:g}): the stage k must be a whole number >= 0")
        if not rate > 0:
            raise ValueError(f"term ({coef:g}, {stage}, {rate:g}, {shift:g}): the rate must be positive")
        if shift < 0:
            raise ValueError(f"term ({coef:g}, {stage}, {rate:g}, {shift:g}): theta cannot be negative")
    if any(at < 0 or w < 0 for at, w in atoms):
        raise ValueError("atoms need a position >= 0 and a probability >= 0")
    density = ThetaExpPolynomial.from_coefficients(terms)
    starts = [shift for *_, shift in terms] + [at for at, w in atoms if w > 0]
    task = TaskTime(density=density, atoms=tuple((float(a), float(w)) for a, w in atoms if w > 0),
                    left_end=min(starts, default=0.0), name=name)
    if abs(task.mass - 1) > MASS_TOLERANCE:
        raise ValueError(f"the terms hold probability {task.mass:.6g}, not 1: scale the coefficients a")
    reach = max((shift for *_, shift in terms), default=0.0) + 60.0 / min((r for _, _, r, _ in terms), default=1.0)
    probe = np.linspace(task.left_end, max(reach, max((at for at, _ in atoms), default=0.0)), 4001)
    values = task.pdf(probe)
    if values.min() < -1e-9 * max(values.max(), 1e-300):
        where = probe[int(values.argmin())]
        raise ValueError(f"the density is negative at t = {where:.4g} ({values.min():.3g}): not a distribution")
    return task


def mixture(weights: Sequence[float], parts: Sequence[TaskTime], name: str = "") -> TaskTime:
    """sum_i w_i X_i: with probability w_i the task takes time X_i (untruncated parts)."""
    if abs(sum(weights) - 1) > MASS_TOLERANCE or min(weights) < 0:
        raise ValueError("mixture weights must be >= 0 and add up to 1")
    density = ThetaExpPolynomial.zero()
    atoms: dict[float, float] = {}
    for weight, part in zip(weights, parts, strict=True):
        density = density + part.density.scaled(weight)
        for at, w in part.atoms:
            atoms[at] = atoms.get(at, 0.0) + weight * w
    used = [part for weight, part in zip(weights, parts, strict=True) if weight > 0]
    return TaskTime(density=density, atoms=tuple(sorted(atoms.items())), left_end=min(p.left_end for p in used),
                    right_end=max(p.right_end for p in used), name=name)


def fit_moments(mean: float, variance: float, *, minimum: float | None = None, stages: int | None = None,
                support_end: float | None = None) -> TaskTime:
    """A theta-exponential polynomial with the measured mean and variance (and minimum, support end).

    The deterministic part theta is ``minimum`` when given; with ``stages`` and no minimum, theta is
    chosen so that the rest is Erlang-``stages`` exactly (theta = mean - sqrt(stages variance)), as the
    paper models small coefficients of variation with few stages.  The random part is a mixed Erlang
    (Tijms: Erlang k-1 and k of one rate) for a squared coefficient of variation c2 <= 1, a
    two-phase hyperexponential with balanced means above.  With ``support_end`` the result is
    truncated there (section 3.2), its parameters adjusted until the truncated moments match.
    """
    if not (math.isfinite(mean) and mean >= 0 and math.isfinite(variance) and variance >= 0):
        raise ValueError(f"need a mean >= 0 and a variance >= 0, not {mean:g} and {variance:g}")
    if support_end is None:
        return _fit_untruncated(mean, variance, minimum, stages)
    if support_end <= mean:
        raise ValueError(f"the support end {support_end:g} must be above the mean {mean:g}")
    if variance >= (support_end - mean) * (mean - (minimum or 0.0)):
        raise ValueError(f"a variance of {variance:g} is impossible with mean {mean:g} between "
                         f"{minimum or 0.0:g} and {support_end:g}")
    base = minimum or 0.0

    def truncated(log_mean: float, log_variance: float) -> TaskTime:
        return _fit_untruncated(base + math.exp(log_mean), math.exp(log_variance), minimum, stages).truncate(support_end)

    def residuals(x: np.ndarray) -> np.ndarray:
        try:
            fitted = truncated(float(x[0]), float(x[1]))
        except (ValueError, ArithmeticError):
            return np.array([1e3, 1e3])
        return np.array([fitted.mean / mean - 1, fitted.variance / variance - 1])

    start = np.array([math.log(mean - base), math.log(variance)]) if mean > base else None
    if start is None:
        raise ValueError(f"the minimum {base:g} must be below the mean {mean:g}")
    solution = optimize.least_squares(residuals, start, xtol=1e-14, ftol=1e-14, gtol=1e-14)
    if np.max(np.abs(solution.fun)) > 1e-8:
        raise ValueError(f"no mixed Erlang or hyperexponential truncated at {support_end:g} has mean {mean:g} "
                         f"and variance {variance:g}; give a larger support end or none")
    name = f"fit(mean {mean:.6g}, variance {variance:.6g}) truncated at {support_end:g}"
    return replace(truncated(float(solution.x[0]), float(solution.x[1])), name=name)


def _fit_untruncated(mean: float, variance: float, minimum: float | None, stages: int | None) -> TaskTime:
    name = f"fit(mean {mean:.6g}, variance {variance:.6g})"
    if variance == 0:
        return deterministic(mean)
    theta = minimum if minimum is not None else 0.0
    if minimum is None and stages:
        theta = max(mean - math.sqrt(stages * variance), 0.0)
    random_mean = mean - theta
    if random_mean <= 0:
        raise ValueError(f"the minimum {theta:g} must be below the mean {mean:g}")
    c2 = variance / random_mean**2
    if c2 <= 1:
        k = max(1, math.ceil(1.0 / c2 - 1e-12))
        if k == 1:
            part = exponential(1.0 / random_mean)
        else:
            p = (k * c2 - math.sqrt(k * (1 + c2) - k * k * c2)) / (1 + c2)
            p = min(max(p, 0.0), 1.0)
            rate = (k - p) / random_mean
            parts = [erlang(k - 1, rate), erlang(k, rate)]
            part = mixture([p, 1 - p], parts) if p > 0 else parts[1]
    else:
        p1 = 0.5 * (1 + math.sqrt((c2 - 1) / (c2 + 1)))
        part = mixture([p1, 1 - p1], [exponential(2 * p1 / random_mean), exponential(2 * (1 - p1) / random_mean)])
    fitted = part.shifted(theta) if theta else part
    return TaskTime(density=fitted.density, atoms=fitted.atoms, left_end=fitted.left_end, right_end=fitted.right_end,
                    name=name)


# --- closure: series (convolution) and parallel (maximum of independent) ------------------------------

def series(*tasks: TaskTime) -> TaskTime:
    """X_1 + ... + X_n of independent task times (section 2 (a)): the convolution, in closed form."""
    result = tasks[0]
    for task in tasks[1:]:
        result = _convolve(result, task)
    return result


def _convolve(first: TaskTime, second: TaskTime) -> TaskTime:
    density = first.density.convolve(second.density)
    for at, weight in first.atoms:
        density = density + second.density.shifted(at).scaled(weight)
    for at, weight in second.atoms:
        density = density + first.density.shifted(at).scaled(weight)
    atoms: dict[float, float] = {}
    for a1, w1 in first.atoms:
        for a2, w2 in second.atoms:
            atoms[a1 + a2] = atoms.get(a1 + a2, 0.0) + w1 * w2
    return TaskTime(density=density, atoms=tuple(sorted(atoms.items())), left_end=first.left_end + second.left_end,
                    right_end=first.right_end + second.right_end, name=f"({first.label}) + ({second.label})")


def parallel(*tasks: TaskTime) -> TaskTime:
    """max(X_1, ..., X_n) of independent task times (section 2 (b)): F = prod F_i, in closed form."""
    result = tasks[0]
    for task in tasks[1:]:
        result = _maximum(result, task)
    return result


def _maximum(first: TaskTime, second: TaskTime) -> TaskTime:
    # d(F1 F2) = f1 F2 + F1 f2 off the atoms; at an atom the jump of F1 F2
    density = first.density.times(second.cdf_function) + first.cdf_function.times(second.density)
    positions = sorted({at for at, _ in first.atoms} | {at for at, _ in second.atoms})
    atoms = []
    for at in positions:
        f1, f2 = float(first.cdf(at)), float(second.cdf(at))
        jump = f1 * f2 - (f1 - first.atom_weight(at)) * (f2 - second.atom_weight(at))
        if jump > 0:
            atoms.append((at, jump))
    return TaskTime(density=density, atoms=tuple(atoms), left_end=max(first.left_end, second.left_end),
                    right_end=max(first.right_end, second.right_end),
                    name=f"max({first.label}, {second.label})")


def convolution_power(task: TaskTime, count: int) -> TaskTime:
    """The sum of ``count`` independent copies, by repeated squaring."""
    result: TaskTime | None = None
    base = task
    while count:
        if count & 1:
            result = base if result is None else _convolve(result, base)
        count >>= 1
        if count:
            base = _convolve(base, base)
    if result is None:
        raise ValueError("convolution_power: the count must be at least 1")
    return result


def maximum_power(task: TaskTime, count: int) -> TaskTime:
    """The maximum of ``count`` independent copies: F^n, density n F^(n-1) f."""
    if count < 1:
        raise ValueError("maximum_power: the count must be at least 1")
    if count == 1:
        return task
    below = task.cdf_function.power(count - 1)
    density = below.times(task.density).scaled(count)
    atoms = []
    for at, weight in task.atoms:
        value = float(task.cdf(at))
        jump = value**count - (value - weight) ** count
        if jump > 0:
            atoms.append((at, jump))
    return TaskTime(density=density, atoms=tuple(atoms), left_end=task.left_end, right_end=task.right_end,
                    name=f"max of {count} x {task.label}")
