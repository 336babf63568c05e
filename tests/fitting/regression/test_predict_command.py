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


def test_a_program_is_known_by_the_content_of_its_sources_not_its_name(kernels, tmp_path, capsys):
    """Issue 20 item 2: runs carry the digest of their program's sources; the program whose model has
    that digest is the fitted application whatever it is called, and one named like a fitted
    application but with other sources is a new one (report and predict agree)."""
    import dataclasses

    from perfeq.fitting.regression.fit import fit_machine
    from perfeq.fitting.regression.profile import save_profile
    from perfeq.fitting.regression.synthetic import synthetic_applications

    model, _ = kernels
    assert len(model.digest) == 64
    model_path, machine = tmp_path / "kernels.model.json", tmp_path / "machine.json"
    model.save(model_path)
    runs, _ = synthetic_applications(6, 10, np.random.default_rng(3), app_sigma=0.15)
    # app2 is this very program (its runs carry the model's digest); the others are other programs
    runs = [dataclasses.replace(r, digest=model.digest if r.app == "app2" else f"{int(r.app[3:]):064x}")
            for r in runs]
    save_profile(fit_machine(runs), machine)
    args = ["predict", str(model_path), "--machine", str(machine), "n=4096", "steps=10", "P=16", "--json"]
    assert main(args) == 0
    assert "the program is 'app2', one of the fitted applications" in json.loads(capsys.readouterr().out)[
        "prediction_note"]
    # the name given does not override the content
    assert main([*args, "--application", "app3"]) == 0
    assert "the program is 'app2'" in json.loads(capsys.readouterr().out)["prediction_note"]
    # other sources, even when named like a fitted application: a new application
    dataclasses.replace(model, digest="f" * 64).save(model_path)
    for extra in ([], ["--application", "app2"]):
        assert main([*args, *extra]) == 0
        assert "between-application error" in json.loads(capsys.readouterr().out)["prediction_note"]
