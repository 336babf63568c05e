"""Tests of ``perfeq fit`` and ``perfeq machine-profile`` through perfeq.cli.main: output, files, exit codes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import one_line_error

from perfeq.cli import main
from perfeq.fitting.regression.profile import load_profile
from perfeq.fitting.regression.runs import Run, write_runs
from perfeq.fitting.regression.synthetic import synthetic_runs


@pytest.fixture
def runs_csv(tmp_path):
    path = tmp_path / "runs.csv"
    write_runs(path, synthetic_runs(24, np.random.default_rng(31)))
    return path


def test_fit_prints_a_table_and_writes_profile_and_plots(tmp_path, runs_csv, capsys):
    out = tmp_path / "machine.json"
    plots = tmp_path / "plots"
    assert main(["fit", str(runs_csv), "-o", str(out), "--plots", str(plots)]) == 0
    text = capsys.readouterr().out
    for expected in (
        "ns/op",
        "us/message",
        "ns/byte",
        "95% CI",
        "p-value",
        "VIF",
        "R^2",
        "sigma",
        "condition number",
    ):
        assert expected in text
    profile = load_profile(out)
    assert profile.names == ("ops", "startup", "bytes") and profile.weighting == "relative"
    for name in ("residuals_qq.png", "residuals_vs_fitted.png"):
        assert (plots / name).read_bytes().startswith(b"\x89PNG")


def test_fit_json_with_options(runs_csv, capsys):
    args = [
        "fit",
        str(runs_csv),
        "--json",
        "--costs",
        "ops,startup,bytes",
        "--weighting",
        "none",
        "--intercept",
    ]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["weighting"] == "none"
    assert list(data["costs"]) == ["ops", "startup", "bytes", "const"]


def test_fit_refuses_too_few_runs(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    write_runs(path, synthetic_runs(2, np.random.default_rng(0)))
    assert main(["fit", str(path), "--costs", "all"]) == 2
    assert "2 runs for 3 costs" in one_line_error(capsys)
    assert main(["fit", str(path)]) == 0  # choosing a set: the richest one two runs can carry
    assert "not admissible ops,startup,bytes: 2 runs for 3 costs" in capsys.readouterr().out


def test_fit_refuses_an_all_zero_column(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    runs = synthetic_runs(10, np.random.default_rng(0))
    write_runs(path, [Run(r.app, r.params, r.procs, r.time_s, {**r.counts, "page": 0}) for r in runs])
    assert main(["fit", str(path), "--costs", "all"]) == 2
    assert "'page' is zero in every run" in one_line_error(capsys)
    assert main(["fit", str(path), "--costs", "all", "--drop-empty"]) == 0
    assert "dropped cost column(s) page" in capsys.readouterr().out


def test_fit_reports_a_bad_csv_line(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_text("# perfeq-runs 1\napp,params,procs,time_s,ops\nmm,n=1,1,fast,10\n", encoding="utf-8")
    assert main(["fit", str(path)]) == 2
    assert f"perfeq: error: {path}:3: column 'time_s': 'fast' is not a number" in one_line_error(capsys)


def test_fit_refuses_unknown_cost(runs_csv, capsys):
    assert main(["fit", str(runs_csv), "--costs", "ops,,bytes"]) == 2
    assert "empty name" in one_line_error(capsys)
    assert main(["fit", str(runs_csv), "--costs", "ops,l3"]) == 2
    assert "unknown cost 'l3'" in one_line_error(capsys)


def test_machine_profile_manual(tmp_path, capsys):
    out = tmp_path / "machine.json"
    assert (
        main(["machine-profile", "--manual", "ops=1e-9", "startup=5e-6", "bytes=1e-9", "-o", str(out)]) == 0
    )
    assert "no intervals" in capsys.readouterr().out
    profile = load_profile(out)
    assert profile.source == "manual" and profile.values == {"ops": 1e-9, "startup": 5e-6, "bytes": 1e-9}


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("ops", "expected COST=SECONDS"),
        ("ops=fast", "not a number of seconds"),
        ("megaflops=1", "unknown cost 'megaflops'"),
    ],
)
def test_machine_profile_refuses_bad_values(item, message, capsys):
    assert main(["machine-profile", "--manual", item]) == 2
    assert message in one_line_error(capsys)
