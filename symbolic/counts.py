"""Symbolic execution counts per block, loop, region and MPI call (symbolic stage, paper 3.1).

For every call-graph context of an instrumentation run, the executions of each basic block are
derived as sympy expressions in the problem-size parameters, P, the rank and the OpenMP thread
count T:

* a block's count relative to its anchor block (entry: once per invocation; loop body: once per
  iteration; then/else: the true ratio; after a control statement: as often as the block before);
* sums over the iteration spaces of the enclosing loops (triangular loops are summed exactly);
* the invocations of a context from its parent's call-site block, with the callee's parameters
  replaced by the call's argument expressions.

Each loop's trip count follows the paper's three steps: symbolic from its bounds, else a fit of the
measured trips to the problem size ("an integer multiple"), else the measured constant.  Every
symbolic count is checked against the run's counters; one that does not reproduce them falls back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from perfeq.symbolic.cexpr import Unresolved, to_sympy
from perfeq.symbolic.observe import ContextObservation, RunObservation
from perfeq.symbolic.resolve import (
    LOOP_SYMBOLS,
    Resolver,
    UnitView,
    formal_symbol,
    loop_symbol,
    parameter_symbol,
)
from perfeq.symbolic.symbols import RANK, P, T

# A fitted form (of trips, values, array counts) or a measured factor is kept when it reproduces
# every run within this (relative); the bytes of a fitted array count are checked against it too.
FIT_TOLERANCE = 0.05


@dataclass(frozen=True)
class Fallback:
    where: str  # file:line
    kind: str  # fit, constant, measured-ratio, measured
    what: str  # loop, conditional, context
    detail: str

    def message(self) -> str:
        return f"{self.where}: {self.what} modeled as {self.kind}: {self.detail}"


@dataclass
class ContextCounts:
    """The symbolic counts of one context (totals over all its invocations in the run)."""

    obs: ContextObservation
    unit: UnitView
    blocks: dict[int, sp.Expr] = field(default_factory=dict)
    loop_entries: dict[int, sp.Expr] = field(default_factory=dict)
    loop_iterations: dict[int, sp.Expr] = field(default_factory=dict)
    regions: dict[int, sp.Expr] = field(default_factory=dict)
    comms: dict[int, sp.Expr] = field(default_factory=dict)


class CountModel:
    """Builds and checks the symbolic counts of every context of one run."""

    def __init__(self, run: RunObservation, extra_runs: list[RunObservation] | None = None):
        self.run = run
        self.extra_runs = extra_runs or []
        self.units = {path: UnitView(data, key=f"u{i}_" if i else "") for i, (path, data) in
                      enumerate(sorted(run.units.items()))}
        self.fallbacks: list[Fallback] = []
        self.param_symbols = self._param_symbols()
        self._loop_mode: dict[tuple[int, int], sp.Expr | None] = {}  # (ctx, loop) -> fallback trips
        self._loop_scale: dict[tuple[int, int], sp.Expr] = {}  # (ctx, loop) -> fitted factor
        self._ratio: dict[tuple[int, int], sp.Expr] = {}  # (ctx, cond) -> ratio
        self._after: dict[tuple[int, int], sp.Expr | dict] = {}  # (ctx, after block) -> ratio or the if
        self._recorded: dict[tuple, sp.Expr | None] = {}  # (ctx, unit, value slot) -> fitted values
        self._relaxed = False  # a sum of the loop being decided was relaxed (see _summation)
        self._cache: dict[tuple[int, int], sp.Expr] = {}
        self._ids: dict[int, int] = {}

    # ---- parameters -------------------------------------------------------------------------
    def _param_symbols(self) -> dict[str, sp.Expr]:
        symbols: dict[str, sp.Expr] = {}
        for unit in self.units.values():
            for p in unit.params:
                symbols.setdefault(p["variable"], parameter_symbol(p))
        return symbols

    def values(self, run: RunObservation, rank: int) -> dict[sp.Symbol, float]:
        """Symbol values of a run for one rank."""
        subs: dict[sp.Symbol, float] = {P: run.nranks, T: run.threads, RANK: rank}
        for variable, symbol in self.param_symbols.items():
            if isinstance(symbol, sp.Symbol) and symbol not in (P, T, RANK) and variable in run.params:
                subs[symbol] = run.params[variable]
        return subs

    @property
    def size_symbols(self) -> list[sp.Symbol]:
        found = {s for s in self.param_symbols.values() if s not in (P, T, RANK)}
        return sorted(found, key=lambda s: s.name)

    # ---- the whole run ------------------------------------------------------------------------
    def build(self) -> list[ContextCounts]:
        results = []
        for ctx in self.run.contexts():
            self._ids[id(ctx)] = len(self._ids)
            if ctx.unit not in self.units:
                continue
            results.append(self._context(ctx))
        return results

    def _context(self, ctx: ContextObservation) -> ContextCounts:
        unit = self.units[ctx.unit]
        fn = ctx.function
        out = ContextCounts(ctx, unit)
        loops = [loop for loop in unit.loops if loop["function"] == fn]
        conds = [c for c in unit.data["conds"] if c["function"] == fn and c["kind"] == "if"]
        # decide modes outer-first: loops in id order (pre-order), conditionals before what they guard
        items = sorted([("loop", loop["line"], loop) for loop in loops] + [("cond", c["line"], c) for c in conds],
                       key=lambda t: (t[1], t[0] != "loop"))
        for kind, _, desc in items:
            if kind == "loop":
                self._decide_loop(ctx, unit, desc)
            else:
                self._decide_cond(ctx, unit, desc)
        for block in unit.blocks:
            if block["function"] == fn:
                out.blocks[block["id"]] = self._safe_total(ctx, unit, block["id"])
        for loop in loops:
            out.loop_entries[loop["id"]] = self._safe_total(ctx, unit, loop["block"])
            if loop["body_block"] is not None:
                out.loop_iterations[loop["id"]] = self._safe_total(ctx, unit, loop["body_block"])
        for region in unit.data["regions"]:
            if region["function"] == fn and region.get("block") is not None:
                out.regions[region["id"]] = self._safe_total(ctx, unit, region["block"])
        for comm in unit.data["comms"]:
            if comm["function"] == fn and comm["block"] is not None:
                out.comms[comm["id"]] = self._comm(ctx, unit, comm)
        return out

    def _comm(self, ctx, unit: UnitView, comm: dict) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
        """(messages sent, bytes sent, critical-path messages) of one MPI call site, summed.

        Messages are exact (the call's algorithm in P and the rank).  Bytes too, when the count is
        symbolic; a count that is an array over the ranks (MPI_Alltoallv's sendcounts[]) is data,
        and its elements per call are fitted to a form of the problem size (:meth:`_array_bytes`);
        those bytes are checked within the fit's tolerance, not exactly.
        """
        from perfeq.symbolic.comm import comm_counts
        from perfeq.symbolic.messages import message_counts

        resolver = Resolver(unit, comm["function"], comm["loop"], comm["line"], self.param_symbols)
        records = [rec for r in range(self.run.nranks) for rec in ctx.mpi.get(r, {}).get(comm["id"], [])]
        where = self._where(unit, comm["line"])
        fitted, fit_note = self._array_bytes(ctx, comm)
        sent, nbytes, critical, notes = comm_counts(comm, resolver, records, nbytes=fitted)
        for note in notes:
            self.fallbacks.append(Fallback(where, "measured", "communication", note))
        try:
            result = tuple(self.total(ctx, unit, comm["block"], w) for w in (sent, nbytes, critical))
            if self._check_comm(ctx, comm, result, bytes_tolerance=1e-6 if fitted is None else FIT_TOLERANCE):
                if fit_note:
                    self.fallbacks.append(Fallback(where, "fit", "communication", fit_note))
                return result
            reason = "the symbolic messages do not reproduce the measured ones"
        except Unresolved as exc:
            reason = str(exc)
        measured = []
        for r in range(self.run.nranks):
            total = None
            for rec in ctx.mpi.get(r, {}).get(comm["id"], []):
                counts = message_counts(rec.call, calls=rec.calls, nbytes=rec.bytes, comm_size=rec.comm_size,
                                        comm_rank=rec.comm_rank, root=rec.root)
                total = counts if total is None else total + counts
            measured.append(total)
        self.fallbacks.append(Fallback(where, "measured", "communication", reason))
        n = self.run.nranks
        return tuple(sp.Rational(sum(getattr(m, key) for m in measured if m), n)
                     for key in ("sent", "bytes_sent", "critical"))

    def _array_bytes(self, ctx, comm: dict) -> tuple[sp.Expr | None, str]:
        """Bytes per call of a call site whose count is an array over the ranks, scaled with the size.

        The wrapper records the elements of the whole array (this rank's data, e.g. its n / P
        keys) and the bytes of the blocks for the other ranks.  The elements per call of the
        sending ranks, averaged over them, are fitted like a trip count (:meth:`_fit`, over every
        run that holds this context); the bytes are then the type size times
        floor(elements * (P - 1) / P), the others' share when the blocks are equal, which is
        approximate when the blocks are data (partition sizes).  Returns the bytes and the note
        for the model's fallbacks; None when the count is not an array, no form fits or the
        datatype's size is unknown (then: measured bytes per call).
        """
        from perfeq.runtime.mpi.calls import MPI_CALLS
        from perfeq.symbolic.comm import sending_records, summed_bytes

        spec = MPI_CALLS.get(comm["call"])
        if spec is None or spec.count_sum is None:
            return None, ""
        samples = []  # (symbol values, elements per call of a sending rank) of every run with this context
        for run, node in self._same_context(ctx):
            sending = sending_records(spec, [rec for r in range(run.nranks)
                                             for rec in node.mpi.get(r, {}).get(comm["id"], [])])
            calls = sum(rec.calls for rec in sending)
            if calls:
                samples.append((self.values(run, 0), _rational(Fraction(sum(rec.elements for rec in sending), calls))))
        fitted, note = self._fit(samples) if samples else (None, "")
        if fitted is None:
            return None, ""
        try:
            nbytes = summed_bytes(comm, fitted)
        except Unresolved:
            return None, ""
        return nbytes, (f"count {comm['count']} is an array (data): its elements per call {samples[0][1]} = "
                        f"{fitted}{note}; bytes sent per call = {nbytes}, the blocks for the other ranks if all "
                        "blocks were equal")

    def _check_comm(self, ctx, comm: dict, result: tuple, bytes_tolerance: float = 1e-6) -> bool:
        """Whether the messages (exactly) and bytes (within ``bytes_tolerance``, relative)
        reproduce the run's, summed over ranks."""
        from perfeq.symbolic.messages import message_counts

        want_sent = want_bytes = got_sent = got_bytes = 0.0
        for r in range(self.run.nranks):
            sent = nbytes = 0
            for rec in ctx.mpi.get(r, {}).get(comm["id"], []):
                counts = message_counts(rec.call, calls=rec.calls, nbytes=rec.bytes, comm_size=rec.comm_size,
                                        comm_rank=rec.comm_rank, root=rec.root)
                sent, nbytes = sent + counts.sent, nbytes + counts.bytes_sent
            values = self.values(self.run, r)
            one_sent, one_bytes = _number(result[0], values), _number(result[1], values)
            if one_sent is None or one_bytes is None:
                return False
            want_sent, want_bytes = want_sent + sent, want_bytes + nbytes
            got_sent, got_bytes = got_sent + one_sent, got_bytes + one_bytes
        return (abs(got_sent - want_sent) <= 1e-6 * max(1.0, want_sent)
                and abs(got_bytes - want_bytes) <= bytes_tolerance * max(1.0, want_bytes))

    def _safe_total(self, ctx, unit, block_id) -> sp.Expr:
        try:
            return self.total(ctx, unit, block_id)
        except Unresolved:
            return self._measured_total(ctx, unit, block_id)

    # ---- measured values ----------------------------------------------------------------------
    def measured(self, ctx: ContextObservation, unit: UnitView, block_id: int, rank: int) -> int:
        block = unit.blocks[block_id]
        return ctx.counter(rank, block["slot"])

    def _measured_total(self, ctx, unit, block_id) -> sp.Expr:
        """A block's count as measured, averaged over ranks (the last resort)."""
        ranks = range(self.run.nranks)
        mean = sp.Rational(sum(self.measured(ctx, unit, block_id, r) for r in ranks), self.run.nranks)
        return mean

    def _check(self, ctx, unit, block_id, expr: sp.Expr) -> bool:
        """Whether ``expr`` reproduces the block's counter summed over the ranks of the run.

        The sum, not each rank: a count under a data-dependent conditional uses the true ratio
        averaged over ranks (the paper's assumption), which is exact for the sum only.
        """
        free = expr.free_symbols - {P, T, RANK, *self.size_symbols}
        if free:
            return False
        for run in [self.run]:
            predicted = measured = 0.0
            for rank in range(run.nranks):
                number = _number(expr, self.values(run, rank))
                if number is None:
                    return False
                predicted += number
                measured += self.measured(ctx, unit, block_id, rank)
            if abs(predicted - measured) > 1e-6 * max(1.0, abs(measured)):
                return False
        return True

    # ---- loops --------------------------------------------------------------------------------
    def _where(self, unit: UnitView, line: int) -> str:
        return f"{unit.data['source']}:{line}"

    def _decide_loop(self, ctx, unit: UnitView, loop: dict) -> None:
        key = (self._ids[id(ctx)], loop["id"])
        self._loop_mode[key] = None
        if loop["body_block"] is None:
            return
        reason = None
        bad = [f for f in loop["flags"] if f in ("var-modified", "goto", "collapsed")]
        if bad:
            reason = ", ".join(bad)
        else:
            try:
                self.trips(unit, loop, ctx)
                self._cache.clear()
                self._relaxed = False
                symbolic = self.total(ctx, unit, loop["body_block"])
                if self._check(ctx, unit, loop["body_block"], symbolic):
                    if self._relaxed:
                        self.fallbacks.append(Fallback(
                            self._where(unit, loop["line"]), "relaxed", "loop",
                            "a sum over its iterations has no closed form with floor, ceiling or ?:, so they were "
                            "replaced by their mean; the result reproduces the run but may be off by a fraction of "
                            "an iteration per entry at other sizes"))
                    return
                scale = self._scale(ctx, unit, loop["body_block"], symbolic)
                if scale is not None:
                    self._loop_scale[key] = scale
                    self._cache.clear()
                    why = ("a sum over its iterations has no closed form with floor, ceiling or ?:, so they "
                           "were relaxed" if self._relaxed else
                           "a data-dependent conditional on its path does not keep one true ratio")
                    self.fallbacks.append(Fallback(
                        self._where(unit, loop["line"]), "fit", "loop",
                        f"the symbolic trip count times {float(scale):.6g} reproduces the measured iterations ({why})"))
                    return
                reason = "its symbolic trip count does not reproduce the measured iterations"
            except Unresolved as exc:
                reason = f"bound not symbolic ({exc})"
        self._loop_mode[key] = self._fallback_trips(ctx, unit, loop, reason)
        self._cache.clear()

    def _scale(self, ctx, unit, block_id, expr: sp.Expr) -> sp.Expr | None:
        """measured / predicted (summed over ranks), when positive and the same (within 5 %) in
        every run that holds this context; None otherwise."""
        if expr.free_symbols - {P, T, RANK, *self.size_symbols}:
            return None
        ratios = []
        slot = unit.blocks[block_id]["slot"]
        for run, node in self._same_context(ctx):
            predicted = measured = 0.0
            for rank in range(run.nranks):
                number = _number(expr, self.values(run, rank))
                if number is None:
                    return None
                predicted += number
                measured += node.counter(rank, slot)
            if predicted <= 0 or measured <= 0:
                return None
            ratios.append((measured, measured / predicted))
        values = [ratio for _, ratio in ratios]
        if max(values) > (1 + FIT_TOLERANCE) * min(values):
            return None
        # the largest run's: an approximate (relaxed) sum and a drifting true ratio are both closest
        # to where the model is headed at the largest size measured
        return sp.nsimplify(max(ratios)[1], rational=True, tolerance=1e-12)

    def _fallback_trips(self, ctx, unit: UnitView, loop: dict, reason: str) -> sp.Expr:
        """Trips per entry fitted to the problem size (step 2), else the measured constant (step 3)."""
        where = self._where(unit, loop["line"])
        samples = []  # (symbol values, measured trips per entry) of every run holding this context
        for run, node in self._same_context(ctx):
            ranks = range(run.nranks)
            entries = sum(node.counter(r, loop["entry_slot"]) for r in ranks)
            iterations = sum(node.counter(r, unit.blocks[loop["body_block"]]["slot"]) for r in ranks)
            if entries:
                samples.append((self.values(run, 0), sp.Rational(iterations, entries)))
        if not samples:
            self.fallbacks.append(Fallback(where, "constant", "loop", f"{reason}; never entered in the run"))
            return sp.Integer(0)
        trips = samples[0][1]
        fitted, note = self._fit(samples)
        if fitted is not None:
            self.fallbacks.append(Fallback(where, "fit", "loop", f"{reason}; {trips} trips per entry = {fitted}{note}"))
            return fitted
        self.fallbacks.append(Fallback(where, "constant", "loop", f"{reason}; {trips} trips per entry"
                                       + ("" if len(samples) > 1 else " (give traces at two or more sizes to fit a form)")))
        return trips

    def _same_context(self, ctx) -> list[tuple[RunObservation, ContextObservation]]:
        """This context in the main run and in every extra run (matched by call path)."""
        found = [(self.run, ctx)]
        path = ctx.path()
        for run in self.extra_runs:
            for node in run.contexts():
                if node.path() == path:
                    found.append((run, node))
                    break
        return found

    def _forms(self) -> list[sp.Expr]:
        forms: list[sp.Expr] = []
        for n in self.size_symbols:
            log = sp.log(n, 2)
            forms += [n, sp.floor(n / P), n / P, n**2, n**2 / P, log, n * log, n * log / P, sp.sqrt(n),
                      n / log, n / (P * log)]
        return forms

    def _fit(self, samples: list[tuple[dict, sp.Rational]]) -> tuple[sp.Expr | None, str]:
        """Choose c * form for the measured trips per entry.

        One run: the paper's rule, trips an integer multiple of N (or N/P, N^2, N^2/P).  Several
        runs at different sizes: the form whose one constant reproduces every run best, kept when
        it is within 5 % of each.
        """
        values, trips = samples[0]
        if any(t <= 0 for _, t in samples):
            return None, ""
        if len(samples) == 1:
            for form in self._forms()[:5 * max(1, len(self.size_symbols))]:
                if form.func in (sp.log, sp.Mul) and form.has(sp.log):
                    continue
                base = form.subs(values)
                if base.is_number and base not in (0, 1):
                    multiple = trips / base
                    if multiple.is_integer and multiple > 0:
                        return multiple * form, ""
            return None, ""
        candidates = []  # (worst relative error, constant, form)
        for form in [sp.Integer(1), *self._forms()]:
            bases = [float(form.subs(v)) for v, _ in samples]
            if any(b <= 0 for b in bases):
                continue
            c = float(trips) / bases[0]
            error = max(abs(c * b - float(t)) / float(t) for b, (_, t) in zip(bases, samples, strict=True))
            candidates.append((error, sp.nsimplify(c, rational=True, tolerance=1e-9), form))
        if not candidates:
            return None, ""
        best_error = min(c[0] for c in candidates)
        if best_error > FIT_TOLERANCE:
            return None, ""
        # Forms the runs cannot tell apart (n / 2 and n / P when every run had P = 2): the paper's
        # rule, an integer multiple of a form, then the simplest constant, then the list's order.
        tied = [c for c in candidates if c[0] <= best_error + 1e-9]
        _, constant, form = min(tied, key=lambda c: (not c[1].is_integer, c[1].q if c[1].is_Rational else 10**9))
        return constant * form, f" (fitted on {len(samples)} runs, worst error {best_error:.1%})"

    def trips(self, unit: UnitView, loop: dict, ctx: ContextObservation | None = None
              ) -> tuple[sp.Symbol, sp.Expr, sp.Expr, sp.Expr]:
        """(variable, first value, stride, number of iterations) of a loop with a symbolic form.

        ``stride`` is an additive step, or ``("*", k)`` / ``("/", k)`` for loops that multiply or
        divide their variable (log trip counts).  A bound or first value that does not resolve
        (it is data: read from an array, received by MPI) is, in context ``ctx``, the form of the
        problem size its values recorded at the loop's entries fit (:meth:`recorded_value`).
        """
        if loop["var"] is None or loop["bound"] is None or loop["kind"] != "for" or loop["init"] is None:
            raise Unresolved("not a counted for loop")
        if loop["stride"] is None:
            raise Unresolved("no recognised increment")
        resolver = Resolver(unit, loop["function"], loop["parent"], loop["line"], self.param_symbols)
        first = self._loop_value(ctx, unit, loop, "init", resolver)
        bound = self._loop_value(ctx, unit, loop, "bound", resolver)
        var = loop_symbol(unit.key, loop["id"], loop["var"])
        op = loop["op"]
        text = loop["stride"]
        if text.startswith(("*=", "/=", "<<=", ">>=")):
            kind, amount = text[:text.index("=") + 1], text[text.index("=") + 1:]
            factor = to_sympy(amount, resolver)
            if kind in ("<<=", ">>="):
                factor = 2**factor
            if not (factor.is_number and factor > 1):
                raise Unresolved(f"multiplicative step {text}")
            if kind in ("*=", "<<=") and op in ("<", "<="):
                ratio = bound / first
                count = sp.ceiling(sp.log(ratio, factor)) if op == "<" else sp.floor(sp.log(ratio, factor)) + 1
                return var, first, ("*", factor), count
            if kind in ("/=", ">>=") and op in (">", ">=", "!=") and bound in (0, 1):
                count = sp.floor(sp.log(first, factor)) + (1 if (op == ">" or bound == 0) else 0)
                return var, first, ("/", factor), count
            raise Unresolved(f"step {text} with condition {op} {loop['bound']}")
        stride = to_sympy(text, resolver)
        sign = self._sign(stride)
        if sign > 0:
            if op == "<":
                count = sp.ceiling((bound - first) / stride) if stride != 1 else bound - first
            elif op == "<=":
                count = sp.floor((bound - first) / stride) + 1 if stride != 1 else bound - first + 1
            elif op == "!=":
                count = (bound - first) / stride
            else:
                raise Unresolved(f"condition {op} with a positive stride")
        elif sign < 0:
            step = -stride
            if op == ">":
                count = sp.ceiling((first - bound) / step) if step != 1 else first - bound
            elif op == ">=":
                count = sp.floor((first - bound) / step) + 1 if step != 1 else first - bound + 1
            elif op == "!=":
                count = (first - bound) / step
            else:
                raise Unresolved(f"condition {op} with a negative stride")
        else:
            raise Unresolved(f"stride {stride} of unknown sign")
        return var, first, stride, count

    def _loop_value(self, ctx, unit: UnitView, loop: dict, which: str, resolver: Resolver) -> sp.Expr:
        """A loop's ``init`` or ``bound`` expression: symbolic, else its recorded values fitted."""
        try:
            return to_sympy(loop[which], resolver)
        except Unresolved as exc:
            slot = (loop.get("values") or {}).get(which)
            if ctx is None or slot is None:
                raise
            fitted = self.recorded_value(ctx, unit, slot, self._where(unit, loop["line"]),
                                         f"{'bound' if which == 'bound' else 'first value'} {loop[which]!r}", exc)
            if fitted is None:
                raise
            return fitted

    def recorded_value(self, ctx, unit: UnitView, slot: int, where: str, what: str,
                       reason: Exception) -> sp.Expr | None:
        """The values of a value slot (recorded at loop entries) as c * a form of the problem size.

        A value that is data, not a function of the parameters in the source (partition sizes
        received by MPI_Alltoall, a count read from an array), is fitted like a trip count (the
        paper's step 2): its mean over the entries of all ranks, in every run that holds
        this context (weighted by entries).  The fit is named in the model's fallbacks; None when no
        form fits.
        """
        key = (self._ids[id(ctx)], unit.key, slot)
        if key not in self._recorded:
            samples = []
            for run, node in self._same_context(ctx):
                stats = [by_slot[slot] for by_slot in node.values.values()
                         if slot in by_slot and by_slot[slot].sum is not None and by_slot[slot].n]
                if stats:  # the mean over every entry of every rank: what total iterations need
                    samples.append((self.values(run, 0), _rational(sum(s.sum for s in stats) / sum(s.n for s in stats))))
            fitted, note = self._fit(samples) if samples else (None, "")
            if fitted is not None:
                self.fallbacks.append(Fallback(where, "fit", "value", f"{what} is data ({reason}); its recorded "
                                               f"values {samples[0][1]} = {fitted}{note}"))
            self._recorded[key] = fitted
        return self._recorded[key]

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

    def _sum_over(self, ctx, unit: UnitView, loop: dict, expr: sp.Expr) -> sp.Expr:
        key = (self._ids[id(ctx)], loop["id"])
        var = loop_symbol(unit.key, loop["id"], loop["var"] or "_")
        fallback = self._loop_mode.get(key)
        if fallback is not None:
            if var in expr.free_symbols:
                raise Unresolved(f"a count depends on the variable of the fitted loop at line {loop['line']}")
            return expr * fallback
        var, first, stride, count = self.trips(unit, loop, ctx)
        scale = self._loop_scale.get(key, 1)
        if var not in expr.free_symbols:
            return scale * expr * count
        t = sp.Symbol(f"_t{loop['id']}", integer=True, nonnegative=True)
        if isinstance(stride, tuple):  # var = first * k**t (or first / k**t)
            kind, factor = stride
            value = first * factor**t if kind == "*" else first / factor**t
            return scale * self._summation(expr.subs(var, value), (t, 0, count - 1), loop)
        if stride == 1:
            return scale * self._summation(expr, (var, first, first + count - 1), loop)
        return scale * self._summation(expr.subs(var, first + stride * t), (t, 0, count - 1), loop)

    def _summation(self, expr: sp.Expr, limits: tuple, loop: dict) -> sp.Expr:
        result, relaxed = _summation(expr, limits, loop)
        self._relaxed = self._relaxed or relaxed
        return result

    # ---- conditionals -------------------------------------------------------------------------
    def _decide_cond(self, ctx, unit: UnitView, cond: dict) -> None:
        key = (self._ids[id(ctx)], cond["id"])
        self._ratio.pop(key, None)
        block = unit.blocks[cond["then_block"]] if cond["then_block"] is not None else None
        if block is None:
            return
        try:
            resolver = Resolver(unit, cond["function"], block["loop"], cond["line"], self.param_symbols)
            condition = to_sympy(cond["text"], resolver)
            if not isinstance(condition, (sp.logic.boolalg.Boolean, sp.core.relational.Relational)):
                condition = sp.Ne(condition, 0)
            loop_vars = condition.free_symbols & LOOP_SYMBOLS
            if loop_vars:
                raise Unresolved("depends on loop variables")
            self._ratio[key] = sp.Piecewise((1, condition), (0, True))
            self._cache.clear()
            if self._check(ctx, unit, block["id"], self.total(ctx, unit, block["id"])):
                return
            reason = "the symbolic condition does not reproduce the measured branch counts"
        except Unresolved as exc:
            reason = f"condition is data-dependent ({exc})"
        ranks = range(self.run.nranks)
        evaluated = sum(self.measured(ctx, unit, cond["block"], r) for r in ranks) if cond["block"] is not None else 0
        taken = sum(self.measured(ctx, unit, block["id"], r) for r in ranks)
        self._ratio[key] = sp.Rational(taken, evaluated) if evaluated else sp.Integer(0)
        self._cache.clear()
        if "data-dependent" not in reason:
            self.fallbacks.append(Fallback(self._where(unit, cond["line"]), "measured-ratio", "conditional", reason))

    def _ratio_of(self, ctx, unit: UnitView, block: dict, negate: bool) -> sp.Expr:
        kind = "then_block" if not negate else "else_block"
        for cond in unit.data["conds"]:
            if cond.get(kind) == block["id"]:
                ratio = self._ratio.get((self._ids[id(ctx)], cond["id"]))
                if ratio is None:
                    self._decide_cond(ctx, unit, cond)
                    ratio = self._ratio[(self._ids[id(ctx)], cond["id"])]
                return 1 - ratio if negate else ratio
        raise Unresolved(f"no conditional for block {block['id']}")

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
        for cond in unit.data["conds"]:
            if cond.get("then_block") == block_id and cond["kind"] == "if" and not cond.get("select"):
                ratio = self._ratio.get((self._ids[id(ctx)], cond["id"]))
                if isinstance(ratio, sp.Rational) and 0 < ratio < 1:
                    rate = sp.Min(ratio, 1 - ratio) / ratio
                    if cond.get("predictor") is not None:
                        ranks = range(self.run.nranks)
                        taken = sum(self.measured(ctx, unit, block_id, r) for r in ranks)
                        missed = sum(ctx.counter(r, cond["predictor"]) for r in ranks)
                        if taken:
                            rate = sp.Min(rate, sp.Rational(missed, taken))
                    return rate
        return sp.Integer(0)

    def loop_mispredicted(self, ctx, loop: dict) -> sp.Expr:
        """Mispredicted branches of a loop's condition per entry, for a loop whose trip count is data
        (a fit or a constant in place of its bounds, ``while (tries < 4 && kind(...) != want)``),
        else 0: as the run's branch predictor on the condition missed (descriptor field
        ``predictor``), per entry, taken to hold at other sizes; without it, 1 (the exit)."""
        key = (self._ids[id(ctx)], loop["id"])
        if self._loop_mode.get(key) is None:
            return sp.Integer(0)
        if loop.get("predictor") is not None and loop.get("entry_slot") is not None:
            ranks = range(self.run.nranks)
            entries = sum(ctx.counter(r, loop["entry_slot"]) for r in ranks)
            if entries:
                return sp.Rational(sum(ctx.counter(r, loop["predictor"]) for r in ranks), entries)
        return sp.Integer(1)

    # ---- counts -------------------------------------------------------------------------------
    def local(self, ctx, unit: UnitView, block_id: int) -> sp.Expr:
        """Executions of a block per iteration of its innermost loop (per invocation outside loops)."""
        block = unit.blocks[block_id]
        kind = block["kind"]
        if kind in ("entry", "body"):
            return sp.Integer(1)
        anchor = block["anchor"]
        if anchor is None:
            return self._measured_local(ctx, unit, block)
        base = self.local(ctx, unit, anchor)
        if kind == "then":
            return base * self._ratio_of(ctx, unit, block, negate=False)
        if kind == "else":
            return base * self._ratio_of(ctx, unit, block, negate=True)
        if kind == "region":
            return base * T
        if kind == "section":  # parallel sections: once per entry of the construct
            return base
        if kind == "team-section":  # sections run by a team (lexically or orphaned): once per team
            return base / T
        if kind == "case":
            ranks = range(self.run.nranks)
            mine = sum(self.measured(ctx, unit, block_id, r) for r in ranks)
            theirs = sum(self.measured(ctx, unit, anchor, r) for r in ranks)
            return base * (sp.Rational(mine, theirs) if theirs else 0)
        return base * self._after_ratio(ctx, unit, block)  # after a control statement

    def _after_ratio(self, ctx, unit: UnitView, block: dict) -> sp.Expr:
        """Executions of a block after a control statement per execution of the block before it.

        1 unless the statement can leave early (a ``return``, ``break``, ``continue`` or ``goto``
        inside it), which the run shows as fewer executions after than before.  Then: for an
        ``if`` whose branch always leaves, the share of the condition that is false (symbolic
        when the condition is, ``if (rank == 0) return;``); otherwise the ratio the run measured
        (the paper's constant true ratio).
        """
        key = (self._ids[id(ctx)], block["id"])
        if key not in self._after:
            ranks = range(self.run.nranks)
            after = sum(self.measured(ctx, unit, block["id"], r) for r in ranks)
            before = sum(self.measured(ctx, unit, block["anchor"], r) for r in ranks)
            decided: sp.Expr | dict = sp.Integer(1)
            if after != before:
                decided = sp.Rational(after, before) if before else sp.Integer(0)
                cond = self._preceding_if(unit, block)
                if cond is not None:
                    then = sum(self.measured(ctx, unit, cond["then_block"], r) for r in ranks)
                    if before - after == then:  # the then-branch always leaves
                        decided = cond
            self._after[key] = decided
        decided = self._after[key]
        if isinstance(decided, dict):  # the condition's ratio may still be decided, so ask each time
            return 1 - self._ratio_of(ctx, unit, unit.blocks[decided["then_block"]], negate=False)
        return decided

    def _preceding_if(self, unit: UnitView, block: dict) -> dict | None:
        """The ``if`` without ``else`` that ends right before an ``after`` block, if that is what it follows."""
        best = None
        for cond in unit.data["conds"]:
            if (cond["function"] != block["function"] or cond["kind"] != "if" or cond["then_block"] is None
                    or cond.get("else_block") is not None):
                continue
            if unit.blocks[cond["then_block"]]["anchor"] != block["anchor"] or cond["line"] > block["line"]:
                continue
            if best is None or cond["line"] > best["line"]:
                best = cond
        if best is None:
            return None
        # another control statement (loop, switch, region) between the if and the block?
        for other in unit.blocks:
            if (other is not block and other["function"] == block["function"] and other["kind"] == "after"
                    and other["anchor"] == block["anchor"] and best["line"] <= other["line"] <= block["line"]):
                return None
        return best

    def _measured_local(self, ctx, unit, block) -> sp.Expr:
        """Blocks after a jump or at a label: measured per execution of their enclosing loop body."""
        ranks = range(self.run.nranks)
        mine = sum(self.measured(ctx, unit, block["id"], r) for r in ranks)
        if block["loop"] is not None:
            per = sum(self.measured(ctx, unit, unit.loops[block["loop"]]["body_block"], r) for r in ranks)
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
        loop_id = unit.blocks[block_id]["loop"]
        while loop_id is not None:
            loop = unit.loops[loop_id]
            expr = self._sum_over(ctx, unit, loop, expr)
            expr = expr * self.local(ctx, unit, loop["block"])
            loop_id = loop["parent"]
        result = self.invocations(ctx, expr)
        if weight is None:
            self._cache[key] = result
        return result

    def _call_ratio(self, ctx: ContextObservation, punit: UnitView, call: dict) -> sp.Expr:
        """Calls per execution of where the call stands (its block, or for a call in a loop header
        that loop's entries and/or iterations, :func:`_header_parts`): 1, unless the run says
        otherwise (a call in the right operand of && or ||, or in a ?: branch, runs only
        sometimes; a loop left by break skips its step)."""
        key = ("call", self._ids[id(ctx)])
        if key in self._ratio:
            return self._ratio[key]
        parent = ctx.parent
        ranks = range(self.run.nranks)
        calls = sum(ctx.calls.get(r, 0) for r in ranks)
        header = call.get("header")
        if header is None:
            slots = [punit.blocks[call["block"]]["slot"]]
        else:
            loop = punit.loops[header["loop"]]
            per_entry, per_iteration = _header_parts(header, loop)
            slots = ([loop["entry_slot"]] if per_entry and loop.get("entry_slot") is not None else []) + (
                [punit.blocks[loop["body_block"]]["slot"]] if per_iteration and loop["body_block"] is not None else [])
        executions = sum(parent.counter(r, slot) for slot in slots for r in ranks)
        ratio = sp.Integer(1)
        if executions and calls != executions:
            ratio = sp.Rational(calls, executions)
            self.fallbacks.append(Fallback(self._where(punit, call["line"]), "measured-ratio", "call",
                                           _call_ratio_note(call, ratio)))
        self._ratio[key] = ratio
        return ratio

    def _data_argument(self, ctx: ContextObservation, callee: dict, name: str, arg: str,
                       reason: Unresolved) -> sp.Expr:
        """A call argument that is data: the values its parameter took, where the callee recorded
        them (a loop bounded by the parameter, ``for (w = 1; w < count; w *= 2)``), fitted."""
        unit = self.units[ctx.unit]
        fn = ctx.function
        for loop in unit.loops:
            if loop["function"] != fn:
                continue
            for which in ("bound", "init"):
                slot = (loop.get("values") or {}).get(which)
                if slot is not None and (loop[which] or "").strip() == name:
                    fitted = self.recorded_value(ctx, unit, slot, self._where(unit, loop["line"]),
                                                 f"argument {arg!r} of {callee['name']} ({name})", reason)
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
        if ctx.site is None or ctx.site < 0 or ctx.site >= len(punit.data["calls"]):
            raise Unresolved(f"'{callee['name']}' was called from an unknown call site")
        call = punit.data["calls"][ctx.site]
        ratio = self._call_ratio(ctx, punit, call)
        header = call.get("header")
        if header is None:
            expr = self._at_site(ctx, callee, call, per_invocation, call["block"], call["loop"], ratio)
        else:  # a call in a loop's header: once per entry (init, and the first test of a for or
            # while condition) and once per iteration (the other tests, the step)
            loop = punit.loops[header["loop"]]
            per_entry, per_iteration = _header_parts(header, loop)
            expr = sp.Integer(0)
            if per_entry:
                expr += self._at_site(ctx, callee, call, per_invocation, call["block"], call["loop"], ratio)
            if per_iteration:
                expr += self._at_site(ctx, callee, call, per_invocation, loop["body_block"], loop["id"], ratio)
        return self.invocations(parent, expr)

    def _at_site(self, ctx: ContextObservation, callee: dict, call: dict, per_invocation: sp.Expr,
                 block: int, loop_id: int | None, ratio) -> sp.Expr:
        """``per_invocation`` with the call's arguments for the callee's parameters, times the
        executions of ``block`` (calls ``ratio`` per execution), summed over the loops around it."""
        parent = ctx.parent
        punit = self.units[parent.unit]
        resolver = Resolver(punit, call["function"], loop_id, call["line"], self.param_symbols)
        subs = {}
        for name, arg in zip(callee["params"], call["args"], strict=False):
            symbol = formal_symbol(callee["name"], name)
            if symbol in per_invocation.free_symbols:
                try:
                    subs[symbol] = to_sympy(arg, resolver)
                except Unresolved as exc:
                    subs[symbol] = self._data_argument(ctx, callee, name, arg, exc)
        expr = per_invocation.subs(subs) * self.local(parent, punit, block) * ratio
        while loop_id is not None:
            loop = punit.loops[loop_id]
            expr = self._sum_over(parent, punit, loop, expr)
            expr = expr * self.local(parent, punit, loop["block"])
            loop_id = loop["parent"]
        return expr


def _rational(mean: float | Fraction) -> sp.Rational:
    """A measured mean as a rational with a denominator of at most 10^6 (what ``_fit`` takes)."""
    fraction = Fraction(mean).limit_denominator(10**6)
    return sp.Rational(fraction.numerator, fraction.denominator)


def _summation(expr: sp.Expr, limits: tuple, loop: dict) -> tuple[sp.Expr, bool]:
    """The sum of ``expr`` over a loop's iteration space, in closed form, and whether it was relaxed.

    When sympy finds none (``j < i / 2``, ceilings of a halving width, a ``?:`` clamp such as
    ``hi = lo + 2 * w < n ? lo + 2 * w : n``), the sum of the relaxed summand (:func:`_relax`) is
    taken.  That sum is close, not always exact: the caller checks it against the run, and a loop
    that does not reproduce it keeps the form times the measured factor (``_scale``) or falls back
    to a fit.  No closed form even then: :class:`Unresolved`.
    """
    result = sp.summation(expr, limits)
    if not result.has(sp.Sum):
        return result, False
    relaxed = _relax(expr, limits[0])
    if relaxed != expr:
        result = sp.summation(relaxed, limits)
        if not result.has(sp.Sum):
            return result, True
    raise Unresolved(f"no closed form for the sum over the loop at line {loop['line']}")


def _relax(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """The summand with its floor and ceiling terms in the summation variable replaced by their mean
    value, and a ``?:`` on the variable by its first branch.

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

    relaxed = expr.replace(lambda e: isinstance(e, (sp.floor, sp.ceiling)) and e.has(var), relax_one)
    return relaxed.replace(
        lambda e: isinstance(e, sp.Piecewise) and var in e.args[0].cond.free_symbols,
        lambda e: e.args[0].expr)


def _header_parts(header: dict, loop: dict) -> tuple[bool, bool]:
    """Whether a call in a loop header runs once per entry (init; the first test of a for or while
    condition) and whether once per iteration (the other tests; the step; a do-while's tests)."""
    part = header["part"]
    return part == "init" or (part == "cond" and loop["kind"] != "do"), part in ("cond", "step")


def _call_ratio_note(call: dict, ratio: sp.Expr) -> str:
    if call.get("header"):
        return (f"call of {call['callee']} in a loop {call['header']['part']} runs {ratio} times per test "
                "(a short-circuit operand, or the loop left early): measured ratio")
    return (f"call of {call['callee']} runs {ratio} times per execution of its block "
            "(a short-circuit or conditional operand): measured ratio")


def _number(expr: sp.Expr, values: dict) -> float | None:
    """Numeric value of an expression (implemented functions included), or None."""
    try:
        fn = sp.lambdify(list(values), expr, modules="numpy")
        return float(fn(*values.values()))
    except (TypeError, ValueError, NameError, ZeroDivisionError):
        return None


def _mean_calls(ctx: ContextObservation, nranks: int) -> sp.Expr:
    calls = [ctx.calls.get(r, 0) for r in range(nranks)]
    if len(set(calls)) == 1:
        return sp.Integer(calls[0])
    return sp.Rational(sum(calls), nranks)
