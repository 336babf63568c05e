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

The expression (a Piecewise per reference) is what the time equation, the sensitivities and the
plots use; :func:`memory_lines` evaluates it per rank.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from perfeq.symbolic.symbols import P, T

if TYPE_CHECKING:
    from perfeq.symbolic.machine import Machine
    from perfeq.symbolic.model import CostModel

ROW = 10**6  # elements of a row whose length the model does not know (a pointer to rows): far apart
NEST = "the next run of its nest"


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


def known(value: sp.Expr) -> sp.Expr:
    """A reuse distance made evaluable: rows of unknown length far apart, a complex infinity none."""
    rows = {s: ROW for s in value.free_symbols if s.name.startswith("row_")}
    value = value.xreplace(rows) if rows else value
    return value.xreplace({sp.zoo: sp.oo})


def distance(ref, rule: str = "layer") -> sp.Expr:
    """The reuse distance of a reference: the smallest candidate (``rule="footprint"``: its nest's
    footprint, the paper's rule, where it has one); infinite (oo) when none is known."""
    candidates = [(what, known(value)) for what, value in ref.reuse]
    candidates = [(what, value) for what, value in candidates if not value.has(sp.nan)]  # unknown: not a reuse
    if rule == "footprint":
        candidates = [c for c in candidates if c[0] == NEST] or candidates
    if not candidates:
        return sp.oo
    return sp.Min(*(value for _, value in candidates)) if len(candidates) > 1 else candidates[0][1]


def last_level_share(machine: Machine) -> sp.Expr:
    """Bytes of the last-level cache one process (or thread) of the run has."""
    return sp.Integer(machine.l2_bytes) / sp.Min(P * T, machine.shared_by)


def expression(model: CostModel, machine: Machine) -> sp.Expr:
    """``mem`` of one rank as an expression in the parameters, P, T and rank."""
    return sp.Add(*item_expressions(model, machine).values())


def item_expressions(model: CostModel, machine: Machine) -> dict[int, sp.Expr]:
    """``mem`` of each block of the model that has references (model item index -> expression)."""
    share = last_level_share(machine)
    line = machine.line_bytes
    out = {}
    for index, item in enumerate(model.items):
        refs = item.signature.get("refs") if item.kind == "block" else None
        if not refs:
            continue
        accesses = item.signature["executions"] / (T if item.signature.get("parallel") else 1)
        terms = []
        for ref in refs:
            if ref.pattern == "strided" and ref.stride is not None:
                moved = sp.Min(sp.Abs(ref.stride) * ref.element, line)
            else:
                moved = sp.Integer(int(moved_per_access(ref.pattern, ref.element, np.nan, line)))
            lines = accesses * moved / line * (2 if ref.mode in ("write", "update") else 1)
            try:
                reuse = distance(ref)
                # a distance that evaluates to nan at some values compares false there: from memory
                terms.append(lines if reuse is sp.oo else sp.Piecewise((0, reuse <= share), (lines, True)))
            except (TypeError, ValueError):  # a distance sympy cannot compare: no reuse known
                terms.append(lines)
        out[index] = sp.Add(*terms)
    return out


def memory_lines(machine: Machine, model: CostModel, values: dict[str, float], procs: int,
                 threads: int = 1) -> np.ndarray:
    """``mem`` of every rank of the model at these values on ``machine`` (lines)."""
    ranks = np.arange(procs)
    return _evaluate(model, ("mem", *_machine_key(machine)), lambda: expression(model, machine),
                     [float(values[name]) for name in model.parameters] + [procs, threads, ranks], ranks.shape)


def block_lines(machine: Machine, model: CostModel, values: dict[str, float], procs: int, threads: int,
                rank: int) -> dict[int, float]:
    """``mem`` of each block with references on one rank (model item index -> lines)."""
    key = ("mem items", *_machine_key(machine))
    if key not in model._compiled:
        model._compiled[key] = item_expressions(model, machine)
    args = [float(values[name]) for name in model.parameters] + [procs, threads, np.array([rank])]
    return {index: float(_evaluate(model, ("mem item", index, *_machine_key(machine)), lambda e=expr: e, args,
                                   (1,))[0])
            for index, expr in model._compiled[key].items()}


def _machine_key(machine: Machine) -> tuple[int, int, int]:
    return machine.l2_bytes, machine.line_bytes, machine.shared_by


def _evaluate(model: CostModel, key: tuple, build, args: list, shape: tuple) -> np.ndarray:
    """The expression ``build()`` lambdified once per model (cached under ``key``) at ``args``; nan -> 0."""
    if key not in model._compiled:
        model._compiled[key] = sp.lambdify(model.arguments, build(), modules="numpy")
    with np.errstate(all="ignore"):
        result = np.asarray(model._compiled[key](*args), dtype=float)
    return np.nan_to_num(np.broadcast_to(result, shape).copy(), nan=0.0)
