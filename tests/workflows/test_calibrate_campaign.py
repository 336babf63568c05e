"""``perfeq calibrate``: the run order of a campaign, and the Slurm route (script, then --import-times).

Real programs (cg and ocean at tiny sizes) are compiled, run and timed; the Slurm script is run
with bash and a local ``mpiexec`` launcher in place of ``srun``, as on a login node without Slurm.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import tiny_calibration_apps

from perfeq.cli import main
from perfeq.examples.catalog import load_catalog
from perfeq.fitting.regression.runs import MAGIC, read_runs
from perfeq.toolchain import find_mpi, mpi_env
from perfeq.workflows.calibrate import plan


@pytest.fixture(scope="module")
def apps(tmp_path_factory) -> Path:
    return tiny_calibration_apps(tmp_path_factory.mktemp("campaign") / "apps")


def _key(run) -> tuple:
    return run.app, run.params, run.procs, run.rep


def test_the_shuffled_order_is_a_fixed_permutation_that_interleaves_applications():
    examples = load_catalog(None)
    grouped = plan(examples, [1, 2], 3, order="grouped")
    shuffled = plan(examples, [1, 2], 3, order="shuffled", seed=0)
    assert Counter(p.key() for p in shuffled) == Counter(p.key() for p in grouped)
    assert [p.key() for p in plan(examples, [1, 2], 3, order="shuffled", seed=0)] == [p.key() for p in shuffled]
    assert [p.key() for p in plan(examples, [1, 2], 3, order="shuffled", seed=1)] != [p.key() for p in shuffled]
    # grouped: one application's runs in one stretch; shuffled: every application's runs spread
    # over the campaign (each has runs in both halves)
    first = {p.example.name for p in grouped[: len(grouped) // 2]}
    assert len(first) <= len(examples) // 2 + 1
    half = len(shuffled) // 2
    for example in examples:
        positions = [i for i, p in enumerate(shuffled) if p.example.name == example.name]
        assert min(positions) < half <= max(positions), example.name


def test_the_builds_of_a_point_stay_together_when_shuffled():
    examples = load_catalog(None)
    points = plan(examples, [1, 2], 2, builds=("O0", "O3"), order="shuffled", seed=5)
    assert len(points) == 2 * len(plan(examples, [1, 2], 2, order="shuffled", seed=5))
    pairs = [points[i:i + 2] for i in range(0, len(points), 2)]
    assert all(a.key()[:4] == b.key()[:4] and {a.build, b.build} == {"O0", "O3"} for a, b in pairs)
    firsts = Counter(a.build for a, _ in pairs)  # neither build always runs first
    assert firsts["O0"] and firsts["O3"]


def test_a_campaign_times_the_points_in_the_planned_order(apps, tmp_path):
    runs_path = tmp_path / "runs.csv"
    args = ["calibrate", "--apps", str(apps), "--reps", "2", "--procs", "1", "--seed", "3", "-o", str(runs_path)]
    assert main(args) == 0
    runs = read_runs(runs_path)
    expected = plan(load_catalog(apps), [1], 2, order="shuffled", seed=3)
    assert [_key(run) for run in runs] == [(p.example.name, p.params, p.procs, p.rep) for p in expected]
    assert all(run.time_s > 0 and run.counts["ops"] > 0 for run in runs)
    # the grouped order is still there, and a rerun resumes whatever the order
    assert main([*args, "--order", "grouped"]) == 0
    assert len(read_runs(runs_path)) == len(runs)
    # an interrupted campaign resumes: the missing points, in the planned order, none twice
    lines = runs_path.read_text().splitlines(keepends=True)
    runs_path.write_text("".join(lines[:2 + 3]))  # magic, header and three runs
    assert main(args) == 0
    resumed = read_runs(runs_path)
    assert [_key(run) for run in resumed] == [_key(run) for run in runs]


def test_resuming_a_file_without_a_newer_count_column_is_refused_before_any_work(apps, tmp_path, capsys):
    """A runs CSV written before the 'chain' column existed cannot take new rows: refused in one
    line naming the file, before any program is built or timed, and the file is left as it was."""
    runs_path, workdir = tmp_path / "old.csv", tmp_path / "work"
    args = ["calibrate", "--apps", str(apps), "--reps", "1", "--procs", "1", "--workdir", str(workdir),
            "-o", str(runs_path)]
    assert main(args) == 0
    header, *rows = [line.split(",") for line in runs_path.read_text().splitlines()[1:]]
    drop = header.index("chain")
    old = f"{MAGIC}\n" + "".join(",".join(f[:drop] + f[drop + 1:]) + "\n" for f in [header, *rows[:1]])
    runs_path.write_text(old)
    shutil.rmtree(workdir)
    capsys.readouterr()
    assert main(args) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(runs_path) in err and "write them to a new file" in err, err
    assert runs_path.read_text() == old and not workdir.exists()
    # a file of perfeq-runs 1, whose 'startup' column was the messages sent, is refused alike
    older = "# perfeq-runs 1\n" + "".join(",".join(f) + "\n" for f in [header, *rows])
    runs_path.write_text(older)
    assert main(args) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(runs_path) in err and "perfeq-runs 1" in err, err
    assert runs_path.read_text() == older and not workdir.exists()


def test_a_slurm_script_runs_without_slurm_and_its_times_import(apps, tmp_path, capsys):
    script, runs_path = tmp_path / "calibrate.sh", tmp_path / "runs.csv"
    mpiexec = find_mpi().mpiexec
    assert main(["calibrate", "--apps", str(apps), "--reps", "1", "--procs", "1,2", "--slurm", str(script),
                 "--launcher", f"{mpiexec} -n {{P}} {{cmd}}", "-o", str(runs_path)]) == 0
    text = script.read_text()
    assert text.startswith("#!/bin/bash") and "#SBATCH --ntasks=2" in text and "OMP_NUM_THREADS=1" in text
    # the binaries outlive the command (beside the script), the script needs no bc
    assert (tmp_path / "calibrate.sh.d" / "plain").is_dir() and not re.search(r"\bbc\b", text)
    # it checks that the launcher starts one MPI job of 2 processes, and says how to import with the same --apps
    assert "mpi_size_probe" in text and f"--apps {apps.resolve()} --import-times" in text
    subprocess.run(["bash", str(script)], check=True, cwd=tmp_path, timeout=300, env=mpi_env())
    times = runs_path.with_suffix(".times.csv")
    lines = times.read_text().splitlines()
    assert len(lines) == 8 and all(float(line.split(",")[4]) > 0 for line in lines)
    capsys.readouterr()
    assert main(["calibrate", "--apps", str(apps), "--import-times", str(times), "-o", str(runs_path)]) == 0
    assert "imported 8 runs" in capsys.readouterr().err
    runs = read_runs(runs_path)
    assert sorted(_key(run) for run in runs) == sorted(
        (app, f"n={n};{second}={value}", procs, 0)
        for app, second, value in (("cg", "iters", 20), ("ocean", "steps", 10))
        for n in (32, 48) for procs in (1, 2))
    assert all(run.counts["ops"] > 0 for run in runs)
    assert all(run.counts["startup"] > 0 for run in runs if run.procs == 2)


def test_ctrl_c_says_what_was_kept_and_how_to_resume(apps, tmp_path, capsys, monkeypatch):
    """Ctrl-C in the third timing: the two runs before it stay in the file, one line says so and how to
    go on, exit 130; the same command then times the rest."""
    import perfeq.workflows.calibrate as campaign

    timed = campaign.time_run
    calls = []

    def interrupted_third(*args, **kwargs):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return timed(*args, **kwargs)

    runs_path = tmp_path / "runs.csv"
    args = ["calibrate", "--apps", str(apps), "--only", "cg", "--reps", "2", "--procs", "1", "-o", str(runs_path)]
    monkeypatch.setattr(campaign, "time_run", interrupted_third)
    assert main(args) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"perfeq: error: interrupted: 2 new runs kept in {runs_path} (2 in all); run the same "
                       "command again to time the rest")
    assert len(read_runs(runs_path)) == 2
    monkeypatch.setattr(campaign, "time_run", timed)
    assert main(args) == 0 and len(read_runs(runs_path)) == 4


def test_a_program_stopped_by_ctrl_c_is_an_interruption_not_a_failure(tmp_path):
    """mpiexec and the program get the terminal's SIGINT too: a run that ended by it is not 'failed'."""
    from perfeq.workflows.pipeline import time_run

    script = tmp_path / "prog"
    # (in Python: a shell started with SIGINT ignored, as a background job is, cannot un-ignore it)
    script.write_text(f"#!{sys.executable}\nimport os, signal\nsignal.signal(signal.SIGINT, signal.SIG_DFL)\n"
                      "os.kill(os.getpid(), signal.SIGINT)\n")
    script.chmod(0o755)
    with pytest.raises(KeyboardInterrupt):
        time_run(script, [], 1, launcher="{cmd}")
