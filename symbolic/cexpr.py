"""C expression text to sympy, with C's integer semantics (symbolic stage).

Names are handed to a resolver, which returns a sympy expression or raises :class:`Unresolved`.
Integer division is ``floor`` (C truncates toward zero; the sizes and ranks modeled here are not
negative), ``%`` is ``Mod``, comparisons and ``&&``/``||`` become sympy relations and logic, and
``?:`` becomes ``Piecewise``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import sympy as sp
from pycparser import c_ast, c_generator, c_parser

from perfeq.instrument.collect.walk import array_subscripts, lvalue_path
from perfeq.symbolic.symbols import PROC_NULL, TID, T, formal_arguments

TYPE_SIZES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4,
    "unsigned": 4, "unsigned int": 4, "long": 8, "unsigned long": 8, "long long": 8,
    "unsigned long long": 8, "float": 4, "double": 8, "long double": 16, "size_t": 8,
    "int32_t": 4, "int64_t": 8, "uint32_t": 4, "uint64_t": 8, "ptrdiff_t": 8,
}
_TYPEDEFS = "typedef unsigned long size_t; typedef long ptrdiff_t; typedef int int32_t; " \
    "typedef long int64_t; typedef unsigned uint32_t; typedef unsigned long uint64_t;"
_FUNCTIONS = {
    "sqrt": sp.sqrt, "log": sp.log, "log2": lambda x: sp.log(x, 2), "exp": sp.exp, "pow": sp.Pow,
    "ceil": sp.ceiling, "floor": sp.floor, "abs": sp.Abs, "fabs": sp.Abs, "labs": sp.Abs,
    "MIN": sp.Min, "MAX": sp.Max, "min": sp.Min, "max": sp.Max, "fmin": sp.Min, "fmax": sp.Max,
    "perfeq_isqrt": lambda x: sp.floor(sp.sqrt(x)),  # the bound of v * v <= b (instrument's loop form)
    # a team split by hand (lo = n * id / nt): the thread's number, summed over the team where a count
    # holds it (counts.core), and the team, T (the trace's largest: omp_get_max_threads() too)
    "omp_get_thread_num": lambda: TID, "omp_get_num_threads": lambda: T, "omp_get_max_threads": lambda: T,
}


class Unresolved(Exception):
    """A name (or construct) the resolver cannot express in model symbols."""


class TooLarge(Unresolved):
    """An expression that resolves, but too large to decide symbolically (:data:`CONDITION_NODES`)."""


Resolver = Callable[[str], sp.Expr]
_GENERATOR = c_generator.CGenerator()


@lru_cache(maxsize=4096)
def parse_c_expression(text: str) -> c_ast.Node:
    """The pycparser AST of one C expression."""
    parser = c_parser.CParser()
    try:
        ast = parser.parse(f"{_TYPEDEFS} void __perfeq_f(void) {{ __perfeq_x = ({text}); }}")
    except c_parser.ParseError as exc:
        raise Unresolved(f"cannot parse C expression '{text}': {exc}") from None
    return ast.ext[-1].body.block_items[0].rvalue


def to_sympy(text: str, resolve: Resolver, opaque: Callable[[str], sp.Expr] | None = None) -> sp.Expr:
    """The sympy value of C expression ``text``; with ``opaque``, a name, element, member or call
    that does not resolve is ``opaque(its text)`` instead of Unresolved."""
    try:
        return _Converter(resolve, opaque).visit(parse_c_expression(text))
    except (TypeError, ValueError, ZeroDivisionError, AttributeError) as exc:
        raise Unresolved(f"'{text}': {exc}") from None


# the most nodes a condition may have to be modelled: NPB LU's ``if (*verified)``, the value of flags
# that a dozen branches on the class set, was a 1083-node Piecewise, and deciding it in sympy did not
# end in ten minutes; a condition on the sizes, P or the rank has a few dozen
CONDITION_NODES = 400


def to_condition(text: str, resolve: Resolver) -> sp.Basic:
    """C expression ``text`` as a condition: true where it is non-zero, as C reads it; Unresolved
    when it is too large to decide symbolically (:data:`CONDITION_NODES`)."""
    value = to_sympy(text, resolve)
    nodes = sum(1 for _ in sp.preorder_traversal(value))
    if nodes > CONDITION_NODES:
        raise TooLarge(f"a condition of {nodes} terms, too large to decide symbolically (its variables are set "
                       "under many other conditions)")
    return _as_bool(value)


# the lvalues and calls an opaque converter may leave as symbols (to_sympy's ``opaque``)
_OPAQUE_NODES = (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall)


class _Converter:
    def __init__(self, resolve: Resolver, opaque: Callable[[str], sp.Expr] | None = None):
        self.resolve = resolve
        self.opaque = opaque
        self.expanding: set[str] = set()  # the function-like macros being expanded

    def visit(self, node: c_ast.Node) -> sp.Expr:
        method = getattr(self, "v_" + type(node).__name__, None)
        if method is None:
            raise Unresolved(f"unsupported construct {type(node).__name__}")
        if self.opaque is not None and isinstance(node, _OPAQUE_NODES):
            try:
                return method(node)
            except Unresolved:
                return self.opaque(_GENERATOR.visit(node))
        return method(node)

    def v_Constant(self, node: c_ast.Constant) -> sp.Expr:
        try:
            if node.type.endswith("int"):
                value = node.value.rstrip("uUlL")
                if len(value) > 1 and value[0] == "0" and value[1] not in "xXbB":
                    return sp.Integer(int(value, 8))
                return sp.Integer(int(value, 0))
            if node.type in ("double", "float", "long double"):
                value = node.value.rstrip("fFlL")
                return sp.Rational(value) if "e" not in value.lower() and "x" not in value.lower() else sp.Float(value)
            if node.type == "char" and len(node.value) == 3:
                return sp.Integer(ord(node.value[1]))
        except ValueError:
            pass
        raise Unresolved(f"constant {node.value}")

    def v_ID(self, node: c_ast.ID) -> sp.Expr:
        if node.name == "MPI_PROC_NULL":
            return PROC_NULL
        return self.resolve(node.name)

    def v_StructRef(self, node: c_ast.StructRef) -> sp.Expr:
        return self._lvalue(node)

    def v_ArrayRef(self, node: c_ast.ArrayRef) -> sp.Expr:
        path = lvalue_path(node)  # sizes[0]: by its spelling
        element = getattr(self.resolve, "element", None)
        if path is not None:
            try:
                return self.resolve(path)
            except Unresolved as exc:
                # dims[2][0] or logd[0], no assignment spelled so: the elements a loop filled
                # (dims[i][0] = nx; logd[i] = ilog2(d[i])); the reason by its spelling otherwise
                if element is None:
                    raise
                try:
                    return self._element(node, element)
                except Unresolved:
                    raise exc from None
        if element is not None:
            return self._element(node, element)  # nx[k]: the resolver follows its assignments
        raise Unresolved("unsupported construct ArrayRef")

    def _element(self, node: c_ast.ArrayRef, element) -> sp.Expr:
        """``a[i]`` (or ``a[i][j]``, a tuple of indices) by the resolver's ``element``."""
        array, subscripts = array_subscripts(node)
        base = lvalue_path(array)
        if base is None:
            raise Unresolved("unsupported construct ArrayRef")
        indices = [self.visit(subscript) for subscript in subscripts]
        return element(base, indices[0] if len(indices) == 1 else tuple(indices))

    def _lvalue(self, node: c_ast.Node) -> sp.Expr:
        """``cmd.nx``, ``in->particles``, ``sizes[0]``: resolved by their canonical spelling."""
        path = lvalue_path(node)
        if path is None:
            raise Unresolved(f"unsupported construct {type(node).__name__}")
        return self.resolve(path)

    def v_UnaryOp(self, node: c_ast.UnaryOp) -> sp.Expr:
        if node.op == "sizeof":
            return sp.Integer(self._sizeof(node.expr))
        if node.op == "*" and isinstance(node.expr, c_ast.ID):  # *p: what the function stored there
            return self.resolve("*" + node.expr.name)
        value = self.visit(node.expr)
        if node.op == "-":
            return -_as_number(value)
        if node.op == "+":
            return _as_number(value)
        if node.op == "!":
            return sp.Not(_as_bool(value))
        raise Unresolved(f"operator {node.op}")

    def _sizeof(self, node: c_ast.Node) -> int:
        if isinstance(node, c_ast.Typename):
            typ = node.type
            if isinstance(typ, c_ast.PtrDecl):
                return 8
            if isinstance(typ, c_ast.TypeDecl) and isinstance(typ.type, c_ast.IdentifierType):
                name = " ".join(typ.type.names)
                if name in TYPE_SIZES:
                    return TYPE_SIZES[name]
        raise Unresolved("sizeof of an expression or an unknown type")

    def v_BinaryOp(self, node: c_ast.BinaryOp) -> sp.Expr:
        left, right = self.visit(node.left), self.visit(node.right)
        op = node.op
        if op not in ("&&", "||"):  # a comparison's value is an int, 0 or 1 (n / P + (rank < n % P))
            left, right = _as_number(left), _as_number(right)
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "/":
            if _is_integer(left) and _is_integer(right) and not (_floating(node.left) or _floating(node.right)):
                return sp.floor(left / right)
            return left / right
        if op == "%":
            return sp.Mod(left, right)
        if op == "<<":
            return left * 2**right
        if op == ">>":
            return sp.floor(left / 2**right)
        relations = {"<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge, "==": sp.Eq, "!=": sp.Ne}
        if op in relations:
            return relations[op](left, right)
        if op == "&&":
            return sp.And(_as_bool(left), _as_bool(right))
        if op == "||":
            return sp.Or(_as_bool(left), _as_bool(right))
        raise Unresolved(f"operator {op}")

    def v_TernaryOp(self, node: c_ast.TernaryOp) -> sp.Expr:
        cond = _as_bool(self.visit(node.cond))
        return sp.Piecewise((_as_number(self.visit(node.iftrue)), cond), (_as_number(self.visit(node.iffalse)), True))

    def v_Cast(self, node: c_ast.Cast) -> sp.Expr:
        value = _as_number(self.visit(node.expr))
        typ = node.to_type.type
        if isinstance(typ, c_ast.TypeDecl) and isinstance(typ.type, c_ast.IdentifierType):
            names = " ".join(typ.type.names)
            if names in ("double", "float", "long double"):
                return value
            if not _is_integer(value):
                return sp.floor(value)  # truncation of a non-negative value
            return value
        raise Unresolved("cast to a pointer or aggregate")

    def v_FuncCall(self, node: c_ast.FuncCall) -> sp.Expr:
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        expand = getattr(self.resolve, "expand_macro", None)
        if name is not None and name not in _FUNCTIONS and expand is not None and name not in self.expanding:
            # a function-like macro of the program (``POLYBENCH_LOOP_BOUND(N,n)``): its expansion,
            # rescanned without expanding it again (as the preprocessor does)
            text = expand(name, [_GENERATOR.visit(a) for a in (node.args.exprs if node.args else [])])
            if text is not None:
                self.expanding.add(name)
                try:
                    return self.visit(parse_c_expression(text))
                finally:
                    self.expanding.discard(name)
        if name in ("perfeq_cart_neighbour", "perfeq_cart_coord") and node.args and len(node.args.exprs) == 3:
            # MPI_Cart_shift's neighbour, MPI_Cart_coords' coordinate (instrument's calls.cart_shift,
            # cart_coords): the communicator by name
            grid = getattr(self.resolve, name[len("perfeq_"):], None)
            if grid is None:
                raise Unresolved(f"a value set by {'MPI_Cart_shift' if 'neighbour' in name else 'MPI_Cart_coords'}")
            return grid(_GENERATOR.visit(node.args.exprs[0]), *(self.visit(a) for a in node.args.exprs[1:]))
        if name == "perfeq_cart_rank" and node.args and len(node.args.exprs) == 2:
            # MPI_Cart_rank's rank (instrument's calls.cart_rank): communicator and coordinates by name
            grid = getattr(self.resolve, "cart_rank", None)
            if grid is None:
                raise Unresolved("a value set by MPI_Cart_rank")
            return grid(*(_GENERATOR.visit(a) for a in node.args.exprs))
        args = [self.visit(a) for a in (node.args.exprs if node.args else [])]
        if name in _FUNCTIONS:
            return _FUNCTIONS[name](*args)
        inline = getattr(self.resolve, "call", None)
        if name is not None and inline is not None:
            return inline(name, args)  # a user function whose body is one return expression
        raise Unresolved(f"call of {name or 'a function pointer'}")


def with_arguments(expr: sp.Expr, function, args: list[str], resolve: Resolver) -> sp.Expr:
    """``expr``, resolved in ``function`` (a FunctionDescriptor), with its parameters replaced one
    after the other by the C texts ``args`` of a call, each resolved by ``resolve`` (the caller's)."""
    formals = formal_arguments(function.name, function.params, args, expr.free_symbols)
    return expr.subs([(symbol, to_sympy(text, resolve)) for symbol, (_, text) in formals.items()])


def _is_integer(value: sp.Expr) -> bool:
    return bool(getattr(value, "is_integer", False))


_FLOATING_TYPES = ("double", "float", "long double")
# <math.h> functions whose value is a double (those of _FUNCTIONS, and the rounding ones)
_FLOATING_CALLS = frozenset({"sqrt", "cbrt", "log", "log2", "log10", "exp", "exp2", "pow", "ceil", "floor", "fabs",
                             "fmin", "fmax", "trunc", "round", "rint", "nearbyint", "atof", "strtod", "drand48"})


def _floating(node: c_ast.Node) -> bool:
    """Whether C gives the expression ``node`` a floating type, as far as its text says: a floating
    constant (``2.0``), a cast to a floating type, a <math.h> call, or arithmetic on one of those.
    (Its sympy value cannot say: 100000.0 is the integer 100000 there, and (double)n is n.)  A
    variable is not looked up: ``d / 2`` with ``double d = n`` still divides as integers."""
    if isinstance(node, c_ast.Constant):
        return node.type in _FLOATING_TYPES
    if isinstance(node, c_ast.Cast):
        typ = node.to_type.type
        return (isinstance(typ, c_ast.TypeDecl) and isinstance(typ.type, c_ast.IdentifierType)
                and " ".join(typ.type.names) in _FLOATING_TYPES)
    if isinstance(node, c_ast.BinaryOp):
        return node.op in ("+", "-", "*", "/") and (_floating(node.left) or _floating(node.right))
    if isinstance(node, c_ast.UnaryOp):
        return node.op in ("-", "+") and _floating(node.expr)
    if isinstance(node, c_ast.TernaryOp):
        return _floating(node.iftrue) or _floating(node.iffalse)
    if isinstance(node, c_ast.FuncCall):
        return isinstance(node.name, c_ast.ID) and node.name.name in _FLOATING_CALLS
    return False


def _is_condition(value: sp.Basic) -> bool:
    """A condition (a relation, And, Or, true ...); a symbol is a number here (sympy takes it for a Boolean)."""
    return isinstance(value, (sp.logic.boolalg.Boolean, sp.core.relational.Relational)) and not value.is_Symbol


def _as_number(value: sp.Basic) -> sp.Expr:
    """A C condition used as a value: 1 where it holds, else 0 (``rank < n % P`` in a sum)."""
    return sp.Piecewise((1, value), (0, True)) if _is_condition(value) else value


def _as_bool(value: sp.Expr) -> sp.Basic:
    """A C value as a condition (non-zero)."""
    return value if _is_condition(value) else sp.Ne(value, 0)
