"""Characteristic functions: the paper's set, user functions, and what the safe parser refuses."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from perfeq.errors import UsageError
from perfeq.fitting.scaling.functions import (
    DEFAULT_FUNCTIONS,
    DEFAULT_SIZE_FUNCTIONS,
    parse_function,
    parse_functions,
)


def test_default_set_is_the_papers_and_normalised_at_one():
    functions = parse_functions(None)
    assert [f.label for f in functions] == ["1/p^2", "1/p", "log(p)/p", "1/sqrt(p)", "1", "log(p)", "p"]
    at_one = np.array([float(f(1.0)) for f in functions])
    assert set(at_one) <= {0.0, 1.0}
    at_four = np.array([float(f(4.0)) for f in functions])
    assert_allclose(at_four, [1 / 16, 1 / 4, math.log(4) / 4, 1 / 2, 1, math.log(4), 4], rtol=1e-12)


def test_size_set_uses_n():
    functions = parse_functions(None, with_size=True)
    assert [f.label for f in functions] == list(DEFAULT_SIZE_FUNCTIONS)
    n_squared_over_p = parse_function("n^2/p")
    assert n_squared_over_p.uses_size
    assert_allclose(n_squared_over_p(np.array([2.0, 4.0]), np.array([10.0, 10.0])), [50.0, 25.0], rtol=1e-12)


def test_list_splits_on_top_level_commas_only():
    functions = parse_functions("log(p)/p, 1 ,p**-1")
    assert [f.label for f in functions] == ["log(p)/p", "1", "p**-1"]
    assert_allclose(functions[2](8.0), 1 / 8, rtol=1e-12)


def test_caret_is_power():
    assert_allclose(parse_function("p^2")(3.0), 9.0, rtol=1e-12)


def test_user_function_is_normalised_to_one_at_p_one():
    function = parse_function("2/p + 2")
    assert function.normalisation == pytest.approx(4.0)
    assert_allclose(function(np.array([1.0, 2.0])), [1.0, 0.75], rtol=1e-12)


def test_constant_broadcasts_to_the_shape_of_p():
    assert parse_function("1")(np.array([1.0, 2.0, 4.0])).shape == (3,)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("__import__('os').system('true')", "unknown function"),
        ("p.real", "not accepted"),
        ("foo(p)", "unknown function 'foo'"),
        ("q/p", "unknown name 'q'"),
        ("1/(p-1)", "not finite at p=1"),
        ("9^9^9^9", "not finite at p=1"),
        ("lambda: 1", "not accepted"),
        ("[p]", "not accepted"),
        ("'p'", "not accepted"),
        ("True", "not accepted"),
        ("1e999", "out of range"),
        ("log(p, 2)", "exactly one argument"),
        ("1/", "not an expression"),
        ("", "empty function"),
        ("p" * 300, "longer than"),
    ],
)
def test_refuses_anything_but_arithmetic(text, message):
    with pytest.raises(UsageError, match=message):
        parse_function(text)


def test_refuses_duplicates():
    with pytest.raises(UsageError, match="given twice"):
        parse_functions("1/p, 1 / p")


def test_defaults_parse():
    assert len(parse_functions(list(DEFAULT_FUNCTIONS))) == 7
