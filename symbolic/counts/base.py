"""The state a count model keeps, and what it measures and fits (symbolic stage, paper 3.1).

Part of perfeq.symbolic.counts: the base of :class:`~perfeq.symbolic.counts.core.CountModel`.
It holds the run(s), the units and the decisions made so far, the symbol values of a run, the
measured counts of a block, the check of a symbolic count against them, and the fits of measured
values to a form of the problem size (the paper's step 2: "an integer multiple").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np
import sympy as sp

from perfeq.instrument.descriptors import MPI_SOURCES, CondDescriptor, FunctionDescriptor
from perfeq.symbolic.observe import ContextObservation, RunObservation
from perfeq.symbolic.resolve import UnitView, parameter_symbol
from perfeq.symbolic.symbols import RANK, P, T, grid3, grid_hi, grid_lo, lambdify_numpy

# A fitted form (of trips, values, array counts) or a measured factor is kept when it reproduces
# every run within this (relative); the bytes of a fitted array count are checked against it too.
FIT_TOLERANCE = 0.05
MAX_EXPONENT = 30  # a parameter this small (and whole) may be the exponent of a size: 2^n, 4^n, 8^n
# a one-constant form closer than this to every run is kept: no two-term fit is tried (graph500's
# vertices per rank, 1025 2^SCALE / (1024 P) to 1e-5, came out a SCALE^3 / P - b SCALE^2 / P)
TWO_TERMS_FLOOR = 0.002
PRODUCT_SYMBOLS = 4  # the most sizes varied over the runs whose pairwise products are fit forms
OFFSET_SHARE = 0.25  # an offset found from two sizes is at most this share of the form's term


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


class CountBase:
    """The state of a count model and its measured side; the count rules are in the mixins."""

    def __init__(self, run: RunObservation, extra_runs: list[RunObservation] | None = None):
        self.run = run
        self.extra_runs = extra_runs or []
        self.units = {path: UnitView(data, key=f"u{i}_" if i else "") for i, (path, data) in
                      enumerate(sorted(run.units.items()))}
        for unit in self.units.values():
            unit.params = [p for p in unit.params if not self._constant_macro(p)]
            unit.peers = list(self.units.values())
        self.fallbacks: list[Fallback] = []
        self.fitted_recursion: set[str] = set()  # recursive functions whose calls per entry were fitted
        self.param_symbols = self._param_symbols()
        self._loop_mode: dict[tuple[int, int], sp.Expr | None] = {}  # (ctx, loop) -> fallback trips
        self._loop_scale: dict[tuple[int, int], sp.Expr] = {}  # (ctx, loop) -> fitted factor
        self._ratio: dict[tuple[int, int], sp.Expr] = {}  # (ctx, cond) -> ratio
        self._polling_ids: dict[int, set[int]] = {}  # id(unit view) -> its polling conditionals
        self._after: dict[tuple[int, int], sp.Expr | CondDescriptor] = {}  # (ctx, after block) -> ratio or the if
        self._recorded: dict[tuple, sp.Expr | None] = {}  # (ctx, unit, value slot) -> fitted values
        # counts of cells fitted so far (floor(c x) + j): per-cell densities n / cells are fit forms after them
        self._cell_forms: dict[sp.Expr, None] = {}
        self._relaxed = False  # a sum of the loop being decided was relaxed (see _summation)
        self._cache: dict[tuple[int, int], sp.Expr] = {}
        self._ids: dict[int, int] = {}

    # ---- parameters -------------------------------------------------------------------------
    def _param_symbols(self) -> dict[str, sp.Expr]:
        symbols: dict[str, sp.Expr] = {}
        # the program's own sizes first: a local of another function that MPI_Comm_size sets does
        # not make every variable of that name the process count (EPCC adept-kernel-mpi's size =
        # atoi(optarg) in main, int size; MPI_Comm_size(..., &size) in a benchmark never called);
        # the resolver gives P and the rank where the function's own candidate is MPI's
        candidates = [p for unit in self.units.values() for p in unit.params]
        for p in sorted(candidates, key=lambda p: p.source in MPI_SOURCES):
            symbols.setdefault(p.variable, parameter_symbol(p))
        grids = {p.variable: grid_sides(p) for unit in self.units.values() for p in unit.params
                 if p.source == "procgrid"}
        for variable in list(symbols):  # parallel->rank, grid.nprocs: the rank and P, whatever set them
            found = self._rank_or_size(variable, grids.get(variable, ()))
            if found is None and variable in grids:
                del symbols[variable]  # no side of a grid: the resolver finds it otherwise, or not
            else:
                symbols[variable] = found or symbols[variable]
        return symbols

    def _constant_macro(self, param) -> bool:
        """A ``#define`` of the program's (not a -D of the compile line, not named by --param) with
        one value in every run: a constant, not a parameter (its value is used where it is named)."""
        if param.source != "macro":
            return False
        return len({r.params.get(param.variable) for r in (self.run, *self.extra_runs)}) == 1

    def _rank_or_size(self, variable: str, sides: tuple = ()) -> sp.Expr | None:
        """RANK for a candidate whose value is the rank on every rank of every run (one run on
        several processes tells), P for one that is the process count in runs on different numbers
        of processes (steps = 2 on 2 processes is not P); else None.  ``sides``: what a side of a
        process grid may be (set through its address by a call that takes the process count,
        ``factor(P, &px, &py)``: :func:`grid_sides`), the first that it is in every run, before P."""
        runs = [r for r in (self.run, *self.extra_runs) if variable in r.rank_params]
        if not runs or all(r.nranks < 2 for r in runs):
            return None
        if all(r.rank_params[variable] == list(range(r.nranks)) for r in runs):
            return RANK
        if len({r.nranks for r in runs}) < 2:
            return None
        for candidate in (*sides, P):
            if all(r.rank_params[variable] == [int(candidate.subs(P, r.nranks))] * r.nranks for r in runs):
                return candidate
        return None

    def values(self, run: RunObservation, rank: int) -> dict[sp.Symbol, float]:
        """Symbol values of a run for one rank."""
        subs: dict[sp.Symbol, float] = {P: run.nranks, T: run.threads, RANK: rank}
        for variable, symbol in self.param_symbols.items():
            if isinstance(symbol, sp.Symbol) and symbol not in (P, T, RANK) and variable in run.params:
                subs[symbol] = run.params[variable]
        return subs

    @property
    def size_symbols(self) -> list[sp.Symbol]:
        found = {s for s in self.param_symbols.values() if isinstance(s, sp.Symbol) and s not in (P, T, RANK)}
        return sorted(found, key=lambda s: s.name)

    # ---- counts (see core.py) -------------------------------------------------------------------
    def total(self, ctx, unit: UnitView, block_id: int, weight: sp.Expr | None = None) -> sp.Expr:
        raise NotImplementedError  # CountModel.total

    def local(self, ctx, unit: UnitView, block_id: int) -> sp.Expr:
        raise NotImplementedError  # CountModel.local

    # ---- measured values ----------------------------------------------------------------------
    def measured(self, ctx: ContextObservation, unit: UnitView, block_id: int, rank: int) -> int:
        block = unit.blocks[block_id]
        return ctx.counter(rank, block.slot)

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
        predicted = self.summed(expr, self.run)
        if predicted is None:
            return False
        measured = 0.0
        for rank in range(self.run.nranks):
            measured += self.measured(ctx, unit, block_id, rank)
        return abs(predicted - measured) <= 1e-6 * max(1.0, abs(measured))

    def summed(self, expr: sp.Expr, run: RunObservation) -> float | None:
        """``expr`` evaluated at every rank of ``run`` and summed; None where it has no number."""
        predicted = 0.0
        for rank in range(run.nranks):
            number = _number(expr, self.values(run, rank))
            if number is None:
                return None
            predicted += number
        return predicted

    def _where(self, unit: UnitView, what) -> str:
        """file:line of a descriptor (a loop, call site, condition: its ``function``'s file; or a
        function): the unit's source, or the .c file it includes that holds the function."""
        function = what if isinstance(what, FunctionDescriptor) else unit.functions[what.function]
        return f"{function.file or unit.data.source}:{what.line}"

    def _same_context(self, ctx) -> list[tuple[RunObservation, ContextObservation]]:
        """This context in the main run and in every extra run (matched by call path)."""
        found = [(self.run, ctx)]
        path = ctx.path()
        for run, by_path in zip(self.extra_runs, self._contexts_by_path, strict=True):
            if path in by_path:
                found.append((run, by_path[path]))
        return found

    @cached_property
    def _contexts_by_path(self) -> list[dict[tuple, ContextObservation]]:
        """Each extra run's contexts by call path (the first in its order, where two share one)."""
        index = []
        for run in self.extra_runs:
            by_path: dict[tuple, ContextObservation] = {}
            for node in run.contexts():
                by_path.setdefault(node.path(), node)
            index.append(by_path)
        return index

    def _totals_per_rank(self, ctx, count) -> list[tuple[int, dict, sp.Rational]]:
        """(P, symbol values, ``count(node)`` per rank) of the context in every training run, 0 in a
        run that never entered it (a polling function's context, observe.gather_polling: a run
        without it received nothing)."""
        path = ctx.path()
        found = []
        for run, by_path in ((self.run, {path: ctx}), *zip(self.extra_runs, self._contexts_by_path, strict=True)):
            node = by_path.get(path)
            found.append((run.nranks, self.values(run, 0),
                          sp.Rational(count(node), run.nranks) if node is not None else sp.Integer(0)))
        return found

    def _fit_totals(self, samples: list[tuple[int, dict, sp.Rational]]) -> tuple[sp.Expr, str]:
        """A count per rank over the whole run fitted to the training runs' (:meth:`_totals_per_rank`):
        0 at the process counts where every run counted 0 (one process receives no message) and
        elsewhere a form of the size (:meth:`_fit`), else the nearest (:meth:`_nearest_form`), else
        the runs' mean, said in the note."""
        if not any(count for _, _, count in samples):
            return sp.Integer(0), " (0 in every run)"
        never = never_at((procs, count) for procs, _, count in samples)
        held = [(values, count) for procs, values, count in samples if procs not in never]
        fitted, note = self._fit(held) if all(count > 0 for _, count in held) else (None, "")
        if fitted is None:
            fitted, note = self._nearest_form(held, baseline=math.inf)
        if fitted is None:
            fitted = sp.Rational(sum(count for _, count in held), len(held))
            note = " (the runs' mean: no form of the size fits them)"
        if never:
            fitted = zero_at(never, fitted)
            note += f"; 0 on P = {', '.join(map(str, sorted(never)))}, where every run counted none"
        return fitted, note

    @cached_property
    def fit_symbols(self) -> list[sp.Symbol]:
        """The size symbols a fit may use: those whose value differs between the runs (a candidate
        the same in every run cannot be told from a constant), or all of them with one size."""
        varying = [s for s in self.size_symbols if len({v.get(s) for v in self._training_values}) > 1]
        return varying or self.size_symbols

    def _forms(self) -> list[sp.Expr]:
        forms: list[sp.Expr] = []
        for n in self.fit_symbols:
            log = sp.log(n, 2)
            forms += [n, sp.floor(n / P), n / P, n**2, n**2 / P, log, n * log, n * log / P, sp.sqrt(n),
                      n / log, n / (P * log), n**3, n**3 / P]  # (a cube of side n: AMGmk's nx * ny * nz rows)
            if self.procs_differ:  # each rank sorts its n / P keys (qsort's comparator calls)
                forms.append(n / P * sp.log(n / P, 2))
            if self.procs_vary:  # a master and P - 1 workers (LLNL's mpi_mm: rows = n / (P - 1) each)
                forms += [sp.floor(n / (P - 1)), n / (P - 1), n**2 / (P - 1)]
        for n in self.exponent_symbols:  # a size given by its logarithm (NPB MG's lt, HPGMG's log2 box)
            forms += [2**n, 2**n / P, 4**n, 4**n / P, 8**n, 8**n / P]
            # a sort of 2^n keys (n 2^n comparisons: a bitonic sort's local qsort of 1 << q keys)
            forms += [n * 2**n, n * 2**n / P]
        for cell in self._cell_forms:  # what a cell holds: atoms per link cell, n / P over the cells
            forms += [n / cell for n in self.fit_symbols if n in cell.free_symbols]
            forms += [n / (P * cell) for n in self.fit_symbols if n in cell.free_symbols]
        if self.threads_vary:  # a share per thread the program computes itself (start[tid], end[tid])
            for n in self.fit_symbols:
                forms += [n / T, sp.floor(n / T), n / (P * T), n**2 / T]
            forms.append(1 / T)  # a fixed number of parts shared out (LLNL CLOMP's nearbyint(tid * parts / nt))
        if self.procs_differ:  # one per process (the sum of a scatterv's counts[], 1 for each rank)
            forms.append(P)
        return forms + self._product_forms()

    def _term_pairs(self, bases_of: dict[sp.Expr, list[float | None]]) -> dict[tuple[sp.Expr, sp.Expr], tuple]:
        """The leading and lower terms a two-term fit may take (:func:`_two_terms`), per size: n log n
        with n (a comparison sort's n log2 n - 1.26 n), n^2 with n or n log n, n^3 with n^2, n 2^n
        with 2^n for a size given by its logarithm, and each over P; with the values of both in every
        run, from ``bases_of``."""
        terms = [(lead, lower) for n in self.fit_symbols
                 for lead, lower in ((n * sp.log(n, 2), n), (n**2, n), (n**2, n * sp.log(n, 2)), (n**3, n**2))]
        terms += [(n * 2**n, 2**n) for n in self.exponent_symbols]  # 2^n keys sorted: n 2^n and 2^n
        pairs = {}
        for lead, lower in terms:
            for over in (1, P):
                first, second = lead / over, lower / over
                if first in bases_of and second in bases_of:
                    pairs[(first, second)] = (bases_of[first], bases_of[second])
        return pairs

    def _product_forms(self) -> list[sp.Expr]:
        """Products of two sizes the runs vary (a worker's rows x the columns it sends back: LLNL's
        mpi_mm sends rows * NCB doubles with rows received from the master), last in the list; with
        at most :data:`PRODUCT_SYMBOLS` sizes varied (pairs grow quadratically)."""
        symbols = self.fit_symbols
        if len(symbols) < 2 or len(symbols) > PRODUCT_SYMBOLS:
            return []
        forms = []
        for i, n in enumerate(symbols):
            for m in symbols[i + 1:]:
                forms += [n * m, n * m / P] + ([n * m / (P - 1)] if self.procs_vary else [])
        return forms

    @cached_property
    def procs_differ(self) -> bool:
        """Whether the runs were made on different numbers of processes."""
        return len({self.values(r, 0).get(P) for r in (self.run, *self.extra_runs)}) > 1

    @cached_property
    def procs_vary(self) -> bool:
        """Whether the runs were made on different numbers of processes, none of them on one."""
        counts = {self.values(r, 0).get(P) for r in (self.run, *self.extra_runs)}
        return len(counts) > 1 and all(c is not None and c > 1 for c in counts)

    @cached_property
    def threads_vary(self) -> bool:
        """Whether the runs were made on different numbers of OpenMP threads."""
        return len({r.threads for r in (self.run, *self.extra_runs)}) > 1

    @cached_property
    def exponent_symbols(self) -> list[sp.Symbol]:
        """The fit symbols that can be the exponent of a size: whole numbers from 1 to
        :data:`MAX_EXPONENT` in every run (a level count, ``log2`` of a box), which take the power
        forms 2^n, 4^n, 8^n (a side, a face, a volume of 2^n cells)."""
        runs = [self.run, *self.extra_runs]
        found = []
        for n in self.fit_symbols:
            values = [self.values(r, 0).get(n) for r in runs]
            if all(v is not None and float(v).is_integer() and 1 <= v <= MAX_EXPONENT for v in values):
                found.append(n)
        return found

    def _fit(self, samples: list[tuple[dict, sp.Rational]]) -> tuple[sp.Expr | None, str]:
        """Choose c * form for the measured trips per entry (:meth:`_fit_samples`), and keep it
        only if it has a finite value in every training run, also those where the context did not
        run (HPGMG-FV's copies fitted on the runs with 8 boxes were n / log2(n): infinite at one
        box, and so was the model of its own first run)."""
        fitted, note = self._fit_samples(samples)
        if fitted is None or not isinstance(fitted, sp.Expr):
            return fitted, note
        try:
            finite = all(self._finite_at(fitted, values) for values in self._training_values)
        except (TypeError, ValueError, ZeroDivisionError):
            return None, ""
        return (fitted, note) if finite else (None, "")

    @cached_property
    def _training_values(self) -> list[dict[sp.Symbol, float]]:
        """The symbol values of every training run (its first rank's)."""
        return [self.values(run, 0) for run in (self.run, *self.extra_runs)]

    @staticmethod
    def _finite_at(form: sp.Expr, values: dict[sp.Symbol, float]) -> bool:
        """Whether ``form`` has a finite value at ``values``; one that still holds the rank or loop
        variables there counts as finite (it is checked where it is summed)."""
        try:
            return _finite_at_items(form, _key(values))
        except TypeError:  # a value that cannot be hashed
            return _holds_value(form.subs(values))

    def _fit_samples(self, samples: list[tuple[dict, sp.Rational]]) -> tuple[sp.Expr | None, str]:
        """Choose c * form for the measured trips per entry.

        One run: the paper's rule, trips an integer multiple of N (or N/P, N^2, N^2/P).  Several
        runs at different sizes: the form whose one constant reproduces every run best, kept when
        it is within 5 % of each.
        """
        values, trips = samples[0]
        if any(t <= 0 for _, t in samples):
            if len(samples) == 1 or any(t < 0 for _, t in samples):
                return None, ""
            # a level count may start at 0 (the levels below the first: 0 at one box, 1 at eight)
            levels = {sp.log(n, 2): [_value_at(sp.log(n, 2), v) for v, _ in samples] for n in self.fit_symbols}
            return _offset(samples, levels, set(levels))
        if len(samples) == 1:
            for form in self._forms()[:5 * max(1, len(self.fit_symbols))]:
                if form.func in (sp.log, sp.Mul) and form.has(sp.log):
                    continue
                base = _at(form, values)
                if base.is_number and base not in (0, 1):
                    multiple = trips / base
                    if multiple.is_integer and multiple > 0:
                        return multiple * form, ""
            return None, ""
        # each form's value in every run, computed once for the c * form and the a + b * form fits
        bases_of = {form: [_value_at(form, v) for v, _ in samples] for form in [sp.Integer(1), *self._forms()]
                    if all(self._finite_at(form, v) for v in self._training_values)}
        candidates = []  # (worst relative error, c as a float, form)
        for form, bases in bases_of.items():
            if any(b is None or b <= 0 for b in bases):  # (n / log2 n at n = 1 has no value)
                continue
            c = float(trips) / bases[0]
            error = max(abs(c * b - float(t)) / float(t) for b, (_, t) in zip(bases, samples, strict=True))
            candidates.append((error, c, form))  # (c > 0: trips and bases are)
        if not candidates:
            return None, ""
        best_error = min(c[0] for c in candidates)
        exact_forms = {form: bases for form, bases in bases_of.items() if _polynomial(form)}
        levels = {sp.log(n, 2): bases_of[sp.log(n, 2)] for n in self.fit_symbols if sp.log(n, 2) in bases_of}
        if best_error > 1e-12:  # an offset from a form, exact at both sizes, before an approximate c * form
            offset = _offset(samples, {**exact_forms, **levels}, set(levels))
            if offset[0] is not None:
                return offset
            shifted = _shifted(samples, exact_forms, set(self.fit_symbols))
            if shifted[0] is not None:
                return shifted
            cells = _cells(samples, exact_forms)
            if cells[0] is not None:
                self._cell_forms[sp.factor_terms(cells[0]).as_coeff_Mul()[1]] = None
                return cells
            two = _two_terms(samples, self._term_pairs(bases_of), best_error)
            if two[0] is not None:
                return two
        if best_error > FIT_TOLERANCE:
            return _affine(samples, exact_forms)
        # Forms the runs cannot tell apart (n / 2 and n / P when every run had P = 2): the paper's
        # rule, an integer multiple of a form, then the simplest constant, then the list's order.
        # (a relative tolerance: c = trips / 8**30 of a form in an unrelated parameter of 30 is
        # 1e-26, which an absolute one made 0, "an integer", the tie-break's winner: Rodinia nn)
        tied = [(error, sp.nsimplify(c, rational=True, tolerance=1e-9 * c), form) for error, c, form in candidates
                if error <= best_error + 1e-9]
        _, constant, form = min(tied, key=lambda c: (not c[1].is_integer, c[1].q if c[1].is_Rational else 10**9))
        return constant * form, f" (fitted on {len(samples)} runs, worst error {best_error:.1%})"

    def _nearest_form(self, samples: list[tuple[dict, sp.Rational]], baseline: float | None = None,
                      what: str = "the first run's constant") -> tuple[sp.Expr | None, str]:
        """When no form reproduces the runs within :data:`FIT_TOLERANCE`: the c * form nearest to
        them (c the geometric mean of trips / form over the runs, the form with the smallest worst
        relative error), taken only when it is off by at most half as much as ``baseline``, the
        worst relative error of the rule it replaces (default: the first run's constant, for trips
        that clearly grow or shrink with the size); None otherwise."""
        if len(samples) < 2 or any(t <= 0 for _, t in samples):
            return None, ""
        trips = np.array([float(t) for _, t in samples])
        constant = float(np.max(np.abs(trips[0] - trips) / trips)) if baseline is None else baseline
        best = None  # (worst relative error, c, form)
        for form in self._forms():
            bases = [_value_at(form, v) for v, _ in samples]
            if any(b is None or b <= 0 for b in bases):
                continue
            ratios = trips / np.array(bases)
            c = float(np.exp(np.mean(np.log(ratios))))
            error = float(np.max(np.abs(c * np.array(bases) - trips) / trips))
            if best is None or error < best[0]:
                best = (error, c, form)
        if best is None or best[0] > constant / 2:
            return None, ""
        error, c, form = best
        c = sp.nsimplify(c, rational=True, tolerance=1e-6 * max(abs(c), 1.0))
        if error <= FIT_TOLERANCE:  # (a caller that fits no form of its own: a true ratio's share)
            return c * form, f" (the nearest form, off by up to {error:.1%} on the {len(samples)} runs, where {what} " \
                             f"would be off by {constant:.1%})"
        return c * form, (f" (NO form within {FIT_TOLERANCE:.0%}: the nearest, off by up to {error:.1%} on the "
                          f"{len(samples)} runs, where {what} would be off by {constant:.1%})")

    def _worst_error(self, samples: list[tuple[dict, sp.Rational]], expr: sp.Expr) -> float:
        """The largest relative difference between ``expr`` and the samples (inf where it has no number)."""
        worst = 0.0
        for values, measured in samples:
            number = _number(expr, values)
            if number is None:
                return math.inf
            worst = max(worst, abs(number - float(measured)) / max(abs(float(measured)), 1e-300))
        return worst if worst > 1e-9 else 0.0

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


def never_at(samples) -> set[int]:
    """The process counts at which every sample, (P, value), is 0, when the samples at another process
    count are not all 0; empty otherwise (a test for a message, a message handler's loop: none on one
    process)."""
    by_procs: dict[int, list] = {}
    for procs, value in samples:
        by_procs.setdefault(procs, []).append(value)
    never = {procs for procs, values in by_procs.items() if all(value == 0 for value in values)}
    return never if len(never) < len(by_procs) else set()


def zero_at(never, expr: sp.Expr) -> sp.Expr:
    """``expr``, and 0 at the process counts ``never``."""
    return sp.Piecewise((0, sp.Or(*(sp.Eq(P, procs) for procs in sorted(never)))), (expr, True))


def nonzero_pieces(expr: sp.Expr) -> sp.Expr:
    """``expr`` with the pieces of its Piecewise terms that are 0 made 1, to divide by: where they
    hold, what it divides is multiplied by ``expr`` again, 0 (the polls on one process, where none
    are made), and the quotient has no infinity for sympy or numpy to trip on."""
    def lift(piecewise: sp.Piecewise) -> sp.Expr:
        return sp.Piecewise(*((sp.Integer(1) if value == 0 else value, condition)
                              for value, condition in piecewise.args))
    return expr.replace(lambda e: isinstance(e, sp.Piecewise), lift)


def _rational(mean: float | Fraction) -> sp.Rational:
    """A measured mean as a rational with a denominator of at most 10^6 (what ``_fit`` takes)."""
    fraction = Fraction(mean).limit_denominator(10**6)
    return sp.Rational(fraction.numerator, fraction.denominator)


def _at(form: sp.Expr, values: dict) -> sp.Expr:
    """``form.subs(values)``, remembered: every loop a fit decides tries the same forms at the same
    runs' values (TeaLeaf's model spent 83 % of its 11 minutes substituting them again)."""
    try:
        return _substituted(form, _key(values))
    except TypeError:  # a value that cannot be hashed
        return form.subs(values)


def _key(values: dict) -> frozenset:
    """``values`` as a cache key; with each value's type (64 and 64.0 are equal keys, but
    substituted they give an Integer and a Float)."""
    return frozenset((symbol, value, type(value)) for symbol, value in values.items())


@lru_cache(maxsize=1 << 16)
def _substituted(form: sp.Expr, items: frozenset) -> sp.Expr:
    # (a dict's substitutions are sorted by sympy: the order of the set is moot)
    return form.subs({symbol: value for symbol, value, _ in items})


def _value_at(form: sp.Expr, values: dict) -> float | None:
    """``form``'s real, finite value at ``values`` (:func:`_finite`), remembered like :func:`_at`."""
    try:
        return _finite_substituted(form, _key(values))
    except TypeError:
        return _finite(form.subs(values))


@lru_cache(maxsize=1 << 16)
def _finite_at_items(form: sp.Expr, items: frozenset) -> bool:
    return _holds_value(_substituted(form, items))


def _holds_value(value: sp.Expr) -> bool:
    """A substituted form that still holds symbols (the rank, loop variables) or is finite."""
    return bool(value.free_symbols) or _finite(value) is not None


@lru_cache(maxsize=1 << 16)
def _finite_substituted(form: sp.Expr, items: frozenset) -> float | None:
    return _finite(_substituted(form, items))


@lru_cache(maxsize=1 << 12)
def _moved(form: sp.Expr, n: sp.Symbol, k: int) -> sp.Expr:
    """``form`` with ``n`` replaced by ``n + k``."""
    return form.subs(n, n + k)


def _finite(value: sp.Expr) -> float | None:
    """A real, finite number, or None (complex infinity, nan, a form that does not evaluate)."""
    try:
        number = complex(value)
    except (TypeError, ValueError):
        return None
    if number.imag or not math.isfinite(number.real):
        return None
    return number.real


def _number(expr: sp.Expr, values: dict) -> float | None:
    """Numeric value of an expression (implemented functions included), or None."""
    try:
        fn = lambdify_numpy(list(values), expr)
        with np.errstate(all="ignore"):
            number = float(fn(*values.values()))
        return number if math.isfinite(number) else None
    except (TypeError, ValueError, NameError, ZeroDivisionError):
        return None


def _polynomial(form: sp.Expr) -> bool:
    """Whether ``form`` is a product of integer powers of the symbols (and floor of one), or of whole
    numbers to the power of a symbol (2^n): no log, no root."""
    return not form.has(sp.log) and all(power.exp.is_integer or power.base.is_Integer for power in form.atoms(sp.Pow))


@lru_cache(maxsize=1 << 16)
def _exact(number: float) -> sp.Rational:
    """The rational a form's value stands for (within 1e-12 relative), remembered: nsimplify is slow."""
    return sp.nsimplify(number, rational=True, tolerance=1e-12 * max(1.0, abs(number)))


def _offset(samples: list[tuple[dict, sp.Rational]], bases_of: dict[sp.Expr, list[float | None]],
            levels: set[sp.Expr] = frozenset()) -> tuple[sp.Expr | None, str]:
    """a + b * form through runs that hold two or more values of the form, when it is exact and
    plain: b a whole number or one over a whole number (at most 64), a a non-zero whole number no
    larger than :data:`OFFSET_SHARE` of the form's term (a boundary: ``n - 1`` interior points of
    PolyBench's jacobi, ``2^lt + 2`` points with ghosts of NPB MG).  A ``levels`` form (log2 n) is
    a level count: b one over a whole number up to 8 (a level per doubling of a side, a face or a
    volume), a whole number up to 32 (HPGMG's 5 + log2(boxes) / 3 multigrid levels).  Two values
    cannot check a fit, so only such a structure is taken (more values must lie on its line), and
    only where no c * form is exact; the first form in the list's order wins.  Not through two
    values of the form when the runs hold three or more of some other value (Rodinia bfs: its level
    loop, 7, 8, 8 levels at n = 2000, 4000, 8000, went exactly through log2(t) + 7 of an unused
    thread count that was 1 and 2, and was -19 % at 8x): the runs varied that other value and the
    loop followed no plain form of it, and two points of the form are no evidence against that."""
    most = max((len({repr(v) for v in values_at}) for values_at in _sample_values(samples)), default=0)
    for form, bases in bases_of.items():
        if form == 1 or any(b is None for b in bases):
            continue
        points: dict[sp.Rational, sp.Rational] = {}
        for base, (_, trips) in zip(bases, samples, strict=True):
            x = _exact(base)
            if points.setdefault(x, trips) != trips:
                break
        else:
            if len(points) < 2 or (len(points) == 2 and most >= 3):
                continue
            (x1, t1), (x2, t2), *rest = sorted(points.items())
            b = (t2 - t1) / (x2 - x1)
            a = t1 - b * x1
            if any(a + b * x != t for x, t in rest):  # more values: they check it
                continue
            if form in levels:
                plain = b > 0 and (1 / b).is_integer and 1 / b <= 8 and a.is_integer and abs(a) <= 32
            else:
                plain = b > 0 and (b.is_integer or (1 / b).is_integer) and max(b, 1 / b) <= 64 and \
                    a.is_integer and a != 0 and abs(a) <= OFFSET_SHARE * b * x1
            if plain:
                return a + b * form, (f" (a + b * form exact on {len(samples)} runs at {len(points)} values of "
                                      "the form)")
    return None, ""


def _sample_values(samples: list[tuple[dict, sp.Rational]]) -> list[list]:
    """Each symbol's values over the samples (the symbols every sample has)."""
    shared = set.intersection(*(set(values) for values, _ in samples)) if samples else set()
    return [[values[symbol] for values, _ in samples] for symbol in shared if symbol not in (RANK, T)]


SHIFTS = (-1, -2, 1, 2, -3, 3, -4, 4)  # boundary points a size loses or gains: (n - 2) / (P - 1), first fit wins


def _shifted(samples: list[tuple[dict, sp.Rational]], bases_of: dict[sp.Expr, list[float | None]],
             sizes: set[sp.Symbol]) -> tuple[sp.Expr | None, str]:
    """c * form(n + k), exact on every run: the interior of a size shared out, whose offset is
    shared with it (LLNL's mpi_heat2D: the workers' rows less the two boundary rows, (n - 2) / (P - 1)
    per worker on average, which neither c * n / (P - 1) nor a + b * n / (P - 1) with a constant a
    reproduces across process counts).  Forms in one size without floor, k from :data:`SHIFTS`, c a
    whole number or one over a whole number (at most 64); the runs must hold three distinct values
    of the shifted form (one to fix c, two to check it)."""
    for form, bases in bases_of.items():
        used = form.free_symbols & sizes
        if form == 1 or form.has(sp.floor) or len(used) != 1 or any(b is None for b in bases):
            continue
        (n,) = used
        for k in SHIFTS:
            moved = _moved(form, n, k)
            values = [_value_at(moved, v) for v, _ in samples]
            if any(x is None or x <= 0 for x in values) or len({round(x, 9) for x in values}) < 3:
                continue
            ratio = float(samples[0][1]) / values[0]
            if not _near_whole_or_unit_fraction(ratio):  # (nsimplify is slow: most (form, k) fail here)
                continue
            c = sp.nsimplify(ratio, rational=True, tolerance=1e-9)
            if not (c > 0 and (c.is_integer or (1 / c).is_integer) and max(c, 1 / c) <= 64):
                continue
            if all(abs(float(c) * x - float(t)) <= 1e-9 * max(1.0, float(t)) for x, (_, t) in zip(values, samples, strict=True)):
                return c * moved, f" (c * form(n + k) exact on {len(samples)} runs: a boundary of the size shared out)"
    return None, ""


def _near_whole_or_unit_fraction(ratio: float) -> bool:
    """Whether ``ratio`` can be a whole number or one over a whole number of at most 64 within 1e-9
    (what :func:`_shifted` takes, told before its nsimplify; the bound is loose)."""
    if not 1 / 65 < ratio < 65:
        return False
    return abs(ratio - round(ratio)) <= 1e-4 or abs(1 / ratio - round(1 / ratio)) <= 1e-4


CELL_OFFSETS = (0, 1, 2, -1, -2)  # halo layers around a count of cells: (floor(c x) + j), first fit wins


def _cells(samples: list[tuple[dict, sp.Rational]], bases_of: dict[sp.Expr, list[float | None]]
           ) -> tuple[sp.Expr | None, str]:
    """k * (floor(c * x) + j), exact on every run: a count of cells a program computes as a
    length over a width it reads or derives at run time (CoMD's link cells: ``gridSize =
    localExtent / cutoff`` per dimension, the other dimensions' product k, j halo layers), for
    which no c * form and no a + b * form is exact.

    Whole-number trips only, at least three distinct values of the form x (two to bound c, one to
    check it), at least two distinct cell counts.  Each run bounds c to [m / x, (m + 1) / x); the
    intersection of those must be non-empty, and c is its midpoint (the runs cannot say more: the
    note gives the interval, which is how far an extrapolation's cell count can be off).  k is tried
    from the largest divisor of the trips' greatest common divisor down, j in :data:`CELL_OFFSETS`;
    the first fit wins.  Forms are ``bases_of``'s polynomial ones without floor.
    """
    if any(not t.is_integer or t <= 0 for _, t in samples):
        return None, ""
    trips = [int(t) for _, t in samples]
    common = math.gcd(*trips)
    divisors = sorted({d for i in range(1, math.isqrt(common) + 1) if common % i == 0 for d in (i, common // i)},
                      reverse=True)
    for form, bases in bases_of.items():
        if form == 1 or form.has(sp.floor) or any(b is None or b <= 0 for b in bases):
            continue
        xs = [Fraction(b).limit_denominator(10**6) for b in bases]
        if len(set(xs)) < 3:
            continue
        for k in divisors:
            for j in CELL_OFFSETS:
                cells = [t // k - j for t in trips]
                if min(cells) < 1 or len(set(cells)) < 2:
                    continue
                lo = max(Fraction(m) / x for m, x in zip(cells, xs, strict=True))
                hi = min(Fraction(m + 1) / x for m, x in zip(cells, xs, strict=True))
                if lo >= hi:
                    continue
                c = (lo + hi) / 2
                fitted = k * (sp.floor(sp.Rational(c.numerator, c.denominator) * form) + j)
                return fitted, (f" (k * (floor(c * form) + j) exact on {len(samples)} runs, c anywhere in "
                                f"[{float(lo):.6g}, {float(hi):.6g}): the midpoint taken)")
    return None, ""


def _affine(samples: list[tuple[dict, sp.Rational]], bases_of: dict[sp.Expr, list[float | None]]
            ) -> tuple[sp.Expr | None, str]:
    """a + b * form for trips per entry that no c * form reproduces: a count of cells floor(c n / P)
    (link cells, blocks of a decomposition), an offset such as n / P - 1 boundary iterations.

    Least squares on relative errors over the runs; kept only when the runs hold at least three
    distinct values of the form (two to fix a and b, one or more to check them), b > 0, and every
    run is reproduced within :data:`FIT_TOLERANCE`; the form with the smallest worst error wins.
    ``bases_of``: each form's value in every run (None where it has none); ``_fit`` offers only the
    polynomial forms (n, n / P, floor(n / P), n^2, n^2 / P): with two constants and three runs, one
    of the log and root forms fits by chance often enough (CoMD's boxes as a + b n / (P log n), -29 %
    at 8x).
    """
    trips = np.array([float(t) for _, t in samples])
    best = None  # (worst relative error, a, b, form)
    for form, bases in bases_of.items():
        if any(b is None for b in bases) or len({round(b, 9) for b in bases}) < 3 or not _checked_along(form, samples):
            continue
        x = np.array(bases)
        design = np.column_stack([1.0 / trips, x / trips])
        (a, b), *_ = np.linalg.lstsq(design, np.ones_like(trips), rcond=None)
        fitted = a + b * x
        if b <= 0 or np.any(fitted <= 0):
            continue
        error = float(np.max(np.abs(fitted - trips) / trips))
        if error <= FIT_TOLERANCE and (best is None or error < best[0]):
            best = (error, a, b, form)
    if best is None:
        return None, ""
    error, a, b, form = best
    a, b = (sp.nsimplify(v, rational=True, tolerance=1e-6 * max(abs(v), 1.0)) for v in (a, b))
    return a + b * form, f" (a + b * form fitted on {len(samples)} runs, worst error {error:.1%})"


def _two_terms(samples: list[tuple[dict, sp.Rational]], pairs: dict[tuple[sp.Expr, sp.Expr], tuple],
               one_term: float) -> tuple[sp.Expr | None, str]:
    """a * lead + b * lower for counts that a form with one constant misses by ``one_term``: glibc
    qsort's comparator calls, n log2 n - 1.28 n (c n log n was 2 % off on the runs and -3.3 % at 4x
    the largest; the two terms 0.02 % and +0.08 %).  Least squares on relative errors; kept only
    with at least three values of each size the terms hold (one or more to check the two constants;
    P and T aside: two sizes on two process counts are two points of the curve, which the two
    constants went through exactly: graph500's bound of SCALE 10 and 11 as a SCALE^3 - b SCALE^2),
    only where the one-constant form misses by more than :data:`TWO_TERMS_FLOOR`, a > 0, each term at
    least 5 % of the largest run's count (a term of a few % absorbs noise: a comparator's calls on 1
    and 2 processes came out c n log n / P + 6e-6 n^2 / P, +2.4 % at 4x where c n log n / P was
    within 1 %), every run positive and reproduced within 0.5 % and ten times better than the
    one-constant form (two constants fit three noisy runs better by chance, rarely ten times
    better); the pair with the smallest worst error wins."""
    if len(samples) < 3 or one_term <= TWO_TERMS_FLOOR:
        return None, ""
    trips = np.array([float(t) for _, t in samples])
    best = None  # (worst relative error, a, b, lead, lower)
    for (lead, lower), (first, second) in pairs.items():
        if any(v is None for v in (*first, *second)) or not all(
                len({values.get(size) for values, _ in samples}) >= 3
                for size in (lead.free_symbols | lower.free_symbols) - {P, T, RANK}):
            continue  # (two sizes on two process counts are four runs, but two points of the curve)
        design = np.column_stack([np.array(first) / trips, np.array(second) / trips])
        (a, b), *_ = np.linalg.lstsq(design, np.ones_like(trips), rcond=None)
        fitted = a * np.array(first) + b * np.array(second)
        if a <= 0 or np.any(fitted <= 0):
            continue
        largest = int(np.argmax(trips))
        if min(abs(a * first[largest]), abs(b * second[largest])) < 0.05 * trips[largest]:
            continue  # a term of a few % absorbs the runs' noise (qsort's calls as c n log n + 6e-6 n^2)
        error = float(np.max(np.abs(fitted - trips) / trips))
        if error <= min(0.005, one_term / 10) and (best is None or error < best[0]):
            best = (error, a, b, lead, lower)
    if best is None:
        return None, ""
    error, a, b, lead, lower = best
    a, b = (sp.nsimplify(v, rational=True, tolerance=1e-6 * max(abs(v), 1.0)) for v in (a, b))
    return a * lead + b * lower, f" (two terms fitted on {len(samples)} runs, worst error {error:.2%}, " \
                                 f"where one constant's form was {one_term:.1%} off)"


def _checked_along(form: sp.Expr, samples: list[tuple[dict, sp.Rational]]) -> bool:
    """Whether an a + b * form fit can tell the form's growth in each problem size it depends on (P,
    T and the rank aside): three or more sizes check any form, two only a line (the form
    proportional to the size: n, n / P, floor(n / P), n / T; or to 2^n for a size given by its
    logarithm, graph500's 2^SCALE / P).  Two sizes checked across thread or
    process counts say nothing of a curve: HPGMG-FV's blocks per box, trained at 1 and 8 boxes on
    1 and 2 threads, held a + b n^2 / T within 3 % and took it to 64 boxes at +1550 %."""
    for size in form.free_symbols - {P, T, RANK}:
        if len({values.get(size) for values, _ in samples}) >= 3:
            continue
        if not _line_in(form, size):
            return False
    return True


@lru_cache(maxsize=1 << 12)
def _line_in(form: sp.Expr, size: sp.Symbol) -> bool:
    """Whether ``form`` (floor aside) is proportional to ``size`` or to 2^size (simplify is slow:
    remembered, every loop asks of the same forms)."""
    line = form.replace(sp.floor, lambda inner: inner)
    if sp.simplify(line.subs(size, 2 * size) - 2 * line) == 0:
        return True
    return sp.simplify(line.subs(size, size + 1) / line).is_number  # 2^SCALE vertices: a line in them


def grid_sides(param) -> tuple[sp.Expr, ...]:
    """What a side of a process grid (a ``procgrid`` candidate) may be: for ``dims[k]`` of
    ``MPI_Dims_create(size, 3, dims)``, side k of the three-dimensional grid (grid3(P, k)), of
    ``MPI_Dims_create(size, 1, dims)`` P (then P itself is the only candidate); else a side of the
    most nearly square two-dimensional one, grid_lo(P) or grid_hi(P)."""
    call = re.match(r"\s*MPI_Dims_create\s*\([^,]+,\s*(\d+)\s*,", param.text or "")
    index = re.search(r"\[(\d)\]$", param.variable)
    if call and index and int(index.group(1)) < int(call.group(1)) <= 3:
        return {1: (), 2: (grid_lo(P), grid_hi(P)), 3: (grid3(P, int(index.group(1))),)}[int(call.group(1))]
    return (grid_lo(P), grid_hi(P))


def per_process_count(samples: list[tuple[float, sp.Expr]]) -> sp.Expr | None:
    """A value that depends on the process count only: (P, value) samples with one value per P
    measured, not all the same (a loop over an exchange's partners, empty at P = 1; a branch that
    only runs on more processes).  Piecewise over the P measured, the largest P's value beyond
    them; None when the values vary otherwise or do not vary."""
    per: dict[float, set] = {}
    for procs, value in samples:
        per.setdefault(procs, set()).add(value)
    if len(per) < 2 or any(len(v) > 1 for v in per.values()) or len({next(iter(v)) for v in per.values()}) < 2:
        return None
    procs = sorted(per)
    pieces = [(next(iter(per[p])), sp.Eq(P, int(p))) for p in procs[:-1]]
    return sp.Piecewise(*pieces, (next(iter(per[procs[-1]])), True))


def chain_predicates() -> list[sp.Basic]:
    """Where a rank of a chain of P has a neighbour: on the left (all but the first), on the right
    (all but the last), on both, on neither (P = 1) -- MPI_Cart_shift on a non-periodic dimension."""
    return [sp.Ne(RANK, 0), sp.Ne(RANK, P - 1), sp.And(RANK > 0, RANK < P - 1)]


def rank_predicate(outcomes: list[tuple[int, dict[int, bool]]], candidates: list[sp.Basic]) -> sp.Basic | None:
    """The condition on the rank that gives every rank of every run its outcome (``outcomes``:
    (P, {rank: true or false}) per run), the first of ``candidates``; None when every rank
    had the same outcome, none fits, or the runs cannot tell the fitting ones apart where they
    differ at other P (two ranks at P = 2 cannot tell rank != 0 from rank == P - 1), on the ranks
    the runs had outcomes for."""
    if len({outcome for _, decided in outcomes for outcome in decided.values()}) < 2:
        return None
    fitting = [predicate for predicate in candidates
               if all(bool(predicate.subs({RANK: r, P: procs})) == outcome
                      for procs, decided in outcomes for r, outcome in decided.items())]
    if not fitting:
        return None
    lowest = min(r for _, decided in outcomes for r in decided)
    tables = {tuple(bool(predicate.subs({RANK: r, P: procs})) for procs in range(2, 17)
                    for r in range(lowest, procs)) for predicate in fitting}
    return fitting[0] if len(tables) == 1 else None


def per_process_ratio(samples: list[tuple[float, sp.Expr]], workers: bool = False) -> tuple[sp.Expr, str] | None:
    """The true ratio of a data-dependent conditional that depends on the process count: (P, ratio)
    samples from runs at two or more P that differ between the P far more than at one P (sizes
    move a hash's share a little).  ``a + b / P`` through the mean ratio at each P when it holds
    them (an owner test ``owner == rank``: 1 / P; ``me != root``: 1 - 1 / P; both exact at any P
    from P = 1, 2), else one mean per P measured, the largest P's beyond; with a note.  ``workers``:
    only P - 1 ranks evaluate the condition (a master and its workers: ``if (left != NONE)`` of a
    worker holds on all but the first, 1 - 1 / (P - 1)), so the form is ``a + b / (P - 1)``.  None
    when the ratio does not vary with P, or varies as much at one P."""
    per: dict[float, list[sp.Expr]] = {}
    for procs, value in samples:
        per.setdefault(procs, []).append(sp.Rational(value))
    if len(per) < 2:
        return None
    means = {procs: sum(values, sp.Integer(0)) / len(values) for procs, values in sorted(per.items())}
    within = max(float(max(values) - min(values)) for values in per.values())
    between = float(max(means.values()) - min(means.values()))
    if between == 0 or within > 0.1 * between:
        return None
    shown = ", ".join(f"{mean if len(set(per[procs])) == 1 else f'{float(mean):.4g}'} at P = {int(procs)}"
                      for procs, mean in means.items())
    procs = list(means)
    shift = 1 if workers else 0  # the ranks that evaluate it: P or P - 1
    if len(procs) == 2:  # exact through the two
        p1, p2 = (sp.Integer(int(p) - shift) for p in procs)
        b = (means[procs[0]] - means[procs[1]]) / (1 / p1 - 1 / p2)
        a = means[procs[0]] - b / p1
    else:  # least squares
        design = np.array([[1.0, 1.0 / (p - shift)] for p in procs])
        fitted, *_ = np.linalg.lstsq(design, np.array([float(means[p]) for p in procs]), rcond=None)
        a, b = (sp.nsimplify(float(x), rational=True, tolerance=1e-12) for x in fitted)
    form = a + b / (P - shift)
    if all(abs(float(form.subs(P, int(p)) - means[p])) <= 0.01 for p in procs):
        if not (0 <= a <= 1 and 0 <= a + b / (1 + shift) <= 1):
            form = sp.Max(0, sp.Min(1, form))
        over = "(P - 1: the workers)" if workers else "P"
        return form, f"{shown}: {sp.nsimplify(form, tolerance=1e-3, rational=True)} (a + b/{over} through them)"
    pieces = [(means[p], sp.Eq(P, int(p))) for p in procs[:-1]]
    return (sp.Piecewise(*pieces, (means[procs[-1]], True)),
            f"{shown} (the largest P's beyond {int(procs[-1])})")
