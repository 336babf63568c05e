"""The synchronisation term against a real MPI program with random task times of a known distribution.

tests/c/variability/sync_noise.c sleeps an Erlang-2 time per step and rank (seeded, different draws
per rank), then joins an MPI_Allreduce.  The model is built from one run of 400 steps on one process (no waiting
at all: the bursts alone); the critical path of runs on 2 processes, and 4 (oversubscribed on the
2-core test machine: the ranks sleep, so they do not compete for cores), must fall within the
interval of the predicted time, steps x mean burst + the synchronisation term.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest
from conftest import C_PROGRAMS

from perfeq.errors import BuildError
from perfeq.fitting.regression.synchronisation import (
    pooled,
    reference_compute,
    reference_trace,
    synchronisation_term,
)
from perfeq.instrument.compile import compile_instrumented
from perfeq.runtime.run import run_instrumented
from perfeq.runtime.trace import read_trace
from perfeq.symbolic.model import build_model, load_model
from perfeq.toolchain import find_mpi, mpi_env

STEPS, MEAN_US, SHAPE = 100, 20000, 2  # 100 steps of Erlang-2 task times of mean 20 ms
TRAINING_STEPS = 400  # the model's run: 400 bursts estimate their spread to about 7 %


@pytest.fixture(scope="module")
def noise(tmp_path_factory: pytest.TempPathFactory):
    """sync_noise instrumented and its model from one run on one process."""
    try:
        mpi = find_mpi()
    except BuildError as exc:
        pytest.skip(str(exc))
    folder = tmp_path_factory.mktemp("sync_noise")
    binary = folder / "sync_noise"
    source = C_PROGRAMS / "variability" / "sync_noise.c"
    assert compile_instrumented([mpi.mpicc, "-std=c99", "-O1", str(source), "-o", str(binary), "-lm"],
                                folder / "build") == 0

    training = folder / "p1.trace"
    result = run_instrumented([*mpi.launcher(1), str(binary), *map(str, (TRAINING_STEPS, MEAN_US, SHAPE, 1))], training,
                              env=mpi_env(), stdout=subprocess.DEVNULL)
    assert result.exit_status == 0
    model_path = folder / "model.json"
    build_model([training]).save(model_path)
    return load_model(model_path), mpi, binary, folder, training


def _run_output(mpi, binary: Path, procs: int, seed: int, steps: int = STEPS) -> tuple[float, float, float]:
    """(mean draw, critical path of the draws, wall time) in seconds, as the program prints them."""
    result = subprocess.run([*mpi.launcher(procs), str(binary), *map(str, (steps, MEAN_US, SHAPE, seed))],
                            env={**mpi_env(), "PERFEQ_ENABLE": "0"}, capture_output=True, text=True, check=True)
    words = result.stdout.split()
    return float(words[2]) * 1e-3, float(words[6]) * 1e-3, float(words[words.index("time") + 1])


def test_the_runtime_measures_the_injected_bursts(noise) -> None:
    model, _, _, _, training = noise
    trace = read_trace(training)
    records = [r for c in trace.ranks[0].contexts.values() for r in c.mpi if r.call == "MPI_Allreduce"]
    (record,) = records
    assert record.burst.n == record.inside.n == TRAINING_STEPS
    assert sum(count for _, count in record.burst.bins) == TRAINING_STEPS
    # Erlang-2 of mean 20 ms: the sample within 4 standard errors (sigma = mean / sqrt 2), the sleep
    # overshooting by at most 2 ms per step
    mean, sd = MEAN_US * 1e-6, MEAN_US * 1e-6 / math.sqrt(SHAPE)
    assert abs(record.burst.mean - mean) < 4 * sd / math.sqrt(TRAINING_STEPS) + 2e-3
    assert 0.5 * sd < math.sqrt(record.burst.variance) < 1.5 * sd
    assert record.burst.min <= record.burst.mean <= record.burst.max
    assert record.inside.mean < 1e-3  # one process: the allreduce does not wait
    (site,) = [s for s in model.sync if s.call == "MPI_Allreduce"]
    assert site.synchronisation == "global"
    values = {name: entry["value"] for name, entry in model.parameters.items()}
    assert model.site_calls(model.sync.index(site), values, 1) == TRAINING_STEPS


@pytest.mark.parametrize("procs", [2, 4])
def test_critical_path_is_within_the_predicted_interval(noise, procs: int) -> None:
    """The sum over the steps of the slowest rank's task time, which the program computes itself
    (an MPI_MAX allreduce of the draws: the mean time of a step without the machine's scheduling,
    which a timed check on a shared 2-core machine cannot avoid; benchmarks/synchronisation.py times
    it), within the interval of steps x mean burst + the synchronisation term."""
    model, mpi, binary, _, training = noise
    values = {name: entry["value"] for name, entry in model.parameters.items()}
    values["steps"] = STEPS
    # the bursts at their measured scale: the training run's compute, for STEPS steps
    compute = reference_compute(model, reference_trace(model)) * STEPS / TRAINING_STEPS
    term = synchronisation_term(model, values, procs, 1, compute, level=0.95)
    (site,) = [s for s in term.sites if s.call == "MPI_Allreduce"]
    (entry,) = [s for s in model.sync if s.call == "MPI_Allreduce"]
    bursts = pooled(entry.runs[0].burst)
    # the bursts measured at P = 1 are the draws plus the sleep's overshoot and the hooks: take those off
    overshoot = bursts.mean - _run_output(mpi, binary, 1, 1, steps=TRAINING_STEPS)[0]
    assert 0 <= overshoot < 2e-3
    predicted = STEPS * (site.mean_burst - overshoot) + term.seconds
    # its interval: the sync term's (run-to-run spread, estimated spread of the bursts) and the
    # standard error of the estimated mean burst, steps times
    stderr = math.hypot(term.stderr, STEPS * math.sqrt(bursts.variance / (bursts.dof + 1)))
    low, high = predicted - 1.96 * stderr, predicted + 1.96 * stderr
    _, critical, wall = _run_output(mpi, binary, procs, seed=procs + 10)
    print(f"P={procs}: critical path {critical:.4f} s (wall {wall:.4f} s), predicted {predicted:.4f} s in "
          f"[{low:.4f}, {high:.4f}] (sync term {term.seconds:.4f} s +- {term.stderr:.4f})")
    assert term.seconds > 0 and term.interval[0] < term.seconds < term.interval[1]
    assert low <= critical <= high


def test_predict_and_variability_commands_show_the_term(noise, tmp_path: Path, capsys) -> None:
    import json

    from perfeq.cli import main

    model, _, _, folder, _ = noise
    model_path = folder / "model.json"
    profile = tmp_path / "machine.json"
    assert main(["machine-profile", "--manual", "ops=1e-9", "startup=5e-6", "bytes=1e-9", "-o", str(profile)]) == 0
    capsys.readouterr()
    values = [f"{name}={entry['value']}" for name, entry in model.parameters.items()]
    assert main(["predict", str(model_path), *values, "P=4", "--machine", str(profile), "--sync", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (sync,) = [part for part in data["contributions"] if part["name"] == "sync"]
    term = data["synchronisation"]
    assert sync["seconds"] == term["seconds"] > 0 and term["procs"] == 4
    assert term["interval"][0] < term["seconds"] < term["interval"][1]
    assert abs(data["time_s"] - sum(part["seconds"] for part in data["contributions"])) < 1e-12
    assert any("independent and identically distributed" in note for note in term["assumptions"])
    plot = tmp_path / "waiting.png"
    assert main(["variability", str(model_path), *values, "--machine", str(profile), "--over", "P=1,2,...,8",
                 "-o", str(plot), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [row["procs"] for row in rows] == [1, 2, 4, 8] and plot.stat().st_size > 0
    assert rows[0]["static_wait"] == rows[0]["dynamic_wait"] == 0
    waits = [row["static_wait"] for row in rows]
    assert waits == sorted(waits) and all(row["dynamic"] <= row["static"] for row in rows[1:])


def _moments(bursts: list[float]) -> tuple[float, ...]:
    """A rank's burst moments as the trace keeps them: n, sum, sum2, min, max, sdiff2."""
    return (len(bursts), sum(bursts), sum(b * b for b in bursts), min(bursts), max(bursts),
            sum((b - a) ** 2 for a, b in zip(bursts[:-1], bursts[1:], strict=True)))


def test_one_cold_start_does_not_set_the_spread_of_a_short_training_run() -> None:
    """Forty bursts of 10 us +- 0.1 us on each rank, one rank's first burst 300 us (first touches):
    the spread within ranks is the bursts', not the cold start's (which made it 46 us)."""
    import random

    rng = random.Random(3)
    ranks = [[10e-6 + rng.gauss(0, 1e-7) for _ in range(40)] for _ in range(2)]
    ranks[0][0] = 300e-6
    bursts = pooled([_moments(r) for r in ranks])
    assert bursts.dof == 2 * 38 and bursts.maximum == 300e-6
    assert 0.7e-7 < math.sqrt(bursts.variance) < 1.3e-7
    # a work spread (uniform, 10 % cv) loses about 1/n of itself with the largest burst of each rank
    wide = [[10e-6 * (1 + 0.1 * math.sqrt(12) * (rng.random() - 0.5)) for _ in range(400)] for _ in range(2)]
    assert 0.8e-6 < math.sqrt(pooled([_moments(r) for r in wide]).variance) < 1.05e-6
    # without the squared differences (older traces): the plain variance, the largest left out too
    plain = pooled([_moments(r)[:5] + (-1.0,) for r in ranks])
    assert 0.7e-7 < math.sqrt(plain.variance) < 1.3e-7


def test_the_noise_grows_with_the_burst_and_the_work_keeps_its_cv() -> None:
    """With the probe's noise a burst's variance is lambda E[L^2] per second of it plus the work's
    spread beyond the noise at the training burst, scaled with its coefficient of variation; the
    fitted burst is right-skewed, its deterministic part the mean less the interruptions' share."""
    from perfeq.fitting.regression.synchronisation import Bursts, Noise, noisy_minimum, scaled_variance
    from perfeq.fitting.variability.distributions import fit_moments

    noise = Noise(rate=1000.0, length=10e-6, variance=4e-7, source="probes.json")
    quiet = Bursts(mean=1e-4, variance=4e-7 * 1e-4, minimum=9e-5, maximum=2e-4, dof=50, per_rank_total=5e-3)
    assert scaled_variance(quiet, 1e-2, noise) == pytest.approx(4e-9)  # all noise: 100x longer, 100x the variance
    assert scaled_variance(quiet, 1e-2, None) == pytest.approx(4e-7 * 1e-4 * 1e4)  # cv kept: 10^4 x
    busy = Bursts(mean=1e-4, variance=4e-11 + (0.1e-4) ** 2, minimum=5e-5, maximum=2e-4, dof=50, per_rank_total=5e-3)
    assert scaled_variance(busy, 1e-2, noise) == pytest.approx(4e-9 + (0.1 * 1e-2) ** 2)
    few = Bursts(mean=1e-4, variance=1e-8, minimum=5e-5, maximum=2e-4, dof=1, per_rank_total=1e-4)
    assert scaled_variance(few, 1e-2, noise) == pytest.approx(4e-9)  # too few bursts for a work spread
    mean = 1e-3
    minimum = noisy_minimum(mean, noise.variance * mean, noise)
    assert minimum == pytest.approx(mean - noise.rate * mean * noise.length)
    task = fit_moments(mean, noise.variance * mean, minimum=minimum)
    assert task.mean == pytest.approx(mean) and task.variance == pytest.approx(noise.variance * mean)
    assert task.moment(3) - 3 * mean * task.variance - mean**3 > 0  # right-skewed


def test_predict_takes_the_noise_from_a_probe_file(noise, tmp_path: Path, capsys) -> None:
    """perfeq predict --sync --noise probes.json names the noise and splits the spread; --noise without
    --sync, or a probe file without noise curves, is one line."""
    import json

    from perfeq.cli import main
    from perfeq.runtime.probes.curves import Curve
    from perfeq.runtime.probes.document import ProbeResults, save_probes

    model, _, _, folder, _ = noise
    curves = (Curve("noise_rate", 1, (2e-5,), ((900.0,),), (100,)), Curve("noise_length", 1, (2e-5,), ((1.3e-5,),), (100,)),
              Curve("noise_variance", 1, (2e-5,), ((5.5e-7,),), (100,)))
    probes = tmp_path / "probes.json"
    save_probes(probes, ProbeResults("now", {"name": "test"}, {}, {}, (), curves))
    empty = tmp_path / "empty.json"
    save_probes(empty, ProbeResults("now", {"name": "test"}, {}, {}, (), ()))
    profile = tmp_path / "machine.json"
    assert main(["machine-profile", "--manual", "ops=1e-9", "startup=5e-6", "bytes=1e-9", "-o", str(profile)]) == 0
    values = [f"{name}={entry['value']}" for name, entry in model.parameters.items()]
    base = ["predict", str(folder / "model.json"), *values, "P=4", "--machine", str(profile)]
    capsys.readouterr()
    assert main([*base, "--sync", "--noise", str(probes)]) == 0
    assert f"noise from {probes}: 900 interruptions per second, 13 us each" in capsys.readouterr().out
    assert main([*base, "--sync", "--noise", str(probes), "--json"]) == 0
    term = json.loads(capsys.readouterr().out)["synchronisation"]
    assert term["noise"]["variance"] == 5.5e-7 and any("noise probe" in a for a in term["assumptions"])
    for argv, message in (([*base, "--noise", str(probes)], "add --sync"),
                          ([*base, "--sync", "--noise", str(empty)], "has no noise curves")):
        assert main(argv) != 0
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("text", "expected"), [("P=1,2,...,16", [1, 2, 4, 8, 16]), ("P=4,2,1", [1, 2, 4]),
                                                ("P=2,6,...,54", [2, 6, 18, 54])])
def test_over_lists(text: str, expected: list[int]) -> None:
    from perfeq.fitting.analysis.waiting import parse_over

    assert parse_over(text) == expected


@pytest.mark.parametrize("text", ["N=1,2", "P=1,...,8", "P=0,1", "P=2,3,...,9", "P=a"])
def test_bad_over_is_one_line(text: str, capsys) -> None:
    from perfeq.cli import main

    assert main(["variability", "model.json", "--machine", "m.json", "--over", text]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("perfeq: error: --over")
