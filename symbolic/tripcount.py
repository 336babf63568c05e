"""The number of iterations of a counted loop from its first value, bound and step (paper 3.1).

One owner for the trip-count formulas: the model's loops (:mod:`perfeq.symbolic.counts.trips`) and
the value a variable has after a loop that steps it (:class:`perfeq.symbolic.resolve.Resolver`).
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from perfeq.instrument.descriptors import LoopDescriptor
from perfeq.symbolic.cexpr import Unresolved, to_sympy

GEOMETRIC = ("*=", "/=", "<<=", ">>=")


def counted(loop: LoopDescriptor) -> None:
    """Unresolved unless the loop is counted: a for loop ``var = init; var OP bound; step``, or a
    while loop whose body steps its variable once per iteration (its init is the variable)."""
    if loop.var is None or loop.bound is None or loop.init is None or loop.kind not in ("for", "while"):
        raise Unresolved("not a counted for loop")
    if loop.stride is None:
        raise Unresolved("no recognised increment")


def step_and_count(loop: LoopDescriptor, resolver, first: sp.Expr, bound: sp.Expr,
                   sign_of: Callable[[sp.Expr], int]) -> tuple[sp.Expr | tuple[str, sp.Expr], sp.Expr]:
    """(step, iterations) of a counted loop from ``first`` to ``bound``: the step is the additive
    stride, or ``("*", k)`` / ``("/", k)`` for a loop that multiplies or divides its variable;
    ``resolver`` resolves the stride's names at the loop, ``sign_of`` gives a stride's sign (0:
    unknown)."""
    text = loop.stride
    if text.startswith(GEOMETRIC):
        kind, amount = text[:text.index("=") + 1], text[text.index("=") + 1:]
        factor = to_sympy(amount, resolver)
        if kind in ("<<=", ">>="):
            factor = 2**factor
        if not (factor.is_number and factor > 1):
            raise Unresolved(f"multiplicative step {text}")
        count = geometric_trips(first, bound, loop.op, kind, factor)
        if count is None or count.has(sp.zoo, sp.nan):  # (a first value of 0 never grows)
            raise Unresolved(f"step {text} with condition {loop.op} {loop.bound}")
        return ("*" if kind in ("*=", "<<=") else "/", factor), count
    stride = to_sympy(text, resolver)
    sign = sign_of(stride)
    if not sign:
        raise Unresolved(f"stride {stride} of unknown sign")
    return stride, additive_trips(first, bound, loop.op, stride, sign)


def additive_trips(first: sp.Expr, bound: sp.Expr, op: str, stride: sp.Expr, sign: int) -> sp.Expr:
    """Iterations of ``for (v = first; v OP bound; v += stride)``, ``sign`` the stride's (+1 or -1).

    The one trip-count formula: the distance to the bound over the step, rounded up for a strict
    condition (``<``, ``>``), down plus one for an inclusive one, exact for ``!=``.
    """
    if sign > 0:
        distance, step, strict, inclusive, which = bound - first, stride, "<", "<=", "positive"
    else:
        distance, step, strict, inclusive, which = first - bound, -stride, ">", ">=", "negative"
    if op == strict:
        return sp.ceiling(distance / step) if step != 1 else distance
    if op == inclusive:
        return sp.floor(distance / step) + 1 if step != 1 else distance + 1
    if op == "!=":
        return distance / step
    raise Unresolved(f"condition {op} with a {which} stride")


def geometric_trips(first: sp.Expr, bound: sp.Expr, op: str, kind: str, factor: sp.Expr) -> sp.Expr | None:
    """Iterations of a loop that multiplies (``*=``, ``<<=``) its variable up to a bound, or divides
    (``/=``, ``>>=``) it down to 0 or 1: logarithms of the ratio; None for other conditions."""
    if kind in ("*=", "<<=") and op in ("<", "<="):
        ratio = bound / first
        return sp.ceiling(sp.log(ratio, factor)) if op == "<" else sp.floor(sp.log(ratio, factor)) + 1
    if kind in ("/=", ">>=") and op in (">", ">=", "!=") and bound in (0, 1) and (op, bound) != (">=", 0):
        # down to 1: v > 1 stops at 1 (floor(log first) steps), v >= 1 and v > 0 run at 1 too
        return sp.floor(sp.log(first, factor)) + (1 if (op, bound) in ((">=", 1), (">", 0), ("!=", 0)) else 0)
    return None
