"""``perfeq scaling`` end to end: text, JSON, CSV and PNG output, and one-line errors."""

from __future__ import annotations

import json

import pytest
from conftest import DATA

from perfeq.cli import main

DATA = DATA / "scaling"


def run(capsys, *args):
    status = main(["scaling", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_text_report_has_the_papers_tables(capsys):
    status, out, err = run(
        capsys,
        DATA / "npb.csv",
        "--work",
        DATA / "npb_work.csv",
        "--peak",
        DATA / "npb_peak.csv",
        "--functions",
        "1/p,1,1/sqrt(p)",
        "--joint",
    )
    assert status == 0, err
    assert "fitted value t' = t * p / W_c * r_peak" in out
    for heading in ("(Table 1)", "(Table 2:", "(Table 3:", "(Table 4:", "(Table 5;"):
        assert heading in out
    assert "best (per pair)" in out
    assert "r1[T3D]" in out and "w2[SP]" in out


def test_joint_json_csv_and_plots(capsys, tmp_path):
    output = tmp_path / "joint.json"
    status, out, err = run(
        capsys,
        DATA / "runs.csv",
        "--joint",
        "--functions",
        "1/p,1/sqrt(p)",
        "-o",
        output,
        "--csv-dir",
        tmp_path / "csv",
        "--plots",
        tmp_path / "plots",
    )
    assert status == 0, err
    document = json.loads(output.read_text())
    assert document["format"] == "perfeq-scaling" and document["version"] == 1
    assert document["observations"]["removed"][0]["line"] == 84
    (joint,) = document["joint"]
    assert joint["functions"] == ["1/p", "1/sqrt(p)"]
    assert joint["parameters_count"] == 2 * (4 + 2 - 1)
    assert {p["kind"] for p in joint["parameters"]} == {"work", "power"}
    csv_names = {path.name for path in (tmp_path / "csv").iterdir()}
    assert {
        "counts.csv",
        "individual.csv",
        "totals.csv",
        "joint.csv",
        "joint_parameters.csv",
        "removed.csv",
    } <= csv_names
    plots = sorted((tmp_path / "plots").iterdir())
    assert [path.name for path in plots] == ["joint-1-p+1-sqrt-p.png", "pairs.png"]
    assert all(path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for path in plots)
    assert not [path for path in tmp_path.rglob(".*.tmp")]
    assert f"wrote {output}" in out


def test_json_to_stdout_with_problem_size(capsys):
    status, out, err = run(
        capsys,
        DATA / "runs.csv",
        "--size-param",
        "n",
        "--codes",
        "jacobi[steps=10]",
        "--functions",
        "n^2/p,n/sqrt(p),n,log(p)",
        "--json",
    )
    assert status == 0, err
    document = json.loads(out)
    (pair, _) = document["individual"]["pairs"]
    assert pair["best"] == ["n^2/p", "n/sqrt(p)"]
    assert document["functions"][0] == {
        "label": "n^2/p",
        "expression": "n ** 2 / p",
        "normalisation": 1.0,
        "uses_size": True,
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((DATA / "one_p.csv",), "one_p.csv:2: x on a: all 4 run(s) use p=4"),
        ((DATA / "equal_times.csv",), "equal_times.csv: all 4 times are equal (2.5 s)"),
        ((DATA / "too_few.csv",), "too_few.csv:3: x[n=8] on this: 2 runs are fewer than the 3 needed"),
        ((DATA / "bad_time.csv",), "bad_time.csv:3: column 'time' is 'fast', not a finite number"),
        ((DATA / "npb.csv", "--functions", "os.system(1)"), "unknown function 'os.system'"),
        ((DATA / "npb.csv", "--systems", "Cray"), "--systems: Cray not in"),
        ((DATA / "npb.csv", "--work", DATA / "npb_peak.csv"), "missing column(s) code, work"),
        ((DATA / "npb.csv", "--top", "0"), "--top 0"),
    ],
)
def test_errors_are_one_line_with_status_2(capsys, args, message):
    status, out, err = run(capsys, *args)
    assert status == 2
    assert err.startswith("perfeq: error: ")
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert out == ""
