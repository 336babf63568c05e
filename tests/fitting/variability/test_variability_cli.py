"""``perfeq tasks`` end to end: JSON keys, text, the distribution forms, and one-line errors."""

from __future__ import annotations

import json

import pytest
from conftest import DOCS, ROOT, one_line_error

from perfeq.cli import main
from perfeq.errors import UsageError
from perfeq.fitting.variability.specs import parse_task_time


def run_json(capsys, *args):
    status = main(["tasks", *map(str, args), "--json"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize("schedule", ["static", "dynamic"])
def test_issue_example_json(capsys, schedule):
    document = run_json(capsys, "--dist", "erlang:2,1", "--tasks", 100, "--procs", 10, "--schedule", schedule,
                        "--draws", 20_000)
    for key in ("mean", "variance", "mc_mean", "mc_variance", "mc_draws", "relative_difference"):
        assert document[key] is not None
    assert document["mc_draws"] == 20_000 and document["format"] == "perfeq-tasks"
    assert abs(document["relative_difference"]) < 0.01
    assert document["task"] == {"name": "erlang(2, 1)", "mean": pytest.approx(2.0), "variance": pytest.approx(2.0),
                                "right_end": None}
    assert ("bounds" in document) == (schedule == "dynamic")


def test_default_is_ten_to_the_five_draws_and_the_seed_repeats(capsys):
    first = run_json(capsys, "--dist", "exp:1", "--tasks", 20, "--procs", 4, "--seed", 3)
    again = run_json(capsys, "--dist", "exp:1", "--tasks", 20, "--procs", 4, "--seed", 3)
    assert first["mc_draws"] == 100_000 and first["mc_mean"] == again["mc_mean"]


def test_text_output(capsys):
    status = main(["tasks", "--dist", "uniform:1,3@2.5", "--tasks", "5", "--procs", "10", "--draws", "2000"])
    out = capsys.readouterr().out
    assert status == 0
    assert "5 tasks of uniform(1, 3) truncated at 2.5" in out
    assert "Weibull" in out and "Monte Carlo" in out and "model vs Monte Carlo" in out


def test_no_monte_carlo_and_communication(capsys):
    document = run_json(capsys, "--dist", "erlang:2,1", "--tasks", 40, "--procs", 4, "--schedule", "dynamic",
                        "--comm", "exp:4", "--draws", 0)
    assert document["mc_mean"] is None and document["relative_difference"] is None
    assert document["method"].startswith("exact: Markov chain")
    assert document["mean"] > 40 * 2.5 / 4


def test_many_tasks_warn(capsys):
    document = run_json(capsys, "--dist", "erlang:2,1", "--tasks", 500, "--procs", 500, "--draws", 1000)
    assert any("x0" in warning for warning in document["warnings"])
    assert document["extremes"]["gumbel_mean"] == pytest.approx(document["mean"], rel=0.01)


@pytest.mark.parametrize("text, mean", [
    ("exp:2", 0.5), ("erlang:3,2", 1.5), ("det:4", 4.0), ("uniform:1,3", 2.0),
    ("theta:0.5,0,1,0/2,1,2,0.5", 0.5 * 1 + 0.5 * 1.5), ("fit:3,1", 3.0), ("fit:5,0.5,4", 5.0),
    ("fit:3,1@5", 3.0),
])
def test_distribution_forms(text, mean):
    assert parse_task_time(text).mean == pytest.approx(mean, rel=1e-8)


@pytest.mark.parametrize("args, message", [
    (["--dist", "gamma:2,1"], "unknown distribution; accepted: exp:RATE"),
    (["--dist", "erlang:2"], "expected erlang:K,RATE"),
    (["--dist", "erlang:2,x"], "are not numbers"),
    (["--dist", "theta:1,0,1,0/1,0,2,0"], "probability 1.5"),
    (["--dist", "uniform:3,1"], "need 0 <= low < high"),
    (["--dist", "erlang:2,1@0"], "support end 0"),
    (["--dist", "exp:-1"], "rate must be a positive number"),
    (["--dist", "exp:1", "--tasks", "0"], "--tasks 0"),
    (["--dist", "exp:1", "--draws", "-1"], "--draws -1"),
    (["--dist", "exp:1", "--comm", "det:-1"], "--comm det:-1"),
])
def test_one_line_errors(capsys, args, message):
    defaults = {"--tasks": "10", "--procs": "2"}
    for option, value in defaults.items():
        if option not in args:
            args = [*args, option, value]
    assert main(["tasks", *args]) == 2
    assert message in one_line_error(capsys)


def test_parse_errors_are_usage_errors():
    with pytest.raises(UsageError):
        parse_task_time("erlang:1.5,1")


def test_documented():
    text = (DOCS / "variability.md").read_text(encoding="utf-8")
    for needle in ("eq. (7)", "Gumbel", "Weibull", "independent", "identically distributed", "perfeq tasks",
                   "When not to trust it"):
        assert needle in text
    assert "`tasks`" in (ROOT / "README.md").read_text(encoding="utf-8")
