"""``perfeq fit --probes`` (issue 21, item 4): message costs taken from a probe file, the other costs
fitted beside them with the probed part of every run as an offset, and intervals that carry both
the fit's covariance and the probes' spread.  The probe file is written with perfeq's own writer, so
every probed value is known exactly; the runs are synthetic with known costs.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import one_line_error
from numpy.testing import assert_allclose

from perfeq.cli import main
from perfeq.fitting.convolution.probecosts import ProbeCosts
from perfeq.fitting.regression.costsets import fit_selected
from perfeq.fitting.regression.fit import fit_machine
from perfeq.fitting.regression.predict import predict
from perfeq.fitting.regression.probed import IQR_SIGMA, probed_costs
from perfeq.fitting.regression.profile import CostEstimate, load_profile
from perfeq.fitting.regression.runs import Run, write_runs
from perfeq.fitting.regression.synthetic import TRUE_COSTS, synthetic_applications, synthetic_runs
from perfeq.runtime.probes.curves import Curve
from perfeq.runtime.probes.document import ProbeResults, save_probes

LATENCY, PER_BYTE = 5e-6, 1e-9  # the fake machine's ping-pong: the synthetic runs' true message costs
SIZES = (0, 64, 4096, 262144, 4194304)


def _pingpong(name: str, latency: float, per_byte: float) -> Curve:
    """t(s) = latency + s per_byte; three repetitions at 0.9, 1 and 1.1 times it (so q1 and q3 are
    0.95 and 1.05 times the median)."""
    samples = tuple((0.9 * t, t, 1.1 * t) for t in (latency + s * per_byte for s in SIZES))
    return Curve(name, 2, tuple(float(s) for s in SIZES), samples, tuple(1 for _ in SIZES))


def _probe_file(path, *curves: Curve):
    results = ProbeResults(created="2026-01-01T00:00:00Z",
                           machine={"name": "fake", "model": "", "cores": 2, "cpus": 2, "l1_bytes": 32768,
                                    "l2_bytes": 8 << 20, "line_bytes": 64, "page_bytes": 4096,
                                    "memory_bytes": 8 << 30},
                           toolchain={}, settings={}, commands=(), curves=curves)
    save_probes(path, results)
    return path


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    """A probe file with one ping-pong curve (within a node), t(s) = LATENCY + s PER_BYTE."""
    return _probe_file(tmp_path_factory.mktemp("probes") / "probes.json",
                       _pingpong("pingpong_intra", LATENCY, PER_BYTE))


def test_the_probe_gives_the_latency_and_the_per_byte_slope_with_their_spread(probes):
    costs = probed_costs(ProbeCosts.load(probes))
    assert set(costs) == {"startup", "bytes"} and all(c.source == "probe" for c in costs.values())
    assert_allclose(costs["startup"].value, LATENCY, rtol=1e-12)
    assert_allclose(costs["bytes"].value, PER_BYTE, rtol=1e-9)
    # q3 - q1 of three samples at 0.9, 1, 1.1 times the value: 0.1 times it
    assert_allclose(costs["startup"].stderr, 0.1 * LATENCY / IQR_SIGMA, rtol=1e-9)
    assert_allclose(costs["bytes"].stderr, 0.1 * PER_BYTE / IQR_SIGMA, rtol=1e-6)
    assert costs["startup"].ci_low < LATENCY < costs["startup"].ci_high


def test_fixed_costs_are_held_and_the_rest_is_fitted_beside_them():
    runs = synthetic_runs(40, np.random.default_rng(5))
    fixed = {"startup": CostEstimate(TRUE_COSTS["startup"], 2e-7, source="probe"),
             "bytes": CostEstimate(TRUE_COSTS["bytes"], 5e-11, source="probe")}
    profile = fit_machine(runs, ["ops", "startup", "bytes"], fixed=fixed)
    assert profile.names == ("ops", "startup", "bytes")  # the project's order, whatever was fixed
    assert profile.df_resid == 40 - 1  # one cost fitted
    ops = profile.costs["ops"]
    assert ops.source == "" and profile.cost_source("ops") == "fit"
    assert ops.ci_low <= TRUE_COSTS["ops"] <= ops.ci_high
    for name, cost in fixed.items():
        assert profile.costs[name] == cost and profile.cost_source(name) == "probe"
        assert profile.covariance[name][name] == cost.stderr**2
        assert profile.covariance[name]["ops"] == profile.covariance["ops"][name] == 0.0
    # the fitted time of every run holds the probed seconds too: the residuals are small
    fitted = np.array([run.fitted_s for run in profile.runs])
    measured = np.array([run.time_s for run in profile.runs])
    assert np.median(np.abs(fitted / measured - 1)) < 0.05


def test_prediction_intervals_carry_the_probes_spread():
    runs = synthetic_runs(40, np.random.default_rng(6))
    tight = {"startup": CostEstimate(TRUE_COSTS["startup"], 0.0, source="probe")}
    loose = {"startup": CostEstimate(TRUE_COSTS["startup"], 1e-6, source="probe")}
    counts = {"ops": 1e9, "startup": 1e6, "bytes": 1e8}
    narrow, wide = (predict(fit_machine(runs, ["ops", "bytes"], fixed=f), counts) for f in (tight, loose))
    assert narrow.time_s == pytest.approx(wide.time_s, rel=1e-12)
    # Var(mean) = x' C x: the probe's variance adds (1e6 messages x 1 us)^2 to the fit's own
    assert_allclose(wide.mean_stderr**2, narrow.mean_stderr**2 + (1e6 * 1e-6) ** 2, rtol=1e-9)
    startup = next(c for c in wide.contributions if c.name == "startup")
    assert startup.source == "probe" and startup.stderr == pytest.approx(1.0)


def test_a_wrong_probe_shows_in_the_residuals_not_in_the_other_costs():
    """Held at twice the true latency, the start-ups over-price the message-heavy runs: the fit cannot
    hide it in 'startup' (not fitted), so sigma grows."""
    runs = synthetic_runs(40, np.random.default_rng(8))
    right = fit_machine(runs, ["ops", "bytes"], fixed={"startup": CostEstimate(TRUE_COSTS["startup"], 0.0)})
    wrong = fit_machine(runs, ["ops", "bytes"], fixed={"startup": CostEstimate(20 * TRUE_COSTS["startup"], 0.0)})
    assert wrong.sigma > 2 * right.sigma


def test_the_cost_set_is_chosen_among_the_costs_not_probed():
    runs, _ = synthetic_applications(5, 6, np.random.default_rng(9))
    ladder = (("ops", "startup", "bytes"), ("ops", "bytes"), ("ops",))
    fixed = {"startup": CostEstimate(TRUE_COSTS["startup"], 1e-7, source="probe")}
    profile = fit_selected(runs, ladder, fixed=fixed)
    assert all("startup" not in c.costs for c in profile.selection.candidates)
    assert [c.costs for c in profile.selection.candidates] == [("ops", "bytes"), ("ops",)]
    assert "startup" in profile.costs and profile.cost_source("startup") == "probe"
    assert profile.between_app is not None  # estimated with the probed cost held in every fold


def test_perfeq_fit_with_probes_writes_the_source_of_every_cost(tmp_path, probes, capsys):
    runs_csv, out = tmp_path / "runs.csv", tmp_path / "machine.json"
    write_runs(runs_csv, synthetic_runs(30, np.random.default_rng(10)))
    assert main(["fit", str(runs_csv), "--costs", "ops,startup,bytes", "--probes", str(probes),
                 "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"startup from the probes in {probes} (ping-pong within a node): 5 +- " in text and "(not fitted)" in text
    assert "from" in text.splitlines()[3]  # the table says where each cost comes from
    saved = json.loads(out.read_text())["costs"]
    assert {name: entry["source"] for name, entry in saved.items()} == {"ops": "fit", "startup": "probe",
                                                                       "bytes": "probe"}
    profile = load_profile(out)
    assert_allclose(profile.values["startup"], LATENCY) and profile.cost_source("bytes") == "probe"
    sources = {c.name: c.source for c in predict(profile, {"ops": 1e9, "startup": 1e4, "bytes": 1e6}).contributions}
    assert sources == {"ops": "fit", "startup": "probe", "bytes": "probe"}


def test_a_file_that_is_not_a_probe_file_is_one_line(tmp_path, capsys):
    runs_csv, out = tmp_path / "runs.csv", tmp_path / "machine.json"
    write_runs(runs_csv, [Run("a", f"n={k}", 1, 1.0 + k, {"ops": 1e9 * (k + 1)}) for k in range(4)])
    assert main(["fit", str(runs_csv), "--probes", str(runs_csv), "-o", str(out)]) != 0
    assert one_line_error(capsys).endswith("not a probe file (perfeq probe writes one, format perfeq-probes)")
    assert not out.exists()


def test_the_ping_pong_across_nodes_is_taken_when_the_file_has_it(tmp_path, capsys):
    """A cluster's probe file (perfeq probe --across-launcher) has both ping-pongs: the message costs
    come from the one across nodes, the profile keeps which, and predict says so at P > 2."""
    path = _probe_file(tmp_path / "probes.json", _pingpong("pingpong_intra", LATENCY, PER_BYTE),
                       _pingpong("pingpong_inter", 4 * LATENCY, 3 * PER_BYTE))
    costs = probed_costs(ProbeCosts.load(path))
    assert_allclose([costs["startup"].value, costs["bytes"].value], [4 * LATENCY, 3 * PER_BYTE], rtol=1e-9)
    assert {c.detail for c in costs.values()} == {"pingpong_inter"}
    runs_csv, out = tmp_path / "runs.csv", tmp_path / "machine.json"
    write_runs(runs_csv, synthetic_runs(30, np.random.default_rng(12)))
    assert main(["fit", str(runs_csv), "--costs", "ops,startup,bytes", "--probes", str(path), "-o", str(out)]) == 0
    assert "(ping-pong across two nodes): 20 +- " in capsys.readouterr().out
    profile = load_profile(out)
    assert profile.costs["startup"].detail == "pingpong_inter" and profile.costs["ops"].detail == ""
    assert "detail" not in json.loads(out.read_text())["costs"]["ops"]
    counts = {"ops": 1e9, "startup": 1e4, "bytes": 1e6}
    notes = predict(profile, counts, procs=64, all_counts=counts).warnings
    assert any("ping-pong between two nodes" in note for note in notes)
    assert not any("of one node" in note for note in notes)


# ---- mem: a line from memory, from the memory probe's read curve -------------------------------------
READ_SIZES = (4096.0, 65536.0, 1 << 20, 1 << 27)
READ_RATES = (80e9, 60e9, 40e9, 16e9)  # B/s: L1 .. memory


def _read_curve() -> Curve:
    samples = tuple((0.9 * r, r, 1.1 * r) for r in READ_RATES)
    return Curve("read", 1, READ_SIZES, samples, tuple(1 for _ in READ_SIZES))


def test_a_line_from_memory_is_priced_beyond_the_same_line_from_l1(tmp_path):
    path = _probe_file(tmp_path / "probes.json", _pingpong("pingpong_intra", LATENCY, PER_BYTE), _read_curve())
    mem = probed_costs(ProbeCosts.load(path))["mem"]
    assert mem.source == "probe" and mem.detail == "read"
    assert_allclose(mem.value, 64 / 16e9 - 64 / 80e9, rtol=1e-9)  # 3.2 ns: the line at 16 GB/s less at 80
    # the quartiles of the rates (0.95 and 1.05 times the median) give the spread of the difference
    low, high = (64 / (f * 16e9) - 64 / (f * 80e9) for f in (1.05, 0.95))
    assert_allclose(mem.stderr, (high - low) / IQR_SIGMA, rtol=1e-9)


def _runs_with_lines(count: int, seed: int, line_seconds: float) -> list[Run]:
    """Synthetic runs whose times hold ``line_seconds`` per line from memory (lines: 0 for half the
    runs, as in-cache calibration runs have, up to 1e8 for the rest)."""
    rng = np.random.default_rng(seed)
    out = []
    for k, run in enumerate(synthetic_runs(count, rng)):
        lines = 0.0 if k % 2 else float(rng.uniform(1e6, 1e8))
        out.append(Run(run.app, run.params, run.procs, run.time_s + lines * line_seconds,
                       {**run.counts, "mem": lines}, rep=run.rep))
    return out


def test_fit_with_probes_holds_mem_and_fits_the_rest_beside_it(tmp_path, capsys):
    path = _probe_file(tmp_path / "probes.json", _pingpong("pingpong_intra", LATENCY, PER_BYTE), _read_curve())
    true_line = 64 / 16e9 - 64 / 80e9
    runs_csv, out = tmp_path / "runs.csv", tmp_path / "machine.json"
    write_runs(runs_csv, _runs_with_lines(40, 14, true_line))
    assert main(["fit", str(runs_csv), "--costs", "ops", "--probes", str(path), "-o", str(out)]) == 0
    assert "mem from the probes in" in capsys.readouterr().out
    profile = load_profile(out)
    assert profile.cost_source("mem") == "probe" and profile.costs["mem"].detail == "read"
    ops = profile.costs["ops"]
    assert ops.ci_low <= TRUE_COSTS["ops"] <= ops.ci_high  # the lines' seconds did not leak into ops
    with_lines = predict(profile, {"ops": 1e9, "startup": 0, "bytes": 0, "mem": 1e8})
    without = predict(profile, {"ops": 1e9, "startup": 0, "bytes": 0, "mem": 0})
    assert_allclose(with_lines.time_s - without.time_s, 1e8 * true_line, rtol=1e-9)


def test_runs_without_a_mem_column_do_not_take_it_from_the_probes(tmp_path, capsys):
    path = _probe_file(tmp_path / "probes.json", _pingpong("pingpong_intra", LATENCY, PER_BYTE), _read_curve())
    runs_csv, out = tmp_path / "runs.csv", tmp_path / "machine.json"
    write_runs(runs_csv, synthetic_runs(30, np.random.default_rng(15)))
    assert main(["fit", str(runs_csv), "--costs", "ops", "--probes", str(path), "-o", str(out)]) == 0
    assert "mem not taken from the probes: the runs have no 'mem' column" in capsys.readouterr().out
    assert "mem" not in load_profile(out).costs


def test_a_second_kernels_price_per_line_widens_mems_standard_error(tmp_path):
    """With the update curve too (118 -> 50 GB/s: 0.74 ns a line beyond L1, where read says 3.2 ns),
    half the difference joins the read curve's spread in quadrature: a prediction made mostly of
    lines from memory carries how much another kernel's price would move it."""
    rates = (118e9, 100e9, 80e9, 50e9)
    update = Curve("update", 1, READ_SIZES, tuple((0.9 * r, r, 1.1 * r) for r in rates), tuple(1 for _ in rates))
    path = _probe_file(tmp_path / "probes.json", _pingpong("pingpong_intra", LATENCY, PER_BYTE), _read_curve(),
                       update)
    mem = probed_costs(ProbeCosts.load(path))["mem"]
    read_price, update_price = 64 / 16e9 - 64 / 80e9, 64 / 50e9 - 64 / 118e9
    assert_allclose(mem.value, read_price, rtol=1e-9)  # the price is still the read curve's
    low, high = (64 / (f * 16e9) - 64 / (f * 80e9) for f in (1.05, 0.95))
    expected = np.hypot((high - low) / IQR_SIGMA, (read_price - update_price) / 2)
    assert_allclose(mem.stderr, expected, rtol=1e-9)
    assert mem.ci_low == pytest.approx(max(read_price - 1.96 * expected, 0.0))
