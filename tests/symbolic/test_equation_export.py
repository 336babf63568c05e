"""``perfeq equation --format python`` evaluates every term (MPI message functions included), and
``--format maple`` is Maple: on the kernels program's model (tests/c/symbolic/kernels.c)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import one_line_error

from perfeq.cli import main

KEYS = ("ops", "par", "startup", "bytes")


@pytest.fixture(scope="module")
def saved(kernels, tmp_path_factory) -> Path:
    model, _ = kernels
    path = tmp_path_factory.mktemp("equation") / "kernels.model.json"
    model.save(path)
    return path


def test_the_python_export_evaluates_every_term_as_the_model_does(kernels, saved, capsys):
    model, _ = kernels
    assert main(["equation", str(saved), "--format", "python"]) == 0
    namespace: dict = {}
    exec(compile(capsys.readouterr().out, "kernels_equation.py", "exec"), namespace)
    values, procs = {"n": 96.0, "steps": 3.0}, 4
    assert any(name.startswith("mpi_sent_") for name in namespace)  # the program's messages are there
    for key in KEYS:
        got = [float(namespace[f"chi_{key}"](96, 3, procs, rank)) for rank in range(procs)]
        np.testing.assert_allclose(got, model.per_rank(key, values, procs), rtol=1e-12)
    beta = {"ops": 1e-9, "startup": 5e-6, "bytes": 1e-9, "const": 0.05}
    expected = [0.05 + sum(beta[k] * model.per_rank(k, values, procs)[rank] for k in ("ops", "startup", "bytes"))
                for rank in range(procs)]
    got = [namespace["t"](beta, 96, 3, procs, rank) for rank in range(procs)]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_the_maple_export_is_maple(saved, capsys):
    assert main(["equation", str(saved), "--format", "maple"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assignments = [line for line in lines if not line.startswith("#")]
    assert [line.split(" := ")[0] for line in assignments] == ["chi_ops", "chi_par", "chi_startup", "chi_bytes", "t"]
    assert all(line.endswith(";") and "**" not in line for line in assignments)


def test_blocks_are_not_written_as_python(saved, capsys):
    assert main(["equation", str(saved), "--format", "python", "--blocks"]) == 2
    assert "--blocks is not written in the python format" in one_line_error(capsys)


def test_with_a_machine_profile_the_priced_costs_and_their_values_are_written(kernels, saved, tmp_path, capsys):
    """Issue 20 item 6: `equation --machine` writes the counts of the costs the profile prices (loads,
    stores, branch, ...) and t with its values; the python module's t(BETA, ...) is perfeq predict's
    time on the slowest rank, without its synchronisation term."""
    import json

    from conftest import BENCHMARK_DATA

    machine = tmp_path / "machine.json"
    assert main(["fit", str(BENCHMARK_DATA / "2026-11-23-gram-7.runs.csv"), "--intercept", "-o", str(machine)]) == 0
    priced = [name for name in json.loads(machine.read_text())["costs"] if name != "const"]
    capsys.readouterr()
    assert main(["equation", str(saved), "--machine", str(machine)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" = ")[0] for line in lines[:len(priced)]] == [f"chi_{name}" for name in priced]
    values = json.loads(machine.read_text())["costs"]
    assert lines[-1].startswith("t = ") and f"{values['loads']['value']:.4g}*chi_loads" in lines[-1]
    assert main(["equation", str(saved), "--machine", str(machine), "--format", "python"]) == 0
    namespace: dict = {}
    exec(compile(capsys.readouterr().out, "kernels_equation.py", "exec"), namespace)
    assert main(["predict", str(saved), "--machine", str(machine), "n=96", "steps=3", "P=4", "--json"]) == 0
    prediction = json.loads(capsys.readouterr().out)
    got = namespace["t"](namespace["BETA"], 96, 3, 4, prediction["slowest_rank"])
    # the equation is the deterministic time: perfeq predict adds its synchronisation term on top
    sync = sum(part["seconds"] for part in prediction["contributions"] if part["name"] == "sync")
    assert got == pytest.approx(prediction["time_s"] - sync, rel=1e-9)
