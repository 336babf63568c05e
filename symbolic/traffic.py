"""Memory traffic from the application signature: the lines each reference moves from memory.

Part of perfeq stage 3 (symbolic/), beside the footprint rule (linearize.py).  The count ``mem`` is
what a process moves between the last-level cache and memory, in cache lines, as the layer
conditions of the signature (signature.py) say: a reference whose reuse distance (the smallest of its
candidates: bytes touched between two uses of a line) exceeds the process's share of the last-level
cache brings its line from memory at every access that starts a line, and a store writes it back:

    mem = sum over references of  accesses x bytes moved per access / line x (2 if stored)
                                  where distance > last level / processes sharing it

with the bytes a pattern moves per access (:func:`moved_per_access`: an element at unit stride, the
stride up to a line, a whole line for indirect and large strides).  The share divides the last level
among ``min(P T, shared_by)`` processes and threads (all of the run on one node, at most as many as
the cache serves: docs/machine-description.md).  References reused within the cache count nothing,
unlike the footprint rule's ``l2`` (every access of a nest larger than the cache), which is why a
stencil sweeping a large grid row by row counts its streams once and Gaussian elimination its whole
remaining matrix per step.

:func:`expression` writes the count as sympy (a Piecewise per reference) for the time equation as
printed; :func:`memory_lines` and :func:`block_lines` evaluate it reference by reference with numpy
(one function per distance and per line count, lambdified once per model), which keeps a distance
that cannot be evaluated at some point (nan: from memory there) from spoiling the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from perfeq.symbolic.symbols import P, T, lambdify_numpy

if TYPE_CHECKING:
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import CostModel

ROW = sp.Integer(10**6)  # elements of a row whose length the model does not know (a pointer to rows): far apart


def moved_per_access(pattern: str, element: int, stride, line: float):
    """Bytes one access of a reference brings into the cache: its element at unit stride (and for
    invariant or unknown references), its stride up to a line, a whole line for indirect accesses and
    strides of a line or more.  ``stride`` may be an array (nan: unknown, taken as a line)."""
    if pattern == "indirect":
        return np.full(np.shape(stride), float(line)) if np.ndim(stride) else float(line)
    if pattern == "strided":
        step = np.where(np.isfinite(stride), np.asarray(stride, dtype=float) * element, line)
        return np.minimum(step, line)
    return np.full(np.shape(stride), float(element)) if np.ndim(stride) else float(element)


def rows_apart(value: sp.Expr) -> sp.Expr:
    """``value`` with the rows of unknown length (``row_*`` symbols, signature.py) ROW elements long."""
    rows = {s: ROW for s in value.free_symbols if s.name.startswith("row_")}
    return value.xreplace(rows) if rows else value


def known(value: sp.Expr) -> sp.Expr:
    """A reuse distance made evaluable: rows of unknown length far apart, a complex infinity none."""
    return rows_apart(value).xreplace({sp.zoo: sp.oo})


def distance(ref) -> sp.Expr:
    """The reuse distance of a reference: the smallest of its candidates (the layer conditions, and
    at the latest the next run of its nest); infinite (oo) when none is known."""
    candidates = [known(value) for _, value in ref.reuse]
    candidates = [value for value in candidates if not value.has(sp.nan)]  # unknown: not a reuse
    if not candidates:
        return sp.oo
    return sp.Min(*candidates) if len(candidates) > 1 else candidates[0]


def last_level_share(machine: Machine) -> sp.Expr:
    """Bytes of the last-level cache one process (or thread) of the run has."""
    return sp.Integer(machine.l2_bytes) / sp.Min(P * T, machine.shared_by)


def expression(model: CostModel, machine: Machine) -> sp.Expr:
    """``mem`` of one rank as an expression in the parameters, P, T and rank (for the equation as
    printed; numbers come from :func:`memory_lines`, which evaluates each reference on its own)."""
    return sp.Add(*item_expressions(model, machine).values())


def item_expressions(model: CostModel, machine: Machine) -> dict[int, sp.Expr]:
    """``mem`` of each block of the model that has references (model item index -> expression)."""
    share = last_level_share(machine)
    out: dict[int, sp.Expr] = {}
    for index, lines, reuse in _references(model, machine.line_bytes):
        try:
            term = lines if reuse is sp.oo else sp.Piecewise((0, reuse <= share), (lines, True))
        except (TypeError, ValueError):  # a distance sympy cannot compare: from memory
            term = lines
        out[index] = out.get(index, sp.Integer(0)) + term
    return out


def _references(model: CostModel, line: int) -> list[tuple[int, sp.Expr, sp.Expr]]:
    """Per reference of every block: its item's index, its lines per rank if they all came from
    memory, and its reuse distance (oo: none known, or one sympy cannot compare); built once per
    model and line size."""
    key = ("mem refs", line)
    if key not in model._compiled:
        model._compiled[key] = _build_references(model, line)
    return model._compiled[key]


def _build_references(model: CostModel, line: int) -> list[tuple[int, sp.Expr, sp.Expr]]:
    out = []
    for index, item in enumerate(model.items):
        refs = item.signature.get("refs") if item.kind == "block" else None
        if not refs:
            continue
        accesses = item.signature["executions"] / (T if item.signature.get("parallel") else 1)
        for ref in refs:
            if ref.pattern == "strided" and ref.stride is not None and not ref.stride.has(sp.nan):
                moved = sp.Min(sp.Abs(ref.stride) * ref.element, line)
            else:
                moved = sp.Integer(int(moved_per_access(ref.pattern, ref.element, np.nan, line)))
            lines = accesses * moved / line * (2 if ref.mode in ("write", "update") else 1)
            try:
                reuse = distance(ref)
            except (TypeError, ValueError):  # a distance sympy cannot compare: no reuse known
                reuse = sp.oo
            out.append((index, lines, reuse))
    return out


def memory_lines(machine: Machine, model: CostModel, values: dict[str, float], procs: int,
                 threads: int = 1) -> np.ndarray:
    """``mem`` of every rank of the model at these values on ``machine`` (lines)."""
    ranks = np.arange(procs)
    by_item = _evaluate(machine, model, values, procs, threads, ranks)
    return np.sum(list(by_item.values()), axis=0) if by_item else np.zeros(procs)


def block_lines(machine: Machine, model: CostModel, values: dict[str, float], procs: int, threads: int,
                rank: int) -> dict[int, float]:
    """``mem`` of each block with references on one rank (model item index -> lines)."""
    return {index: float(lines[0]) for index, lines in
            _evaluate(machine, model, values, procs, threads, np.array([rank])).items()}


def _evaluate(machine: Machine, model: CostModel, values: dict[str, float], procs: int, threads: int,
              ranks: np.ndarray) -> dict[int, np.ndarray]:
    """Lines from memory per block on ``ranks``: each reference's lines where its reuse distance,
    evaluated there, exceeds the share of the last level (or is unknown: nan)."""
    key = ("mem", machine.line_bytes)
    if key not in model._compiled:
        refs = _references(model, machine.line_bytes)
        model._compiled[key] = (refs, _lambdified(model, [e for _, lines, reuse in refs for e in (lines, reuse)]))
    refs, functions = model._compiled[key]
    args = [float(values[name]) for name in model.parameters] + [procs, threads, ranks]
    share = machine.l2_bytes / min(procs * threads, machine.shared_by)  # last_level_share, as a number
    out: dict[int, np.ndarray] = {}
    with np.errstate(all="ignore"):
        for k, (index, _, _) in enumerate(refs):
            lines, reuse = (np.broadcast_to(np.asarray(f(*args), dtype=float), ranks.shape)
                            for f in functions[2 * k: 2 * k + 2])
            lines = np.where(np.isfinite(lines), lines, 0.0)
            counted = np.where(np.isnan(reuse) | (reuse > share), lines, 0.0)
            out[index] = out.get(index, 0.0) + counted
    return out


def _lambdified(model: CostModel, exprs: list[sp.Expr]) -> list:
    """Each expression as a numpy function of the model's arguments; one that cannot be printed or
    names other symbols gives nan."""
    unknown = lambda *args: np.nan  # noqa: E731
    out = []
    for expr in exprs:
        value = known(expr)
        try:
            out.append(unknown if value.free_symbols - set(model.arguments) else
                       lambdify_numpy(model.arguments, value))
        except (KeyError, TypeError, ValueError, NameError):
            out.append(unknown)
    return out
