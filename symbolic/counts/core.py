"""The count model: a context's blocks, its invocations and its call sites (symbolic stage, paper 3.1).

Part of perfeq.symbolic.counts: :class:`CountModel`, the count rules of a context's blocks and
how a context's invocations come from its parent's call sites; the loop, conditional and
communication rules are its mixins (trips.py, branches.py, comm.py), its state base.py.
"""

from __future__ import annotations

import sympy as sp

from perfeq.instrument.descriptors import CallDescriptor, FunctionDescriptor, LoopDescriptor
from perfeq.symbolic.cexpr import Unresolved, to_sympy
from perfeq.symbolic.counts.base import ContextCounts, Fallback, never_at, zero_at
from perfeq.symbolic.counts.branches import Branches
from perfeq.symbolic.counts.comm import CommCounts
from perfeq.symbolic.counts.trips import LoopTrips
from perfeq.symbolic.observe import ContextObservation, called_in_team
from perfeq.symbolic.resolve import Resolver, UnitView, formal_arguments
from perfeq.symbolic.symbols import T


class CountModel(LoopTrips, Branches, CommCounts):
    """Builds and checks the symbolic counts of every context of one run."""

    def build(self, paths: set[tuple] | None = None) -> list[ContextCounts]:
        """The counts of every context of the run, or of those whose call path is in ``paths``."""
        results = []
        for ctx in self.run.contexts():
            self._ids[id(ctx)] = len(self._ids)
            if ctx.unit not in self.units or (paths is not None and ctx.path() not in paths):
                continue
            results.append(self._context(ctx))
        return results

    def _context(self, ctx: ContextObservation) -> ContextCounts:
        unit = self.units[ctx.unit]
        fn = ctx.function
        out = ContextCounts(ctx, unit)
        loops = [loop for loop in unit.loops if loop.function == fn]
        conds = [c for c in unit.data.conds if c.function == fn and c.kind == "if"]
        # decide modes outer-first: loops in id order (pre-order), conditionals before what they guard
        items = sorted([("loop", loop.line, loop) for loop in loops] + [("cond", c.line, c) for c in conds],
                       key=lambda t: (t[1], t[0] != "loop"))
        for kind, _, desc in items:
            if kind == "loop":
                self._decide_loop(ctx, unit, desc)
            else:
                self._decide_cond(ctx, unit, desc)
        for block in unit.blocks:
            if block.function == fn:
                out.blocks[block.id] = self._safe_total(ctx, unit, block.id)
        for loop in loops:
            entries = self._safe_total(ctx, unit, loop.block)
            if loop.once and not unit.blocks[loop.block].once and self._in_team(ctx, unit, loop.block):
                entries = entries / T  # entered by the one thread that runs its omp master/single
            out.loop_entries[loop.id] = entries
            if loop.body_block is not None:
                out.loop_iterations[loop.id] = self._safe_total(ctx, unit, loop.body_block)
        for region in unit.data.regions:
            if region.function == fn and region.block is not None:
                out.regions[region.id] = self._safe_total(ctx, unit, region.block)
        for comm in unit.data.comms:
            if comm.function == fn and comm.block is not None:
                out.comms[comm.id] = self._comm(ctx, unit, comm)
        return out

    def _safe_total(self, ctx, unit, block_id) -> sp.Expr:
        try:
            return self.total(ctx, unit, block_id)
        except Unresolved:
            return self._measured_total(ctx, unit, block_id)

    def local(self, ctx, unit: UnitView, block_id: int) -> sp.Expr:
        """Executions of a block per iteration of its innermost loop (per invocation outside loops)."""
        block = unit.blocks[block_id]
        kind = block.kind
        if kind in ("entry", "body"):
            return sp.Integer(1)
        anchor = block.anchor
        if anchor is None:
            return self._measured_local(ctx, unit, block)
        base = self.local(ctx, unit, anchor)
        if kind == "then":
            return base * self._ratio_of(ctx, unit, block, negate=False)
        if kind == "else":
            return base * self._ratio_of(ctx, unit, block, negate=True)
        if kind == "region":
            return base * T
        # parallel sections: once per entry of the construct; the braces of omp master/single: as
        # often as the code around them (then over T, as a once block); a task's braces: once per
        # task created
        if kind in ("section", "once", "task"):
            return base
        if kind == "team-section":  # sections run by a team (lexically or orphaned): once per team
            return base / T
        if kind == "case":
            ranks = range(self.run.nranks)
            mine = sum(self.measured(ctx, unit, block_id, r) for r in ranks)
            theirs = sum(self.measured(ctx, unit, anchor, r) for r in ranks)
            return base * (sp.Rational(mine, theirs) if theirs else 0)
        return base * self._after_ratio(ctx, unit, block)  # after a control statement

    def _measured_local(self, ctx, unit, block) -> sp.Expr:
        """Blocks after a jump or at a label: measured per execution of their enclosing loop body."""
        ranks = range(self.run.nranks)
        mine = sum(self.measured(ctx, unit, block.id, r) for r in ranks)
        if block.loop is not None:
            per = sum(self.measured(ctx, unit, unit.loops[block.loop].body_block, r) for r in ranks)
        else:
            per = sum(ctx.calls.get(r, 0) for r in ranks)
        return sp.Rational(mine, per) if per else sp.Integer(0)

    def total(self, ctx, unit: UnitView, block_id: int, weight: sp.Expr | None = None) -> sp.Expr:
        """Executions of a block over the whole run in this context (an expression).

        With ``weight`` (an expression in the variables visible at the block, e.g. the bytes of an
        MPI call whose count depends on a loop variable), the sum of the weight over the executions.
        """
        key = (self._ids[id(ctx)], block_id)
        if weight is None and key in self._cache:
            return self._cache[key]
        expr = self.local(ctx, unit, block_id) * (1 if weight is None else weight)
        expr = self._in_loops(ctx, unit, block_id, unit.blocks[block_id].loop, expr)
        result = self.invocations(ctx, self._over_team(unit, block_id, expr))
        if weight is None:
            self._cache[key] = result
        return result

    def _in_loops(self, ctx, unit: UnitView, block_id: int, loop_id: int | None, expr: sp.Expr) -> sp.Expr:
        """``expr`` per execution of ``block_id`` (in loop ``loop_id``) summed over the loops
        around it, per invocation of the function; shared out over a team where a worksharing loop
        or omp master/single says so."""
        once = unit.blocks[block_id].once
        while loop_id is not None:
            loop = unit.loops[loop_id]
            expr = self._sum_over(ctx, unit, loop, expr)
            if self._shared_by_team(unit, loop) and self._in_team(ctx, unit, loop.block):
                expr = expr / T  # each of the T threads entering it runs a share of its iterations
                # (an orphaned omp for reached from serial code runs them all on one thread)
            expr = expr * self.local(ctx, unit, loop.block)
            once = once or loop.once
            loop_id = loop.parent
        if once and self._in_team(ctx, unit, block_id):
            expr = expr / T  # omp master/single: one thread of the T that call the function runs it
        return expr

    def _in_team(self, ctx, unit: UnitView, block_id: int) -> bool:
        """Whether a team of threads runs the code of ``block_id`` in context ``ctx``: the block is
        lexically in a parallel region, or a call on the way to the context stands in one."""
        return unit.blocks[block_id].in_parallel or called_in_team(self.run.units, ctx)

    @staticmethod
    def _shared_by_team(unit: UnitView, loop) -> bool:
        """An ``omp for`` of its own (not a combined ``parallel for``): every thread of the team
        enters it, and its iterations are divided among them."""
        return loop.worksharing and not any(r.loop == loop.id and r.function == loop.function
                                            for r in unit.data.regions)

    def _call_ratio(self, ctx: ContextObservation, punit: UnitView, call: CallDescriptor) -> sp.Expr:
        """Calls per execution of where the call stands (its block, or for a call in a loop header
        that loop's entries and/or iterations, :func:`_header_parts`): 1, unless the run says
        otherwise (a call in the right operand of && or ||, or in a ?: branch, runs only
        sometimes; a loop left by break skips its step)."""
        key = ("call", self._ids[id(ctx)])
        if key in self._ratio:
            return self._ratio[key]
        header = call.header
        if header is None:
            slots = [punit.blocks[call.block].slot]
        else:
            loop = punit.loops[header["loop"]]
            per_entry, per_iteration = _header_parts(header, loop)
            slots = ([loop.entry_slot] if per_entry and loop.entry_slot is not None else []) + (
                [punit.blocks[loop.body_block].slot] if per_iteration and loop.body_block is not None else [])
        measured = _calls_per_execution(ctx, slots, self.run.nranks)
        ratio = sp.Integer(1)
        if measured is not None and measured != 1:
            ratio = measured
            callee = self.units[ctx.unit].functions[ctx.function]
            fitted = self._recursion_ratio(ctx, slots) if callee.recursive else None
            if fitted is not None:
                ratio, note = fitted
                self.fitted_recursion.add(callee.name)
                self.fallbacks.append(Fallback(self._where(punit, call), "fit", "call", note))
            else:
                self.fallbacks.append(Fallback(self._where(punit, call), "measured-ratio", "call",
                                               _call_ratio_note(call, ratio, callee.recursive)))
        self._ratio[key] = ratio
        return ratio

    def _recursion_ratio(self, ctx: ContextObservation, slots: list[int]) -> tuple[sp.Expr, str] | None:
        """A recursive function's calls per execution of the call site that enters it (its calls of
        itself folded into its context), in every run that holds the context, fitted like a trip
        count: a descent of depth log2 n per element (Barnes-Hut's force walk: the ratio of one run
        made the model -18.8 % at 8x, -50 % on the original).  None when fewer than two runs have
        it or no form fits (the first run's ratio is kept)."""
        samples = [(self.values(run, 0), ratio) for run, node in self._same_context(ctx)
                   if (ratio := _calls_per_execution(node, slots, run.nranks)) is not None]
        if len(samples) < 2 or len({ratio for _, ratio in samples}) < 2:
            return None
        fitted, note = self._fit(samples)
        if fitted is None:
            return None
        callee = self.units[ctx.unit].functions[ctx.function].name
        return fitted, (f"call of {callee} runs {samples[0][1]} times per execution of its block: {callee} is "
                        f"recursive (its calls of itself are folded into this one), {fitted}{note}")

    def _data_argument(self, ctx: ContextObservation, callee: FunctionDescriptor, name: str, arg: str,
                       reason: Unresolved) -> sp.Expr:
        """A call argument that is data: the values its parameter took, where the callee recorded
        them (a loop bounded by the parameter, ``for (w = 1; w < count; w *= 2)``), fitted."""
        unit = self.units[ctx.unit]
        fn = ctx.function
        for loop in unit.loops:
            if loop.function != fn:
                continue
            for which in ("bound", "init"):
                slot = (loop.values or {}).get(which)
                if slot is not None and (getattr(loop, which) or "").strip() == name:
                    fitted = self.recorded_value(ctx, unit, slot, self._where(unit, loop),
                                                 f"argument {arg!r} of {callee.name} ({name})", reason)
                    if fitted is not None:
                        return fitted
        raise reason

    def invocations(self, ctx: ContextObservation, per_invocation: sp.Expr) -> sp.Expr:
        """A per-invocation count of context ``ctx`` summed over all its invocations."""
        parent = ctx.parent
        if parent is None or parent.unit not in self.units:
            return per_invocation * _mean_calls(ctx, self.run.nranks)
        punit = self.units[parent.unit]
        callee = self.units[ctx.unit].functions[ctx.function]
        if ctx.site is None or ctx.site < 0 or ctx.site >= len(punit.data.calls):
            return per_invocation * self._unsited_calls(ctx, callee)
        call = punit.data.calls[ctx.site]
        ratio = self._call_ratio(ctx, punit, call)
        header = call.header
        if header is None:
            expr = self._at_site(ctx, callee, call, per_invocation, call.block, call.loop, ratio)
        else:  # a call in a loop's header: once per entry (init, and the first test of a for or
            # while condition) and once per iteration (the other tests, the step)
            loop = punit.loops[header["loop"]]
            per_entry, per_iteration = _header_parts(header, loop)
            expr = sp.Integer(0)
            if per_entry:
                expr += self._at_site(ctx, callee, call, per_invocation, call.block, call.loop, ratio)
            if per_iteration:
                expr += self._at_site(ctx, callee, call, per_invocation, loop.body_block, loop.id, ratio)
        return self.invocations(parent, expr)

    def _unsited_calls(self, ctx: ContextObservation, callee: FunctionDescriptor) -> sp.Expr:
        """Calls per rank of a context entered from no known call site: a callback that a library
        calls (``qsort(rows, n, size, compare)``), or a caller perfeq did not instrument.  Its calls
        in every run that holds it, fitted like a trip count over the runs and named in the
        fallbacks; Unresolved when no form fits (then its counts are the run's)."""
        key = ("unsited", self._ids[id(ctx)])
        if key not in self._ratio and ctx.polling:
            self._ratio[key] = self._polling_calls(ctx, callee)
        if key not in self._ratio:
            # per rank in every run, 0 in one that never called it: at process counts where no run
            # did (a comparator the odd ranks pass to qsort: none on one process), 0
            totals = self._totals_per_rank(ctx, lambda node: sum(node.calls.values()))
            never = never_at((procs, count) for procs, _, count in totals)
            samples = [(values, count) for procs, values, count in totals if count and procs not in never]
            fitted, note = self._fit(samples) if samples else (None, "")
            if fitted is not None and never:
                fitted = zero_at(never, fitted)
                note += f"; 0 on P = {', '.join(map(str, sorted(never)))}, where no run called it"
            unit = self.units[ctx.unit]
            where = self._where(unit, callee)
            if fitted is not None:
                self.fallbacks.append(Fallback(
                    where, "fit", "calls", f"'{callee.name}' was called from an unknown call site (a library "
                    f"callback, or a caller perfeq did not instrument); its {samples[0][1]} calls per rank = "
                    f"{fitted}{note}"))
            else:  # (its counts are then the run's, whatever the size: say so)
                shown = ", ".join(f"{float(calls):.6g}" for _, calls in samples)
                self.fallbacks.append(Fallback(
                    where, "measured", "calls", f"'{callee.name}' was called from an unknown call site (a library "
                    f"callback, or a caller perfeq did not instrument) and its calls per rank ({shown} in the "
                    "runs) fit no form of the sizes: its counts are the first run's at every size"))
            self._ratio[key] = fitted
        fitted = self._ratio[key]
        if fitted is None:
            raise Unresolved(f"'{callee.name}' was called from an unknown call site")
        return fitted

    def _polling_calls(self, ctx: ContextObservation, callee: FunctionDescriptor) -> sp.Expr:
        """Calls per rank of a polling function's one context (observe.gather_polling): how often the
        program polled, which is the waiting's timing, fitted over the training runs (0 in a run
        that never called it) and named in the fallbacks."""
        fitted, note = self._fit_totals(self._totals_per_rank(ctx, lambda node: node.summed(None)))
        self.fallbacks.append(Fallback(
            self._where(self.units[ctx.unit], callee), "fit", "calls",
            f"'{callee.name}' polls for messages (an if on an MPI test's or probe's flag): its contexts are "
            f"counted as one, whichever waiting loop called it; its calls per rank, which are waiting time, "
            f"= {fitted}{note}"))
        return fitted

    def _at_site(self, ctx: ContextObservation, callee: FunctionDescriptor, call: CallDescriptor, per_invocation: sp.Expr,
                 block: int, loop_id: int | None, ratio) -> sp.Expr:
        """``per_invocation`` with the call's arguments for the callee's parameters, times the
        executions of ``block`` (calls ``ratio`` per execution), summed over the loops around it."""
        parent = ctx.parent
        punit = self.units[parent.unit]
        resolver = Resolver(punit, call.function, loop_id, call.line, self.param_symbols)
        subs = {}
        formals = formal_arguments(callee.name, callee.params, call.args, per_invocation.free_symbols)
        for symbol, (name, arg) in formals.items():
            try:
                subs[symbol] = to_sympy(arg, resolver)
            except Unresolved as exc:
                subs[symbol] = self._data_argument(ctx, callee, name, arg, exc)
        try:
            expr = per_invocation.subs(subs) * self.local(parent, punit, block) * ratio
        except (TypeError, ValueError) as exc:  # an argument that makes no sense where it is used
            raise Unresolved(f"the arguments of the call at line {call.line}: {exc}".replace("\n", " ")) from None
        return self._in_loops(parent, punit, block, loop_id, expr)


def _header_parts(header: dict, loop: LoopDescriptor) -> tuple[bool, bool]:
    """Whether a call in a loop header runs once per entry (init; the first test of a for or while
    condition) and whether once per iteration (the other tests; the step; a do-while's tests)."""
    part = header["part"]
    return part == "init" or (part == "cond" and loop.kind != "do"), part in ("cond", "step")


def _calls_per_execution(ctx: ContextObservation, slots: list[int], nranks: int) -> sp.Rational | None:
    """A context's calls over the executions of its call site's ``slots`` in its parent, summed over
    the ranks; None where the site never ran (or the context has no parent)."""
    parent = ctx.parent
    if parent is None:
        return None
    executions = sum(parent.counter(r, slot) for slot in slots for r in range(nranks))
    return sp.Rational(sum(ctx.calls.get(r, 0) for r in range(nranks)), executions) if executions else None


def _call_ratio_note(call: CallDescriptor, ratio: sp.Expr, recursive: bool = False) -> str:
    if recursive:
        return (f"call of {call.callee} runs {ratio} times per execution of its block: {call.callee} is recursive "
                "(its calls of itself are folded into this one): measured ratio")
    if call.header:
        return (f"call of {call.callee} in a loop {call.header['part']} runs {ratio} times per test "
                "(a short-circuit operand, or the loop left early): measured ratio")
    return (f"call of {call.callee} runs {ratio} times per execution of its block "
            "(a short-circuit or conditional operand): measured ratio")


def _mean_calls(ctx: ContextObservation, nranks: int) -> sp.Expr:
    calls = [ctx.calls.get(r, 0) for r in range(nranks)]
    if len(set(calls)) == 1:
        return sp.Integer(calls[0])
    return sp.Rational(sum(calls), nranks)
