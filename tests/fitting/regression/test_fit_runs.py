"""Tests of the runs CSV (fitting/regression/runs.py): round trip, append, and line-numbered refusals."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DOCS

from perfeq.errors import FitError
from perfeq.fitting.regression.runs import MAGIC, Run, append_runs, parse_params, read_runs, write_runs
from perfeq.fitting.regression.synthetic import synthetic_runs

HEADER = "app,params,procs,threads,rep,time_s,ops,startup,bytes,host,timestamp"
ROW = "jacobi,n=512;steps=10,4,1,0,0.8123,2000000000,120,4096000,node01,2024-05-01T12:00:00+00:00"


def _write(tmp_path, *lines: str):
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_reads_a_documented_example(tmp_path):
    path = _write(tmp_path, MAGIC, HEADER, ROW)
    (run,) = read_runs(path)
    assert run == Run(
        app="jacobi",
        params="n=512;steps=10",
        procs=4,
        time_s=0.8123,
        counts={"ops": 2e9, "startup": 120.0, "bytes": 4096000.0},
        host="node01",
        timestamp="2024-05-01T12:00:00+00:00",
    )
    assert run.where == f"{path}:3"
    assert parse_params(run.params) == {"n": "512", "steps": "10"}


def test_version_1_files_are_read_where_startup_means_the_same(tmp_path):
    """perfeq-runs 1 stored messages sent under 'startup': a file without the column, or with zeros only
    (P = 1), reads as before; one with messages is refused (test above), unless it is to be recounted;
    and runs are not appended to such a file.  A file without the first line is the current version."""
    path = _write(tmp_path, "# perfeq-runs 1", "app,params,procs,time_s,ops,startup", "a,n=1,1,0.5,10,3",
                  "a,n=1,2,0.5,10,0")
    assert read_runs(path)[0].counts == {"ops": 10.0, "startup": 3.0}  # on one process both counts agree
    path = _write(tmp_path, "# perfeq-runs 1", HEADER, ROW)
    assert read_runs(path, recount=True)[0].counts["startup"] == 120.0
    (run,) = read_runs(_write(tmp_path, HEADER, ROW))
    with pytest.raises(FitError, match="perfeq-runs 1, whose 'startup' column counts the messages a rank sends"):
        append_runs(_write(tmp_path, "# perfeq-runs 1", HEADER, ROW), [run])
    assert len(read_runs(_write(tmp_path, "# perfeq-runs 1", HEADER, ROW), recount=True)) == 1


def test_write_then_read_round_trips(tmp_path):
    runs = synthetic_runs(5, np.random.default_rng(0))
    path = tmp_path / "runs.csv"
    write_runs(path, runs)
    assert path.read_text(encoding="utf-8").startswith(MAGIC + "\n")
    assert read_runs(path) == runs
    assert [p.name for p in tmp_path.iterdir()] == ["runs.csv"]  # no temp file left behind


def test_append_creates_then_extends(tmp_path):
    runs = synthetic_runs(6, np.random.default_rng(1))
    path = tmp_path / "runs.csv"
    append_runs(path, runs[:2])
    append_runs(path, runs[2:])
    assert read_runs(path) == runs
    other = (Run("a", "", 1, 1.0, {"ops": 1.0}),)
    with pytest.raises(FitError, match="columns are .*the new runs have"):
        append_runs(path, other)


def test_magic_line_is_optional_and_optional_columns_default(tmp_path):
    path = _write(tmp_path, "app,params,procs,time_s,ops", "mm,n=64,2,0.5,1000")
    (run,) = read_runs(path)
    assert (run.threads, run.rep, run.host, run.timestamp) == (1, 0, "", "")
    assert run.counts == {"ops": 1000.0}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["# perfeq-runs 3", HEADER, ROW], r"runs.csv:1: format version 3 is not supported"),
        (["# perfeq-runs 1", HEADER, ROW], r"runs.csv:1: perfeq-runs 1: its 'startup' column counts the messages"),
        ([MAGIC, HEADER.replace("ops", "megaflops"), ROW], r"runs.csv:2: unknown column 'megaflops'"),
        ([MAGIC, HEADER.replace("time_s", "seconds"), ROW], r"runs.csv:2: unknown column 'seconds'"),
        ([MAGIC, "app,params,procs,time_s", "a,,1,1.0"], r"runs.csv:2: no count column"),
        ([MAGIC, HEADER + ",const", ROW], r"runs.csv:2: 'const' is not a column"),
        ([MAGIC, HEADER], r"runs.csv:2: no runs after the header row"),
        (
            [MAGIC, HEADER, ROW, ROW.replace("0.8123", "abc")],
            r"runs.csv:4: column 'time_s': 'abc' is not a number",
        ),
        ([MAGIC, HEADER, ROW.replace("0.8123", "0")], r"runs.csv:3: column 'time_s': 0 is not > 0"),
        (
            [MAGIC, HEADER, ROW.replace("0.8123", "nan")],
            r"runs.csv:3: column 'time_s': 'nan' is not a number",
        ),
        ([MAGIC, HEADER, ROW.replace(",120,", ",-1,")], r"runs.csv:3: column 'startup': -1 is negative"),
        ([MAGIC, HEADER, ROW.replace(",4,1,0,", ",0,1,0,")], r"runs.csv:3: column 'procs': 0 is below 1"),
        (
            [MAGIC, HEADER, ROW.replace(",4,1,0,", ",4.5,1,0,")],
            r"runs.csv:3: column 'procs': '4.5' is not a whole",
        ),
        (
            [MAGIC, HEADER, ROW.replace("n=512;steps=10", "n512")],
            r"runs.csv:3: column 'params': 'n512' is not name=value",
        ),
        (
            [MAGIC, HEADER, ROW.replace("2024-05-01T12:00:00+00:00", "May 1")],
            r"runs.csv:3: column 'timestamp'",
        ),
        ([MAGIC, HEADER, ROW + ",extra"], r"runs.csv:3: 12 fields; the header has 11"),
        (
            ["# just a comment", "", HEADER, "", ROW, ROW.replace("jacobi", "")],
            r"runs.csv:6: column 'app' is empty",
        ),
    ],
)
def test_malformed_files_name_the_line(tmp_path, lines, message):
    path = _write(tmp_path, *lines)
    with pytest.raises(FitError, match=message) as info:
        read_runs(path)
    assert "\n" not in str(info.value)


def test_the_example_in_the_docs_reads(tmp_path):
    doc = (DOCS / "runs-csv.md").read_text(encoding="utf-8")
    example = doc.split("## Example", 1)[1].split("```", 2)[1].strip("\n")
    runs = read_runs(_write(tmp_path, example))
    assert [run.app for run in runs] == ["jacobi", "jacobi", "gauss"]
    assert set(runs[0].counts) == {"ops", "par", "l1", "l2", "page", "startup", "bytes"}


def test_the_program_digest_column_is_written_when_known_and_dropped_into_older_files(tmp_path):
    """Issue 20 item 2: a run's program identity (its sources' digest) is an optional column; runs
    with one go into a file written without the column without it, and a bad digest names its line."""
    runs = synthetic_runs(3, np.random.default_rng(0))
    known = [Run(**{**r.__dict__, "digest": "ab" * 32}) for r in runs]
    path = tmp_path / "runs.csv"
    write_runs(path, known)
    assert path.read_text().splitlines()[1].endswith(",timestamp,digest")
    assert [r.digest for r in read_runs(path)] == ["ab" * 32] * 3
    older = tmp_path / "older.csv"
    write_runs(older, runs)
    append_runs(older, known)
    assert "digest" not in older.read_text() and len(read_runs(older)) == 6
    bad = _write(tmp_path, MAGIC, HEADER + ",digest", ROW + ",xyz")
    with pytest.raises(FitError, match=r"runs.csv:3: column 'digest': 'xyz' is not a SHA-256 digest"):
        read_runs(bad)
