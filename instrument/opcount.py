"""Static operation counts of C expressions, with a small type inference (instrument stage).

The operation count of a run is the sum over basic blocks of (executions x operations of the
block).  Operations are split by kind: floating-point arithmetic, integer arithmetic, comparisons
and logic, loads and stores of array elements and pointer dereferences, and calls.  Assignments to
scalar variables are register moves and are not counted.  ``chain`` marks, among the floating-point
operations, those of a loop-carried accumulation (``s += x[i] * y[i]`` with ``s`` a scalar declared
outside the loop): each must wait for the previous one, so a loop of them runs at the latency of
the addition, not at the rate loads and arithmetic are issued.  They are counted in ``flops`` too and
not again in ``total``.  Likewise subsets of a kind, not again in ``total``: ``addr``, the integer
operations that compute an address (the ``+ - * <<`` of a subscript, pointer arithmetic, ``&a[i]``,
an integer scalar set afresh from scalars: folded into addressing or strength-reduced by a
compiler); ``div``, the divisions a compiler keeps (a divisor not a constant; a floating constant
not a power of two) and square roots; ``math``, the calls of the C library's transcendental
functions.  Both operands of ``&&``, ``||`` and ``?:`` are counted as if evaluated (the static count
is an upper bound there).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields

from pycparser import c_ast

# compiler builtins that stand for a C library call (the others are instructions)
_LIBRARY_BUILTINS = ("__builtin_mem", "__builtin_str", "__builtin_alloca", "__builtin_printf", "__builtin_puts",
                     "__builtin_malloc", "__builtin_calloc", "__builtin_free", "__builtin_va_", "__builtin_abort",
                     "__builtin_exit", "__builtin_trap", "__builtin_unreachable")
OP_KINDS = ("flops", "iops", "cmp", "loads", "stores", "calls", "chain", "addr", "div", "math")
_SUBSETS = ("chain", "addr", "div", "math")
# calls of the C library's transcendental functions (real and complex, double, float and long
# double): tens of cycles each (``math``); a square root is one instruction as slow as a division
_TRANSCENDENTAL = frozenset(
    prefix + name + suffix
    for name in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sin", "cos", "tan", "asin",
                 "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc",
                 "cbrt", "hypot", "fmod", "tgamma", "lgamma")
    for prefix in ("", "c")
    for suffix in ("", "f", "l"))
_ROOTS = frozenset(prefix + "sqrt" + suffix for prefix in ("", "c") for suffix in ("", "f", "l"))  # kinds counted within another kind (flops, iops), not again in total
_ACCUMULATE = {"+=", "-=", "*=", "/="}
_FLOAT_NAMES = {"float", "double", "_Complex"}
_ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}
_COMPARE = {"<", ">", "<=", ">=", "==", "!=", "&&", "||"}
_ADDRESS = {"+", "-", "*", "<<"}  # integer arithmetic of a subscript that addressing absorbs


@dataclass(frozen=True)
class OpCount:
    flops: int = 0
    iops: int = 0
    cmp: int = 0
    loads: int = 0
    stores: int = 0
    calls: int = 0
    chain: int = 0  # of the flops, those that extend a loop-carried accumulation (not in total)
    addr: int = 0  # of the iops, those that compute an address (not in total)
    div: int = 0  # of the flops and iops, the divisions the compiler keeps, and square roots (not in total)
    math: int = 0  # of the calls, those of transcendental functions of the C library (not in total)

    def __add__(self, other: OpCount) -> OpCount:
        return OpCount(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self) if f.name not in _SUBSETS)

    def to_dict(self) -> dict[str, int]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["total"] = self.total
        return out


ZERO = OpCount()


@dataclass(frozen=True)
class CType:
    """What the counter needs of a type: float or integer base, pointer/array depth, and which of
    those levels, outermost first, are arrays (``double a[N][M]``: (True, True); ``double **p``:
    (False, False); missing levels are pointers).  Subscripting or dereferencing to a value that is
    itself an array computes an address and loads nothing: ``a[i]`` of ``double a[N][M]`` is a row's
    address, so ``a[i][j]`` is one load, as ``p[i][j]`` of ``double **p`` is two."""

    floating: bool = False
    depth: int = 0
    struct: str | None = None
    arrays: tuple[bool, ...] = ()

    @property
    def is_array(self) -> bool:
        return self.depth > 0 and bool(self.arrays) and self.arrays[0]

    def deref(self) -> CType:
        return CType(self.floating, max(self.depth - 1, 0), self.struct, self.arrays[1:])

    def addr(self) -> CType:
        return CType(self.floating, self.depth + 1, self.struct, (False, *self.arrays))

    def loads(self) -> int:
        """1 if reading a value of this type from memory is a load, 0 for an array (its address)."""
        return 0 if self.is_array else 1


INT = CType()
DOUBLE = CType(floating=True)


def struct_key(node: c_ast.Struct | c_ast.Union) -> str:
    """A struct's (or union's) identity: its tag, or where it is declared when it has none."""
    if node.name:
        return node.name
    where = f"{node.coord.line}:{node.coord.column}" if node.coord else str(id(node))
    return f"<anonymous at {where}>"


def type_of_decl(node: c_ast.Node, typedefs: dict[str, CType]) -> CType:
    """The CType of a declaration's type node (TypeDecl, PtrDecl, ArrayDecl, FuncDecl)."""
    levels: list[bool] = []  # outermost first: True for an array declarator, False for a pointer
    while True:
        if isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
            levels.append(isinstance(node, c_ast.ArrayDecl))
            node = node.type
        elif isinstance(node, c_ast.FuncDecl):
            node = node.type  # the return type
            levels = []
        elif isinstance(node, c_ast.TypeDecl):
            node = node.type
        elif isinstance(node, c_ast.IdentifierType):
            names = node.names
            if len(names) == 1 and names[0] in typedefs:
                base = typedefs[names[0]]
                arrays = (*levels, *base.arrays, *[False] * (base.depth - len(base.arrays)))
                return CType(base.floating, base.depth + len(levels), base.struct, arrays)
            return CType(any(n in _FLOAT_NAMES for n in names), len(levels), arrays=tuple(levels))
        elif isinstance(node, (c_ast.Struct, c_ast.Union)):
            return CType(False, len(levels), struct_key(node), tuple(levels))
        else:
            return CType(False, len(levels), arrays=tuple(levels))


class Scope:
    """Names visible at a point: variables, functions, typedefs, struct fields."""

    def __init__(self, parent: Scope | None = None):
        self.parent = parent
        self.names: dict[str, CType] = {}

    def owner(self, name: str) -> Scope | None:
        """The scope that declares ``name`` (this one or an enclosing one), or None."""
        scope: Scope | None = self
        while scope is not None and name not in scope.names:
            scope = scope.parent
        return scope

    def encloses(self, other: Scope) -> bool:
        """This scope is ``other`` or one of its enclosing scopes."""
        scope: Scope | None = other
        while scope is not None and scope is not self:
            scope = scope.parent
        return scope is self

    def lookup(self, name: str) -> CType | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


class OpCounter:
    """Counts the operations of one expression tree, not descending into statements."""

    def __init__(self, scope: Scope, fields_: dict[str, CType], typedefs: dict[str, CType],
                 loop_scope: Scope | None = None, invariant: Callable[[c_ast.Node], bool] | None = None):
        self.scope = scope
        self.fields = fields_
        self.typedefs = typedefs
        self.loop_scope = loop_scope  # where the innermost enclosing loop stands (None: in no loop)
        # whether a member access has one value throughout the innermost enclosing loop, so that
        # the compiler reads it once before the loop (collect/invariant.py; None: counted each time)
        self.invariant = invariant
        self.subscripts = 0  # how many subscripts the expression being counted is inside

    def count(self, node: c_ast.Node | None) -> OpCount:
        if node is None:
            return ZERO
        return self._count(node)[0]

    def type_of(self, node: c_ast.Node) -> CType:
        return self._count(node)[1]

    # Each handler returns (operations, type of the value).
    def _count(self, node: c_ast.Node) -> tuple[OpCount, CType]:
        handler = getattr(self, "_" + type(node).__name__, None)
        if handler is None:
            total = ZERO
            for child in node:
                total = total + self._count(child)[0]
            return total, INT
        return handler(node)

    def _Constant(self, node: c_ast.Constant) -> tuple[OpCount, CType]:
        if node.type == "string":
            return ZERO, CType(False, 1)
        return ZERO, CType(node.type in ("double", "float", "long double"))

    def _ID(self, node: c_ast.ID) -> tuple[OpCount, CType]:
        return ZERO, self.scope.lookup(node.name) or INT

    def _subscript(self, node: c_ast.Node) -> OpCount:
        self.subscripts += 1
        try:
            return self._count(node)[0]
        finally:
            self.subscripts -= 1

    def _ArrayRef(self, node: c_ast.ArrayRef) -> tuple[OpCount, CType]:
        ops_b, base = self._count(node.name)
        ops_i = self._subscript(node.subscript)
        # a[i][j] on a 2-D array is one load; the inner ArrayRef is address arithmetic.
        typ = base.deref()
        return ops_b + ops_i + OpCount(loads=typ.loads()), typ

    def _StructRef(self, node: c_ast.StructRef) -> tuple[OpCount, CType]:
        ops, _ = self._count(node.name)
        typ = self.fields.get(node.field.name, INT)
        loads = typ.loads() if node.type == "->" else 0  # p->a of an array field is an address
        if loads and self.invariant is not None and self.invariant(node):
            loads = 0  # read once before the loop
        return ops + OpCount(loads=loads), typ

    def _UnaryOp(self, node: c_ast.UnaryOp) -> tuple[OpCount, CType]:
        if node.op in ("sizeof", "_Alignof"):
            return ZERO, INT
        ops, typ = self._count(node.expr)
        if node.op == "*":
            typ = typ.deref()
            return ops + OpCount(loads=typ.loads()), typ
        if node.op == "&":
            # &a[i] computes an address: the load the ArrayRef counted (if any) does not happen
            loads = typ.loads() if isinstance(node.expr, (c_ast.ArrayRef, c_ast.UnaryOp)) else 0
            return ops + OpCount(loads=-loads, iops=loads, addr=loads), typ.addr()
        if node.op in ("++", "--", "p++", "p--"):
            step = OpCount(iops=1, addr=1) if typ.depth else _arith(typ)  # a pointer's step: an address
            return ops + step + _store(node.expr), typ
        if node.op == "!":
            return ops + OpCount(cmp=1), INT
        if node.op == "+":
            return ops, typ
        return ops + self._arith(typ, node.op), typ  # - and ~

    def _BinaryOp(self, node: c_ast.BinaryOp) -> tuple[OpCount, CType]:
        ops_l, left = self._count(node.left)
        ops_r, right = self._count(node.right)
        ops = ops_l + ops_r
        if node.op in _COMPARE:
            return ops + OpCount(cmp=1), INT
        if left.depth or right.depth:  # pointer arithmetic
            typ = left if left.depth else right
            return ops + OpCount(iops=1, addr=1), typ
        typ = DOUBLE if (left.floating or right.floating) else INT
        return ops + self._arith(typ, node.op, node.right), typ

    def _arith(self, typ: CType, op: str, divisor: c_ast.Node | None = None) -> OpCount:
        """One arithmetic operation of ``typ``; an address's part when in a subscript; a division
        unless the divisor is a constant the compiler turns into a multiplication or a shift (any
        integer constant; a floating one only when a power of two)."""
        ops = _arith(typ)
        if ops.iops and self.subscripts and op in _ADDRESS:
            return OpCount(iops=1, addr=1)
        if op in ("/", "%") and not _cheap_divisor(divisor, ops.flops > 0):
            return ops + OpCount(div=1)
        return ops

    def initializer(self, name: str | None, typ: CType, value: c_ast.Node) -> OpCount:
        """The operations of ``value`` assigned to the variable ``name`` of type ``typ``; see ``_fresh``."""
        ops = self.count(value)
        return self._fresh(ops, name, typ, value)

    def _fresh(self, ops: OpCount, name: str | None, typ: CType, value: c_ast.Node) -> OpCount:
        """An integer scalar computed afresh from integer scalars and constants by ``+``, ``-``, ``*``
        and ``<<`` (``ind = i * (ny + 2) + j``, not ``k = k * 2 + 1``): an index the compiler
        strength-reduces or folds into the addressing of its uses, so its integer operations are
        ``addr`` too."""
        if name is None or typ.floating or typ.depth or not ops.iops or not self._affine(value, name):
            return ops
        return ops + OpCount(addr=ops.iops - ops.addr)

    def _affine(self, node: c_ast.Node, name: str) -> bool:
        if isinstance(node, c_ast.Constant):
            return "int" in node.type
        if isinstance(node, c_ast.ID):
            typ = self.scope.lookup(node.name)
            return node.name != name and typ is not None and not typ.floating and not typ.depth
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
            return self._affine(node.expr, name)
        if isinstance(node, c_ast.BinaryOp) and node.op in _ADDRESS:
            return self._affine(node.left, name) and self._affine(node.right, name)
        return False

    def _Assignment(self, node: c_ast.Assignment) -> tuple[OpCount, CType]:
        ops_r, right = self._count(node.rvalue)
        if node.op == "=" and isinstance(node.lvalue, c_ast.ID):
            ops_r = self._fresh(ops_r, node.lvalue.name, self.scope.lookup(node.lvalue.name) or INT, node.rvalue)
        target = self._lvalue(node.lvalue)
        ops_l, left = target
        ops = ops_l + ops_r + _store(node.lvalue)
        if node.op != "=" and left.depth:  # p += n: pointer arithmetic
            ops = ops + OpCount(iops=1, addr=1)
        elif node.op != "=":
            ops = ops + self._arith(DOUBLE if (left.floating or right.floating) else left, node.op[:-1], node.rvalue)
            if _is_memory(node.lvalue):
                ops = ops + OpCount(loads=1)
        if self._accumulates(node, left):
            ops = ops + OpCount(chain=1)
        return ops, left

    def _accumulates(self, node: c_ast.Assignment, left: CType) -> bool:
        """``s += e``, ``s = s + e`` (``-``, ``*``, ``/``; ``e + s``, ``e * s``) on a floating scalar
        declared outside the innermost enclosing loop: one link of a loop-carried chain.  (A scalar
        the body sets afresh before accumulating, ``t = a; t += b;``, is counted too.)"""
        if self.loop_scope is None or not isinstance(node.lvalue, c_ast.ID):
            return False
        if not left.floating or left.depth:
            return False
        name = node.lvalue.name
        if node.op not in _ACCUMULATE:
            rvalue = node.rvalue
            if node.op != "=" or not isinstance(rvalue, c_ast.BinaryOp) or rvalue.op not in ("+", "-", "*", "/"):
                return False
            operands = (rvalue.left, rvalue.right) if rvalue.op in ("+", "*") else (rvalue.left,)
            if not any(isinstance(o, c_ast.ID) and o.name == name for o in operands):
                return False
        owner = self.scope.owner(name)
        return owner is not None and owner.encloses(self.loop_scope)

    def _lvalue(self, node: c_ast.Node) -> tuple[OpCount, CType]:
        """Operations to compute the address of an lvalue, and its type (no load counted)."""
        if isinstance(node, c_ast.ArrayRef):
            ops_b, base = self._count(node.name)
            return ops_b + self._subscript(node.subscript), base.deref()
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            ops, typ = self._count(node.expr)
            return ops, typ.deref()
        if isinstance(node, c_ast.StructRef):
            ops, _ = self._count(node.name)
            return ops, self.fields.get(node.field.name, INT)
        return ZERO, self._count(node)[1]

    def lvalue_type(self, node: c_ast.Node) -> CType:
        """The type of what an assignment to ``node`` stores."""
        return self._lvalue(node)[1]

    def _TernaryOp(self, node: c_ast.TernaryOp) -> tuple[OpCount, CType]:
        ops_c, _ = self._count(node.cond)
        ops_t, t_type = self._count(node.iftrue)
        ops_f, f_type = self._count(node.iffalse)
        return ops_c + ops_t + ops_f, t_type if t_type.floating else f_type

    def _Cast(self, node: c_ast.Cast) -> tuple[OpCount, CType]:
        ops, _ = self._count(node.expr)
        return ops, type_of_decl(node.to_type.type, self.typedefs)

    def _FuncCall(self, node: c_ast.FuncCall) -> tuple[OpCount, CType]:
        ops, outer = ZERO, self.subscripts
        self.subscripts = 0  # an argument's arithmetic is a value, even in a subscript (a[f(i + 1)])
        try:
            for arg in node.args.exprs if node.args else ():
                ops = ops + self._count(arg)[0]
        finally:
            self.subscripts = outer
        typ = INT
        call = OpCount(calls=1)
        if isinstance(node.name, c_ast.ID):
            typ = self.scope.lookup(node.name.name) or INT
            if node.name.name.startswith("__builtin_") and not node.name.name.startswith(_LIBRARY_BUILTINS):
                call = OpCount(iops=1)  # an intrinsic: an instruction, no call (__builtin_ia32_cmplepd)
            elif node.name.name in _TRANSCENDENTAL:
                call = OpCount(calls=1, math=1)
            elif node.name.name in _ROOTS:
                call = OpCount(calls=1, div=1)
        return ops + call, typ

    def _ExprList(self, node: c_ast.ExprList) -> tuple[OpCount, CType]:
        ops, typ = ZERO, INT
        for expr in node.exprs:
            more, typ = self._count(expr)
            ops = ops + more
        return ops, typ

    def _CompoundLiteral(self, node: c_ast.CompoundLiteral) -> tuple[OpCount, CType]:
        return self._count(node.init)[0], type_of_decl(node.type.type, self.typedefs)

    def _InitList(self, node: c_ast.InitList) -> tuple[OpCount, CType]:
        ops = ZERO
        for expr in node.exprs:
            ops = ops + self._count(expr)[0]
        return ops, INT


def _arith(typ: CType) -> OpCount:
    return OpCount(flops=1) if (typ.floating and not typ.depth) else OpCount(iops=1)


def _cheap_divisor(node: c_ast.Node | None, floating: bool) -> bool:
    """A constant divisor the compiler replaces: any integer one (a shift or a multiplication by its
    inverse), a floating one only when a power of two (an exact reciprocal; others stay divisions
    without -ffast-math)."""
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        node = node.expr  # x / -2.0
    if not isinstance(node, c_ast.Constant) or node.type in ("string", "char"):
        return False
    if not floating:
        return True
    text = node.value.rstrip("fFlLuU")
    try:
        value = float(int(text, 0)) if text[:2].lower() in ("0x", "0b") or text.isdigit() else float(text)
    except ValueError:
        return False
    mantissa = math.frexp(abs(value))[0] if value else 1.0
    return mantissa == 0.5


def _is_memory(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.ArrayRef) or (isinstance(node, c_ast.UnaryOp) and node.op == "*") or (
        isinstance(node, c_ast.StructRef) and node.type == "->"
    )


def _store(node: c_ast.Node) -> OpCount:
    return OpCount(stores=1) if _is_memory(node) else ZERO
