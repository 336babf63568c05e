"""Conditionals: true ratios, blocks after early exits, and mispredicted branches (paper 3.1).

Part of perfeq.symbolic.counts (a mixin of :class:`~perfeq.symbolic.counts.core.CountModel`).
A conditional is symbolic when its condition resolves (on the rank, P, the parameters), else it
keeps the run's true ratio; a block after a statement that can leave early keeps the share that
got there; mispredicted branches are the architectural linearization of data-dependent ones.
"""

from __future__ import annotations

import math

import sympy as sp

from perfeq.instrument.descriptors import BlockDescriptor, CondDescriptor, LoopDescriptor
from perfeq.symbolic.cexpr import TooLarge, Unresolved, to_condition
from perfeq.symbolic.counts.base import (
    FIT_TOLERANCE,
    CountBase,
    Fallback,
    _number,
    never_at,
    nonzero_pieces,
    per_process_ratio,
    zero_at,
)
from perfeq.symbolic.observe import polling_conds
from perfeq.symbolic.resolve import UnitView, condition_resolver
from perfeq.symbolic.symbols import TID


class Branches(CountBase):
    """The ratios of a context's conditionals and the branches they mispredict."""

    def _decide_cond(self, ctx, unit: UnitView, cond: CondDescriptor) -> None:
        key = (self._ids[id(ctx)], cond.id)
        self._ratio.pop(key, None)
        block = unit.blocks[cond.then_block] if cond.then_block is not None else None
        if block is None:
            return
        if cond.id in self._polling(unit) and self._decide_polled(ctx, unit, cond, block):
            return
        try:
            resolver = condition_resolver(unit, cond, block.loop, self.param_symbols)
            condition = to_condition(cond.text, resolver)
            self._ratio[key] = sp.Piecewise((1, condition), (0, True))
            self._cache.clear()
            if self._check(ctx, unit, block.id, self.total(ctx, unit, block.id)):
                return
            reason = "the symbolic condition does not reproduce the measured branch counts"
        except TooLarge as exc:
            reason = str(exc)
        except Unresolved as exc:
            reason = f"condition is data-dependent ({exc})"
        named = len(self.fallbacks)
        self._ratio[key] = self._measured_ratio(ctx, unit, cond, block)
        self._cache.clear()
        if "data-dependent" not in reason and len(self.fallbacks) == named:  # (else named there)
            self.fallbacks.append(Fallback(self._where(unit, cond), "measured-ratio", "conditional", reason))

    def _polling(self, unit: UnitView) -> set[int]:
        """The unit's polling conditionals (observe.polling_conds), once per unit."""
        if id(unit) not in self._polling_ids:
            self._polling_ids[id(unit)] = polling_conds(unit.data)
        return self._polling_ids[id(unit)]

    def _decide_polled(self, ctx, unit: UnitView, cond: CondDescriptor, block) -> bool:
        """An if on whether an MPI test or probe found a message (CondDescriptor.polled): its then
        block runs once per message (or completed request), however many polls it took, so its
        executions per rank over the run are fitted to the size (:meth:`_fit_totals`), and its true
        ratio is they over the condition's evaluations (the polls, which are timing).  False
        where the evaluations do not resolve (the measured ratio then)."""
        key = (self._ids[id(ctx)], cond.id)
        try:
            evaluations = self.total(ctx, unit, cond.block)
        except Unresolved:
            return False
        executions, note = self._fit_totals(self._totals_per_rank(ctx, lambda node: node.summed(block.slot)))
        self._ratio[key] = executions / nonzero_pieces(evaluations)  # (no 0 / 0 where nothing polls)
        self._cache.clear()
        self.fallbacks.append(Fallback(self._where(unit, cond), "fit", "conditional",
                                       f"it tests whether a message arrived (an MPI test's or probe's flag): "
                                       f"its executions per rank = {executions}{note}, whichever poll found them"))
        return True

    def _measured_ratio(self, ctx, unit: UnitView, cond: CondDescriptor, block) -> sp.Expr:
        """The true ratio the runs measured: theirs when they agree, or a function of the process count when
        the runs at different P measured different ratios and the runs at one P about the same (a
        branch on the owner of an item, ``if (owner == rank)``; a branch that only runs on more
        processes: ``if (my_ID != root)`` in a ring broadcast on a sub-communicator never runs on
        one process): per_process_ratio; when they differ otherwise, the first run's, named in the
        fallbacks."""
        measured = []  # (P, true ratio, evaluations) of every run holding this context, the first run's first
        evaluating = []  # (P, the ranks that evaluated it) of the runs that did
        for run, node in self._same_context(ctx):
            slot = unit.blocks[cond.block].slot if cond.block is not None else None
            evaluated = node.summed(slot) if cond.block is not None else 0
            measured.append((run.nranks, sp.Rational(node.summed(block.slot), evaluated) if evaluated else None,
                             evaluated))
            if evaluated:
                evaluating.append((run.nranks, sum(1 for r in range(run.nranks) if node.counter(r, slot))))
        samples = [(procs, ratio) for procs, ratio, _ in measured if ratio is not None]
        workers = bool(evaluating) and all(procs > 1 and ranks == procs - 1 for procs, ranks in evaluating)
        by_procs = per_process_ratio(samples, workers=workers)
        if by_procs is not None:
            form, note = by_procs
            self.fallbacks.append(Fallback(self._where(unit, cond), "measured-ratio", "conditional",
                                           f"its true ratio differs with the process count: {note}"))
            return form
        if not samples:
            return sp.Integer(0)
        never = never_at((procs, ratio) for procs, ratio, _ in measured if ratio is not None)  # (evaluated there)
        if never:
            return self._ratio_where_held(ctx, unit, cond, block, measured, never)
        if not _disagree([(ratio, n) for _, ratio, n in measured if ratio is not None]):
            return samples[0][1]
        fitted = self._fitted_ratio(ctx, unit, cond, block, samples[0][1])
        if fitted is not None:
            ratio, note = fitted
            self.fallbacks.append(Fallback(self._where(unit, cond), "fit", "conditional",
                                           f"its true ratio differs between the runs; {note}"))
            return ratio
        # the runs disagree, and not by P (PolyBench's print_array, if ((i * n + j) % 20 == 0): 52/1024
        # at n = 32, 1/20 in the limit; a test on random data): the first run's, which the loops on
        # the conditional's path are checked against (the largest run's, tried, turned SimpleMOC's
        # three loops under a random branch from symbolic to fitted), named in the fallbacks
        kept = samples[0][1]
        shown = ", ".join(f"{float(ratio):.4g}" for _, ratio in samples)
        self.fallbacks.append(Fallback(self._where(unit, cond), "measured-ratio", "conditional",
                                       f"its true ratio differs between the runs ({shown}); the first run's, "
                                       f"{float(kept):.4g}, is kept"))
        return kept

    def _ratio_where_held(self, ctx, unit: UnitView, cond: CondDescriptor, block,
                          measured: list[tuple[int, sp.Rational | None, int]], never: set[int]) -> sp.Expr:
        """The true ratio of a conditional that never held on some process counts (``never``: every
        run there evaluated it and measured 0) and did on others: 0 at those, and at any other P the
        ratio of the runs where it held (theirs when they agree, else fitted to the size, else the
        first's).  A test for a message that has arrived (graph500's ``if (flag)`` after
        ``MPI_Testany``, ``if (length > 0)``) never holds on one process, and how often it holds on
        two is data: the first run's ratio, one process's 0, made every message of the run on two
        processes vanish, or another's made messages on one (where it has none)."""
        held = [(procs, ratio, n) for procs, ratio, n in measured if ratio is not None and procs not in never]
        kept = held[0][1]
        note = f"{float(kept):.4g}, the first's there"
        if not _disagree([(ratio, n) for _, ratio, n in held]):
            note = f"{float(kept):.4g}"
        else:
            fitted = self._fitted_ratio(ctx, unit, cond, block, kept, skip=never)
            if fitted is not None:
                kept, note = fitted
        shown = ", ".join(str(procs) for procs in sorted(never))
        self.fallbacks.append(Fallback(self._where(unit, cond), "measured-ratio", "conditional",
                                       f"never true on P = {shown} (0 in every run there); elsewhere {note}"))
        return zero_at(never, kept)

    def _fitted_ratio(self, ctx, unit: UnitView, cond: CondDescriptor, block,
                      first: sp.Rational, skip: set[int] = frozenset()) -> tuple[sp.Expr, str] | None:
        """When the runs' true ratios differ because the count of the then block follows a form of
        the size that the condition does not show, its executions per invocation as that form over
        the condition's evaluations per invocation:

        * a form that reproduces three runs or more exactly (a boundary test on the variables of
          blocked loops, ``ii == 0 || ii == n - 1`` with ``ii`` in ``[i, i + b)``: 4n - 4 of n^2);
        * else the c * form nearest to the runs (:meth:`_nearest_form`), when it is off by at most
          half as much as the first run's ratio would be and by at most :data:`FIT_TOLERANCE` (a
          looser form made CoMD's cell tests, 6-17 % off, worse on its own runs: the loops under them
          were scaled to the first ratio), and no ratio above 1 in any run: a test on
          data whose true share falls or grows with the size (Floyd-Warshall's relaxation, about
          n^2 of n^3 tests; the primes of a sieve, n / log n of n): the first run's ratio, kept,
          was +488 % on the stores at 8x, the nearest form a few %.

        Runs on the process counts in ``skip`` are left out.  None otherwise (the first run's ratio
        is kept)."""
        samples = []
        for run, node in self._same_context(ctx):
            if run.nranks in skip:
                continue
            calls = node.summed(None)
            if calls:
                samples.append((self.values(run, 0), sp.Rational(node.summed(block.slot), calls)))
        if len(samples) < 2 or cond.block is None:
            return None
        try:
            evaluations = self._in_loops(ctx, unit, cond.block, unit.blocks[cond.block].loop,
                                         self.local(ctx, unit, cond.block))
        except Unresolved:
            return None
        if evaluations.has(TID):  # evaluated by some threads of a team only (if (id == 0) around it)
            return None
        if evaluations.is_zero or evaluations.has(sp.zoo, sp.nan, sp.oo):  # no evaluation to share them
            return None  # (mpiGraph's polls: an if the model's loop, fitted, no longer enters)
        if len(samples) >= 3:
            fitted, note = self._fit(samples)
            if fitted is not None and self._worst_error(samples, fitted) == 0.0:  # (numerically: sympy's
                return _at_most_one(fitted / evaluations), f"its executions per call are {fitted}{note}"  # simplify took minutes)
        tests = [_number(evaluations, values) for values, _ in samples]
        if any(t is None or t <= 0 for t in tests) or any(e <= 0 for _, e in samples):
            return None
        kept = max(abs(float(first) * t - float(e)) / float(e) for t, (_, e) in zip(tests, samples, strict=True))
        fitted, note = self._nearest_form(samples, kept, "the first run's ratio")
        if fitted is None or self._worst_error(samples, fitted) > FIT_TOLERANCE or any(
                (_number(fitted, values) or math.inf) > t for t, (values, _) in zip(tests, samples, strict=True)):
            return None
        return _at_most_one(fitted / evaluations), f"its executions per call are {fitted}{note}"

    def _ratio_of(self, ctx, unit: UnitView, block: BlockDescriptor, negate: bool) -> sp.Expr:
        kind = "then_block" if not negate else "else_block"
        for cond in unit.data.conds:
            if getattr(cond, kind) == block.id:
                ratio = self._ratio.get((self._ids[id(ctx)], cond.id))
                if ratio is None:
                    self._decide_cond(ctx, unit, cond)
                    ratio = self._ratio[(self._ids[id(ctx)], cond.id)]
                if negate and cond.id in self._polling(unit):  # (uncapped: the polls are fitted apart)
                    return sp.Max(0, 1 - ratio)
                return 1 - ratio if negate else ratio
        raise Unresolved(f"no conditional for block {block.id}")

    # ---- mispredicted branches ----------------------------------------------------------------
    def mispredicted(self, ctx, unit: UnitView, block_id: int) -> sp.Expr:
        """Mispredicted branches per execution of a ``then`` block (architectural linearization).

        A conditional whose outcome is data (it keeps the run's true ratio r) is mispredicted at
        most at the rate of a branch whose outcomes are independent, min(r, 1 - r) per evaluation
        (a predictor that learns the majority outcome); evaluations are the ``then`` executions /
        r.  When the run also ran a branch predictor on the condition (descriptor field
        ``predictor``, a local-history predictor in perfeq_rt.h), its misses per evaluation are the
        other bound: outcomes that come in runs, as when
        merging data that is already sorted, are predictable whatever r is.  A modern predictor
        does at least as well as either, so the smaller rate is kept, and like r it is taken to
        hold at other sizes.  Conditions on the rank, P and the parameters, and loop conditions,
        are predictable; an ``if`` that only assigns plain variables (``select`` in the
        descriptors) is a conditional move, no branch.
        """
        for cond in unit.data.conds:
            if cond.then_block == block_id and cond.kind == "if" and not cond.select:
                ratio = self._ratio.get((self._ids[id(ctx)], cond.id))
                if isinstance(ratio, sp.Rational) and 0 < ratio < 1:
                    rate = sp.Min(ratio, 1 - ratio) / ratio
                    if cond.predictor is not None:
                        taken = ctx.summed(unit.blocks[block_id].slot)
                        missed = ctx.summed(cond.predictor)
                        if taken:
                            rate = sp.Min(rate, sp.Rational(missed, taken))
                    return rate
        return sp.Integer(0)

    def loop_mispredicted(self, ctx, loop: LoopDescriptor) -> sp.Expr:
        """Mispredicted branches of a loop's condition per entry, for a loop whose trip count is data
        (a fit or a constant in place of its bounds, ``while (tries < 4 && kind(...) != want)``),
        else 0: as the run's branch predictor on the condition missed (descriptor field
        ``predictor``), per entry, taken to hold at other sizes; without it, 1 (the exit)."""
        key = (self._ids[id(ctx)], loop.id)
        if self._loop_mode.get(key) is None:
            return sp.Integer(0)
        if loop.predictor is not None and loop.entry_slot is not None:
            entries = ctx.summed(loop.entry_slot)
            if entries:
                return sp.Rational(ctx.summed(loop.predictor), entries)
        return sp.Integer(1)

    def _after_ratio(self, ctx, unit: UnitView, block: BlockDescriptor) -> sp.Expr:
        """Executions of a block after a control statement per execution of the block before it.

        1 unless the statement can leave early (a ``return``, ``break``, ``continue`` or ``goto``
        inside it), which the run shows as fewer executions after than before.  Then: for an
        ``if`` whose branch always leaves, the share of the condition that is false (symbolic
        when the condition is, ``if (rank == 0) return;``); otherwise the ratio the run measured
        (the paper's constant true ratio).
        """
        key = (self._ids[id(ctx)], block.id)
        if key not in self._after:
            ranks = range(self.run.nranks)
            after = sum(self.measured(ctx, unit, block.id, r) for r in ranks)
            before = sum(self.measured(ctx, unit, block.anchor, r) for r in ranks)
            decided: sp.Expr | CondDescriptor = sp.Integer(1)
            if after != before:
                decided = sp.Rational(after, before) if before else sp.Integer(0)
                cond = self._preceding_if(unit, block)
                if cond is not None:
                    then = sum(self.measured(ctx, unit, cond.then_block, r) for r in ranks)
                    if before - after == then:  # the then-branch always leaves
                        decided = cond
            self._after[key] = decided
        decided = self._after[key]
        if isinstance(decided, CondDescriptor):  # the condition's ratio may still be decided, so ask each time
            return 1 - self._ratio_of(ctx, unit, unit.blocks[decided.then_block], negate=False)
        return decided

    def _preceding_if(self, unit: UnitView, block: BlockDescriptor) -> CondDescriptor | None:
        """The ``if`` without ``else`` that ends right before an ``after`` block, if that is what it follows."""
        best = None
        for cond in unit.data.conds:
            if (cond.function != block.function or cond.kind != "if" or cond.then_block is None
                    or cond.else_block is not None):
                continue
            if unit.blocks[cond.then_block].anchor != block.anchor or cond.line > block.line:
                continue
            if best is None or cond.line > best.line:
                best = cond
        if best is None:
            return None
        # another control statement (loop, switch, region) between the if and the block?
        for other in unit.blocks:
            if (other is not block and other.function == block.function and other.kind == "after"
                    and other.anchor == block.anchor and best.line <= other.line <= block.line):
                return None
        return best


def _disagree(ratios: list[tuple[sp.Rational, int]]) -> bool:
    """Whether true ratios measured over n evaluations each differ by more than sampling explains:
    one is 0 or 1 where another is not, or two are more than 4 combined binomial standard errors
    apart (a test on random data differs a little from run to run: HPGMG-FV's hundred such
    conditionals are no news; a ratio that moves with the size is)."""
    (first, n0), *rest = ratios
    for ratio, n in rest:
        if ratio == first:
            continue
        if first in (0, 1) or ratio in (0, 1):
            return True
        spread = float(first * (1 - first)) / n0 + float(ratio * (1 - ratio)) / n
        if abs(float(ratio - first)) > 4 * spread ** 0.5:
            return True
    return False


def _at_most_one(ratio: sp.Expr) -> sp.Expr:
    """A fitted true ratio, the then block's executions over the condition's evaluations, each a
    form of the size, capped at 1: the two forms part at sizes beyond the runs, and the else block
    (1 - ratio) would run a negative number of times (HPGMG-FV's boundary conditions, faces fitted
    c boxes and the blocks tested c sqrt(boxes): -13,384 loads at 64 boxes, which predict refused)."""
    return sp.Min(1, ratio)
