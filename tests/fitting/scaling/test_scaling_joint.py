"""The joint product model t = sum_i w_i[code] / r_i[system] u_i (Strohmaier 1997, Eqs. 12-14, Tables 4-5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA
from numpy.testing import assert_allclose

from perfeq.errors import FitError, UsageError
from perfeq.fitting.scaling.analysis import ScalingOptions, analyse_scaling
from perfeq.fitting.scaling.data import read_rate_table, read_scaling_csv
from perfeq.fitting.scaling.functions import parse_function

DATA = DATA / "scaling"

WORK = {"u1": {"bt": 4.0, "lu": 5.0, "sp": 3.0}, "u2": {"bt": 0.2, "lu": 0.5, "sp": 0.3}}
POWER = {"u1": {"a": 1.0, "b": 0.5, "c": 0.4}, "u2": {"a": 1.0, "b": 1.5, "c": 2.0}}


def joint_runs(
    functions=("1/p", "1/sqrt(p)"),
    *,
    work=WORK,
    power=POWER,
    noise=0.02,
    seed=7,
    procs=(1, 2, 4, 8, 16, 32, 64),
    reps=2,
    sizes=(None,),
):
    """Runs from a known joint model, with normal noise of sd ``noise`` on t' = t * p."""
    rng = np.random.default_rng(seed)
    us = [parse_function(text) for text in functions]
    rows = []
    for code in work["u1"]:
        for system in power["u1"]:
            for n in sizes:
                for p in procs:
                    t_prime = p * sum(
                        work[k][code] / power[k][system] * float(u(p, n))
                        for k, u in zip(("u1", "u2"), us, strict=True)
                    )
                    for _ in range(reps):
                        rows.append(
                            {
                                "code": code,
                                "system": system,
                                "p": p,
                                "n": n if n else np.nan,
                                "time": (t_prime + noise * rng.standard_normal()) / p,
                            }
                        )
    return pd.DataFrame(rows)


def truth_of(parameter):
    key = f"u{parameter.index}"
    return (WORK if parameter.kind == "work" else POWER)[key][parameter.name]


def test_recovers_work_and_power_within_standard_errors():
    report = analyse_scaling(
        joint_runs(), ScalingOptions(functions="1/p,1/sqrt(p)", joint=True, reference_system="a")
    )
    (fit,) = report.joint
    assert fit.converged and fit.identifiable
    assert fit.n_parameters == 2 * (3 + 3 - 1)
    for parameter in fit.parameters():
        if parameter.fixed:
            assert parameter.name == "a" and parameter.value == 1.0 and parameter.stderr == 0.0
            continue
        assert 0 < parameter.stderr < 0.2 * abs(parameter.value)
        assert abs(parameter.value - truth_of(parameter)) <= 3 * parameter.stderr, parameter.symbol
    assert fit.mean_relative_error < 0.02


def test_joint_is_a_restriction_of_the_individual_fits():
    report = analyse_scaling(joint_runs(), ScalingOptions(functions="1/p,1/sqrt(p)", joint=True))
    (fit,) = report.joint
    individual = report.individual.total(("1/p", "1/sqrt(p)"))
    assert fit.individual_sse == pytest.approx(individual.sse, rel=1e-12)
    assert fit.individual_parameters == 2 * 9
    assert individual.sse <= fit.sse <= 1.5 * individual.sse
    assert fit.r_squared == pytest.approx(1 - fit.sse / fit.sst, rel=1e-12)


def test_only_ratios_depend_on_the_normalisation():
    frame = joint_runs()
    fits = [
        analyse_scaling(
            frame, ScalingOptions(functions="1/p,1/sqrt(p)", joint=True, reference_system=name)
        ).joint[0]
        for name in ("a", "c")
    ]
    assert fits[0].reference_system == "a" and fits[1].reference_system == "c"
    assert fits[1].sse == pytest.approx(fits[0].sse, rel=1e-8)
    for code in ("bt", "lu", "sp"):
        for system in ("a", "b", "c"):
            assert_allclose(fits[1].delta(code, system), fits[0].delta(code, system), rtol=1e-6)
    assert_allclose(
        fits[1].power[:, 1] / fits[1].power[:, 2], fits[0].power[:, 1] / fits[0].power[:, 2], rtol=1e-6
    )


def test_predict_time_matches_the_model():
    report = analyse_scaling(
        joint_runs(noise=0.0),
        ScalingOptions(functions="1/p,1/sqrt(p)", joint=True),
        work={"bt": 2.0, "lu": 2.0, "sp": 2.0},
        peak={"a": 1.0, "b": 1.0, "c": 1.0},
    )
    fit = report.joint[0]
    expected = 5.0 / 0.5 / 16 + 0.5 / 1.5 / 4
    assert float(fit.predict_time("lu", "b", 16)) == pytest.approx(expected, rel=1e-6)
    with pytest.raises(UsageError, match="no joint parameters for mg on b"):
        fit.predict_time("mg", "b", 16)


def test_all_pairs_of_functions_are_ranked_and_the_truth_wins():
    report = analyse_scaling(joint_runs(), ScalingOptions(functions="1/p,1/sqrt(p),1,log(p)", joint=True))
    assert len(report.joint) == 6
    assert report.joint[0].functions == ("1/p", "1/sqrt(p)")
    assert [fit.sse for fit in report.joint if fit.identifiable] == sorted(
        fit.sse for fit in report.joint if fit.identifiable
    )


def test_problem_size_as_a_second_variable():
    functions = ("n^2/p", "n/sqrt(p)")
    work = {"u1": {"jacobi": 2e-6}, "u2": {"jacobi": 4e-4}}
    power = {"u1": {"a": 1.0, "b": 0.6}, "u2": {"a": 1.0, "b": 0.5}}
    frame = joint_runs(
        functions, work=work, power=power, noise=0.002, sizes=(256, 512, 1024), procs=(1, 2, 4, 8, 16)
    )
    report = analyse_scaling(frame, ScalingOptions(joint=True))
    assert [f.label for f in report.functions][:2] == ["n/p", "n^2/p"]
    assert all(pair.best.functions == functions for pair in report.individual.pairs)
    best = report.joint[0]
    assert best.functions == functions
    assert_allclose(best.power[:, 1], [0.6, 0.5], rtol=0.05)
    assert_allclose(best.work[:, 0], [2e-6, 4e-4], rtol=0.05)


def test_npb_like_table_with_work_and_peak():
    frame = read_scaling_csv(DATA / "npb.csv")
    work = read_rate_table(DATA / "npb_work.csv", "code", "work")
    peak = read_rate_table(DATA / "npb_peak.csv", "system", "peak")
    report = analyse_scaling(
        frame,
        ScalingOptions(functions="1/p,1,1/sqrt(p)", joint=True, reference_system="SP2"),
        work=work,
        peak=peak,
    )
    best = report.joint[0]
    assert best.functions == ("1/p", "1")
    r1 = {p.name: p.value for p in best.parameters() if p.kind == "power" and p.index == 1}
    w1 = {p.name: p.value for p in best.parameters() if p.kind == "work" and p.index == 1}
    assert_allclose([r1["T3D"], r1["Paragon"]], [0.42, 0.40], rtol=0.05)
    assert_allclose([w1[c] for c in ("BT", "LU", "SP", "MG")], [4.5, 4.0, 5.3, 4.6], rtol=0.05)
    assert best.max_relative_error < 0.1


def test_fewer_runs_than_joint_parameters_is_a_fit_error():
    frame = joint_runs(procs=(1, 2), reps=1)
    with pytest.raises(FitError, match="2 runs are fewer than the 3 needed"):
        analyse_scaling(frame, ScalingOptions(functions="1/p,1/sqrt(p)", joint=True))
    few = joint_runs(
        procs=(1, 4),
        reps=1,
        work={"u1": {"x": 1.0}, "u2": {"x": 0.1}},
        power={"u1": {"a": 1.0, "b": 0.5}, "u2": {"a": 1.0, "b": 0.5}},
    )
    with pytest.raises(FitError, match=r"joint model 1/p \+ 1/sqrt\(p\) has 4 parameters .* only 4 runs"):
        analyse_scaling(few, ScalingOptions(functions="1/p,1/sqrt(p)", joint=True, skip_sparse=True))


def test_unknown_reference_system():
    with pytest.raises(UsageError, match="--reference-system z: not in the runs; systems: a, b, c"):
        analyse_scaling(joint_runs(), ScalingOptions(functions="1/p,1", joint=True, reference_system="z"))
