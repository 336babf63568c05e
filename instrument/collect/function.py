"""The walk of one function (stage 1, instrument/collect): blocks, scopes and statements.

:class:`FunctionCollector` is this core composed with one mixin per kind of construct (loops.py,
conds.py, calls.py, regions.py), which use the state and the helpers defined here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from pycparser import c_ast

from perfeq.arguments import path_root
from perfeq.instrument import descriptors as d
from perfeq.instrument import hooks
from perfeq.instrument.collect.calls import CallSites
from perfeq.instrument.collect.conds import Conditionals
from perfeq.instrument.collect.invariant import LoopMemory
from perfeq.instrument.collect.loops import LoopStatements
from perfeq.instrument.collect.regions import OMP_ONCE, OMP_TASK, Regions
from perfeq.instrument.collect.walk import (
    array_subscripts,
    arrays,
    callee,
    element_path,
    expression_nodes,
    find,
    formal_parameters,
    generate,
    lvalue_path,
    references,
    return_type_names,
)
from perfeq.instrument.opcount import INT, ZERO, CType, OpCount, OpCounter, Scope, type_of_decl
from perfeq.instrument.source import SourceError

if TYPE_CHECKING:
    from perfeq.instrument.collect.unit import UnitCollector


@dataclass
class Block:
    """A basic block while its function is walked (its descriptor is written at the end)."""

    id: int
    slot: int | None
    line: int
    kind: str
    loop: int | None
    in_parallel: bool
    anchor: int | None
    ops: OpCount = ZERO
    arrays: set = field(default_factory=set)
    once: bool = False  # under omp master/single/masked
    refs: list = field(default_factory=list)  # walk.references of its statements, in order


# the depth of statements inserted after a statement: inside every brace closed at the same offset
_AFTER_STATEMENT = 1 << 29


class FunctionCollector(LoopStatements, Conditionals, CallSites, Regions):
    """Walks one function: blocks, loops, conditionals, regions, calls, communication, shapes.

    Blocks: a basic block starts at a function or compound entry, a loop body, an if/else branch, a
    case or label, and after every control statement or jump; its counter is incremented once per
    execution.  A loop's iterations are the executions of its body block, its entries a counter
    before it; an if's evaluations are the executions of the block it stands in, its takes those of
    its then block.
    """

    def __init__(self, unit: UnitCollector, funcdef: c_ast.FuncDef, index: int):
        self.u = unit
        self.src = unit.src
        self.funcdef = funcdef
        self.index = index
        self.name = funcdef.decl.name
        self.nslots = 0
        self.nvalues = 0
        self.blocks: list[Block] = []
        self.block: Block | None = None
        self.loops: list[int] = []  # stack of enclosing loop ids
        self.loop_scopes: list[Scope] = []  # the scope each enclosing loop stands in
        # each enclosing loop's node, first offset (its hooks' braces), insertion depth and scope
        self.loop_frames: list[tuple[c_ast.Node, int, int, Scope]] = []
        self._address_taken: set[str] | None = None
        self._loop_memory: dict[int, LoopMemory] = {}  # id(loop node) -> what it may change
        self.regions: list[int] = []  # stack of enclosing region ids
        self.parallel = 0  # depth of lexically enclosing parallel constructs
        self.once = 0  # depth of enclosing omp master/single/masked statements
        self.waiting = 0  # depth of enclosing spin-wait loops (their branches are waiting too: no predictor)
        self.poll_flags: set[tuple[str, int]] = set()  # flags MPI tests or probes set (declared_as)
        self.block_item: c_ast.Node | None = None  # the statement of a block being walked (items)
        self.guards: dict[int, int | None] = {}  # id of a search loop's guard if -> its predictor (loops.py)
        self.nests: dict[int, list[dict[str, str | None]]] = {}  # a collapse(n) loop id -> its inner loops (loops.py)
        self.scope = Scope(unit.globals)
        self.assignments: list[d.Assignment] = []
        self.params: list[str] = []
        self.has_goto = False
        self._after: tuple[int, int, int | None] = (0, 0, None)
        self._stmt_end: int | None = None  # where statement-level hooks of the current statement go
        self._top_end: int | None = None  # the end of the statement of the function's body being walked
        self._after_condition = False  # ... after an if/switch whose condition is being walked
        self._declare_slab = False  # the next block opens a parallel body: declare the thread's slab
        self._slab_active = False  # perfeq__cm is declared in an enclosing scope

    # ---- ids and slots --------------------------------------------------------------------
    def slot(self, n: int = 1) -> int:
        first = self.nslots
        self.nslots += n
        return first

    def slot_of(self, block_id: int) -> int | None:
        """The counter slot of this function's block ``block_id``."""
        return next(b.slot for b in self.blocks if b.id == block_id)

    @cached_property
    def definition_start(self) -> int | None:
        """Where this function's definition starts in the text (UnitCollector.definition_start)."""
        return self.u.definition_start(self.funcdef)

    def value_slot(self) -> int:
        self.nvalues += 1
        return self.nvalues - 1

    def declared_as(self, name: str) -> tuple[str, int]:
        """A variable where it is read now: its name and the scope that declares it (a local of the
        same name in an inner block, shadowing it, is another variable)."""
        return name, id(self.scope.owner(name))

    def counter(self) -> OpCounter:
        loop = self.loop_frames[-1][0] if self.loop_frames else None
        return OpCounter(self.scope, self.u.fields, self.u.typedefs, self.loop_scopes[-1] if self.loop_scopes else None,
                         self.loop_memory(loop).invariant if loop is not None else None)

    def loop_memory(self, loop: c_ast.Node) -> LoopMemory:
        """What ``loop`` may change (computed once per loop, in the scope the loop stands in)."""
        key = id(loop)
        if key not in self._loop_memory:
            self._loop_memory[key] = LoopMemory(loop, OpCounter(self.scope, self.u.fields, self.u.typedefs),
                                                self.u.globals)
        return self._loop_memory[key]

    @property
    def loop(self) -> int | None:
        return self.loops[-1] if self.loops else None

    @cached_property
    def block_prototypes(self) -> set[str]:
        """The functions the body declares with a prototype of its own (``void update();`` in main)."""
        return {decl.name for decl in find(self.funcdef.body, c_ast.Decl) if isinstance(decl.type, c_ast.FuncDecl)}

    @property
    def leaf(self) -> bool:
        """A leaf function (no call of the program's functions): it counts into its caller's
        context when called from a leaf call site of this unit (hooks.function_begin)."""
        return self.name in self.u.leaves

    @property
    def block_id(self) -> int | None:
        """The current block's id (None before the first statement after a control statement)."""
        return self.block.id if self.block else None

    @property
    def where(self) -> str:
        """Where counters go (hooks.SERIAL, SLAB, RUNTIME): inside a parallel construct, through the
        thread's own slab: the local perfeq__cm where the body could declare it, else a runtime call."""
        if not self.parallel:
            return hooks.SERIAL
        return hooks.SLAB if self._slab_active else hooks.RUNTIME

    def new_block(self, kind: str, line: int, offset: int | None, depth: int = 0,
                  anchor: int | None = None, counted: bool = True) -> Block:
        """Start a block; its counter is inserted at ``offset`` (None: the entry block).

        ``anchor`` is the block whose executions this one's are relative to: the block a loop,
        conditional or region stands in (for bodies and branches), or the block before a control
        statement (for the block after it).
        """
        slot = None if offset is None else self.slot()
        block = Block(id=len(self.u.unit.blocks) + len(self.blocks), slot=slot, line=line, kind=kind,
                      loop=self.loop, in_parallel=bool(self.parallel), anchor=anchor, once=bool(self.once))
        self.blocks.append(block)
        declare = False
        if self._declare_slab and offset is not None:
            declare, self._declare_slab, self._slab_active = True, False, True
        if offset is not None and (counted or declare):  # (an uncounted block's slot is filled by PERFEQ_TRIPS_*)
            self.u.insert(offset, hooks.block_counter(slot if counted else None, self.where, declare), depth)
        self.block = block
        return block

    def add_ops(self, ops: OpCount, node: c_ast.Node | None = None) -> None:
        if self.block is not None:
            self.block.ops = self.block.ops + ops
            if node is not None:
                self.block.arrays |= arrays(node)
                self.block.refs.extend(references(node))

    def end_block(self, end: int, line: int, before: Block | None) -> None:
        """A control statement ends at offset ``end``: what follows is a new block, after ``before``."""
        self.block = None
        self._after = (end, line, before.id if before else None)

    # ---- the function ---------------------------------------------------------------------
    def run(self) -> None:
        fd = self.funcdef
        for name, typ in formal_parameters(fd):
            self.params.append(name)
            self.scope.names[name] = type_of_decl(typ, self.u.typedefs)
        self.parameter_shapes(fd)
        if self.name in self.u.inlined:
            # straight-line code: its operations are added to every caller's block, no hooks; its
            # assignments (no block: each runs once per call) tell what it sets through pointers
            for item in fd.body.block_items or []:
                if isinstance(item, c_ast.Assignment):
                    self.record_assignment(item)
            self.u.unit.functions.append(self.descriptor(nslots=0, nvalues=0, entry_block=-1, assignments=self.assignments,
                                                         inlined_ops=self.u.inlined[self.name].to_dict()))
            return
        brace = self.u.tok(fd.body, "{")
        if brace is None:
            self.u.warn(fd.coord.line, None, f"function '{self.name}' is not instrumented: its body "
                        "does not start where the parser says (a macro?)")
            # its descriptor all the same, without slots or blocks: the functions after it keep their
            # index into the unit's table (MP-sort's six comparators written by a DEFTYPE macro
            # shifted the rest, whose hooks then read past the table: SIGSEGV)
            self.u.unit.functions.append(self.descriptor(nslots=0, nvalues=0, entry_block=-1, assignments=[],
                                                         inlined_ops=None))
            return
        self.has_goto = any(True for _ in find(fd.body, c_ast.Goto, c_ast.Label))
        first_block = len(self.u.unit.blocks)
        self.new_block("entry", fd.body.coord.line, None)
        self.u.insert(self.src.tokens[brace].end, hooks.function_begin(self.index, self.leaf))
        if self.leaf:
            self.u.leaf_begun[self.name] = self.index
            twin = self.u.twins.get(self.name)
            if twin is not None and self.u.included_file is None:
                twin.start, twin.begin_seq = self.src.tokens[brace].end, self.u._seq
                twin.end, twin.line = self.src.tokens[self.src.match_bracket(brace)].end, self.src.tokens[brace].line
        self.share_hook_variables(fd.body)
        self._function_scope = self.scope
        self.items(fd.body.block_items or [], depth=1)
        self.main_returns(fd, brace)
        for block in self.blocks:
            self.u.unit.blocks.append(d.BlockDescriptor(
                id=block.id, function=self.index, slot=block.slot, line=block.line, kind=block.kind,
                loop=block.loop, in_parallel=block.in_parallel, anchor=block.anchor, ops=block.ops.to_dict(),
                arrays=sorted(block.arrays), once=block.once, refs=block.refs,
            ))
        self.u.unit.functions.append(self.descriptor(nslots=self.nslots, nvalues=self.nvalues,
                                                     entry_block=first_block, assignments=self.assignments,
                                                     inlined_ops=None))
        twin = self.u.twins.get(self.name)
        if twin is not None and self.nvalues == 0:
            # instrumented, it records no value (its loops' bounds are its parameters'): the calls
            # after it in a parallel construct take its twin too (a game of life's neighbour count
            # per cell, loops from r - 1 to r + 1: 2.5-2.9x through the announcement, twins.py)
            twin.valueless = True

    def main_returns(self, fd: c_ast.FuncDef, brace: int) -> None:
        """``return 0;`` before the closing brace of an ``int main`` whose last statement is no
        return: what C99 gives falling off main.  Compiled as C90 (``-ansi``: ORNL minisweep), the
        status is then whatever the return register held, the last call's (MPI_Finalize's 0 in the
        plain build, a hook's in the instrumented one: it exited 32)."""
        items = fd.body.block_items or []
        if self.name != "main" or return_type_names(fd) not in (["int"], ["signed", "int"]) \
                or items and isinstance(items[-1], c_ast.Return):
            return
        self.u.insert(self.src.tokens[self.src.match_bracket(brace)].start, "return 0; ")

    def descriptor(self, **counts) -> d.FunctionDescriptor:
        """The function's descriptor with ``counts`` (slots, blocks, assignments, inlined operations)."""
        declared = {decl.name for decl in find(self.funcdef.body, c_ast.Decl) if decl.name}
        return d.FunctionDescriptor(id=self.index, name=self.name, line=self.funcdef.coord.line,
                                    params=self.params, recursive=False, returns=self.returned_expression(),
                                    returned_names=self.returned_names(), return_points=self.return_points(),
                                    locals=sorted(declared - set(self.params)),
                                    file=self.u.included_file, **counts)

    def returned_names(self) -> list[str] | None:
        """The variables ``return NAME;`` statements return; None if a return gives anything else."""
        names = set()
        for node in find(self.funcdef.body, c_ast.Return):
            if not isinstance(node.expr, c_ast.ID):
                return None
            names.add(node.expr.name)
        return sorted(names) or None

    def return_points(self) -> list[dict[str, Any]] | None:
        """The returns of a body whose last statement is ``return expr;`` and whose other returns are
        statements ``if (cond) return expr;`` of the body itself (ilog2's ``if (n == 1) return 0;``),
        or whose last statement is an ``if (cond) return a; else if ... else return b;`` chain
        (Ember halo3d-26's ``if (out of the grid) { return -1; } else { return x; }``): each
        {"line", "text", "cond"} in order, cond None for the last; None for other bodies."""
        items = list(self.funcdef.body.block_items or [])
        chain: list[tuple[c_ast.Return, c_ast.Node]] = []
        if items and isinstance(items[-1], c_ast.If) and items[-1].iffalse is not None:
            node = items.pop()
            while isinstance(node, c_ast.If) and node.iffalse is not None:
                then = _single_return(node.iftrue)
                if then is None:
                    return None
                chain.append((then, node.cond))
                node = node.iffalse
            last = _single_return(node)
            if last is None:
                return None
            items.append(last)
        if len(items) + len(chain) < 2 or not isinstance(items[-1], c_ast.Return) or items[-1].expr is None:
            return None
        points = []
        for item in items[:-1]:
            if not any(True for _ in find(item, c_ast.Return)):
                continue
            then = item.iftrue if isinstance(item, c_ast.If) and item.iffalse is None else None
            if isinstance(then, c_ast.Compound) and len(then.block_items or []) == 1:
                then = then.block_items[0]
            if not isinstance(then, c_ast.Return) or then.expr is None:
                return None
            points.append({"line": then.coord.line, "text": self.text_or_generated(then.expr),
                           "cond": self.text_or_generated(item.cond)})
        points += [{"line": then.coord.line, "text": self.text_or_generated(then.expr),
                    "cond": self.text_or_generated(cond)} for then, cond in chain]
        last = items[-1]
        points.append({"line": last.coord.line, "text": self.text_or_generated(last.expr), "cond": None})
        return points

    def returned_expression(self) -> str | None:
        """The original text of ``expr`` when the whole body is ``return expr;`` (inlined by the model)."""
        items = self.funcdef.body.block_items or []
        if len(items) != 1 or not isinstance(items[0], c_ast.Return) or items[0].expr is None:
            return None
        start = self.u.tok(items[0], "return")
        if start is None:
            return None
        try:
            end = self.src.scan_to(start + 1, (";",))
        except SourceError:
            return None
        return self.src.text_of(start + 1, end - 1)

    # ---- statements -----------------------------------------------------------------------
    def items(self, items: list[c_ast.Node], depth: int) -> None:
        pending_pragmas: list[c_ast.Pragma] = []
        for item in items:
            if isinstance(item, c_ast.Pragma):
                pending_pragmas.append(item)
                continue
            if depth == 1:
                self._top_end = self._end_of(item)
            self.block_item = item
            self.statement(item, depth, pending_pragmas)
            pending_pragmas = []

    def statement(self, node: c_ast.Node, depth: int, pragmas: list[c_ast.Pragma]) -> None:
        """One statement inside a compound; control statements end the current block."""
        if self.openmp_statement(node, depth, pragmas):
            return
        if not isinstance(node, (c_ast.Label, c_ast.Pragma, c_ast.Decl)) and self.construct_statement(node, depth, pragmas):
            return
        handler = getattr(self, "stmt_" + type(node).__name__, None)
        if handler is not None:
            if not isinstance(node, (c_ast.Label, c_ast.Pragma)):
                self._ensure_block()
            before = self.block
            end = handler(node, depth, pragmas)
            if end is not None:  # a control statement: what follows is a new block
                self.end_block(end, node.coord.line, before)
            return
        self.simple(node)

    def construct_statement(self, node: c_ast.Node, depth: int, pragmas: list[c_ast.Pragma]) -> bool:
        """The statement of ``#pragma omp master|single|masked`` (kind ``once``: one thread of the
        team runs it) or ``omp task`` (kind ``task``: whichever thread of the team takes it, maybe
        after its creator has moved on): a block of its own, braced when it has no braces, counted
        inside them, and what follows it another.  A task's block looks up the slab of the thread
        that runs it (the creator's perfeq__cm, which the task captures, raced with its owner's
        increments when another thread ran the task: counts were lost).  False when the construct's
        pragma is not on a line of its own in the source (a macro's) or there is none."""
        for index in range(len(pragmas) - 1, -1, -1):
            kind = ("once" if OMP_ONCE.match(pragmas[index].string)
                    else "task" if OMP_TASK.match(pragmas[index].string) else None)
            if kind is not None:
                break
        else:
            return False
        pp = self.pragma_token(pragmas[index])
        if pp is None or self.src.tokens[pp].kind != "pp":
            return False
        first = self.src._skip_pp(pp + 1)
        if first is None:
            return False
        self._ensure_block()
        before = self.block
        saved = self.parallel, self._slab_active, self._declare_slab, self.once
        if kind == "task":
            self.parallel += 1
            self._slab_active, self._declare_slab = False, True
        else:
            self.once += 1
        try:
            end, _ = self.sub_statement(first, node, kind, depth, before.id if before else None,
                                        pragmas=pragmas[index + 1:])
        finally:
            self.parallel, self._slab_active, self._declare_slab, self.once = saved
        self.end_block(self.src.tokens[end].end, node.coord.line, before)
        return True

    def _ensure_block(self) -> None:
        """After a control statement, the next simple statement starts a new block."""
        if self.block is None:
            end, line, anchor = self._after
            self.new_block("after", line, end, anchor=anchor)

    def simple(self, node: c_ast.Node) -> None:
        self._ensure_block()
        self._stmt_end, self._after_condition = self.statement_end_offset(node), False
        if isinstance(node, c_ast.Decl):
            self.declaration(node)
        else:
            self.add_ops(self.counter().count(node), node)
            self.expressions(node)
            for part in node.exprs if isinstance(node, c_ast.ExprList) else [node]:  # a = x, b = y;
                self.record_assignment(part)
            self.setter_param(node)
        if isinstance(node, (c_ast.Return, c_ast.Break, c_ast.Continue, c_ast.Goto)):
            start = self.u.tok(node)
            if start is not None:
                try:
                    end = self.src.statement_end(start)
                except SourceError:
                    return
                self.end_block(self.src.tokens[end].end, node.coord.line, None)

    def simple_fallback(self, node: c_ast.Node) -> None:
        """A statement not found in the source (a macro wrote it: ``do { ... } while (0)``): its
        operations counted once, in the current block, and its MPI calls and calls of the program's
        functions described and, where the invocation shows them, announced (CallSites.call_extent)."""
        self.add_ops(self.counter().count(node))
        for call in find(node, c_ast.FuncCall):
            name = callee(call)
            if name is not None and name.startswith("MPI_"):
                self.mpi_call(call, name)
            elif name is not None and name in self.u.user_functions:
                self.user_call(call, name)

    def _initialised_members(self, node: c_ast.Decl, typ) -> list[tuple[str, c_ast.Node]] | None:
        """The elements or fields a brace initialiser sets, each with its value: ``name[k]`` of an
        array, ``name.field`` of a struct (by position, or by a designator ``.field = v``); None for
        another declaration (a struct whose fields are not known, a nested designator)."""
        if not node.name or not isinstance(node.init, c_ast.InitList):
            return None
        if isinstance(node.type, c_ast.ArrayDecl):
            if any(isinstance(v, c_ast.NamedInitializer) for v in node.init.exprs):
                return None
            return [(f"{node.name}[{index}]", value) for index, value in enumerate(node.init.exprs)]
        fields = list(self.u.structs.get(typ.struct, {})) if isinstance(node.type, c_ast.TypeDecl) \
            and typ.struct and not typ.depth else []
        if not fields:
            return None
        found, position = [], 0
        for value in node.init.exprs:
            if isinstance(value, c_ast.NamedInitializer):
                if len(value.name) != 1 or not isinstance(value.name[0], c_ast.ID) or value.name[0].name not in fields:
                    return None
                position = fields.index(value.name[0].name)
                value = value.expr
            if position >= len(fields):
                return None
            found.append((f"{node.name}.{fields[position]}", value))
            position += 1
        return found

    def declaration(self, node: c_ast.Decl) -> None:
        if node.name:
            self.scope.names[node.name] = type_of_decl(node.type, self.u.typedefs)
        if isinstance(node.type, c_ast.ArrayDecl):
            self.array_declaration(node)
        if node.init is not None:
            typ = self.scope.names.get(node.name, INT) if node.name else INT
            self.add_ops(self.counter().initializer(node.name, typ, node.init), node.init)
            members = self._initialised_members(node, typ) if isinstance(node.init, c_ast.InitList) else None
            if members is None:
                self.expressions(node.init, target=node.name)
            for path, value in members or ():  # int sizes[2] = {ny + 2, nx + 2}; Settings s = {atoi(argv[1]), 60}
                self.expressions(value, target=node.name, member=(path, path))
                if not isinstance(value, c_ast.InitList):
                    self.assignments.append(d.Assignment(variable=path, op="=", text=generate(value),
                                                         line=node.coord.line, block=self.block_id, loop=self.loop))
            if node.name and isinstance(node.type, c_ast.TypeDecl) and not isinstance(node.init, c_ast.InitList):
                text = self.init_text(node)
                if text is not None:
                    self.assignments.append(d.Assignment(variable=node.name, op="=",
                                                         text=self.converted(typ, node.init, text),
                                                         line=node.coord.line, block=self.block_id, loop=self.loop))

    def converted(self, target: CType, value: c_ast.Node, text: str) -> str:
        """``text`` as the variable of type ``target`` holds it: a floating-point value stored in an
        integer variable, ``int q = sqrt(p);``, is truncated, written out as the cast C implies."""
        if target.floating or target.depth or target.struct or not self.counter().type_of(value).floating:
            return text
        return f"(int)({text})"

    def init_text(self, decl: c_ast.Decl) -> str | None:
        start = self.u.tok(decl, decl.name)
        if start is None:
            return None
        try:
            eq = self.src.scan_to(start, ("=", ";", ","))
            if self.src.tokens[eq].text != "=":
                return None
            end = self.src.scan_to(eq + 1, (";", ","))
        except SourceError:
            return None
        return self.src.text_of(eq + 1, end - 1)

    def statement_end_offset(self, node: c_ast.Node) -> int | None:
        """Offset just after the ';' of the simple statement (declaration or expression) at ``node``."""
        start = self.u.tok(node)
        if start is None:
            return None
        try:
            end = self.src.scan_to(start, (";",))
        except SourceError:
            return None
        return self.src.tokens[end].end

    def _end_of(self, node: c_ast.Node) -> int | None:
        """The offset after a statement of the function's body, its branches and bodies included."""
        start = self.u.tok(node)
        if start is None:
            return None
        try:
            return self.src.tokens[self.src.statement_end(start)].end
        except SourceError:
            return None

    def after_top_statement(self, variable: str, text: str) -> None:
        """Also insert ``text`` after the statement of the function's body that holds the current
        one, when ``variable`` (its root) is visible there: an option set in one branch of the
        command-line loop is recorded with its default when the option is not given."""
        if self._top_end is None or self._top_end == self._stmt_end:
            return
        owner = self.scope.owner(path_root(variable))
        if owner is not None and owner.encloses(self._function_scope):
            self.u.insert(self._top_end, " " + text)

    def after_statement(self, node: c_ast.Node, text: str) -> None:
        """Insert a statement after the current statement (for a condition: after its if/switch),
        inside the braces perfeq puts around a branch of one statement (``if (c) n = atoi(s);
        else ...``: before the ``else``), in the order planned."""
        if self._stmt_end is None:
            return
        if self._after_condition:  # after the whole if/switch, its braces included
            self.u.insert(self._stmt_end, " " + text)
        else:
            self.u.insert(self._stmt_end, " " + text, _AFTER_STATEMENT - self.u._seq, closing=True)

    def record_assignment(self, node: c_ast.Node) -> None:
        """``n = ...``, ``cmd.nx = ...``, ``counts[1] = ...``, ``nx[k] = nx[k + 1] / 2``: what
        resolution may use (by the lvalue's canonical spelling, perfeq.arguments.canonical_lvalue, or
        an element's, walk.element_path); and every ``n++``/``--n`` in
        the statement, an update that makes ``n`` no constant (``npart++`` under an if); and ``*p = ...``
        of a pointer parameter ``p`` as ``*p``, the value a caller's ``&n`` argument gets (NPB MG's
        ``setup(&n1, ..., lt)``).  A chain ``i1 = i2 = 1;`` sets each to the last value."""
        self._record_increments(node)
        self._record_value(node)

    def _record_value(self, node: c_ast.Node) -> str | None:
        """Record the assignment ``node``, the inner ones of a chain first; the text of its value
        (None where it is not found in the source)."""
        if not isinstance(node, c_ast.Assignment):
            return None
        if node.op == "=" and isinstance(node.rvalue, c_ast.Assignment) and node.rvalue.op == "=":
            text = self._record_value(node.rvalue)
        else:
            start = self.u.tok(node)
            try:
                op = self.src.scan_to(start, (node.op,)) if start is not None else None
                end = self.src.scan_to(op + 1, (";", ",", ")")) if op is not None else None
            except SourceError:
                end = None
            text = self.src.text_of(op + 1, end - 1) if end is not None else None
        path = lvalue_path(node.lvalue) or self._size_element(node.lvalue)
        if path is not None and isinstance(node.lvalue, c_ast.UnaryOp):
            target = node.lvalue
            if not (target.op == "*" and isinstance(target.expr, c_ast.ID) and target.expr.name in self.params):
                return text
            path = "*" + target.expr.name
        if path is None or text is None:
            return text
        value = node.rvalue
        while isinstance(value, c_ast.Assignment):
            value = value.rvalue
        recorded = text
        if node.op == "=" and isinstance(node.lvalue, c_ast.ID):
            recorded = self.converted(self.scope.lookup(node.lvalue.name) or INT, value, text)
        self.assignments.append(d.Assignment(variable=path, op=node.op, text=recorded, line=node.coord.line,
                                             block=self.block_id, loop=self.loop, is_global=self._is_global(path)))
        return text

    def _record_increments(self, node: c_ast.Node) -> None:
        for inc in expression_nodes(node):
            if not isinstance(inc, c_ast.UnaryOp) or inc.op not in ("p++", "p--", "++", "--"):
                continue
            path = lvalue_path(inc.expr) or self._size_element(inc.expr)
            if path is None:
                continue
            self.assignments.append(d.Assignment(
                variable=path, op=inc.op.lstrip("p"), text="1", line=inc.coord.line, block=self.block_id,
                loop=self.loop, is_global=self._is_global(path)))

    def _size_element(self, node: c_ast.Node) -> str | None:
        """``nx[k]`` of an array of integers (level sizes, process grid sides), ``dims[i][0]`` of a
        two-dimensional one (NPB FT's sizes per layout), each index an element's: its element path;
        None for anything else (the floating-point arrays of a kernel are no sizes)."""
        path = element_path(node)
        array, subscripts = array_subscripts(node)
        typ = self.scope.lookup(array.name) if path and isinstance(array, c_ast.ID) else None
        if typ is None or typ.floating or typ.struct is not None or typ.depth != len(subscripts):
            return None
        return path

    def _is_global(self, path: str) -> bool:
        """Whether the variable a canonical lvalue starts from is the unit's global."""
        return self.scope.owner(path_root(path)) is self.u.globals

    # ---- sub-statements -------------------------------------------------------------------
    def sub_statement(self, first: int, node: c_ast.Node, kind: str, depth: int,
                      anchor: int | None, counted: bool = True,
                      pragmas: list[c_ast.Pragma] | None = None) -> tuple[int, int]:
        """A body or branch starting at token ``first``: its last token index and its first block.

        ``pragmas`` are those between ``first`` and a statement that is not a compound (``omp for``
        after ``omp parallel``): they stay with their statement, inside the block's braces."""
        tokens = self.src.tokens
        if isinstance(node, c_ast.Compound) and tokens[first].text == "{" and self.u.tok(node, "{") == first:
            end = self.src.match_bracket(first)
            saved = self.scope
            self.scope = Scope(saved)
            block = self.new_block(kind, node.coord.line, tokens[first].end, depth + 1, anchor, counted)
            self.items(node.block_items or [], depth + 1)
            self.scope = saved
            return end, block.id
        end = self.src.statement_end(first)
        line = tokens[first].line
        self.u.insert(tokens[first].start, "{ ", depth + 1)
        self.u.insert(tokens[end].end, " }", depth + 1, closing=True)
        block = self.new_block(kind, line, tokens[first].start, depth + 1, anchor, counted)
        saved = self.scope
        self.scope = Scope(saved)
        if isinstance(node, c_ast.Compound):  # pycparser's wrapper of a pragma + statement
            self.items(node.block_items or [], depth + 1)
        else:
            self.statement(node, depth + 1, pragmas or [])
        self.scope = saved
        return end, block.id

    def stmt_Compound(self, node: c_ast.Compound, depth: int, pragmas: list) -> int | None:
        self._ensure_block()
        saved = self.scope
        self.scope = Scope(saved)
        self.items(node.block_items or [], depth)
        self.scope = saved
        return None

    def stmt_Label(self, node: c_ast.Label, depth: int, pragmas: list) -> int | None:
        start = self.u.tok(node, node.name)
        if start is None:
            self.statement(node.stmt, depth, [])
            return None
        colon = self.src.expect(start + 1, ":")
        self.new_block("label", node.coord.line, self.src.tokens[colon].end, depth)
        self.statement(node.stmt, depth, [])
        return None

    def stmt_Pragma(self, node: c_ast.Pragma, depth: int, pragmas: list) -> int | None:
        return None


def _single_return(node: c_ast.Node) -> c_ast.Return | None:
    """``return expr;``, alone or the only statement of a ``{ }``; None otherwise."""
    if isinstance(node, c_ast.Compound) and len(node.block_items or []) == 1:
        node = node.block_items[0]
    return node if isinstance(node, c_ast.Return) and node.expr is not None else None
