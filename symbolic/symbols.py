"""The symbols of perfeq models, from one cached factory (symbolic stage).

``Symbol("N")`` and ``Symbol("N", positive=True, integer=True)`` are different symbols to sympy;
every part of perfeq gets its symbols here so that they always compare equal.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp


@lru_cache(maxsize=None)
def size_symbol(name: str) -> sp.Symbol:
    """A problem-size parameter or the process count: a positive integer."""
    return sp.Symbol(name, positive=True, integer=True)


@lru_cache(maxsize=None)
def index_symbol(name: str) -> sp.Symbol:
    """A loop variable or a rank: a (possibly zero) integer."""
    return sp.Symbol(name, integer=True)


@lru_cache(maxsize=None)
def cost_symbol(name: str) -> sp.Symbol:
    """A machine cost beta (seconds per unit): a positive real."""
    return sp.Symbol(f"beta_{name}", positive=True)


P = size_symbol("P")  # MPI processes
T = size_symbol("T")  # OpenMP threads per process
RANK = sp.Symbol("rank", integer=True, nonnegative=True)
