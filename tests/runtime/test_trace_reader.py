"""The trace reader and the rank merger: valid traces, broken traces, one-line errors."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from perfeq.cli import main as cli_main
from perfeq.errors import TraceError
from perfeq.runtime.merge import merge_rank_traces
from perfeq.runtime.trace import (
    IncompleteTraceWarning,
    MPIRecord,
    ValueStat,
    iter_records,
    read_trace,
)


def rank_records(rank: int = 0, nranks: int = 1, n: int = 8) -> list[dict[str, Any]]:
    """A small trace of one rank, as the C runtime writes it (without the footer)."""
    return [
        {"record": "header", "format": "perfeq-trace", "version": 1, "abi": 1, "program": "./prog",
         "argv": ["./prog", str(n)], "rank": rank, "nranks": nranks, "rank_source": "mpi", "mpi": True,
         "nthreads": None, "pid": 100 + rank, "time": 0},
        {"record": "unit", "id": 0, "abi": 1, "source": "prog.c", "descriptors": None, "digest": "ab",
         "functions": [{"name": "main", "nslots": 4, "nvalues": 1}, {"name": "work", "nslots": 3, "nvalues": 0}]},
        {"record": "context", "id": 0, "parent": None, "unit": 0, "func": 0, "caller_unit": None, "site": None,
         "thread": 0, "calls": 1, "regions": 2},
        {"record": "counters", "context": 0, "counts": [[0, 1], [3, n]]},
        {"record": "values", "context": 0, "values": [{"slot": 0, "n": 2, "first": n, "last": 1, "min": 1,
                                                        "max": n, "sum": n + 1}]},
        {"record": "mpi", "context": 0, "site": 4, "call": "MPI_Bcast", "calls": 1, "elements": n,
         "bytes": 8 * n, "comm_size": nranks, "comm_rank": rank, "root": 0},
        {"record": "context", "id": 1, "parent": 0, "unit": 0, "func": 1, "caller_unit": 0, "site": 2,
         "thread": 0, "calls": 3, "regions": 0},
        {"record": "counters", "context": 1, "counts": [[0, 3], [2, 3 * n]]},
        {"record": "mpi", "context": None, "site": None, "call": "MPI_Barrier", "calls": 1, "elements": 0,
         "bytes": 0, "comm_size": nranks, "comm_rank": rank, "root": None},
        {"record": "params", "params": {"n": n}},
    ]


def footer(records: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"record": "footer", "records": len(records), "units": 1, "contexts": 2, "threads": 1, "errors": 0,
            "dropped": 0, "stopped": False, "stop_reason": None, "ended": "finalize", **extra}


def write(path: Path, records: list[dict[str, Any]], *, with_footer: bool = True) -> Path:
    lines = [json.dumps(r) for r in records] + ([json.dumps(footer(records))] if with_footer else [])
    path.write_text("\n".join(lines) + "\n")
    return path


def test_reads_one_rank(tmp_path: Path) -> None:
    trace = read_trace(write(tmp_path / "prog.trace", rank_records(n=8)))
    assert not trace.merged and trace.nranks == 1 and not trace.incomplete and not trace.stopped
    rank = trace.ranks[0]
    assert rank.units[0].source == "prog.c" and [f.name for f in rank.units[0].functions] == ["main", "work"]
    main, work = rank.contexts[0], rank.contexts[1]
    assert (main.calls, main.regions, main.counters) == (1, 2, {0: 1, 3: 8})
    assert main.values == {0: ValueStat(2, 8.0, 1.0, 1.0, 8.0, 9.0)}
    assert main.values[0].mean == 4.5
    assert main.mpi == [MPIRecord("MPI_Bcast", 4, 1, 8, 64, 1, 0, 0)] and main.mpi[0].is_root
    assert (work.parent, work.site, work.caller_unit, work.counters) == (0, 2, 0, {0: 3, 2: 24})
    assert rank.orphan_mpi[0].call == "MPI_Barrier"
    assert trace.params == {"n": 8}


def _broken(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "prog.trace"
    path.write_text(text)
    return path


def _lines(records: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(r) for r in records] + [json.dumps(footer(records))]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda lines: lines[:2] + ["{garbage"] + lines[2:], r"prog\.trace:3: not JSON: "),
        (lambda lines: lines[:2] + ["[1, 2]"] + lines[2:], r"prog\.trace:3: expected a JSON object, got list"),
        (lambda lines: [lines[0].replace("\"version\": 1", "\"version\": 3")] + lines[1:],
         r"prog\.trace:1: trace version 3 is not supported; this perfeq reads versions 1 and 2"),
        (lambda lines: [lines[0].replace("perfeq-trace", "other")] + lines[1:], r"prog\.trace:1: not a perfeq trace"),
        (lambda lines: lines[1:], r"prog\.trace:1: the first record must be the header, not 'unit'"),
        (lambda lines: lines[:-1] + [lines[-1].replace('"records": 10', '"records": 9')],
         r"prog\.trace:11: the footer counts 9 records but 10 precede it"),
        (lambda lines: lines + [lines[2]], r"prog\.trace:12: context record after the footer"),
        (lambda lines: lines[:2] + [lines[3]] + lines[4:], r"prog\.trace:3: refers to context 0, not defined"),
        (lambda lines: [lines[0], lines[2]] + lines[3:], r"prog\.trace:2: context 0 refers to unit 0, not defined"),
        (lambda lines: lines[:3] + [lines[3].replace("[3, 8]", "[4, 8]")] + lines[4:],
         r"prog\.trace:4: counter slot 4 out of range \(function has 4 slots\)"),
        (lambda lines: lines[:3] + [lines[3].replace('"counters"', '"counterz"')] + lines[4:],
         r"prog\.trace:4: unknown record kind 'counterz'"),
        (lambda lines: lines[:2] + [lines[2].replace('"calls": 1', '"calls": "1"')] + lines[3:],
         r"prog\.trace:3: context field 'calls' should be int, not '1'"),
        (lambda lines: lines[:2] + [lines[2].replace('"thread": 0, ', "")] + lines[3:],
         r"prog\.trace:3: context record without field 'thread'"),
        (lambda lines: [], r"prog\.trace:1: empty trace: no header"),
    ],
)
def test_broken_traces_give_one_line_errors(tmp_path: Path, mutate: Any, message: str) -> None:
    lines = mutate(_lines(rank_records()))
    path = _broken(tmp_path, "".join(line + "\n" for line in lines))
    with pytest.raises(TraceError, match=message) as info:
        read_trace(path)
    assert "\n" not in str(info.value)


def test_truncated_trace_is_an_error(tmp_path: Path) -> None:
    lines = _lines(rank_records())
    path = _broken(tmp_path, "\n".join(lines[:4]) + "\n" + lines[4][:20])
    with pytest.raises(TraceError, match=r"prog\.trace:5: the file ends inside a record \(truncated trace\)$"):
        read_trace(path)


def test_missing_footer_warns_and_marks_incomplete(tmp_path: Path) -> None:
    path = write(tmp_path / "prog.trace", rank_records(), with_footer=False)
    with pytest.warns(IncompleteTraceWarning, match=r"prog\.trace: incomplete trace: no footer"):
        trace = read_trace(path)
    assert trace.incomplete and trace.ranks[0].incomplete


def test_header_only_is_a_crashed_run(tmp_path: Path) -> None:
    path = write(tmp_path / "prog.trace", rank_records()[:1], with_footer=False)
    with pytest.warns(IncompleteTraceWarning):
        trace = read_trace(path)
    assert trace.incomplete and trace.ranks[0].contexts == {}


def test_cli_reports_a_bad_trace_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _lines(rank_records())
    path = _broken(tmp_path, "\n".join(lines[:2] + ["not json"] + lines[2:]) + "\n")
    for argv in (["callgraph", str(path)], ["counts", "--trace", str(path)]):
        assert cli_main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"perfeq: error: {path}:3: not JSON") and err.count("\n") == 1
        assert "Traceback" not in err
    assert cli_main(["counts", "--trace", str(tmp_path / "none.trace")]) == 2
    assert capsys.readouterr().err == f"perfeq: error: {tmp_path / 'none.trace'}: no such trace file\n"


def test_cli_counts_needs_a_trace_or_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["counts"]) == 2
    assert capsys.readouterr().err.startswith("perfeq: error: perfeq counts: give --trace TRACE")
    path = write(tmp_path / "prog.trace", rank_records())
    assert cli_main(["counts", "--trace", str(path), "model.json", "N=4"]) == 2
    assert "the values are the run's; give no NAME=VALUE" in capsys.readouterr().err
    assert cli_main(["run"]) == 2
    assert capsys.readouterr().err.startswith("perfeq: error: perfeq run: no command given")


def test_cli_warns_in_one_line_on_an_incomplete_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "prog.trace", rank_records(), with_footer=False)
    assert cli_main(["callgraph", str(path)]) == 0
    err = capsys.readouterr().err
    assert err == f"perfeq: warning: {path}: incomplete trace: no footer (the program crashed or was killed?)\n"


# ---- merging ----------------------------------------------------------------------------------


def test_merge_tags_records_with_their_rank(tmp_path: Path) -> None:
    paths = [write(tmp_path / f"r{r}.trace", rank_records(r, 2, n=4 + r)) for r in (1, 0)]
    result = merge_rank_traces(paths, tmp_path / "merged.trace", command=["mpiexec", "-n", "2", "./prog"],
                               exit_status=0)
    assert result.ranks == (0, 1) and result.complete
    assert sorted(p.name for p in tmp_path.iterdir()) == ["merged.trace", "r0.trace", "r1.trace"]
    trace = read_trace(tmp_path / "merged.trace")
    assert trace.merged and trace.nranks == 2 and not trace.incomplete
    assert trace.header["command"] == ["mpiexec", "-n", "2", "./prog"] and trace.header["params"] == {"n": 4}
    assert trace.ranks[1].contexts[0].counters == {0: 1, 3: 5}
    assert trace.ranks[1].header["pid"] == 101 and trace.ranks[1].footer["ended"] == "finalize"
    records = [record for _, record in iter_records(tmp_path / "merged.trace")]
    assert all("rank" in r for r in records[1:-1])


def test_merge_keeps_what_crashed_ranks_wrote(tmp_path: Path) -> None:
    write(tmp_path / "r0.trace", rank_records(0, 3))
    cut = tmp_path / "r2.trace"
    lines = _lines(rank_records(2, 3))[:5]
    cut.write_text("\n".join(lines[:4]) + "\n" + lines[4][:10])  # killed while writing
    with pytest.warns(IncompleteTraceWarning, match=r"r2\.trace:5: dropped the last record"):
        result = merge_rank_traces([tmp_path / "r0.trace", cut], tmp_path / "m.trace", exit_status=1)
    assert (result.missing_ranks, result.incomplete_ranks) == ((1,), (2,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trace = read_trace(tmp_path / "m.trace")  # the merged trace has its footer
    assert trace.incomplete and not trace.ranks[0].incomplete and trace.ranks[2].incomplete
    assert trace.footer["missing_ranks"] == [1] and trace.ranks[2].contexts[0].counters == {0: 1, 3: 8}


def test_merge_refuses_two_traces_of_one_rank(tmp_path: Path) -> None:
    paths = [write(tmp_path / f"r{i}.trace", rank_records(0, 2)) for i in range(2)]
    with pytest.raises(TraceError, match=r"r1\.trace:1: a second trace of rank 0"):
        merge_rank_traces(paths, tmp_path / "m.trace")
    assert not (tmp_path / "m.trace").exists()


def test_merged_records_need_a_rank(tmp_path: Path) -> None:
    write(tmp_path / "r0.trace", rank_records())
    merge_rank_traces([tmp_path / "r0.trace"], tmp_path / "m.trace")
    lines = (tmp_path / "m.trace").read_text().splitlines()
    record = json.loads(lines[3])
    del record["rank"]
    lines[3] = json.dumps(record)
    (tmp_path / "m.trace").write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError, match=r"m\.trace:4: record without its rank in a merged trace"):
        read_trace(tmp_path / "m.trace")


def test_reads_the_times_of_version_2(tmp_path: Path) -> None:
    records = rank_records()
    records[0]["version"] = 2
    times = {"n": 3, "sum": 0.006, "sum2": 1.4e-05, "sdiff2": 2e-06, "min": 0.001, "max": 0.003,
             "bins": [[19, 1], [20, 1], [21, 1]]}
    records[5] = {**records[5], "burst": times, "inside": {**times, "sum": 0.003}}
    trace = read_trace(write(tmp_path / "prog.trace", records))
    (record,) = trace.ranks[0].contexts[0].mpi
    assert record.burst.n == 3 and record.burst.mean == pytest.approx(0.002)
    assert record.burst.variance == pytest.approx((1.4e-05 - 0.006**2 / 3) / 2)
    assert record.burst.successive_variance == pytest.approx(2e-06 / 4)
    assert record.burst.bins == ((19, 1), (20, 1), (21, 1)) and record.inside.sum == 0.003
    merged = record.burst.merge(record.burst)
    assert (merged.n, merged.bins[0], merged.sdiff2) == (6, (19, 2), 4e-06)
    records[5]["burst"] = {**times, "min": -1}
    with pytest.raises(TraceError, match=r"bad\.trace:6: mpi field 'burst' should be .*'min' is -1"):
        read_trace(write(tmp_path / "bad.trace", records))
