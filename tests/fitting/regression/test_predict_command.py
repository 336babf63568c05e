"""``perfeq predict`` on a real program's model (tests/c/symbolic/kernels.c) and a fitted machine."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfeq.cli import main


def test_predict_command_interval_for_a_new_or_a_fitted_application(kernels, tmp_path, capsys):
    """perfeq predict on a model and a fitted machine: a program the fit never saw gets the wider
    interval with the between-application error; --application naming a fitted one does not."""
    from perfeq.fitting.regression.fit import fit_machine
    from perfeq.fitting.regression.profile import save_profile
    from perfeq.fitting.regression.synthetic import synthetic_applications

    model, _ = kernels
    model_path, machine = tmp_path / "kernels.model.json", tmp_path / "machine.json"
    model.save(model_path)
    runs, _ = synthetic_applications(6, 10, np.random.default_rng(3), app_sigma=0.15)
    save_profile(fit_machine(runs), machine)
    args = ["predict", str(model_path), "--machine", str(machine), "n=4096", "steps=10", "P=16", "--json"]
    assert main(args) == 0
    new = json.loads(capsys.readouterr().out)
    assert main([*args, "--application", "app2"]) == 0
    known = json.loads(capsys.readouterr().out)
    assert new["time_s"] == pytest.approx(known["time_s"]) and new["time_s"] > 0
    for result in (new, known):
        low, high = result["prediction_interval"]
        assert 0 < low < result["time_s"] < high
    assert "between-application error" in new["prediction_note"]
    assert "one of the fitted applications" in known["prediction_note"]
    assert new["prediction_interval"][1] - new["prediction_interval"][0] > (
        known["prediction_interval"][1] - known["prediction_interval"][0])
