"""Loop trip counts: symbolic from a loop's bounds, else fitted, else measured (paper 3.1).

Part of perfeq.symbolic.counts (a mixin of :class:`~perfeq.symbolic.counts.core.CountModel`).
Each loop's trip count follows the paper's three steps: symbolic from its bounds
(:mod:`perfeq.symbolic.tripcount`), else a fit of the measured trips to the problem
size, else the measured constant; sums over a loop's iterations are closed forms (relaxed when
sympy finds none).
"""

from __future__ import annotations

import dataclasses
import math
import re

import sympy as sp

from perfeq.instrument.descriptors import LoopDescriptor
from perfeq.symbolic.cexpr import Unresolved, to_sympy
from perfeq.symbolic.counts.base import (
    FIT_TOLERANCE,
    CountBase,
    Fallback,
    _number,
    nonzero_pieces,
    per_process_count,
    zero_at,
)
from perfeq.symbolic.counts.sums import closed_sum, min_max_as_piecewise
from perfeq.symbolic.fidelity import TOLERANCE
from perfeq.symbolic.observe import ContextObservation
from perfeq.symbolic.resolve import Resolver, UnitView, formal_arguments, loop_symbol
from perfeq.symbolic.symbols import RANK, TID, P, T
from perfeq.symbolic.tripcount import counted, step_and_count

MAX_CALL_PATH = 16  # the calls up a context's path a loop header's parameters are followed through


class LoopTrips(CountBase):
    """How each loop of a context is counted, and the sums over its iterations."""

    def _decide_loop(self, ctx, unit: UnitView, loop: LoopDescriptor) -> None:
        key = (self._ids[id(ctx)], loop.id)
        self._loop_mode[key] = None
        if loop.body_block is None:
            return
        reason = None
        # a collapse(n) nest whose inner headers the descriptors hold is counted from them (trips)
        bad = [f for f in loop.flags if f in ("var-modified", "goto", "collapsed")
               and not (f == "collapsed" and loop.nest)]
        header = None  # the trips its header allows: the most an early exit leaves
        if "wait" in loop.flags:
            reason = ("a spin-wait (it polls for another thread, process, request or message): its iterations "
                      "are time spent waiting, not work, and count no operations")
        elif bad:
            reason = ", ".join(bad)
        else:
            try:
                header = self.trips(unit, loop, ctx)[3]
                self._cache.clear()
                self._relaxed = False
                symbolic = self.total(ctx, unit, loop.body_block)
                if self._check(ctx, unit, loop.body_block, symbolic) or self._exact_per_entry(ctx, unit, loop):
                    self._note_cells(header)
                    if self._relaxed:
                        self.fallbacks.append(Fallback(
                            self._where(unit, loop), "relaxed", "loop",
                            "a sum over its iterations has no closed form with floor, ceiling or ?:, so they were "
                            "replaced by their mean; the result reproduces the run but may be off by a fraction of "
                            "an iteration per entry at other sizes"))
                    return
                scale = self._scale(ctx, unit, loop.body_block, symbolic)
                if scale is not None:
                    self._loop_scale[key] = scale
                    self._cache.clear()
                    why = ("a sum over its iterations has no closed form with floor, ceiling or ?:, so they "
                           "were relaxed" if self._relaxed else
                           "a data-dependent conditional on its path does not keep one true ratio")
                    self.fallbacks.append(Fallback(
                        self._where(unit, loop), "fit", "loop",
                        f"the symbolic trip count times {float(scale):.6g} reproduces the measured iterations ({why})"))
                    return
                reason = "its symbolic trip count does not reproduce the measured iterations"
            except Unresolved as exc:
                reason = f"bound not symbolic ({exc})"
        self._loop_mode[key] = self._capped(self._fallback_trips(ctx, unit, loop, reason), header, ctx, unit, loop)
        self._cache.clear()

    def _note_cells(self, count: sp.Expr | None) -> None:
        """A symbolic trip count that holds a count of cells computed at run time, floor(c * form)
        with c no whole number and no one over a whole number (CoMD's link cells, ``c->n = (int)
        (extent / cutoff)`` with extent n 1.3 / P): its per-cell densities n / cells are fit forms
        after it, as a count of cells fitted is (:func:`_cells`)."""
        if not isinstance(count, sp.Expr):
            return
        sizes = {*self.size_symbols, P, T}
        for cells in count.atoms(sp.floor):
            c, form = cells.args[0].as_coeff_Mul()
            if c.is_Rational and not c.is_integer and not (1 / c).is_integer \
                    and form.free_symbols & set(self.size_symbols) and form.free_symbols <= sizes:
                self._cell_forms[cells] = None

    def _through_calls(self, ctx, expr: sp.Expr) -> sp.Expr | None:
        """``expr`` of context ``ctx``'s function with its parameters replaced by the arguments of
        the calls that made the context, up its call path, as far as it has parameters; None where
        an argument does not resolve or the context has no known call site."""
        for _ in range(MAX_CALL_PATH):
            parent = ctx.parent
            if parent is None or parent.unit not in self.units:
                return expr
            callee = self.units[ctx.unit].functions[ctx.function]
            punit = self.units[parent.unit]
            if ctx.site is None or not 0 <= ctx.site < len(punit.data.calls):
                return None
            call = punit.data.calls[ctx.site]
            formals = formal_arguments(callee.name, callee.params, call.args, expr.free_symbols)
            if not formals:
                return expr
            resolver = Resolver(punit, call.function, call.loop, call.line, self.param_symbols)
            try:
                expr = expr.subs([(symbol, to_sympy(arg, resolver)) for symbol, (_, arg) in formals.items()])
            except (Unresolved, TypeError, ValueError):
                return None
            ctx = parent
        return None

    def _capped(self, fitted: sp.Expr, header: sp.Expr | None, ctx, unit: UnitView, loop: LoopDescriptor) -> sp.Expr:
        """A fitted trip count no larger than what the loop's header allows (a convergence loop
        ``for (it = 0; it < MAXIT; it++) { ...; if (done) break; }`` fitted as c log n ran 21.1
        sweeps of at most 20 at 8x: kmeans' 59.9 of 50): Min(fit, header), when the header's count is
        a form of the sizes alone that every training run stayed within."""
        if header is None or fitted.is_number or not isinstance(header, sp.Expr):
            return fitted
        allowed = {*self.size_symbols, P, T}
        if not header.free_symbols <= allowed:  # cg_driver's settings->max_iters: bound where it is called
            header = self._through_calls(ctx, header)
        if header is None or not header.free_symbols <= allowed or not fitted.free_symbols <= allowed:
            return fitted
        for run, node in self._same_context(ctx):
            entries = node.summed(loop.entry_slot)
            limit = _number(header, self.values(run, 0))
            if entries and (limit is None or node.summed(unit.blocks[loop.body_block].slot) > limit * entries + 1e-9):
                return fitted
        where = self._where(unit, loop)
        for index in range(len(self.fallbacks) - 1, -1, -1):
            if self.fallbacks[index].where == where and self.fallbacks[index].what == "loop":
                fallback = self.fallbacks[index]
                self.fallbacks[index] = dataclasses.replace(
                    fallback, detail=f"{fallback.detail}; at most {header}, the trips its header allows")
                break
        return sp.Min(fitted, header)

    def _exact_per_entry(self, ctx, unit: UnitView, loop: LoopDescriptor) -> bool:
        """Whether the symbolic trip count is the measured iterations per entry, on every rank of
        every run that holds this context, when the loop's total is not: ``for (m = 0; m < 3;
        m++)`` after a data-dependent ``continue`` runs 3 times per entry, and only how often it is
        entered is data: its entries are the enclosing code's, modelled and named there.  Only for a
        trip count from the source (not from a bound's recorded values) of the parameters, P and the
        rank (not of an enclosing loop's variable, whose per-entry values the run does not keep)."""
        if loop.entry_slot is None:
            return False
        try:
            count = self.trips(unit, loop)[3]
        except Unresolved:
            return False
        if count.free_symbols - {P, T, RANK, *self.size_symbols}:
            return False
        slot = unit.blocks[loop.body_block].slot
        entered = False
        for run, node in self._same_context(ctx):
            for rank in range(run.nranks):
                entries = node.counter(rank, loop.entry_slot)
                if not entries:
                    continue
                number = _number(count, self.values(run, rank))  # None where it is no finite number (n/0)
                if number is None or abs(number * entries - node.counter(rank, slot)) > 1e-9 * max(1, entries):
                    return False
                entered = True
        return entered

    def _scale(self, ctx, unit, block_id, expr: sp.Expr) -> sp.Expr | None:
        """measured / predicted (summed over ranks), when positive and the same (within 5 %) in
        every run that holds this context; None otherwise."""
        if expr.free_symbols - {P, T, RANK, *self.size_symbols}:
            return None
        ratios = []
        slot = unit.blocks[block_id].slot
        for run, node in self._same_context(ctx):
            predicted = self.summed(expr, run)
            if predicted is None:
                return None
            measured = node.summed(slot)
            if predicted <= 0 or measured <= 0:
                return None
            ratios.append((measured, measured / predicted))
        values = [ratio for _, ratio in ratios]
        if max(values) > (1 + FIT_TOLERANCE) * min(values):
            return None
        # the largest run's: an approximate (relaxed) sum and a drifting true ratio are both closest
        # to where the model is headed at the largest size measured
        return sp.nsimplify(max(ratios)[1], rational=True, tolerance=1e-12)

    def _fallback_trips(self, ctx, unit: UnitView, loop: LoopDescriptor, reason: str) -> sp.Expr:
        """Trips per entry fitted to the problem size (step 2), else the measured constant (step 3)."""
        where = self._where(unit, loop)
        samples = self._per_entry_samples(ctx, unit, loop, loop)
        if not samples:
            self.fallbacks.append(Fallback(where, "constant", "loop", f"{reason}; never entered in the run"))
            return sp.Integer(0)
        trips = samples[0][1]
        fitted, note = self._fit(samples)
        by_procs = per_process_count([(values[P], trips) for values, trips in samples])
        if fitted is None or self._worst_error(samples, fitted) > 0:
            closer = self._closer_fit(ctx, unit, loop, fitted, exact_only=fitted is None and by_procs is not None)
            if closer is not None:
                fitted, note = closer
        if fitted is not None:
            self.fallbacks.append(Fallback(where, "fit", "loop", f"{reason}; {trips} trips per entry = {fitted}{note}"))
            return fitted
        if by_procs is not None:
            self.fallbacks.append(Fallback(where, "constant", "loop", f"{reason}; {by_procs} trips per entry "
                                           "(per process count measured, the largest's beyond it)"))
            return by_procs
        nearest, note = self._nearest_form(samples)
        if nearest is not None:
            self.fallbacks.append(Fallback(where, "fit", "loop", f"{reason}; {trips} trips per entry = {nearest}{note}"))
            return nearest
        self.fallbacks.append(Fallback(where, "constant", "loop", f"{reason}; {trips} trips per entry"
                                       + ("" if len(samples) > 1 else " (give traces at two or more sizes to fit a form)")))
        return trips

    def _per_entry_samples(self, ctx, unit: UnitView, loop: LoopDescriptor, outer: LoopDescriptor
                           ) -> list[tuple[dict, sp.Rational]]:
        """(symbol values, iterations of ``loop`` per entry of ``outer``) of every run holding the
        context that entered ``outer``; ``outer`` is ``loop`` itself or a loop around it.  An omp
        for shared by its team (``outer``): each of the T threads enters it and runs its share,
        while its trips are the whole loop's (the team divides them, core._in_loops)."""
        team = self._shared_by_team(unit, outer)
        samples = []
        for run, node in self._same_context(ctx):
            entries = node.summed(outer.entry_slot)
            if entries:
                iterations = node.summed(unit.blocks[loop.body_block].slot) * (run.threads if team else 1)
                samples.append((self.values(run, 0), sp.Rational(iterations, entries)))
        return samples

    def _closer_fit(self, ctx, unit: UnitView, loop: LoopDescriptor, own: sp.Expr | None,
                    exact_only: bool = False) -> tuple[sp.Expr, str] | None:
        """Trips per entry that reproduce the loop's iterations better than its own fit per entry
        (``own``: approximate, or None where no form fits): its iterations per entry of an
        enclosing loop, fitted and divided by the trips of the loops between
        (:meth:`_per_enclosing_fits`), or its iterations over the whole context per process,
        fitted and divided by its entries as the model has them (:meth:`_per_context_fit`).

        A bound read from an array the enclosing loop indexes (``for (ii = 0; ii < nAtoms[iBox];
        ii++)`` inside ``for (iBox ...)``: atoms per link cell) has no form per entry (the mean
        atoms per cell is a ratio of the atoms to the cells), while the sum over the enclosing
        loop's iterations (the atoms) often has one.  A nest whose every bound is data (HPGMG-FV's
        smoother: ``for (block ...)`` then k, j and i up to ``level->my_blocks[block].dim.k``, ...,
        on every level of the multigrid from one call) has a mean per entry that mixes the levels,
        and the product of the loops' means is not the cells smoothed (the fine level's many small
        blocks, the coarse levels' few large ones: HPGMG-FV's first run +48 % in ops), while the
        cells smoothed over the run follow the size.

        Each choice is scored by the iterations it gives over each training run (its entries as
        modelled times its trips, against the counter, :meth:`_iterations_error`): the own fit
        stays where it is within the self-check's :data:`TOLERANCE`, else the closest is taken
        (between equally close ones, the first of: the own fit, the nearest enclosing loop
        outwards, the whole context).  Without an own fit, the closest within
        :data:`FIT_TOLERANCE` of the iterations, which the nearest form, the next step, is not;
        with ``exact_only`` (the trips are one constant per process count, the step after), only
        one that gives them exactly.  Where the model's entries cannot be scored
        (:meth:`_modelled_entries`), the nearest enclosing loop whose fit is exact.
        """
        entries = self._modelled_entries(ctx, unit, loop)
        if entries is None:
            exact = [(trips, note) for trips, note, error in self._per_enclosing_fits(ctx, unit, loop) if error == 0]
            return exact[0] if exact else None
        own_error = math.inf if own is None else self._iterations_error(ctx, unit, loop, entries, own)
        if own_error <= TOLERANCE:
            return None
        choices = [(trips, note) for trips, note, _ in self._per_enclosing_fits(ctx, unit, loop)]
        whole = self._per_context_fit(ctx, unit, loop, entries)
        if whole is not None:
            choices.append(whole)
        best_error, best = math.inf, None
        for trips, note in choices:
            error = self._iterations_error(ctx, unit, loop, entries, trips)
            if error < best_error:
                best_error, best = error, (trips, note)
        if best is None:
            return None
        if own is not None:
            return best if best_error < own_error else None
        return best if best_error <= (0 if exact_only else FIT_TOLERANCE) else None

    def _iterations_error(self, ctx, unit: UnitView, loop: LoopDescriptor, entries: sp.Expr, trips: sp.Expr) -> float:
        """The largest relative difference, over the training runs that hold the context, between
        the loop's iterations as ``entries`` times ``trips`` and its counter (inf where no number)."""
        slot = unit.blocks[loop.body_block].slot
        worst = 0.0
        for run, node in self._same_context(ctx):
            modelled = self.summed(entries * trips, run)
            if modelled is None:
                return math.inf
            measured = node.summed(slot)
            worst = max(worst, abs(modelled - measured) / max(measured, 1))
        return worst if worst > 1e-9 else 0.0

    def _positive_in_training(self, expr: sp.Expr) -> bool:
        """Whether ``expr`` (a divisor: trips or entries) is a positive number on every rank of
        every training run, also the runs that do not hold the context."""
        for run in (self.run, *self.extra_runs):
            for rank in range(run.nranks):
                number = _number(expr, self.values(run, rank))
                if number is None or not number > 0:
                    return False
        return True

    def _per_enclosing_fits(self, ctx, unit: UnitView, loop: LoopDescriptor) -> list[tuple[sp.Expr, str, float]]:
        """(trips per entry, note, the fit's worst error) from the loop's iterations per entry of
        each enclosing loop outwards (:meth:`_entered_per_iteration`), fitted within
        :data:`FIT_TOLERANCE` and divided by the trips of that loop and of every loop between."""
        found = []
        chain = self._entered_per_iteration(ctx, unit, loop)
        for depth, ancestor in enumerate(chain):
            if any(self._shared_by_team(unit, inner) for inner in (loop, *chain[:depth])):
                break  # (only the outermost may be an omp for: its team shares its trips)
            samples = self._per_entry_samples(ctx, unit, loop, ancestor)
            if len(samples) < 2:
                break
            fitted, note = self._fit(samples)
            error = math.inf if fitted is None else self._worst_error(samples, fitted)
            if error > FIT_TOLERANCE:
                continue
            divisor = self._trips_of(ctx, unit, chain[:depth + 1])
            if divisor is None:
                break
            which = f"the loop at line {ancestor.line}" + ("" if depth == 0 else f" ({depth + 1} levels out)")
            found.append((fitted / divisor, f" ({fitted} iterations per entry of {which}, divided by the trips of "
                          f"the loops between{note or ''})", error))
        return found

    def _trips_of(self, ctx, unit: UnitView, loops: list[LoopDescriptor]) -> sp.Expr | None:
        """The product of the trips per entry of ``loops`` (enclosing loops, decided before their
        inner loops) as the model has them, when it is a positive number on every rank of every
        training run and holds none of their variables or the thread number; None otherwise."""
        product = sp.Integer(1)
        for enclosing in loops:
            try:  # its trips per entry as the model sums over it: its fallback, else its scaled count
                product *= self._sum_over(ctx, unit, enclosing, sp.Integer(1))
            except Unresolved:
                return None
        names = {loop_symbol(unit.key, enclosing.id, enclosing.var or "_") for enclosing in loops}
        if product.has(TID) or product.free_symbols & names or not self._positive_in_training(product):
            return None
        return product

    def _entered_per_iteration(self, ctx, unit: UnitView, loop: LoopDescriptor) -> list[LoopDescriptor]:
        """The loops around ``loop`` in its function, nearest first, as far out as each is entered
        once per iteration of the loop around it in every run that holds the context (not under a
        conditional there)."""
        chain = []
        child = loop
        while child.parent is not None:
            parent = unit.loops[child.parent]
            if parent.function != loop.function or parent.body_block is None or parent.entry_slot is None \
                    or not self._counted_alike(ctx, child.entry_slot, unit.blocks[parent.body_block].slot):
                break
            chain.append(parent)
            child = parent
        return chain

    def _counted_alike(self, ctx, slot: int | None, other: int) -> bool:
        """Whether counter ``slot`` (an entry counter) equals counter ``other`` (a block's) in
        every run that holds the context."""
        return slot is not None and all(node.summed(slot) == node.summed(other) for _, node in self._same_context(ctx))

    def _modelled_entries(self, ctx, unit: UnitView, loop: LoopDescriptor) -> sp.Expr | None:
        """The loop's entries over the context as the model has them (its block's executions), to
        score trips per entry by: None where the model's iterations are not those entries times
        its trips (an omp for shared by its team, whose trips the team divides; a loop one thread
        of the team runs; an entry counter apart from its block's), or where they are not one form
        of the sizes for every rank and thread."""
        if loop.block is None or self._shared_by_team(unit, loop) or loop.once \
                or not self._counted_alike(ctx, loop.entry_slot, unit.blocks[loop.block].slot):
            return None
        try:
            entries = self.total(ctx, unit, loop.block)
        except Unresolved:
            return None
        if entries.has(TID) or entries.free_symbols - {P, T, *self.size_symbols}:
            return None
        return entries

    def _per_context_fit(self, ctx, unit: UnitView, loop: LoopDescriptor, entries: sp.Expr
                         ) -> tuple[sp.Expr, str] | None:
        """Trips per entry as the loop's iterations over the context per process (their mean over
        the ranks: every rank gets it), fitted within :data:`FIT_TOLERANCE`, divided by its
        modelled ``entries`` where those are positive on every rank of every training run, or
        positive there but at the process counts where they are 0 on every rank of every run
        (:meth:`_never_entered_at`: graph500's message loop, no message on one process), where the
        trips are 0."""
        samples = []
        for run, node in self._same_context(ctx):
            iterations = node.summed(unit.blocks[loop.body_block].slot)
            if iterations <= 0:
                return None
            samples.append((self.values(run, 0), sp.Rational(iterations, run.nranks)))
        if len(samples) < 2:
            return None
        fitted, note = self._fit(samples)
        if fitted is None or self._worst_error(samples, fitted) > FIT_TOLERANCE:
            return None
        never = self._never_entered_at(entries)
        if never is None:
            return None
        trips = fitted / nonzero_pieces(entries)
        if never:  # (0 there, not fitted / 0: the loop's context never runs on those process counts)
            trips = zero_at(never, trips)
        return trips, f" ({fitted} iterations over the context per process, divided by its entries{note or ''})"

    def _never_entered_at(self, entries: sp.Expr) -> list[int] | None:
        """The process counts at which ``entries`` is 0 on every rank of every training run (a
        message handler's loop on one process, where no message comes: graph500's process_intra),
        when it is positive on every rank of every other training run; None otherwise."""
        zero, positive = set(), set()
        for run in (self.run, *self.extra_runs):
            numbers = [_number(entries, self.values(run, rank)) for rank in range(run.nranks)]
            if all(number is not None and number > 0 for number in numbers):
                positive.add(run.nranks)
            elif all(number == 0 for number in numbers):
                zero.add(run.nranks)
            else:
                return None
        return sorted(zero) if positive and not zero & positive else None

    def trips(self, unit: UnitView, loop: LoopDescriptor, ctx: ContextObservation | None = None
              ) -> tuple[sp.Symbol, sp.Expr, sp.Expr, sp.Expr]:
        """(variable, first value, stride, number of iterations) of a loop with a symbolic form.

        ``stride`` is an additive step, or ``("*", k)`` / ``("/", k)`` for loops that multiply or
        divide their variable (log trip counts).  A bound or first value that does not resolve
        (it is data: read from an array, received by MPI) is, in context ``ctx``, the form of the
        problem size its values recorded at the loop's entries fit (:meth:`recorded_value`).
        """
        counted(loop)
        resolver = Resolver(unit, loop.function, loop.parent, loop.line, self.param_symbols)
        var = loop_symbol(unit.key, loop.id, loop.var)
        try:
            first, bound = (to_sympy(getattr(loop, which), resolver) for which in ("init", "bound"))
        except Unresolved:
            window = _window(loop, resolver, self._sign)
            if window is not None:
                return (var, *window)
            first = self._continued(unit, loop, ctx)
            if first is None:
                first = self._loop_value(ctx, unit, loop, "init", resolver)
            bound = self._loop_value(ctx, unit, loop, "bound", resolver)
        step, count = step_and_count(loop, resolver, first, bound, self._sign)
        searched = self._search_trips(unit, loop, resolver, var, first, step)
        return var, first, step, (count if searched is None else searched) * self._nest_trips(loop, resolver)

    def _nest_trips(self, loop: LoopDescriptor, resolver: Resolver) -> sp.Expr:
        """The iterations of the inner loops of a collapse(n) nest (1 for any other loop): the
        product of their trip counts, each from its own header, when none depends on an enclosing
        level's variable (a rectangular nest; the construct's iterations are then the product:
        the lattice Boltzmann code's ``#pragma omp simd collapse(2)`` over ny and nx was fitted in
        the one that varied in the training runs, the other baked in: -50 % where it doubled).
        Summed as iterations of the outer loop's variable: the check against the runs catches a
        body whose counts depend on it."""
        total = sp.Integer(1)
        names = {loop.var}
        for level in loop.nest:
            inner = dataclasses.replace(loop, **{key: level.get(key) for key in ("var", "init", "op", "bound", "stride")},
                                        kind="for", nest=[], inductions=[])
            counted(inner)
            outer = [name for name in names if name and re.search(rf"\b{re.escape(name)}\b", f"{inner.init} {inner.bound}")]
            if outer:
                raise Unresolved(f"a collapsed loop's bounds depend on '{outer[0]}' (not rectangular)")
            first, bound = (to_sympy(getattr(inner, which), resolver) for which in ("init", "bound"))
            total *= step_and_count(inner, resolver, first, bound, self._sign)[1]
            names.add(inner.var)
        return total

    def _search_trips(self, unit: UnitView, loop: LoopDescriptor, resolver: Resolver, var: sp.Symbol,
                      first: sp.Expr, step: sp.Expr) -> sp.Expr | None:
        """The iterations of a search over the sides of a process grid, from the value it leaves its
        variable with (a ``procgrid`` candidate recorded after the loop and resolved as grid_lo(P)
        or grid_hi(P)): ``for (px = sqrt(P + 1); px > 0; px--) if (P % px == 0) break;`` runs
        sqrt(P + 1) - grid_lo(P) + 1 times, not the sqrt(P + 1) its header allows, which runs on 1
        and 2 processes cannot tell apart.  Left by the break (+1) when the loop's condition still
        holds at the final value for P = 1..64, at the condition (+0) when it fails for all of
        them; None otherwise, or for another loop."""
        final = self.param_symbols.get(loop.var) if loop.var else None
        if (final is None or isinstance(final, sp.Symbol) or final.free_symbols != {P} or step not in (1, -1)
                or not any(p.source == "procgrid" and p.variable == loop.var and p.function == loop.function
                           and p.line == loop.line for p in unit.params)):
            return None
        try:
            test = to_sympy(loop.cond, resolver).subs(var, final)
        except Unresolved:
            return None
        held = set()
        for procs in range(1, 65):
            value = test.subs(P, procs)
            held.add(bool(value) if isinstance(value, sp.logic.boolalg.Boolean) else
                     bool(value != 0) if value.is_number else None)
        if len(held) != 1 or None in held:
            return None
        return (final - first) / step + (1 if held.pop() else 0)

    def _continued(self, unit: UnitView, loop: LoopDescriptor, ctx) -> sp.Expr | None:
        """The first value of ``for (; i < n; ...)`` / ``for (i; ...)``, a loop that goes on from
        where the loop before it on the same variable, in the same body, left it (a remainder loop,
        then the unrolled one: ``for (i = 0; i < rem; i++) ...; for (i; i < area; i += 4) ...``):
        that loop's first value plus its stride times its iterations.  None when there is no such
        loop, or the variable is assigned between the two, or that loop has no additive symbolic
        form (the counts are checked against the runs either way)."""
        if loop.kind != "for" or loop.init != loop.var:
            return None
        before = [other for other in unit.loops if other.function == loop.function and other.parent == loop.parent
                  and other.kind == "for" and other.var == loop.var and other.line < loop.line]
        if not before:
            return None
        previous = max(before, key=lambda other: (other.line, other.id))
        if previous.flags or any(a.variable == loop.var and previous.line < a.line < loop.line
                                 and a.loop != previous.id for a in unit.functions[loop.function].assignments):
            return None
        try:
            _, first, stride, count = self.trips(unit, previous, ctx)
        except Unresolved:
            return None
        if isinstance(stride, tuple):
            return None
        return first + stride * count

    def _loop_value(self, ctx, unit: UnitView, loop: LoopDescriptor, which: str, resolver: Resolver) -> sp.Expr:
        """A loop's ``init`` or ``bound`` expression: symbolic, else its recorded values fitted."""
        try:
            return to_sympy(getattr(loop, which), resolver)
        except Unresolved as exc:
            slot = (loop.values or {}).get(which)
            if ctx is None or slot is None:
                raise
            fitted = self.recorded_value(ctx, unit, slot, self._where(unit, loop),
                                         f"{'bound' if which == 'bound' else 'first value'} {getattr(loop, which)!r}", exc)
            if fitted is None:
                raise
            return fitted

    def _sign(self, stride: sp.Expr) -> int:
        """+1 / -1 / 0 (unknown): from assumptions, else at the run's values with loop variables at 1."""
        if stride.is_positive:
            return 1
        if stride.is_negative:
            return -1
        probe = stride.subs(self.values(self.run, 0))
        probe = probe.subs({s: 1 for s in probe.free_symbols})
        if probe.is_number:
            return 1 if probe > 0 else -1 if probe < 0 else 0
        return 0

    def _sum_over(self, ctx, unit: UnitView, loop: LoopDescriptor, expr: sp.Expr) -> sp.Expr:
        key = (self._ids[id(ctx)], loop.id)
        var = loop_symbol(unit.key, loop.id, loop.var or "_")
        fallback = self._loop_mode.get(key)
        if fallback is not None:
            if var in expr.free_symbols:
                raise Unresolved(f"a count depends on the variable of the fitted loop at line {loop.line}")
            return expr * fallback
        var, first, stride, count = self.trips(unit, loop, ctx)
        scale = self._loop_scale.get(key, 1)
        if var not in expr.free_symbols:
            return scale * expr * count
        if any(isinstance(symbol, _Opaque) for symbol in first.free_symbols):
            raise Unresolved(f"a count depends on the variable of the loop at line {loop.line}, whose values are data")
        t = sp.Symbol(f"_t{loop.id}", integer=True, nonnegative=True)
        if isinstance(stride, tuple):  # var = first * k**t (or first / k**t)
            kind, factor = stride
            value = first * factor**t if kind == "*" else first / factor**t
            return scale * self._summation(expr.subs(var, value), (t, 0, count - 1), loop)
        if stride == 1:
            return scale * self._summation(expr, (var, first, first + count - 1), loop)
        return scale * self._summation(expr.subs(var, first + stride * t), (t, 0, count - 1), loop)

    def _summation(self, expr: sp.Expr, limits: tuple, loop: LoopDescriptor) -> sp.Expr:
        result, relaxed = _summation(expr, limits, f"the loop at line {loop.line}", self._sign)
        self._relaxed = self._relaxed or relaxed
        return result

    def _over_team(self, unit: UnitView, block_id: int, expr: sp.Expr) -> sp.Expr:
        """``expr``, a count per invocation that holds the thread's number (a team split by hand:
        ``lo = n * omp_get_thread_num() / omp_get_num_threads()``), summed over the team: in a
        parallel construct the T threads each ran it (the construct's factor T becomes the sum over
        their numbers 0 .. T - 1); outside one the number is 0."""
        if TID not in expr.free_symbols:
            return expr
        if not unit.blocks[block_id].in_parallel:
            return expr.subs(TID, 0)
        summed, rest = sp.Integer(0), sp.Integer(0)
        for term in sp.Add.make_args(sp.expand(expr / T)):
            cyclic = _cyclic_share(term)
            if cyclic is None:
                rest += term
            else:
                summed += cyclic
        if rest != 0:
            result, relaxed = _summation(rest, (TID, 0, T - 1), "the team's threads", self._sign)
            self._relaxed = self._relaxed or relaxed
            summed += result
        return summed


def _cyclic_share(term: sp.Expr) -> sp.Expr | None:
    """The sum over the team's numbers k = 0 .. T - 1 of ``c * floor((u +- k) / T)`` or ``c *
    ceiling((u +- k) / T)``, by Hermite's identity (sum_k floor((u + k) / T) = floor(u)): the
    iterations of a loop dealt out cyclically, ``for (i = id; i < n; i += nt)``, ceiling((n - k) /
    T) each, sum to n, which the relaxed sum misses by (T - 1) / 2.  None for any other term."""
    atoms = [a for a in term.atoms(sp.floor, sp.ceiling) if a.has(TID)]
    if len(atoms) != 1:
        return None
    atom = atoms[0]
    coefficient = sp.cancel(term / atom)
    if coefficient.has(TID) or coefficient.has(atom.func):
        return None
    arg = atom.args[0]
    slope = sp.simplify(sp.diff(arg, TID) * T)
    if slope not in (1, -1):
        return None
    u = sp.expand(T * arg - slope * TID)
    if u.has(TID):
        return None
    if isinstance(atom, sp.floor):
        total = sp.floor(u) if slope == 1 else sp.floor(u - T + 1)
    else:
        total = -sp.floor(-u - T + 1) if slope == 1 else sp.ceiling(u)
    return coefficient * total


class _Opaque(sp.Dummy):
    """A value the model does not know (data: ``ix`` set by ``getTuple(boxes, iBox, &ix, ...)``)."""


def _window(loop: LoopDescriptor, resolver: Resolver, sign) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """(first value, stride, iterations) of a loop over a window around data, when its number of
    iterations does not depend on the data: ``for (i = ix - 1; i <= ix + 1; i++)`` runs 3 times
    whatever ``ix`` is (CoMD's neighbour boxes), ``for (k = start[b]; k < start[b] + w; k++)`` w
    times.  What does not resolve stands for itself (:class:`_Opaque`); None when the count still
    holds one of them."""
    opaque: dict[str, sp.Symbol] = {}

    def symbol(text: str) -> sp.Expr:
        return opaque.setdefault(text, _Opaque(f"data_{len(opaque)}", integer=True))

    try:
        first, bound = (to_sympy(getattr(loop, which), resolver, symbol) for which in ("init", "bound"))
        step, count = step_and_count(loop, resolver, first, bound, sign)
    except Unresolved:
        return None
    if not opaque or count.free_symbols & set(opaque.values()):
        return None
    return first, step, count


def _summation(expr: sp.Expr, limits: tuple, over: str, sign=None) -> tuple[sp.Expr, bool]:
    """The sum of ``expr`` over a loop's iteration space, in closed form, and whether it was relaxed.

    A ``Min``, ``Max`` or ``?:`` whose condition is linear in the variable (the tile loops of a
    blocked code) is summed exactly by cutting the range where it switches (:mod:`.sums`).
    When there is none even so (``j < i / 2``, ceilings of a halving width, a ``?:`` clamp such as
    ``hi = lo + 2 * w < n ? lo + 2 * w : n``), the sum of the relaxed summand (:func:`_relax`) is
    taken.  That sum is close, not always exact: the caller checks it against the run, and a loop
    that does not reproduce it keeps the form times the measured factor (``_scale``) or falls back
    to a fit.  No closed form even then: :class:`Unresolved`.
    """
    result = closed_sum(expr, limits, sign)
    if result is not None:
        return result, False
    relaxed = _relax(expr, limits[0])
    if relaxed != expr:
        try:
            result = sp.summation(relaxed, limits)
        except (ValueError, TypeError, NotImplementedError):  # sympy's solvers on what they cannot order
            result = sp.Sum(relaxed, limits)
        if not result.has(sp.Sum):
            return result, True
    raise Unresolved(f"no closed form for the sum over {over}")


def _relax(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """The summand with its floor and ceiling terms in the summation variable replaced by their mean
    value, and a ``?:`` (or Min, Max) on the variable by its first branch.

    floor(p/q * v + c) is x - (q - 1) / (2 q) on average over consecutive v (the mean of its
    fractional part), ceiling likewise x + (q - 1) / (2 q); an argument not linear in v with a
    rational slope (``ceiling(n / 2**(t + 1))``, a trip count over a halving width) is taken as x,
    which keeps the blocked idiom ``for (lo = 0; lo < n; lo += B) ... min(lo + B, n) - lo`` summing
    to n.  Terms without ``var`` stay.
    """
    def mean_fraction(arg: sp.Expr) -> sp.Expr:
        slope = sp.diff(arg, var)
        if slope.is_Rational and not sp.diff(slope, var):
            q = sp.Rational(slope).q
            return sp.Rational(q - 1, 2 * q)
        return sp.Integer(0)

    def relax_one(e: sp.Expr) -> sp.Expr:
        arg = e.args[0]
        return arg - mean_fraction(arg) if isinstance(e, sp.floor) else arg + mean_fraction(arg)

    relaxed = min_max_as_piecewise(expr, var).replace(lambda e: isinstance(e, (sp.floor, sp.ceiling)) and e.has(var), relax_one)
    return relaxed.replace(
        lambda e: isinstance(e, sp.Piecewise) and var in e.args[0].cond.free_symbols,
        lambda e: e.args[0].expr)

