"""The application signature: each block's memory references by access pattern and reuse (symbolic stage).

Part of perfeq stage 3 (symbolic/), after the counts (counts/) and beside the nests (linearize.py):
the "application signature" of Snavely et al. (2002) from the source instead of an address trace.
For every block of every context, each array reference the instrumenter recorded
(:func:`perfeq.instrument.collect.walk.references`) is

* **classified** against the enclosing loops' variables (the subscripts as sympy, flattened with
  the array's extents when it is declared with them): ``invariant`` in the innermost loop, ``unit``
  stride, ``strided`` (a constant or symbolic stride above one element, or the innermost variable in
  a dimension that is not the last), ``indirect`` (the subscript reads another array or data the
  model cannot express), ``unknown`` (``*p``: no offset written);
* given its **reuse distance**, the bytes the process touches between two uses of the same cache
  line, as sympy in the model's parameters and P, after Kerncraft's layer conditions (Hammer et al.):
  a reference invariant in an enclosing loop is reused one iteration of that loop later; a
  reference another reference of the same array leads by a constant offset (``u[c - w]`` after
  ``u[c + w]``) reuses its lines that many iterations of the loop whose step covers the offset
  later; in every case the distance is the iterations times the bytes one iteration of that loop
  touches (every array group of its body, counted by whole lines where an access jumps lines);
  and every reference is reused at the latest when its nest runs again (the nest's footprint).

The convolution (perfeq.fitting.convolution) evaluates the distances at (N, P) and assigns each
reference to the cache level that holds them; the paper's coarser rule (a nest whose footprint
exceeds a cache misses on every line, linearize.py) stays available there.  Stored in the model
file (docs/model.md, ``signature``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp

from perfeq.symbolic.cexpr import TYPE_SIZES, Unresolved, to_sympy
from perfeq.symbolic.linearize import _array, _in_nest
from perfeq.symbolic.machine import WORD
from perfeq.symbolic.resolve import LOOP_SYMBOLS, Resolver, formal_arguments, loop_symbol
from perfeq.symbolic.symbols import RANK, P, T, size_symbol

LINE = 64  # bytes per cache line assumed when the signature is built (the machine's is used to price)
NEST = "the next run of its nest"  # the reuse every reference has at the latest


@dataclass
class Reference:
    """One array reference of a block in one context, with its class and reuse distances."""

    array: str
    index: list[str] | None
    mode: str  # read, write, update
    line: int
    element: int  # bytes
    pattern: str
    stride: sp.Expr | None  # elements per iteration of the innermost loop (None: not affine)
    reuse: list[tuple[str, sp.Expr]]  # (what, bytes between two uses of a line): the candidates

    def to_dict(self) -> dict[str, Any]:
        return {"array": self.array, "index": self.index, "mode": self.mode, "line": self.line,
                "element": self.element, "pattern": self.pattern,
                "stride": None if self.stride is None else _expr(self.stride),
                "reuse": [{"what": what, "bytes": _expr(value)} for what, value in self.reuse]}


def _expr(value: sp.Expr) -> dict[str, str]:
    return {"srepr": sp.srepr(value), "text": str(value)}


class ContextSignature:
    """The references of one context's blocks (its loops' trips and volumes computed once)."""

    def __init__(self, counter, cc):
        self.counter = counter
        self.cc = cc
        self.unit = cc.unit
        self.fn = cc.obs.function
        names, node = [], cc.obs
        while node is not None:
            unit = counter.units.get(node.unit)
            names.append(unit.functions[node.function].name if unit else "?")
            node = node.parent
        self.context = " > ".join(reversed(names))
        self._volumes: dict[int, sp.Expr] = {}
        self._parsed: dict[tuple, tuple] = {}
        self._groups: dict[tuple, dict] = {}

    # ---- one block ------------------------------------------------------------------------------
    def references(self, block) -> list[Reference]:
        chain = self.unit.loop_chain(block.loop)  # innermost first
        parsed = [self._parse(block, ref, chain) for ref in block.refs]
        out = []
        for ref, (flat, element) in zip(block.refs, parsed, strict=True):
            pattern, stride = self._classify(ref, flat, chain)
            reuse = self._reuse(block, ref, flat, element, pattern, chain, parsed)
            if stride is not None:
                stride = self._in_model_symbols(stride)  # None: a stride the model cannot express
            out.append(Reference(array=ref["array"], index=ref["index"], mode=ref["mode"], line=ref["line"],
                                 element=element, pattern=pattern, stride=stride, reuse=reuse))
        return out

    def _parse(self, block, ref: dict, chain) -> tuple[sp.Expr | None, int]:
        """The reference's flat element offset (sympy in loop symbols and parameters; None when it
        cannot be expressed) and its element size."""
        key = (block.id, ref["array"], tuple(ref["index"] or ()), ref["line"])
        if key in self._parsed:
            return self._parsed[key]
        shape = self._shape(ref["array"])
        element = TYPE_SIZES.get((shape.element or "") if shape else "", WORD)
        flat = None
        if ref["index"] is not None:
            resolver = Resolver(self.unit, self.fn, block.loop, ref["line"], self.counter.param_symbols)
            try:
                subscripts = [to_sympy(text, resolver) for text in ref["index"]]
                flat = self._flatten(ref["array"], subscripts, shape, resolver)
            except (Unresolved, TypeError, ValueError):
                flat = None
        self._parsed[key] = (flat, element)
        return flat, element

    def _shape(self, name: str):
        found = [s for s in self.unit.data.shapes if s.name == name and s.function in (self.fn, None)]
        return found[0] if found else None

    def _flatten(self, array: str, subscripts: list[sp.Expr], shape, resolver) -> sp.Expr:
        """``a[i][j]`` of ``double a[X][Y]`` -> i*Y + j; of a pointer to rows (``double **a``) or an
        array whose extents are unknown, rows of an unknown length R (a positive symbol): i*R + j."""
        if len(subscripts) == 1:
            return subscripts[0]
        extents: list[sp.Expr] = []
        if shape is not None and shape.kind in ("fixed", "vla", "param") and shape.ndims == len(subscripts):
            try:
                extents = [to_sympy(text, resolver) for text in shape.extents[1:]]
            except Unresolved:
                extents = []
        if len(extents) != len(subscripts) - 1:
            extents = [sp.Symbol(f"row_{array}_{d}", positive=True, integer=True)
                       for d in range(1, len(subscripts))]
        flat = sp.Integer(0)
        for d, subscript in enumerate(subscripts):
            flat += subscript * sp.Mul(*extents[d:])
        return sp.expand(flat)

    def _classify(self, ref: dict, flat: sp.Expr | None, chain) -> tuple[str, sp.Expr | None]:
        if ref["index"] is None:
            return "unknown", None
        if flat is None or (flat.free_symbols & LOOP_SYMBOLS and not _affine(flat, tuple(_loop_vars(self.unit, chain)))):
            return "indirect", None
        if not chain:
            return "invariant", sp.Integer(0)
        var = _var(self.unit, chain[0])
        stride = sp.expand(flat.subs(var, var + 1) - flat)
        if stride == 0:
            return "invariant", stride
        if stride in (1, -1):
            return "unit", sp.Integer(1)
        return "strided", sp.Abs(stride)

    # ---- reuse ----------------------------------------------------------------------------------
    def _reuse(self, block, ref, flat, element, pattern, chain, parsed) -> list[tuple[str, sp.Expr]]:
        found: list[tuple[str, sp.Expr]] = []
        if pattern == "invariant":
            found.append(("invariant in the innermost loop", sp.Integer(0)))
        elif flat is not None and chain:
            loops = _loop_vars(self.unit, chain)
            for depth, loop in enumerate(chain[1:], start=1):  # temporal or spatial reuse across an outer loop
                coefficient = sp.expand(flat.subs(loops[depth], loops[depth] + 1) - flat)
                inner = sp.expand(flat.subs(loops[0], loops[0] + 1) - flat)
                if coefficient == 0 or (_small(coefficient, element) and not _small(inner, element)):
                    volume = self._volume(loop)
                    if volume is not None:
                        found.append((f"one iteration of the loop at line {loop.line}", volume))
                    break
            group = self._group(block, ref, flat, element, chain, parsed)
            if group is not None:
                found.append(group)
        if pattern == "indirect":
            size = self._bytes(ref["array"])
            if size is not None:
                found.append((f"all of {ref['array']}", size))
        nest = self._nest_footprint(block, chain)
        if nest is not None:
            found.append((NEST, nest))
        return [(what, self._in_model_symbols(value)) for what, value in found
                if self._in_model_symbols(value) is not None]

    def _group(self, block, ref, flat, element, chain, parsed) -> tuple[str, sp.Expr] | None:
        """Reuse of the lines another reference of the same array (same block) touched before, as
        Kerncraft's layer conditions count it: the leader is ``offset`` elements ahead, i.e. offset /
        step iterations of the innermost loop in which the reference moves (a number, or symbolic:
        ``u[c + w]`` leads ``u[c - 1]`` by w + 1 iterations), each touching that loop's bytes per
        iteration.  The closest leader counts.

        Only references whose offsets have the same terms in the loop variables can lead (a
        constant or loop-invariant distance apart), and those move alike: one step, one loop, one
        volume per group (:meth:`_leader_groups`, once per block; NPB BT's blocks hold a hundred
        references to one array, and comparing every pair in sympy took minutes)."""
        loops = tuple(_loop_vars(self.unit, chain))
        mine = next(i for i, r in enumerate(block.refs) if r is ref)
        members = self._leader_groups(block, parsed, loops).get((ref["array"], _loop_part(flat, loops)), ())
        free = _free_part(flat, loops)
        own = _number(free)
        for position, other_free, number in members:  # the same element, touched earlier in the iteration
            if position < mine and (number == own if number is not None and own is not None
                                    else _difference(other_free, free) == 0):
                other = block.refs[position]
                return f"the element of {other['array']}[{', '.join(other['index'])}] (line {other['line']})", sp.Integer(0)
        steps = _steps(flat, loops)
        depth = next((d for d, step in enumerate(steps) if step != 0), None)
        if depth is None:
            return None
        step = steps[depth]
        volume = self._volume(chain[depth])
        if volume is None:
            return None
        per_step = _number(step)
        best: tuple[Any, sp.Expr, int] | None = None  # (distance in volumes, ratio, position)
        for position, other_free, number in members:
            if position == mine:
                continue
            if number is not None and own is not None and per_step is not None:
                exact = (number - own) / per_step
                if exact <= 0:
                    continue
                ratio, key = sp.Rational(exact.numerator, exact.denominator), math.ceil(exact)
            else:
                offset = _difference(other_free, free)
                if offset == 0:
                    continue
                ratio = _ratio(offset, step)
                if not _positive(ratio):
                    continue
                key = _at_large(sp.ceiling(ratio) if ratio.is_number else ratio)
            # the first leader counts until a nearer one is found (distances compared with every
            # symbol at 1000; all of them are this loop's volume times the key)
            if best is None or (key is not None and best[0] is not None and key < best[0]):
                best = (key, ratio, position)
        if best is None:
            return None
        _, ratio, position = best
        other = block.refs[position]
        shown = self._in_model_symbols(ratio)
        text = (f"{ratio if shown is None else shown} iteration(s) of the loop at line {chain[depth].line} after "
                f"{other['array']}[{', '.join(other['index'])}]")
        return text, (sp.ceiling(ratio) if ratio.is_number else ratio) * volume

    def _leader_groups(self, block, parsed, loops) -> dict[tuple, list[tuple[int, sp.Expr, Fraction | None]]]:
        """The block's references by (array, the terms of their offset in the loop variables), each
        with its position and the rest of its offset (also as a fraction when it is a number)."""
        key = (block.id, loops)
        if key not in self._groups:
            groups: dict[tuple, list] = {}
            for position, (other, (other_flat, _)) in enumerate(zip(block.refs, parsed, strict=True)):
                if other_flat is not None:
                    free = _free_part(other_flat, loops)
                    groups.setdefault((other["array"], _loop_part(other_flat, loops)), []).append(
                        (position, free, _number(free)))
            self._groups[key] = groups
        return self._groups[key]

    def _volume(self, loop) -> sp.Expr | None:
        """Bytes one iteration of ``loop`` touches: over its body's blocks, each (array, loop
        variables of its subscript) group once, its elements over the inner loops it varies in,
        whole lines where its innermost step jumps lines."""
        if loop.id in self._volumes:
            return self._volumes[loop.id]
        groups: dict[tuple, sp.Expr] = {}
        for block in self.unit.blocks:
            if block.function != self.fn or not block.refs or not _in_nest(self.unit, block.loop, loop.id):
                continue
            chain = self.unit.loop_chain(block.loop)
            inner = chain[:[c.id for c in chain].index(loop.id)]  # the loops inside ``loop``
            for ref in block.refs:
                flat, element = self._parse(block, ref, chain)
                if flat is None:
                    key = (ref["array"], "data", block.id)
                    groups[key] = groups.get(key, 0) + element * self._iterations(inner)
                    continue
                varying = [c for c in inner if _var(self.unit, c) in flat.free_symbols]
                key = (ref["array"], tuple(c.id for c in varying))
                size = sp.Integer(element)
                if varying:
                    step = sp.expand(flat.subs(_var(self.unit, varying[0]), _var(self.unit, varying[0]) + 1) - flat)
                    size = sp.Integer(element if _small(step, element) else LINE)
                groups[key] = size * self._iterations(varying)
        volume = sp.Add(*groups.values()) if groups else None
        self._volumes[loop.id] = volume
        return volume

    def _iterations(self, loops) -> sp.Expr:
        """The product of the loops' mean trips per entry (1 for none)."""
        out = sp.Integer(1)
        for loop in loops:
            entries = self.cc.loop_entries.get(loop.id)
            iterations = self.cc.loop_iterations.get(loop.id)
            if entries is None or iterations is None or entries == 0:
                continue
            out *= iterations / entries
        return out

    def _nest_footprint(self, block, chain) -> sp.Expr | None:
        """Bytes of every array the block's outermost nest touches (sizes as linearize.py finds them)."""
        if not chain:
            return None
        root = chain[-1]
        names = sorted({r["array"] for b in self.unit.blocks if b.function == self.fn
                        and _in_nest(self.unit, b.loop, root.id) for r in b.refs})
        sized = {}
        for name in names:
            found = _array(self.counter, self.cc.obs, self.unit, self.fn, name)
            if found is not None:
                sized[found[0]] = found[1]
        if sized:
            return sp.Add(*sized.values())
        volume = self._volume(root)  # sizes unknown: what one run of the nest touches
        return None if volume is None else volume * self._iterations([root])

    def _bytes(self, name: str) -> sp.Expr | None:
        found = _array(self.counter, self.cc.obs, self.unit, self.fn, name)
        return None if found is None else found[1]

    def _in_model_symbols(self, value: sp.Expr) -> sp.Expr | None:
        """``value`` with the function's parameters replaced by the call sites' arguments, up the
        context's path; None when a symbol other than the model's is left."""
        ctx, unit = self.cc.obs, self.unit
        for _ in range(32):
            prefix = f"{unit.functions[ctx.function].name}__"
            if not any(getattr(s, "name", "").startswith(prefix) for s in value.free_symbols):
                break
            parent = ctx.parent
            punit = self.counter.units.get(parent.unit) if parent is not None else None
            if punit is None or ctx.site is None or not 0 <= ctx.site < len(punit.data.calls):
                return None
            call = punit.data.calls[ctx.site]
            callee = unit.functions[ctx.function]
            resolver = Resolver(punit, call.function, call.loop, call.line, self.counter.param_symbols)
            try:
                subs = {symbol: to_sympy(arg, resolver) for symbol, (_, arg) in
                        formal_arguments(callee.name, callee.params, call.args, value.free_symbols).items()}
            except Unresolved:
                return None
            value = value.subs(subs)
            ctx, unit = parent, punit
        allowed = {P, T, RANK, *(size_symbol(s.name) for s in self.counter.size_symbols)}
        extra = {s for s in value.free_symbols if s not in allowed and not s.name.startswith("row_")}
        return None if extra else sp.sympify(value)


def _var(unit, loop) -> sp.Symbol:
    return loop_symbol(unit.key, loop.id, loop.var or "_")


def _loop_vars(unit, chain) -> list[sp.Symbol]:
    return [_var(unit, loop) for loop in chain]


@lru_cache(maxsize=65536)
def _affine(flat: sp.Expr, loops: tuple[sp.Symbol, ...]) -> bool:
    """Whether the offset is a polynomial of degree at most one in the loop variables."""
    try:
        poly = sp.Poly(flat, *loops) if loops else None
    except sp.PolynomialError:
        return False
    if poly is None:
        return not (flat.free_symbols & LOOP_SYMBOLS)
    if poly.total_degree() > 1:
        return False
    return not any(s in LOOP_SYMBOLS for c in poly.coeffs() for s in c.free_symbols)


def _small(step: sp.Expr, element: int) -> bool:
    """Whether consecutive accesses ``step`` elements apart share a cache line (a number below the line)."""
    return bool(step.is_number and abs(step) * element < LINE)


@lru_cache(maxsize=65536)
def _split(flat: sp.Expr, loops: tuple) -> tuple[sp.Expr, sp.Expr]:
    """An expanded offset as (its terms in the loop variables, the rest): two references can be a
    constant or loop-invariant distance apart only when their first parts are equal."""
    looped, rest = [], []
    for term in sp.Add.make_args(sp.expand(flat)):
        (looped if term.free_symbols & set(loops) else rest).append(term)
    return sp.Add(*looped), sp.Add(*rest)


def _loop_part(flat: sp.Expr, loops: tuple) -> sp.Expr:
    return _split(flat, loops)[0]


def _free_part(flat: sp.Expr, loops: tuple) -> sp.Expr:
    return _split(flat, loops)[1]


def _number(value: sp.Expr) -> Fraction | None:
    """A rational number as an exact fraction (cheap arithmetic); None for anything else."""
    return Fraction(int(value.p), int(value.q)) if value.is_Rational else None


@lru_cache(maxsize=65536)
def _difference(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    return a - b if a.is_number and b.is_number else sp.expand(a - b)


@lru_cache(maxsize=65536)
def _steps(flat: sp.Expr, loops: tuple) -> tuple[sp.Expr, ...]:
    """How far the offset moves per iteration of each loop (innermost first)."""
    return tuple(sp.expand(flat.subs(var, var + 1) - flat) for var in loops)


@lru_cache(maxsize=65536)
def _ratio(offset: sp.Expr, step: sp.Expr) -> sp.Expr:
    return offset / step if offset.is_number and step.is_number else sp.cancel(offset / step)


@lru_cache(maxsize=65536)
def _at_large(value: sp.Expr) -> float | None:
    """``value`` with every symbol at 1000 (sizes are large), for comparing distances; None when it
    does not evaluate."""
    if value.is_number:
        return float(value)
    try:
        return float(value.subs({s: 1000 for s in value.free_symbols}))
    except (TypeError, ValueError):
        return None


def _positive(value: sp.Expr) -> bool:
    """Whether ``value`` is positive (symbolic ones at every symbol = 1000: sizes are large)."""
    found = _at_large(value)
    return found is not None and found > 0


def signature_to_dict(signature: dict) -> dict:
    """A model item's signature as stored in the model file (expressions as srepr and text)."""
    out = dict(signature)
    for key in ("executions", "calls"):
        if key in out:
            out[key] = _expr(out[key])
    if "refs" in out:
        out["refs"] = [r.to_dict() for r in out["refs"]]
    return out


def signature_from_dict(data: dict, expr) -> dict:
    """A model item's signature read back (``expr`` turns a stored expression into sympy)."""
    out = dict(data)
    for key in ("executions", "calls"):
        if key in out:
            out[key] = expr(out[key])
    if "refs" in out:
        out["refs"] = [Reference(array=r["array"], index=r["index"], mode=r["mode"], line=r["line"],
                                 element=r["element"], pattern=r["pattern"],
                                 stride=None if r["stride"] is None else expr(r["stride"]),
                                 reuse=[(c["what"], expr(c["bytes"])) for c in r["reuse"]]) for r in out["refs"]]
    return out
