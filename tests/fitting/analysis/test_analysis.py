"""Sensitivity, breakdown and the HTML report on a real example model (fitting/analysis/: sensitivity.py,
breakdown.py, report.py, pricing.py) and through ``perfeq.cli.main``.

The model is the bundled cg example built from two small instrumented runs; the machine is a
hand-written profile with realistic costs and a fixed cache description, so no calibration is needed.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from conftest import TESTS, one_line_error
from numpy.testing import assert_allclose

from perfeq.cli import main
from perfeq.errors import UsageError
from perfeq.examples.catalog import find_example
from perfeq.fitting.analysis.breakdown import breakdown
from perfeq.fitting.analysis.pricing import Grid, TimeEquation, parse_over
from perfeq.fitting.analysis.report import build_report, default_points
from perfeq.fitting.analysis.sensitivity import sensitivity, sensitivity_over
from perfeq.fitting.regression.predict import predict
from perfeq.fitting.regression.profile import manual_profile, save_profile
from perfeq.symbolic.machine import Machine
from perfeq.workflows.pipeline import build_instrumented, model_example

HERE = TESTS
CACHES = HERE / "data" / "analysis" / "caches.json"
COSTS = {"ops": 1e-9, "l2": 2e-8, "startup": 5e-6, "bytes": 1e-9, "const": 0.05}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("analysis")
    example = find_example("cg")
    model = model_example(example, build_instrumented(example, folder), folder)
    model.save(folder / "cg.model.json")
    save_profile(manual_profile(COSTS, host="test-node"), folder / "machine.json")
    return folder


@pytest.fixture(scope="module")
def model(files):
    from perfeq.symbolic.model import load_model

    return load_model(files / "cg.model.json")


@pytest.fixture(scope="module")
def machine():
    return Machine.load(CACHES)


@pytest.fixture(scope="module")
def equation(model, machine):
    return TimeEquation(model, manual_profile(COSTS), machine)


GRID = Grid("n", (2000.0, 20000.0, 200000.0), (1, 3, 8), {"iters": 50.0})


def _cli(files, *args):
    return ["--machine", str(files / "machine.json"), "--caches", str(CACHES), *args]


# ---- the time equation ------------------------------------------------------------------------------
def test_symbolic_misses_are_the_machine_rule(model, machine, equation):
    for values, procs in (({"n": 300.0, "iters": 5.0}, 3), ({"n": 3e5, "iters": 50.0}, 8)):
        counts = model.counts(values, procs, 1, machine)["per_rank"]
        for key in ("l1", "l2", "page"):
            function = sp.lambdify(model.arguments, equation.chi[key], modules="numpy")
            got = np.broadcast_to(
                function(values["n"], values["iters"], procs, 1, np.arange(procs)), (procs,)
            )
            assert_allclose(got, counts[key], rtol=1e-12, err_msg=key)


def test_arrays_from_an_allocating_helper_have_their_size(model, machine):
    # cg's vectors come from new_vector(local_n, n), whose one calloc is (local_n + 2) * (n + 2)
    # doubles: dot(p, q) reads two of them, dot(r, r) and dot(b, b) one (an array counts once)
    dots = [nest for nest in model.nests if nest["function"] == "dot"]
    values = dict(zip([s.name for s in model.arguments], (300, 5, 3, 1, 1), strict=True))  # n, iters, P, T, rank
    footprints = {nest["footprint"].subs({s: values[s.name] for s in model.arguments}) for nest in dots}
    vector = 8 * (300 * 2 // 3 - 300 // 3 + 2) * (300 + 2)
    assert footprints == {vector, 2 * vector}
    # so the grid sweeps of a large problem miss the caches (they counted no misses before)
    counts = model.counts({"n": 3000.0, "iters": 5.0}, 1, 1, machine)["slowest"]
    assert counts["l1"] > 0.1 * counts["loads"] / 8 and counts["l2"] > 0


def test_time_is_what_predict_gives_and_blocks_add_up(equation):
    for values, procs in (({"n": 5000.0, "iters": 20.0}, 4), ({"n": 2e5, "iters": 50.0}, 16)):
        counts, _ = equation.slowest(values, procs)
        expected = predict(equation.profile, {k: counts[k] for k in equation.priced}).time_s
        assert_allclose(equation.time(values, procs), expected, rtol=1e-12)
        assert_allclose(sum(equation.block_seconds(values, procs).values()), expected, rtol=1e-9)


# ---- sensitivity ------------------------------------------------------------------------------------
@pytest.mark.parametrize("cost", ["startup", "ops", "l2", "bytes"])
def test_cost_derivative_is_the_finite_difference_of_the_predicted_time(model, machine, equation, cost):
    grid = sensitivity_over(model, cost, GRID, manual_profile(COSTS), machine)
    bumped = TimeEquation(model, manual_profile({**COSTS, cost: COSTS[cost] + grid.step}), machine)
    for i, procs in enumerate(GRID.procs):
        for j, size in enumerate(GRID.sizes):
            values = GRID.values(size)
            difference = bumped.time(values, procs) - equation.time(values, procs)
            assert_allclose(grid.increase[i, j], difference, rtol=1e-6, atol=1e-12)  # t - t: cancellation
            share = COSTS[cost] * grid.derivative[i, j] / equation.time(values, procs)
            assert_allclose(grid.elasticity[i, j], share, rtol=1e-12)
    assert grid.method == "symbolic" and grid.expression


def test_startup_sensitivity_counts_the_messages_on_the_critical_path(model, machine, equation):
    grid = sensitivity_over(model, "startup", GRID, manual_profile(COSTS), machine)
    assert np.all(np.diff(grid.increase, axis=0) > 0)  # more processes, more messages per rank (Fig. 7)
    assert "iters*mpi_critical" in grid.expression and "mpi_sent" not in grid.expression  # cg: per iteration
    counts, _ = equation.slowest(GRID.values(GRID.sizes[0]), 8)
    assert_allclose(grid.increase[2, 0], 1e-5 * counts["startup"], rtol=1e-12)


def test_closed_form_derivative_matches_finite_differences(model, machine, equation):
    grid = sensitivity_over(model, "iters", GRID, manual_profile(COSTS), machine)
    assert grid.method == "symbolic" and "Derivative" not in grid.expression
    for i, procs in enumerate(GRID.procs):
        for j, size in enumerate(GRID.sizes):
            values = GRID.values(size)
            central = (
                equation.time({**values, "iters": 51.0}, procs)
                - equation.time({**values, "iters": 49.0}, procs)
            ) / 2
            assert_allclose(grid.derivative[i, j], central, rtol=1e-7)
            assert_allclose(grid.elasticity[i, j], central * 50 / equation.time(values, procs), rtol=1e-7)


def test_floor_in_counts_falls_back_to_finite_differences(model, machine, equation):
    grid = sensitivity_over(model, "n", GRID, manual_profile(COSTS), machine)
    assert grid.method == "finite differences"
    assert any("finite differences" in note for note in grid.notes)
    assert "Subs" in grid.expression or "Derivative" in grid.expression
    assert grid.approximation and "floor" not in grid.approximation
    for i, procs in enumerate(GRID.procs):
        for j, size in enumerate(GRID.sizes):
            values = GRID.values(size)
            # a narrow secant: cache misses step where a loop nest's footprint passes a cache size
            # (n = 2000 on 8 processes is 4 % below the 8 MB cache of this machine description)
            secant = (
                equation.time({**values, "n": 1.01 * size}, procs)
                - equation.time({**values, "n": 0.99 * size}, procs)
            ) / (0.02 * size)
            assert_allclose(grid.derivative[i, j], secant, rtol=0.05)


def test_derivative_in_p_is_a_difference_over_process_counts(model, machine, equation):
    grid = sensitivity_over(model, "P", GRID, manual_profile(COSTS), machine)
    assert grid.method == "finite differences"
    values = GRID.values(GRID.sizes[1])
    assert_allclose(
        grid.derivative[1, 1], (equation.time(values, 4) - equation.time(values, 2)) / 2, rtol=1e-12
    )
    assert_allclose(grid.derivative[0, 1], equation.time(values, 2) - equation.time(values, 1), rtol=1e-12)
    assert grid.derivative[2, 2] < 0  # more processes, less time for a large problem


def test_tour_signature_still_works(model, machine):
    grid = sensitivity(model, "startup", "n", [1000, 2000], [1, 2], {"iters": 10}, None, machine)
    assert grid.elasticity is None and grid.increase.shape == (2, 2)
    assert json.loads(json.dumps(grid.to_dict()))["increase_s"][1][1] > 0


# ---- grids ------------------------------------------------------------------------------------------
def test_parse_over(model):
    grid = parse_over(model, ["N=1000:64000:4", "iters=50", "P=1,2,4"])
    assert grid.parameter == "n" and grid.sizes == (1000.0, 4000.0, 16000.0, 64000.0)
    assert grid.procs == (1, 2, 4) and grid.fixed == {"iters": 50.0}
    only_p = parse_over(model, ["n=1000", "iters=5", "P=1,2,4,8"])
    assert only_p.along_procs and only_p.values(1000.0) == {"iters": 5.0, "n": 1000.0}


@pytest.mark.parametrize(
    "items, message",
    [
        (["n=1000:abc", "iters=5"], "LOW:HIGH"),
        (["n=64000:1000", "iters=5"], "LOW:HIGH"),
        (["n1000", "iters=5"], "NAME=SPEC"),
        (["n=1000:64000"], "no value for iters"),
        (["n=1000:64000", "iters=1:9"], "both vary"),
        (["n=1000", "iters=5", "P=0,2"], "--over P=0,2: expected"),
        (["n=1000", "iters=5", "P=1.5"], "P must be whole"),
        (["m=1000", "iters=5"], "unknown parameter 'm'"),
    ],
)
def test_parse_over_rejects(model, items, message):
    with pytest.raises(UsageError, match=message):
        parse_over(model, items)


# ---- breakdown --------------------------------------------------------------------------------------
def test_breakdown_shares_add_up(model, machine, equation):
    result = breakdown(model, manual_profile(COSTS), machine, GRID, top=3)
    assert len(result.by_block) == 4 and "other" in result.by_block
    for kind in ("cost", "block"):
        assert_allclose(sum(result.shares(kind).values()), 100.0, rtol=1e-9)
    values = GRID.values(GRID.sizes[2])
    assert_allclose(result.time[2, 2], equation.time(values, 8), rtol=1e-12)


# ---- the command line -------------------------------------------------------------------------------
def test_sensitivity_command_plot_and_json(files, tmp_path, capsys):
    plot = tmp_path / "startup.png"
    args = [
        "sensitivity",
        str(files / "cg.model.json"),
        *_cli(
            files,
            "--wrt",
            "startup",
            "--over",
            "N=1000:64000:5",
            "iters=20",
            "P=1,2,4,8,16,32",
            "-o",
            str(plot),
            "--json",
        ),
    ]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["wrt"] == "startup" and "mpi_critical" in data["expression"]
    assert np.array(data["increase_s"]).shape == (6, 5) and np.array(data["elasticity"]).shape == (6, 5)
    assert plot.read_bytes().startswith(b"\x89PNG")
    svg = tmp_path / "n.svg"
    assert (
        main(
            [
                "sensitivity",
                str(files / "cg.model.json"),
                *_cli(files, "--wrt", "n", "--over", "n=1000:8000:3", "iters=20", "P=2,4", "-o", str(svg)),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "finite differences" in text and "elasticity" in text
    assert b"<svg" in svg.read_bytes()[:1000]


def test_breakdown_command(files, tmp_path, capsys):
    plot = tmp_path / "breakdown.png"
    assert (
        main(
            [
                "breakdown",
                str(files / "cg.model.json"),
                *_cli(
                    files, "--over", "n=1000:100000:4", "iters=20", "P=1,4,16", "--top", "4", "-o", str(plot)
                ),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "share of the predicted time per cost" in text and "other" in text
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert (
        main(
            [
                "breakdown",
                str(files / "cg.model.json"),
                *_cli(files, "--over", "n=5000", "iters=20", "P=1,2,4,8", "--json"),
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert len(data["procs"]) == 4 and set(data["cost_percent"]) == set(COSTS)


@pytest.mark.parametrize(
    "args, message",
    [
        (["sensitivity", "--wrt", "latency", "--over", "n=1000:8000", "iters=5"], "--wrt latency"),
        (["sensitivity", "--wrt", "startup", "--over", "n=1000:abc", "iters=5"], "--over n=1000:abc"),
        (["sensitivity", "--wrt", "startup", "--over", "n=1000:8000"], "no value for iters"),
        (
            ["sensitivity", "--wrt", "startup", "--over", "n=1000", "iters=5", "-o", "plot.pdf"],
            ".png or .svg",
        ),
        (["breakdown", "--over", "n=1000:8000", "iters=5", "--top", "0"], "--top"),
        (["report", "--at", "P=16", "-o", "r.html"], "missing parameter value"),
        (["report", "--at", "n=1000", "iters=5", "P=x", "-o", "r.html"], "not a number"),
        (["report", "-o", "r.pdf"], ".html"),
    ],
)
def test_bad_input_is_one_line_exit_2(files, tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    command, *rest = args
    assert main([command, str(files / "cg.model.json"), *_cli(files, *rest)]) == 2
    assert message in one_line_error(capsys)


def test_missing_model_file_is_one_line(files, tmp_path, capsys):
    assert (
        main(["sensitivity", str(tmp_path / "none.json"), *_cli(files, "--wrt", "ops", "--over", "n=5")]) == 2
    )
    assert "no such model file" in one_line_error(capsys)


# ---- the report -------------------------------------------------------------------------------------
def _images(page: str, folder: Path) -> list[bytes]:
    images = []
    for source in re.findall(r'<img[^>]*\bsrc="([^"]+)"', page):
        if source.startswith("data:"):
            assert source.startswith("data:image/png;base64,")
            images.append(base64.b64decode(source.split(",", 1)[1], validate=True))
        else:
            images.append((folder / source).read_bytes())
    return images


def test_report_command(files, tmp_path, capsys):
    output = tmp_path / "out" / "report.html"
    assert (
        main(
            [
                "report",
                str(files / "cg.model.json"),
                *_cli(
                    files,
                    "--at",
                    "n=4096",
                    "iters=50",
                    "P=64",
                    "--at",
                    "N=512",
                    "iters=10",
                    "P=2",
                    "--over",
                    "n=100:10000:4",
                    "iters=20",
                    "P=1,4",
                    "-o",
                    str(output),
                ),
            ]
        )
        == 0
    )
    assert "wrote" in capsys.readouterr().out
    page = output.read_text()
    for section in ("equations", "machine-profile", "predictions", "plots", "fallbacks"):
        assert f'<section id="{section}">' in page
    assert "chi_startup" in page and "5e-06*chi_startup" in page and "mpi_critical" in page
    assert "n=4096, iters=50, P=64" in page and "n=512, iters=10, P=2" in page
    images = _images(page, output.parent)
    assert len(images) == 3 and all(image.startswith(b"\x89PNG") for image in images)
    assert not re.search(r'(src|href)="(https?:)?//', page) and "<script" not in page and "<link" not in page
    assert not list(output.parent.glob(".*.tmp"))


def test_report_lists_fallbacks_and_default_points(model, machine):
    fallback = (
        "cg.c:99: loop modeled as fit: the symbolic trip count times 3/2 reproduces the measured iterations"
    )
    page = build_report(
        replace(model, fallbacks=[fallback]),
        manual_profile(COSTS),
        machine,
        grid=Grid("n", (100.0, 1000.0), (1, 2), {"iters": 5.0}),
    )
    assert (
        "cg.c:99: loop modeled as fit" in page
        and "every loop, branch and message count is symbolic" not in page
    )
    points = default_points(model)
    assert [(p.values["n"], p.procs) for p in points[:4]] == [(32.0, 1), (32.0, 8), (32.0, 64), (256.0, 1)]
    assert len(points) == 9 and all(p.values["iters"] == 20.0 for p in points)


@pytest.mark.parametrize("cost", ["branch", "chain"])
def test_sensitivity_to_every_operation_kind_cost(model, machine, cost):
    """Every count cost has a step (a cost missing from the table was refused by --wrt although
    listed as valid): cg's dot products are chained flops, its loop exits mispredicted branches."""
    from perfeq.fitting.analysis.sensitivity import STEP_UNITS
    from perfeq.fitting.costs import COSTS

    assert set(COSTS) <= set(STEP_UNITS)
    grid = sensitivity(model, cost, "n", [64, 128], [1, 2], {"iters": 20}, None, machine)
    assert grid.derivative.shape == (2, 2) and (grid.derivative >= 0).all()
    if cost == "chain":  # two dot products per iteration over n^2 points: at least 2 n^2 iters / P
        assert grid.derivative[0, 1] >= 2 * 128**2 * 20 and grid.derivative[1, 1] >= 128**2 * 20


def test_blocks_add_up_with_shared_and_chain_priced(model, machine):
    """The per-block split prices the derived 'shared' and 'chain' too: the blocks add up to the time."""
    profile = manual_profile({"loads": 3e-10, "chain": 6e-10, "shared": 1e-10, "const": 0.05})
    equation = TimeEquation(model, profile, machine)
    values = {"n": 256, "iters": 20}
    for procs in (1, 2, 4):
        blocks = equation.block_seconds(values, procs)
        counts = model.counts(values, procs, 1, machine)["slowest"]
        total = 3e-10 * counts["loads"] + 6e-10 * counts["chain"] + 1e-10 * counts["shared"] + 0.05
        assert counts["chain"] > 0 and (counts["shared"] > 0) == (procs > 1)
        assert sum(blocks.values()) == pytest.approx(total, rel=1e-9)
        assert equation.time(values, procs) == pytest.approx(total, rel=1e-9)


def test_sensitivity_to_P_across_the_shared_node_step(machine):
    """d t / d P of a model closed-form in P: the shared-node indicator's step is not evaluated as a
    derivative (numpy's heaviside(0) = 1/2 added half a jump at P T = 2); with T = 2 the indicator
    is 1 for every P, so t = (beta_loads + beta_shared) 1000 n / P exactly."""
    from perfeq.symbolic.model import CostModel, ModelItem
    from perfeq.symbolic.symbols import P as P_
    from perfeq.symbolic.symbols import size_symbol

    n = size_symbol("n")
    loads = 1000 * n / P_
    item = ModelItem("block", "x.c", 1, 1, "main", "main",
                     {"ops": 2 * loads, "ops_total": 2 * loads, "loads": loads, "stores": sp.Integer(0)})
    fake = CostModel("x.c", {"n": {"variable": "n", "value": 10}}, [item], [], [], [])
    profile = manual_profile({"loads": 1e-9, "shared": 1e-9, "const": 0.0})
    grid = sensitivity(fake, "P", "n", [1000.0], [1, 2, 3, 4], {}, profile, machine, threads=2)
    exact = -2e-9 * 1000 * 1000 / np.array([1, 2, 3, 4]) ** 2
    # finite differences (forward at P = 1) on a 1/P curve: within the difference's own error
    assert grid.method == "finite differences"
    assert grid.derivative[0, 0] < 0 and np.allclose(grid.derivative[2:, 0], exact[2:], rtol=0.3)
    assert grid.derivative[0, 0] == pytest.approx(2e-3 * (1 / 2 - 1), rel=1e-9)  # forward step P = 1 -> 2
    # T = 1: the step from P = 1 (node alone) to P = 2 (shared) is in the difference, not half of it
    one = sensitivity(fake, "P", "n", [1000.0], [1, 2, 3], {}, profile, machine, threads=1)
    t = {p: (1e-9 + (1e-9 if p > 1 else 0.0)) * 1e6 / p for p in (1, 2, 3)}
    assert one.derivative[1, 0] == pytest.approx((t[3] - t[1]) / 2, rel=1e-9)


def test_report_per_item_table_has_the_derived_shared_column(model, machine):
    """The per-item equations table shows every priced cost's count, the derived 'shared' included
    (it is not stored in the items: loads x Min(P T - 1, 1))."""
    profile = manual_profile({"loads": 3e-10, "chain": 6e-10, "shared": 1e-10, "const": 0.05})
    page = build_report(model, profile, machine, grid=Grid("n", (100.0, 1000.0), (1, 2), {"iters": 5.0}))
    header = re.search(r"<tr><th>item</th><th>context</th>(.*?)</tr>", page).group(1)
    assert "chi_loads" in header and "chi_chain" in header and "chi_shared" in header
    assert "Min(1, P*T - 1)" in page


# ---- uncertainty of every term (issue 20, item 4) ----------------------------------------------------
@pytest.fixture(scope="module")
def fitted():
    """A fitted profile (ops, startup, bytes) with a covariance: synthetic runs of six applications."""
    from perfeq.fitting.regression.fit import fit_machine
    from perfeq.fitting.regression.synthetic import synthetic_applications

    runs, _ = synthetic_applications(6, 10, np.random.default_rng(5), app_sigma=0.1, noise=0.05)
    return fit_machine(runs, intercept=False)


def test_sensitivity_bands_are_the_spread_of_the_slope_over_costs_drawn_from_their_covariance(model, machine,
                                                                                              fitted, tmp_path):
    grid = sensitivity_over(model, "iters", GRID, fitted, machine)
    assert grid.increase_stderr is not None and np.all(grid.increase_stderr > 0) and grid.quantile > 1.9
    # Monte Carlo: costs drawn from N(beta, C); the slope of the time, t(iters + 1) - t(iters), per draw
    names = list(fitted.names)
    cov = np.array([[fitted.covariance[r][c] for c in names] for r in names])
    draws = np.random.default_rng(0).multivariate_normal([fitted.costs[n].value for n in names], cov, 4000)
    values = GRID.values(GRID.sizes[1])
    equation = TimeEquation(model, fitted, machine)
    before, _ = equation.slowest(values, 3)
    after, _ = equation.slowest({**values, "iters": values["iters"] + 1}, 3)
    slopes = draws @ np.array([after[n] - before[n] for n in names])
    assert_allclose(grid.increase_stderr[1, 1], slopes.std(), rtol=0.05)
    assert grid.elasticity_stderr[1, 1] > 0
    share = sensitivity_over(model, "bytes", GRID, fitted, machine)
    assert share.increase_stderr is None and np.all(share.elasticity_stderr[1:] > 0)  # a count has no error
    assert np.all(share.elasticity_stderr[0] == 0)  # P = 1: cg's halo sends go to MPI_PROC_NULL, no bytes
    from perfeq.fitting.analysis.sensitivity import plot_sensitivity

    assert plot_sensitivity(grid, tmp_path / "band.png", "cg").read_bytes().startswith(b"\x89PNG")
    data = json.loads(json.dumps(grid.to_dict()))
    assert data["band_level"] == 0.95 and data["increase_stderr_s"][1][1] > 0
    manual = sensitivity_over(model, "iters", GRID, manual_profile(COSTS), machine)
    assert manual.increase_stderr is None and manual.to_dict()["band_quantile"] is None


def test_contributions_carry_standard_errors_from_the_covariance(fitted):
    counts = {"ops": 2e9, "startup": 4e3, "bytes": 3e8}
    blocks = {"compute": {"ops": 2e9}, "halo": {"startup": 4e3, "bytes": 3e8}}
    prediction = predict(fitted, counts, blocks=blocks)
    names = list(fitted.names)
    cov = np.array([[fitted.covariance[r][c] for c in names] for r in names])
    for part in prediction.contributions:
        assert_allclose(part.stderr, counts[part.name] * fitted.costs[part.name].stderr, rtol=1e-9)
    halo = np.array([0.0, 4e3, 3e8])
    assert_allclose(prediction.blocks[1].stderr, np.sqrt(halo @ cov @ halo), rtol=1e-9)
    whole = predict(fitted, counts, blocks={"all": counts}).blocks[0]
    assert_allclose(whole.stderr, prediction.mean_stderr, rtol=1e-6)  # no const: the whole is the mean
