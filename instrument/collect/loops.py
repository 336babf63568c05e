"""Loops in a function: a loop's plan turned into insertions and a descriptor (stage 1, instrument/collect).

A mixin of :class:`~perfeq.instrument.collect.function.FunctionCollector`: inserts the hooks
loopplan.py planned, walks the body as a block of its own and writes the LoopDescriptor.
"""

from __future__ import annotations

from pycparser import c_ast

from perfeq.instrument import descriptors as d
from perfeq.instrument import hooks
from perfeq.instrument.collect.loopplan import LoopPlan, LoopPlanning, _loop_flags
from perfeq.instrument.collect.walk import find
from perfeq.instrument.opcount import ZERO, OpCount
from perfeq.instrument.source import SourceError


class LoopStatements(LoopPlanning):
    """for, while and do: uses the core's blocks, slots, stacks of loops and regions, and scopes."""

    def stmt_For(self, node: c_ast.For, depth: int, pragmas: list) -> int | None:
        return self.loop_statement(node, "for", depth, pragmas)

    def stmt_While(self, node: c_ast.While, depth: int, pragmas: list) -> int | None:
        return self.loop_statement(node, "while", depth, pragmas)

    def stmt_DoWhile(self, node: c_ast.DoWhile, depth: int, pragmas: list) -> int | None:
        return self.loop_statement(node, "do", depth, pragmas)

    def loop_statement(self, node: c_ast.Node, kind: str, depth: int, pragmas: list) -> int | None:
        self._ensure_block()
        start = self.u.tok(node, kind)
        if start is None and self.macro_loop(node, kind, depth, pragmas):
            return None
        if start is None:
            if not (kind == "do" and isinstance(node.cond, c_ast.Constant) and node.cond.value == "0"):
                # (a macro's do { ... } while (0) runs once: no loop to instrument)
                self.u.warn(node.coord.line, node.coord.column, f"{kind} loop not found in the source "
                            "(written by a macro?); it is not instrumented")
            self.simple_fallback(node)
            return None
        saved = (self.scope, len(self.loops), len(self.loop_scopes), len(self.regions), self.parallel,
                 self._slab_active)
        try:
            end = self.walk_loop(node, kind, start, depth, pragmas)
        except SourceError as exc:
            self.u.warn(node.coord.line, node.coord.column, f"loop not instrumented: {exc}")
            return None
        finally:  # the loop's own scope ends here, also when its body could not be instrumented
            self.scope, loops, loop_scopes, regions, self.parallel, self._slab_active = saved
            del self.loops[loops:], self.loop_scopes[loop_scopes:], self.regions[regions:]
            del self.loop_frames[len(self.loops):]
        self.factor_loop_params(node, end)
        return end

    def macro_loop(self, node: c_ast.Node, kind: str, depth: int, pragmas: list) -> bool:
        """A for or while loop whose header a macro writes and whose body's statements are in the
        source (Parboil lbm's ``SWEEP_START(...) { ... SWEEP_END``, its five grid sweeps): its entries
        counted before the macro's invocation, its iterations before the body's first statement, its
        header read from the preprocessor's text.  Only where that is safe: the loop is a statement
        of a block (not the unbraced body of an if or loop), in serial code, no OpenMP pragma on the loop,
        and nothing leaves the body but break (the code after the loop stays in the block before
        it).  False (nothing done) otherwise: the loop is then not instrumented, as before."""
        body = node.stmt
        if (self.block_item is not node or kind not in ("for", "while") or self.parallel or pragmas or not isinstance(body, c_ast.Compound)
                or not body.block_items or isinstance(body.block_items[0], c_ast.Pragma)
                or next(find(body, c_ast.Return, c_ast.Goto, c_ast.Label), None) is not None
                or any(isinstance(call.name, c_ast.ID) and call.name.name in self.u.stoppers
                       for call in find(body, c_ast.FuncCall))):
            return False
        invocation = self.macro_invocation(node)
        first = self.u.tok(body.block_items[0])
        if invocation is None or first is None or first <= invocation:
            return False
        saved = (self.scope, self.block, self._after)
        self.scope = self.loop_scope(node, kind)
        form = self.loop_form(node, kind)
        flags, _ = _loop_flags(node, kind, form, self.has_goto)
        counter = self.counter()
        ops = tuple(counter.count(part) if part is not None else ZERO
                    for part in ((node.init, node.cond, node.next) if kind == "for" else (None, node.cond, None)))
        loop_id = len(self.u.unit.loops)
        self.u.unit.loops.append(None)
        anchor = self.block_id
        entry_slot = self.slot()
        self.u.insert(self.src.tokens[invocation].start, hooks.loop_entry(entry_slot, None), depth)
        self.loops.append(loop_id)
        self.loop_scopes.append(self.scope)
        self.loop_frames.append((node, self.src.tokens[invocation].start, depth, self.scope))
        try:
            block = self.new_block("body", body.block_items[0].coord.line, self.src.tokens[first].start, depth + 1,
                                   anchor)
            self.items(body.block_items, depth + 1)
        finally:
            self.loops.pop()
            self.loop_scopes.pop()
            self.loop_frames.pop()
            self.scope, self.block, self._after = saved
        self.u.warn(node.coord.line, node.coord.column, f"{kind} loop written by a macro: counted at its invocation "
                    "and at its body's first statement, its header read from the preprocessed text")
        self.u.unit.loops[loop_id] = d.LoopDescriptor(
            id=loop_id, function=self.index, kind=kind, line=node.coord.line, col=node.coord.column,
            var=form.var, init=form.init, cond=self.text_or_generated(node.cond) if node.cond is not None else "",
            op=form.op, bound=form.bound, step=self.text_or_generated(node.next) if kind == "for" and node.next else None,
            stride=form.stride, depends=list(form.depends), parent=self.loop, block=anchor,
            entry_slot=entry_slot, body_block=block.id, values={},
            ops_init=ops[0].to_dict(), ops_cond=ops[1].to_dict(), ops_step=ops[2].to_dict(),
            in_parallel=False, worksharing=False, flags=list(flags), predictor=None, once=bool(self.once),
            inductions=[{"var": n, "init": i, "stride": st} for n, i, st in form.inductions],
        )
        return True

    def macro_invocation(self, node: c_ast.Node) -> int | None:
        """The token of the macro invocation that writes loop ``node``: at its coordinate, or the
        first token of its line, an identifier that starts a statement (after ';', '{', '}', ':', a
        preprocessor line, or a macro standing alone on its line such as ``SWEEP_END``)."""
        if not self.u.in_main(node):
            return None
        tokens = self.src.tokens
        index = self.src.token_at(node.coord.line, node.coord.column)
        if index is None:
            index = next((i for i, t in enumerate(tokens) if t.line == node.coord.line and t.kind != "pp"), None)
        if index is None or tokens[index].kind != "ident":
            return None
        before = index - 1
        if before < 0 or tokens[before].kind == "pp" or tokens[before].text in (";", "{", "}", ":"):
            return index
        alone = (tokens[before].kind == "ident" and tokens[before].line != tokens[index].line
                 and (before == 0 or tokens[before - 1].line != tokens[before].line))
        return index if alone else None

    def walk_loop(self, node: c_ast.Node, kind: str, start: int, depth: int, pragmas: list) -> int:
        """Plan the loop, insert its hooks, walk its body, describe it; the offset after it."""
        self.scope = self.loop_scope(node, kind)
        plan = self.plan_loop(node, kind, start, pragmas)
        for message in plan.warnings:
            self.u.warn(node.coord.line, node.coord.column, message)
        if plan.exit_predicted:  # told at the exit (loop_body), the condition left as written
            predictor = self.slot(hooks.BRANCH_SLOTS)
        else:
            predictor = self.branch_hook(plan.header.cond_first, plan.header.cond_last) if plan.predicted else None
        loop_id = len(self.u.unit.loops)
        self.u.unit.loops.append(None)  # reserved: nested loops get the ids after this one
        ops = self.loop_header_ops(node, plan, loop_id)
        entry_slot = self.slot()
        values: dict[str, int] = {}
        hook = hooks.loop_entry(entry_slot, plan.entry_where)
        for key, text, hoisted in plan.values:
            values[key] = self.value_slot()
            if hoisted is None:
                hook += hooks.entry_value(values[key], text, self.leaf)
            else:  # at the entry of an enclosing loop, after its own hooks
                _, wrap_start, outer_depth, _ = self.loop_frames[hoisted]
                self.u.insert(wrap_start, hooks.entry_value(values[key], text, self.leaf), outer_depth)
        region_id, region_hook = (None, "") if plan.parallel_pragma is None else self.region(plan.parallel_pragma, loop_id)
        guard = self.guard_tokens(plan.guard)
        if guard is not None:  # stmt_If gives it a predictor, told by the hooks placed below
            self.guards[id(plan.guard[0])] = None
        declare = hooks.exit_declare(loop_id) if plan.exit_predicted or guard is not None else ""
        self.u.insert(plan.wrap_start, "{ " + declare + region_hook + hook, depth)
        self.u.insert(self.src.tokens[plan.header.end].end, " }", depth, closing=True)
        anchor = self.block_id
        where = self.where
        waits = "wait" in plan.flags
        self.waiting += waits
        try:
            body_block = self.loop_body(node, plan, depth, loop_id, region_id)
        finally:
            self.waiting -= waits
        if waits:  # spinning is waiting time, not work: its tests and body count nothing
            ops = (ops[0], ZERO, ops[2])
            for block in self.blocks:
                if block.loop == loop_id:
                    block.ops, block.arrays, block.refs = ZERO, set(), []
        if plan.exit_predicted:
            body_slot = self.slot_of(body_block)
            self.u.insert(plan.wrap_start, hooks.exit_start(loop_id, body_slot, where), depth)
            self.u.insert(self.src.tokens[plan.header.end].end, hooks.exit_branch(loop_id, predictor, body_slot, where),
                          depth, closing=True)
        if guard is not None:
            self.guard_hooks(loop_id, plan, guard, self.guards.pop(id(plan.guard[0])), body_block, depth, where)
        form, header = plan.form, plan.header
        self.u.unit.loops[loop_id] = d.LoopDescriptor(
            id=loop_id, function=self.index, kind=kind, line=node.coord.line, col=node.coord.column,
            var=form.var, init=form.init, cond=header.cond, op=form.op, bound=form.bound, step=header.step,
            stride=form.stride, depends=list(form.depends), parent=self.loop, block=anchor,
            entry_slot=entry_slot, body_block=body_block, values=values,
            ops_init=ops[0].to_dict(), ops_cond=ops[1].to_dict(), ops_step=ops[2].to_dict(),
            in_parallel=bool(self.parallel), worksharing=plan.worksharing, flags=list(plan.flags),
            predictor=predictor, once=bool(self.once),
            inductions=[{"var": n, "init": i, "stride": st} for n, i, st in form.inductions],
            nest=self.nests.pop(loop_id, []),
        )
        return self.src.tokens[plan.header.end].end

    def guard_tokens(self, guard: tuple[c_ast.If, c_ast.Node] | None) -> int | None:
        """The token of the exit statement of a search loop's guard if (LoopPlan.guard), when the
        if's condition can carry a predictor (branch_hook's rule) and both are in the source."""
        if guard is None:
            return None
        start, exit_ = self.u.tok(guard[0], "if"), self.u.tok(guard[1])
        if start is None or exit_ is None:
            return None
        try:
            open_ = self.src.expect(start + 1, "(")
            close = self.src.match_bracket(open_)
        except SourceError:
            return None
        if close - 1 < open_ + 1 or self.has_directive(open_ + 1, close - 1):
            return None
        return exit_

    def guard_hooks(self, loop_id: int, plan: LoopPlan, exit_: int, predictor: int | None,
                    body_block: int | None, depth: int, where: str) -> None:
        """The guard's tests told to its predictor: before its exit statement (taken) and after the
        loop (none taken), from the body counter's runs since the entry (PERFEQ_GUARD_*)."""
        if predictor is None or body_block is None:
            raise SourceError("the guard of a search loop was not instrumented")  # not reached
        body_slot = self.slot_of(body_block)
        self.u.insert(plan.wrap_start, hooks.exit_start(loop_id, body_slot, where), depth)
        self.u.insert(self.src.tokens[exit_].start, hooks.guard_taken(loop_id, predictor, body_slot, where), depth + 2)
        self.u.insert(self.src.tokens[plan.header.end].end, hooks.guard_exit(loop_id, predictor, body_slot, where),
                      depth, closing=True)

    def loop_header_ops(self, node: c_ast.Node, plan: LoopPlan, loop_id: int) -> tuple[OpCount, OpCount, OpCount]:
        """Operations of the initialization, a test and a step, with those of the straight-line
        functions called there (announcing the header's calls, where they may be)."""
        header = plan.header
        if not plan.header_calls:
            return header.ops_init, header.ops_cond, header.ops_step
        parts = (("init", node.init), ("cond", node.cond), ("step", node.next)) if plan.kind == "for" else (
            ("cond", node.cond),)
        inlined = {part: self.header_calls(expr, loop_id, part) for part, expr in parts if expr is not None}
        return (header.ops_init + inlined.get("init", ZERO), header.ops_cond + inlined.get("cond", ZERO),
                header.ops_step + inlined.get("step", ZERO))

    def loop_body(self, node: c_ast.Node, plan: LoopPlan, depth: int, loop_id: int,
                  region_id: int | None) -> int | None:
        """Walk the body inside the loop (and its region, for a combined construct): its block."""
        self.loops.append(loop_id)
        self.loop_scopes.append(self.scope)
        self.loop_frames.append((node, plan.wrap_start, depth, self.scope))
        if region_id is not None:
            self.regions.append(region_id)
        opens_parallel = plan.worksharing or region_id is not None
        self.parallel += 1 if opens_parallel else 0
        saved_slab = self._slab_active
        # a thread's slab is looked up at the top of each iteration of a worksharing loop: not when the
        # body counts nothing itself (iterations from the bounds, no statement that counts in it)
        self._declare_slab = (self.parallel > 0 and opens_parallel and not saved_slab
                              and not (plan.trips is not None and _straight_line(node.stmt)))
        saved_block = self.block
        anchor = saved_block.id if saved_block else None
        if plan.collapse > 1:
            nest: list[dict[str, str | None]] = []
            body_block = self._collapsed_body(node.stmt, plan.collapse - 1, depth, anchor, nest)
            self.nests[loop_id] = nest
        else:
            trips = plan.trips
            _, body_block = self.sub_statement(plan.header.body_first, node.stmt, "body", depth, anchor,
                                               counted=trips is None)
            if trips is not None:
                body_slot = self.slot_of(body_block)
                self.u.insert(plan.wrap_start, hooks.trips(trips.relation, body_slot, trips.first, trips.bound,
                                                           trips.step, trips.where), depth)
        self.parallel -= 1 if opens_parallel else 0
        self._slab_active, self._declare_slab = saved_slab, False
        if region_id is not None:
            self.regions.pop()
        self.loops.pop()
        self.loop_scopes.pop()
        self.loop_frames.pop()
        self.block = saved_block
        return body_block

    def _collapsed_body(self, stmt: c_ast.Node, levels: int, depth: int, anchor: int | None,
                        nest: list[dict[str, str | None]]) -> int | None:
        """Inner loops of a collapse(n) nest: no code may stand between them; count the innermost
        body, and add each inner loop's header to ``nest`` (its iterations are the product of theirs
        when the nest is rectangular: the symbolic stage's word)."""
        inner = stmt
        while isinstance(inner, c_ast.Compound) and len(inner.block_items or []) == 1:
            inner = inner.block_items[0]
        if not isinstance(inner, c_ast.For):
            return None
        start = self.u.tok(inner, "for")
        if start is None:
            return None
        form = self.loop_form(inner, "for")
        nest.append({"var": form.var, "init": form.init, "op": form.op, "bound": form.bound, "stride": form.stride})
        open_ = self.src.expect(start + 1, "(")
        close = self.src.match_bracket(open_)
        if levels > 1:
            return self._collapsed_body(inner.stmt, levels - 1, depth, anchor, nest)
        return self.sub_statement(close + 1, inner.stmt, "body", depth, anchor)[1]


_COUNTING = (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Switch, c_ast.Label,
             c_ast.Goto, c_ast.Return, c_ast.Break, c_ast.Continue, c_ast.Pragma)


def _straight_line(node: c_ast.Node) -> bool:
    """A loop body with no statement or expression that gets a counting hook of its own."""
    return next(find(node, *_COUNTING), None) is None
