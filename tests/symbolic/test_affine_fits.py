"""The a + b * form fit of trips per entry (perfeq.symbolic.counts.base._affine): two constants
need three sizes, not three values of a form that thread or process counts vary."""

from __future__ import annotations

import sympy as sp

from perfeq.symbolic.counts.base import _affine
from perfeq.symbolic.symbols import T, size_symbol

B = size_symbol("b")


def _samples(points, trips):
    return [({B: b, T: t}, sp.nsimplify(value)) for (b, t), value in zip(points, trips, strict=True)]


def _bases(forms, samples):
    return {form: [float(form.subs(values)) for values, _ in samples] for form in forms}


def test_two_sizes_on_two_thread_counts_fix_no_growth_in_the_size():
    """HPGMG-FV's smoother loops, trained at 1 and 8 boxes on 1 and 2 threads: a + b * b^2 / T holds
    every run within 3 %, and took them to 64 boxes at +1550 %.  Two sizes fix a and b and check
    nothing of a curve: no such fit, whereas a line in the size, checked across the thread
    counts, still is (CoMD's halo cells, a + b floor(nx / P) on 1 and 2 processes)."""
    points = [(1, 1), (1, 2), (8, 1), (8, 2)]
    samples = _samples(points, [5.514, 5.507, 6.38, 5.94])
    fitted, note = _affine(samples, _bases([B**2 / T, B**2, sp.sqrt(B) / T, sp.log(B, 2) / T], samples))
    assert fitted is None and note == ""
    line = _samples(points, [3 + 0.5 * b / t for b, t in points])
    fitted, _ = _affine(line, _bases([B**2 / T, B / T], line))
    assert sp.simplify(fitted - (3 + B / (2 * T))) == 0
    exponent = _samples(points, [3 + 0.5 * 2**b / t for b, t in points])  # b the log2 of a size
    fitted, _ = _affine(exponent, _bases([B**2 / T, 2**B / T], exponent))
    assert sp.simplify(fitted - (3 + 2**B / (2 * T))) == 0


def test_three_sizes_check_the_line():
    """At three sizes the same fit is checked along the size and kept: 2 + 3 b."""
    points = [(1, 1), (8, 1), (27, 1), (1, 2), (8, 2), (27, 2)]
    samples = _samples(points, [2 + 3 * b for b, _ in points])
    fitted, note = _affine(samples, _bases([B**2, B], samples))
    assert sp.simplify(fitted - (2 + 3 * B)) == 0 and "fitted on 6 runs" in note


def test_a_boundary_shared_out_is_a_shifted_form():
    """The workers' interior rows of a strip decomposition, (n - 2) / (P - 1) per worker on average:
    c * form(n + k) exact on every run, where c * n / (P - 1) is 3.5 % off and the offset of
    a + b * n / (P - 1) changes with P (LLNL's mpi_heat2D, ops -7.5 % at 8x)."""
    from perfeq.symbolic.counts.base import _shifted
    from perfeq.symbolic.symbols import P

    n = size_symbol("n")
    runs = [(20, 2), (30, 2), (40, 2), (24, 3), (36, 3), (28, 3)]
    samples = [({n: a, P: p}, sp.Rational(a - 2, p - 1)) for a, p in runs]
    form = n / (P - 1)
    fitted, note = _shifted(samples, {form: [a / (p - 1) for a, p in runs]}, {n})
    assert sp.simplify(fitted - (n - 2) / (P - 1)) == 0 and "c * form(n + k)" in note
    # two values of the form check nothing: no fit
    two = [s for s in samples if s[0][n] in (20, 30)]
    assert _shifted(two, {form: [10.0, 15.0]}, {n}) == (None, "")


def test_a_ratio_over_the_workers():
    """A data condition only the P - 1 workers evaluate, true on one of them (the first worker's
    boundary): 1 / (P - 1), not the a + b / P through P = 2, 3 that gave 1/4 at P = 4 for 1/3."""
    from perfeq.symbolic.counts.base import per_process_ratio
    from perfeq.symbolic.symbols import P

    form, note = per_process_ratio([(2, sp.Integer(1)), (3, sp.Rational(1, 2))], workers=True)
    assert form.subs(P, 4) == sp.Rational(1, 3) and "P - 1: the workers" in note
    form, _ = per_process_ratio([(2, sp.Integer(1)), (3, sp.Rational(1, 2))])
    assert form.subs(P, 4) == sp.Rational(1, 4)
