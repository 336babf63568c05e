"""Sizes of MPI communicators and this rank's rank in them (symbolic stage).

Part of perfeq stage 3 (symbolic/): what ``MPI_Comm_size(c, &size)`` and ``MPI_Comm_rank(c, &r)``
give at a point of the program, and how many ranks a collective on ``c`` spans, from the
construction of ``c`` in the program (``MPI_Comm_split``, ``MPI_Comm_dup``, groups), or, for a
communicator a function receives as a parameter, from the arguments its callers pass.  Used by
name resolution (perfeq.symbolic.resolve) and the message counts (perfeq.symbolic.counts.comm).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import sympy as sp

from perfeq.arguments import canonical_lvalue
from perfeq.symbolic.cexpr import Unresolved, to_sympy
from perfeq.symbolic.symbols import PROC_NULL, RANK, P, loop_symbol

MAX_DEPTH = 6


def communicator(text: str, resolver, depth: int = 0) -> tuple[sp.Expr, sp.Expr | None]:
    """(size, this rank's rank in it) of the communicator or group ``text`` names at ``resolver``'s
    point (a :class:`~perfeq.symbolic.resolve.Resolver`); the rank None when it cannot be told (a
    group of listed ranks).

    ``MPI_COMM_WORLD``: (P, rank); ``MPI_COMM_SELF``: (1, 0); ``MPI_Comm_dup``, ``MPI_Comm_group``:
    their communicator's; ``MPI_Group_incl(g, n, ...)``: n; ``MPI_Group_excl(g, n, ...)``: g's size
    less n; ``MPI_Comm_create(c, g, ...)``: g's; ``MPI_Comm_split(c, color, ...)`` with color
    ``r / k`` (rows of k consecutive ranks): k (fewer in a last row P does not fill), rank r mod k;
    with color ``r % k`` (columns): the ranks of c congruent to r mod k, rank r / k; a color
    without the rank: c's; color ``r``: (1, 0).  The construction is the last one before the use in
    the same function (a group variable reused for the rows and then the columns), else the unit's
    only one.  A parameter of the function (``my_bcast(data, n, MPI_Comm comm)``) is what every
    call of the function in the program passes, when they agree (none: a callback, taken as
    MPI_COMM_WORLD; different ones: Unresolved).  A handle not built in the unit, or built several
    times elsewhere, is taken as MPI_COMM_WORLD; one built otherwise raises Unresolved.
    """
    text = text.strip()
    if depth > MAX_DEPTH:
        raise Unresolved(f"'{text}': resolution too deep")
    if text in resolver.unit.macros:  # #define COMM MPI_COMM_WORLD
        return communicator(resolver.unit.macros[text], resolver, depth + 1)
    if text == "MPI_COMM_SELF":
        return sp.Integer(1), sp.Integer(0)
    if text == "MPI_COMM_WORLD":
        return P, RANK
    name = canonical_lvalue(text)
    made = _construction(name, resolver)
    if made is None and name and name in resolver.fdesc.params:
        return _passed(name, resolver, depth)
    if made is None:
        return P, RANK  # MPI_COMM_WORLD, or built in several places elsewhere
    at = resolver.elsewhere(resolver.unit, made.function, made.loop, made.line)
    args = made.args

    def value(index: int) -> sp.Expr:
        expr = to_sympy(args[index], at)
        if expr.free_symbols - {P, RANK} - size_symbols(at):
            raise Unresolved(f"'{args[index]}' at line {made.line} is not a function of the sizes, P and the rank")
        return expr

    kind = made.constructor
    if kind in ("MPI_Comm_dup", "MPI_Comm_group") and len(args) == 2:
        return communicator(args[0], at, depth + 1)
    if kind == "MPI_Comm_create" and len(args) == 3:
        return communicator(args[1], at, depth + 1)
    if kind == "MPI_Group_incl" and len(args) == 4:
        size = value(1)
        return size, _listed_position(args[2], size, at)
    if kind == "MPI_Group_excl" and len(args) == 4:
        return communicator(args[0], at, depth + 1)[0] - value(1), None
    if kind == "MPI_Cart_create" and len(args) == 6:  # the ranks in their order (reorder is not done)
        return communicator(args[0], at, depth + 1)
    if kind == "MPI_Cart_sub" and len(args) == 3:
        return _sub(made, resolver)
    if kind == "MPI_Comm_split" and len(args) == 4:
        size, rank = communicator(args[0], at, depth + 1)
        if rank is None:
            raise Unresolved(f"a split of a group of listed ranks at line {made.line}")
        return _split(value(1), size, rank, made.line)
    raise Unresolved(f"{kind} at line {made.line}")


def _listed_position(array: str, size: sp.Expr, at) -> sp.Expr | None:
    """This rank's rank in a group of ``size`` listed ranks (``MPI_Group_incl(g, n, ranks, ...)``)
    when the list is a run of ranks with a constant step that holds the rank itself: ``ranks[0] =
    me / npcol * npcol; for (i = 1; i < npcol; i++) ranks[i] = ranks[i - 1] + 1;`` (the ParRes
    Kernels' DGEMM: its row, then ``+ npcol`` its column, the same array reused) or ``for (i = 0; i <
    n; i++) ranks[i] = a + i * c;``: (rank - first) / step, checked for every rank of P = 1..32
    processes; None otherwise (the rank cannot be told).  The list is the one written last before
    the group is made, in the same function."""
    if not array.isidentifier():
        return None
    found = _listed_run(array, at)
    if found is None:
        return None
    first, step = found
    if RANK in step.free_symbols or step == 0:
        return None
    position = sp.simplify((RANK - first) / step)
    if not position.free_symbols <= {P, RANK} or not size.free_symbols <= {P}:
        return None
    for procs in range(1, 33):
        for rank in range(procs):
            point = {P: procs, RANK: rank}
            where, count = position.subs(point), size.subs(point)
            if not (where.is_integer and count.is_number and 0 <= where < count):
                return None
    return position


def _listed_run(array: str, at) -> tuple[sp.Expr, sp.Expr] | None:
    """(first, step) of the list of ranks ``array`` holds at the resolver's point: its last
    assignment in a loop before the point, a recurrence on the element before (seeded by the last
    ``array[0] = ...`` before the loop) or a line in the loop's variable."""
    writes = [a for a in at.fdesc.assignments if a.variable.startswith(array + "[") and a.line < at.line]
    looped = [a for a in writes if a.loop is not None]
    if not looped:
        return None
    last = max(looped, key=lambda a: a.line)
    loop = at.unit.loops[last.loop]
    if loop.var is None or last.variable.replace(" ", "") != f"{array}[{loop.var}]" or last.op != "=":
        return None
    inside = at.elsewhere(at.unit, at.function, last.loop, last.line)
    recurrence = re.fullmatch(rf"\s*{array}\s*\[\s*{loop.var}\s*-\s*1\s*\]\s*\+\s*(.+)", last.text)
    try:
        if recurrence:
            seeds = [a for a in writes if a.loop is None and a.variable.replace(" ", "") == f"{array}[0]"
                     and a.line < loop.line]
            if not seeds:
                return None
            seed = max(seeds, key=lambda a: a.line)
            first = to_sympy(seed.text, at.elsewhere(at.unit, at.function, None, seed.line))
            return first, to_sympy(recurrence.group(1), inside)
        k = loop_symbol(at.unit.key, loop.id, loop.var)
        value = to_sympy(last.text, inside)
        outer = at.elsewhere(at.unit, at.function, loop.parent, loop.line)
        if to_sympy(loop.init, outer) != 0 or not sp.Poly(value, k).degree() == 1:
            return None
        return value.subs(k, 0), sp.diff(value, k)
    except (Unresolved, sp.PolynomialError):
        return None


def _construction(name: str | None, resolver):
    """The construction of the handle ``name`` that reaches the resolver's point: the last one
    before it in the same function (a handle reused), else the unit's only one; None when there
    is none here (a parameter's, MPI_COMM_WORLD) or several elsewhere."""
    built = [c for c in resolver.unit.data.communicators if c.name == name] if name else []
    before = [c for c in built if c.function == resolver.function and c.line < resolver.line]
    if before:
        return max(before, key=lambda c: c.line)
    if name and name in resolver.fdesc.params:
        return None
    return built[0] if len(built) == 1 else None


def _grid(text: str, resolver) -> tuple[list[sp.Expr], Callable[[str, int], sp.Expr], sp.Expr, object]:
    """(sides, element, rank, construction) of the Cartesian communicator ``text`` at the
    resolver's point, built by ``MPI_Cart_create(old, ndims, dims, periods, reorder, &text)`` with
    sides that resolve (``MPI_Dims_create``'s grid_hi(P), grid_lo(P), grid3(P, k), constants,
    sizes); ``element(array, k)`` resolves ``array[k]`` at the construction, and ``rank`` is the
    rank in ``old`` (reorder is not done).  Unresolved for any other construction."""
    made = _construction(canonical_lvalue(text.strip()), resolver)
    if made is None or made.constructor != "MPI_Cart_create" or len(made.args) != 6:
        raise Unresolved(f"'{text}' is no Cartesian communicator built in this unit")
    at = resolver.elsewhere(resolver.unit, made.function, made.loop, made.line)
    ndims = to_sympy(made.args[1], at)
    if not (ndims.is_Integer and 0 < int(ndims) <= 8):
        raise Unresolved(f"a grid of {ndims} dimensions (line {made.line})")

    def element(array: str, k: int, where=at) -> sp.Expr:
        value = to_sympy(f"({array})[{k}]", where)
        if value.free_symbols - {P} - size_symbols(where):
            raise Unresolved(f"'{array}[{k}]' at line {made.line} is not a function of the sizes and P")
        return value

    _, rank = communicator(made.args[0], at)
    if rank is None:
        raise Unresolved(f"the rank in the communicator of line {made.line} cannot be told")
    return [element(made.args[2], k) for k in range(int(ndims))], element, rank, made


def _coordinate(dims: list[sp.Expr], k: int, rank: sp.Expr) -> sp.Expr:
    """Coordinate ``k`` of ``rank`` on a grid of ``dims`` in MPI's row-major order."""
    return sp.Mod(sp.floor(rank / sp.Mul(*dims[k + 1:])), dims[k])


def cart_coordinate(text: str, rank: sp.Expr, k: sp.Expr, resolver) -> sp.Expr:
    """Coordinate ``k`` of ``rank`` on the Cartesian communicator ``text`` (``MPI_Cart_coords``)."""
    dims, _, _, _ = _grid(text, resolver)
    if not k.is_Integer or not 0 <= int(k) < len(dims):
        raise Unresolved(f"coordinate {k} of a grid of {len(dims)} dimensions")
    return _coordinate(dims, int(k), rank)


def cart_rank(text: str, coords: str, resolver) -> sp.Expr:
    """The rank ``MPI_Cart_rank(text, coords, &r)`` gives: row-major over the grid's sides, each
    coordinate ``coords[k]`` resolved where the call stands (a periodic grid's out-of-range
    coordinates are not wrapped).  Coordinates all 0 are rank 0 on any grid, also one passed in
    from another function (Jacobi3D's ``MPI_Cart_rank(cart_comm, c, &root)``, ``c = {0, 0, 0}``)."""
    try:
        dims, _, _, _ = _grid(text, resolver)
    except Unresolved:
        if _all_zero(coords, resolver):
            return sp.Integer(0)
        raise
    rank = sp.Integer(0)
    for k in range(len(dims)):
        coordinate = to_sympy(f"({coords})[{k}]", resolver)
        if coordinate.free_symbols - {P, RANK} - size_symbols(resolver):
            raise Unresolved(f"'{coords}[{k}]' is not a function of the sizes, P and the rank")
        rank += coordinate * sp.Mul(*dims[k + 1:])
    return rank


def _all_zero(coords: str, resolver) -> bool:
    """Whether the elements of ``coords`` that resolve, from the first (at least one), are all 0."""
    values = []
    for k in range(8):
        try:
            values.append(to_sympy(f"({coords})[{k}]", resolver))
        except Unresolved:
            break
    return bool(values) and all(v == 0 for v in values)


def cart_neighbour(text: str, direction: sp.Expr, disp: sp.Expr, resolver) -> sp.Expr:
    """The rank ``MPI_Cart_shift(text, direction, ...)`` gives as the neighbour ``disp`` steps along
    ``direction`` (the source is -disp, the destination +disp) at the resolver's point, on the grid
    of :func:`_grid`: ranks in row-major order, as MPI numbers a grid's coordinates, coordinate
    ``c_k = floor(rank / s_k) mod d_k``, ``s_k`` the product of the later sides.  Off the edge of
    a dimension that is not periodic: PROC_NULL (MPI_PROC_NULL); periodic: wrapped around."""
    dims, element, rank, made = _grid(text, resolver)
    if not direction.is_Integer or not 0 <= int(direction) < len(dims):
        raise Unresolved(f"MPI_Cart_shift along {direction} of a grid of {len(dims)} dimensions")
    k = int(direction)
    periodic = element(made.args[3], k)
    if not periodic.is_Integer:
        raise Unresolved(f"the period of dimension {k} at line {made.line} is not a constant")
    stride, coordinate = sp.Mul(*dims[k + 1:]), _coordinate(dims, k, rank)
    if periodic != 0:
        return rank + (sp.Mod(coordinate + disp, dims[k]) - coordinate) * stride
    return sp.Piecewise((rank + disp * stride, (coordinate + disp >= 0) & (coordinate + disp < dims[k])),
                        (PROC_NULL, True))


def _sub(made, resolver) -> tuple[sp.Expr, sp.Expr]:
    """(size, rank) of ``MPI_Cart_sub(cart, remain, &sub)``: the sides kept (``remain[k]`` a
    constant, resolved where the call stands), the rank row-major over their coordinates."""
    at = resolver.elsewhere(resolver.unit, made.function, made.loop, made.line)
    dims, element, rank, _ = _grid(made.args[0], at)
    kept = []
    for k in range(len(dims)):
        keep = element(made.args[1], k, at)
        if not keep.is_Integer:
            raise Unresolved(f"'{made.args[1]}[{k}]' at line {made.line} is not a constant")
        if keep != 0:
            kept.append(k)
    size, sub_rank = sp.Integer(1), sp.Integer(0)
    for k in reversed(kept):
        sub_rank += _coordinate(dims, k, rank) * size
        size *= dims[k]
    return size, sub_rank


def _passed(name: str, resolver, depth: int) -> tuple[sp.Expr, sp.Expr | None]:
    """The communicator every call of the resolver's function passes as its parameter ``name``."""
    function = resolver.fdesc
    position = function.params.index(name)
    found = set()
    for unit in resolver.unit.peers:
        for call in unit.data.calls:
            if call.callee != function.name or position >= len(call.args):
                continue
            caller = resolver.elsewhere(unit, call.function, call.loop, call.line)
            found.add(communicator(call.args[position], caller, depth + 1))
    if len(found) > 1:
        raise Unresolved(f"the calls of {function.name} pass different communicators as '{name}'")
    return found.pop() if found else (P, RANK)


def _split(color: sp.Expr, size: sp.Expr, rank: sp.Expr, line: int) -> tuple[sp.Expr, sp.Expr]:
    """(size, rank) of this rank's part of a communicator of ``size`` split by ``color`` (keys in
    rank order)."""
    if RANK not in color.free_symbols:
        return size, rank
    if color == rank:
        return sp.Integer(1), sp.Integer(0)
    if isinstance(color, sp.floor):  # rank / k: k consecutive ranks, the last row what is left
        k = sp.simplify(rank / color.args[0])
        if RANK not in k.free_symbols:
            return sp.Min(k, size - k * color), sp.Mod(rank, k)
    if isinstance(color, sp.Mod) and color.args[0] == rank and RANK not in color.args[1].free_symbols:
        k = color.args[1]  # rank % k: every k-th rank
        return sp.floor((size - 1 - sp.Mod(rank, k)) / k) + 1, sp.floor(rank / k)
    raise Unresolved(f"the color {color} at line {line} is not rank / k or rank % k")


def size_symbols(resolver) -> set:
    """The problem-size symbols a resolver knows (P and the rank are not among them)."""
    return {s for s in resolver.param_symbols.values() if isinstance(s, sp.Symbol)}
