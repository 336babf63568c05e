"""Readers of ranking inputs: benchmark tables, run times, machine profiles and counts (docs/ranking.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA
from numpy.testing import assert_allclose

from perfeq.errors import RankError
from perfeq.fitting.ranking.profiles import rank_profiles
from perfeq.fitting.ranking.tables import (
    benchmark_table_from_profiles,
    read_benchmarks,
    read_counts,
    read_profile,
    read_profiles,
    read_runtimes,
)

DATA = DATA / "rank"
PROFILES = [DATA / f"{name}.json" for name in ("fast", "medium", "slow", "odd")]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_benchmark_fixture_reads():
    table = read_benchmarks(DATA / "machines.csv")
    assert len(table.machines) == 12
    assert table.columns == ("FLOPS", "L1(s)", "L2(s)", "MM(s)", "MM(r)", "NW bw", "NW lat")
    assert table.kinds[-1] == "time" and set(table.kinds[:-1]) == {"rate"}
    assert table.values[0, 0] == pytest.approx(8.7583, rel=1e-12)
    assert table.times()[0, 0] == pytest.approx(1 / 8.7583, rel=1e-12)
    assert table.times()[0, -1] == pytest.approx(7.7978, rel=1e-12)


def test_runtime_fixture_groups_cases_and_skips_missing_entries():
    runtimes = read_runtimes(DATA / "app_times.csv")
    assert [case.label for case in runtimes.cases] == ["avus/64", "avus/128", "wrf/64", "hycom/128"]
    assert [len(case.machines) for case in runtimes.cases] == [11, 9, 12, 10]
    assert runtimes.cases[0].lines[0] == 4
    assert [case.label for case in runtimes.select(["avus"]).cases] == ["avus/64", "avus/128"]
    assert [case.label for case in runtimes.select(["avus/128"]).cases] == ["avus/128"]
    with pytest.raises(RankError, match="no case 'lammps'"):
        runtimes.select(["lammps"])


@pytest.mark.parametrize("text, message", [
    ("machine,FLOPS\nkind,rate\na,1\n", r"b.csv:1: expected the format line '# perfeq-benchmarks 1' first"),
    ("# perfeq-benchmarks 2\nmachine,FLOPS\n", r"b.csv:1: perfeq-benchmarks version 2 is not supported"),
    ("# perfeq-benchmarks 1\nmachine,FLOPS\na,1\n", r"b.csv:3: expected the kind row"),
    ("# perfeq-benchmarks 1\nmachine,FLOPS\nkind,speed\n", r"b.csv:3: kind of 'FLOPS' is 'speed'"),
    ("# perfeq-benchmarks 1\nmachine,FLOPS,lat\nkind,rate,time\na,1,\n", r"b.csv:4: a: benchmark 'lat' is missing"),
    ("# perfeq-benchmarks 1\nmachine,FLOPS\nkind,rate\n# c\na,fast\n", r"b.csv:5: a: FLOPS 'fast' is not a number"),
    ("# perfeq-benchmarks 1\nmachine,FLOPS\nkind,rate\na,-1\n", r"b.csv:4: .* must be a positive finite number"),
    ("# perfeq-benchmarks 1\nmachine,FLOPS\nkind,rate\na,1\na,2\n", r"b.csv:5: machine 'a' already has a row at line 4"),
    ("# perfeq-benchmarks 1\nmachine,FLOPS,FLOPS\n", r"b.csv:2: benchmark column 'FLOPS' appears twice"),
])
def test_benchmark_errors_name_file_and_line(tmp_path, text, message):
    with pytest.raises(RankError, match=message):
        read_benchmarks(write(tmp_path, "b.csv", text))


@pytest.mark.parametrize("text, message", [
    ("# perfeq-runtimes 1\napplication,machine,seconds\n", r"r.csv:2: the header lacks processors"),
    ("# perfeq-runtimes 1\napplication,processors,machine,seconds\nx,four,a,1\n", r"r.csv:3: processors 'four'"),
    ("# perfeq-runtimes 1\napplication,processors,machine,seconds\nx,4,a,1\nx,4,a,2\n",
     r"r.csv:4: x on 4 processors on a already has a run time at line 3"),
    ("# perfeq-runtimes 1\napplication,processors,machine,seconds\nx,4,a,\n", r"r.csv: no run times"),
])
def test_runtime_errors_name_file_and_line(tmp_path, text, message):
    with pytest.raises(RankError, match=message):
        read_runtimes(write(tmp_path, "r.csv", text))


def test_unknown_machine_in_runtimes_is_reported_at_its_line(tmp_path):
    path = write(tmp_path, "r.csv", "# perfeq-runtimes 1\napplication,processors,machine,seconds,note\n"
                                    "x,4,ASC_SGI_Altix,1,ok\nx,4,Nowhere,2,typo\n")
    runtimes = read_runtimes(path)
    with pytest.raises(RankError, match=r"r.csv:4: machine 'Nowhere' has no row in .*machines.csv"):
        runtimes.check_machines(read_benchmarks(DATA / "machines.csv").machines, str(DATA / "machines.csv"))


# --- Machine profiles ----------------------------------------------------------------------------------

def test_profiles_are_named_by_stem_and_extra_fields_ignored():
    profiles = read_profiles(PROFILES)
    assert list(profiles) == ["fast", "medium", "slow", "odd"]
    table = benchmark_table_from_profiles(profiles)
    assert table.columns == ("ops", "l1", "bytes", "startup")
    assert table.kinds == ("time",) * 4
    assert table.values[0, 0] == pytest.approx(1e-9, rel=1e-12)


def test_rank_profiles_predicts_and_scores_by_hand():
    # Predicted = 1e9 ops + 1e8 bytes + 100 startups:
    #   fast 1 + 0.1 + 0.001 = 1.101, medium 2.101, slow 3.2 + 0.001 = 3.201, odd 1.5 + 0.5 + 0.002 = 2.002.
    result = rank_profiles(read_profiles(PROFILES), read_counts(DATA / "counts.json"),
                           runtimes=read_runtimes(DATA / "profile_times.csv"))
    assert result.machines == ("fast", "odd", "medium", "slow")
    assert_allclose(result.predicted, [1.101, 2.002, 2.101, 3.201], rtol=1e-12)
    # jacobi/4: odd is predicted faster than medium but measured 2.5 > 1.01 * 2.0: one inversion.
    # jacobi/8: odd 1.105 vs medium 1.1 is within alpha (1.105 < 1.111): none; unknown_machine has no profile.
    assert [(c.application, c.processors, c.machines, c.inversions) for c in result.cases] == \
        [("jacobi", 4, 4, 1), ("jacobi", 8, 3, 0)]
    assert result.total == 1
    assert result.unmatched == ("unknown_machine",)


def test_rank_profiles_reports_a_missing_cost_and_a_wrong_format():
    profile = {"format": "perfeq-machine", "version": 1, "costs": {"ops": {"value": 1e-9}}}
    assert rank_profiles({"m": profile}, {"ops": 10, "bytes": 0}).predicted == pytest.approx((1e-8,), rel=1e-12)
    with pytest.raises(RankError, match=r"m: the counts use cost 'bytes', which this profile lacks"):
        rank_profiles({"m": profile}, {"ops": 10, "bytes": 5})
    with pytest.raises(RankError, match=r"m: format is 'perfeq-model'"):
        rank_profiles({"m": {**profile, "format": "perfeq-model"}}, {"ops": 1})
    assert rank_profiles({"m": {**profile, "version": 2}}, {"ops": 10}).predicted == pytest.approx((1e-8,), rel=1e-12)
    with pytest.raises(RankError, match=r"m: perfeq-machine version 3 is not supported"):
        rank_profiles({"m": {**profile, "version": 3}}, {"ops": 1})
    with pytest.raises(RankError, match=r"costs\['ops'\] has no finite numeric 'value'"):
        rank_profiles({"m": {**profile, "costs": {"ops": {"value": "fast"}}}}, {"ops": 1})


def test_bad_json_is_reported_with_line(tmp_path):
    path = write(tmp_path, "p.json", '{"format": "perfeq-machine",\n  "version": 1,,\n}')
    with pytest.raises(RankError, match=r"p.json:2:\d+: not valid JSON"):
        read_profile(path)
    with pytest.raises(RankError, match="counts must be a non-empty JSON object"):
        read_counts(write(tmp_path, "c.json", "[]"))
    with pytest.raises(RankError, match="count of 'ops' is -1"):
        read_counts(write(tmp_path, "c.json", '{"ops": -1}'))
    assert read_counts(write(tmp_path, "c.json", '{"counts": {"ops": 3}}')) == {"ops": 3.0}


def test_profiles_written_by_perfeq_fit_are_readable(tmp_path):
    """The profile writer of the regression: its manual profiles must rank."""
    from perfeq.fitting.regression.profile import manual_profile, save_profile

    for name, ops in (("quick", 1e-9), ("slow", 4e-9)):
        save_profile(manual_profile({"ops": ops, "bytes": 1e-9}), tmp_path / f"{name}.json")
    profiles = read_profiles(sorted(tmp_path.glob("*.json")))
    result = rank_profiles(profiles, {"ops": 1e9, "bytes": 1e6})
    assert result.machines == ("quick", "slow")
    assert json.loads((tmp_path / "quick.json").read_text())["format"] == "perfeq-machine"
    assert np.all(np.diff(result.predicted) > 0)
