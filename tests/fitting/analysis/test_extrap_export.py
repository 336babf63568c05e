"""``perfeq export --extrap RUNS`` (fitting/analysis/extrap.py, issue 20 item 6): Extra-P's text input,
one experiment per application, from a kept calibration campaign; loaded by Extra-P itself where it is
installed (`extrap` on PATH, or its path in $EXTRAP)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import BENCHMARK_DATA, one_line_error

from perfeq.cli import main
from perfeq.fitting.regression.runs import read_runs

CAMPAIGN = BENCHMARK_DATA / "2026-11-23-gram-7.runs.csv"


def test_one_experiment_per_application_with_every_point_and_repetition(tmp_path, capsys):
    assert main(["export", "--extrap", str(CAMPAIGN), "-o", str(tmp_path)]) == 0
    runs = read_runs(CAMPAIGN)
    apps = sorted({run.app for run in runs})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{app}.extrap.txt" for app in apps)
    lines = (tmp_path / "cg.extrap.txt").read_text().splitlines()
    mine = [run for run in runs if run.app == "cg"]
    varying = [name for name in ("n", "iters") if len({run.params.split(";")[name == "iters"] for run in mine}) > 1]
    assert [line for line in lines if line.startswith("PARAMETER")] == [f"PARAMETER {v}" for v in (*varying, "p")]
    points = re.findall(r"\( ([^)]*) \)", next(line for line in lines if line.startswith("POINTS")))
    assert len(points) == len({(run.params, run.procs) for run in mine})
    metrics = [line.split()[1] for line in lines if line.startswith("METRIC")]
    assert metrics[0] == "time" and "loads" in metrics
    data = [line.split()[1:] for line in lines if line.startswith("DATA")]
    assert len(data) == len(points) * len(metrics)
    first = dict(zip((*varying, "p"), points[0].split(), strict=True))
    times = sorted(run.time_s for run in mine if run.procs == int(first["p"]) and all(
        f"{name}={first[name]}" in run.params.split(";") for name in varying))
    assert sorted(float(v) for v in data[0]) == times  # the repetitions of the first point, as measured


def test_nothing_to_model_is_one_line(tmp_path, capsys):
    flat = tmp_path / "flat.runs.csv"
    flat.write_text("# perfeq-runs 1\napp,params,procs,time_s,ops\nmm,n=1,1,0.5,10\nmm,n=1,1,0.6,10\n")
    assert main(["export", "--extrap", str(flat), "-o", str(tmp_path / "out")]) == 2
    assert "no application can be written: mm: every run has the same parameters" in one_line_error(capsys)
    assert not (tmp_path / "out").exists()


def test_extrap_itself_loads_and_models_the_files(tmp_path, capsys):
    extrap = os.environ.get("EXTRAP") or shutil.which("extrap")
    if not extrap:
        pytest.skip("Extra-P is not installed (pip install extrap; or EXTRAP=/path/to/extrap)")
    assert main(["export", "--extrap", str(CAMPAIGN), "-o", str(tmp_path)]) == 0
    result = subprocess.run([extrap, "--text", str(tmp_path / "gauss.extrap.txt")], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Metric: time" in result.stdout and result.stdout.count("Model:") >= 2
