"""Theta-exponential polynomials as functions (Fleischmann et al. 1994, section 3.1): the algebra only.

H(t) = sum_i a_i (t - theta_i)^k_i exp(-lambda_i (t - theta_i)) for t >= theta_i (0 before), with real
a_i, whole k_i >= 0, lambda_i >= 0 and shifts theta_i.  Sums, products, antiderivatives and
convolutions of such functions are again such functions; :mod:`distributions` builds task times on it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

# Two rates closer than this (relative) are one rate: the partial fractions of a convolution divide by
# their difference.  Rates that differ by more but by little (1e-6 .. 1e-3) lose digits; see
# docs/variability.md.
SAME_RATE = 1e-9
# A merged coefficient smaller than this fraction of the terms that were added into it is rounding noise.
CANCELLED = 1e-13

# one term: (sign, log |a|, stage k, rate lambda, shift theta)
Term = tuple[float, float, int, float, float]


def _log_binomial(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _key(value: float) -> float:
    """The value rounded to 12 significant digits: rates and shifts that are equal up to rounding."""
    return float(f"{value:.12g}")


def _merge(terms: Iterable[Term]) -> list[Term]:
    """Like terms (same stage, rate and shift) added; terms that cancel to rounding noise dropped."""
    groups: dict[tuple[int, float, float], list[Term]] = {}
    for term in terms:
        sign, log_coef, stage, rate, shift = term
        if sign == 0 or log_coef == -math.inf:
            continue
        groups.setdefault((int(stage), _key(rate), _key(shift)), []).append(term)
    merged = []
    for (stage, _, _), group in groups.items():
        rate, shift = group[0][3], group[0][4]
        if len(group) == 1:
            merged.append((group[0][0], group[0][1], stage, rate, shift))
            continue
        top = max(term[1] for term in group)
        total = sum(term[0] * math.exp(term[1] - top) for term in group)
        scale = sum(math.exp(term[1] - top) for term in group)
        if abs(total) <= CANCELLED * scale:
            continue
        merged.append((math.copysign(1.0, total), top + math.log(abs(total)), stage, rate, shift))
    merged.sort(key=lambda term: (term[4], term[3], term[2]))
    return merged


@dataclass(frozen=True, eq=False)
class ThetaExpPolynomial:
    """A theta-exponential polynomial; coefficients kept as sign and log magnitude.

    The log form lets an Erlang-200 density (coefficient 1/199!, below the smallest float) be one term.
    Build it with :meth:`from_coefficients` (real a_i) or :meth:`from_terms` (log form).
    """

    terms: tuple[Term, ...]

    @classmethod
    def from_terms(cls, terms: Iterable[Term]) -> ThetaExpPolynomial:
        return cls(tuple(_merge(terms)))

    @classmethod
    def from_coefficients(cls, triples: Iterable[tuple[float, int, float, float]]) -> ThetaExpPolynomial:
        """From (a, k, lambda, theta) quadruples: the paper's parameter triples with their shift."""
        terms = []
        for coef, stage, rate, shift in triples:
            if coef != 0:
                terms.append((math.copysign(1.0, coef), math.log(abs(coef)), int(stage), float(rate), float(shift)))
        return cls.from_terms(terms)

    @classmethod
    def zero(cls) -> ThetaExpPolynomial:
        return cls(())

    @classmethod
    def step(cls, at: float, height: float = 1.0) -> ThetaExpPolynomial:
        """``height`` for t >= ``at``, 0 before."""
        return cls.from_coefficients([(height, 0, 0.0, at)])

    def __len__(self) -> int:
        return len(self.terms)

    def coefficients(self) -> list[tuple[float, int, float, float]]:
        """(a, k, lambda, theta) per term; a may round to 0 when its magnitude is below a float's."""
        return [(sign * math.exp(log_coef), stage, rate, shift) for sign, log_coef, stage, rate, shift in self.terms]

    @property
    def shifts(self) -> list[float]:
        return [term[4] for term in self.terms]

    @property
    def rates(self) -> list[float]:
        return [term[3] for term in self.terms]

    # --- evaluation -------------------------------------------------------------------------------

    def _values(self, t: np.ndarray) -> np.ndarray:
        """Each term at each point: shape (len(t), len(self))."""
        t = np.asarray(t, dtype=float)
        if not self.terms:
            return np.zeros((t.size, 0))
        sign, log_coef, stage, rate, shift = (np.array(column, dtype=float) for column in zip(*self.terms, strict=True))
        u = t.reshape(-1, 1) - shift
        inside = u >= 0
        safe = np.where(inside, u, 1.0)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            power = np.where(stage > 0, stage * np.log(np.where(safe > 0, safe, 1e-300)), 0.0)
            values = sign * np.exp(log_coef + power - rate * safe)
        return np.where(inside, values, 0.0)

    def __call__(self, t: float | np.ndarray) -> np.ndarray:
        scalar = np.ndim(t) == 0
        values = self._values(np.atleast_1d(t)).sum(axis=1)
        return values[0] if scalar else values.reshape(np.shape(t))

    def magnitude(self, t: float | np.ndarray) -> np.ndarray:
        """sum_i |H_i(t)|: the size of what was added to give H(t), so eps * magnitude bounds its error."""
        return np.abs(self._values(np.atleast_1d(t))).sum(axis=1)

    # --- algebra ----------------------------------------------------------------------------------

    def __add__(self, other: ThetaExpPolynomial) -> ThetaExpPolynomial:
        return ThetaExpPolynomial.from_terms(self.terms + other.terms)

    def __neg__(self) -> ThetaExpPolynomial:
        return ThetaExpPolynomial(tuple((-s, c, k, r, h) for s, c, k, r, h in self.terms))

    def __sub__(self, other: ThetaExpPolynomial) -> ThetaExpPolynomial:
        return self + (-other)

    def scaled(self, factor: float) -> ThetaExpPolynomial:
        if factor == 0:
            return ThetaExpPolynomial.zero()
        sign, log_factor = math.copysign(1.0, factor), math.log(abs(factor))
        return ThetaExpPolynomial(tuple((s * sign, c + log_factor, k, r, h) for s, c, k, r, h in self.terms))

    def shifted(self, by: float) -> ThetaExpPolynomial:
        """H(t - by)."""
        return ThetaExpPolynomial(tuple((s, c, k, r, h + by) for s, c, k, r, h in self.terms))

    def antiderivative(self) -> ThetaExpPolynomial:
        """The integral of H from -inf to t, term by term in closed form."""
        out: list[Term] = []
        for sign, log_coef, stage, rate, shift in self.terms:
            if rate > 0:
                # a k!/lambda^(k+1) [1 - exp(-lambda u) sum_j (lambda u)^j / j!]
                constant = log_coef + math.lgamma(stage + 1) - (stage + 1) * math.log(rate)
                out.append((sign, constant, 0, 0.0, shift))
                out += [(-sign, constant + j * math.log(rate) - math.lgamma(j + 1), j, rate, shift)
                        for j in range(stage + 1)]
            else:
                out.append((sign, log_coef - math.log(stage + 1), stage + 1, 0.0, shift))
        return ThetaExpPolynomial.from_terms(out)

    def times(self, other: ThetaExpPolynomial) -> ThetaExpPolynomial:
        """The pointwise product: the later-starting term's shift, rates added, the other re-expanded."""
        out: list[Term] = []
        for first in self.terms:
            for second in other.terms:
                out += _term_product(first, second)
        return ThetaExpPolynomial.from_terms(out)

    def power(self, exponent: int) -> ThetaExpPolynomial:
        """H^exponent (exponent >= 1) by repeated squaring."""
        result: ThetaExpPolynomial | None = None
        base = self
        while exponent:
            if exponent & 1:
                result = base if result is None else result.times(base)
            exponent >>= 1
            if exponent:
                base = base.times(base)
        if result is None:
            raise ValueError("power: the exponent must be at least 1")
        return result

    def convolve(self, other: ThetaExpPolynomial) -> ThetaExpPolynomial:
        """(H * G)(t) = integral of H(s) G(t - s) ds, in closed form (partial fractions, Sahner & Trivedi)."""
        out: list[Term] = []
        for first in self.terms:
            for second in other.terms:
                out += _term_convolution(first, second)
        return ThetaExpPolynomial.from_terms(out)

    def integral_moment(self, order: int, upper: float) -> float:
        """integral of t^order H(t) dt from each term's shift to ``upper`` (inf allowed for rates > 0).

        Terms of rate 0 are polynomials: with ``upper`` infinite they are integrated only up to the last
        such shift, beyond which the polynomial parts of an integrable function cancel.
        """
        polynomial_end = max((h for _, _, _, r, h in self.terms if r == 0), default=-math.inf)
        total = 0.0
        for sign, log_coef, stage, rate, shift in self.terms:
            end = upper if (rate > 0 or math.isfinite(upper)) else polynomial_end
            span = end - shift
            if span <= 0:
                continue
            for j in range(order + 1):
                if shift == 0 and order - j > 0:
                    continue
                outer = _log_binomial(order, j) + ((order - j) * math.log(abs(shift)) if order - j else 0.0)
                outer_sign = 1.0 if (shift >= 0 or (order - j) % 2 == 0) else -1.0
                total += sign * outer_sign * math.exp(log_coef + outer + _log_partial_gamma(stage + j, rate, span))
        return total


def _log_partial_gamma(q: int, rate: float, span: float) -> float:
    """log of the integral of u^q exp(-rate u) du from 0 to ``span``."""
    from scipy.special import gammainc

    if rate > 0:
        full = math.lgamma(q + 1) - (q + 1) * math.log(rate)
        if not math.isfinite(span):
            return full
        fraction = float(gammainc(q + 1, rate * span))
        return full + math.log(fraction) if fraction > 0 else -math.inf
    return (q + 1) * math.log(span) - math.log(q + 1)


def _term_product(first: Term, second: Term) -> list[Term]:
    if first[4] > second[4]:
        first, second = second, first
    s1, c1, k1, r1, h1 = first
    s2, c2, k2, r2, h2 = second
    gap = h2 - h1
    if gap == 0:
        return [(s1 * s2, c1 + c2, k1 + k2, r1 + r2, h2)]
    # (t - h1)^k1 exp(-r1 (t - h1)) = sum_j C(k1, j) gap^(k1-j) exp(-r1 gap) (t - h2)^j exp(-r1 (t - h2))
    return [(s1 * s2, c1 + c2 + _log_binomial(k1, j) + (k1 - j) * math.log(gap) - r1 * gap, j + k2, r1 + r2, h2)
            for j in range(k1 + 1)]


def _term_convolution(first: Term, second: Term) -> list[Term]:
    s1, c1, k1, r1, h1 = first
    s2, c2, k2, r2, h2 = second
    shift, sign = h1 + h2, s1 * s2
    if abs(r1 - r2) <= SAME_RATE * max(1.0, r1, r2):
        # integral_0^T (T - v)^k1 v^k2 dv = k1! k2! / (k1 + k2 + 1)! T^(k1 + k2 + 1)
        log_coef = c1 + c2 + math.lgamma(k1 + 1) + math.lgamma(k2 + 1) - math.lgamma(k1 + k2 + 2)
        return [(sign, log_coef, k1 + k2 + 1, r1, shift)]
    # Laplace transforms a k!/(s + r)^(k+1); partial fractions of 1/((s + r1)^m (s + r2)^n)
    m, n = k1 + 1, k2 + 1
    base = c1 + c2 + math.lgamma(m) + math.lgamma(n)
    out: list[Term] = []
    for (mine, theirs, rate, other_rate) in ((m, n, r1, r2), (n, m, r2, r1)):
        difference = other_rate - rate
        for i in range(1, mine + 1):
            power = theirs + mine - i
            term_sign = (-1.0) ** (mine - i) * (math.copysign(1.0, difference) ** power)
            log_coef = base + _log_binomial(theirs + mine - i - 1, mine - i) - power * math.log(abs(difference))
            out.append((sign * term_sign, log_coef - math.lgamma(i), i - 1, rate, shift))
    return out
