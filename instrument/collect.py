"""Collect descriptors and plan insertions for one translation unit (instrument stage).

Read-only: walks the pycparser AST of the preprocessed file, finds the matching positions in the
original text (perfeq.instrument.source), and returns frozen descriptor records plus a list of
:class:`Insertion` (text to put at an offset of the original source).  Nothing is written here;
perfeq.instrument.insert applies the insertions.

Blocks: a basic block starts at a function or compound entry, a loop body, an if/else branch, a
case or label, and after every control statement or jump; its counter is incremented once per
execution.  A loop's iterations are the executions of its body block, its entries a counter before
it; an if's evaluations are the executions of the block it stands in, its takes those of its then
block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast

from perfeq.instrument import descriptors as d
from perfeq.instrument.opcount import ZERO, OpCount, OpCounter, Scope, type_of_decl
from perfeq.instrument.source import SourceError, SourceText

ALLOCATORS = ("malloc", "calloc", "realloc", "aligned_alloc")
ARGV_CONVERTERS = ("atoi", "atol", "atoll", "atof", "strtol", "strtoul", "strtoll", "strtoull", "strtod")
OMP_LOOP = re.compile(r"^\s*omp\s+(parallel\s+)?(for|do|simd|distribute|taskloop|loop)\b")
OMP_PARALLEL = re.compile(r"^\s*omp\s+(target\s+teams\s+)?parallel\b")
OMP_COLLAPSE = re.compile(r"collapse\s*\(\s*(\d+)\s*\)")
# a sections construct's block may hold nothing but its sections: no code between them
OMP_SECTIONS = re.compile(r"^\s*omp\s+(parallel\s+)?sections\b")
# counter slots of PERFEQ_BRANCH: mispredictions, local history, a 2-bit counter per history
# (PERFEQ_BRANCH_SLOTS in runtime/perfeq_rt.h, with PERFEQ_BRANCH_HISTORY = 4)
BRANCH_SLOTS = 2 + (1 << 4)
# depths of expression hooks (UnitCollector.wrap): above any statement nesting, longer spans outside
_EXPRESSION_DEPTH = 1 << 30


@dataclass(order=True)
class Insertion:
    """Text to insert at an offset of the original source.

    At one offset, closers come before openers, inner closers before outer ones, outer openers
    before inner ones, and otherwise openers in the order they were planned in, closers in the
    reverse order.
    """

    offset: int
    rank: int  # 0: closer, 1: opener
    depth: int  # negated for closers, so that inner closers come first
    seq: int  # negated for closers
    text: str = field(compare=False)


@dataclass
class _Block:
    id: int
    slot: int | None
    line: int
    kind: str
    loop: int | None
    in_parallel: bool
    anchor: int | None
    ops: OpCount = ZERO
    arrays: set = field(default_factory=set)


class UnitCollector:
    """Collects the descriptors and insertions of one unit."""

    def __init__(self, ast: c_ast.FileAST, source: SourceText, marker_name: str, display: str):
        self.ast = ast
        self.src = source
        self.marker = marker_name
        self.display = display
        self.insertions: list[Insertion] = []
        self.warnings: list[str] = []
        self.typedefs: dict = {}
        self.fields: dict = {}
        self.globals = Scope()
        self.user_functions: set[str] = set()
        self.defined: list[c_ast.FuncDef] = []
        self.unit = d.UnitDescriptors(source=display, digest="", instrumented="")
        self._seq = 0
        self._callgraph: dict[str, set[str]] = {}
        self._mpi_calls = _mpi_table()
        self._enumerators: set[str] | None = None

    # ---- helpers --------------------------------------------------------------------------
    def in_main(self, node: c_ast.Node) -> bool:
        return node.coord is not None and node.coord.file == self.marker

    def insert(self, offset: int, text: str, depth: int = 0, closing: bool = False) -> None:
        self._seq += 1
        # closers in the reverse of planning order, so that hooks of equal depth and span (the call
        # f(x) and the condition of ``if (f(x))``) close as they opened
        self.insertions.append(Insertion(offset, 0 if closing else 1, -depth if closing else depth,
                                         -self._seq if closing else self._seq, text))

    def wrap(self, start: int, end: int, opener: str, closer: str = ")") -> None:
        """Wrap the source text from offset ``start`` to ``end`` in an expression hook.

        Expression hooks (call announcements, MPI sites, allocation sizes, conditions) nest inside
        statement-level insertions; among themselves the one spanning more text goes outside, so
        that hooks starting at one offset nest as the expressions do: the condition of
        ``if (f(x) >= 0)`` around the call ``f(x)``, the size ``g(n) * 8`` around ``g(n)``.
        """
        depth = _EXPRESSION_DEPTH + (_EXPRESSION_DEPTH - (end - start))
        self.insert(start, opener, depth)
        self.insert(end, closer, depth, closing=True)

    def warn(self, line: int, col: int | None, message: str) -> None:
        where = f"{self.display}:{line}:{col}" if col else f"{self.display}:{line}"
        self.warnings.append(f"{where}: warning: {message}")

    def tok(self, node: c_ast.Node, expected: str | None = None) -> int | None:
        """Token index at the node's coordinate in the original text (None if it is not there)."""
        if not self.in_main(node):
            return None
        index = self.src.token_at(node.coord.line, node.coord.column)
        if index is None:
            return None
        if expected is not None and self.src.tokens[index].text != expected:
            return None
        return index

    # ---- the unit -------------------------------------------------------------------------
    def collect(self) -> d.UnitDescriptors:
        for ext in self.ast.ext:
            self._declare_global(ext)
        for ext in self.ast.ext:
            if isinstance(ext, c_ast.FuncDef) and self.in_main(ext):
                self.defined.append(ext)
                self.user_functions.add(ext.decl.name)
        for ext in self.ast.ext:
            if isinstance(ext, c_ast.Decl) and self.in_main(ext) and not isinstance(ext.type, c_ast.FuncDecl):
                self._global_shape(ext)
        self.stoppers = _stopping_functions(self.defined)
        self.inlined = _straight_line_functions(self.defined, self.user_functions, self.typedefs, self.fields,
                                                self.globals)
        for index, funcdef in enumerate(self.defined):
            FunctionCollector(self, funcdef, index).run()
        self._mark_recursion()
        self._macros()
        self.unit.warnings = list(self.warnings)
        return self.unit

    def _declare_global(self, ext: c_ast.Node) -> None:
        if isinstance(ext, c_ast.Typedef):
            self.typedefs[ext.name] = type_of_decl(ext.type, self.typedefs)
            self._fields_of(ext.type)
        elif isinstance(ext, c_ast.FuncDef):
            self.globals.names[ext.decl.name] = type_of_decl(ext.decl.type, self.typedefs)
        elif isinstance(ext, c_ast.Decl):
            self._fields_of(ext.type)
            if ext.name:
                self.globals.names[ext.name] = type_of_decl(ext.type, self.typedefs)
                if isinstance(ext.type, c_ast.FuncDecl) and self.in_main(ext):
                    self.user_functions.add(ext.name)

    def _fields_of(self, node: c_ast.Node) -> None:
        while isinstance(node, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
            node = node.type
        if isinstance(node, (c_ast.Struct, c_ast.Union)) and node.decls:
            for member in node.decls:
                if member.name:
                    self.fields[member.name] = type_of_decl(member.type, self.typedefs)
                self._fields_of(member.type)

    def _global_shape(self, decl: c_ast.Decl) -> None:
        if isinstance(decl.type, c_ast.ArrayDecl):
            extents = self.array_extents(decl)
            self.unit.shapes.append(
                d.ArrayShape(len(self.unit.shapes), None, decl.name, decl.coord.line, "fixed", len(extents),
                             extents, _element_text(decl.type), None)
            )

    def enumerators(self) -> set[str]:
        """Names of the enumeration constants declared at file scope (constants in array extents)."""
        if self._enumerators is None:
            self._enumerators = {n.name for ext in self.ast.ext if not isinstance(ext, c_ast.FuncDef)
                                 for n in _walk(ext) if isinstance(n, c_ast.Enumerator)}
        return self._enumerators

    def array_extents(self, decl: c_ast.Decl) -> list[str]:
        """Original text of each [extent] after the declared name."""
        index = self.tok(decl, decl.name)
        extents: list[str] = []
        node = decl.type
        if index is None:
            while isinstance(node, c_ast.ArrayDecl):
                extents.append(_generate(node.dim))
                node = node.type
            return extents
        j = index + 1
        while j < len(self.src.tokens) and self.src.tokens[j].text == "[":
            close = self.src.match_bracket(j)
            extents.append(self.src.text_of(j + 1, close - 1))
            j = close + 1
        return extents

    def _mark_recursion(self) -> None:
        def reaches(start: str, target: str, seen: set[str]) -> bool:
            for callee in self._callgraph.get(start, ()):
                if callee == target:
                    return True
                if callee not in seen:
                    seen.add(callee)
                    if reaches(callee, target, seen):
                        return True
            return False

        functions = []
        for f in self.unit.functions:
            recursive = reaches(f.name, f.name, set())
            if recursive:
                self.warn(f.line, None, f"recursion is not supported: '{f.name}' calls itself "
                          "(directly or indirectly); its loops are modeled per context as measured")
                self.unit.warnings = list(self.warnings)
            functions.append(d.FunctionDescriptor(**{**f.__dict__, "recursive": recursive}))
        self.unit.functions = functions

    def _macros(self) -> None:
        for tok in self.src.tokens:
            if tok.kind != "pp":
                continue
            match = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)(?!\()\s+(.*)", tok.text)
            if match:
                value = re.sub(r"/\*.*?\*/|//.*", "", match.group(2)).strip()
                self.unit.macros[match.group(1)] = value


class FunctionCollector:
    """Walks one function: blocks, loops, conditionals, regions, calls, communication, shapes."""

    def __init__(self, unit: UnitCollector, funcdef: c_ast.FuncDef, index: int):
        self.u = unit
        self.src = unit.src
        self.funcdef = funcdef
        self.index = index
        self.name = funcdef.decl.name
        self.nslots = 0
        self.nvalues = 0
        self.blocks: list[_Block] = []
        self.block: _Block | None = None
        self.loops: list[int] = []  # stack of enclosing loop ids
        self.loop_scopes: list[Scope] = []  # the scope each enclosing loop stands in
        self.regions: list[int] = []  # stack of enclosing region ids
        self.parallel = 0  # depth of lexically enclosing parallel constructs
        self.scope = Scope(unit.globals)
        self.assignments: list[d.Assignment] = []
        self.params: list[str] = []
        self.has_goto = False
        self._after: tuple[int, int, int | None] = (0, 0, None)
        self._stmt_end: int | None = None  # where statement-level hooks of the current statement go
        self._declare_slab = False  # the next block opens a parallel body: declare the thread's slab
        self._slab_active = False  # perfeq__cm is declared in an enclosing scope

    # ---- ids and slots --------------------------------------------------------------------
    def slot(self, n: int = 1) -> int:
        first = self.nslots
        self.nslots += n
        return first

    def value_slot(self) -> int:
        self.nvalues += 1
        return self.nvalues - 1

    def counter(self) -> OpCounter:
        return OpCounter(self.scope, self.u.fields, self.u.typedefs, self.loop_scopes[-1] if self.loop_scopes else None)

    @property
    def loop(self) -> int | None:
        return self.loops[-1] if self.loops else None

    def mt(self, name: str) -> str:
        """Inside a parallel construct, counters go through the thread's own slab: the local
        perfeq__cm where the body could declare it, else a runtime call per increment."""
        if not self.parallel:
            return name
        return f"{name}_L" if self._slab_active else f"{name}_MT"

    def new_block(self, kind: str, line: int, offset: int | None, depth: int = 0,
                  anchor: int | None = None, counted: bool = True) -> _Block:
        """Start a block; its counter is inserted at ``offset`` (None: the entry block).

        ``anchor`` is the block whose executions this one's are relative to: the block a loop,
        conditional or region stands in (for bodies and branches), or the block before a control
        statement (for the block after it).
        """
        slot = None if offset is None else self.slot()
        block = _Block(len(self.u.unit.blocks) + len(self.blocks), slot, line, kind, self.loop, bool(self.parallel),
                       anchor)
        self.blocks.append(block)
        declare = ""
        if self._declare_slab and offset is not None:
            declare, self._declare_slab, self._slab_active = " PERFEQ_MT_LOCAL", False, True
        if offset is not None and counted:  # (an uncounted block's slot is filled by PERFEQ_TRIPS_*)
            self.u.insert(offset, f"{declare} {self.mt('PERFEQ_BLOCK')}({slot}); ", depth)
        elif declare:
            self.u.insert(offset, declare + " ", depth)
        self.block = block
        return block

    def add_ops(self, ops: OpCount, node: c_ast.Node | None = None) -> None:
        if self.block is not None:
            self.block.ops = self.block.ops + ops
            if node is not None:
                self.block.arrays |= _arrays(node)

    # ---- the function ---------------------------------------------------------------------
    def run(self) -> None:
        fd = self.funcdef
        decl_type = fd.decl.type
        if isinstance(decl_type, c_ast.FuncDecl) and decl_type.args:
            for param in decl_type.args.params:
                if isinstance(param, c_ast.Decl) and param.name:
                    self.params.append(param.name)
                    self.scope.names[param.name] = type_of_decl(param.type, self.u.typedefs)
        if self.name in self.u.inlined:
            # straight-line code: its operations are added to every caller's block, no hooks
            self.u.unit.functions.append(
                d.FunctionDescriptor(self.index, self.name, fd.coord.line, self.params, 0, 0, -1, False, [],
                                     self.returned_expression(), self.u.inlined[self.name].to_dict(),
                                     self.returned_names()))
            return
        brace = self.u.tok(fd.body, "{")
        if brace is None:
            self.u.warn(fd.coord.line, None, f"function '{self.name}' is not instrumented: its body "
                        "does not start where the parser says (a macro?)")
            return
        for node in _walk(fd.body):
            if isinstance(node, (c_ast.Goto, c_ast.Label)):
                self.has_goto = True
        first_block = len(self.u.unit.blocks)
        self.new_block("entry", fd.body.coord.line, None)
        self.u.insert(self.src.tokens[brace].end, f" PERFEQ_FUNC_BEGIN(perfeq__unit, {self.index}) ")
        self.items(fd.body.block_items or [], depth=1)
        for block in self.blocks:
            self.u.unit.blocks.append(
                d.BlockDescriptor(block.id, self.index, block.slot, block.line, block.kind, block.loop,
                                  block.in_parallel, block.anchor, block.ops.to_dict(), sorted(block.arrays))
            )
        self.u.unit.functions.append(
            d.FunctionDescriptor(self.index, self.name, fd.coord.line, self.params, self.nslots, self.nvalues,
                                 first_block, False, self.assignments, self.returned_expression(), None,
                                 self.returned_names())
        )

    def returned_names(self) -> list[str] | None:
        """The variables ``return NAME;`` statements return; None if a return gives anything else."""
        names = set()
        for node in _walk(self.funcdef.body):
            if isinstance(node, c_ast.Return):
                if not isinstance(node.expr, c_ast.ID):
                    return None
                names.add(node.expr.name)
        return sorted(names) or None

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
            self.statement(item, depth, pending_pragmas)
            pending_pragmas = []

    def statement(self, node: c_ast.Node, depth: int, pragmas: list[c_ast.Pragma]) -> None:
        """One statement inside a compound; control statements end the current block."""
        parallel = [p for p in pragmas if OMP_PARALLEL.match(p.string) and not OMP_LOOP.match(p.string)]
        if parallel:  # a parallel construct (not combined with a loop): its statement runs on every thread
            self._ensure_block()
            before = self.block
            inner = [p for p in pragmas if p.coord.line > parallel[-1].coord.line]  # e.g. omp for
            end = self.region_statement(node, depth, parallel[-1], inner)
            if end is not None:
                self.block = None
                self._after = (end, node.coord.line, before.id if before else None)
            return
        sections = [p for p in pragmas if OMP_SECTIONS.match(p.string)]
        if sections and isinstance(node, c_ast.Compound):  # omp sections inside a parallel region
            self._ensure_block()
            before = self.block
            open_ = self.u.tok(node, "{")
            if open_ is not None:
                end = self.sections_body(open_, node, depth, before.id if before else None, "team-section")
                self.block = None
                self._after = (self.src.tokens[end].end, node.coord.line, before.id if before else None)
                return
        handler = getattr(self, "stmt_" + type(node).__name__, None)
        if handler is not None:
            if not isinstance(node, (c_ast.Label, c_ast.Pragma)):
                self._ensure_block()
            before = self.block
            end = handler(node, depth, pragmas)
            if end is not None:  # a control statement: what follows is a new block
                self.block = None
                self._after = (end, node.coord.line, before.id if before else None)
            return
        self.simple(node)

    def _ensure_block(self) -> None:
        """After a control statement, the next simple statement starts a new block."""
        if self.block is None:
            end, line, anchor = self._after
            self.new_block("after", line, end, anchor=anchor)

    def simple(self, node: c_ast.Node) -> None:
        self._ensure_block()
        self._stmt_end = self.statement_end_offset(node)
        if isinstance(node, c_ast.Decl):
            self.declaration(node)
        else:
            self.add_ops(self.counter().count(node), node)
            self.expressions(node)
            self.record_assignment(node)
        if isinstance(node, (c_ast.Return, c_ast.Break, c_ast.Continue, c_ast.Goto)):
            start = self.u.tok(node)
            if start is not None:
                try:
                    end = self.src.statement_end(start)
                except SourceError:
                    return
                self.block = None
                self._after = (self.src.tokens[end].end, node.coord.line, None)

    def declaration(self, node: c_ast.Decl) -> None:
        if node.name:
            self.scope.names[node.name] = type_of_decl(node.type, self.u.typedefs)
        if isinstance(node.type, c_ast.ArrayDecl):
            extents = self.u.array_extents(node)
            # after preprocessing, a fixed extent is a constant expression (macros expanded)
            vla = any(_names(dim) - self.u.enumerators() for dim in _array_dims(node.type))
            slot = None
            if vla and self.parallel == 0:
                slot = self.value_slot()
                self.after_statement(node, f"PERFEQ_VALUE({slot}, {' * '.join(f'({e})' for e in extents)});")
            self.u.unit.shapes.append(
                d.ArrayShape(len(self.u.unit.shapes), self.index, node.name, node.coord.line,
                             "vla" if vla else "fixed", len(extents), extents, _element_text(node.type), slot)
            )
        if node.init is not None:
            self.add_ops(self.counter().count(node.init), node.init)
            self.expressions(node.init, target=node.name)
            if node.name and isinstance(node.type, c_ast.TypeDecl) and not isinstance(node.init, c_ast.InitList):
                text = self.init_text(node)
                if text is not None:
                    self.assignments.append(d.Assignment(node.name, "=", text, node.coord.line,
                                                         self.block.id if self.block else None, self.loop))

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

    def after_statement(self, node: c_ast.Node, text: str) -> None:
        """Insert a statement after the current statement (for a condition: after its if/switch)."""
        if self._stmt_end is not None:
            self.u.insert(self._stmt_end, " " + text)

    def record_assignment(self, node: c_ast.Node) -> None:
        if not (isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID)):
            return
        start = self.u.tok(node)
        if start is None:
            return
        try:
            op = self.src.scan_to(start, (node.op,))
            end = self.src.scan_to(op + 1, (";", ",", ")"))
        except SourceError:
            return
        self.assignments.append(d.Assignment(node.lvalue.name, node.op, self.src.text_of(op + 1, end - 1),
                                             node.coord.line, self.block.id if self.block else None, self.loop))

    # ---- sub-statements -------------------------------------------------------------------
    def sub_statement(self, first: int, node: c_ast.Node, kind: str, depth: int,
                      anchor: int | None, counted: bool = True,
                      pragmas: list[c_ast.Pragma] | None = None) -> tuple[int, int]:
        """A body or branch starting at token ``first``: its last token index and its first block.

        ``pragmas`` are those between ``first`` and a statement that is not a compound (``omp for``
        after ``omp parallel``): they stay with their statement, inside the block's braces."""
        if isinstance(node, c_ast.Compound) and self.src.tokens[first].text == "{" and self.u.tok(node, "{") == first:
            end = self.src.match_bracket(first)
            saved = self.scope
            self.scope = Scope(saved)
            block = self.new_block(kind, node.coord.line, self.src.tokens[first].end, depth + 1, anchor, counted)
            self.items(node.block_items or [], depth + 1)
            self.scope = saved
            return end, block.id
        end = self.src.statement_end(first)
        line = self.src.tokens[first].line
        self.u.insert(self.src.tokens[first].start, "{ ", depth + 1)
        self.u.insert(self.src.tokens[end].end, " }", depth + 1, closing=True)
        block = self.new_block(kind, line, self.src.tokens[first].start, depth + 1, anchor, counted)
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

    # ---- loops ----------------------------------------------------------------------------
    def stmt_For(self, node: c_ast.For, depth: int, pragmas: list) -> int | None:
        return self.loop_statement(node, "for", depth, pragmas)

    def stmt_While(self, node: c_ast.While, depth: int, pragmas: list) -> int | None:
        return self.loop_statement(node, "while", depth, pragmas)

    def stmt_DoWhile(self, node: c_ast.DoWhile, depth: int, pragmas: list) -> int | None:
        return self.loop_statement(node, "do", depth, pragmas)

    def loop_statement(self, node: c_ast.Node, kind: str, depth: int, pragmas: list) -> int | None:
        self._ensure_block()
        start = self.u.tok(node, kind)
        if start is None:
            self.u.warn(node.coord.line, node.coord.column, f"{kind} loop not found in the source "
                        "(written by a macro?); it is not instrumented")
            self.simple_fallback(node)
            return None
        saved = (self.scope, len(self.loops), len(self.loop_scopes), len(self.regions), self.parallel,
                 self._slab_active)
        try:
            return self._loop(node, kind, start, depth, pragmas)
        except SourceError as exc:
            self.u.warn(node.coord.line, node.coord.column, f"loop not instrumented: {exc}")
            return None
        finally:  # the loop's own scope ends here, also when its body could not be instrumented
            self.scope, loops, loop_scopes, regions, self.parallel, self._slab_active = saved
            del self.loops[loops:], self.loop_scopes[loop_scopes:], self.regions[regions:]

    def _loop(self, node, kind: str, start: int, depth: int, pragmas: list) -> int:
        src = self.src
        end = src.statement_end(start)
        # the loop's own scope: a for's declarations are visible in its header and body only, and
        # an accumulation in its condition or step (s += h) is carried from one iteration to the next
        self.scope = Scope(self.scope)
        if kind == "for" and isinstance(node.init, c_ast.DeclList):
            for decl in node.init.decls:
                self.scope.names[decl.name] = type_of_decl(decl.type, self.u.typedefs)
        counter = self.counter()  # the initialization runs once per entry: in the enclosing loop
        per_test = OpCounter(self.scope, self.u.fields, self.u.typedefs, self.scope)
        omp = [p for p in pragmas if OMP_LOOP.match(p.string)]
        worksharing = bool(omp)
        collapse = 1
        if omp:
            match = OMP_COLLAPSE.search(omp[-1].string)
            collapse = int(match.group(1)) if match else 1
        # header parts
        if kind == "for":
            open_ = src.expect(start + 1, "(")
            close = src.match_bracket(open_)
            parts = src.split_top(open_ + 1, close - 1, ";")
            (i0, i1), (c0, c1), (s0, s1) = parts
            init_text, cond_text, step_text = src.text_of(i0, i1), src.text_of(c0, c1), src.text_of(s0, s1)
            body_first = close + 1
            ops_init = counter.count(node.init)
            ops_step = per_test.count(node.next)
        elif kind == "while":
            open_ = src.expect(start + 1, "(")
            close = src.match_bracket(open_)
            init_text, cond_text, step_text = None, src.text_of(open_ + 1, close - 1), None
            body_first = close + 1
            ops_init = ops_step = ZERO
        else:  # do
            body_first = start + 1
            body_end = src.statement_end(body_first)
            w = src.expect(body_end + 1, "while")
            open_ = src.expect(w + 1, "(")
            close = src.match_bracket(open_)
            init_text, cond_text, step_text = None, src.text_of(open_ + 1, close - 1), None
            ops_init = ops_step = ZERO
        ops_cond = per_test.count(node.cond)
        var, init_value, op, bound, stride, depends = self.loop_form(node, kind, init_text, step_text)
        flags = []
        if var and _assigns(node.stmt, var):
            flags.append("var-modified")
            self.u.warn(node.coord.line, node.coord.column,
                        f"loop variable '{var}' is modified in the loop body; its trip count will be fitted")
        if var is None or bound is None or _data_dependent(node.cond):
            flags.append("data-dependent")
            if kind != "for" or var is None:
                self.u.warn(node.coord.line, node.coord.column,
                            f"data-dependent {kind} loop: its trip count will be fitted to the problem size")
        under_omp = any(p.string.split()[:1] == ["omp"] for p in pragmas)  # its header must stay canonical
        predictor = None
        if "data-dependent" in flags and not under_omp and _names(node.cond):
            # how predictable its exits are (a loop that runs a few times, differently each time,
            # mispredicts its exit; one that runs alike, or long, hardly): as for an if.  Not under
            # an OpenMP pragma (its condition must stay canonical), not for a constant condition
            # (while (1): the compiler must still see an endless loop)
            predictor = self.branch_hook(*((c0, c1) if kind == "for" else (open_ + 1, close - 1)))
        if self.has_goto and _contains_goto(node.stmt):
            flags.append("goto")
            self.u.warn(node.coord.line, node.coord.column, "goto is not supported; this loop is modeled "
                        "as measured (fit or constant)")
        loop_id = len(self.u.unit.loops)
        self.u.unit.loops.append(None)  # reserved: nested loops get the ids after this one
        if not under_omp:
            parts = (("init", node.init), ("cond", node.cond), ("step", node.next)) if kind == "for" else (
                ("cond", node.cond),)
            inlined = {part: self.header_calls(expr, loop_id, part) for part, expr in parts if expr is not None}
            ops_init = ops_init + inlined.get("init", ZERO)
            ops_cond = ops_cond + inlined.get("cond", ZERO)
            ops_step = ops_step + inlined.get("step", ZERO)
        # entry counter and values, before the loop (before its pragmas)
        entry_slot = self.slot()
        values: dict[str, int] = {}
        hook = f"{self.mt('PERFEQ_BLOCK') if self.parallel else 'PERFEQ_LOOP_ENTER'}({entry_slot}); "
        init_names = _assigned_names(node.init) if kind == "for" else set()
        evaluable = []  # init and bound can be evaluated before the loop without side effects
        for key, text, expr in (("init", init_value, _init_expr(node, var)), ("bound", bound, _bound_expr(node))):
            if text and expr is not None and _safe_to_evaluate(expr, counter) and not (_names(expr) & init_names):
                evaluable.append(key)
                if not self.parallel and not worksharing:
                    values[key] = self.value_slot()
                    hook += f"PERFEQ_VALUE({values[key]}, ({text})); "
        trips = None  # iterations counted once per entry from the bounds, not once per iteration
        if (kind == "for" and len(evaluable) == 2 and not worksharing and not flags and op in _TRIPS_MACRO and stride
                and (not self.parallel or self._slab_active)
                and re.fullmatch(r"-?\d+", stride) and (int(stride) > 0) == (op in ("<", "<="))
                and not _exits_early(node.stmt, self.u.stoppers) and not (_names(_bound_expr(node)) & _assigned_names(node.stmt))
                and self.scope.lookup(var) is not None and not self.scope.lookup(var).floating):
            trips = (init_value, bound, int(stride), op)
        wrap_start = src.tokens[start].start
        if pragmas:
            pragma_tok = self.u.tok(pragmas[0])
            first_pp = self._pragma_token(pragmas[0]) if pragma_tok is None else pragma_tok
            if first_pp is not None:
                wrap_start = src.tokens[first_pp].start
        region_hook = ""
        region_id = None
        if omp and OMP_PARALLEL.match(omp[-1].string):
            region_id, region_hook = self.region(omp[-1], loop_id)
        self.u.insert(wrap_start, "{ " + region_hook + hook, depth)
        self.u.insert(src.tokens[end].end, " }", depth, closing=True)
        # body
        self.loops.append(loop_id)
        self.loop_scopes.append(self.scope)
        if region_id is not None:
            self.regions.append(region_id)
        self.parallel += 1 if (worksharing or region_id is not None) else 0
        saved_slab = self._slab_active
        self._declare_slab = self.parallel > 0 and (worksharing or region_id is not None) and not saved_slab
        saved_block = self.block
        anchor = saved_block.id if saved_block else None
        body_block = None
        if collapse > 1:
            flags.append("collapsed")
            body_block = self._collapsed_body(node.stmt, collapse - 1, depth, anchor)
        else:
            _, body_block = self.sub_statement(body_first, node.stmt, "body", depth, anchor, counted=trips is None)
            if trips is not None:
                first_value, bound_value, step, relation = trips
                body_slot = next(b.slot for b in self.blocks if b.id == body_block)
                macro = _TRIPS_MACRO[relation] + ("_L" if self.parallel else "")
                self.u.insert(wrap_start, f"{macro}({body_slot}, ({first_value}), ({bound_value}), {abs(step)}); ",
                              depth)
        self.parallel -= 1 if (worksharing or region_id is not None) else 0
        self._slab_active, self._declare_slab = saved_slab, False
        if region_id is not None:
            self.regions.pop()
        self.loops.pop()
        self.loop_scopes.pop()
        self.block = saved_block
        self.u.unit.loops[loop_id] = (
            d.LoopDescriptor(
                loop_id, self.index, kind, node.coord.line, node.coord.column, var, init_value, cond_text, op,
                bound, step_text, stride, sorted(depends), self.loop, anchor, entry_slot, body_block, values,
                ops_init.to_dict(), ops_cond.to_dict(), ops_step.to_dict(), bool(self.parallel), worksharing,
                flags, predictor,
            )
        )
        return src.tokens[end].end

    def _collapsed_body(self, stmt: c_ast.Node, levels: int, depth: int, anchor: int | None) -> int | None:
        """Inner loops of a collapse(n) nest: no code may stand between them; count the innermost body."""
        inner = stmt
        while isinstance(inner, c_ast.Compound) and len(inner.block_items or []) == 1:
            inner = inner.block_items[0]
        if not isinstance(inner, c_ast.For):
            return None
        start = self.u.tok(inner, "for")
        if start is None:
            return None
        open_ = self.src.expect(start + 1, "(")
        close = self.src.match_bracket(open_)
        if levels > 1:
            return self._collapsed_body(inner.stmt, levels - 1, depth, anchor)
        return self.sub_statement(close + 1, inner.stmt, "body", depth, anchor)[1]

    def _pragma_token(self, pragma: c_ast.Pragma) -> int | None:
        line = pragma.coord.line
        for i, tok in enumerate(self.src.tokens):
            if tok.kind == "pp" and tok.line == line:
                return i
        return None

    def loop_form(self, node, kind, init_text, step_text):
        """Iteration variable, initial value, relational operator, bound, stride and names used."""
        var = init_value = op = bound = stride = None
        depends: set[str] = set()
        cond = node.cond
        if isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=", "!="):
            if isinstance(cond.left, c_ast.ID):
                var, op, other = cond.left.name, cond.op, cond.right
            elif isinstance(cond.right, c_ast.ID):
                flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
                var, op, other = cond.right.name, flipped[cond.op], cond.left
            else:
                other = None
            if other is not None:
                bound = self.expr_text(other) or _generate(other)
                depends |= _names(other)
        if kind == "for" and var is not None:
            init = _init_expr(node, var)
            if init is not None:
                init_value = self.expr_text(init) or _generate(init)
                depends |= _names(init)
            step = node.next
            if isinstance(step, c_ast.UnaryOp) and step.op in ("++", "p++") and _is_id(step.expr, var):
                stride = "1"
            elif isinstance(step, c_ast.UnaryOp) and step.op in ("--", "p--") and _is_id(step.expr, var):
                stride = "-1"
            elif isinstance(step, c_ast.Assignment) and _is_id(step.lvalue, var):
                if step.op in ("+=", "-="):
                    text = self.expr_text(step.rvalue) or _generate(step.rvalue)
                    stride = text if step.op == "+=" else f"-({text})"
                    depends |= _names(step.rvalue)
                elif step.op == "=" and isinstance(step.rvalue, c_ast.BinaryOp) and step.rvalue.op in "+-" \
                        and _is_id(step.rvalue.left, var):
                    text = self.expr_text(step.rvalue.right) or _generate(step.rvalue.right)
                    stride = text if step.rvalue.op == "+" else f"-({text})"
                    depends |= _names(step.rvalue.right)
                elif step.op == "=" and isinstance(step.rvalue, c_ast.BinaryOp) and step.rvalue.op in "*/" and (
                        _is_id(step.rvalue.left, var) or (step.rvalue.op == "*" and _is_id(step.rvalue.right, var))):
                    other = step.rvalue.right if _is_id(step.rvalue.left, var) else step.rvalue.left
                    stride = f"{step.rvalue.op}={self.expr_text(other) or _generate(other)}"
                    depends |= _names(other)
                elif step.op in ("*=", "<<=", ">>=", "/="):
                    stride = f"{step.op}{self.expr_text(step.rvalue) or _generate(step.rvalue)}"
        depends.discard(var)
        return var, init_value, op, bound, stride, depends

    def expr_text(self, node: c_ast.Node) -> str | None:
        """Original text of an expression node, when its extent can be found reliably."""
        start = self.u.tok(node)
        if start is None:
            return None
        generated = _generate(node)
        # extend token by token until the generated text (macros expanded) matches the original
        # text with spaces removed; stop at the first depth-0 delimiter
        try:
            stop = self.src.scan_to(start, (";", ",", ")", "]", "?", ":", "<", ">", "<=", ">=", "==", "!=",
                                            "&&", "||", "="))
        except SourceError:
            return None
        text = self.src.text_of(start, stop - 1)
        if _squash(text) == _squash(generated) or not _has_macro_free_mismatch(text, generated):
            return text
        return None

    def simple_fallback(self, node: c_ast.Node) -> None:
        self.add_ops(self.counter().count(node))

    # ---- conditionals ---------------------------------------------------------------------
    def stmt_If(self, node: c_ast.If, depth: int, pragmas: list) -> int | None:
        self._ensure_block()
        start = self.u.tok(node, "if")
        if start is None:
            self.simple_fallback(node)
            return None
        src = self.src
        try:
            open_ = src.expect(start + 1, "(")
            close = src.match_bracket(open_)
        except SourceError:
            return None
        evaluated_in = self.block
        self.add_ops(self.counter().count(node.cond), node.cond)
        self._stmt_end = src.tokens[src.statement_end(start)].end
        self.expressions(node.cond)
        select = self.is_select(node)
        predictor = None if select else self.branch_hook(open_ + 1, close - 1)  # a branch
        anchor = evaluated_in.id if evaluated_in else None
        then_end, then_block = self.sub_statement(close + 1, node.iftrue, "then", depth, anchor)
        else_block = None
        end = then_end
        if node.iffalse is not None:
            else_tok = src._skip_pp(then_end + 1)
            end, else_block = self.sub_statement(else_tok + 1, node.iffalse, "else", depth, anchor)
        self.u.unit.conds.append(
            d.CondDescriptor(len(self.u.unit.conds), self.index, "if", node.coord.line,
                             src.text_of(open_ + 1, close - 1), evaluated_in.id if evaluated_in else None,
                             then_block, else_block, [], None, sorted(_names(node.cond)),
                             self.counter().count(node.cond).to_dict(),
                             select, predictor)
        )
        return src.tokens[end].end

    def branch_hook(self, first: int, last: int) -> int | None:
        """Wrap the condition in tokens ``first`` .. ``last`` in PERFEQ_BRANCH (perfeq_rt.h), which
        records how predictable its outcomes are; returns the predictor's first slot.  The condition
        goes in parentheses (a top-level comma or compound literal would split the macro's
        arguments); none for an empty condition or one with a preprocessor line inside (a directive
        inside macro arguments is not portable): its mispredictions come from the counts alone."""
        if last < first or self.has_directive(first, last):
            return None
        predictor = self.slot(BRANCH_SLOTS)
        self.u.wrap(self.src.tokens[first].start, self.src.tokens[last].end,
                    f"{self.mt('PERFEQ_BRANCH')}({predictor}, (", "))")
        return predictor

    def has_directive(self, first: int, last: int) -> bool:
        """Whether a preprocessor line stands among tokens ``first`` .. ``last``."""
        return any(self.src.tokens[i].kind == "pp" for i in range(first, last + 1))

    def is_select(self, node: c_ast.If) -> bool:
        """An ``if`` a compiler turns into conditional moves (or max/min) at -O2: see :func:`_moves_only`;
        the assigned variables are scalar locals or parameters (a store to a global is not invented)."""
        def local_scalar(name: str) -> bool:
            scope = self.scope
            while scope is not None and scope is not self.u.globals:
                if name in scope.names:
                    ctype = scope.names[name]
                    return ctype.depth == 0 and ctype.struct is None
                scope = scope.parent
            return False

        return (not _short_circuit(node.cond) and _moves_only(node.iftrue, node.cond, local_scalar)
                and (node.iffalse is None or _moves_only(node.iffalse, node.cond, local_scalar)))

    def stmt_Switch(self, node: c_ast.Switch, depth: int, pragmas: list) -> int | None:
        self._ensure_block()
        start = self.u.tok(node, "switch")
        if start is None or not isinstance(node.stmt, c_ast.Compound):
            self.simple_fallback(node)
            return None
        src = self.src
        open_ = src.expect(start + 1, "(")
        close = src.match_bracket(open_)
        end = src.statement_end(start)
        evaluated_in = self.block
        self.add_ops(self.counter().count(node.cond))
        self._stmt_end = src.tokens[end].end
        self.expressions(node.cond)
        case_blocks = []
        for item in node.stmt.block_items or []:
            if isinstance(item, (c_ast.Case, c_ast.Default)):
                label = self.u.tok(item)
                if label is None:
                    continue
                colon = src._label_colon(label)
                self.new_block("case", item.coord.line, src.tokens[colon].end, depth + 1,
                               evaluated_in.id if evaluated_in else None)
                case_blocks.append(self.block.id)
                self.items(item.stmts or [], depth + 1)
            else:
                self.statement(item, depth + 1, [])
        self.u.unit.conds.append(
            d.CondDescriptor(len(self.u.unit.conds), self.index, "switch", node.coord.line,
                             src.text_of(open_ + 1, close - 1), evaluated_in.id if evaluated_in else None,
                             None, None, case_blocks, None, sorted(_names(node.cond)),
                             self.counter().count(node.cond).to_dict())
        )
        return src.tokens[end].end

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

    # ---- expressions: calls, MPI, allocations, parameters ---------------------------------
    def expressions(self, node: c_ast.Node, target: str | None = None) -> None:
        """Calls, communication, allocations and parameters inside one statement's expressions."""
        if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
            target = node.lvalue.name
        for call in _calls(node):
            name = call.name.name if isinstance(call.name, c_ast.ID) else None
            if name is None:
                continue
            self.argv_by_reference(call)
            if name in self.u.user_functions:
                self.user_call(call, name)
                if target and _direct_value(node) is call:
                    self.returned_allocation(call, name, target)
            elif name.startswith("MPI_"):
                self.mpi_call(call, name)
            elif name in ALLOCATORS:
                self.allocation(call, name, target)
            elif name in ARGV_CONVERTERS or name == "sscanf":
                self.argv_param(node, call, name, target)
            elif name in ("omp_get_num_threads", "omp_get_max_threads") and target:
                self.param(node, target, "T", "omp_threads", call)
        for ternary in _ternaries(node):
            self.ternary(ternary)

    def call_extent(self, call: c_ast.FuncCall, name: str) -> tuple[int, int, list[str]] | None:
        start = self.u.tok(call, name)
        if start is None:
            return None
        try:
            open_ = self.src.expect(start + 1, "(")
            close = self.src.match_bracket(open_)
        except SourceError:
            return None
        args = [] if close == open_ + 1 else [self.src.text_of(a, b) for a, b in self.src.split_top(open_ + 1, close - 1, ",")]
        return start, close, args

    def header_calls(self, expr: c_ast.Node, loop_id: int, part: str) -> OpCount:
        """Calls of this file's functions in a loop's initialization, condition or step: announced
        like a statement's, with where in the header they run (docs/descriptors.md ``header``).
        Returns the operations of the straight-line (inlined) ones, which that part runs."""
        inlined = ZERO
        for call in _calls(expr):
            name = call.name.name if isinstance(call.name, c_ast.ID) else None
            if name in self.u.user_functions:
                self.user_call(call, name, {"loop": loop_id, "part": part})
                if name in self.u.inlined:
                    inlined = inlined + self.u.inlined[name]
        return inlined

    def user_call(self, call: c_ast.FuncCall, name: str, header: dict | None = None) -> None:
        self.u._callgraph.setdefault(self.name, set()).add(name)
        extent = self.call_extent(call, name)
        site = len(self.u.unit.calls)
        args = extent[2] if extent is not None else [_generate(a) for a in (call.args.exprs if call.args else [])]
        if name in self.u.inlined:  # a straight-line function: its operations count in this block
            if header is None:  # (in a loop header: in that part's operations, header_calls)
                self.add_ops(self.u.inlined[name])
            extent = None
        elif extent is not None:
            start, close, args = extent
            self.u.wrap(self.src.tokens[start].start, self.src.tokens[close].end,
                        f'PERFEQ_CALLED(perfeq__unit, {site}, "{name}", ')
        else:
            args = [_generate(a) for a in (call.args.exprs if call.args else [])]
        self.u.unit.calls.append(
            d.CallDescriptor(site, self.index, name, call.coord.line, call.coord.column, args,
                             self.block.id if self.block else None, self.loop, extent is not None, header)
        )

    def mpi_call(self, call: c_ast.FuncCall, name: str) -> None:
        spec = self.u._mpi_calls.get(name)
        extent = self.call_extent(call, name)
        args = extent[2] if extent else [_generate(a) for a in (call.args.exprs if call.args else [])]
        if name in ("MPI_Comm_size", "MPI_Comm_rank") and len(args) == 2:
            variable = args[1].lstrip("&").strip()
            if re.fullmatch(r"[A-Za-z_]\w*", variable):
                kind = "mpi_size" if name == "MPI_Comm_size" else "mpi_rank"
                symbol = "P" if kind == "mpi_size" else "rank"
                if args[0].strip() == "MPI_COMM_WORLD":
                    self.param(call, variable, symbol, kind, call)
        if spec is None:
            return
        comm_id = len(self.u.unit.comms)
        instrumented = extent is not None
        if instrumented:
            start, close, _ = extent
            self.u.wrap(self.src.tokens[start].start, self.src.tokens[close].end, f"(PERFEQ_MPI({comm_id}), ")

        def arg(key: str) -> str | None:
            index = spec.get(key)
            return args[index] if index is not None and index < len(args) else None

        self.u.unit.comms.append(
            d.CommDescriptor(comm_id, self.index, name, call.coord.line, call.coord.column, args, arg("count"),
                             arg("datatype"), arg("peer"), arg("root"), arg("comm"),
                             self.block.id if self.block else None, self.loop, instrumented)
        )

    def allocation(self, call: c_ast.FuncCall, name: str, target: str | None) -> None:
        extent = self.call_extent(call, name)
        if extent is None:
            return
        start, close, args = extent
        size_index = {"malloc": 0, "calloc": 0, "realloc": 1, "aligned_alloc": 1}[name]
        if size_index >= len(args):
            return
        slot = None
        if not self.parallel:
            slot = self.value_slot()
            open_ = start + 1
            parts = self.src.split_top(open_ + 1, close - 1, ",")
            a, b = parts[size_index]
            self.u.wrap(self.src.tokens[a].start, self.src.tokens[b].end, f"PERFEQ_SIZE({slot}, ")
        extents = [args[size_index]] + ([args[1]] if name == "calloc" and len(args) > 1 else [])
        self.u.unit.shapes.append(
            d.ArrayShape(len(self.u.unit.shapes), self.index, target, call.coord.line, name, 1, extents, None, slot,
                         self.loop)
        )

    def returned_allocation(self, call: c_ast.FuncCall, name: str, target: str) -> None:
        """``psi = new_grid(local_nx + 2, n + 2)``: ``psi`` may be what the callee allocates (its size
        is resolved in the symbolic stage, from the callee's allocation and these arguments)."""
        args = self.u.unit.calls[-1].args
        self.u.unit.shapes.append(
            d.ArrayShape(len(self.u.unit.shapes), self.index, target, call.coord.line, "call", 1, [name, *args],
                         None, None, self.loop)
        )

    def argv_by_reference(self, call: c_ast.FuncCall) -> None:
        """``parse_int(argv[1], &n)``: a call given an argv element and the address of a variable."""
        args = call.args.exprs if call.args else []
        if isinstance(call.name, c_ast.ID) and call.name.name.startswith("MPI_"):
            return
        if not any(_mentions_argv(a) and not isinstance(a, c_ast.UnaryOp) for a in args):
            return
        for arg in args:
            if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ID):
                typ = self.scope.lookup(arg.expr.name)
                if arg.expr.name not in ("argc", "argv") and typ is not None and typ.depth == 0 and not typ.struct:
                    self.param(call, arg.expr.name, arg.expr.name, "argv", call)

    def argv_param(self, stmt: c_ast.Node, call: c_ast.FuncCall, name: str, target: str | None) -> None:
        args = call.args.exprs if call.args else []
        if not args or "argv" not in _names(args[0]) and not _mentions_argv(args[0]):
            return
        if name == "sscanf":
            for extra in args[2:]:
                if isinstance(extra, c_ast.UnaryOp) and extra.op == "&" and isinstance(extra.expr, c_ast.ID):
                    self.param(stmt, extra.expr.name, extra.expr.name, "argv", call)
            return
        if target:
            self.param(stmt, target, target, "argv", call)

    def param(self, stmt: c_ast.Node, variable: str, symbol: str, source: str, call: c_ast.FuncCall) -> None:
        if any(p.variable == variable and p.function == self.index for p in self.u.unit.params):
            return
        extent = self.call_extent(call, call.name.name) if isinstance(call.name, c_ast.ID) else None
        text = self.src.text_of(extent[0], extent[1]) if extent else _generate(call)  # as written
        self.u.unit.params.append(d.ParamDescriptor(variable, symbol, source, self.index, call.coord.line, text))
        if not self.parallel:
            self.after_statement(stmt, f'PERFEQ_PARAM("{variable}", {variable});')

    def ternary(self, node: c_ast.TernaryOp) -> None:
        start = self.u.tok(node)
        if start is None:
            return
        question = self.ternary_question(start, sum(isinstance(n, c_ast.TernaryOp) for n in _walk(node.cond)))
        if question is None:
            return
        # the condition's opening parentheses stand before its first operand: (x > 0) ? a : b
        while start > 0 and self.src.tokens[start - 1].text == "(" and \
                self.src.match_bracket(start - 1) < question:
            start -= 1
        if self.has_directive(start, question - 1):
            return  # a directive inside macro arguments is not portable: no hook, as for an if
        slot = self.slot(2)
        # in parentheses: a compound literal's commas would split the macro's arguments
        self.u.wrap(self.src.tokens[start].start, self.src.tokens[question - 1].end,
                    f"{self.mt('PERFEQ_COND')}({slot}, (", "))")
        self.u.unit.conds.append(
            d.CondDescriptor(len(self.u.unit.conds), self.index, "ternary", node.coord.line,
                             self.src.text_of(start, question - 1), self.block.id if self.block else None,
                             None, None, [], slot, sorted(_names(node.cond)),
                             self.counter().count(node.cond).to_dict())
        )

    def ternary_question(self, start: int, inner: int) -> int | None:
        """The '?' of a conditional whose condition starts at token ``start`` and holds ``inner``
        conditionals of its own (their '?' come first); None when the statement ends before it."""
        for j in range(start, len(self.src.tokens)):
            text = self.src.tokens[j].text
            if text in (";", "{", "}"):
                return None
            if text == "?":
                if inner == 0:
                    return j
                inner -= 1
        return None

    # ---- OpenMP regions -------------------------------------------------------------------
    def region_statement(self, node: c_ast.Node, depth: int, pragma: c_ast.Pragma,
                         inner: list[c_ast.Pragma]) -> int | None:
        """``#pragma omp parallel`` and its structured block: count the entry, walk it in parallel."""
        self._ensure_block()
        anchor = self.block.id if self.block else None
        first_pp = self._pragma_token(pragma)
        start = self.src._skip_pp(first_pp + 1) if first_pp is not None else None
        if first_pp is None or start is None:
            return None
        end = self.src.statement_end(start)
        region_id, hook = self.region(pragma, None)
        self.u.insert(self.src.tokens[first_pp].start, "{ " + hook, depth)
        self.u.insert(self.src.tokens[end].end, " }", depth, closing=True)
        self.regions.append(region_id)
        self.parallel += 1
        saved_slab = self._slab_active
        if (OMP_SECTIONS.match(pragma.string) and isinstance(node, c_ast.Compound)
                and self.src.tokens[start].text == "{"):
            # no room for the thread's slab before the first section: counters go through the runtime
            self._declare_slab = False
            self.sections_body(start, node, depth, anchor)
        elif isinstance(node, c_ast.Compound) and self.src.tokens[start].text == "{":
            self._declare_slab = not saved_slab
            self.sub_statement(start, node, "region", depth, anchor)
        else:  # a single statement (a loop, an if, ...): braced as the region's block, on every thread
            self._declare_slab = not saved_slab
            self.sub_statement(first_pp + 1, node, "region", depth, anchor, pragmas=inner)
        self._slab_active, self._declare_slab = saved_slab, False
        self.parallel -= 1
        self.regions.pop()
        return self.src.tokens[end].end

    def sections_body(self, open_: int, node: c_ast.Compound, depth: int, anchor: int | None,
                      kind: str = "section") -> int:
        """The block of ``omp sections``: each section is a body of its own (counted inside it),
        and nothing is inserted between the sections or before the first.  Its closing token.

        ``kind``: ``section`` for ``parallel sections`` (each section once per entry),
        ``team-section`` for ``sections`` run by a team (once per team, not once per thread)."""
        end = self.src.match_bracket(open_)
        saved = self.scope
        self.scope = Scope(saved)
        previous = open_
        pending: list[c_ast.Pragma] = []  # pragmas of the section's statement (omp parallel for, ...)
        for item in node.block_items or []:
            if isinstance(item, c_ast.Pragma):  # #pragma omp section stays before its statement
                if item.string.split()[:2] != ["omp", "section"]:
                    pending.append(item)
                continue
            first = self._pragma_token(pending[0]) if pending else None
            if first is None:
                first = self.src._skip_pp(previous + 1)
            previous, _ = self.sub_statement(first, item, kind, depth + 1, anchor, pragmas=pending)
            pending = []
        self.scope = saved
        self.block = None
        return end

    def region(self, pragma: c_ast.Pragma, loop: int | None) -> tuple[int, str]:
        region_id = len(self.u.unit.regions)
        slot = self.slot()
        self.u.unit.regions.append(
            d.RegionDescriptor(region_id, self.index, pragma.coord.line, pragma.string.strip(), slot,
                               self.block.id if self.block else None,
                               self.regions[-1] if self.regions else None, loop)
        )
        return region_id, ("" if self.parallel else f"PERFEQ_REGION({slot}); ")


# ---- small AST helpers ------------------------------------------------------------------------
def _walk(node: c_ast.Node):
    yield node
    for child in node:
        yield from _walk(child)


def _calls(node: c_ast.Node):
    """FuncCall nodes of an expression, outermost first, not descending into statements."""
    if isinstance(node, c_ast.FuncCall):
        yield node
    for child in node:
        if isinstance(child, (c_ast.Compound, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Switch)):
            continue
        yield from _calls(child)


def _ternaries(node: c_ast.Node):
    if isinstance(node, c_ast.TernaryOp):
        yield node
    for child in node:
        if isinstance(child, (c_ast.Compound, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Switch)):
            continue
        yield from _ternaries(child)


def _names(node: c_ast.Node | None) -> set[str]:
    if node is None:
        return set()
    return {n.name for n in _walk(node) if isinstance(n, c_ast.ID)}


_TRIPS_MACRO = {"<": "PERFEQ_TRIPS_LT", "<=": "PERFEQ_TRIPS_LE", ">": "PERFEQ_TRIPS_GT", ">=": "PERFEQ_TRIPS_GE"}


_NO_RETURN = ("exit", "abort", "longjmp", "siglongjmp", "MPI_Abort", "_exit", "_Exit", "quick_exit")


def _exits_early(node: c_ast.Node | None, stoppers: set[str], nested: bool = False) -> bool:
    """Whether a loop body can leave the loop before its condition fails (break of this loop,
    return, goto, a call of a function in ``stoppers``), so that its iterations cannot be computed
    from the bounds at entry."""
    if node is None:
        return False
    if isinstance(node, (c_ast.Return, c_ast.Goto, c_ast.Label)):
        return True
    if isinstance(node, c_ast.Break) and not nested:
        return True
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in stoppers:
        return True
    inner = nested or isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch))
    return any(_exits_early(child, stoppers, inner) for child in node)


def _stopping_functions(defined: list[c_ast.FuncDef]) -> set[str]:
    """The library functions that do not return, and the file's functions that may call one
    (directly or through other functions of the file): ``fail(3)`` ending in ``exit(3)``."""
    stoppers = set(_NO_RETURN)
    callees = {fd.decl.name: {n.name.name for n in _walk(fd.body)
                              if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)}
               for fd in defined}
    changed = True
    while changed:
        changed = False
        for name, called in callees.items():
            if name not in stoppers and called & stoppers:
                stoppers.add(name)
                changed = True
    return stoppers


def _arrays(node: c_ast.Node) -> set[str]:
    """Names of the arrays and pointers an expression reads or writes through."""
    names = set()
    for n in _walk(node):
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
            names.add(base.name)
    return names


def _is_id(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _assigns(node: c_ast.Node | None, var: str) -> bool:
    if node is None:
        return False
    for n in _walk(node):
        if isinstance(n, c_ast.Assignment) and _is_id(n.lvalue, var):
            return True
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") and _is_id(n.expr, var):
            return True
        if isinstance(n, c_ast.UnaryOp) and n.op == "&" and _is_id(n.expr, var):
            return True
    return False


def _assigned_names(node: c_ast.Node | None) -> set[str]:
    """Variables the code may change: assigned, declared, incremented, or their address taken."""
    names: set[str] = set()
    if node is None:
        return names
    for n in _walk(node):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            names.add(n.lvalue.name)
        elif isinstance(n, c_ast.Decl) and n.name:
            names.add(n.name)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") and isinstance(n.expr, c_ast.ID):
            names.add(n.expr.name)
    return names


def _data_dependent(cond: c_ast.Node | None) -> bool:
    if cond is None:
        return True
    return any(isinstance(n, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef)) or
               (isinstance(n, c_ast.UnaryOp) and n.op == "*") for n in _walk(cond))


def _contains_goto(node: c_ast.Node | None) -> bool:
    return node is not None and any(isinstance(n, (c_ast.Goto, c_ast.Label)) for n in _walk(node))


def _init_expr(node: c_ast.Node, var: str | None) -> c_ast.Node | None:
    init = getattr(node, "init", None)
    if var is None or init is None:
        return None
    if isinstance(init, c_ast.Assignment) and _is_id(init.lvalue, var) and init.op == "=":
        return init.rvalue
    if isinstance(init, c_ast.ExprList):
        for expr in init.exprs:
            if isinstance(expr, c_ast.Assignment) and _is_id(expr.lvalue, var) and expr.op == "=":
                return expr.rvalue
    if isinstance(init, c_ast.DeclList):
        for decl in init.decls:
            if decl.name == var:
                return decl.init
    return None


def _bound_expr(node: c_ast.Node) -> c_ast.Node | None:
    cond = getattr(node, "cond", None)
    if isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=", "!="):
        if isinstance(cond.left, c_ast.ID):
            return cond.right
        if isinstance(cond.right, c_ast.ID):
            return cond.left
    return None


def _safe_to_evaluate(expr: c_ast.Node, counter: OpCounter) -> bool:
    """An expression without side effects or memory reads, of arithmetic type."""
    for n in _walk(expr):
        if isinstance(n, (c_ast.FuncCall, c_ast.Assignment, c_ast.ArrayRef, c_ast.StructRef, c_ast.TernaryOp)):
            return False
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "*", "&"):
            return False
    typ = counter.type_of(expr)
    return typ.depth == 0 and typ.struct is None


def _mentions_argv(node: c_ast.Node) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name == "argv" for n in _walk(node))


def _generate(node: c_ast.Node | None) -> str:
    from pycparser import c_generator

    return "" if node is None else c_generator.CGenerator().visit(node)


def _squash(text: str) -> str:
    return re.sub(r"\s+|[()]", "", text)


def _has_macro_free_mismatch(text: str, generated: str) -> bool:
    """True when the texts differ for a reason other than macro expansion (a wrong extent)."""
    return not re.search(r"\b[A-Z_][A-Z0-9_]*\b", text)


def _array_dims(node: c_ast.Node) -> list[c_ast.Node]:
    """The extent expressions of an array declarator, outermost first ([] has none)."""
    dims = []
    while isinstance(node, c_ast.ArrayDecl):
        if node.dim is not None:
            dims.append(node.dim)
        node = node.type
    return dims


def _element_text(node: c_ast.Node) -> str | None:
    while isinstance(node, c_ast.ArrayDecl):
        node = node.type
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        return " ".join(node.type.names)
    return _generate(node) or None


def _mpi_table() -> dict[str, dict[str, int | None]]:
    """Argument positions of the MPI calls perfeq knows, from the one shared spec table."""
    try:
        from perfeq.runtime.mpi import calls as mpi_spec
    except ImportError:  # TEMP until the runtime's spec table lands
        return {}
    table = {}
    for name, call in mpi_spec.MPI_CALLS.items():
        table[name] = {key: getattr(call, key, None) for key in ("count", "datatype", "peer", "root", "comm", "tag")}
    return table


def _straight_line_functions(defined, user_functions, typedefs, fields, globals_) -> dict[str, OpCount]:
    """Functions whose body is straight-line code (no loops, branches or jumps) calling only library
    functions or other such functions, with their operations per call (callees included).

    They get no hooks: a call to one adds its operations to the caller's block, which keeps tiny
    helpers (index arithmetic, accessors, hashes) from dominating the instrumented run's time.
    """
    control = (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Switch, c_ast.Goto, c_ast.Label,
               c_ast.TernaryOp, c_ast.Pragma, c_ast.Break, c_ast.Continue)
    candidates = {fd.decl.name: fd for fd in defined if fd.decl.name != "main"}
    simple: dict[str, OpCount] = {}
    changed = True
    while changed:
        changed = False
        for name, fd in candidates.items():
            if name in simple:
                continue
            nodes = list(_walk(fd.body))
            if any(isinstance(n, control) for n in nodes) or _mentions_argv(fd.body):
                continue
            items = fd.body.block_items or []
            if any(isinstance(n, c_ast.Return) for n in items[:-1]):
                continue
            callees = [n.name.name if isinstance(n.name, c_ast.ID) else None for n in nodes if isinstance(n, c_ast.FuncCall)]
            # a call through a pointer parameter or local (f(x)) may reach any function, hooked or not
            pointers = {n.name for n in _walk(fd.decl.type) if isinstance(n, c_ast.Decl)}
            pointers |= {n.name for n in nodes if isinstance(n, c_ast.Decl)}
            if any(c is None or c in pointers or c == name or (c in user_functions and c not in simple) or c.startswith(("MPI_", "omp_"))
                   or c in ALLOCATORS or c in ARGV_CONVERTERS or c in ("sscanf", "exit", "abort") for c in callees):
                continue
            scope = Scope(globals_)
            decl_type = fd.decl.type
            if isinstance(decl_type, c_ast.FuncDecl) and decl_type.args:
                for param in decl_type.args.params:
                    if isinstance(param, c_ast.Decl) and param.name:
                        scope.names[param.name] = type_of_decl(param.type, typedefs)
            counter = OpCounter(scope, fields, typedefs)
            ops = ZERO
            for item in items:
                if isinstance(item, c_ast.Decl):
                    if item.name:
                        scope.names[item.name] = type_of_decl(item.type, typedefs)
                    ops = ops + counter.count(item.init)
                else:
                    ops = ops + counter.count(item)
            for callee in callees:
                if callee in simple:
                    ops = ops + simple[callee]
            simple[name] = ops
            changed = True
    return simple


def _direct_value(node: c_ast.Node) -> c_ast.Node:
    """The value a statement assigns (``x = (T *) f(...)`` -> the call), casts removed."""
    if isinstance(node, c_ast.Assignment) and node.op == "=":
        node = node.rvalue
    while isinstance(node, c_ast.Cast):
        node = node.expr
    return node


def _moves_only(stmt: c_ast.Node | None, cond: c_ast.Node, local_scalar) -> bool:
    """``x = e;`` or ``{ x = e; y = f; }``: at most two assignments to scalar locals, from expressions
    without calls, assignments or increments, whose loads and divisions (which may fault when the
    condition is false) are all in the condition too (``if (a[i] > m) m = a[i];``).  What compilers
    if-convert to conditional moves at -O2; at -O0 they do not."""
    items = (stmt.block_items or []) if isinstance(stmt, c_ast.Compound) else [stmt]
    if not 1 <= len(items) <= 2:
        return False
    guarded = {_generate(n) for n in _walk(cond) if _may_fault(n)}
    for item in items:
        if not (isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID)
                and local_scalar(item.lvalue.name)):
            return False
        for node in _walk(item.rvalue):
            if isinstance(node, (c_ast.FuncCall, c_ast.Assignment)) or (
                    isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--")):
                return False
            if _may_fault(node) and _generate(node) not in guarded:
                return False
    return True


def _may_fault(node: c_ast.Node) -> bool:
    """A memory access or a division: not executed speculatively when the branch is not taken."""
    return (isinstance(node, c_ast.ArrayRef) or (isinstance(node, c_ast.StructRef) and node.type == "->")
            or (isinstance(node, c_ast.UnaryOp) and node.op == "*")
            or (isinstance(node, c_ast.BinaryOp) and node.op in ("/", "%")))


def _short_circuit(node: c_ast.Node) -> bool:
    """A condition with ``&&`` or ``||``: its later operands are branched around (they may load memory
    that must not be touched), so the if stays a branch."""
    return any(isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||") for n in _walk(node))
