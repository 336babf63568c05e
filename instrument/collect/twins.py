"""Twins of leaf functions: a copy that takes its caller's slots as arguments (stage 1).

A leaf function called from a leaf call site of its unit counts into the caller's context
(PERFEQ_LEAF_CALLED, perfeq_rt.h): the call announces the site through thread-local state and the
leaf's PERFEQ_LEAF_BEGIN checks it, which keeps the compiler from inlining a leaf it inlines in the
plain build (Rodinia k-means' ``euclid_dist_2``, eight flops per call: the instrumented run 2.3x the
plain one, 1.8x with the twin).  So the instrumenter emits, after such a function ``f``, a static
copy ``perfeq__twin__f`` of its instrumented body whose first two parameters are the caller's slots
for the site (``perfeq__c``, ``perfeq__lv``), and the site calls it directly:
``PERFEQ_LEAF_TWIN(unit, k, f)(PERFEQ_LEAF_ARGS(unit, k) args)``.  The counts are the same.

Only a function whose copy behaves as the original: defined in the unit's own text, with a
prototype (not K&R), not variadic, no ``static`` locals (a copy would have its own) and no
``__func__`` (it would name the copy).  Its prototype goes before each caller defined before it.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from perfeq.instrument.collect.walk import find

PREFIX = "perfeq__twin__"  # (the runtime's own names never have two underscores after twin)
# the slots of the caller for the site, first in the copy's parameters
SLOT_PARAMETERS = ("perfeq_count_t *perfeq__c __attribute__((unused)), "
                   "perfeq_value_stat_t *perfeq__lv __attribute__((unused))")
# compiled only where the leaves count into their callers (not with PERFEQ_OFF or PERFEQ_NO_LEAVES);
# a parameter the original marks unused (the attribute is not in the parsed declaration) must not
# break a -Werror build through the copy
GUARD = "#if PERFEQ__TWINS\n#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wunused-parameter\""
END_GUARD = "#pragma GCC diagnostic pop\n#endif"
_FUNCTION_NAMES = {"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"}


@dataclass
class Twin:
    """One leaf function's copy: its header, where its body is, who calls it."""

    name: str
    header: str  # ``static ... perfeq__twin__f(perfeq_count_t *perfeq__c, ..., params)``
    defined_at: int  # where the function's definition starts
    start: int = -1  # offset after the body's '{' (PERFEQ_LEAF_BEGIN's insertion is left out)
    end: int = -1  # offset after the body's '}'
    line: int = 0  # the line of the body's '{'
    begin_seq: int | None = None  # the sequence number of PERFEQ_LEAF_BEGIN's insertion
    used: bool = False  # a call site calls it
    callers: set[int] = field(default_factory=set)  # definition starts of its callers defined before it
    # records no values (no loop, no allocation): callable from a parallel construct, with the
    # calling thread's slab and no value slots (PERFEQ_LEAF_ARGS_L / _MT)
    valueless: bool = False
    # a prototype of it stands at file scope (the calls before its definition see its parameter types)
    declared: bool = False


def records_no_values(funcdef: c_ast.FuncDef, allocators: tuple[str, ...]) -> bool:
    """Whether a function's instrumented body records no values: no loop (bounds recorded at
    entry) and no allocation (sizes recorded)."""
    body = funcdef.body
    return next(find(body, c_ast.For, c_ast.While, c_ast.DoWhile), None) is None and not any(
        isinstance(call.name, c_ast.ID) and call.name.name in allocators for call in find(body, c_ast.FuncCall))


def twin_header(funcdef: c_ast.FuncDef) -> str | None:
    """The copy's header, from the definition's declaration; None for a function whose copy would
    not behave as the original (module docstring)."""
    decl = funcdef.decl
    if funcdef.param_decls or not isinstance(decl.type, c_ast.FuncDecl) or decl.type.args is None:
        return None  # (K&R, or f() whose calls may pass arguments)
    params = decl.type.args.params
    if any(isinstance(p, c_ast.EllipsisParam) for p in params):
        return None
    body = funcdef.body
    if any("static" in (node.storage or []) for node in find(body, c_ast.Decl)):
        return None
    if any(node.name in _FUNCTION_NAMES for node in find(body, c_ast.ID)):
        return None
    twin = copy.deepcopy(decl)
    twin.storage, twin.funcspec = [], []
    name = PREFIX + decl.name
    twin.name = name
    node = twin.type.type
    while not isinstance(node, c_ast.TypeDecl):
        if not hasattr(node, "type"):
            return None
        node = node.type
    node.declname = name
    try:
        text = c_generator.CGenerator().visit(twin)
    except Exception:  # noqa: BLE001 (a declaration the generator cannot print: no twin)
        return None
    opening = text.find(name + "(")
    if opening < 0:
        return None
    after = opening + len(name) + 1
    rest = text[after:]
    if rest.startswith("void)"):
        text = text[:after] + SLOT_PARAMETERS + rest[rest.index(")"):]
    else:
        text = text[:after] + SLOT_PARAMETERS + ", " + rest
    # (restrict is no keyword in C89 modes, where the original spelled it __restrict__ or a macro did)
    return "static __attribute__((unused)) " + re.sub(r"\brestrict\b", "__restrict__", text)
