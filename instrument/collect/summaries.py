"""Unit-wide facts about the file's functions, found before they are walked (stage 1, instrument/collect).

Which functions never return (``exit`` and the file's functions that may call it), which are
straight-line code the instrumenter inlines instead of hooking, which reach themselves through the
call graph, and the argument positions of the MPI calls perfeq knows.
"""

from __future__ import annotations

from pycparser import c_ast

from perfeq.instrument.collect.calls import ALLOCATORS, ARGV_CONVERTERS
from perfeq.instrument.collect.walk import callee, find, formal_parameters, mentions_argv, walk
from perfeq.instrument.opcount import ZERO, OpCount, OpCounter, Scope, type_of_decl
from perfeq.runtime.mpi.calls import MPI_CALLS

_NO_RETURN = ("exit", "abort", "longjmp", "siglongjmp", "MPI_Abort", "_exit", "_Exit", "quick_exit")

# what a straight-line function may not hold
_CONTROL = (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Switch, c_ast.Goto, c_ast.Label,
            c_ast.Pragma, c_ast.Break, c_ast.Continue)


def stopping_functions(defined: list[c_ast.FuncDef]) -> set[str]:
    """The library functions that do not return, and the file's functions that may call one
    (directly or through other functions of the file): ``fail(3)`` ending in ``exit(3)``."""
    stoppers = set(_NO_RETURN)
    callees = {fd.decl.name: {n.name.name for n in find(fd.body, c_ast.FuncCall) if isinstance(n.name, c_ast.ID)}
               for fd in defined}
    changed = True
    while changed:
        changed = False
        for name, called in callees.items():
            if name not in stoppers and called & stoppers:
                stoppers.add(name)
                changed = True
    return stoppers


def reaches(callgraph: dict[str, set[str]], start: str, target: str, seen: set[str] | None = None) -> bool:
    """Whether ``start`` calls ``target``, directly or through other functions of the call graph."""
    seen = set() if seen is None else seen
    for called in callgraph.get(start, ()):
        if called == target:
            return True
        if called not in seen:
            seen.add(called)
            if reaches(callgraph, called, target, seen):
                return True
    return False


def address_taken(nodes: list[c_ast.Node], names: set[str]) -> set[str]:
    """The functions of ``names`` that ``nodes`` use other than by calling them by name: passed to
    a library (``qsort(..., compare)``), stored in a pointer or a table."""
    called: set[int] = set()
    used: list[c_ast.ID] = []
    for top in nodes:
        for node in walk(top):
            if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
                called.add(id(node.name))
            elif isinstance(node, c_ast.ID) and node.name in names:
                used.append(node)
    return {n.name for n in used if id(n) not in called}


def straight_line_functions(defined, user_functions, typedefs, fields, globals_,
                            taken: set[str] = frozenset()) -> dict[str, OpCount]:
    """Functions whose body is straight-line code (no loops, branches or jumps) calling only library
    functions or other such functions, with their operations per call (callees included).

    They get no hooks: a call to one adds its operations to the caller's block, which keeps tiny
    helpers (index arithmetic, accessors, hashes) from dominating the instrumented run's time.
    A function whose address is ``taken`` is not one: whoever calls it through the pointer (qsort,
    a table of kernels) adds nothing, so it keeps its hooks and counts its own operations.
    """
    candidates = {fd.decl.name: fd for fd in defined if fd.decl.name != "main" and fd.decl.name not in taken}
    simple: dict[str, OpCount] = {}
    changed = True
    while changed:
        changed = False
        for name, fd in candidates.items():
            if name in simple:
                continue
            callees = _straight_line_callees(fd, user_functions, simple)
            if callees is None:
                continue
            ops = _ops_per_call(fd, typedefs, fields, globals_)
            for called in callees:
                if called in simple:
                    ops = ops + simple[called]
            simple[name] = ops
            changed = True
    return simple


def leaf_functions(defined, user_functions: set[str], functions: set[str], globals_,
                   inlined: dict[str, OpCount]) -> set[str]:
    """Functions (not main, not straight-line) that call no function of the program except
    straight-line ones, none through a pointer, no MPI or OpenMP runtime, allocator or argument
    parser, that hand no function of the program to anything (a comparator to qsort) and hold no
    OpenMP construct: their hooks only count and record loop bounds, so a call
    from this unit's serial code can count into the caller's context (PERFEQ_LEAF_CALLED) instead
    of entering a context of its own: a distance or hash function called per element costs a few
    stores, not a context switch."""
    leaves = set()
    for fd in defined:
        name = fd.decl.name
        if name == "main" or name in inlined or mentions_argv(fd.body):
            continue
        nodes = list(walk(fd.body))
        if any(isinstance(n, c_ast.Pragma) for n in nodes):
            continue
        local = {n.name for n in find(fd.decl.type, c_ast.Decl)} | {
            n.name for n in nodes if isinstance(n, c_ast.Decl) and not isinstance(n.type, c_ast.FuncDecl)}
        if address_taken([fd.body], user_functions):
            continue  # qsort(a, n, size, cmp): the library calls the program back, from the leaf's frame
        if all(_library_call(callee(n), local, user_functions, functions, globals_, inlined)
               for n in nodes if isinstance(n, c_ast.FuncCall)):
            leaves.add(name)
    return leaves


def _library_call(name: str | None, local: set[str], user_functions: set[str], functions: set[str], globals_,
                  inlined: dict[str, OpCount]) -> bool:
    """A call a leaf function may make: a library function perfeq does not hook, or a straight-line
    function of the program (inlined, no hooks)."""
    if name is None or name in local or (name in globals_.names and name not in functions):
        return False  # through a pointer
    if name in user_functions:
        return name in inlined
    return not (_hooked(name) or name.startswith("PMPI_")
                or name in ("fscanf", "scanf", "setjmp", "sigsetjmp", "fork", "pthread_create"))


def _hooked(name: str) -> bool:
    """A library call perfeq hooks or records from: MPI, the OpenMP runtime, an allocator, an
    argument converter or sscanf."""
    return name.startswith(("MPI_", "omp_")) or name in ALLOCATORS or name in ARGV_CONVERTERS or name == "sscanf"


def _straight_line_callees(fd: c_ast.FuncDef, user_functions: set[str], simple: dict[str, OpCount]) -> list | None:
    """The functions a straight-line function calls (one per call); None if ``fd`` is not one yet."""
    name = fd.decl.name
    nodes = list(walk(fd.body))
    if any(isinstance(n, _CONTROL) for n in nodes) or mentions_argv(fd.body):
        return None
    items = fd.body.block_items or []
    if any(isinstance(n, c_ast.Return) for n in items[:-1]):
        return None
    callees = [callee(n) for n in nodes if isinstance(n, c_ast.FuncCall)]
    # a call through a pointer parameter or local (f(x)) may reach any function, hooked or not
    pointers = {n.name for n in find(fd.decl.type, c_ast.Decl)}
    pointers |= {n.name for n in nodes if isinstance(n, c_ast.Decl)}
    if any(c is None or c in pointers or c == name or (c in user_functions and c not in simple)
           or _hooked(c) or c in ("exit", "abort") for c in callees):
        return None
    return callees


def _ops_per_call(fd: c_ast.FuncDef, typedefs, fields, globals_) -> OpCount:
    """The operations of one run of a straight-line function's own statements."""
    scope = Scope(globals_)
    for name, typ in formal_parameters(fd):
        scope.names[name] = type_of_decl(typ, typedefs)
    counter = OpCounter(scope, fields, typedefs)
    ops = ZERO
    for item in fd.body.block_items or []:
        if isinstance(item, c_ast.Decl):
            if item.name:
                scope.names[item.name] = type_of_decl(item.type, typedefs)
            ops = ops + counter.count(item.init)
        else:
            ops = ops + counter.count(item)
    return ops


def mpi_table() -> dict[str, dict[str, int | None]]:
    """Argument positions of the MPI calls perfeq knows, from the one shared spec table."""
    table = {}
    for name, call in MPI_CALLS.items():
        table[name] = {key: getattr(call, key, None) for key in ("count", "datatype", "peer", "root", "comm", "tag")}
    return table
