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


def test_the_launch_term_is_charged_to_mpi_programs_only(kernels, tmp_path, capsys):
    """``const``, fitted on calibration runs launched with mpiexec (its start-up and MPI_Init), is
    charged to a program that initialises MPI and not to one that never does (PolyBench's 22 ms
    fdtd-2d was predicted 0.098 s, 75 ms of it this term); the prediction says so."""
    from conftest import C_PROGRAMS

    from perfeq.fitting.regression.fit import fit_machine
    from perfeq.fitting.regression.profile import save_profile
    from perfeq.fitting.regression.synthetic import synthetic_runs
    from perfeq.toolchain import find_mpi

    machine = tmp_path / "machine.json"
    save_profile(fit_machine(synthetic_runs(30, np.random.default_rng(5), const=0.05), intercept=True), machine)
    model, _ = kernels
    model.save(tmp_path / "mpi.json")
    binary = tmp_path / "clamp"
    assert main(["cc", "--build-dir", str(tmp_path / "b"), "--", find_mpi().mpicc, "-O1",
                 str(C_PROGRAMS / "real" / "clamp.c"), "-o", str(binary)]) == 0
    traces = [tmp_path / f"t{n}.trace" for n in (20, 37)]
    for n, trace in zip((20, 37), traces, strict=True):
        assert main(["run", "-o", str(trace), "--", str(binary), str(n)]) == 0
    assert main(["model", *map(str, traces), "-o", str(tmp_path / "plain.json")]) == 0
    capsys.readouterr()
    charged = {}
    for name, values in (("mpi", ["n=4096", "steps=10", "P=2"]), ("plain", ["n=300"])):
        assert main(["predict", str(tmp_path / f"{name}.json"), "--machine", str(machine), *values, "--json"]) == 0
        result = json.loads(capsys.readouterr().out)
        (const,) = [c for c in result["contributions"] if c["name"] == "const"]
        charged[name] = const["seconds"]
        notes = " ".join(result["warnings"])
        assert ("does not initialise MPI" in notes) == (name == "plain")
    assert charged["mpi"] == pytest.approx(0.05, rel=0.2) and charged["plain"] == 0
