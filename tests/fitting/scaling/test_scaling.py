"""Individual scaling models (Strohmaier 1997, Tables 1-3): reading, transformations, selection, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA
from numpy.testing import assert_allclose

from perfeq.errors import FitError, UsageError
from perfeq.fitting.scaling.analysis import ScalingOptions, analyse_scaling
from perfeq.fitting.scaling.data import read_rate_table, read_scaling_csv, scaling_frame_from_runs
from perfeq.fitting.scaling.functions import parse_function
from perfeq.fitting.scaling.individual import least_squares_fit

DATA = DATA / "scaling"
PROCS = (1, 2, 4, 8, 16, 32, 64, 128)


def pair_runs(functions, coefficients, *, code="app", system="host", noise=0.01, reps=3, seed=0):
    """Runs of one code on one system with t * p = sum c_i u_i(p) * p + noise (the fitted scale)."""
    rng = np.random.default_rng(seed)
    us = [parse_function(text) for text in functions]
    rows = []
    for p in PROCS:
        t_prime = p * sum(c * float(u(p)) for c, u in zip(coefficients, us, strict=True))
        for _ in range(reps):
            rows.append(
                {
                    "code": code,
                    "system": system,
                    "p": p,
                    "time": (t_prime + noise * rng.standard_normal()) / p,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("functions", "coefficients"),
    [
        (("1/p", "1/sqrt(p)"), (10.0, 0.5)),
        (("1/p", "1"), (10.0, 0.05)),
        (("1/p", "log(p)"), (10.0, 0.02)),
        (("1/p^2", "1/p"), (3.0, 8.0)),
    ],
)
def test_selection_picks_the_true_pair(functions, coefficients):
    frame = pd.concat(
        [
            pair_runs(functions, coefficients, code="a", seed=1),
            pair_runs(functions, [2 * c for c in coefficients], code="b", seed=2),
        ]
    )
    report = analyse_scaling(frame)
    for pair in report.individual.pairs:
        assert pair.best.functions == functions
        assert pair.best.kept
        truth = np.array(coefficients) * (2 if pair.code == "b" else 1)
        assert np.all(np.abs(np.array(pair.best.delta) - truth) <= 4 * np.array(pair.best.stderr))
    assert report.individual.ranked_totals()[0].functions == functions


def test_kept_models_beat_the_one_function_models_they_contain():
    report = analyse_scaling(pair_runs(("1/p", "1"), (10.0, 0.05)))
    pair = report.individual.pairs[0]
    by_functions = {fit.functions: fit for fit in pair.fits}
    assert len(pair.fits) == 7 + 21
    for fit in pair.fits:
        y_squared = fit.sst
        assert fit.r_squared == pytest.approx(1 - fit.sse / y_squared, rel=1e-12)
        if len(fit.functions) == 2:
            singles = [by_functions[(f,)].residual_mean_square for f in fit.functions]
            assert fit.kept == (fit.residual_mean_square < min(singles))
    assert any(not fit.kept for fit in pair.fits)
    assert pair.best is min((f for f in pair.fits if f.kept), key=lambda f: f.residual_mean_square)


def test_totals_add_up_over_pairs():
    frame = pd.concat([pair_runs(("1/p", "1"), (10.0, 0.05), code=c, seed=i) for i, c in enumerate("xyz")])
    individual = analyse_scaling(frame).individual
    total = individual.total(("1/p", "1"))
    assert total.n_pairs == 3 and total.complete
    assert total.sse == pytest.approx(
        sum(f.sse for p in individual.pairs for f in p.fits if f.functions == ("1/p", "1")), rel=1e-12
    )
    assert individual.best_sse == pytest.approx(sum(p.best.sse for p in individual.pairs), rel=1e-12)
    assert individual.sst == pytest.approx(sum(p.sst for p in individual.pairs), rel=1e-12)


def test_least_squares_fit_matches_numpy_and_refuses_rank_deficiency():
    rng = np.random.default_rng(3)
    X = rng.uniform(1, 2, size=(12, 2))
    y = X @ [2.0, -1.0] + 0.01 * rng.standard_normal(12)
    coefficients, stderr, sse = least_squares_fit(X, y)
    expected, residual, *_ = np.linalg.lstsq(X, y, rcond=None)
    assert_allclose(coefficients, expected, rtol=1e-10)
    assert sse == pytest.approx(float(residual[0]), rel=1e-10)
    covariance = np.linalg.inv(X.T @ X) * sse / (12 - 2)
    assert_allclose(stderr, np.sqrt(np.diag(covariance)), rtol=1e-8)
    assert least_squares_fit(np.column_stack([X[:, 0], 3 * X[:, 0]]), y) is None
    assert least_squares_fit(X[:2], y[:2]) is None


def test_work_and_peak_transform_the_scale():
    frame = pair_runs(("1/p", "1"), (10.0, 0.05))
    plain = analyse_scaling(frame).individual.pairs[0].best
    scaled = analyse_scaling(frame, work={"app": 4.0}, peak={"host": 2.0}).individual.pairs[0]
    assert scaled.best.functions == plain.functions
    assert_allclose(scaled.best.delta, np.array(plain.delta) * 2.0 / 4.0, rtol=1e-9)
    report = analyse_scaling(frame.assign(work=4.0, peak=2.0))
    assert_allclose(report.individual.pairs[0].best.delta, scaled.best.delta, rtol=1e-12)
    observations = report.observations.frame
    assert_allclose(
        observations["response"], observations["time"] * observations["p"] * 2.0 / 4.0, rtol=1e-12
    )


def test_without_p_scaling_times_are_fitted_as_they_are():
    frame = pair_runs(("1/p", "1"), (10.0, 0.05), noise=0.0)
    report = analyse_scaling(frame, ScalingOptions(p_scaling=False))
    observations = report.observations.frame
    assert_allclose(observations["response"], observations["time"], rtol=1e-12)
    assert_allclose(report.individual.pairs[0].best.delta, [10.0, 0.05], rtol=1e-6)


def test_relative_weighting_fits_relative_errors():
    frame = pair_runs(("1/p", "1"), (10.0, 0.05), noise=0.0)
    report = analyse_scaling(frame, ScalingOptions(weighting="relative"))
    pair = report.individual.pairs[0]
    assert pair.sst == pytest.approx(len(frame), rel=1e-12)
    assert_allclose(pair.best.delta, [10.0, 0.05], rtol=1e-6)


def test_outliers_are_removed_and_listed():
    frame = pair_runs(("1/p", "1"), (10.0, 0.05)).assign(line=range(2, 26))
    frame.loc[5, "time"] *= 20
    report = analyse_scaling(frame, source="runs.csv")
    removed = report.observations.removed
    assert list(removed["line"]) == [7]
    assert removed["ratio"].iloc[0] == pytest.approx(20, rel=0.1)
    assert len(report.observations.frame) == len(frame) - 1
    assert any("outlier" in note for note in report.notes)
    kept_all = analyse_scaling(frame, ScalingOptions(outlier_factor=0))
    assert kept_all.observations.removed.empty


def test_aggregate_combines_repetitions():
    frame = pair_runs(("1/p", "1"), (10.0, 0.05))
    report = analyse_scaling(frame, ScalingOptions(aggregate="median"))
    assert len(report.observations.frame) == len(PROCS)


def test_codes_and_systems_select():
    frame = pd.concat([pair_runs(("1/p", "1"), (10.0, 0.05), code=c, seed=i) for i, c in enumerate("xy")])
    assert analyse_scaling(frame, ScalingOptions(codes=("y",))).observations.codes == ["y"]
    with pytest.raises(UsageError, match="--codes: w not in .*available: x, y"):
        analyse_scaling(frame, ScalingOptions(codes=("w",)))


# --- degenerate data ---------------------------------------------------------------------------------


def test_one_processor_count_is_a_fit_error():
    frame = pd.DataFrame({"code": "x", "system": "a", "p": 4, "time": [1.0, 1.1, 1.2, 1.3]})
    with pytest.raises(FitError, match="x on a: all 4 run.s. use p=4; .*at least two processor counts"):
        analyse_scaling(frame)


def test_fewer_runs_than_parameters_is_a_fit_error():
    frame = pd.DataFrame({"code": "x", "system": "a", "p": [1, 2], "time": [2.0, 1.1]})
    with pytest.raises(FitError, match="2 runs are fewer than the 3 needed"):
        analyse_scaling(frame)


def test_all_equal_times_are_a_fit_error():
    frame = pd.DataFrame({"code": "x", "system": "a", "p": [1, 2, 4, 8], "time": 2.5})
    with pytest.raises(FitError, match="all 4 times are equal"):
        analyse_scaling(frame)


def test_one_pair_with_equal_times_is_named():
    good = pair_runs(("1/p", "1"), (10.0, 0.05), code="good")
    flat = pd.DataFrame({"code": "flat", "system": "host", "p": [1, 2, 4, 8], "time": 2.5})
    with pytest.raises(FitError, match="flat on host: all 4 times are equal"):
        analyse_scaling(pd.concat([good, flat]))


def test_skip_sparse_leaves_pairs_to_the_joint_model():
    good = pair_runs(("1/p", "1"), (10.0, 0.05), code="good")
    sparse = pd.DataFrame({"code": "sparse", "system": "host", "p": [4, 4], "time": [0.3, 0.31]})
    report = analyse_scaling(pd.concat([good, sparse]), ScalingOptions(skip_sparse=True))
    assert [pair.code for pair in report.individual.pairs] == ["good"]
    assert any("sparse on host: no individual fits" in note for note in report.notes)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [("p", 0, "p is 0; it must be a number >= 1"), ("time", -1.0, "time is -1; it must be positive")],
)
def test_bad_values_name_their_line(column, value, message):
    frame = pair_runs(("1/p", "1"), (10.0, 0.05)).assign(line=range(2, 26))
    frame.loc[3, column] = value
    with pytest.raises(UsageError, match=f"runs.csv:5: {message}"):
        analyse_scaling(frame, source="runs.csv")


def test_functions_of_n_need_a_size():
    with pytest.raises(UsageError, match="'n/p' uses n"):
        analyse_scaling(pair_runs(("1/p", "1"), (10.0, 0.05)), ScalingOptions(functions="n/p,1"))


def test_max_terms_is_checked():
    with pytest.raises(UsageError, match="--max-terms 4"):
        analyse_scaling(pair_runs(("1/p", "1"), (10.0, 0.05)), ScalingOptions(max_terms=4))


# --- reading files -----------------------------------------------------------------------------------


def test_runs_csv_maps_app_params_host_and_procs():
    frame = read_scaling_csv(DATA / "runs.csv")
    assert set(frame["code"]) == {
        "cg[n=1000]",
        "jacobi[n=256;steps=10]",
        "jacobi[n=512;steps=10]",
        "jacobi[n=1024;steps=10]",
    }
    assert set(frame["system"]) == {"node-a", "node-b"}
    assert frame["line"].iloc[0] == 4
    assert frame["n"].isna().all()
    by_app = read_scaling_csv(DATA / "runs.csv", code_key="app")
    assert set(by_app["code"]) == {"cg", "jacobi"}
    sized = read_scaling_csv(DATA / "runs.csv", size_param="n")
    assert set(sized["code"]) == {"cg", "jacobi[steps=10]"}
    assert set(sized.loc[sized["code"] == "jacobi[steps=10]", "n"]) == {256.0, 512.0, 1024.0}


def test_runs_dataframe_without_host_and_with_threads():
    runs = pd.DataFrame(
        {
            "app": "heat",
            "params": "n=64",
            "procs": [1, 2, 2],
            "threads": [1, 1, 4],
            "rep": 0,
            "time_s": [4.0, 2.1, 0.6],
        }
    )
    frame = scaling_frame_from_runs(runs)
    assert list(frame["p"]) == [1.0, 2.0, 8.0]
    assert set(frame["system"]) == {"this"}
    assert list(scaling_frame_from_runs(runs, p_from="procs")["p"]) == [1.0, 2.0, 2.0]
    with pytest.raises(UsageError, match="--system-column rack: no such column"):
        scaling_frame_from_runs(runs, system_column="rack")
    with pytest.raises(UsageError, match="params has no 'size'"):
        scaling_frame_from_runs(runs, size_param="size")


def test_results_table_and_rate_tables():
    frame = read_scaling_csv(DATA / "npb.csv")
    assert set(frame["code"]) == {"BT", "LU", "SP", "MG"}
    assert set(frame["system"]) == {"SP2", "T3D", "Paragon"}
    assert read_rate_table(DATA / "npb_work.csv", "code", "work")["MG"] == pytest.approx(4.0)
    with pytest.raises(UsageError, match="--work: no work for code.s. MG"):
        analyse_scaling(frame, work={"BT": 1.0, "LU": 1.0, "SP": 1.0})


def test_bad_number_names_file_and_line():
    with pytest.raises(UsageError, match=r"bad_time.csv:3: column 'time' is 'fast', not a finite number"):
        read_scaling_csv(DATA / "bad_time.csv")


def test_other_runs_versions_and_unknown_columns_are_refused(tmp_path):
    newer = tmp_path / "runs.csv"
    newer.write_text("# perfeq-runs 3\napp,params,procs,threads,rep,time_s\nx,,1,1,0,1.0\n")
    with pytest.raises(UsageError, match="runs.csv:1: perfeq-runs version 3"):
        read_scaling_csv(newer)
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(UsageError, match="neither a runs CSV"):
        read_scaling_csv(other)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("# comment\ncode,system,p,time\nx,a,1,2.0\nx,a,2,1.0,extra,fields\n")
    with pytest.raises(UsageError, match="ragged.csv:4:"):
        read_scaling_csv(ragged)
