"""Architectural linearization: cache misses and page faults from loop-nest footprints (paper 3.2).

Part of perfeq stage 3 (symbolic/): the model's nests (model.py) priced against a cache description.

The rule (the paper's, crude on purpose and replaceable): a loop nest whose per-process data
footprint exceeds a cache misses on every line it touches, each time it runs; a nest that fits
misses only the first time its data is touched (compulsory misses).  The same with physical
memory and pages.  A footprint is the sum of the sizes of the arrays the nest's blocks access, as
the run's allocation and declaration sizes resolve symbolically; accesses are the nest's loads and
stores, assumed to be 8-byte words.

The machine description (cache sizes, line, page, memory) is perfeq.symbolic.machine's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from perfeq.instrument.descriptors import ArrayShape
from perfeq.symbolic.cexpr import TYPE_SIZES, Unresolved, to_sympy
from perfeq.symbolic.machine import WORD, Machine
from perfeq.symbolic.resolve import Resolver, formal_arguments
from perfeq.symbolic.symbols import RANK, P, T, lambdify_numpy

if TYPE_CHECKING:
    from perfeq.symbolic.model import CostModel

ALLOCATIONS = ("malloc", "calloc", "realloc", "aligned_alloc")  # shape kinds whose extent is a byte count


def misses(machine: Machine, model: CostModel, values: dict[str, float], procs: int,
           threads: int = 1) -> dict[str, np.ndarray]:
    """Per-rank l1, l2 (last level) misses and page faults of the model at these values on ``machine``."""
    ranks = np.arange(procs)
    out = {"l1": np.zeros(procs), "l2": np.zeros(procs), "page": np.zeros(procs)}
    args = [float(values[name]) for name in model.parameters] + [procs, threads, ranks]
    for nest in model.nests:
        fns = nest.setdefault("_fns", {})
        vals = {}
        for key in ("footprint", "accesses", "executions"):
            if key not in fns:
                fns[key] = lambdify_numpy(model.arguments, nest[key])
            vals[key] = np.broadcast_to(np.asarray(fns[key](*args), dtype=float), ranks.shape)
        footprint, accesses = vals["footprint"], vals["accesses"]
        for key, capacity, unit in (("l1", machine.l1_bytes, machine.line_bytes),
                                    ("l2", machine.l2_bytes, machine.line_bytes),
                                    ("page", machine.memory_bytes, machine.page_bytes)):
            streaming = accesses * WORD / unit
            compulsory = footprint / unit
            out[key] += np.where(footprint > capacity, streaming, compulsory)
    return out


# ---- loop nests ---------------------------------------------------------------------------------
def nest_items(counter, contexts) -> list[dict[str, Any]]:
    """Outermost loop nests of every context: footprint (bytes), accesses and executions."""
    nests = []
    for cc in contexts:
        unit = cc.unit
        fn = cc.obs.function
        for loop in unit.loops:
            if loop.function != fn or loop.parent is not None or loop.id not in cc.loop_iterations:
                continue
            inside = [b for b in unit.blocks if b.function == fn and _in_nest(unit, b.loop, loop.id)]
            accesses = sum((cc.blocks.get(b.id, 0) * (b.ops["loads"] + b.ops["stores"]) for b in inside),
                           sp.Integer(0))
            arrays = sorted({name for b in inside for name in b.arrays or []})
            allowed = {P, T, RANK, *counter.size_symbols}
            sized = {}  # each array once, however many names it has here (dot(r, r))
            for name in arrays:
                found = _array(counter, cc.obs, unit, fn, name)
                if found is not None and not (found[1].free_symbols - allowed):
                    sized[found[0]] = found[1]
            footprint = sum(sized.values(), sp.Integer(0))
            nests.append({
                "unit": unit.functions[fn].file or unit.data.source, "line": loop.line,
                "function": unit.functions[fn].name,
                "arrays": arrays, "footprint": sp.sympify(footprint), "accesses": sp.sympify(accesses),
                "executions": sp.sympify(cc.loop_entries.get(loop.id, 0)),
            })
    return nests


def _in_nest(unit, loop_id: int | None, root: int) -> bool:
    while loop_id is not None:
        if loop_id == root:
            return True
        loop_id = unit.loops[loop_id].parent
    return False


def _array(counter, ctx, unit, fn: int, name: str, depth: int = 0) -> tuple[tuple, sp.Expr] | None:
    """The array ``name`` names in function ``fn`` of context ``ctx``, following call arguments to
    the caller: ``(where it was declared or allocated, its bytes)``, or None when unknown."""
    if depth > 10:
        return None
    for shape in unit.data.shapes:
        if shape.name != name or shape.function not in (fn, None) or shape.kind == "param":
            continue  # (a parameter's array is the caller's: followed through the call below)
        root = (unit.data.source, shape.id)
        if shape.kind == "call":
            size = _returned_bytes(counter, unit, fn, shape)
            if size is not None:
                return root, size
            continue
        resolver = Resolver(unit, fn, shape.loop, shape.line, counter.param_symbols)
        try:
            if shape.kind in ALLOCATIONS:
                return root, _allocation_bytes(shape, resolver)
            size = sp.Integer(TYPE_SIZES.get(shape.element or "double", WORD))
            for extent in shape.extents:
                size *= to_sympy(extent, resolver)
            return root, sp.sympify(size)
        except (Unresolved, IndexError):
            return None
    params = unit.functions[fn].params
    if name in params and ctx.parent is not None and ctx.site is not None:
        punit = counter.units.get(ctx.parent.unit)
        if punit is None or not 0 <= ctx.site < len(punit.data.calls):  # (-1: gathered polling)
            return None
        call = punit.data.calls[ctx.site]
        index = params.index(name)
        if index < len(call.args):
            arg = call.args[index].strip().lstrip("&")
            if arg.isidentifier():
                return _array(counter, ctx.parent, punit, call.function, arg, depth + 1)
    return None


def _allocation_bytes(shape: ArrayShape, resolver: Resolver) -> sp.Expr:
    """Bytes an allocation asks for: the byte count, or calloc's count times element size."""
    size = to_sympy(shape.extents[0], resolver)
    if shape.kind == "calloc":
        size *= to_sympy(shape.extents[1], resolver)
    return sp.sympify(size)


def _returned_bytes(counter, unit, fn: int, shape: ArrayShape) -> sp.Expr | None:
    """Bytes of ``name = callee(args)`` when the callee (same unit, not recursive) makes exactly one
    allocation, outside any loop, and every ``return`` returns that allocation's variable: its size
    in the callee's parameters, with the call's arguments put in.  Otherwise None (unknown)."""
    callee_name, *args = shape.extents
    callees = [i for i, f in enumerate(unit.functions) if f.name == callee_name]
    if len(callees) != 1:
        return None
    callee = callees[0]
    fdesc = unit.functions[callee]
    allocations = [s for s in unit.data.shapes if s.function == callee and s.kind in ALLOCATIONS]
    if len(allocations) != 1 or fdesc.recursive:
        return None
    inner = allocations[0]
    if inner.loop is not None or not inner.name or fdesc.returned_names != [inner.name]:
        return None
    resolver = Resolver(unit, callee, None, inner.line, counter.param_symbols)
    outer = Resolver(unit, fn, shape.loop, shape.line, counter.param_symbols)
    try:
        size = _allocation_bytes(inner, resolver)
        values = {symbol: to_sympy(arg, outer) for symbol, (_, arg) in  # the parameters the size depends on
                  formal_arguments(callee_name, fdesc.params, args, size.free_symbols).items()}
    except (Unresolved, IndexError):
        return None
    size = size.xreplace(values)
    if any(s.name.startswith(f"{callee_name}__") for s in size.free_symbols):
        return None  # a parameter without its argument
    return size
