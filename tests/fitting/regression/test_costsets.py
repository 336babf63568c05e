"""Choosing the cost set of a calibration (fitting/regression/costsets.py, issue 20 item 1): admissible
sets only (fitted, no negative cost), the best held-out error across applications, the choice recorded
in the profile; and ``perfeq fit`` / ``perfeq validate`` with their defaults on a real campaign."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import BENCHMARK_DATA

from perfeq.cli import main
from perfeq.errors import FitError
from perfeq.fitting.regression.costsets import candidate_sets, fit_selected, select_costs
from perfeq.fitting.regression.profile import HELD_OUT, LADDER, MachineProfile
from perfeq.fitting.regression.synthetic import TRUE_COSTS, synthetic_applications, synthetic_runs

RICH, POOR = ("ops", "startup", "bytes"), ("ops", "startup")
CAMPAIGN = BENCHMARK_DATA / "2026-11-23-gram-7.runs.csv"


def apps(**costs: float):
    """Six applications whose times follow ``costs`` up to 5 % of their own and 2 % per run."""
    runs, _ = synthetic_applications(6, 8, np.random.default_rng(3), app_sigma=0.05,
                                     costs={**TRUE_COSTS, **costs}, noise=0.02)
    return runs


def test_the_set_with_the_smaller_held_out_error_is_chosen_and_its_runner_up_kept() -> None:
    selection = select_costs(apps(), [POOR, RICH])
    assert selection.criterion == HELD_OUT and selection.chosen == RICH
    poor, rich = selection.candidates
    assert poor.costs == POOR and rich.costs == RICH and poor.admissible and rich.admissible
    assert 0 < rich.held_out < poor.held_out  # bytes carry 1 ns each: without them every app is off


def test_a_set_with_a_negative_cost_is_not_admissible_whatever_its_error() -> None:
    selection = select_costs(apps(bytes=-1e-9), [RICH, POOR])
    rich = selection.candidates[0]
    assert selection.chosen == POOR and not rich.admissible
    assert rich.reason.startswith("negative bytes = -") and rich.held_out is None


def test_with_one_application_the_first_admissible_set_is_kept() -> None:
    runs = synthetic_runs(40, np.random.default_rng(1), noise=0.0)
    assert select_costs(runs, [RICH, POOR]).criterion == LADDER
    assert select_costs(runs, [RICH, POOR]).chosen == RICH
    negative = synthetic_runs(40, np.random.default_rng(1), costs={**TRUE_COSTS, "bytes": -2e-11}, noise=0.0)
    assert select_costs(negative, [RICH, POOR]).chosen == POOR


def test_sets_of_counts_the_runs_do_not_have_are_not_candidates_and_none_admissible_is_an_error() -> None:
    runs = synthetic_runs(40, np.random.default_rng(1), noise=0.0)
    assert candidate_sets(runs, [("loads", "stores"), RICH, RICH, POOR]) == [RICH, POOR]
    with pytest.raises(FitError, match="none of the cost sets"):
        select_costs(runs, [("loads",)])
    negative = synthetic_runs(40, np.random.default_rng(1), costs={**TRUE_COSTS, "bytes": -2e-11}, noise=0.0)
    with pytest.raises(FitError, match="no cost set could be fitted with every cost non-negative: "
                                       "ops,startup,bytes: negative bytes"):
        select_costs(negative, [RICH])


def test_the_choice_is_kept_in_the_profile_and_read_back() -> None:
    said: list[str] = []
    profile = fit_selected(apps(), [POOR, RICH], report=said.append)
    assert profile.names == RICH and profile.selection.chosen == RICH and profile.between_app is not None
    assert said[0].startswith("costs chosen by leave-one-application-out cross-validation: ops,startup,bytes")
    assert said[1].startswith("  runner-up ops,startup: held-out mean |error|")
    again = MachineProfile.from_dict(json.loads(json.dumps(profile.to_dict())))
    assert again.selection == profile.selection


def test_fit_and_validate_work_with_their_defaults_on_a_real_campaign(tmp_path, capsys) -> None:
    """The README's `perfeq fit runs.csv --intercept` on what `perfeq calibrate` wrote (kept campaign)."""
    machine = tmp_path / "machine.json"
    assert main(["fit", str(CAMPAIGN), "--intercept", "-o", str(machine)]) == 0
    text = capsys.readouterr().out
    assert "costs chosen by leave-one-application-out cross-validation:" in text and "runner-up" in text
    data = json.loads(machine.read_text())
    chosen = data["selection"]["chosen"]
    assert set(chosen) | {"const"} == set(data["costs"])
    assert all(entry["value"] >= 0 for entry in data["costs"].values())
    best = min(c["held_out"] for c in data["selection"]["candidates"] if c["held_out"] is not None)
    assert next(c for c in data["selection"]["candidates"] if c["costs"] == chosen)["held_out"] == best
    assert main(["validate", str(CAMPAIGN), "--intercept", "-o", str(tmp_path / "v"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["costs_chosen_per_fold"] is True
    overall = result["summary"][-1]
    assert overall["app"] == "all" and 0 < overall["average_error"] < 0.5 and overall["coverage"] > 0.5
