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
