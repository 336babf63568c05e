"""The ``perfeq rank`` subcommand through :func:`perfeq.cli.main`, and the examples of docs/ranking.md."""

from __future__ import annotations

import json
import shlex

import pytest
from conftest import DATA, DOCS

from perfeq.cli import main

DATA = DATA / "rank"
DOCS = DOCS / "ranking.md"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["rank", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_too_few_machines_is_one_error_line_with_exit_2(capsys):
    status, out, err = run(capsys, "--benchmarks", str(DATA / "machines.csv"),
                           "--runtimes", str(DATA / "too_few_times.csv"))
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("perfeq: error: ")
    assert "too_few_times.csv:3: gamess/32: 4 machines with run times for 7 benchmarks" in lines[0]
    assert "(n >= b)" in lines[0]


def test_fewer_columns_make_the_same_case_fittable(capsys):
    status, out, _ = run(capsys, "--benchmarks", str(DATA / "machines.csv"), "--runtimes",
                         str(DATA / "too_few_times.csv"), "--columns", "FLOPS,MM(s)", "--draws", "0", "--json")
    assert status == 0
    case = json.loads(out)["methods"]["lsq"]["cases"][0]
    assert set(case["weights"]) == {"FLOPS", "MM(s)"}
    assert case["cross_validation"]["mean_error"] > 0


def test_weights_json_compares_methods(capsys):
    status, out, _ = run(capsys, "--benchmarks", str(DATA / "machines.csv"), "--runtimes",
                         str(DATA / "app_times.csv"), "--compare", "--method", "reduced", "--draws", "30", "--json")
    assert status == 0
    document = json.loads(out)
    assert (document["format"], document["version"], document["mode"]) == ("perfeq-ranking", 1, "weights")
    assert list(document["methods"]) == ["reduced", "lsq", "lp"]
    reduced = document["methods"]["reduced"]
    assert [d["benchmark"] for d in reduced["dropped"]] == ["L1(s)"]
    assert "L1(s)" not in reduced["columns"]
    wrf = next(case for case in reduced["cases"] if case["application"] == "wrf")
    assert len(wrf["ranking"]) == 12  # every machine of the table is ranked, measured or not
    assert wrf["subsets"]["max_inversions"] == 10
    avus128 = next(c for c in document["methods"]["lsq"]["cases"] if c["application"] == "avus" and
                   c["processors"] == 128)
    assert avus128["subsets"] is None  # 9 machines cannot rank 5 and fit 7 benchmarks with the rest
    assert any("needs at least 12 machines" in problem for problem in avus128["problems"])
    lp_case = document["methods"]["lp"]["cases"][0]
    assert all(weight >= 0 for weight in lp_case["weights"].values())
    assert lp_case["suspects"] and lp_case["gamma"] > 0


def test_weights_text_has_the_papers_tables(capsys):
    status, out, _ = run(capsys, "--benchmarks", str(DATA / "machines.csv"), "--runtimes",
                         str(DATA / "app_times.csv"), "--case", "wrf/64", "--draws", "20")
    assert status == 0
    assert "ranking for wrf on 64 processors (lsq, fitted on 12 machines)" in out
    assert "leave-one-machine-out |relative error| (Eq. 2)" in out
    assert "thresholded inversions ranking 5 random machines" in out


def test_metric_ranking_without_runtimes(capsys):
    status, out, _ = run(capsys, "--benchmarks", str(DATA / "machines.csv"), "--metric", "MM(s)", "--json")
    assert status == 0
    machines = json.loads(out)["rankings"][0]["machines"]
    values = [entry["value"] for entry in machines]
    assert values == sorted(values, reverse=True)  # a rate: the highest bandwidth ranks first


def test_metric_table_and_search(capsys):
    status, out, _ = run(capsys, "--benchmarks", str(DATA / "machines.csv"), "--runtimes",
                         str(DATA / "app_times.csv"), "--metric", "all", "--search", "--top", "3", "--json")
    assert status == 0
    document = json.loads(out)
    totals = {score["metric"]: score["total"] for score in document["scores"]}
    assert set(totals) == set(document["benchmarks"]["columns"])
    assert sum(score["per_application"]["avus"] for score in document["scores"][:1]) == \
        sum(case["inversions"] for case in document["scores"][0]["cases"] if case["application"] == "avus")
    best = document["search"]["results"]
    assert len(best) == 3
    assert best[0]["total"] <= min(totals.values())


def test_profiles_ranking(capsys):
    status, out, _ = run(capsys, "--profiles", *(str(DATA / f"{n}.json") for n in ("fast", "medium", "slow", "odd")),
                         "--counts", str(DATA / "counts.json"), "--runtimes", str(DATA / "profile_times.csv"),
                         "--json")
    assert status == 0
    document = json.loads(out)
    assert [entry["machine"] for entry in document["ranking"]] == ["fast", "odd", "medium", "slow"]
    assert document["total_inversions"] == 1
    assert document["unmatched"] == ["unknown_machine"]


@pytest.mark.parametrize("argv, message", [
    (["--counts", "counts.json"], "--counts ranks machine profiles: give them with --profiles"),
    (["--runtimes", "app_times.csv"], "give a benchmark table with --benchmarks"),
    (["--benchmarks", "machines.csv"], "fitting weights needs run times"),
    (["--benchmarks", "machines.csv", "--metric", "GHz"], "no benchmark column 'GHz'"),
    (["--benchmarks", "machines.csv", "--runtimes", "app_times.csv", "--alpha", "2"], "alpha = 2.0 is outside"),
    (["--benchmarks", "machines.csv", "--search"], "--search scores metrics against run times"),
    (["--benchmarks", "app_times.csv", "--metric", "all"], "app_times.csv:1: expected the format line"),
])
def test_user_errors_are_one_line(capsys, monkeypatch, argv, message):
    monkeypatch.chdir(DATA)
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("perfeq: error: ")
    assert message in err


def documented_examples() -> list[str]:
    return [line[2:] for line in DOCS.read_text().splitlines() if line.startswith("$ perfeq rank ")]


def test_docs_have_examples():
    assert len(documented_examples()) >= 4


@pytest.mark.parametrize("command", documented_examples())
def test_documented_example_runs(capsys, monkeypatch, command):
    monkeypatch.chdir(DATA)
    argv = shlex.split(command)
    assert argv[:2] == ["perfeq", "rank"]
    status, out, err = run(capsys, *argv[2:])
    assert (status, err) == (0, "")
    assert out.strip()
