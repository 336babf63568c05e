"""The symbols of perfeq models, from one cached factory (symbolic stage).

``Symbol("N")`` and ``Symbol("N", positive=True, integer=True)`` are different symbols to sympy;
every part of perfeq gets its symbols here so that they always compare equal.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp
from scipy import special

from perfeq.arguments import path_root

if TYPE_CHECKING:
    from perfeq.instrument.descriptors import ParamDescriptor


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
# omp_get_thread_num() in a parallel construct: summed over the team (0 .. T - 1) wherever a count
# depends on it (a team split by hand), never left in a model's expressions
TID = sp.Symbol("_thread", integer=True, nonnegative=True)
# MPI_PROC_NULL, the partner a send or receive at the edge of a grid names (no message): -1, no rank
PROC_NULL = sp.Integer(-1)

LOOP_SYMBOLS: set[sp.Symbol] = set()  # every loop variable symbol handed out


def loop_symbol(unit_key: str, loop_id: int, var: str) -> sp.Symbol:
    """The variable of loop ``loop_id`` of a unit (``unit_key``: "" for the first unit)."""
    symbol = index_symbol(f"{var}_L{loop_id}" if not unit_key else f"{var}_{unit_key}L{loop_id}")
    LOOP_SYMBOLS.add(symbol)
    return symbol


def formal_symbol(function: str, name: str) -> sp.Symbol:
    """A parameter of ``function`` (``name``: ``n``, or a path in it, ``cmd.nx``), as the callee
    sees it; replaced at each call site by the argument (:func:`formal_arguments`)."""
    return sp.Symbol(f"{function}__{name}", integer=True)


def formal_arguments(function: str, params: list[str], args: list[str],
                     symbols: set[sp.Basic]) -> dict[sp.Symbol, tuple[str, str]]:
    """The formal symbols of ``function`` among ``symbols``, each with (its parameter's name, the
    C text of its value at a call with ``args``): ``n`` -> the argument; the path ``cmd.nx`` of a
    struct parameter -> ``(arg).nx`` (``&c`` and ``*p`` name the same fields as ``c`` and ``p``)."""
    prefix = f"{function}__"
    found = {}
    for symbol in symbols:
        name = getattr(symbol, "name", "")
        if not name.startswith(prefix):
            continue
        path = name[len(prefix):]
        root = path_root(path)
        if root not in params or params.index(root) >= len(args):
            continue
        arg = args[params.index(root)]
        found[symbol] = (root, arg if path == root else f"({arg}){path[len(root):]}")
    # in the order of the parameters (substitutions are made one after the other)
    return dict(sorted(found.items(), key=lambda item: (params.index(item[1][0]), item[0].name)))


def parameter_symbol(param: ParamDescriptor) -> sp.Expr:
    """The symbol of a parameter candidate: P, the rank and T for theirs, else its size symbol."""
    source, symbol = param.source, param.symbol
    if source == "mpi_size":
        return P
    if source == "mpi_rank":
        return RANK
    if source == "omp_threads":
        return T
    return size_symbol(symbol)


# ---- process grids ------------------------------------------------------------------------------
def _grid_lo(p: int) -> int:
    """The larger divisor of p not above sqrt(p): the short side of the most nearly square grid."""
    side = int(p**0.5)
    while side > 1 and p % side:
        side -= 1
    return max(side, 1)


class _GridSide(sp.Function):
    """A side of a two-dimensional process grid of P processes (a positive integer): evaluated at
    a whole P by ``side``, numerically (lambdify) through ``_imp_``."""

    nargs = 1
    is_integer = True
    is_positive = True

    @staticmethod
    def side(p: int) -> int:
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._imp_ = staticmethod(np.vectorize(lambda p: float(cls.side(int(p))), otypes=[float]))

    @classmethod
    def eval(cls, p):
        if p.is_Integer and p > 0:
            return sp.Integer(cls.side(int(p)))
        return None


class grid_lo(_GridSide):  # noqa: N801 (the name a model file shows)
    """The short side, of the most nearly square factorization P = a * b with a <= b (what
    MPI_Dims_create and the usual hand-written loops ``for (a = sqrt(P); P % a; a--)`` compute):
    1 at P = 2, 2 at P = 8, 8 at P = 64."""

    side = staticmethod(_grid_lo)


class grid_hi(_GridSide):  # noqa: N801
    """The long side, P / grid_lo(P): 2 at P = 2, 4 at P = 8, 8 at P = 64."""

    side = staticmethod(lambda p: p // _grid_lo(p))


@lru_cache(maxsize=4096)
def _grid3(p: int) -> tuple[int, int, int]:
    """The sides of the three-dimensional grid of p processes MPI_Dims_create(p, 3, dims) gives:
    the factorization p = a * b * c, a >= b >= c, with the least spread a - c, of those the largest
    a (MPICH's choice: 360 is 10 x 6 x 6, not 9 x 8 x 5; checked against it for p = 1 .. 1100)."""
    best = None
    for a in range(1, p + 1):
        if p % a or a * a * a < p:
            continue
        rest = p // a
        for b in range(1, min(a, rest) + 1):
            if rest % b == 0 and rest // b <= b:
                key = (a - rest // b, -a)
                if best is None or key < best[0]:
                    best = (key, (a, b, rest // b))
    return best[1] if best else (1, 1, 1)


class grid3(sp.Function):  # noqa: N801 (the name a model file shows)
    """Side k (0, 1, 2: long to short) of the three-dimensional grid of P processes that
    MPI_Dims_create(P, 3, dims) gives (:func:`_grid3`): 2, 1, 1 at P = 2, 4, 4, 4 at P = 64."""

    nargs = 2
    is_integer = True
    is_positive = True
    _imp_ = staticmethod(np.vectorize(lambda p, k: float(_grid3(int(p))[int(k)]), otypes=[float]))

    @classmethod
    def eval(cls, p, k):
        if p.is_Integer and p > 0 and k.is_Integer and 0 <= k <= 2:
            return sp.Integer(_grid3(int(p))[int(k)])
        return None


GRID_FUNCTIONS = {"grid_lo": grid_lo, "grid_hi": grid_hi, "grid3": grid3}


# ---- numeric evaluation -------------------------------------------------------------------------
class _Broadcasting:
    """numpy's logical_and/or for lambdify's ``logical_and.reduce((a, b))``, which fails when one
    operand is an array over the ranks and another a scalar (an inhomogeneous tuple)."""

    def __init__(self, ufunc):
        self.ufunc = ufunc

    def __call__(self, *args):
        return self.ufunc(*args)

    def reduce(self, operands):
        result = np.asarray(operands[0])
        for operand in operands[1:]:
            result = self.ufunc(result, operand)
        return result


def _harmonic(x):
    """The harmonic number H(x) = digamma(x + 1) + Euler's gamma, for numpy (its printer has none):
    a sum over a loop of a stride that is the outer loop's variable, ``for (x = i; x < n; x += i)``,
    is n H(m) in closed form."""
    return special.digamma(np.asarray(x, dtype=float) + 1) + np.euler_gamma


_NUMPY = [{"logical_and": _Broadcasting(np.logical_and), "logical_or": _Broadcasting(np.logical_or),
           "harmonic": _harmonic}, "numpy"]


def lambdify_numpy(arguments, expr):
    """Cached :func:`_lambdify_numpy` (a fit evaluates the same expression at every rank of every
    run, and lambdify writes and compiles a function each time).

    ``sp.lambdify(arguments, expr)`` for numpy, whose conditions broadcast scalars and arrays; a
    complex infinity (``zoo``, which the printers cannot write) evaluates to nan, so that a branch
    of a Piecewise that holds one evaluates where it is not taken.  The arguments are renamed in the
    generated code (dummify): a size named like a numpy function it calls (a program's ``mod``,
    printed Mod being ``mod(...)``) shadowed it, and every rooted collective fell back to measured.
    An if-then-else of conditions (``ITE``, which sympy makes of ``Eq(Piecewise(...), c)``: NPB MG's
    class letter from an else-if chain compared with ``==``) is written with and, or and not: printed
    as a select, its value was a float that numpy refused as a condition."""
    arguments = tuple(arguments)
    try:
        return _lambdify_cached(arguments, expr)
    except TypeError:  # an unhashable expression (a list of them)
        return _lambdify_numpy(arguments, expr)


@lru_cache(maxsize=4096)
def _lambdify_cached(arguments: tuple, expr):
    return _lambdify_numpy(arguments, expr)


def _lambdify_numpy(arguments, expr):
    if isinstance(expr, sp.Basic) and expr.has(sp.zoo):
        expr = expr.xreplace({sp.zoo: sp.nan})
    if isinstance(expr, sp.Basic) and expr.has(sp.ITE):
        expr = expr.replace(lambda e: isinstance(e, sp.ITE),
                            lambda e: sp.Or(sp.And(e.args[0], e.args[1]), sp.And(sp.Not(e.args[0]), e.args[2])))
    return sp.lambdify(arguments, expr, modules=_NUMPY, dummify=True)
