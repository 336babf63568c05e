"""Values of array elements at symbolic indices (symbolic stage, name resolution).

Part of perfeq stage 3 (symbolic/), used by :class:`~perfeq.symbolic.resolve.Resolver` for a C
``a[e]`` whose index is no constant.  Multigrid codes keep the sizes of their levels in small
integer arrays filled once (NPB MG's ``setup``)::

    fscanf(fp, "%d", &nx[lt]);                                 /* the finest level: read */
    for (k = lt - 1; k >= 1; k--) nx[k] = nx[k + 1] / 2;       /* a recurrence down the levels */
    for (k = 1; k <= lt; k++) m1[k] = nx[k] + 2;               /* a value of each level */

and the solver's loops run to ``m1[k]`` inside a loop over the levels.  The value of ``a[i]`` is
found from the program's assignments to elements of ``a`` (recorded by the instrumenter for
one-dimensional integer arrays, walk.element_path) and the parameters read into one of its
elements:

* a parameter read at ``a[j]`` (``&nx[lt]``) where ``j`` is ``i``: the parameter;
* one assignment ``a[k] = f(k)`` in a loop over ``k``: ``f(i)``;
* one recurrence ``a[k] = g(a[k + d])`` in a loop stepping ``k`` by ``-d``, whose first value reads
  an element ``a[b]`` known otherwise: ``g`` applied ``(b - i) / d`` times to ``a[b]``, in closed
  form for ``g(y) = y + c``, ``y * c`` and ``floor(y / c)``;
* assignments ``a[j] = v`` outside loops, at different indices: ``v`` where ``j`` is ``i`` (the first
  element of a recurrence is often set so: ``len[0] = n``).

Anything else (assignments in several loops, an update, a condition, another recurrence) is
:class:`Unresolved`, and the loop falls back to a fit as before.  Whether ``i`` lies in the range
the loop filled is not checked: a wrong value shows as a trip count that does not reproduce the
run, which the count model checks for every loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from perfeq.arguments import path_root
from perfeq.symbolic.cexpr import Unresolved, to_sympy, with_arguments
from perfeq.symbolic.symbols import LOOP_SYMBOLS, formal_arguments, loop_symbol, parameter_symbol

if TYPE_CHECKING:
    from perfeq.symbolic.resolve import Resolver


_INDEX = sp.Dummy("i", integer=True)  # the index of a value found for every element


def element_value(r: Resolver, base: str, index: sp.Expr, exclude: frozenset = frozenset()) -> sp.Expr:
    """The value of ``base[index]`` seen by resolver ``r`` (see the module's docstring);
    ``exclude``: assignments (unit key, line, text) not to use (the recurrence whose base is sought)."""
    # setup's nx[lt] is main's: with the arguments of the call being resolved, else of all its calls
    actual = r.actual if r.actual is not None else (lambda i: _actualize(r, i))
    if isinstance(index, tuple):
        return _multi(r, base, tuple(actual(i) for i in index))
    index = actual(index)
    local = base in r.fdesc.locals or base in r.fdesc.params
    if index.is_Integer and base in r.fdesc.params:  # d[0] of an array parameter: the caller's (d is dims[0])
        return r(f"{base}[{index}]")
    found = _parameter(r, base, index, local)
    if found is not None:
        return found
    key = (base, exclude, r.function if local else None)
    cache = r.unit.element_values  # the program's: every loop of every context asks again
    if key not in cache:
        try:
            cache[key] = _definition(r, base, exclude, local)
        except Unresolved as exc:
            cache[key] = exc
    if isinstance(cache[key], Unresolved):
        if index.is_Integer:  # logd[i] = ilog2(d[i]), sought at 0: the loop's variable is 0 in it
            return _at_index(r, base, index, exclude, local, cache[key])
        raise cache[key]
    if isinstance(cache[key], sp.Expr):
        return cache[key].subs(_INDEX, index)
    for at, value in cache[key]:
        if _same(index, at):
            return value
    raise Unresolved(f"'{base}[...]' is set at single elements, not at the one sought")


def _definition(r: Resolver, base: str, exclude: frozenset, local: bool) -> sp.Expr | list[tuple[sp.Expr, sp.Expr]]:
    """The value the definitions of ``base``'s elements give: an expression of _INDEX for every
    element, or (index, value) for each element set alone (outside loops, at different indices)."""
    params = _parameter_subscripts(r, base, local)
    defs = [(unit, fi, a) for unit, fi, a in _vector_definitions(r, base, exclude, local)
            if (fi, _subscript(a.variable)) not in params]
    if not defs:
        raise Unresolved(f"'{base}[...]' has no value perfeq can follow")
    for _, _, a in defs:
        if a.op != "=":
            raise Unresolved(f"'{base}[...]' is updated with {a.op} (line {a.line})")
    looped = [d for d in defs if d[2].loop is not None]
    if not looped:
        return _single_elements(r, base, defs)
    # with others: one assignment in a loop, and outside loops the first elements of its recurrence
    # (len[0] = n; for (k = 1; ...) len[k] = len[k - 1] * 2)
    if len(looped) > 1:
        raise Unresolved(f"'{base}[...]' is assigned in {len(looped)} loops")
    unit, fi, a = looped[0]
    at = _resolver(r, unit, fi, a.loop, a.line)
    if at._conditional(a.block):
        raise Unresolved(f"'{base}[...]' is assigned under a condition (line {a.line})")
    subscript = _subscript(a.variable)
    loop = unit.loops[a.loop]
    if loop.var != subscript:
        raise Unresolved(f"'{base}[{subscript}]' (line {a.line}) is not indexed by its loop's variable")
    k = loop_symbol(unit.key, loop.id, loop.var)
    y = sp.Dummy("y", integer=True)  # the recorded arrays hold integers
    at.recurrence = (base, y, [])
    value = to_sympy(a.text, at)
    reads = at.recurrence[2]
    if (value.free_symbols & LOOP_SYMBOLS) - {k}:
        raise Unresolved(f"'{base}[{subscript}]' (line {a.line}) depends on an enclosing loop")
    value = _actualize(at, value)
    if not reads and len(defs) > 1:
        raise Unresolved(f"'{base}[...]' is assigned in {len(defs)} places")
    if not reads:
        return value.subs(k, _INDEX)
    return _recurrence(r, (unit, fi, a), loop, k, value, y, reads, _INDEX, exclude)


def _at_index(r: Resolver, base: str, index: sp.Integer, exclude: frozenset, local: bool,
              failed: Unresolved) -> sp.Expr:
    """``base[index]`` at a constant index from the assignment ``base[s(k)] = f(k)`` in a loop over
    ``k`` whose subscript ``s(k)`` is ``index`` at one whole ``k`` (``nb[2 * d]`` and ``nb[2 * d +
    1]`` of a loop over the dimensions d, one ``MPI_Cart_shift`` each), resolved with ``k`` that
    value (what does not resolve for every ``k``, an array parameter's ``d[k]``, may at a constant
    one: ``d[0]``); ``failed`` raised otherwise: another assignment, none or several that fit."""
    defs = list(_vector_definitions(r, base, exclude, local))
    if not defs or any(a.loop is None or a.op != "=" for _, _, a in defs):
        raise failed
    found = []
    for unit, fi, a in defs:
        loop = unit.loops[a.loop]
        at = _resolver(r, unit, fi, a.loop, a.line)
        if at._conditional(a.block) or loop.var is None:
            raise failed
        k = loop_symbol(unit.key, loop.id, loop.var)
        try:
            subscript = to_sympy(_subscripts(a.variable)[0], at)
        except Unresolved:
            raise failed from None
        if subscript.free_symbols != {k}:
            raise failed
        solutions = sp.solve(sp.Eq(subscript, index), k)
        if len(solutions) == 1 and solutions[0].is_Integer:
            found.append((at, loop, solutions[0], a))
    if len(found) != 1:
        raise failed
    at, loop, k_value, a = found[0]
    at.fixed = {loop.var: k_value}
    try:
        value = to_sympy(a.text, at)
    except Unresolved:
        raise failed from None
    if value.free_symbols & LOOP_SYMBOLS:
        raise failed
    return _actualize(at, value)


def _multi(r: Resolver, base: str, index: tuple[sp.Expr, ...]) -> sp.Expr:
    """``base[i][j]...`` of a multi-dimensional array: the one assignment whose constant indices
    are the sought ones and whose other index, if any, is its loop's variable (``dims[i][0] = nx``
    in a loop over ``i``: ``dims[2][0]`` is nx), unconditional; Unresolved otherwise."""
    local = base in r.fdesc.locals or base in r.fdesc.params
    found = []
    for unit, fi, a in _definitions(r, base, local):
        subscripts = _subscripts(a.variable)
        if len(subscripts) != len(index):
            continue
        at = _resolver(r, unit, fi, a.loop, a.line)
        loop = unit.loops[a.loop] if a.loop is not None else None
        fixed, matches = {}, True
        for text, sought in zip(subscripts, index, strict=True):
            if loop is not None and text == loop.var:
                fixed[text] = sought
                continue
            value = to_sympy(text, at)
            if not (value.is_number and sought.is_number):
                raise Unresolved(f"'{base}' is set at {a.variable} (line {a.line}), not comparable with the index sought")
            matches = matches and value == sought
        if matches:
            found.append((at, a, fixed))
    if len(found) != 1:
        raise Unresolved(f"'{base}[...]' is set at {len(found)} places for the element sought")
    at, a, fixed = found[0]
    if a.op != "=" or at._conditional(a.block) or len(fixed) > 1:
        raise Unresolved(f"'{a.variable}' (line {a.line}) is no single unconditional assignment over its loop")
    at.fixed = fixed
    value = to_sympy(a.text, at)
    if value.free_symbols & LOOP_SYMBOLS:
        raise Unresolved(f"'{a.variable} = {a.text}' (line {a.line}) depends on a loop")
    return _actualize(at, value)


def _single_elements(r: Resolver, base: str, defs) -> list[tuple[sp.Expr, sp.Expr]]:
    """(index, value) of each element set alone, unconditionally and once (``len[0] = n``)."""
    found = []
    for unit, fi, a in defs:
        at = _resolver(r, unit, fi, None, a.line)
        if at._conditional(a.block):
            raise Unresolved(f"'{base}[...]' is assigned under a condition (line {a.line})")
        found.append((_actualize(at, to_sympy(_subscript(a.variable), at)), _actualize(at, to_sympy(a.text, at))))
    indices = [index for index, _ in found]
    if any(_same(i, j) for n, i in enumerate(indices) for j in indices[n + 1:]):
        raise Unresolved(f"an element of '{base}' is assigned in several places")
    return found


def _recurrence(r: Resolver, definition, loop, k: sp.Symbol, g: sp.Expr, y: sp.Dummy,
                reads: list[sp.Expr], index: sp.Expr, exclude: frozenset) -> sp.Expr:
    """``a[k] = g(a[k + d])`` stepped by ``-d`` from its first ``k``: ``a[index]`` in closed form."""
    unit, fi, a = definition
    base = path_root(a.variable)
    offsets = {sp.expand(read - k) for read in reads}
    outer = _resolver(r, unit, fi, loop.parent, loop.line)
    stride = to_sympy(loop.stride, outer) if loop.stride is not None else None
    if len(offsets) != 1 or stride is None or not stride.is_integer or stride == 0 \
            or sp.expand(offsets.pop() + stride) != 0:
        raise Unresolved(f"'{a.variable} = {a.text}' (line {a.line}) is no first-order recurrence over its loop")
    d = -stride
    if g.has(k):
        raise Unresolved(f"'{a.variable} = {a.text}' (line {a.line}) changes with its index")
    start = to_sympy(loop.init, outer) if loop.init is not None else None
    if start is None:
        raise Unresolved(f"the loop of '{a.variable}' (line {loop.line}) has no first value")
    first = _actualize(outer, start + d)  # the element its first iteration reads
    seed = element_value(r, base, first, exclude | {(unit.key, a.line, a.text)})
    steps = sp.expand((first - index) / d)
    value = applied(g, y, seed, steps)
    if value is None:
        raise Unresolved(f"'{a.variable} = {a.text}' (line {a.line}): no closed form for this recurrence")
    return value


def applied(g: sp.Expr, y: sp.Dummy, seed: sp.Expr, steps: sp.Expr) -> sp.Expr | None:
    """``g`` (of ``y``) applied ``steps`` times to ``seed``, in closed form for ``y + c``, ``y * c``
    and ``floor(y / c)``; None for other recurrences."""
    increment = sp.expand(g - y)
    if not increment.has(y):
        return seed + increment * steps
    factor = sp.cancel(g / y)
    if not factor.has(y):
        return seed * factor**steps
    if isinstance(g, sp.floor):
        ratio = sp.cancel(g.args[0] / y)
        if not ratio.has(y) and ratio.is_positive:
            return sp.floor(seed * ratio**steps)
    return None


def _actualize(at: Resolver, expr: sp.Expr) -> sp.Expr:
    """``expr``, resolved in a function, with the function's parameters replaced by the one value
    every call of it in the program passes (``setup(&n1, &n2, &n3, lt)`` from main: setup's ``lt``
    is main's); Unresolved when calls pass different values or none is found."""
    formals = formal_arguments(at.fdesc.name, at.fdesc.params, at.fdesc.params, expr.free_symbols)
    if not formals:
        return expr
    calls = [(unit, c) for unit in at.unit.peers for c in unit.data.calls if c.callee == at.fdesc.name]
    if not calls:
        raise Unresolved(f"{at.fdesc.name}'s parameters in an array's value, and no call of it")
    values = set()
    for unit, call in calls:
        values.add(with_arguments(expr, at.fdesc, call.args, _resolver(at, unit, call.function, call.loop, call.line)))
    if len(values) > 1:
        raise Unresolved(f"calls of {at.fdesc.name} pass different values to an array's value")
    return values.pop()


def _parameter(r: Resolver, base: str, index: sp.Expr, local: bool) -> sp.Expr | None:
    """The parameter read at ``base[j]`` with ``j`` equal to ``index``, or None."""
    for unit, p in _parameters(r, base, local):
        at = _resolver(r, unit, p.function, None, p.line)
        try:
            j = to_sympy(_subscript(p.variable), at)
        except Unresolved:
            continue
        if _same(index, j):
            return r.param_symbols.get(p.variable, parameter_symbol(p))
    return None


def _parameter_subscripts(r: Resolver, base: str, local: bool) -> set[tuple[int, str]]:
    """(function, subscript text) of the parameters read into elements of ``base``: an assignment
    to the same element in that function is the value it has when the read does not happen (NPB
    MG's ``nx[lt] = NX_DEFAULT`` without an input file), not another definition."""
    return {(p.function, _subscript(p.variable)) for _, p in _parameters(r, base, local)}


def _parameters(r: Resolver, base: str, local: bool):
    units = [r.unit] if local else r.unit.peers
    for unit in units:
        for p in unit.params:
            if p.function is None or not p.variable.startswith(base + "[") or path_root(p.variable) != base:
                continue
            if local and p.function != r.function:
                continue
            yield unit, p


def _definitions(r: Resolver, base: str, local: bool):
    """(unit, function, assignment) of every assignment to an element of ``base``."""
    if local:
        sources = [(r.unit, r.function, r.fdesc)]
    else:
        sources = [(unit, fi, f) for unit in r.unit.peers for fi, f in enumerate(unit.functions)
                   if base not in f.locals and base not in f.params]
    for unit, fi, function in sources:
        for a in function.assignments:
            if path_root(a.variable) == base and a.variable.startswith(base + "[") and (local or a.is_global):
                yield unit, fi, a


def _vector_definitions(r: Resolver, base: str, exclude: frozenset, local: bool):
    """:func:`_definitions` of ``base[k]`` with one index, but those in ``exclude``."""
    for unit, fi, a in _definitions(r, base, local):
        if (unit.key, a.line, a.text) not in exclude and len(_subscripts(a.variable)) == 1:
            yield unit, fi, a


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    """Whether two indices are provably equal (``lt`` and ``(lt - 1) + 1``)."""
    return a == b or sp.expand(a - b) == 0


def _subscript(path: str) -> str:
    """``k + 1`` of ``nx[k + 1]``."""
    return path[path.index("[") + 1:-1]


def _subscripts(path: str) -> list[str]:
    """``["i", "0"]`` of ``dims[i][0]``: each index's text, the brackets at depth 0 split."""
    found, depth, start = [], 0, None
    for position, char in enumerate(path):
        if char == "[":
            if depth == 0:
                start = position + 1
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                found.append(path[start:position])
    return found


def _resolver(r: Resolver, unit, function: int, loop: int | None, line: int) -> Resolver:
    at = type(r)(unit, function, loop, line, r.param_symbols)
    at.depth = r.depth + 1
    return at
