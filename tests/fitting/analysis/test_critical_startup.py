"""Issue 21 items 5 (what-if edits) and 6 (start-ups are the critical path's messages), through the CLI.

A Gaussian-elimination-style program broadcasts its pivot row with MPI_Bcast (a binomial tree) at each
of its n steps; its model is built from small runs at P = 1, 2 and 4 (oversubscribed here).  At
n = 64,000 and P = 64 the critical path has n ceil(log2 64) = 384,000 start-ups, plus the final
MPI_Allreduce's 6; the broadcasts' root sends 63 messages a step and a leaf none.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import C_PROGRAMS, instrumented_program, one_line_error

from perfeq.cli import main
from perfeq.fitting.regression.runs import write_runs
from perfeq.fitting.regression.synthetic import synthetic_runs

SOURCE = C_PROGRAMS / "symbolic" / "bcast_elim.c"
AT = ["n=64000", "P=64"]
CRITICAL = 64000 * 6  # n ceil(log2 64)


@pytest.fixture(scope="module")
def elimination(tmp_path_factory) -> dict[str, Path]:
    """The program's model from runs at P = 1, 2, 4; a hand-written profile of the recommended kind
    (memory costs only, no message costs); a profile fitted on synthetic runs with ops, startup, bytes."""
    folder = tmp_path_factory.mktemp("bcast-elim")
    trace = instrumented_program(SOURCE, folder)
    traces = [trace(1, "p1.trace", 24), trace(2, "p2.trace", 24), trace(2, "p2b.trace", 40),
              trace(4, "p4.trace", 32)]
    model = folder / "elim.model.json"
    assert main(["model", *map(str, traces), "-o", str(model)]) == 0
    memory = folder / "memory.json"
    assert main(["machine-profile", "--manual", "loads=1e-9", "stores=1e-9", "-o", str(memory)]) == 0
    runs = folder / "synthetic.runs.csv"
    write_runs(runs, synthetic_runs(20, np.random.default_rng(5)))
    fitted = folder / "fitted.json"
    assert main(["fit", str(runs), "--costs", "ops,startup,bytes", "-o", str(fitted)]) == 0
    return {"model": model, "memory": memory, "fitted": fitted, "p4": traces[-1]}


def test_startup_sensitivity_counts_the_critical_path(elimination, capsys):
    """dt/d(startup) at n = 64,000, P = 64 is the critical path's n ceil(log2 64) start-ups (within 5 %;
    exactly that plus the final Allreduce's 6), not the 63,006 messages the slowest rank sends."""
    capsys.readouterr()
    assert main(["sensitivity", str(elimination["model"]), "--wrt", "startup", "--over", *AT,
                 "--machine", str(elimination["memory"]), "--json"]) == 0
    grid = json.loads(capsys.readouterr().out)
    (row,) = grid["derivative"]
    assert row[0] == pytest.approx(CRITICAL, rel=0.05)
    assert row[0] == CRITICAL + 6
    assert main(["counts", str(elimination["model"]), *AT, "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["slowest"]["startup"] == CRITICAL + 6
    assert 0 < counts["slowest"]["sent"] < CRITICAL / 6 + 100  # the messages rank 0 sends: shown, not priced


def test_a_run_measures_start_ups_on_the_critical_path_and_messages_sent(elimination, capsys):
    """perfeq counts --trace at P = 4, n = 32: every rank's critical path is 32 x 2 + 2 (the Allreduce);
    the ranks send P - 1 = 3 messages per broadcast and 2 each in the Allreduce."""
    capsys.readouterr()
    assert main(["counts", "--trace", str(elimination["p4"]), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {rank["startup"] for rank in shown["ranks"].values()} == {32 * 2 + 2}
    assert shown["total"]["startup"] == 32 * 2 + 2 and shown["total"]["sent"] == 32 * 3 + 4 * 2


def test_unpriced_messages_are_said_loudly_with_each_cost_s_source(elimination, capsys):
    """A profile without message costs (the recommended set) prices the 384,006 start-ups and the bytes at
    zero: a warning first in the output and on stderr, with both counts; each cost says where it comes from."""
    capsys.readouterr()
    assert main(["predict", str(elimination["model"]), *AT, "--machine", str(elimination["memory"])]) == 0
    out, err = capsys.readouterr()
    loud = [line for line in err.splitlines() if "MESSAGES NOT PRICED" in line]
    assert len(loud) == 1 and "384,006 messages on the critical path ('startup')" in loud[0]
    assert "bytes sent ('bytes')" in loud[0] and "--set startup=" in loud[0]
    lines = out.splitlines()
    assert lines[1].startswith("predicted time") and "MESSAGES NOT PRICED" in lines[2]
    assert [line.split()[-1] for line in lines if line.startswith(("  loads ", "  stores "))] == ["manual", "manual"]
    assert main(["predict", str(elimination["model"]), *AT, "--machine", str(elimination["fitted"]), "--json"]) == 0
    out, err = capsys.readouterr()
    priced = json.loads(out)
    assert "MESSAGES NOT PRICED" not in err and priced["unpriced"] is None
    assert {part["name"]: part["source"] for part in priced["contributions"]} == {
        "ops": "fit", "startup": "fit", "bytes": "fit"}
    startup = next(part for part in priced["contributions"] if part["name"] == "startup")
    beta = json.loads(elimination["fitted"].read_text())["costs"]["startup"]["value"]
    assert startup["seconds"] == pytest.approx((CRITICAL + 6) * beta, rel=1e-12)


def test_what_if_edits_keep_the_uncertainty_of_the_other_costs(elimination, capsys):
    """--set startup=1us replaces the fitted start-up by an exact value, --set bytes=0.5x halves bytes and
    its standard error; ops keeps its value and variance: the mean's standard error is sqrt(x' C' x) with
    C' the fitted covariance, startup's row and column zero and bytes' halved."""
    capsys.readouterr()
    command = ["predict", str(elimination["model"]), *AT, "--machine", str(elimination["fitted"]), "--json"]
    assert main(command) == 0
    before = json.loads(capsys.readouterr().out)
    assert main([*command, "--set", "startup=1us", "--set", "bytes=0.5x"]) == 0
    after = json.loads(capsys.readouterr().out)
    profile = json.loads(elimination["fitted"].read_text())
    names = ["ops", "startup", "bytes"]
    x = np.array([after["counts"][name] for name in names])
    beta = np.array([profile["costs"][name]["value"] for name in names]) * [1.0, 0.0, 0.5] + [0, 1e-6, 0]
    cov = np.array([[profile["covariance"][r][c] for c in names] for r in names])
    scale = np.diag([1.0, 0.0, 0.5])
    assert after["time_s"] == pytest.approx(float(x @ beta), rel=1e-12)
    assert after["mean_stderr"] == pytest.approx(float(np.sqrt(x @ scale @ cov @ scale @ x)), rel=1e-9)
    parts = {part["name"]: part for part in after["contributions"]}
    was = {part["name"]: part for part in before["contributions"]}
    assert parts["ops"]["stderr"] == was["ops"]["stderr"] and parts["startup"]["stderr"] == 0
    assert parts["bytes"]["stderr"] == pytest.approx(0.5 * was["bytes"]["stderr"], rel=1e-12)
    assert (parts["startup"]["source"], parts["bytes"]["source"]) == ("manual", "fit")
    assert [edit.split()[0] for edit in after["edits"]] == ["startup", "bytes"]
    assert main([*command[:-1], "--set", "startup=1us", "--set", "bytes=0.5x"]) == 0
    assert "what-if: startup set by hand to 1 us/message" in capsys.readouterr().out


def test_what_if_on_a_cost_the_profile_lacks_prices_the_messages(elimination, capsys):
    """Setting startup and bytes by hand on the memory-only profile prices every message: no loud warning,
    and the time grows by exactly the hand-set costs times the counts."""
    capsys.readouterr()
    command = ["predict", str(elimination["model"]), *AT, "--machine", str(elimination["memory"]), "--json"]
    assert main(command) == 0
    bare = json.loads(capsys.readouterr().out)
    assert main([*command, "--set", "startup=5us", "--set", "bytes=1ns"]) == 0
    out, err = capsys.readouterr()
    priced = json.loads(out)
    assert "MESSAGES NOT PRICED" not in err and priced["unpriced"] is None
    added = 5e-6 * priced["counts"]["startup"] + 1e-9 * priced["counts"]["bytes"]
    assert priced["time_s"] == pytest.approx(bare["time_s"] + added, rel=1e-12)


@pytest.mark.parametrize(("edit", "message"), [
    ("startup=5e-6", "expected COST=VALUEUNIT"),
    ("startup=1parsec", "unknown unit 'parsec'"),
    ("latency=1us", "unknown cost 'latency'"),
    ("bytes=2x", "has no 'bytes' cost to scale"),
])
def test_what_if_edits_refuse_bad_input_in_one_line(elimination, capsys, edit, message):
    capsys.readouterr()
    assert main(["predict", str(elimination["model"]), *AT, "--machine", str(elimination["memory"]),
                 "--set", edit]) != 0
    assert message in one_line_error(capsys)
