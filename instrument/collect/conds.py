"""Conditionals in one function's walk: if, switch and ?: (stage 1, instrument/collect).

A mixin of :class:`~perfeq.instrument.collect.function.FunctionCollector`: the branches' blocks,
the branch-predictor hooks on conditions (also used by loops.py), and the test for an ``if`` a
compiler turns into conditional moves (a select, not a branch).
"""

from __future__ import annotations

from pycparser import c_ast

from perfeq.instrument import descriptors as d
from perfeq.instrument import hooks
from perfeq.instrument.collect.walk import find, generate, names, walk
from perfeq.instrument.source import SourceError


class Conditionals:
    """if, switch and conditional expressions: uses the core's blocks, slots and sub-statements."""

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
        evaluated_in = self.block_id
        self.add_ops(self.counter().count(node.cond), node.cond)
        self._stmt_end, self._after_condition = src.tokens[src.statement_end(start)].end, True
        self.expressions(node.cond)
        for assignment in find(node.cond, c_ast.Assignment):  # if ((m = n / 2) < 1): m is n / 2 after it
            self.record_assignment(assignment)
        select = self.is_select(node)
        if id(node) in self.guards:  # a search loop's guard: told when taken and at the exit
            predictor = self.guards[id(node)] = self.slot(hooks.BRANCH_SLOTS)
        else:
            predictor = None if select else self.branch_hook(open_ + 1, close - 1)  # a branch
        # a select's arms are counted in its condition, without a branch (a counter in an arm kept it
        # a branch, unpredictable in Rodinia k-means' nearest-centre test: 1.64 s -> 1.25 s, plain 0.55)
        in_condition = select and close - 1 >= open_ + 1 and not self.has_directive(open_ + 1, close - 1)
        then_end, then_block = self.sub_statement(close + 1, node.iftrue, "then", depth, evaluated_in,
                                                  counted=not in_condition)
        else_block = None
        end = then_end
        if node.iffalse is not None:
            else_tok = src._skip_pp(then_end + 1)
            end, else_block = self.sub_statement(else_tok + 1, node.iffalse, "else", depth, evaluated_in,
                                                 counted=not in_condition)
        if in_condition:
            self.u.wrap(src.tokens[open_ + 1].start, src.tokens[close - 1].end,
                        *hooks.taken(self.slot_of(then_block),
                                     None if else_block is None else self.slot_of(else_block), self.where))
        self.u.unit.conds.append(d.CondDescriptor(
            id=len(self.u.unit.conds), function=self.index, kind="if", line=node.coord.line,
            text=src.text_of(open_ + 1, close - 1), block=evaluated_in, then_block=then_block,
            else_block=else_block, case_blocks=[], slot=None, depends=sorted(names(node.cond)),
            ops=self.counter().count(node.cond).to_dict(), select=select, predictor=predictor,
            polled=bool(self.poll_flags & {self.declared_as(name) for name in names(node.cond)}),
        ))
        return src.tokens[end].end

    def branch_hook(self, first: int, last: int) -> int | None:
        """Wrap the condition in tokens ``first`` .. ``last`` in PERFEQ_BRANCH (perfeq_rt.h), which
        records how predictable its outcomes are; returns the predictor's first slot.  The condition
        goes in parentheses (a top-level comma or compound literal would split the macro's
        arguments); none for an empty condition or one with a preprocessor line inside (a directive
        inside macro arguments is not portable): its mispredictions come from the counts alone.
        None inside a spin-wait loop either: how its tests go is the waiting's timing."""
        if last < first or self.has_directive(first, last) or self.waiting:
            return None
        predictor = self.slot(hooks.BRANCH_SLOTS)
        self.u.wrap(self.src.tokens[first].start, self.src.tokens[last].end, *hooks.branch(predictor, self.where))
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
        evaluated_in = self.block_id
        self.add_ops(self.counter().count(node.cond))
        self._stmt_end, self._after_condition = src.tokens[end].end, True
        self.expressions(node.cond)
        case_blocks = []
        for item in node.stmt.block_items or []:
            if isinstance(item, (c_ast.Case, c_ast.Default)):
                label = self.u.tok(item)
                if label is None:
                    continue
                colon = src._label_colon(label)
                self.new_block("case", item.coord.line, src.tokens[colon].end, depth + 1, evaluated_in)
                case_blocks.append(self.block.id)
                self.items(item.stmts or [], depth + 1)
            else:
                self.statement(item, depth + 1, [])
        self.u.unit.conds.append(d.CondDescriptor(
            id=len(self.u.unit.conds), function=self.index, kind="switch", line=node.coord.line,
            text=src.text_of(open_ + 1, close - 1), block=evaluated_in, then_block=None, else_block=None,
            case_blocks=case_blocks, slot=None, depends=sorted(names(node.cond)),
            ops=self.counter().count(node.cond).to_dict(),
        ))
        return src.tokens[end].end

    def ternary(self, node: c_ast.TernaryOp) -> None:
        """A conditional expression: described, not hooked.  Its operations are its block's, both arms
        counted (what a compiler's conditional move executes; an upper bound where it branches), so
        nothing reads how often each arm ran: a counter there only cost time (an innermost ``?:``, a
        ``min``/``max`` helper that otherwise is straight-line code: PolyBench floyd-warshall ran
        3.1x slower instrumented with one)."""
        start = self.u.tok(node)
        if start is None:
            return
        question = self.ternary_question(start, sum(1 for _ in find(node.cond, c_ast.TernaryOp)))
        if question is None:
            return
        # the condition's opening parentheses stand before its first operand: (x > 0) ? a : b
        while start > 0 and self.src.tokens[start - 1].text == "(" and \
                self.src.match_bracket(start - 1) < question:
            start -= 1
        self.u.unit.conds.append(d.CondDescriptor(
            id=len(self.u.unit.conds), function=self.index, kind="ternary", line=node.coord.line,
            text=self.src.text_of(start, question - 1), block=self.block_id, then_block=None, else_block=None,
            case_blocks=[], slot=None, depends=sorted(names(node.cond)),
            ops=self.counter().count(node.cond).to_dict(),
        ))

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


def _moves_only(stmt: c_ast.Node | None, cond: c_ast.Node, local_scalar) -> bool:
    """``x = e;`` or ``{ x = e; y = f; }``: at most two assignments to scalar locals, from expressions
    without calls, assignments or increments, whose loads and divisions (which may fault when the
    condition is false) are all in the condition too (``if (a[i] > m) m = a[i];``).  What compilers
    if-convert to conditional moves at -O2; at -O0 they do not."""
    items = (stmt.block_items or []) if isinstance(stmt, c_ast.Compound) else [stmt]
    if not 1 <= len(items) <= 2:
        return False
    guarded = {generate(n) for n in walk(cond) if _may_fault(n)}
    for item in items:
        if not (isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID)
                and local_scalar(item.lvalue.name)):
            return False
        for node in walk(item.rvalue):
            if isinstance(node, (c_ast.FuncCall, c_ast.Assignment)) or (
                    isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--")):
                return False
            if _may_fault(node) and generate(node) not in guarded:
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
    return any(n.op in ("&&", "||") for n in find(node, c_ast.BinaryOp))
