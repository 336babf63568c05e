"""Tests of the machine profile JSON (fitting/regression/profile.py): round trips, manual profiles, refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import DOCS
from numpy.testing import assert_allclose

from perfeq.errors import FitError
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.predict import predict
from perfeq.fitting.regression.profile import (
    FORMAT,
    VERSION,
    MachineProfile,
    load_profile,
    manual_profile,
    save_profile,
)
from perfeq.fitting.regression.synthetic import synthetic_applications, synthetic_runs


@pytest.fixture(scope="module")
def fitted() -> MachineProfile:
    return fit_machine(synthetic_runs(20, np.random.default_rng(12)), intercept=True)


def test_fitted_profile_round_trips_exactly(tmp_path, fitted):
    path = tmp_path / "machine.json"
    save_profile(fitted, path)
    loaded = load_profile(path)
    assert loaded == fitted
    assert [p.name for p in tmp_path.iterdir()] == ["machine.json"]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert (data["format"], data["version"], data["source"]) == (FORMAT, VERSION, "fit")
    assert list(data["costs"]) == ["ops", "startup", "bytes", "const"]
    assert set(data["costs"]["ops"]) == {"value", "stderr", "ci_low", "ci_high", "p_value", "source"}
    assert {entry["source"] for entry in data["costs"].values()} == {"fit"}
    assert data["covariance"]["ops"]["bytes"] == data["covariance"]["bytes"]["ops"]
    counts = {"ops": 1e9, "startup": 100, "bytes": 1e6}
    assert_allclose(
        predict(loaded, counts).prediction_interval, predict(fitted, counts).prediction_interval, rtol=1e-15
    )


def test_between_application_error_round_trips_and_older_files_still_load(tmp_path):
    runs, _ = synthetic_applications(4, 6, np.random.default_rng(3))
    profile = fit_machine(runs)
    path = tmp_path / "machine.json"
    save_profile(profile, path)
    assert load_profile(path) == profile and profile.between_app.df == 3
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data["between_app"]) == {"sigma", "df", "app_bias", "method"}
    assert list(data["between_app"]["app_bias"]) == ["app0", "app1", "app2", "app3"]
    del data["between_app"]  # a profile written before the field existed
    path.write_text(json.dumps(data), encoding="utf-8")
    older = load_profile(path)
    assert older.between_app is None
    assert (
        "no between-application error"
        in predict(older, {"ops": 1e9, "startup": 10, "bytes": 1e6}).prediction_note
    )
    data["between_app"] = {"sigma": 0.1, "df": 0, "app_bias": {}}
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(FitError, match=r"between_app: 'df' is 0"):
        load_profile(path)


def test_manual_profile_round_trips_and_has_no_statistics(tmp_path):
    profile = manual_profile({"startup": 5e-6, "ops": 1e-9}, host="cluster-a")
    assert profile.names == ("ops", "startup")  # project order, whatever order given
    assert not profile.has_intervals
    path = tmp_path / "manual.json"
    save_profile(profile, path)
    assert load_profile(path) == profile
    assert json.loads(path.read_text(encoding="utf-8"))["costs"] == {
        "ops": {"value": 1e-9, "source": "manual"},
        "startup": {"value": 5e-6, "source": "manual"},
    }


def test_costs_keep_their_own_source_and_version_1_files_take_the_profile_s(tmp_path, fitted):
    """Version 2: each cost says where it comes from (fit, manual, probe); a version 1 file has no such
    field and every cost comes from the profile's source."""
    data = fitted.to_dict()
    data["costs"]["startup"]["source"] = "probe"
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    mixed = load_profile(path)
    assert [mixed.cost_source(name) for name in mixed.names] == ["fit", "probe", "fit", "fit"]
    save_profile(mixed, path)
    assert load_profile(path) == mixed
    old = fitted.to_dict()
    old["version"] = 1
    for entry in old["costs"].values():
        del entry["source"]
    path.write_text(json.dumps(old), encoding="utf-8")
    older = load_profile(path)
    assert older == fitted and older.format_version == 1
    assert {older.cost_source(name) for name in older.names} == {"fit"}


def test_minimal_hand_written_profile_from_the_docs_is_valid(tmp_path):
    doc = (DOCS / "machine-profile.md").read_text(encoding="utf-8")
    path = tmp_path / "vendor.json"
    path.write_text(doc.split("```json", 1)[1].split("```", 1)[0], encoding="utf-8")
    profile = load_profile(path)
    assert profile.values == {"bytes": 2e-10}
    assert predict(profile, {"bytes": 1e9}).intervals_note is not None


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"megaflops": 1e-9}, "unknown cost 'megaflops'"),
        ({"ops": -1e-9}, "not a number >= 0"),
        ({}, "no costs given"),
    ],
)
def test_manual_profile_refuses_bad_costs(values, message):
    with pytest.raises(FitError, match=message):
        manual_profile(values)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(format="other"), "not a machine profile"),
        (lambda d: d.update(version=3), "version 3 is not supported"),
        (lambda d: d["costs"]["ops"].update(source="vendor"), r"costs.ops: 'source' is 'vendor'"),
        (lambda d: d["costs"]["ops"].update(value="fast"), r"costs.ops: 'value' is 'fast'"),
        (lambda d: d["covariance"].pop("bytes"), r"covariance: 'bytes' is missing"),
        (lambda d: d.update(weighting="log"), "'weighting' is 'log'"),
        (lambda d: d.update(df_resid=0), "'df_resid' is 0"),
        (lambda d: d["runs"][0].pop("fitted_s"), r"runs\[0\]: expected a mapping with keys"),
    ],
)
def test_load_refuses_broken_profiles_naming_the_field(tmp_path, fitted, edit, message):
    data = fitted.to_dict()
    edit(data)
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(FitError, match=message):
        load_profile(path)


def test_load_refuses_invalid_json_with_position(tmp_path):
    path = tmp_path / "machine.json"
    path.write_text('{"format": "perfeq-machine",\n  "version": }', encoding="utf-8")
    with pytest.raises(FitError, match=r"machine.json:2:\d+: not valid JSON"):
        load_profile(path)
