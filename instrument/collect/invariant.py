"""Struct member reads a loop does not change: the compiler reads them once, before the loop
(stage 1, instrument/collect).

``s->atoms->r[i][m]`` in a loop over ``i`` is one load at -O2, not three: ``s`` is not assigned in
the loop, and nothing the loop stores can be the pointer fields ``atoms`` or ``r`` (C's type-based
aliasing rule: a store of a ``double`` does not change a pointer), so loop-invariant code motion reads
``s->atoms->r`` once at the loop's entry.  Counting those reads on every iteration made struct-heavy
codes (CoMD's pair loop: three loads per member access) look three times as memory-bound as they
are.  :class:`LoopMemory` holds what a loop may change; :meth:`LoopMemory.invariant` decides whether a
member access (``p->f``, ``v.f``, chains of them) has one value throughout the loop.

Conservative where the compiler must be: any call other than a math function the compiler knows
(it may write anything), a store of an integer, ``char`` or whole struct (a ``char`` store may alias
any object; integers are not told apart from characters here), a store of the same kind (pointer,
floating) as the member, a store to a member of that name, or an assignment, declaration, increment
or address-of of a variable the access starts from, all keep the read in the loop.  Element reads
(``a[k]`` with ``k`` invariant) are not moved: a store of the same type may alias them, and the
compiler needs versioning (-O3) to move those.
"""

from __future__ import annotations

from pycparser import c_ast

from perfeq.instrument.collect.walk import INCREMENTS, find
from perfeq.instrument.opcount import CType, OpCounter

# functions the compiler knows write no memory (C99 <math.h>, <stdlib.h> abs): they do not stop it
PURE = frozenset(
    name + suffix
    for name in ("sqrt", "cbrt", "fabs", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sin",
                 "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "floor", "ceil", "round",
                 "trunc", "fmin", "fmax", "fmod", "hypot", "copysign", "erf", "erfc")
    for suffix in ("", "f", "l")
) | {"abs", "labs", "llabs"}


def kind(typ: CType) -> str:
    """What a store of this type may alias: 'pointer', 'floating', or 'any' (integers, characters,
    whole structs)."""
    if typ.depth:
        return "pointer"
    if typ.floating:
        return "floating"
    return "any"


class LoopMemory:
    """What one loop (its header and body) may change: variables, member names, kinds of stores."""

    def __init__(self, loop: c_ast.Node, typer: OpCounter, globals_: object):
        self.typer = typer
        self.globals = globals_  # the unit's global scope: a global is memory a store may alias
        self.assigned: set[str] = set()
        self.fields: set[str] = set()
        self.kinds: set[str] = set()
        self.opaque = any(not (isinstance(n.name, c_ast.ID) and n.name.name in PURE)
                          for n in find(loop, c_ast.FuncCall))
        for n in find(loop, c_ast.Assignment, c_ast.Decl, c_ast.UnaryOp):
            if isinstance(n, c_ast.Decl):
                if n.name:
                    self.assigned.add(n.name)
            elif isinstance(n, c_ast.Assignment):
                self._written(n.lvalue)
            elif n.op in INCREMENTS:
                self._written(n.expr)
            elif n.op == "&":
                self._escaped(n.expr)

    def _written(self, lvalue: c_ast.Node) -> None:
        if isinstance(lvalue, c_ast.ID):
            self.assigned.add(lvalue.name)
            return
        if isinstance(lvalue, c_ast.StructRef):
            self.fields.add(lvalue.field.name)
        self.kinds.add(kind(self.typer.lvalue_type(lvalue)))  # an unknown type reads as int: "any"

    def _escaped(self, expr: c_ast.Node) -> None:
        """``&x`` (or ``&p->f``): through the address the loop may change it."""
        while isinstance(expr, (c_ast.StructRef, c_ast.ArrayRef)):
            if isinstance(expr, c_ast.StructRef):
                self.fields.add(expr.field.name)
            expr = expr.name
        if isinstance(expr, c_ast.ID):
            self.assigned.add(expr.name)

    def _may_store(self, typ: CType) -> bool:
        return "any" in self.kinds or kind(typ) in self.kinds

    def invariant(self, node: c_ast.Node) -> bool:
        """Whether ``node`` (a member access, or what one starts from) has the same value on every
        iteration of the loop, so that the compiler reads it once before the loop."""
        if self.opaque:
            return False
        if isinstance(node, c_ast.Constant):
            return True
        if isinstance(node, c_ast.Cast):
            return self.invariant(node.expr)
        if isinstance(node, c_ast.ID):
            if node.name in self.assigned:
                return False
            owner = self.typer.scope.owner(node.name)
            return owner is not None and (owner is not self.globals or not self._may_store(self.typer.type_of(node)))
        if isinstance(node, c_ast.StructRef):
            if node.field.name in self.fields or self._may_store(self.typer.type_of(node)):
                return False
            return self.invariant(node.name)
        return False
