"""``perfeq compare A B`` (fitting/analysis/compare.py, issue 20 item 7): a program before and after an
optimisation (tests/c/compare, compiled and run for real), two calibration campaigns, two machines,
two predictions; and one line for files that cannot be compared."""

from __future__ import annotations

import json

import pytest
from conftest import BENCHMARK_DATA, C_PROGRAMS, instrumented_program, one_line_error

from perfeq.cli import main

POINT = ["n=64000", "steps=10", "P=4"]
CAMPAIGNS = [BENCHMARK_DATA / f"2026-11-23-gram-{k}.runs.csv" for k in (6, 7)]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Models of before.c (two passes) and after.c (fused), each from runs at two sizes on 2 processes."""
    from perfeq.symbolic.model import build_model

    paths = []
    for name in ("before", "after"):
        folder = tmp_path_factory.mktemp(name)
        trace = instrumented_program(C_PROGRAMS / "compare" / f"{name}.c", folder)
        model = build_model([trace(2, "s1.trace", 1000, 4), trace(2, "s2.trace", 2000, 4)])
        model.save(folder / f"{name}.model.json")
        paths.append(folder / f"{name}.model.json")
    return paths


def _section(result: dict, title: str) -> dict[str, dict]:
    return {row["name"]: row for row in result["sections"][title]}


def test_two_models_side_by_side_per_count_and_per_block(models, capsys):
    before, after = models
    assert main(["compare", str(before), str(after), *POINT, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    counts = _section(result, "counts (slowest rank)")
    assert counts["startup"]["ratio"] == pytest.approx(1.0) and counts["bytes"]["ratio"] == pytest.approx(1.0)
    assert counts["startup"]["a"] == pytest.approx(10 * 2)  # one allreduce per step, log2(4) messages on the path
    assert 0.5 < counts["ops"]["ratio"] < 1.0  # the fused loop saves a loop's control and nothing else
    blocks = _section(result, "per block (ops, slowest rank)")
    only_before = [name for name, row in blocks.items() if row["b"] is None]
    assert any(name.startswith("before.c:17") for name in only_before)
    assert main(["compare", str(before), str(after), *POINT]) == 0
    text = capsys.readouterr().out
    assert "counts (slowest rank) [count]" in text and "B/A" in text


def test_two_models_priced_on_one_machine_and_one_model_on_two_machines(models, tmp_path, capsys):
    before, after = models
    machines = []
    for campaign in CAMPAIGNS:
        machines.append(tmp_path / f"{campaign.stem}.machine.json")
        assert main(["fit", str(campaign), "--intercept", "-o", str(machines[-1])]) == 0
    capsys.readouterr()
    assert main(["compare", str(before), str(after), *POINT, "--machine", str(machines[0]), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    time = _section(result, "time")
    assert 0 < time["predicted"]["ratio"] < 1.0
    costs = _section(result, "per cost")
    assert sum(row["a"] for row in costs.values()) == pytest.approx(time["predicted"]["a"])
    assert main(["compare", *map(str, machines), *POINT, "--model", str(before), "--json"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert two["kind"] == "profile" and _section(two, "time")["predicted"]["a"] > 0
    assert main(["compare", *map(str, machines), "--json"]) == 0  # the costs alone
    assert "loads" in _section(json.loads(capsys.readouterr().out), "per cost (seconds per count)")


def test_two_campaigns_and_two_predictions(models, tmp_path, capsys):
    assert main(["compare", *map(str, CAMPAIGNS), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    apps = _section(result, "per application (geometric mean time over the points in both)")
    assert set(apps) >= {"cg", "gauss", "gram"} and all(0.5 < row["ratio"] < 2 for row in apps.values())
    machine = tmp_path / "machine.json"
    assert main(["fit", str(CAMPAIGNS[1]), "--intercept", "-o", str(machine)]) == 0
    files = []
    for model in models:
        capsys.readouterr()
        assert main(["predict", str(model), "--machine", str(machine), *POINT, "--json"]) == 0
        files.append(tmp_path / f"{model.stem}.prediction.json")
        files[-1].write_text(capsys.readouterr().out)
    assert main(["compare", *map(str, files), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["sections"]) == {"time", "per cost", "per block"}
    assert 0 < _section(result, "time")["predicted"]["ratio"] < 1


def test_what_cannot_be_compared_is_one_line(models, tmp_path, capsys):
    before, _ = models
    assert main(["compare", str(before), str(CAMPAIGNS[0])]) == 2
    assert "is a model and" in one_line_error(capsys)
    assert main(["compare", str(before), str(before)]) == 2
    assert "needs the point" in one_line_error(capsys)
    binary = tmp_path / "a.out"
    binary.write_bytes(b"\x7fELF\x00\x00")
    assert main(["compare", str(binary), str(before)]) == 2
    assert "a binary file" in one_line_error(capsys)
