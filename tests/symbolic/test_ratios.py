"""When the true ratios of a conditional measured in several runs differ by more than sampling
explains (symbolic/counts/branches.py), which the fallbacks then name."""

from __future__ import annotations

import sympy as sp

from perfeq.symbolic.counts.branches import _disagree


def test_ratios_within_sampling_agree():
    assert not _disagree([(sp.Rational(1, 2), 1000), (sp.Rational(51, 100), 1000)])
    assert not _disagree([(sp.Rational(44, 100), 10000), (sp.Rational(4387, 10000), 20000)])  # nearest's minimum


def test_ratios_that_move_with_the_size_or_vanish_disagree():
    assert _disagree([(sp.Rational(3, 200), 20000), (sp.Rational(3, 400), 80000)])  # an early return found later
    assert _disagree([(sp.Rational(1, 2), 20), (sp.Integer(0), 20)])  # a neighbour on one grid, none on another
    assert _disagree([(sp.Integer(1), 50), (sp.Rational(49, 50), 50)])
