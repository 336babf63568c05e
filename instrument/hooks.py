"""The text of every hook the instrumenter inserts: the PERFEQ_* macros of runtime/c/perfeq_rt.h (stage 1).

One table (:data:`MACROS`) names each macro and its arguments; the functions below place a call of
one as the collectors insert it (a statement before code, a statement after one, or a pair of texts
wrapped around an expression).  perfeq.instrument.collect plans where each goes.
"""

from __future__ import annotations

from dataclasses import dataclass

# Where a counting macro runs, as the suffix of its name: serial code; a parallel construct whose
# thread declared its slab perfeq__cm (PERFEQ_MT_LOCAL); a parallel construct without one (a runtime
# call per increment).
SERIAL, SLAB, RUNTIME = "", "_L", "_MT"

# counter slots of PERFEQ_BRANCH: mispredictions, local history, a 2-bit counter per history
# (PERFEQ_BRANCH_SLOTS in runtime/c/perfeq_rt.h, with PERFEQ_BRANCH_HISTORY = 4)
BRANCH_SLOTS = 2 + (1 << 4)

# the unit's static record, the first argument of the per-unit hooks (declared by the preamble)
UNIT = "perfeq__unit"

# declares the thread's slab perfeq__cm: a declaration, not a call
MT_LOCAL = "PERFEQ_MT_LOCAL"

# the data-sharing clause naming the hooks' variables, added to an OpenMP construct with
# default(none) (OpenMP pragmas are macro-expanded); nothing when perfeq is compiled out
SHARED = "PERFEQ_SHARED"


@dataclass(frozen=True)
class Macro:
    """One hook macro: its name, its arguments and whether it has thread variants (_L, _MT)."""

    name: str
    params: tuple[str, ...]
    threaded: bool = False

    def __call__(self, *args: object, where: str = SERIAL) -> str:
        """The call ``NAME(arg, ...)`` (no ';'), with the variant of ``where`` for a threaded macro."""
        if len(args) != len(self.params):
            raise TypeError(f"{self.name} takes {len(self.params)} arguments, not {len(args)}")
        name = self.name + where if self.threaded else self.name
        return f"{name}({', '.join(str(a) for a in args)})"


MACROS = {m.name: m for m in (
    Macro("PERFEQ_FUNC_BEGIN", ("unit", "func")),
    Macro("PERFEQ_LEAF_BEGIN", ("unit", "func")),
    Macro("PERFEQ_BLOCK", ("k",), threaded=True),
    Macro("PERFEQ_LOOP_ENTER", ("k",)),
    Macro("PERFEQ_TRIPS_LT", ("k", "a", "b", "s"), threaded=True),
    Macro("PERFEQ_TRIPS_LE", ("k", "a", "b", "s"), threaded=True),
    Macro("PERFEQ_TRIPS_GT", ("k", "a", "b", "s"), threaded=True),
    Macro("PERFEQ_TRIPS_GE", ("k", "a", "b", "s"), threaded=True),
    Macro("PERFEQ_VALUE", ("v", "x")),
    Macro("PERFEQ_LEAF_VALUE", ("v", "x")),
    Macro("PERFEQ_SIZE", ("v", "x")),
    Macro("PERFEQ_PARAM", ("name", "x")),
    Macro("PERFEQ_REGION", ("k",)),
    Macro("PERFEQ_REGION_TEAM", ("k",)),
    Macro("PERFEQ_BRANCH", ("k", "cond"), threaded=True),
    Macro("PERFEQ_TAKEN", ("k", "cond"), threaded=True),
    Macro("PERFEQ_EITHER", ("t", "e", "cond"), threaded=True),
    Macro("PERFEQ_EXIT_DECL", ("v",)),
    Macro("PERFEQ_EXIT_START", ("v", "b"), threaded=True),
    Macro("PERFEQ_EXIT_BRANCH", ("p", "b", "v"), threaded=True),
    Macro("PERFEQ_GUARD_TAKEN", ("p", "b", "v"), threaded=True),
    Macro("PERFEQ_GUARD_EXIT", ("p", "b", "v"), threaded=True),
    Macro("PERFEQ_CALLED", ("unit", "site", "callee", "call")),
    Macro("PERFEQ_LEAF_CALLED", ("unit", "k", "call")),
    Macro("PERFEQ_LEAF_TWIN", ("unit", "k", "f")),
    Macro("PERFEQ_LEAF_ARGS", ("unit", "k"), threaded=True),
    Macro("PERFEQ_LEAF_ARGS0", ("unit", "k"), threaded=True),
    Macro("PERFEQ_MPI", ("site",)),
)}

# the macro counting the iterations of a loop ``var RELATION bound`` once per entry, from its bounds
TRIPS = {"<": "PERFEQ_TRIPS_LT", "<=": "PERFEQ_TRIPS_LE", ">": "PERFEQ_TRIPS_GT", ">=": "PERFEQ_TRIPS_GE"}

# an expression hook's text around the expression: opener, then the closer ")" or "))"
Wrapper = tuple[str, str]


def _opener(name: str, *args: object, where: str = SERIAL) -> str:
    """A macro call cut open before its last argument (the expression it wraps)."""
    call = MACROS[name](*args, "", where=where)
    return call[:-1]


# ---- statements before code -------------------------------------------------------------------
def function_begin(function: int, leaf: bool = False) -> str:
    """After the opening brace of a function's body (``leaf``: one that calls no function of the
    program, which counts into its caller's context when called from a leaf call site)."""
    return f" {MACROS['PERFEQ_LEAF_BEGIN' if leaf else 'PERFEQ_FUNC_BEGIN'](UNIT, function)} "


def block_counter(slot: int | None, where: str, declare_slab: bool) -> str:
    """At the start of a block: its counter (``slot`` None: counted by PERFEQ_TRIPS_* instead),
    after the declaration of the thread's slab when the block opens a parallel body."""
    declare = f" {MT_LOCAL}" if declare_slab else ""
    if slot is None:
        return declare + " "
    return f"{declare} {MACROS['PERFEQ_BLOCK'](slot, where=where)}; "


def loop_entry(slot: int, where: str | None) -> str:
    """Before a loop: counts its entries (``where`` None: serial code, PERFEQ_LOOP_ENTER)."""
    if where is None:
        return f"{MACROS['PERFEQ_LOOP_ENTER'](slot)}; "
    return f"{MACROS['PERFEQ_BLOCK'](slot, where=where)}; "


def _value(leaf: bool) -> Macro:
    return MACROS["PERFEQ_LEAF_VALUE" if leaf else "PERFEQ_VALUE"]


def entry_value(slot: int, text: str, leaf: bool = False) -> str:
    """Before a loop, after its entry counter: a value recorded at entry (init, bound)."""
    return f"{_value(leaf)(slot, f'({text})')}; "


def trips(relation: str, slot: int, first: str, bound: str, step: int, where: str) -> str:
    """Before a loop: its iterations from its bounds, once per entry."""
    return f"{MACROS[TRIPS[relation]](slot, f'({first})', f'({bound})', abs(step), where=where)}; "


def exit_declare(loop: int) -> str:
    """First in the braces around a loop whose exit test is told to its predictor at the exit: the
    variable holding its body counter at entry (a declaration before the entry's statements)."""
    return f"{MACROS['PERFEQ_EXIT_DECL'](_exit_var(loop))} "


def exit_start(loop: int, body_slot: int, where: str) -> str:
    """Before such a loop, after its entry hooks: its body counter at entry."""
    return f"{MACROS['PERFEQ_EXIT_START'](_exit_var(loop), body_slot, where=where)}; "


def exit_branch(loop: int, predictor: int, body_slot: int, where: str) -> str:
    """After such a loop, inside its braces: this entry's outcomes of the exit test, to its predictor."""
    return f" {MACROS['PERFEQ_EXIT_BRANCH'](predictor, body_slot, _exit_var(loop), where=where)};"


def guard_taken(loop: int, predictor: int, body_slot: int, where: str) -> str:
    """Before the exit (break, return) of a search loop's guard if: the tests of this entry, the
    last one taken, to the if's predictor."""
    return f"{MACROS['PERFEQ_GUARD_TAKEN'](predictor, body_slot, _exit_var(loop), where=where)}; "


def guard_exit(loop: int, predictor: int, body_slot: int, where: str) -> str:
    """After such a loop, inside its braces: the tests not yet told (none taken), to the predictor."""
    return f" {MACROS['PERFEQ_GUARD_EXIT'](predictor, body_slot, _exit_var(loop), where=where)};"


def _exit_var(loop: int) -> str:
    return f"perfeq__e{loop}"


def region(slot: int, team: bool = False) -> str:
    """Before a parallel construct in serial code: counts its entries; ``team``: the construct has
    no clause that sizes its team (``num_threads``, ``if``), which is then omp_get_max_threads()
    (the runtime records it: a construct whose threads run no hook shows its team no other way)."""
    return f"{MACROS['PERFEQ_REGION_TEAM' if team else 'PERFEQ_REGION'](slot)}; "


# ---- statements after one ---------------------------------------------------------------------
def extent_value(slot: int, extents: list[str], leaf: bool = False) -> str:
    """After the declaration of a variable-length array: the product of its extents."""
    return f"{_value(leaf)(slot, ' * '.join(f'({e})' for e in extents))};"


def param(variable: str, access: str) -> str:
    """After the statement setting a problem-size parameter: its value, by name (``cmd.nx``), read
    by the C expression ``access`` (``cmd->nx``)."""
    quoted = f'"{variable}"'
    return f"{MACROS['PERFEQ_PARAM'](quoted, access)};"


# ---- expression wrappers ----------------------------------------------------------------------
def branch(predictor: int, where: str) -> Wrapper:
    """Around a condition (in parentheses): its branch predictor's slots."""
    return _opener("PERFEQ_BRANCH", predictor, where=where) + "(", "))"


def taken(then_slot: int, else_slot: int | None, where: str) -> Wrapper:
    """Around the condition (in parentheses) of an ``if`` compilers turn into conditional moves: the
    counters of its then (and else) block, incremented without a branch, so that the arms, free of
    counters, stay conditional moves."""
    if else_slot is None:
        return _opener("PERFEQ_TAKEN", then_slot, where=where) + "(", "))"
    return _opener("PERFEQ_EITHER", then_slot, else_slot, where=where) + "(", "))"


def called(site: int, callee: str | None) -> Wrapper:
    """Around a call of one of the program's functions: the call site (``callee`` None: a call
    through a function pointer, which the next instrumented function entered takes)."""
    return _opener("PERFEQ_CALLED", UNIT, site, f'"{callee}"' if callee else "0"), ")"


def leaf_called(k: int) -> Wrapper:
    """Around a call of a leaf function of this unit from serial code: entry ``k`` of the unit's
    leaf call table (the callee counts into this context's slots for the call site)."""
    return _opener("PERFEQ_LEAF_CALLED", UNIT, k), ")"


def leaf_twin(k: int) -> Wrapper:
    """Around the name of a leaf function called from leaf call site ``k``: its twin's name (or the
    function's where leaves do not count into their callers)."""
    return _opener("PERFEQ_LEAF_TWIN", UNIT, k), ")"


def leaf_arguments(k: int, empty: bool, where: str = SERIAL) -> str:
    """After the opening parenthesis of a call of a twin: the caller's slots for site ``k``, in a
    parallel construct the calling thread's (``where``; ``empty``: the call has no arguments of its
    own, no comma after them)."""
    return f"{MACROS['PERFEQ_LEAF_ARGS0' if empty else 'PERFEQ_LEAF_ARGS'](UNIT, k, where=where)} "


def mpi(site: int) -> Wrapper:
    """Around an MPI call: the communication site, announced before it by a comma expression."""
    return f"({MACROS['PERFEQ_MPI'](site)}, ", ")"


def size(slot: int) -> Wrapper:
    """Around the size argument of an allocation: the size, recorded."""
    return _opener("PERFEQ_SIZE", slot), ")"
