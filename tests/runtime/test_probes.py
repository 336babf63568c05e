"""The machine probes' plan, line reader, curves and file, without running a probe
(``perfeq probe`` for real: tests/workflows/test_probe.py)."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from perfeq.errors import RunError, UsageError
from perfeq.runtime.probes.build import PROGRAMS, SOURCE_DIR, probe_sources
from perfeq.runtime.probes.curves import CURVES, Curve, curves_of, merge_over_procs, parse_point
from perfeq.runtime.probes.document import ProbeResults, load_probes, save_probes, summary
from perfeq.runtime.probes.plan import (
    FULL,
    GRAIN,
    QUICK,
    contention_counts,
    default_procs,
    plan_steps,
    working_sets,
)

MiB = 1 << 20


def test_working_sets_are_log_spaced_from_4_KiB_to_4x_the_last_level_cache():
    assert working_sets(32 * MiB, 1) == [4096 << k for k in range(16)]
    sizes = working_sets(30 * MiB, 3)
    assert sizes[0] == 4096 and sizes[-1] == pytest.approx(120 * MiB, rel=0.01)
    assert all(size % GRAIN == 0 for size in sizes) and sizes == sorted(set(sizes))
    ratios = [b / a for a, b in zip(sizes, sizes[1:], strict=False)]
    assert all(ratio == pytest.approx(2 ** (1 / 3), rel=0.05) for ratio in ratios[:-1])


def test_contention_runs_1_2_4_and_all_cores_and_the_collectives_2_to_all():
    assert contention_counts(8, True) == [1, 2, 4, 8]
    assert contention_counts(6, True) == [1, 2, 4, 6]
    assert contention_counts(6, False) == [1, 6]
    assert contention_counts(1, True) == [1]
    assert default_procs(1) == [] and default_procs(2) == [2] and default_procs(6) == [2, 4, 6]


def test_the_plan_counts_every_point_and_keeps_memory_within_half_the_node():
    steps = plan_steps(QUICK, llc_bytes=32 * MiB, line_bytes=64, memory_bytes=16 << 30, cores=2, procs=[2])
    assert [(s.program, s.procs, s.placement) for s in steps] == [
        ("memory", 1, "node"), ("memory", 2, "node"), ("compute", 1, "node"), ("network", 2, "node"),
        ("network", 2, "any")]
    assert steps[0].points == 4 * 16 and steps[2].points == 10  # seven compute kernels, three noise curves
    assert steps[3].points == len(QUICK.pingpong_sizes) and QUICK.pingpong_sizes[0] == 0
    assert QUICK.pingpong_sizes[-1] == 4 * MiB and FULL.pingpong_sizes[-1] == 4 * MiB
    assert steps[4].points == 3 * len(QUICK.collective_sizes) + 1
    # 256 MiB of memory: 2 processes x 128 MiB would take all of it, so their largest working set goes
    small = plan_steps(QUICK, llc_bytes=32 * MiB, line_bytes=64, memory_bytes=256 * MiB, cores=2, procs=[])
    assert "134217728" in small[0].args[0] and "134217728" not in small[1].args[0]
    assert [s.program for s in small] == ["memory", "memory", "compute"]  # no --procs, no network
    across = plan_steps(QUICK, llc_bytes=MiB, line_bytes=64, memory_bytes=16 << 30, cores=4, procs=[4, 8],
                        across=True)
    assert [s.placement for s in across if s.program == "network"] == ["node", "across", "any", "any"]


def test_the_c_sources_ship_as_package_data():
    assert set(probe_sources()) == set(PROGRAMS)
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "perfeq.runtime.probes" in config["packages"]
    patterns = config["package-data"]["perfeq.runtime.probes"]
    assert {p.name for pattern in patterns for p in SOURCE_DIR.glob(pattern)} == {"probe.h", *(f"{n}.c" for n in PROGRAMS)}


def _line(curve: str, x: float, samples) -> str:
    return json.dumps({"curve": curve, "x": x, "iters": 4, "samples": samples})


def test_a_line_is_a_point_a_notice_is_skipped_and_a_bad_line_is_one_error():
    point = parse_point(_line("read", 4096, [[2e10, 1e10], [3e10, 1e10]]), "memory")
    assert point.curve == "read" and point.x == 4096 and point.samples == ((2e10, 1e10), (3e10, 1e10))
    assert parse_point("[proxy] a notice of the MPI library\n", "memory") is None
    with pytest.raises(RunError, match="unknown curve 'reed'"):
        parse_point(_line("reed", 4096, [[1.0]]), "memory")
    with pytest.raises(RunError, match="not positive"):
        parse_point(_line("chase", 4096, [[0.0]]), "memory")
    with pytest.raises(RunError, match="cannot read"):
        parse_point('{"curve": "read", "x": 1', "memory")


def test_the_ranks_of_a_repetition_make_one_sample_and_derived_curves_follow():
    points = [parse_point(_line("read", 4096, [[2e10, 1e10], [4e10, 2e10], [3e10, 3e10]]), "m")]
    (read,) = curves_of(points, 2, "m")
    assert read.samples == ((1.5e10, 3e10, 3e10),) and read.median == [3e10]
    assert read.statistic("min") == [1.5e10] and read.statistic("q1") == [2.25e10]
    with pytest.raises(RunError, match="values of 1 ranks, not 2"):
        curves_of([parse_point(_line("read", 4096, [[1e10]]), "m")], 2, "m")
    network = [parse_point(_line("pingpong_intra", x, [[t], [t * 1.1]]), "n")
               for x, t in ((0, 1e-6), (1024, 2e-6), (1 << 20, 2e-4))]
    curves = {c.name: c for c in curves_of(network, 2, "n")}
    bandwidth = curves["pingpong_intra_bandwidth"]
    assert bandwidth.x == (1024, 1 << 20)  # not at 0 bytes
    assert bandwidth.samples[1][0] == pytest.approx((1 << 20) / 2e-4, rel=1e-12)
    compute = [parse_point(_line(name, 100, [[t], [t]]), "c")
               for name, t in (("branch_predictable", 1e-9), ("branch_random", 4e-9))]
    difference = {c.name: c for c in curves_of(compute, 1, "c")}["branch_difference"]
    assert difference.median == [pytest.approx(3e-9, rel=1e-12)]


def test_barriers_of_several_launches_become_one_curve_against_p():
    barrier = [Curve("barrier", p, (p,), ((1e-6 * p,),), (10,)) for p in (4, 2, 8)]
    bcast = Curve("bcast", 2, (8.0,), ((1e-6,),), (10,))
    merged = merge_over_procs([barrier[0], bcast, barrier[1], barrier[2]])
    assert [c.name for c in merged] == ["barrier", "bcast"]
    assert merged[0].x == (2, 4, 8) and merged[0].procs == 8


def _results() -> ProbeResults:
    read = Curve("read", 1, (4096.0, 1 << 27), ((5e10, 6e10, 7e10), (1e10, 1.2e10, 1.1e10)), (100, 1))
    chase = Curve("chase", 1, (4096.0, 1 << 27), ((1e-9,), (1e-7,)), (1000, 1000))
    return ProbeResults(created="2025-01-01T00:00:00+00:00", machine={"name": "m", "l1_bytes": 32768},
                        toolchain={"mpicc": "mpicc"}, settings={"name": "quick"},
                        commands=({"what": "memory", "command": ["mpiexec", "-n", "1", "memory"]},),
                        curves=(read, chase))


def test_the_file_round_trips_with_its_statistics(tmp_path):
    path = save_probes(tmp_path / "probes.json", _results())
    data = json.loads(path.read_text())
    assert data["format"] == "perfeq-probes" and data["version"] == 1
    read = data["curves"][0]
    assert read["x"] == [4096, 1 << 27] and read["median"] == [6e10, 1.1e10] and read["reps"] == [3, 3]
    assert read["min"] == [5e10, 1e10] and read["max"] == [7e10, 1.2e10] and read["unit"] == "B/s"
    assert data["summary"]["read_first"] == 6e10 and data["summary"]["chase_last"] == 1e-7
    again = load_probes(path)
    assert again.curves == _results().curves and again.commands == _results().commands
    assert summary(again) == data["summary"]


def test_a_file_of_another_version_or_a_bad_curve_is_one_error(tmp_path):
    path = tmp_path / "probes.json"
    data = json.loads(_results().to_json())
    path.write_text(json.dumps({**data, "version": 2}))
    with pytest.raises(UsageError, match="version 2 is not supported"):
        load_probes(path)
    data["curves"][0]["samples"] = [[1.0]]
    path.write_text(json.dumps(data))
    with pytest.raises(UsageError, match="not a valid perfeq probes file"):
        load_probes(path)


def test_every_curve_the_c_probes_print_is_in_the_table_and_the_docs():
    printed = set()
    for name in PROGRAMS:
        source = (SOURCE_DIR / f"{name}.c").read_text()
        printed |= {curve for curve in CURVES if f'"{curve}"' in source}
    derived = {"branch_difference", "pingpong_intra_bandwidth", "pingpong_inter_bandwidth",
               "launch"}  # (timed by perfeq around whole launches)
    assert printed | derived == set(CURVES)
    docs = (ROOT / "docs" / "probes.md").read_text()
    assert all(f"`{curve}`" in docs for curve in CURVES)
    assert all(spec.unit in ("B/s", "s", "1/s") and spec.what for spec in CURVES.values())
