"""Name resolution for loop bounds and counts (symbolic stage, the paper's step 1).

Part of perfeq stage 3 (symbolic/): C names of a unit's descriptors to model symbols.

A name in a loop bound is searched outward: the variables of enclosing loops, then simple
assignments in the function (``local_n = n / size``), then the function's parameters (replaced
later by the argument expressions of each call site), then the program's problem-size
parameters, the process count P, the rank, and compile-time constants.  What is not found raises
:class:`Unresolved`, and the caller falls back to a fit or a constant.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import sympy as sp

from perfeq.arguments import path_root
from perfeq.instrument.descriptors import (
    MPI_SOURCES,
    Assignment,
    CommDescriptor,
    LoopDescriptor,
    UnitDescriptors,
)
from perfeq.instrument.preprocess import substitute
from perfeq.symbolic.cexpr import Unresolved, to_condition, to_sympy, with_arguments
from perfeq.symbolic.communicators import cart_coordinate, cart_neighbour, cart_rank, communicator
from perfeq.symbolic.elements import applied, element_value
from perfeq.symbolic.symbols import (
    LOOP_SYMBOLS,
    RANK,
    P,
    formal_arguments,
    formal_symbol,
    loop_symbol,
    parameter_symbol,
)
from perfeq.symbolic.tripcount import counted, step_and_count

__all__ = ["LOOP_SYMBOLS", "Resolver", "UnitView", "condition_resolver", "formal_arguments", "formal_symbol",
           "loop_symbol", "parameter_symbol"]

MAX_DEPTH = 20
_COMM_QUERIES = ("MPI_Comm_size", "MPI_Comm_rank")
_ELEMENT = re.compile(r"([A-Za-z_]\w*)\[(\d+)\]")  # an element at a constant index: d[1]


PASSED_DEPTH = 4  # how many calls down a struct passed on may reach the helper that reads its field


def _writes_into(function, param: str) -> bool:
    """Whether ``function`` assigns through its pointer parameter ``param`` (``*p = ...``, ``p[i] = ...``)."""
    return any(a.variable == f"*{param}" or a.variable.startswith(f"{param}[") for a in function.assignments)


def _given_anyway(value: sp.Expr, returned: sp.Expr, condition) -> bool:
    """Whether ``value`` is ``returned`` where ``condition`` (a symbol equal to a number) holds."""
    if not (isinstance(condition, sp.Eq) and condition.lhs.is_Symbol and condition.rhs.is_number):
        return False
    try:
        return sp.simplify(value.subs(condition.lhs, condition.rhs) - returned) == 0
    except (TypeError, ValueError):
        return False


def _sign(stride: sp.Expr) -> int:
    """A stride's sign from its assumptions (+1, -1; 0: unknown)."""
    return 1 if stride.is_positive else -1 if stride.is_negative else 0


@dataclass
class UnitView:
    """A unit's descriptors with the look-ups resolution needs."""

    data: UnitDescriptors
    key: str = ""  # distinguishes loop symbols of different units

    def __post_init__(self) -> None:
        self.peers: list[UnitView] = [self]  # the program's units (globals assigned in another one)
        self.functions = self.data.functions
        self.loops = self.data.loops
        self.blocks = self.data.blocks
        self.params = self.data.params
        self.macros = self.data.macros
        self.element_values: dict = {}  # (array, index, ...) -> value or Unresolved (symbolic.elements)

    def loop_chain(self, loop: int | None) -> list[LoopDescriptor]:
        chain = []
        while loop is not None:
            chain.append(self.loops[loop])
            loop = self.loops[loop].parent
        return chain


class Resolver:
    """Resolves names at one point (a loop or block) of one function of a unit."""

    def __init__(self, unit: UnitView, function: int, loop: int | None, line: int,
                 param_symbols: dict[str, sp.Symbol] | None = None):
        self.before: int | None = None  # only the function's first ``before`` assignments (source order) are seen
        self.unit = unit
        self.function = function
        self.fdesc = unit.functions[function]
        self.loop = loop
        self.line = line
        self.param_symbols = param_symbols or {}
        self.depth = 0
        # (array, unknown, indices read) while a recurrence over the array's elements is solved
        self.recurrence: tuple[str, sp.Dummy, list[sp.Expr]] | None = None
        # the function's parameters replaced by a caller's arguments, where one call is resolved
        # (an element's index needs them before its value is looked up: ``nx[lt]`` in setup)
        self.actual: Callable[[sp.Expr], sp.Expr] | None = None
        # names given a value here (the unknown of a recurrence being solved: ``ln`` in ``ln = 2 * ln``)
        self.fixed: dict[str, sp.Expr] = {}

    def elsewhere(self, unit: UnitView, function: int, loop: int | None, line: int) -> Resolver:
        """A resolver at another point of the program, with the same parameters, one level deeper."""
        other = Resolver(unit, function, loop, line, self.param_symbols)
        other.depth = self.depth + 1
        return other

    def __call__(self, name: str) -> sp.Expr:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Unresolved(f"'{name}': resolution too deep")
            return self._resolve(name)
        finally:
            self.depth -= 1

    def _resolve(self, name: str) -> sp.Expr:
        if name in self.fixed:
            return self.fixed[name]
        enclosing = self.unit.loop_chain(self.loop)
        for loop in enclosing:
            if loop.var == name:
                return loop_symbol(self.unit.key, loop.id, name)
            for induction in loop.inductions:
                if induction["var"] == name:
                    return self._induction(loop, induction)
        own = next((p for p in self.unit.params if p.variable == name and p.function == self.function), None)
        if own is not None and own.source in MPI_SOURCES and self.param_symbols.get(name) not in (P, RANK):
            return parameter_symbol(own)  # this function's MPI_Comm_size(..., &size), another's size an option
        if name in self.param_symbols and any(
            p.variable == name and (p.function == self.function or self._named_by_user(p, name))
            for p in self.unit.params
        ):
            return self.param_symbols[name]
        try:
            assignment = self._assignment(name, enclosing)
        except _Branched as branched:
            return self._branch_value(branched)
        except _Stepped as stepped:
            return self._recurrence(name, stepped, enclosing)
        if assignment is not None and self._passed_after(name, assignment):
            value = self._out_argument(name)  # int myX = -1; get_position(..., &myX, &myY);
            if value is not None:
                return value
        if assignment is not None and path_root(name) != name:
            # settings->nx = 10; read_config(path, settings); (a default, then the input's value)
            symbol = self._passed_parameter(name, after=assignment.line)
            if symbol is not None:
                return symbol
            value = self._field_out_argument(name, after=assignment.line)
            if value is not None:
                return value
        if assignment is not None:
            sub = Resolver(self.unit, self.function, assignment.loop, assignment.line, self.param_symbols)
            sub.depth = self.depth
            if re.search(rf"\b{re.escape(name)}\b", assignment.text):
                # x = f(x) (omp-sieve's my_from = ((my_from + k - 1) / k) * k): its x is the value before
                sub.before = self.fdesc.assignments.index(assignment)
                if self.before is not None:
                    sub.before = min(sub.before, self.before)
            return self._after_loops(name, assignment, enclosing, to_sympy(assignment.text, sub))
        if path_root(name) in self.fdesc.params:  # n, or cmd.nx of a struct parameter cmd
            return formal_symbol(self.fdesc.name, name)
        symbol = self._parameter(name)
        if symbol is not None:  # (a parameter recorded where a parsing helper set it comes first)
            return symbol
        symbol = self._passed_parameter(name)
        if symbol is not None:
            return symbol
        value = self._out_argument(name)
        if value is not None:
            return value
        value = self._field_out_argument(name)
        if value is not None:
            return value
        value = self._global_value(name)
        if value is not None:
            return value
        if name in self.unit.macros:
            return to_sympy(self.unit.macros[name], self)
        if name in self.unit.data.enumerators:
            return sp.Integer(self.unit.data.enumerators[name])
        raise Unresolved(f"'{name}'")

    def element(self, base: str, index: sp.Expr | tuple[sp.Expr, ...]) -> sp.Expr:
        """The value of ``base[index]`` (``base[i][j]`` for a tuple) at an index that is no constant,
        or at constant ones no assignment spells (:mod:`.elements`); while a
        recurrence over ``base`` is solved, its elements are the unknown it is solved for."""
        if self.recurrence is not None and self.recurrence[0] == base and not isinstance(index, tuple):
            self.recurrence[2].append(index)
            return self.recurrence[1]
        if self.depth + 1 > MAX_DEPTH:
            raise Unresolved(f"'{base}[...]': resolution too deep")
        return element_value(self, base, index)

    def expand_macro(self, name: str, args: list[str]) -> str | None:
        """The text of an invocation of one of the unit's function-like macros with the C texts
        ``args`` (each parameter replaced by its argument, as the preprocessor does), or None when
        ``name`` is no such macro or the arguments do not match its parameters."""
        macro = self.unit.data.function_macros.get(name)
        return None if macro is None else substitute(macro["params"], args, macro["body"])

    def cart_neighbour(self, cart: str, direction: sp.Expr, disp: sp.Expr) -> sp.Expr:
        """The neighbour MPI_Cart_shift gave (perfeq.symbolic.communicators.cart_neighbour)."""
        return cart_neighbour(cart, direction, disp, self)

    def cart_rank(self, cart: str, coords: str) -> sp.Expr:
        """The rank MPI_Cart_rank gave (perfeq.symbolic.communicators.cart_rank)."""
        return cart_rank(cart, coords, self)

    def cart_coord(self, cart: str, rank: sp.Expr, k: sp.Expr) -> sp.Expr:
        """A coordinate MPI_Cart_coords gave (perfeq.symbolic.communicators.cart_coordinate)."""
        return cart_coordinate(cart, rank, k, self)

    def call(self, name: str, args: list[sp.Expr]) -> sp.Expr:
        """The value of a call of a user function whose body is ``return expr;``, or ends in
        ``return expr;`` with ``if (cond) return expr;`` statements before (:meth:`_returned`)."""
        for index, function in enumerate(self.unit.functions):
            if function.name == name and (function.returns or function.return_points):
                if self.depth + 1 > MAX_DEPTH:
                    raise Unresolved(f"call of {name}: too deep")
                formals = {formal_symbol(name, p): a for p, a in zip(function.params, args, strict=False)}
                return self._returned(index, function, formals).subs(formals)
        raise Unresolved(f"call of {name}")

    def _returned(self, index: int, function, formals: dict) -> sp.Expr:
        """A function's value in terms of its formals: each return's expression where it stands,
        the early ones under their conditions; an early return the last one's formula gives anyway
        (``if (n == 1) return 0;`` before a ceil(log2 n)) is left out."""
        def at(line: int) -> Resolver:
            sub = Resolver(self.unit, index, None, line, self.param_symbols)
            sub.depth = self.depth + 1
            sub.actual = lambda expr: expr.subs(formals)
            return sub

        if function.returns:
            return to_sympy(function.returns, at(function.line))
        *early, last = function.return_points
        value = to_sympy(last["text"], at(last["line"]))
        pieces = []
        for point in early:
            where = at(point["line"])
            returned, condition = to_sympy(point["text"], where), to_condition(point["cond"], where)
            if not _given_anyway(value, returned, condition):
                pieces.append((returned, condition))
        return sp.Piecewise(*pieces, (value, True)) if pieces else value

    def _named_by_user(self, p, name: str) -> bool:
        """``--param N=n`` for a global n no statement records: n is N wherever it is read (the
        user's word; the self-check says where that does not hold)."""
        return p.source == "user" and p.function is None and name not in self.fdesc.locals \
            and name not in self.fdesc.params

    def _parameter(self, name: str) -> sp.Expr | None:
        if name in self.param_symbols:
            return self.param_symbols[name]
        for p in self.unit.params:
            if p.variable == name and p.function in (self.function, None) or (
                p.variable == name and not self._is_local(name)
            ):
                return parameter_symbol(p)
        return None

    def _passed_parameter(self, name: str, after: int | None = None) -> sp.Expr | None:
        """A field of a local struct or pointer this function passes to a parsing helper before this
        point (and after line ``after``), where the helper's parameter is a parameter candidate
        (``read_CLI(argc, argv, I)`` setting ``input->segments``: ``I.segments`` here is the
        candidate ``input.segments``), or passes on to one that is, down to :data:`PASSED_DEPTH`
        calls (UoB-HPC TeaLeaf's ``read_config(settings)`` -> ``read_settings(f, settings)`` ->
        ``starts_get_int(..., &settings->grid_x_cells)``); None when no call passes it so, or
        different helpers' candidates disagree."""
        root = path_root(name)
        if root == name or root not in self.fdesc.locals:
            return None
        calls = [c for c in self.unit.data.calls if c.function == self.function and c.line <= self.line
                 and (after is None or c.line > after)]
        found = self._candidates_through(calls, root, name[len(root):], PASSED_DEPTH)
        return found.pop() if len(found) == 1 else None

    def _candidates_through(self, calls: list, root: str, rest: str, depth: int) -> set[sp.Expr]:
        """The parameter candidates ``formal`` + ``rest`` of the functions ``calls`` pass ``root``
        (or ``&root``) to, and of the functions those pass their formal on to (``depth`` levels)."""
        found = set()
        for call in calls:
            positions = [i for i, a in enumerate(call.args) if a.replace(" ", "").lstrip("&") == root]
            for unit, index, function in self._definitions(call.callee) if positions else ():
                for position in positions:
                    if position >= len(function.params):
                        continue
                    formal = function.params[position]
                    found |= {parameter_symbol(p) for p in unit.params
                              if p.variable == formal + rest and p.function == index}
                    if depth > 1:
                        inner = [c for c in unit.data.calls if c.function == index]
                        found |= self._candidates_through(inner, formal, rest, depth - 1)
        return found

    def _field_out_argument(self, name: str, after: int | None = None) -> sp.Expr | None:
        """A field of a local struct (or of what a local pointer points to) that a function of the
        program sets through its parameter once, unconditionally, outside loops, the struct passed
        (``&chunk`` or ``settings``) before this point and after line ``after``
        (``initialise_chunk(&chunk, settings)`` with ``chunk->x = settings->grid_x_cells + 2 *
        settings->halo_depth;``, UoB-HPC TeaLeaf): that expression resolved in the callee, its
        parameters replaced by the call's arguments resolved here; the last such call wins.  None
        when no call passes the struct to a function that sets the field."""
        root = path_root(name)
        if root == name or root not in self.fdesc.locals or "[" in name:
            return None
        rest = name[len(root):]
        setting = []  # (call, unit, index, function, its assignments of the field)
        for call in self.unit.data.calls:
            if call.function != self.function or call.line > self.line or (after is not None and call.line <= after):
                continue
            for position, arg in enumerate(call.args):
                if arg.replace(" ", "").lstrip("&") != root:
                    continue
                for unit, index, function in self._definitions(call.callee):
                    if position < len(function.params):
                        sets = [a for a in function.assignments if a.variable == function.params[position] + rest]
                        if sets:
                            setting.append((call, unit, index, function, sets))
        if not setting:
            return None
        call, unit, index, function, sets = max(setting, key=lambda found: (found[0].line, found[0].col))
        sub = Resolver(unit, index, None, function.line, self.param_symbols)
        sub.depth = self.depth + 1
        straight = function.inlined_ops is not None
        if call.loop is not None or self._conditional(call.block) or len(sets) != 1 or sets[0].op != "=" \
                or sets[0].loop is not None or (not straight and sub._conditional(sets[0].block)):
            raise Unresolved(f"'{name}' is set by {call.callee} (line {call.line}) other than once")
        sub.line = sets[0].line
        at_call = Resolver(self.unit, self.function, call.loop, call.line, self.param_symbols)
        at_call.depth = self.depth + 1
        sub.actual = partial(with_arguments, function=function, args=call.args, resolve=at_call)
        return sub.actual(to_sympy(sets[0].text, sub))

    def _definitions(self, name: str):
        """(unit, index, descriptor) of every function of the program called ``name``."""
        for unit in self.unit.peers:
            for index, function in enumerate(unit.functions):
                if function.name == name:
                    yield unit, index, function

    def _passed_after(self, name: str, assignment: Assignment) -> bool:
        """Whether this function passes ``&name`` (or the array ``name`` is an element of) to a call
        after ``assignment`` (on a later line) and before this point: the call, not the assignment
        (an initialiser, Ember sweep3d's ``int myX = -1;``), gives the value here (:meth:`_out_argument`)."""
        return any(assignment.line < c.line <= self.line for c in self._calls_passing(name))

    @staticmethod
    def _passing(name: str) -> dict[str, int]:
        """The arguments (C text without spaces) by which a call may set ``name``, each with the
        element of the callee's parameter that is ``name``: ``&n`` (0); for ``d[1]`` also ``d`` (1)."""
        forms = {f"&{name}": 0}
        element = _ELEMENT.fullmatch(name)
        if element:
            forms[element[1]] = int(element[2])
        return forms

    def _calls_passing(self, name: str) -> list:
        """The calls this function makes that may set ``name`` through an argument: functions of the
        program given ``&name`` or, for an element, its array that they write into; ``MPI_Comm_size``
        and ``MPI_Comm_rank`` given ``&name``."""
        forms = self._passing(name)

        def writes(call) -> bool:
            for position, arg in enumerate(call.args):
                arg = arg.replace(" ", "")
                if arg == f"&{name}":
                    return True
                if arg in forms and any(position < len(f.params) and _writes_into(f, f.params[position])
                                        for _, _, f in self._definitions(call.callee)):
                    return True
            return False

        return [*(c for c in self.unit.data.calls if c.function == self.function and writes(c)),
                *(c for c in self.unit.data.comms if c.function == self.function and c.call in _COMM_QUERIES
                  and any(a.replace(" ", "") == f"&{name}" for a in c.args[1:]))]

    def _out_argument(self, name: str) -> sp.Expr | None:
        """A local (not a parameter candidate) the function gives its value by passing its address
        (or, for an element, its array) to a call before this point (``setup(&n1, lt)``,
        ``setdims(2, d)``; the last such call), to a function of the program that sets it through that
        parameter with one unconditional ``*p = expr;`` (``p[1] = expr;``) outside loops: ``expr``
        resolved in the callee, its parameters replaced by the call's arguments resolved here.  None
        when no call takes it; Unresolved when the value cannot be known that way."""
        if path_root(name) not in self.fdesc.locals or not (name.isidentifier() or _ELEMENT.fullmatch(name)):
            return None
        passing = self._calls_passing(name)
        if not passing:
            return None
        enclosing = {loop.id for loop in self.unit.loop_chain(self.loop)}
        before = [c for c in passing if c.line <= self.line]
        # the last call before here gives the value (NPB MG calls setup(&n1, ...) twice), unless a
        # later one in an enclosing loop changes it for the next iteration
        if not before or any(c.line > self.line and c.loop in enclosing for c in passing):
            raise Unresolved(f"'{name}' is set through its address by calls (line {passing[0].line})")
        call = max(before, key=lambda c: (c.line, c.col))
        if call.loop is not None or self._conditional(call.block):
            raise Unresolved(f"'{name}' is set through its address by calls (line {call.line})")
        if isinstance(call, CommDescriptor):  # MPI_Comm_size(comm, &size) with comm no MPI_COMM_WORLD
            return self._comm_query(call)
        forms = self._passing(name)
        position, offset = next((i, forms[a.replace(" ", "")]) for i, a in enumerate(call.args)
                                if a.replace(" ", "") in forms)
        for unit, index, function in self._definitions(call.callee):
            if position >= len(function.params):
                continue
            param = function.params[position]
            targets = (f"{param}[{offset}]", *((f"*{param}",) if offset == 0 else ()))
            sets = [a for a in function.assignments if a.variable in targets]
            # MPI_Comm_rank(MPI_COMM_WORLD, myPE) with the pointer itself (HOMB's setPEsParams)
            queries = [c for c in unit.data.comms if c.function == index and c.call in _COMM_QUERIES
                       and offset == 0 and len(c.args) == 2 and c.args[1].replace(" ", "") == param]
            sub = Resolver(unit, index, None, function.line, self.param_symbols)
            sub.depth = self.depth + 1
            straight = function.inlined_ops is not None  # a straight-line function: every statement runs
            once = [*sets, *queries]
            if len(once) != 1 or (sets and sets[0].op != "=") or once[0].loop is not None or (
                    not straight and sub._conditional(once[0].block)):
                raise Unresolved(f"'{name}' is set by {call.callee} (line {call.line}) other than once")
            sub.line = once[0].line
            at_call = Resolver(self.unit, self.function, call.loop, call.line, self.param_symbols)
            at_call.depth = self.depth + 1

            sub.actual = partial(with_arguments, function=function, args=call.args, resolve=at_call)
            return sub.actual(sub._comm_query(queries[0]) if queries else to_sympy(sets[0].text, sub))
        raise Unresolved(f"'{name}' is set through its address by {call.callee} (line {call.line})")

    def _comm_query(self, call: CommDescriptor) -> sp.Expr:
        """What ``MPI_Comm_size(comm, &size)`` or ``MPI_Comm_rank(comm, &rank)`` sets: the size of the
        communicator or this rank's rank in it (perfeq.symbolic.communicators)."""
        size, rank = communicator(call.args[0], self.elsewhere(self.unit, self.function, call.loop, call.line))
        if call.call == "MPI_Comm_size":
            return size
        if rank is None:
            raise Unresolved(f"this rank's rank in {call.args[0]} (line {call.line}) is not known")
        return rank

    def _global_value(self, name: str) -> sp.Expr | None:
        """A global this function does not assign: the value of its one assignment in the program
        (``lastcol = NA;`` in main, read in conj_grad), resolved where it is made; None when the
        name is this function's or no function assigns it; Unresolved when it is assigned in
        several places, in a loop, under a condition, or updated."""
        root = path_root(name)
        if root in self.fdesc.params or root in self.fdesc.locals:
            return None
        found = [(unit, index, a) for unit in self.unit.peers for index, f in enumerate(unit.functions)
                 for a in f.assignments if a.variable == name and a.is_global]
        if not found:
            return None
        if len(found) > 1:
            raise Unresolved(f"global '{name}' is assigned in {len(found)} places")
        unit, index, assignment = found[0]
        sub = Resolver(unit, index, assignment.loop, assignment.line, self.param_symbols)
        sub.depth = self.depth
        if assignment.op != "=" or assignment.loop is not None or sub._conditional(assignment.block):
            raise Unresolved(f"global '{name}' is assigned in a loop, under a condition or with {assignment.op}")
        return to_sympy(assignment.text, sub)

    def _induction(self, loop: LoopDescriptor, induction: dict[str, str]) -> sp.Expr:
        """A variable the loop's header steps with its own (``n`` of ``for (ng = nn, n = 0; ...;
        n++, ng++)``): its first value plus its stride per iteration, the iterations counted from the
        loop variable (ng = nn + t, so n = 0 + (ng - nn))."""
        if loop.init is None or loop.stride is None:
            raise Unresolved(f"'{induction['var']}': its loop's variable has no first value or stride")
        outer = Resolver(self.unit, self.function, loop.parent, loop.line, self.param_symbols)
        outer.depth = self.depth
        steps = self._iterations_before(loop, outer)
        return to_sympy(induction["init"], outer) + steps * to_sympy(induction["stride"], outer)

    def _iterations_before(self, loop: LoopDescriptor, header: Resolver) -> sp.Expr:
        """The iterations of ``loop`` before its current one, from its variable: (var - first) /
        stride, first value and stride resolved by ``header`` (at the loop's header)."""
        first, stride = to_sympy(loop.init, header), to_sympy(loop.stride, header)
        if stride == 0:
            raise Unresolved(f"the loop at line {loop.line} has a stride of 0")
        return (loop_symbol(self.unit.key, loop.id, loop.var) - first) / stride

    def _after_loops(self, name: str, chosen: Assignment, enclosing: list[LoopDescriptor],
                     value: sp.Expr) -> sp.Expr:
        """``name``'s value here, ``value`` from its assignment ``chosen``, after the loops between
        that assignment and this point that step it (``lg = 1; while (nn < n) { nn <<= 1; lg++; }
        return lg;``, ``s = 1; for (k < lt) s *= 2;``): each step a first-order recurrence (``y + c``,
        ``y * c``, ``floor(y / c)``, :func:`~perfeq.symbolic.elements.applied`) with an amount the
        iterations do not change, once per iteration of a counted loop that stands unconditionally
        in the same body as the assignment, around this point, applied as often as the loop
        iterates.  Unresolved when such a loop changes it otherwise (its value here is then not the
        assignment's)."""
        enclosing_ids = {loop.id for loop in enclosing}
        seen = self.fdesc.assignments[:self.before]
        position = next(i for i, a in enumerate(seen) if a is chosen)
        for later in seen[position + 1:]:
            if later.variable != name or later.loop is None or later.loop in enclosing_ids:
                continue
            loop = self.unit.loops[later.loop]
            if loop.line >= self.line:
                continue  # not over before here (this point is its header, or comes before it)
            changed = Unresolved(f"'{name}' changes in the loop at line {loop.line} before this point")
            if loop.parent != chosen.loop or self._conditional(later.block) or self._conditional(loop.block):
                raise changed
            g, y = self._step(later, loop)
            at = Resolver(self.unit, self.function, loop.parent, loop.line, self.param_symbols)
            at.depth = self.depth + 1
            counted(loop)
            _, count = step_and_count(loop, at, to_sympy(loop.init, at), to_sympy(loop.bound, at), _sign)
            value = applied(g, y, value, count)
            if value is None:
                raise changed
        return value

    def _step(self, a: Assignment, loop: LoopDescriptor) -> tuple[sp.Expr, sp.Dummy]:
        """(g, y): assignment ``a`` in ``loop`` as the function ``g`` of its variable's value ``y``
        before it, the same in every iteration; Unresolved otherwise."""
        name = a.variable
        y = sp.Dummy(name, integer=True, positive=True)
        text = {"=": a.text, "++": f"{name} + 1", "--": f"{name} - 1"}.get(a.op, f"{name} {a.op[:-1]} ({a.text})")
        step = Resolver(self.unit, self.function, a.loop, a.line, self.param_symbols)
        step.depth, step.fixed = self.depth + 1, {name: y}
        g = to_sympy(text, step)
        if g.free_symbols & LOOP_SYMBOLS:
            raise Unresolved(f"'{name}' changes by an amount that changes in the loop at line {loop.line}")
        return g, y

    def _is_local(self, name: str) -> bool:
        return any(a.variable == name for a in self.fdesc.assignments) or name in self.fdesc.params

    def _assignment(self, name: str, enclosing: list[LoopDescriptor]) -> Assignment | None:
        """The assignment that gives ``name`` its value here, or None; Unresolved if it varies."""
        enclosing_ids = {loop.id for loop in enclosing}
        seen = self.fdesc.assignments[:self.before]
        candidates = [a for a in seen if a.variable == name]
        if not candidates:
            return None
        usable = [a for a in candidates if a.line <= self.line and (a.loop is None or a.loop in enclosing_ids)]
        chosen = usable[-1] if usable else None  # the last before here in source order (several may share a line)
        renewed = set(self._loop_ids(chosen.loop)) if chosen else set()  # loops each iteration of which sets it
        for a in candidates:
            # set in an enclosing loop after this point, and not set again before it in each iteration
            # of that loop: the next iteration sees it here
            if a not in usable and a.loop is not None and (a.line > self.line or self.unit.loops[a.loop].line >= self.line) \
                    and (set(self._loop_ids(a.loop)) & enclosing_ids) - renewed:
                raise _Stepped(f"'{name}' changes inside an enclosing loop (line {a.line})", a)
        if chosen is None:
            if any(a.loop is not None and self.unit.loops[a.loop].line < self.line for a in candidates):
                raise Unresolved(f"'{name}' is assigned only inside loops")
            return None
        if chosen.op == "call":  # MPI_Dims_create(size, 2, dims), memset(a, ...): not what was assigned before
            raise Unresolved(f"'{name}' is set by a call to {chosen.text} (line {chosen.line})")
        if chosen.loop is not None and (chosen.op != "=" or re.search(rf"\b{re.escape(name)}\b", chosen.text)):
            # from its value in the iteration before (``ln = 2 * ln`` earlier in this loop's body)
            raise _Stepped(f"'{name}' changes inside an enclosing loop (line {chosen.line})", chosen)
        if chosen.op != "=":
            raise Unresolved(f"'{name}' is updated with {chosen.op}")
        # set once, under a condition: a formal parameter keeps its value from the call otherwise
        # (an assignment with no block is in a straight-line function: it always runs)
        shortened = chosen.block is not None and path_root(name) in self.fdesc.params
        if (len(candidates) > 1 or shortened) and self._conditional(chosen.block):
            raise _Branched(f"'{name}' is assigned under a condition (line {chosen.line})", chosen, usable)
        return chosen

    def _recurrence(self, name: str, stepped: _Stepped, enclosing: list[LoopDescriptor]) -> sp.Expr:
        """A variable an enclosing loop changes once per iteration by a first-order recurrence
        (FT's ``ln = 2 * ln`` for the butterflies of each stage, a level loop's ``n /= 2``): its value
        at the loop's header applied t times (t + 1 where the change comes before this point),
        t = the loop's iterations so far (:func:`~perfeq.symbolic.elements.applied`: ``y + c``,
        ``y * c``, ``floor(y / c)``).  Only for one unconditional change directly in a counted loop
        with an additive stride; ``stepped`` is raised again otherwise."""
        a = stepped.assignment
        loop = self.unit.loops[a.loop]
        inside = [c for c in self.fdesc.assignments[:self.before]
                  if c.variable == name and c.loop is not None and loop.id in self._loop_ids(c.loop)]
        if (loop.id not in {e.id for e in enclosing} or inside != [a] or self._conditional(a.block)
                or loop.var is None or loop.init is None or loop.stride is None or "=" in loop.stride):
            raise stepped
        try:
            g, y = self._step(a, loop)
        except Unresolved:
            raise stepped from None
        header = Resolver(self.unit, self.function, loop.parent, loop.line, self.param_symbols)
        header.depth = self.depth + 1
        seed, done = header(name), self._iterations_before(loop, header)
        value = applied(g, y, seed, done + 1 if a.line < self.line else done)
        if value is None:
            raise stepped
        return value

    def _loop_ids(self, loop: int | None) -> list[int]:
        """A loop and the loops around it, innermost first."""
        return [descriptor.id for descriptor in self.unit.loop_chain(loop)]

    def _branch_value(self, branched: _Branched) -> sp.Expr:
        """A variable set in a branch of an ``if`` before this point: Piecewise((then value,
        condition), (else value, True)), each value and the condition resolved where they stand.
        Both branches may set it (a block decomposition's ``if (rank < leftover) { first = ...; }
        else { first = ...; }``), or one, the other keeping the value from before the ``if`` (the clamp
        ``hi = lo + B; if (hi > n) hi = n;``, which then must be set in the same loop body).  An ``if``
        that is itself the branch of another (an else-if chain: NPB MG's ``Class = 'S'`` ... ``'A'``
        ... ``'U'``) is wrapped in that one's Piecewise, out to the first ``if`` of the chain.  Only
        when the last assignment in a branch is unconditional in it and nothing after the ``if``
        assigns the variable again; Unresolved otherwise (with the original reason)."""
        chosen = branched.chosen
        branch = self._branch_block(chosen.block)
        cond = self._if_of(branch)
        if cond is None or cond.then_block is None:
            raise branched
        if (cond.else_block is not None and branch == cond.then_block
                and self.line < self.unit.blocks[cond.else_block].line):
            return self._side_value(cond.then_block, chosen, cond, branched)  # here is inside the then branch
        value = sp.Piecewise((self._side_value(cond.then_block, chosen, cond, branched), self._if_condition(cond, chosen, branched)),
                             (self._side_value(cond.else_block, chosen, cond, branched), True))
        while True:  # the if in a branch of an outer one: the value of its other branch where that holds
            branch = self._branch_block(cond.block)
            outer = self._if_of(branch)
            if outer is None or outer.then_block is None or self._within(branch):
                return value  # (here in that branch, after the if: its value is this one)
            other = outer.else_block if branch == outer.then_block else outer.then_block
            try:
                values = {branch: value, other: self._side_value(other, chosen, outer, branched)}
                condition = self._if_condition(outer, chosen, branched)
            except Unresolved:
                # an else-if chain must resolve whole; an if nested in a then branch keeps the value
                # it gives, which holds where that branch runs (here may be inside it)
                if branch == outer.else_block:
                    raise
                return value
            value = sp.Piecewise((values[outer.then_block], condition), (values[outer.else_block], True))
            cond = outer

    def _within(self, branch: int) -> bool:
        """Whether this point is inside ``branch`` (a then or else block): between its first line
        and the last line of the loops, conditions, assignments and calls in it or nested in it."""
        data = self.unit.data
        lines = [self.unit.blocks[branch].line]
        for group in (data.loops, data.conds, data.calls, data.comms):
            lines.extend(d.line for d in group if d.function == self.function and self._inside(d.block, {branch}))
        lines.extend(a.line for a in self.fdesc.assignments if self._inside(a.block, {branch}))
        return lines[0] <= self.line <= max(lines)

    def _if_of(self, branch: int | None):
        """The ``if`` of this function whose then or else block ``branch`` is, or None."""
        if branch is None:
            return None
        return next((c for c in self.unit.data.conds if c.kind == "if" and c.function == self.function
                     and branch in (c.then_block, c.else_block)), None)

    def _side_value(self, side: int | None, chosen: Assignment, cond, branched: _Branched) -> sp.Expr:
        """The value ``chosen``'s variable has at the end of branch ``side`` of ``cond``: its last
        assignment there, directly in the branch and unconditional in it, or the value from before
        the ``if`` where the branch does not set it (or there is no else)."""
        inside = [a for a in branched.usable if side is not None and self._inside(a.block, {side})]
        if not inside:
            return self._before_if(chosen, cond, branched)
        last = inside[-1]
        if last.op != "=" or last.loop != chosen.loop or self._branch_block(last.block) != side:
            raise branched
        sub = Resolver(self.unit, self.function, last.loop, last.line, self.param_symbols)
        sub.depth = self.depth + 1
        return to_sympy(last.text, sub)

    def _if_condition(self, cond, chosen: Assignment, branched: _Branched) -> sp.Basic:
        """An ``if``'s condition, resolved where it is tested."""
        at_if = condition_resolver(self.unit, cond, chosen.loop, self.param_symbols)
        at_if.depth = self.depth + 1
        condition = to_condition(cond.text, at_if)
        if condition.free_symbols & LOOP_SYMBOLS and chosen.loop is None:
            raise branched
        return condition

    def _before_if(self, chosen: Assignment, cond, branched: _Branched) -> sp.Expr:
        """The value ``chosen``'s variable has where the ``if`` is tested: seen with only the
        assignments before the ``if``, and set in the same loop body (or the function, outside
        loops), else an earlier iteration's value could reach it."""
        at_if = condition_resolver(self.unit, cond, chosen.loop, self.param_symbols)
        at_if.depth = self.depth + 1
        earlier = [a for a in self.fdesc.assignments[:at_if.before]
                   if a.variable == chosen.variable and a.line <= cond.line]
        if chosen.loop is not None and (not earlier or earlier[-1].loop != chosen.loop):
            raise branched
        if not earlier and path_root(chosen.variable) not in self.fdesc.params:
            raise branched  # no value before the if that this function gives it
        return at_if(chosen.variable)

    def first_inside(self, blocks: set[int]) -> int | None:
        """The index (source order) of the function's first assignment in ``blocks`` or nested in
        them: a resolver made with it as ``before`` sees the values as they are where the
        condition of those branches is tested, even when an assignment shares its line."""
        return next((i for i, a in enumerate(self.fdesc.assignments) if self._inside(a.block, blocks)), None)

    def _inside(self, block_id: int | None, targets: set[int]) -> bool:
        """Whether a block is one of ``targets`` or nested in one of them."""
        while block_id is not None:
            if block_id in targets:
                return True
            block_id = self.unit.blocks[block_id].anchor
        return False

    def _branch_block(self, block_id: int | None) -> int | None:
        """The then or else block a block runs in directly (through the straight-line blocks after
        statements inside it), or None when it is not directly in a branch."""
        while block_id is not None:
            block = self.unit.blocks[block_id]
            if block.kind in ("then", "else"):
                return block_id
            if block.kind != "after":
                return None
            block_id = block.anchor
        return None


    def _conditional(self, block_id: int | None) -> bool:
        """Whether a block runs only under a condition, within its loop body or function."""
        while block_id is not None:
            block = self.unit.blocks[block_id]
            if block.kind in ("then", "else", "case", "label"):
                return True
            if block.kind in ("body", "entry"):
                return False
            block_id = block.anchor
        return True


def condition_resolver(unit: UnitView, cond, loop: int | None,
                       param_symbols: dict[str, sp.Symbol] | None = None) -> Resolver:
    """The resolver for an ``if``'s condition: names as they are before its branches run."""
    resolver = Resolver(unit, cond.function, loop, cond.line, param_symbols)
    branches = {b for b in (cond.then_block, cond.else_block, *cond.case_blocks) if b is not None}
    resolver.before = resolver.first_inside(branches)
    return resolver


class _Stepped(Unresolved):
    """A variable an enclosing loop changes (``assignment``) after this point."""

    def __init__(self, message: str, assignment: Assignment):
        super().__init__(message)
        self.assignment = assignment


class _Branched(Unresolved):
    """A variable assigned in more than one place, the last of them under a condition."""

    def __init__(self, message: str, chosen: Assignment, usable: list[Assignment]):
        super().__init__(message)
        self.chosen = chosen
        self.usable = usable

