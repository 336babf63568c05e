"""Closed-form sums of summands that switch form inside the range: ``Min``, ``Max`` and ``?:``
whose condition is linear in the summation variable.

sympy sums each piece of a Piecewise only when no condition holds the summation variable.  The
tile loops of a blocked code run to ``MIN(n, i + B)`` (``hi = lo + B < n ? lo + B : n``), so the sum
over the tiles of ``min(n, i + B) - i`` is left unevaluated, and the loops were fitted.  Here the
range is cut where the condition changes (a half-line of the integers, found from the linear
inequality), each side summed with its own piece, so the result is exact at every size:
``sum_{t=0}^{ceiling(n/B)-1} (min(n, B t + B) - B t) = n``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import sympy as sp

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


@lru_cache(maxsize=4096)
def closed_sum(expr: sp.Expr, limits: tuple, sign=None) -> sp.Expr | None:
    """The exact sum of ``expr`` over ``limits`` = (var, lo, hi), or None when none is found.

    ``sign(e)`` gives +1 or -1 for a slope whose sign sympy's assumptions do not know (a function
    parameter's tile width), 0 for unknown.  Cached: the blocks of one loop body ask for the same sums."""
    try:
        return _sum_or_split(expr, limits, 0, sign)
    except (ValueError, TypeError, NotImplementedError):  # sympy's solvers on what they cannot order
        return None


# the most pieces (the product of the argument counts of the Min, Max and ?: holding the variable)
# a summand may have to be split: folding more into one ?: took sympy minutes to hours (Rodinia
# hotspot's border test and eight chained corner and edge ifs per cell of a chunk: 32 pieces, two
# seconds a sum and no closed form; three traces of hotspot itself did not finish in 30 minutes)
MAX_PIECES = 16


def _split_sum(expr: sp.Expr, limits: tuple, depth: int, sign) -> sp.Expr | None:
    var, lo, hi = limits
    if depth > 4 or _pieces(expr, var) > MAX_PIECES:
        return None
    unfolded = min_max_as_piecewise(expr, var)
    folded = sp.piecewise_fold(unfolded)
    if not isinstance(folded, sp.Piecewise):
        return None
    first, cond, other = _first_piece(folded)
    result = _split_on(first, cond, other, limits, depth, sign)
    if result is None:
        result = _split_one_at_a_time(unfolded, limits, depth, sign)
    return result


def _split_one_at_a_time(expr: sp.Expr, limits: tuple, depth: int, sign) -> sp.Expr | None:
    """The sum of a product of several ?: on the variable, split on one of them at a time: folded
    into one, their conditions are conjunctions no cut is found for (a Stockham FFT stage's
    ``li = l == m ? 1 : 2^(m - l)`` times ``lk = l == 1 ? 1 : 2^(l - 1)``)."""
    var = limits[0]
    switching = [e for e in expr.atoms(sp.Piecewise) if any(c.has(var) for _, c in e.args)]
    if len(switching) < 2:
        return None
    outer = next(e for e in switching if not any(o is not e and o.has(e) for o in switching))
    first, cond, other = _first_piece(outer)
    return _split_on(expr.xreplace({outer: first}), cond, expr.xreplace({outer: other}), limits, depth, sign)


def _first_piece(piecewise: sp.Piecewise) -> tuple[sp.Expr, sp.Basic, sp.Expr]:
    """A ?: as (its first value, that value's condition, the value otherwise)."""
    (first, cond), rest = piecewise.args[0], piecewise.args[1:]
    return first, cond, rest[0].expr if rest[0].cond == sp.true else sp.Piecewise(*rest)


def _split_on(first: sp.Expr, cond: sp.Basic, other: sp.Expr, limits: tuple, depth: int, sign) -> sp.Expr | None:
    """The sum of ``cond ? first : other`` over ``limits``."""
    var, lo, hi = limits
    if var not in cond.free_symbols:
        parts = [_sum_or_split(e, limits, depth, sign) for e in (first, other)]
        return None if None in parts else sp.Piecewise((parts[0], cond), (parts[1], True))
    if isinstance(cond, sp.Or):  # x || y ? b : c is x ? b : (y ? b : c)
        x, y = cond.args[0], sp.Or(*cond.args[1:])
        return _split_on(first, x, sp.Piecewise((first, y), (other, True)), limits, depth + 1, sign)
    if isinstance(cond, sp.Ne) and not isinstance(cond.lhs, sp.Mod) and not isinstance(cond.rhs, sp.Mod):
        equal = sp.Eq(cond.lhs, cond.rhs)  # x != e ? b : c is x == e ? c : b (LLNL mpi_heat2D's ix != nx - 1)
        if isinstance(equal, sp.Eq):
            return _split_on(other, equal, first, limits, depth + 1, sign)
    point = _scaled_point(cond, var)
    if point is not None:  # 2 t + 1 == m: the sum of `other`, and first - other where t hits it
        whole = _sum_or_split(other, limits, depth, sign)
        if whole is None:
            return None
        hit = sp.And(sp.Eq(point, sp.floor(point)), point >= lo, point <= hi)
        return whole + sp.Piecewise((first.subs(var, point) - other.subs(var, point), hit), (0, True))
    interval = _interval(cond, var, sign)
    if interval is not None:  # i == 0, i == n - 1, lo <= i && i < hi: [a, b], the rest on either side
        a, b = interval
        cut_lo, cut_hi = _clamp(a - 1, lo - 1, hi), _clamp(b, lo - 1, hi)
        pieces = ((other, lo, cut_lo), (first, cut_lo + 1, sp.Max(cut_hi, cut_lo)),
                  (other, sp.Max(cut_hi, cut_lo) + 1, hi))
        parts = [_sum_or_split(e, (var, p, q), depth, sign) for e, p, q in pieces]
        return None if None in parts else sp.Add(*parts)
    counted = _residues(cond, var, first, other, limits)
    if counted is not None:
        return counted
    half = _half_line(cond, var, sign)
    if half is None:
        return None
    side, edge = half
    if side == "upper":  # cond holds for var <= edge: [lo, cut] with `first`, (cut, hi] with `other`
        cut = _clamp(edge, lo - 1, hi)
        pieces = ((first, lo, cut), (other, cut + 1, hi))
    else:  # cond holds for var >= edge
        cut = _clamp(edge - 1, lo - 1, hi)
        pieces = ((other, lo, cut), (first, cut + 1, hi))
    parts = [_sum_or_split(e, (var, a, b), depth, sign) for e, a, b in pieces]
    return None if None in parts else parts[0] + parts[1]


def _pieces(expr: sp.Expr, var: sp.Symbol) -> int:
    """At most how many pieces ``expr`` folds into over ``var``: the product of the argument counts
    of its Min, Max and Piecewise that hold ``var``."""
    return math.prod(len(e.args) for e in expr.atoms(sp.Min, sp.Max, sp.Piecewise) if e.has(var))


def min_max_as_piecewise(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``expr`` with each Min and Max that holds ``var`` written as the ?: it is."""
    return expr.replace(lambda e: isinstance(e, (sp.Min, sp.Max)) and e.has(var),
                        lambda e: e.rewrite(sp.Piecewise))


def _sum_or_split(expr: sp.Expr, limits: tuple, depth: int, sign) -> sp.Expr | None:
    var = limits[0]
    if _switches(expr, var):  # sympy would try for long (hypergeometric terms) and fail
        return _split_sum(expr, limits, depth + 1, sign)
    result = _polynomial_sum(expr, limits)
    if result is None:
        result = sp.summation(expr, limits)
    if not result.has(sp.Sum):
        return result
    return _split_sum(expr, limits, depth + 1, sign)


def _switches(expr: sp.Expr, var: sp.Symbol) -> bool:
    """A Min, Max or ?: of ``expr`` depends on ``var``."""
    return any(e.has(var) for e in expr.atoms(sp.Min, sp.Max, sp.Piecewise))


def _polynomial_sum(expr: sp.Expr, limits: tuple) -> sp.Expr | None:
    """The sum of a polynomial in the variable, term by term (Faulhaber's sums), whatever its
    coefficients hold (floors of the sizes): sympy's general summation can take seconds on them."""
    var, lo, hi = limits
    if not expr.has(var):  # (a Poly of a nested fraction of the sizes expands it: Rodinia hotspot did not end)
        return expr * (hi - lo + 1)
    try:
        poly = sp.Poly(expr, var)
    except sp.PolynomialError:
        return None
    if any(c.has(var) for c in poly.coeffs()):
        return None
    return sp.Add(*[c * sp.summation(var**k, (var, lo, hi)) for (k,), c in poly.terms()])


def _half_line(cond: sp.Basic, var: sp.Symbol, sign) -> tuple[str, sp.Expr] | None:
    """The integers ``var`` where ``cond`` holds: ("upper", m) for var <= m, ("lower", m) for
    var >= m; None unless ``cond`` is one inequality linear in ``var`` with a coefficient of known sign."""
    if not isinstance(cond, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
        return None
    diff = sp.expand(cond.lhs - cond.rhs)  # diff OP 0
    slope = diff.coeff(var)
    if slope == 0 or slope.has(var) or sp.expand(diff - slope * var).has(var):
        return None
    op = cond.rel_op
    direction = 1 if slope.is_positive else -1 if slope.is_negative else sign(slope) if sign else 0
    if direction < 0:
        op = _FLIP[op]
    elif direction == 0:
        return None
    x = -(diff - slope * var) / slope  # var OP x
    return {"<": ("upper", sp.ceiling(x) - 1), "<=": ("upper", sp.floor(x)),
            ">": ("lower", sp.floor(x) + 1), ">=": ("lower", sp.ceiling(x))}[op]


def _interval(cond: sp.Basic, var: sp.Symbol, sign) -> tuple[sp.Expr, sp.Expr] | None:
    """The integers ``var`` where ``cond`` holds as [a, b]: ``var == e`` (``var + c == e`` ...), or
    two inequalities bounding it from both sides; None otherwise."""
    if isinstance(cond, sp.Eq):
        block = _block_owner(cond, var)
        if block is not None:
            return block
        found = _equality_point(cond, var)
        if found is None or found[0] not in (1, -1):
            return None
        point = found[1]
        return (point, point) if point.is_integer is not False else None
    if isinstance(cond, sp.And) and len(cond.args) == 2:
        halves = [_half_line(c, var, sign) for c in cond.args]
        if None in halves or {h[0] for h in halves} != {"upper", "lower"}:
            return None
        edges = dict(halves)
        return edges["lower"], edges["upper"]
    return None


def _scaled_point(cond: sp.Basic, var: sp.Symbol) -> sp.Expr | None:
    """The value of ``var`` where ``cond``, ``k var + e == 0`` with a rational k, holds when that
    value is not known to be whole: -e / k, which a whole ``var`` meets only when it is (a stage
    loop ``for (l = 1; l <= m; l += 2)``, counted as l = 2 t + 1, meets ``l == m`` only for odd m,
    and sympy writes 2 t + 1 == c + 1 as t == c / 2); None for any other condition."""
    found = _equality_point(cond, var) if isinstance(cond, sp.Eq) else None
    return None if found is None or found[1].is_integer else found[1]


def _equality_point(cond: sp.Eq, var: sp.Symbol) -> tuple[sp.Expr, sp.Expr] | None:
    """(k, -e / k) of an equality ``k var + e == 0`` with a rational k other than 0 and e free of
    ``var``; None for any other equality."""
    diff = sp.expand(cond.lhs - cond.rhs)
    slope = diff.coeff(var)
    if not slope.is_Rational or slope == 0 or sp.expand(diff - slope * var).has(var):
        return None
    return slope, -(diff - slope * var) / slope


def _block_owner(cond: sp.Eq, var: sp.Symbol) -> tuple[sp.Expr, sp.Expr] | None:
    """``floor((var + a) / m) == c`` (the owner of ``var`` in blocks of m, ``k / nb == mycol``), m a
    whole number not known to be negative and a, m, c free of ``var``: var in [c m - a, c m + m - a - 1]."""
    for side, c in ((cond.lhs, cond.rhs), (cond.rhs, cond.lhs)):
        if not isinstance(side, sp.floor) or c.has(var) or c.is_integer is False:
            continue
        arg = sp.expand(side.args[0])
        slope = arg.coeff(var)
        if slope == 0 or slope.has(var) or sp.expand(arg - slope * var).has(var):
            continue
        m = sp.simplify(1 / slope)
        if m.is_integer is False or m.is_negative or (m.is_integer is None and not isinstance(m, sp.floor)):
            continue
        a = sp.expand((arg - slope * var) * m)
        return c * m - a, c * m + m - a - 1
    return None


def _residues(cond: sp.Basic, var: sp.Symbol, first: sp.Expr, other: sp.Expr, limits: tuple) -> sp.Expr | None:
    """``var % m == r`` (or ``!=``) with a constant m > 0 and constant pieces: how many of the
    integers in the range have that residue, times ``first``, the rest times ``other``."""
    if not isinstance(cond, (sp.Eq, sp.Ne)) or first.has(var) or other.has(var):
        return None
    mod, r = (cond.lhs, cond.rhs) if isinstance(cond.lhs, sp.Mod) else (cond.rhs, cond.lhs)
    if not isinstance(mod, sp.Mod) or mod.args[0] != var or not mod.args[1].is_Integer or mod.args[1] <= 0 \
            or not r.is_Integer or not 0 <= r < mod.args[1]:
        return None
    _, lo, hi = limits
    m = mod.args[1]
    size = sp.Max(hi - lo + 1, 0)
    hits = sp.Max(sp.floor((hi - r) / m) - sp.floor((lo - 1 - r) / m), 0)
    if isinstance(cond, sp.Ne):
        hits = size - hits
    return first * hits + other * (size - hits)


def _clamp(value: sp.Expr, low: sp.Expr, high: sp.Expr) -> sp.Expr:
    """``value`` held to [low, high], the Min and Max left out where floor <= ceiling proves them idle."""
    if _nonnegative(value - low):
        bounded = value
    elif _nonnegative(low - value):
        bounded = low
    else:
        bounded = sp.Max(value, low)
    if _nonnegative(high - bounded):
        return bounded
    if _nonnegative(bounded - high):
        return high
    return sp.Min(bounded, high)


def _nonnegative(expr: sp.Expr) -> bool:
    """Provably >= 0: by sympy's assumptions, else with each floor(x) and ceiling(x) replaced by
    the end of [x - 1, x] or [x, x + 1] that makes the expression least."""
    expr = sp.expand(expr)
    if expr.is_nonnegative:
        return True
    terms = sp.Add.make_args(expr)
    lower = 0
    for term in terms:
        coeff, rest = term.as_coeff_Mul()
        if isinstance(rest, (sp.floor, sp.ceiling)):
            x = rest.args[0]
            low, high = (x - 1, x) if isinstance(rest, sp.floor) else (x, x + 1)
            lower += coeff * (low if coeff > 0 else high)
        else:
            lower += term
    lower = sp.expand(lower)
    return bool(lower.is_nonnegative)
