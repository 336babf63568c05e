"""The cost-set ladder (fitting/regression/costsets.py): the first admissible set of a calibration."""

from __future__ import annotations

import numpy as np
import pytest

from perfeq.errors import FitError
from perfeq.fitting.regression.costsets import fit_first_admissible
from perfeq.fitting.regression.synthetic import TRUE_COSTS, synthetic_runs

RICH, POOR = ("ops", "startup", "bytes"), ("ops", "startup")


def runs(**costs: float):
    """Noise-free runs whose times follow ``costs`` exactly (default: the true costs)."""
    return synthetic_runs(40, np.random.default_rng(1), costs={**TRUE_COSTS, **costs}, noise=0.0)


def test_the_first_admissible_set_is_kept_and_nothing_is_said() -> None:
    said: list[str] = []
    profile = fit_first_admissible(runs(), [RICH, POOR], intercept=False, report=said.append)
    assert set(RICH) <= set(profile.names) and said == []


def test_a_set_with_a_negative_cost_gives_way_to_the_next() -> None:
    said: list[str] = []
    profile = fit_first_admissible(runs(bytes=-2e-11), [RICH, POOR], intercept=False, report=said.append)
    assert "bytes" not in profile.names and set(POOR) <= set(profile.names)
    assert said == ["costs ops,startup,bytes: negative bytes (not a machine cost); trying fewer"]


def test_when_every_set_is_negative_the_last_fitted_one_is_returned() -> None:
    profile = fit_first_admissible(runs(bytes=-2e-11), [RICH], intercept=False)
    assert profile.values["bytes"] < 0


def test_sets_that_cannot_be_fitted_are_skipped_and_all_failing_is_an_error() -> None:
    said: list[str] = []
    profile = fit_first_admissible(runs(), [("nope",), POOR], intercept=False, report=said.append)
    assert set(POOR) <= set(profile.names) and len(said) == 1 and said[0].startswith("costs nope: ")
    with pytest.raises(FitError, match="no set of costs could be fitted"):
        fit_first_admissible(runs(), [("nope",)])
