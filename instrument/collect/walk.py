"""Walks of the pycparser AST and the small facts read off them (stage 1, instrument/collect).

The one pre-order walker (:func:`walk`), its expression-only variant (:func:`expression_nodes`, not
descending into nested statements), and queries every collector module shares: names mentioned,
arrays accessed, the C text of a node.  Read-only; nothing here knows about the source text.
"""

from __future__ import annotations

from collections.abc import Iterator

from pycparser import c_ast, c_generator

# statements that end an expression walk (a statement expression's or a compound literal's body)
STATEMENTS = (c_ast.Compound, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Switch)


def walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """The node and everything below it, in pre-order."""
    yield node
    for child in node:
        yield from walk(child)


def find(node: c_ast.Node | None, *types: type) -> Iterator[c_ast.Node]:
    """The nodes of the given types at or below ``node``, in pre-order."""
    if node is not None:
        yield from (n for n in walk(node) if isinstance(n, types))


def expression_nodes(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """The node and what is below it in pre-order, not descending into nested statements."""
    yield node
    for child in node:
        if not isinstance(child, STATEMENTS):
            yield from expression_nodes(child)


def calls(node: c_ast.Node) -> Iterator[c_ast.FuncCall]:
    """FuncCall nodes of an expression, outermost first, not descending into statements."""
    return (n for n in expression_nodes(node) if isinstance(n, c_ast.FuncCall))


def ternaries(node: c_ast.Node) -> Iterator[c_ast.TernaryOp]:
    """Conditional expressions of an expression, outermost first, not descending into statements."""
    return (n for n in expression_nodes(node) if isinstance(n, c_ast.TernaryOp))


def callee(call: c_ast.FuncCall) -> str | None:
    """The name a call calls; None for a call through an expression."""
    return call.name.name if isinstance(call.name, c_ast.ID) else None


def names(node: c_ast.Node | None) -> set[str]:
    """The identifiers an expression mentions."""
    return {n.name for n in find(node, c_ast.ID)}


# the unary operators that change their operand
INCREMENTS = ("++", "--", "p++", "p--")


def is_id(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


# the names of the command line: main's argv and getopt's optarg (command_line_names adds others)
COMMAND_LINE = frozenset({"argv", "optarg"})


def mentions_argv(node: c_ast.Node, command_line: frozenset[str] = COMMAND_LINE) -> bool:
    """Whether an expression reads the command line: ``argv`` or getopt's ``optarg``, or another
    name of the command line (:func:`command_line_names`)."""
    return bool(command_line & names(node))


def command_line_names(functions: list[c_ast.FuncDef]) -> frozenset[str]:
    """``argv`` and ``optarg``, and the name of the second parameter of every function whose first two
    are ``(int, char **)`` or ``(int, char *[])``: main's, however spelled (Parboil lbm's ``int
    main(int nArgs, char *arg[])``), and a parser's that main hands them to."""
    found = set(COMMAND_LINE)
    for fd in functions:
        params = fd.decl.type.args.params if fd.decl.type.args else []
        if len(params) >= 2 and isinstance(params[0], c_ast.Decl) and isinstance(params[1], c_ast.Decl) \
                and _is_int(params[0].type) and _is_char_pointers(params[1].type) and params[1].name:
            found.add(params[1].name)
    return frozenset(found | _argument_strings(functions, found))


def _argument_strings(functions: list[c_ast.FuncDef], command_line: set[str]) -> set[str]:
    """The ``char *`` parameters of the program's functions that a call gives a command-line
    argument (``levenshtein(argv[1], argv[2])`` with ``n = strlen(s)`` inside: parallel-etudes)."""
    by_name = {fd.decl.name: fd for fd in functions}
    found: set[str] = set()
    for fd in functions:
        for call in find(fd.body, c_ast.FuncCall):
            target = by_name.get(call.name.name) if isinstance(call.name, c_ast.ID) else None
            params = target.decl.type.args.params if target is not None and target.decl.type.args else []
            for param, arg in zip(params, call.args.exprs if call.args else [], strict=False):
                if isinstance(param, c_ast.Decl) and param.name and _is_char_pointer(param.type) \
                        and isinstance(arg, c_ast.ArrayRef) and command_line & names(arg.name):
                    found.add(param.name)
    return found


def _is_char_pointer(typ: c_ast.Node) -> bool:
    """``char *``, ``const char *``."""
    return isinstance(typ, c_ast.PtrDecl) and isinstance(typ.type, c_ast.TypeDecl) \
        and isinstance(typ.type.type, c_ast.IdentifierType) and typ.type.type.names == ["char"]


def _is_int(typ: c_ast.Node) -> bool:
    return isinstance(typ, c_ast.TypeDecl) and isinstance(typ.type, c_ast.IdentifierType) \
        and typ.type.names in (["int"], ["signed", "int"], ["signed"])


def _is_char_pointers(typ: c_ast.Node) -> bool:
    """``char **``, ``char *[]`` (const or not)."""
    if not isinstance(typ, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        return False
    inner = typ.type
    if not isinstance(inner, c_ast.PtrDecl):
        return False
    base = inner.type
    return isinstance(base, c_ast.TypeDecl) and isinstance(base.type, c_ast.IdentifierType) \
        and base.type.names == ["char"]


def lvalue_path(node: c_ast.Node) -> str | None:
    """The canonical spelling (:func:`perfeq.arguments.canonical_lvalue`) of a variable, a struct
    field or an element at a constant index: ``cmd.nx``, ``in->particles`` (``in.particles``),
    ``(&cmd)->nx`` (``cmd.nx``), ``sizes[0]``; None for any other expression."""
    if isinstance(node, c_ast.ID):
        return node.name
    if isinstance(node, c_ast.UnaryOp) and node.op in ("&", "*"):
        return lvalue_path(node.expr)
    if isinstance(node, c_ast.StructRef) and isinstance(node.field, c_ast.ID):
        base = lvalue_path(node.name)
        return f"{base}.{node.field.name}" if base else None
    if isinstance(node, c_ast.ArrayRef) and isinstance(node.subscript, c_ast.Constant) \
            and node.subscript.type == "int" and node.subscript.value.isdigit():
        base = lvalue_path(node.name)
        return f"{base}[{int(node.subscript.value)}]" if base else None
    return None


def element_path(node: c_ast.Node) -> str | None:
    """An element at an index that is no constant: ``nx[k]``, ``m1[lt]``, ``cfg.dims[d+1]``,
    ``dims[i][0]`` (the array's canonical spelling, then each index as pycparser writes it); None
    for anything else, and for what :func:`lvalue_path` spells (constant indices).  What resolution
    reads to find the value of ``nx[k]`` at a symbolic ``k`` (perfeq.symbolic.elements)."""
    if not isinstance(node, c_ast.ArrayRef) or lvalue_path(node) is not None:
        return None
    array, subscripts = array_subscripts(node)
    base = lvalue_path(array)
    if base is None or any(isinstance(n, (c_ast.FuncCall, c_ast.Assignment)) or
                           isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")
                           for subscript in subscripts for n in walk(subscript)):
        return None
    return base + "".join(f"[{generate(subscript)}]" for subscript in subscripts)


def array_subscripts(node: c_ast.Node) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """``(dims, [i, 0])`` of ``dims[i][0]``: the array an element reference starts from and its
    subscripts, outermost dimension first (``(node, [])`` for anything but an array reference)."""
    subscripts = []
    while isinstance(node, c_ast.ArrayRef):
        subscripts.append(node.subscript)
        node = node.name
    return node, subscripts[::-1]


def arrays(node: c_ast.Node) -> set[str]:
    """Names of the arrays and pointers an expression reads or writes through."""
    found = set()
    for n in walk(node):
        base = None
        if isinstance(n, c_ast.ArrayRef):
            base = n.name
        elif isinstance(n, c_ast.UnaryOp) and n.op == "*":
            base = n.expr
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        if isinstance(base, c_ast.BinaryOp):  # *(p + i)
            base = base.left
        if isinstance(base, c_ast.ID):
            found.add(base.name)
    return found


def generate(node: c_ast.Node | None) -> str:
    """C text of a node as pycparser writes it (macros expanded, spacing its own)."""
    return "" if node is None else c_generator.CGenerator().visit(node)


def direct_value(node: c_ast.Node) -> c_ast.Node:
    """The value a statement assigns (``x = (T *) f(...)`` -> the call), casts removed."""
    if isinstance(node, c_ast.Assignment) and node.op == "=":
        node = node.rvalue
    while isinstance(node, c_ast.Cast):
        node = node.expr
    return node


def array_dims(node: c_ast.Node) -> list[c_ast.Node]:
    """The extent expressions of an array declarator, outermost first ([] has none)."""
    dims = []
    while isinstance(node, c_ast.ArrayDecl):
        if node.dim is not None:
            dims.append(node.dim)
        node = node.type
    return dims


def element_text(node: c_ast.Node) -> str | None:
    """The element type of an array declarator, as text."""
    while isinstance(node, c_ast.ArrayDecl):
        node = node.type
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        return " ".join(node.type.names)
    return generate(node) or None


def return_type_names(funcdef: c_ast.FuncDef) -> list[str] | None:
    """The type names a function returns (``["int"]``, ``["unsigned", "long"]``, ``["void"]``);
    None for a pointer, a struct or anything else."""
    returned = funcdef.decl.type.type if isinstance(funcdef.decl.type, c_ast.FuncDecl) else None
    if isinstance(returned, c_ast.TypeDecl) and isinstance(returned.type, c_ast.IdentifierType):
        return returned.type.names
    return None


def formal_parameters(funcdef: c_ast.FuncDef) -> list[tuple[str, c_ast.Node]]:
    """The named parameters of a definition with their declared types, in order; an old-style
    definition's (``f(x, n) double *x; {``) from its declaration list, an undeclared one an int."""
    decl_type = funcdef.decl.type
    if not isinstance(decl_type, c_ast.FuncDecl) or not decl_type.args:
        return []
    declared = {d.name: d.type for d in funcdef.param_decls or [] if isinstance(d, c_ast.Decl)}
    found = []
    for param in decl_type.args.params:
        if isinstance(param, c_ast.Decl) and param.name:
            found.append((param.name, param.type))
        elif isinstance(param, c_ast.ID):
            implicit = c_ast.TypeDecl(param.name, [], None, c_ast.IdentifierType(["int"]))
            found.append((param.name, declared.get(param.name, implicit)))
    return found


def writable_arguments(decl: c_ast.FuncDecl | None, count: int) -> set[int]:
    """The positions among ``count`` arguments of a call to a function declared ``decl`` (no
    definition in the program) through which it may write the caller's variables: a pointer or
    array parameter to something not ``const`` (``int dims[]``, ``void *recvbuf``; not ``const void
    *buf``); with no prototype, and beyond a variadic one's named parameters, every position."""
    params = decl.args.params if decl is not None and decl.args is not None else None
    if params is None:
        return set(range(count))
    found = set()
    for position in range(count):
        if position >= len(params) or isinstance(params[position], c_ast.EllipsisParam):
            if any(isinstance(p, c_ast.EllipsisParam) for p in params):
                found.add(position)
            continue
        typ = getattr(params[position], "type", None)
        if isinstance(typ, (c_ast.PtrDecl, c_ast.ArrayDecl)) and "const" not in getattr(typ.type, "quals", []):
            found.add(position)
    return found


def references(node: c_ast.Node | None) -> list[dict]:
    """The array and pointer references of an expression, in evaluation-free pre-order: each
    ``{"array", "index", "mode", "line"}`` with ``array`` the canonical name of what is indexed
    (``a``, ``grid.u`` for ``grid->u``), ``index`` the C text of each subscript, outermost first
    (``a[i][j]`` -> ``["i", "j"]``, ``*(p + k)`` -> ``["k"]``; None for a dereference whose
    offset is not written, ``*p``), and ``mode`` ``read``, ``write`` (``a[i] = x``) or ``update``
    (``a[i] += x``, ``a[i]++``).  Addresses (``&a[i]``) and ``sizeof`` are not accesses; the
    subscripts' own references (``x[col[k]]`` reads ``col``) are listed too."""
    found: list[dict] = []
    if node is not None:
        _references(node, "read", found)
    return found


def _references(node: c_ast.Node, mode: str, found: list[dict]) -> None:
    if isinstance(node, STATEMENTS):
        return
    if isinstance(node, c_ast.Assignment):
        _references(node.lvalue, "write" if node.op == "=" else "update", found)
        _references(node.rvalue, "read", found)
        return
    if isinstance(node, c_ast.UnaryOp):
        if node.op in ("sizeof", "_Alignof"):
            return
        if node.op == "&":
            _subscript_references(node.expr, found)
            return
        if node.op in ("++", "--", "p++", "p--"):
            _references(node.expr, "update", found)
            return
        if node.op == "*":
            target, offset = node.expr, None
            while isinstance(target, c_ast.Cast):
                target = target.expr
            if isinstance(target, c_ast.BinaryOp) and target.op in ("+", "-"):
                offset = generate(target.right) if target.op == "+" else f"-({generate(target.right)})"
                target = target.left
            name = lvalue_path(target)
            if name is not None:
                found.append({"array": name, "index": None if offset is None else [offset], "mode": mode,
                              "line": node.coord.line if node.coord else 0})
            _references(node.expr, "read", found)
            return
    if isinstance(node, c_ast.ArrayRef):
        base, subscripts = _array_chain(node)
        name = lvalue_path(base)
        if name is not None:
            found.append({"array": name, "index": [generate(s) for s in subscripts], "mode": mode,
                          "line": node.coord.line if node.coord else 0})
        else:
            _references(base, "read", found)
        for subscript in subscripts:
            _references(subscript, "read", found)
        return
    if isinstance(node, c_ast.StructRef):
        _references(node.name, "read", found)
        return
    for child in node:
        _references(child, "read", found)


def _subscript_references(node: c_ast.Node, found: list[dict]) -> None:
    """The references in the subscripts of an address (``&a[idx[i]]`` reads ``idx``)."""
    if isinstance(node, c_ast.ArrayRef):
        base, subscripts = _array_chain(node)
        for subscript in subscripts:
            _references(subscript, "read", found)
        if lvalue_path(base) is None:
            _references(base, "read", found)
    elif isinstance(node, c_ast.UnaryOp) and node.op == "*":
        _references(node.expr, "read", found)


def _array_chain(node: c_ast.ArrayRef) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """``a[i][j]`` -> (``a``, [i, j]): the indexed base and the subscripts, outermost first."""
    subscripts = []
    while isinstance(node, c_ast.ArrayRef):
        subscripts.append(node.subscript)
        node = node.name
    return node, subscripts[::-1]
