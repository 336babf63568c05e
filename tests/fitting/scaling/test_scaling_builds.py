"""Build configurations as the "systems" of ``perfeq scaling``: a real campaign with two builds.

``perfeq calibrate --build O0=-O0 --build O2=-O2`` compiles and times a real program (cg, at tiny
sizes) once per build; the runs CSV records the build, and ``perfeq scaling`` takes the builds as
its systems.  Also: the optional ``build`` column of the runs CSV, and one-line errors.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import EXAMPLES

from perfeq.cli import main
from perfeq.errors import FitError
from perfeq.fitting.regression.runs import MAGIC, Run, append_runs, read_runs, write_runs
from perfeq.fitting.scaling.data import scaling_frame_from_runs

EXAMPLES = EXAMPLES
BUILDS = ("O0", "O2")


def _catalog(folder: Path) -> Path:
    """cg alone, at two tiny sizes with a fixed iteration count (runs of a few milliseconds)."""
    folder.mkdir()
    shutil.copy(EXAMPLES / "cg.c", folder / "cg.c")
    entry = {
        "name": "cg",
        "source": "cg.c",
        "description": "conjugate gradient (test sizes)",
        "openmp": False,
        "params": [
            {"name": "n", "argv": 1, "small": 16, "calibration": [32, 48]},
            {"name": "iters", "argv": 2, "small": 10, "calibration": [20, 20]},
        ],
    }
    (folder / "catalog.json").write_text(
        json.dumps({"format": "perfeq-examples", "version": 1, "examples": [entry]})
    )
    return folder


def _calibrate(apps: Path, output: Path, *builds: str) -> int:
    args = ["calibrate", "--apps", str(apps), "--reps", "1", "--procs", "1,2", "-o", str(output)]
    for build in builds:
        args += ["--build", f"{build}=-{build}"]
    return main(args)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("builds")
    apps = _catalog(folder / "apps")
    runs = folder / "runs.csv"
    assert _calibrate(apps, runs, *BUILDS) == 0
    return apps, runs


def _scaling(capsys, *args):
    status = main(["scaling", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_every_point_is_timed_once_per_build(campaign):
    _, path = campaign
    lines = path.read_text().splitlines()
    assert lines[0] == MAGIC and "build" in lines[1].split(",")
    runs = read_runs(path)
    points = {(run.params, run.procs) for run in runs}
    assert points == {(f"n={n};iters=20", p) for n in (32, 48) for p in (1, 2)}
    assert sorted((run.params, run.procs, run.build) for run in runs) == sorted(
        (params, procs, build) for params, procs in points for build in BUILDS
    )
    # the counts come from the source, so they do not depend on the build
    for params, procs in points:
        counts = [run.counts for run in runs if (run.params, run.procs) == (params, procs)]
        assert counts[0] == counts[1] and counts[0]["ops"] > 0


def test_a_rerun_resumes_by_build(campaign, tmp_path, capsys):
    apps, path = campaign
    copy = tmp_path / "runs.csv"
    shutil.copy(path, copy)
    assert _calibrate(apps, copy, *BUILDS) == 0
    assert "every point is already in" in capsys.readouterr().err
    assert _calibrate(apps, copy, "O1", *BUILDS) == 0
    runs = read_runs(copy)
    assert len(runs) == 12 and sum(run.build == "O1" for run in runs) == 4


def test_scaling_takes_the_builds_as_systems(campaign, capsys):
    _, path = campaign
    status, out, err = _scaling(capsys, path, "--size-param", "n", "--joint", "--json")
    assert status == 0, err
    report = json.loads(out)
    observations = report["observations"]
    assert observations["systems"] == list(BUILDS) and observations["runs"] == 8
    assert {(c["system"], c["runs"]) for c in observations["counts"]} == {(b, 4) for b in BUILDS}
    assert sorted(pair["system"] for pair in report["individual"]["pairs"]) == list(BUILDS)
    for pair in report["individual"]["pairs"]:
        assert pair["best"] and pair["runs"] == 4
    (best, *_) = report["joint"]
    powers = {p["name"] for p in best["parameters"] if p["kind"] == "power"}
    assert powers == set(BUILDS)
    assert report["notes"][0].startswith("systems are the build configurations")


def test_scaling_text_tables_per_build(campaign, capsys):
    _, path = campaign
    status, out, err = _scaling(capsys, path, "--size-param", "n", "--joint")
    assert status == 0, err
    assert "1 code(s) x 2 system(s)" in out
    table1 = out.split("(Table 1)")[1].split("\n\n")[0]
    assert table1.splitlines()[1].split() == ["code", *BUILDS, "Total"]
    for heading in ("(Table 2:", "(Table 3:", "(Table 4:", "(Table 5;"):
        assert heading in out
    assert "cg[iters=20] on O0" in out and "cg[iters=20] on O2" in out


def test_system_column_host_pools_the_builds(campaign, capsys):
    _, path = campaign
    status, out, err = _scaling(capsys, path, "--size-param", "n", "--system-column", "host", "--json")
    assert status == 0, err
    (host,) = {run.host for run in read_runs(path)}
    assert json.loads(out)["observations"]["systems"] == [host]


def test_too_few_runs_per_build_is_a_one_line_error(campaign, capsys):
    _, path = campaign
    # without --size-param every size is its own code: 2 runs (P = 1, 2) per code and build
    status, out, err = _scaling(capsys, path, "--systems", "O2")
    assert status == 2 and out == ""
    assert err.startswith("perfeq: error: ") and err.count("\n") == 1
    assert "cg[n=32;iters=20] on O2: 2 runs are fewer than the 3 needed" in err


@pytest.mark.parametrize(
    ("builds", "message"),
    [
        (["O3"], "--build O3: expected NAME=FLAGS"),
        (["..=-O2"], "--build ..=-O2: expected NAME=FLAGS"),
        (["O3=-O3", "O3=-O2"], "--build O3 is given twice"),
        (["O3=-O3 '-march"], "--build O3=-O3 '-march: No closing quotation"),
    ],
)
def test_bad_build_options_are_one_line_errors(builds, message, tmp_path, capsys):
    args = ["calibrate", "--only", "cg", "-o", str(tmp_path / "runs.csv")]
    for build in builds:
        args += ["--build", build]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("perfeq: error: ") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "runs.csv").exists()


def test_slurm_refuses_builds(tmp_path, capsys):
    args = [
        "calibrate",
        "--only",
        "cg",
        "--build",
        "O3=-O3",
        "--slurm",
        str(tmp_path / "job.sh"),
        "-o",
        str(tmp_path / "runs.csv"),
    ]
    assert main(args) == 2
    assert "--slurm and --import-times take the default build" in capsys.readouterr().err


# ---- the optional build column of the runs CSV ------------------------------------------------------
def _run(build: str = "", time_s: float = 1.0) -> Run:
    return Run("cg", "n=32", 1, time_s, {"ops": 10.0}, host="h", build=build)


def test_build_column_round_trips_and_is_written_only_when_used(tmp_path):
    plain, built = tmp_path / "plain.csv", tmp_path / "built.csv"
    write_runs(plain, [_run()])
    assert plain.read_text().splitlines()[1] == "app,params,procs,threads,rep,time_s,ops,host,timestamp"
    write_runs(built, [_run("O0"), _run("O3")])
    assert built.read_text().splitlines()[1] == "app,params,procs,threads,rep,time_s,ops,host,build,timestamp"
    assert [run.build for run in read_runs(built)] == ["O0", "O3"]
    assert read_runs(plain)[0].build == ""
    # runs without a build may join a file with the column (empty field), not the other way round
    append_runs(built, [_run()])
    assert [run.build for run in read_runs(built)] == ["O0", "O3", ""]
    with pytest.raises(FitError, match="columns are .*the new runs have .*build"):
        append_runs(plain, [_run("O2")])


def test_systems_from_builds_and_hosts():
    runs = pd.DataFrame(
        {
            "app": ["a"] * 4,
            "params": [""] * 4,
            "procs": [1, 2, 1, 2],
            "time_s": [1.0] * 4,
            "host": ["x", "x", "y", "y"],
            "build": ["O0", "O0", "O3", ""],
        }
    )
    assert list(scaling_frame_from_runs(runs)["system"]) == ["x/O0", "x/O0", "y/O3", "y"]
    one_host = runs.assign(host="x")
    assert list(scaling_frame_from_runs(one_host)["system"]) == ["O0", "O0", "O3", "x"]
    assert list(scaling_frame_from_runs(one_host.drop(columns="build"))["system"]) == ["x"] * 4
    assert list(scaling_frame_from_runs(runs, system_column="host")["system"]) == ["x", "x", "y", "y"]


def test_fit_and_validate_take_one_build(campaign, tmp_path, capsys):
    """One machine profile per build: a file with several needs --build (one-line error otherwise)."""
    _, path = campaign
    assert main(["fit", str(path), "--costs", "ops"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and "--build NAME" in err
    assert main(["fit", str(path), "--costs", "ops", "--build", BUILDS[0], "-o", str(tmp_path / "m.json")]) == 0
    assert "4 runs" in capsys.readouterr().out
    assert main(["fit", str(path), "--costs", "ops", "--build", "O9"]) == 2
    assert "no runs of build 'O9'" in capsys.readouterr().err
    assert main(["validate", str(path), "--costs", "ops", "-o", str(tmp_path / "v")]) == 2
    assert "--build NAME" in capsys.readouterr().err
